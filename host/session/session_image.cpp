// The kept snapshot (session_image.hpp): a refresh follows the cache's changes object by
// object, or builds anew.
#include "host/session/session_image.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <unordered_set>

#include "host/cache/cache.hpp"
#include "host/session/image_book.hpp"
#include "host/util/clock.hpp"

namespace caldera {

namespace {

bool scalar(const std::string& name) { return name != kCpu && name != kMemory && name != kPods; }

template <class T>
void erase_one(std::vector<T>& v, const T& x) {
  if (auto it = std::find(v.begin(), v.end(), x); it != v.end()) v.erase(it);
}

}  // namespace

// One refresh's work on a built session. Any step that cannot be followed object by object
// says why and stops; the caller then builds anew (the half-changed session is dropped).
class ImageUpdate {
 public:
  ImageUpdate(Session& s, const Cache& cache) : s_(s), book_(*s.book_), cache_(cache) {}

  bool nodes(const std::set<std::string>& keys) {
    for (const std::string& key : keys) {
      auto was = book_.nodes.find(key);
      auto now = cache_.nodes().find(key);
      const bool before = was != book_.nodes.end(), after = now != cache_.nodes().end();
      if (!before && !after) continue;
      if (before != after) return fail(fmt::format("node {} {}", key, after ? "added" : "removed"));
      const NodeSpec& a = *was->second;
      const NodeSpec& b = *now->second;
      if (a.ready != b.ready || a.allocatable != b.allocatable || a.max_pods != b.max_pods)
        return fail(fmt::format("node {}: readiness, allocatable or max pods changed", key));
      was->second = now->second;
      if (!b.ready) continue;  // not in the session
      NodeInfo* n = s_.node(key);
      n->spec = &b;
      n->unschedulable = b.unschedulable;
    }
    return true;
  }

  // A PodGroup changed: its job is made again, and its pods (its tasks, and those that
  // waited for it) are taken out and put back.
  bool podgroups(const std::set<std::string>& keys) {
    for (const std::string& key : keys) {
      std::vector<std::shared_ptr<const PodSpec>> members;
      JobInfo* old = s_.job(key);
      if (old && !old->podgroup)
        return fail(fmt::format("PodGroup {} has the key of a pod without one", key));
      if (old)
        for (TaskInfo* t : old->tasks) members.push_back(book_.pods.at(std::string(t->uid)).record);
      if (auto it = book_.orphans.find(key); it != book_.orphans.end())
        for (const std::string& k : it->second) members.push_back(book_.pods.at(k).record);
      for (const auto& p : members)
        if (!take_out(p->digest.key)) return false;
      if (old) drop_job(old);
      if (auto was = book_.podgroups.find(key); was != book_.podgroups.end()) {
        if (was->second->min_resources && !uncount(*was->second->min_resources)) return false;
        book_.podgroups.erase(was);
      }
      if (auto now = cache_.podgroups().find(key); now != cache_.podgroups().end()) {
        const auto& pg = now->second;
        if (pg->min_resources && !count(*pg->min_resources)) return false;
        if (pg->queue == "default" && !s_.queue("default"))
          return fail("a job needs the default queue the cluster does not declare");
        book_.podgroups[key] = pg;
        if (JobInfo* j = s_.podgroup_job(key, *pg)) add_job(j);
      }
      for (const auto& p : members)
        if (!put_in(p)) return false;
    }
    return true;
  }

  bool pods(const std::set<std::string>& keys) {
    for (const std::string& key : keys) {
      if (!take_out(key)) return false;
      if (auto now = cache_.pods().find(key); now != cache_.pods().end())
        if (!put_in(now->second)) return false;
    }
    return true;
  }

  // The jobs and nodes touched: order, counts and sums made again from their members.
  void finish() {
    for (JobInfo* j : jobs_) s_.finish_job(j);
    for (NodeInfo* n : nodes_) remake(n);
  }

  const std::string& why() const { return why_; }

 private:
  bool fail(std::string why) {
    why_ = std::move(why);
    return false;
  }

  // The names of a pod's (or a PodGroup's) resources in use, counted; a name not in the
  // session's table, or one going out of use, needs a build.
  bool count(const ResourceList& rl) {
    for (const auto& [name, _] : rl) {
      if (!scalar(name)) continue;
      if (!s_.resource_ids_.count(name)) return fail("resource " + name + " came into use");
      ++book_.scalar_uses[name];
    }
    return true;
  }
  bool uncount(const ResourceList& rl) {
    for (const auto& [name, _] : rl) {
      if (!scalar(name)) continue;
      if (--book_.scalar_uses[name] <= 0) return fail("resource " + name + " went out of use");
    }
    return true;
  }

  bool take_out(const std::string& key) {
    auto it = book_.pods.find(key);
    if (it == book_.pods.end()) return true;
    ImageBook::PodEntry& e = it->second;
    const PodSpec& p = *e.record;
    if (snapshot_has_claims(p)) return fail(fmt::format("pod {} with volume claims changed", key));
    if (!uncount(p.requests) || !uncount(p.init_requests)) return false;
    if (TaskInfo* t = e.task) {
      if (NodeInfo* n = t->node) {
        erase_one(n->tasks, t);
        nodes_.insert(n);
      }
      JobInfo* j = t->job;
      erase_one(j->tasks, t);
      if (j->podgroup) {
        jobs_.insert(j);
      } else {
        drop_job(j);  // a pod's own job goes with it
      }
      s_.free_tasks_.push_back(t);
    } else if (e.foreign) {
      NodeInfo* n = s_.node(p.node);
      erase_one(n->view_pods, static_cast<const PodRef*>(e.foreign));
      nodes_.insert(n);
      s_.free_foreign_.push_back(e.foreign);
    }
    if (!e.task && p.schedulable && !p.podgroup.empty()) {
      auto o = book_.orphans.find(p.digest.job_key);
      o->second.erase(key);
      if (o->second.empty()) book_.orphans.erase(o);
    }
    book_.pods.erase(it);
    return true;
  }

  // As the build's loop over the pods does for one pod.
  bool put_in(const std::shared_ptr<const PodSpec>& record) {
    const PodSpec& p = *record;
    const std::string& key = p.digest.key;
    if (snapshot_has_claims(p)) return fail(fmt::format("pod {} with volume claims changed", key));
    if (!count(p.requests) || !count(p.init_requests)) return false;
    ImageBook::PodEntry& e = book_.pods[key];
    e = ImageBook::PodEntry{record};
    JobInfo* j = nullptr;
    if (!p.schedulable) {
      // another scheduler's: held on its node below
    } else if (p.podgroup.empty()) {
      if (s_.job(key)) return fail(fmt::format("pod {} has the key of a PodGroup", key));
      if (!s_.queue("default"))
        return fail("a job needs the default queue the cluster does not declare");
      j = s_.podless_job(p);
      add_job(j);
    } else if (JobInfo* found = s_.job(p.digest.job_key)) {
      if (!found->podgroup)
        return fail(fmt::format("PodGroup {} has the key of a pod without one", p.digest.job_key));
      j = found;
      jobs_.insert(j);
    } else {
      book_.orphans[p.digest.job_key].insert(key);
    }
    NodeInfo* n = snapshot_holds_node(p) ? s_.node(p.node) : nullptr;
    if (j) {
      TaskInfo* t = s_.new_task(p, j, cache_);
      e.task = t;
      if (n) {
        n->tasks.push_back(t);  // its place and sums: remake()
        t->node = n;
        nodes_.insert(n);
      }
    } else if (n) {
      PodRef* ref = s_.foreign_slot(&p);
      n->view_pods.push_back(ref);
      e.foreign = ref;
      nodes_.insert(n);
    }
    return true;
  }

  void add_job(JobInfo* j) {
    auto& list = s_.job_list_;
    list.insert(std::lower_bound(list.begin(), list.end(), j,
                                 [](const JobInfo* a, const JobInfo* b) { return a->uid < b->uid; }),
                j);
    jobs_.insert(j);
  }

  void drop_job(JobInfo* j) {
    jobs_.erase(j);
    if (auto it = s_.job_by_uid_.find(j->uid); it != s_.job_by_uid_.end() && it->second == j)
      s_.job_by_uid_.erase(it);
    erase_one(s_.job_list_, j);
    auto& owned = s_.jobs_;
    owned.erase(std::find_if(owned.begin(), owned.end(),
                             [&](const std::unique_ptr<JobInfo>& p) { return p.get() == j; }));
  }

  // A node's accounting made again from its members, in the build's order: the pods it
  // holds for no task by pod key, then its tasks job by job (PodGroups' jobs by key, then
  // pods' own jobs by key), each job's in its task order.
  void remake(NodeInfo* n) {
    std::vector<const PodRef*> held;
    for (const PodRef* r : n->view_pods)
      if (!r->task) held.push_back(r);
    std::sort(held.begin(), held.end(), [](const PodRef* a, const PodRef* b) {
      return a->spec->digest.key < b->spec->digest.key;
    });
    std::vector<TaskInfo*> tasks = n->tasks;
    auto rank = [](const TaskInfo* t) {
      return std::make_tuple(t->job->podgroup == nullptr, std::string_view(t->job->uid), t->job_pos);
    };
    std::sort(tasks.begin(), tasks.end(),
              [&](const TaskInfo* a, const TaskInfo* b) { return rank(a) < rank(b); });
    n->reset_accounting(s_.resource_count());
    for (const PodRef* r : held) s_.hold_on_node(n, r, cache_);
    for (TaskInfo* t : tasks) {
      t->in_pod_view = false;
      n->add_task(t);
      s_.count_pod(t, n, +1);
    }
    s_.sync_node(n);
    n->cache_idle = n->idle;
  }

  Session& s_;
  ImageBook& book_;
  const Cache& cache_;
  std::unordered_set<JobInfo*> jobs_;
  std::unordered_set<NodeInfo*> nodes_;
  std::string why_;
};

SessionImage::SessionImage() = default;
SessionImage::~SessionImage() = default;

bool SessionImage::in_fork() const { return owner_pid_ != 0 && owner_pid_ != ::getpid(); }

SessionImage::Refresh SessionImage::refresh(const Cache& cache,
                                            const std::shared_ptr<const Policy>& policy) {
  const double t0 = monotonic_seconds();
  owner_pid_ = ::getpid();
  Refresh r;
  Cache::Changes changes = cache.take_changes(this);
  r.pods = changes.pods.size();
  r.podgroups = changes.podgroups.size();
  r.nodes = changes.nodes.size();
  if (!built_) {
    r.why = "no image yet";
  } else if (built_->policy_ != policy) {
    r.why = "another policy";
  } else if (changes.unknown) {
    r.why = "the changes are not known";
  } else if (changes.rebuild) {
    r.why = "queues, priority classes or storage changed";
  } else if (!changes.empty()) {
    try {
      ImageUpdate up(*built_, cache);
      if (up.nodes(changes.nodes) && up.podgroups(changes.podgroups) && up.pods(changes.pods)) {
        up.finish();
      } else {
        r.why = up.why();
      }
    } catch (...) {
      built_.reset();  // half brought up to date: the next refresh builds
      throw;
    }
  }
  auto build = [&] {
    std::unique_ptr<Session> s(new Session());
    s->policy_ = policy;
    s->book_ = std::make_unique<ImageBook>();
    s->build(cache);
    return s;
  };
  if (!r.why.empty()) {
    built_.reset();  // before the build: the two would not fit in memory together
    built_ = build();
    r.built = true;
  }
  r.seconds = monotonic_seconds() - t0;
  static const bool check = [] {
    const char* v = std::getenv("CALDERA_CHECK_IMAGE");
    return v && *v && std::string(v) != "0";
  }();
  if (check && !r.built) {
    const std::string kept = describe(*built_), fresh = describe(*build());
    if (kept != fresh) {
      size_t at = 0;
      while (at < kept.size() && at < fresh.size() && kept[at] == fresh[at]) ++at;
      const size_t line = kept.rfind('\n', at) == std::string::npos ? 0 : kept.rfind('\n', at) + 1;
      spdlog::critical("CALDERA_CHECK_IMAGE: the image differs from a build from scratch after "
                       "{} pod, {} PodGroup and {} node changes, at:\n  image: {}\n  build: {}",
                       r.pods, r.podgroups, r.nodes, kept.substr(line, kept.find('\n', at) - line),
                       fresh.substr(line, fresh.find('\n', at) - line));
      std::abort();
    }
  }
  return r;
}

std::unique_ptr<Session> SessionImage::open(const Cache& cache, double now, Runtime& runtime) {
  return Session::open(std::move(built_), cache, now, runtime);
}

// ---- describe ----------------------------------------------------------------------------

namespace {

void put(std::string& out, const ResVec& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) fmt::format_to(std::back_inserter(out), "{}{:a}", i ? " " : "", v[i]);
  out += ']';
}

}  // namespace

std::string SessionImage::describe(const Session& s) {
  std::string out;
  auto line = [&](auto&&... parts) {
    (fmt::format_to(std::back_inserter(out), "{}", parts), ...);
    out += '\n';
  };
  for (const std::string& n : s.resource_names_) line("resource ", n);
  out += "total ";
  put(out, s.total_);
  out += '\n';
  for (const NodeInfo* n : s.node_list_) {
    fmt::format_to(std::back_inserter(out),
                   "node {} #{} spec={} pods={}/{} unschedulable={} ready={} ", n->name, n->index,
                   n->spec ? n->spec->name : "-", n->pods, n->max_pods, n->unschedulable, n->ready);
    for (const ResVec* v : {&n->allocatable, &n->idle, &n->used, &n->releasing, &n->pipelined,
                            &n->future_idle, &n->pod_requests, &n->pod_requests_nonzero,
                            &n->cache_idle})
      put(out, *v);
    out += " tasks:";
    for (const TaskInfo* t : n->tasks) fmt::format_to(std::back_inserter(out), " {}", t->uid);
    out += " view:";
    for (const PodRef* r : n->view_pods)
      fmt::format_to(std::back_inserter(out), " {}{}", r->task ? "" : "~", r->spec->digest.key);
    out += " rows:";
    for (int f = 0; f < CAL_NODE_FIELD_COUNT; ++f) {
      const double* row = s.node_table(static_cast<cal_node_field>(f)) + n->index * s.resource_count();
      put(out, ResVec(row, s.resource_count()));
    }
    out += '\n';
  }
  for (const QueueInfo* q : s.queue_list_) {
    fmt::format_to(std::back_inserter(out), "queue {} w={:a} prio={} state={} parent={} ", q->name,
                   q->weight, q->priority, to_string(q->state), q->parent ? q->parent->name : "-");
    put(out, q->capability);
    put(out, q->deserved);
    put(out, q->guarantee);
    out += '\n';
  }
  for (const JobInfo* j : s.job_list_) {
    fmt::format_to(std::back_inserter(out),
                   "job {} {}/{} queue={} min={} prio={} created={:a} phase={} since={:a} pg={} "
                   "minres={} ",
                   j->uid, j->ns, j->name, j->queue->name, j->min_available, j->priority,
                   j->created, to_string(j->phase), j->phase_since,
                   j->podgroup ? j->podgroup->key() : "-", j->has_min_resources);
    put(out, j->min_resources);
    put(out, j->allocated);
    put(out, j->total_request);
    out += " roles:";
    for (const RoleInfo& r : j->roles) fmt::format_to(std::back_inserter(out), " {}={}", r.name, r.min);
    out += " counts:";
    for (int32_t c : j->status_count) fmt::format_to(std::back_inserter(out), " {}", c);
    out += " rolecounts:";
    for (int32_t c : j->role_status_count) fmt::format_to(std::back_inserter(out), " {}", c);
    out += '\n';
    for (const TaskInfo* t : j->tasks) {
      fmt::format_to(std::back_inserter(out),
                     "  task {} {}/{} node={} status={} cache={} nodestatus={} view={} prio={} "
                     "preemptable={} be={} never={} nominated={} role={}#{} pos={} created={:a} "
                     "index={} pod={} ",
                     t->uid, t->ns, t->name, t->node ? t->node->name : "-", to_string(t->status),
                     to_string(t->cache_status), to_string(t->node_status), t->in_pod_view,
                     t->priority, t->preemptable, t->best_effort, t->preempt_never,
                     t->nominated_node, t->role, t->role_index, t->job_pos, t->created,
                     t->name_index, t->pod == t->pod_ref.spec && t->pod_ref.task == t);
      put(out, t->resreq);
      put(out, t->init_resreq);
      out += '\n';
    }
  }
  return out;
}

}  // namespace caldera
