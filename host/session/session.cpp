// The session: snapshot, plugin instances, dispatch and close.
// Follows Volcano's pkg/scheduler/framework/{session.go,session_plugins.go,framework.go} and
// the snapshot of pkg/scheduler/cache/cache.go.
#include "host/session/session.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "host/cache/cache.hpp"
#include "host/session/host_api.hpp"
#include "host/session/runtime.hpp"
#include "host/util/worker_pool.hpp"

namespace caldera {

namespace {

TaskStatus status_of(const PodSpec& p) {
  switch (p.phase) {
    case PodPhase::Running:
      return p.releasing ? CAL_TASK_RELEASING : CAL_TASK_RUNNING;
    case PodPhase::Pending:
      if (p.releasing) return CAL_TASK_RELEASING;
      return p.node.empty() ? CAL_TASK_PENDING : CAL_TASK_BOUND;
    case PodPhase::Succeeded:
      return CAL_TASK_SUCCEEDED;
    case PodPhase::Failed:
      return CAL_TASK_FAILED;
  }
  return CAL_TASK_UNKNOWN;
}

bool terminated(TaskStatus s) { return s == CAL_TASK_SUCCEEDED || s == CAL_TASK_FAILED; }

// The fallback task order of SCENARIOS.md: name index, creation time, name.
bool task_fallback_less(const TaskInfo* l, const TaskInfo* r) {
  if (l->name_index != r->name_index) return l->name_index < r->name_index;
  if (l->created != r->created) return l->created < r->created;
  return l->uid < r->uid;
}

const Args& empty_args() {
  static const Args a;
  return a;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// open / build
// ---------------------------------------------------------------------------------------

std::unique_ptr<Session> Session::open(const Cache& cache, std::shared_ptr<const Policy> policy,
                                       double now, Runtime& runtime) {
  std::unique_ptr<Session> s(new Session());
  s->runtime_ = &runtime;
  s->policy_ = std::move(policy);
  s->now_ = now;
  s->carried_ = &runtime.plugin_states();
  s->build(cache);

  // Open the plugin instances, tier by tier (Volcano's OnSessionOpen order).
  for (const auto& tier : s->policy_->tiers) {
    std::vector<Instance> instances;
    for (const auto& cp : tier) {
      cal_code code = CAL_SUCCESS;
      cal_status st{};
      st.struct_size = sizeof st;
      s->calling_ = &cp;
      void* self = cp.desc->open(to_handle(s.get()), reinterpret_cast<const cal_args*>(cp.args.get()),
                                 &code, &st);
      s->calling_ = nullptr;
      if (code != CAL_SUCCESS) {
        s->saved_.erase(cp.name);  // what a failed open() saved goes with it
        spdlog::error("plugin {}: open failed ({}); this session runs without it", cp.name,
                      st.reason[0] ? st.reason : "no reason given");
        continue;
      }
      instances.push_back(Instance{&cp, self});
    }
    s->tiers_.push_back(std::move(instances));
  }
  s->flatten_chains();
  return s;
}

void Session::flatten_chains() {
  bool parallel_predicates = true, parallel_scores = true;
  for (const auto& tier : tiers_)
    for (const auto& in : tier) {
      const cal_plugin* d = in.plugin->desc;
      const bool parallel = (d->capabilities & CAL_CAP_NODE_PARALLEL) != 0;
      const Call call{d, in.self, &in.plugin->name,
                      CAL_PLUGIN_HAS(d, predicate_many) ? d->predicate_many : nullptr,
                      CAL_PLUGIN_HAS(d, node_order_many) ? d->node_order_many : nullptr};
      if (in.plugin->points.has(Point::Predicate)) {
        if (d->pre_predicate) pre_predicates_.push_back(call);
        if (d->predicate || call.predicate_many) {
          predicates_.push_back(call);
          parallel_predicates = parallel_predicates && parallel;
        }
      }
      if (in.plugin->points.has(Point::NodeOrder) &&
          (d->node_order || call.node_order_many || d->batch_node_order)) {
        scorers_.push_back(call);
        if (d->node_order || call.node_order_many) parallel_scores = parallel_scores && parallel;
      }
    }
  workers_ = &runtime_->workers(static_cast<size_t>(std::max(0, policy_->config.threads)));
  const bool many = workers_->threads() > 1;
  predicates_parallel_ = many && parallel_predicates;
  scores_parallel_ = many && parallel_scores;
}

Session::~Session() {
  if (!closed_) {
    // A session dropped without close() still closes its plugin instances (what they save
    // goes nowhere: there is no result).
    for (auto& tier : tiers_)
      for (auto& in : tier) {
        calling_ = in.plugin;
        if (in.plugin->desc->close) in.plugin->desc->close(in.self);
        calling_ = nullptr;
      }
  }
}

void Session::build(const Cache& cache) {
  // Resource ids: cpu, memory, then every other name in use, sorted. "pods" is not a
  // vector dimension (NodeInfo::max_pods / pods count it). A cluster uses a handful of
  // names, so the names seen are kept in a short list that a pod's few entries are looked
  // up in, cheaper than a tree insert per entry.
  std::vector<const std::string*> seen;
  auto collect = [&](const ResourceList& rl) {
    for (const auto& [name, v] : rl) {
      if (name == kCpu || name == kMemory || name == kPods) continue;
      bool known = false;
      for (const std::string* s : seen)
        if (*s == name) {
          known = true;
          break;
        }
      if (!known) seen.push_back(&name);
    }
  };
  for (const auto& [_, n] : cache.nodes()) collect(n->allocatable);
  for (const auto& [_, p] : cache.pods()) {
    collect(p->requests);
    collect(p->init_requests);
  }
  for (const auto& [_, pg] : cache.podgroups())
    if (pg->min_resources) collect(*pg->min_resources);
  for (const auto& [_, q] : cache.queues()) {
    if (q->capability) collect(*q->capability);
    if (q->deserved) collect(*q->deserved);
    if (q->guarantee) collect(*q->guarantee);
  }
  std::vector<std::string> scalars;
  for (const std::string* s : seen) scalars.push_back(*s);
  std::sort(scalars.begin(), scalars.end());
  resource_names_ = {kCpu, kMemory};
  resource_names_.insert(resource_names_.end(), scalars.begin(), scalars.end());
  for (size_t i = 0; i < resource_names_.size(); ++i)
    resource_ids_[resource_names_[i]] = static_cast<int>(i);
  const size_t R = resource_names_.size();
  // A name's id: cpu and memory first, then a search of the short list (a map for the rare
  // cluster with many resource names).
  auto id_of = [&](const std::string& name) -> int {
    if (name == kCpu) return 0;
    if (name == kMemory) return 1;
    if (R > 16) {
      auto it = resource_ids_.find(name);
      return it == resource_ids_.end() ? -1 : it->second;
    }
    for (size_t i = 2; i < R; ++i)
      if (resource_names_[i] == name) return static_cast<int>(i);
    return -1;
  };
  auto vec = [&](const ResourceList& rl, double fill = 0.0) {
    ResVec v(R, fill);
    for (const auto& [name, amount] : rl)
      if (int id = id_of(name); id >= 0) v[static_cast<size_t>(id)] = amount;
    return v;
  };

  // The host's own why-pending reasons, interned first.
  for (const std::string& name : resource_names_)
    insufficient_ids_.push_back(reasons_.intern("insufficient " + name));
  pods_id_ = reasons_.intern("insufficient pods");

  // Nodes. Volcano's snapshot leaves out nodes that are not ready.
  total_ = ResVec(R);
  for (const auto& [name, spec] : cache.nodes()) {
    if (!spec->ready) continue;
    auto n = std::make_unique<NodeInfo>();
    n->name = name;
    n->allocatable = vec(spec->allocatable);
    n->idle = n->allocatable;
    n->used = ResVec(R);
    n->releasing = ResVec(R);
    n->pipelined = ResVec(R);
    n->future_idle = n->allocatable;
    n->pod_requests = ResVec(R);
    n->pod_requests_nonzero = ResVec(R);
    n->max_pods = spec->max_pods;
    n->unschedulable = spec->unschedulable;
    n->ready = spec->ready;
    n->spec = spec;
    total_.add(n->allocatable);
    node_by_name_[name] = n.get();
    node_list_.push_back(n.get());
    nodes_.push_back(std::move(n));
  }

  // Queues, then their parents.
  auto add_queue = [&](std::shared_ptr<const QueueSpec> spec) {
    auto q = std::make_unique<QueueInfo>();
    q->name = spec->name;
    q->weight = spec->weight;
    q->has_capability = spec->capability.has_value();
    q->capability = spec->capability ? vec(*spec->capability, kInf) : ResVec(R, kInf);
    q->has_deserved = spec->deserved.has_value();
    q->deserved = spec->deserved ? vec(*spec->deserved) : ResVec(R);
    q->has_guarantee = spec->guarantee.has_value();
    q->guarantee = spec->guarantee ? vec(*spec->guarantee) : ResVec(R);
    q->reclaimable = spec->reclaimable;
    q->priority = spec->priority;
    q->state = spec->state;
    q->created = spec->created;
    q->spec = spec;
    QueueInfo* raw = q.get();
    queue_by_name_[q->name] = raw;
    queues_.push_back(std::move(q));
    return raw;
  };
  for (const auto& [_, spec] : cache.queues()) add_queue(spec);
  auto default_queue = [&]() -> QueueInfo* {
    // Volcano always has a "default" queue (its controller creates it); a cluster that
    // does not declare one gets an open queue of weight 1 when a job needs it.
    if (auto* q = queue("default")) return q;
    auto spec = std::make_shared<QueueSpec>();
    spec->name = "default";
    return add_queue(spec);
  };

  // Priority classes. Kubernetes always defines the two system classes; a cluster that
  // does not list them still has them (conformance protects pods that use them).
  std::unordered_map<std::string, int32_t> pc_value{{"system-cluster-critical", 2000000000},
                                                    {"system-node-critical", 2000001000}};
  int32_t default_priority = 0;
  for (const auto& [name, pc] : cache.priority_classes()) {
    pc_value[name] = pc->value;
    if (pc->global_default) default_priority = pc->value;
  }

  // Jobs from PodGroups.
  auto new_job = [&](const std::string& uid, const std::string& ns, const std::string& name) {
    auto j = std::make_unique<JobInfo>();
    j->uid = uid;
    j->session = this;
    j->ns = ns;
    j->name = name;
    j->allocated = ResVec(R);
    j->total_request = ResVec(R);
    j->min_resources = ResVec(R);
    JobInfo* raw = j.get();
    job_by_uid_[uid] = raw;
    jobs_.push_back(std::move(j));
    return raw;
  };
  for (const auto& [key, pg] : cache.podgroups()) {
    QueueInfo* q = pg->queue == "default" ? default_queue() : queue(pg->queue);
    if (!q) {
      // Volcano's snapshot skips a job whose queue does not exist.
      // Said once per PodGroup by the backend that feeds the cache (a Warning event on
      // the PodGroup on Kubernetes; an error when a file is loaded), not every session.
      spdlog::debug("podgroup {}: queue '{}' not found; left out of the session", key, pg->queue);
      continue;
    }
    JobInfo* j = new_job(key, pg->ns, pg->name);
    j->queue = q;
    j->min_available = pg->min_member;
    j->priority = default_priority;
    if (!pg->priority_class.empty()) {
      if (auto it = pc_value.find(pg->priority_class); it != pc_value.end())
        j->priority = it->second;
    }
    j->created = pg->created;
    j->phase = pg->phase;
    j->phase_since = pg->phase_since;
    if (pg->min_resources) {
      j->has_min_resources = true;
      j->min_resources = vec(*pg->min_resources);
    }
    for (const auto& [role, min] : pg->min_task_member) j->roles.push_back({role, min});
    j->podgroup = pg;
  }

  // A pod that holds a node but is no task of the session still uses the node's
  // resources: Volcano's cache adds every pod with a node name to its node
  // (cache/event_handlers.go addTask), whether or not the pod's job makes it into the
  // snapshot.
  auto hold_node = [&](const PodSpec& pod) {
    if (pod.node.empty() || terminated(status_of(pod))) return;
    NodeInfo* n = node(pod.node);
    if (!n) return;
    ResVec req = vec(pod.requests);
    n->idle.sub(req);
    n->used.add(req);
    ++n->pods;
    n->refresh_future_idle();
    // Volcano's cache puts such a pod in its node's task list, so the Kubernetes view of
    // the node (pod_requests) has it too.
    TaskInfo outside;
    outside.init_resreq = pod.init_requests.empty() ? req : vec(pod.init_requests);
    count_pod(&outside, n, +1);
  };

  // Tasks, in one block: reserved for every pod, so that the pointers to them stay put.
  tasks_.reserve(cache.pods().size());
  for (const auto& [key, pod] : cache.pods()) {
    if (!pod->schedulable) {
      // Placed by another scheduler: it uses its node's resources, and is nobody's job.
      hold_node(*pod);
      continue;
    }
    JobInfo* j = nullptr;
    if (pod->podgroup.empty()) {
      // A pod without a PodGroup is a job of its own, admitted as kube-scheduler would
      // take it (so Caldera works with no Volcano controllers installed).
      j = new_job(key, pod->ns, pod->name);
      j->queue = default_queue();
      j->min_available = 1;
      j->phase = JobPhase::Inqueue;
      j->created = pod->created;
      j->priority = default_priority;
      if (!pod->priority_class.empty())
        if (auto it = pc_value.find(pod->priority_class); it != pc_value.end())
          j->priority = it->second;
    } else {
      auto it = job_by_uid_.find(pod->digest.job_key);
      if (it == job_by_uid_.end()) {
        // The PodGroup does not exist (or its queue does not): the pod is nobody's task,
        // as in Volcano, but if it runs somewhere it still fills that node. The backend
        // tells the pod's owner why it waits.
        spdlog::debug("pod {}: PodGroup {}/{} not in the session; left out", key, pod->ns,
                      pod->podgroup);
        hold_node(*pod);
        continue;
      }
      j = it->second;
    }
    TaskInfo* t = &tasks_.emplace_back();
    const PodDigest& d = pod->digest;
    t->uid = d.key;
    t->name = pod->name;
    t->ns = pod->ns;
    t->job = j;
    t->status = status_of(*pod);
    t->cache_status = t->status;
    t->resreq = vec(pod->requests);
    t->init_resreq = pod->init_requests.empty() ? t->resreq : vec(pod->init_requests);
    if (pod->priority) {
      t->priority = *pod->priority;
    } else if (auto it = pc_value.find(pod->priority_class);
               !pod->priority_class.empty() && it != pc_value.end()) {
      t->priority = it->second;
    } else {
      t->priority = 1;  // Volcano's TaskInfo default when spec.priority is unset
    }
    t->preemptable = d.preemptable;
    t->best_effort = t->init_resreq.is_empty();
    t->preempt_never = pod->preempt_never;
    t->role = d.role;
    t->created = pod->created;
    t->name_index = d.name_index;
    t->pod = pod;
    j->tasks.push_back(t);
  }

  // Per job: roles, counts, sums; tasks on nodes.
  for (auto& jp : jobs_) {
    JobInfo* j = jp.get();
    for (TaskInfo* t : j->tasks) {
      bool known = std::any_of(j->roles.begin(), j->roles.end(),
                               [&](const RoleInfo& r) { return r.name == t->role; });
      if (!known) j->roles.push_back({std::string(t->role), 0});
    }
    std::sort(j->roles.begin(), j->roles.end(),
              [](const RoleInfo& a, const RoleInfo& b) { return a.name < b.name; });
    j->role_status_count.assign(j->roles.size() * CAL_TASK_STATUS_COUNT, 0);
    std::sort(j->tasks.begin(), j->tasks.end(), task_fallback_less);
    for (TaskInfo* t : j->tasks) {
      for (size_t r = 0; r < j->roles.size(); ++r)
        if (j->roles[r].name == t->role) t->role_index = static_cast<int>(r);
      ++j->status_count[t->status];
      if (t->role_index >= 0)
        ++j->role_status_count[t->role_index * CAL_TASK_STATUS_COUNT + t->status];
      if (allocated_status(t->status)) j->allocated.add(t->resreq);
      j->total_request.add(t->resreq);
      if (!t->pod->node.empty() && !terminated(t->status)) {
        if (NodeInfo* n = node(t->pod->node)) {
          n->add_task(t);
          count_pod(t, n, +1);
        }
      }
    }
  }

  for (uint32_t i = 0; i < node_list_.size(); ++i) node_list_[i]->index = i;
  for (auto& table : node_tables_) table.assign(node_list_.size() * R, 0.0);
  for (const NodeInfo* n : node_list_) sync_node(n);

  for (auto& j : jobs_) job_list_.push_back(j.get());
  std::sort(job_list_.begin(), job_list_.end(),
            [](const JobInfo* a, const JobInfo* b) { return a->uid < b->uid; });
  for (auto& q : queues_) queue_list_.push_back(q.get());
  std::sort(queue_list_.begin(), queue_list_.end(),
            [](const QueueInfo* a, const QueueInfo* b) { return a->name < b->name; });
  for (auto& q : queues_) {
    if (q->spec && !q->spec->parent.empty()) {
      q->parent = queue(q->spec->parent);
      if (q->parent) q->parent->children.push_back(q.get());
    }
  }
  for (const auto& [name, args] : policy_->action_args) action_args_[name] = *args;
  hypernodes_.build(cache, node_list_, job_list_, runtime_->hypernode_memo());
}

// ---------------------------------------------------------------------------------------
// lookups
// ---------------------------------------------------------------------------------------

int Session::resource_id(const std::string& name) const {
  auto it = resource_ids_.find(name);
  return it == resource_ids_.end() ? -1 : it->second;
}
JobInfo* Session::job(const std::string& uid) const {
  auto it = job_by_uid_.find(uid);
  return it == job_by_uid_.end() ? nullptr : it->second;
}
NodeInfo* Session::node(const std::string& name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? nullptr : it->second;
}
QueueInfo* Session::queue(const std::string& name) const {
  auto it = queue_by_name_.find(name);
  return it == queue_by_name_.end() ? nullptr : it->second;
}
const Args& Session::action_args(const std::string& action) const {
  auto it = action_args_.find(action);
  return it == action_args_.end() ? empty_args() : it->second;
}

// ---------------------------------------------------------------------------------------
// dispatch (rules: caldera/plugin.h)
// ---------------------------------------------------------------------------------------

namespace {
// Calls f(instance, desc) for every instance taking part in point p, in tier order.
template <class F>
void each_in(const std::vector<Session::Instance>& tier, Point p, F&& f) {
  for (const auto& in : tier)
    if (in.plugin->points.has(p)) f(in, in.plugin->desc);
}
}  // namespace

bool Session::has_point(Point p) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(p)) return true;
  return false;
}

bool Session::job_order_less(const JobInfo* l, const JobInfo* r) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::JobOrder) && in.plugin->desc->job_order) {
        int c = in.plugin->desc->job_order(in.self, to_handle(l), to_handle(r));
        if (c != 0) return c < 0;
      }
  if (l->created != r->created) return l->created < r->created;
  if (l->name != r->name) return l->name < r->name;
  return l->uid < r->uid;
}

bool Session::queue_order_less(const QueueInfo* l, const QueueInfo* r) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::QueueOrder) && in.plugin->desc->queue_order) {
        int c = in.plugin->desc->queue_order(in.self, to_handle(l), to_handle(r));
        if (c != 0) return c < 0;
      }
  if (l->created != r->created) return l->created < r->created;
  return l->name < r->name;
}

bool Session::task_order_less(const TaskInfo* l, const TaskInfo* r) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::TaskOrder) && in.plugin->desc->task_order) {
        int c = in.plugin->desc->task_order(in.self, to_handle(l), to_handle(r));
        if (c != 0) return c < 0;
      }
  return task_fallback_less(l, r);
}

namespace {
PointStatus failed(cal_code code, const cal_status& st, const std::string& plugin) {
  PointStatus ps;
  ps.code = code;
  ps.reason = st.reason;
  ps.plugin = plugin;
  if (code == CAL_ERROR)
    spdlog::error("plugin {}: error: {}", plugin, ps.reason.empty() ? "no reason" : ps.reason);
  if (ps.reason.empty()) ps.reason = plugin + " refused";
  return ps;
}
}  // namespace

PointStatus Session::pre_predicate(const TaskInfo* t) const {
  for (const Call& c : pre_predicates_) {
    cal_status st;
    st.struct_size = sizeof st;
    st.reason[0] = '\0';
    cal_code code = c.desc->pre_predicate(c.self, to_handle(t), &st);
    if (code != CAL_SUCCESS && code != CAL_SKIP) return failed(code, st, *c.name);
  }
  return {};
}

void Session::predicate_codes(const TaskInfo* t, const NodeInfo* const* nodes, size_t count,
                              cal_code* codes, const std::string** plugins, const char** reasons,
                              cal_status* statuses) const {
  for (size_t i = 0; i < count; ++i) {
    codes[i] = CAL_SUCCESS;
    plugins[i] = nullptr;
    reasons[i] = nullptr;
  }
  // The nodes still passing, in order; each plugin of the chain sees only those (the first
  // failure stops a node's chain).
  thread_local std::vector<const cal_node*> alive_buf;
  thread_local std::vector<size_t> where_buf;
  thread_local std::vector<cal_code> code_buf;
  thread_local std::vector<const char*> reason_buf;
  std::vector<const cal_node*>& alive = alive_buf;
  std::vector<size_t>& where = where_buf;
  alive.resize(count);
  where.resize(count);
  for (size_t i = 0; i < count; ++i) {
    alive[i] = to_handle(nodes[i]);
    where[i] = i;
  }
  size_t live = count;
  for (const Call& c : predicates_) {
    if (live == 0) break;
    if (c.predicate_many) {
      code_buf.resize(live);
      reason_buf.resize(live);
      std::vector<cal_code>& cs = code_buf;
      std::vector<const char*>& rs = reason_buf;
      c.predicate_many(c.self, to_handle(t), alive.data(), live, cs.data(), rs.data());
      size_t kept = 0;
      for (size_t k = 0; k < live; ++k) {
        if (cs[k] == CAL_SUCCESS || cs[k] == CAL_SKIP) {
          alive[kept] = alive[k];
          where[kept++] = where[k];
          continue;
        }
        codes[where[k]] = cs[k];
        plugins[where[k]] = c.name;
        reasons[where[k]] = rs[k];
      }
      live = kept;
    } else {
      size_t kept = 0;
      for (size_t k = 0; k < live; ++k) {
        cal_status& st = statuses[where[k]];
        st.struct_size = sizeof st;
        st.reason[0] = '\0';
        const cal_code code = c.desc->predicate(c.self, to_handle(t), alive[k], &st);
        if (code == CAL_SUCCESS || code == CAL_SKIP) {
          alive[kept] = alive[k];
          where[kept++] = where[k];
          continue;
        }
        codes[where[k]] = code;
        plugins[where[k]] = c.name;
        reasons[where[k]] = st.reason[0] != '\0' ? st.reason : nullptr;
      }
      live = kept;
    }
  }
}

PointStatus Session::predicate(const TaskInfo* t, const NodeInfo* n) const {
  cal_code code;
  const std::string* plugin = nullptr;
  const char* reason = nullptr;
  cal_status st;
  predicate_codes(t, &n, 1, &code, &plugin, &reason, &st);
  if (code == CAL_SUCCESS) return {};
  cal_status out;
  out.struct_size = sizeof out;
  std::snprintf(out.reason, sizeof out.reason, "%s", reason ? reason : "");
  return failed(code, out, *plugin);
}

void Session::node_scores(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                          std::vector<double>& scores) const {
  const size_t count = nodes.size();
  scores.assign(count, 0.0);
  if (count == 0 || scorers_.empty()) return;
  const auto* handles = reinterpret_cast<const cal_node* const*>(nodes.data());
  // One row of partial scores per slot call (a plugin with both slots has two), summed per
  // node in call order at the end, so that the sums are the same however the per-node
  // calls were spread over threads.
  const size_t rows = scorers_.size() * 2;
  // The scheduling thread's buffer, named by a reference: inside the lambda a thread_local
  // would mean each worker's own.
  thread_local std::vector<double> buffer;
  std::vector<double>& part = buffer;
  // Not cleared: a per-node row is written whole, a batch row is zeroed before its call,
  // and a row with no slot is never read (zeroing every row was a memset per task placed
  // as large as the rows).
  if (part.size() < rows * count) part.resize(rows * count);
  auto per_node = [&](size_t begin, size_t end) {
    for (size_t k = 0; k < scorers_.size(); ++k) {
      const Call& c = scorers_[k];
      double* row = &part[(2 * k) * count];
      if (c.node_order_many) {
        cal_status st;
        st.struct_size = sizeof st;
        st.reason[0] = '\0';
        if (c.node_order_many(c.self, to_handle(t), handles + begin, end - begin, row + begin,
                              &st) != CAL_SUCCESS) {
          spdlog::error("plugin {}: node_order failed: {}", *c.name, st.reason);
          std::fill(row + begin, row + end, 0.0);
        }
        continue;
      }
      if (!c.desc->node_order) continue;
      for (size_t i = begin; i < end; ++i) {
        cal_status st;
        st.struct_size = sizeof st;
        st.reason[0] = '\0';
        double s = 0;
        if (c.desc->node_order(c.self, to_handle(t), handles[i], &s, &st) != CAL_SUCCESS) {
          spdlog::error("plugin {}: node_order failed on {}: {}", *c.name, nodes[i]->name,
                        st.reason);
          s = 0;
        }
        row[i] = s;
      }
    }
  };
  // Parallel only where the work pays for the hand-over (a few hundred calls).
  constexpr size_t kMinChunk = 64;
  if (scores_parallel_ && count >= 2 * kMinChunk)
    workers_->run(count, kMinChunk, per_node);
  else
    per_node(0, count);
  for (size_t k = 0; k < scorers_.size(); ++k) {
    const Call& c = scorers_[k];
    if (!c.desc->batch_node_order) continue;
    cal_status st;
    st.struct_size = sizeof st;
    st.reason[0] = '\0';
    double* row = &part[(2 * k + 1) * count];
    std::fill(row, row + count, 0.0);  // batch_node_order adds to its scores
    if (c.desc->batch_node_order(c.self, to_handle(t), handles, count, row, &st) != CAL_SUCCESS) {
      spdlog::error("plugin {}: batch_node_order failed: {}", *c.name, st.reason);
      std::fill(row, row + count, 0.0);
    }
  }
  for (size_t r = 0; r < rows; ++r) {
    const Call& c = scorers_[r / 2];
    if (r % 2 == 0 ? !(c.desc->node_order || c.node_order_many) : !c.desc->batch_node_order)
      continue;
    const double* row = &part[r * count];
    for (size_t i = 0; i < count; ++i) scores[i] += row[i];
  }
}

NodeInfo* Session::best_node(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                             const std::vector<double>& scores) const {
  if (nodes.empty()) return nullptr;
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::BestNode) && in.plugin->desc->best_node) {
        int64_t i = in.plugin->desc->best_node(
            in.self, to_handle(t), reinterpret_cast<const cal_node* const*>(nodes.data()),
            scores.data(), nodes.size());
        if (i >= 0 && static_cast<size_t>(i) < nodes.size()) return nodes[i];
      }
  // Highest score; among equal scores the node first by name (Volcano picks at random;
  // Caldera must be deterministic).
  size_t best = 0;
  for (size_t i = 1; i < nodes.size(); ++i) {
    if (scores[i] > scores[best] ||
        (scores[i] == scores[best] && nodes[i]->name < nodes[best]->name))
      best = i;
  }
  return nodes[best];
}

namespace {
// Volcano's Preemptable / Reclaimable: intersect inside a tier; an empty answer ends the
// tier; the first tier that leaves victims decides. `init` carries across tiers exactly as
// in Volcano (session_plugins.go).
std::vector<TaskInfo*> select_victims(const std::vector<std::vector<Session::Instance>>& tiers,
                                      Point p, cal_victims_fn cal_plugin::*slot,
                                      const TaskInfo* preemptor,
                                      const std::vector<TaskInfo*>& candidates) {
  std::vector<TaskInfo*> victims;
  bool init = false;
  std::vector<const cal_task*> handles(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) handles[i] = to_handle(candidates[i]);
  std::vector<uint8_t> marks(candidates.size());
  for (const auto& tier : tiers) {
    for (const auto& in : tier) {
      cal_victims_fn fn = in.plugin->desc->*slot;
      if (!in.plugin->points.has(p) || !fn) continue;
      std::fill(marks.begin(), marks.end(), 0);
      cal_vote v = fn(in.self, to_handle(preemptor), handles.data(), handles.size(), marks.data());
      if (v == CAL_ABSTAIN) continue;
      std::vector<TaskInfo*> chosen;
      for (size_t i = 0; i < candidates.size(); ++i)
        if (marks[i]) chosen.push_back(candidates[i]);
      if (chosen.empty()) {
        victims.clear();
        break;
      }
      if (!init) {
        victims = std::move(chosen);
        init = true;
      } else {
        std::vector<TaskInfo*> both;
        for (TaskInfo* v : victims)
          if (std::find(chosen.begin(), chosen.end(), v) != chosen.end()) both.push_back(v);
        victims = std::move(both);
      }
    }
    if (!victims.empty()) return victims;
  }
  return victims;
}
}  // namespace

std::vector<TaskInfo*> Session::preemptable(const TaskInfo* preemptor,
                                            const std::vector<TaskInfo*>& candidates) const {
  return select_victims(tiers_, Point::Preemptable, &cal_plugin::preemptable, preemptor,
                        candidates);
}

std::vector<TaskInfo*> Session::reclaimable(const TaskInfo* reclaimer,
                                            const std::vector<TaskInfo*>& candidates) const {
  return select_victims(tiers_, Point::Reclaimable, &cal_plugin::reclaimable, reclaimer,
                        candidates);
}

std::vector<TaskInfo*> Session::victim_tasks(const std::vector<TaskInfo*>& tasks) const {
  std::vector<const cal_task*> handles(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) handles[i] = to_handle(tasks[i]);
  std::vector<uint8_t> union_marks(tasks.size(), 0), marks(tasks.size());
  for (const auto& tier : tiers_) {
    bool any = false;
    for (const auto& in : tier) {
      if (!in.plugin->points.has(Point::VictimTasks) || !in.plugin->desc->victim_tasks) continue;
      std::fill(marks.begin(), marks.end(), 0);
      in.plugin->desc->victim_tasks(in.self, handles.data(), handles.size(), marks.data());
      for (size_t i = 0; i < tasks.size(); ++i)
        if (marks[i]) union_marks[i] = 1, any = true;
    }
    if (any) break;
  }
  std::vector<TaskInfo*> out;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (union_marks[i]) out.push_back(tasks[i]);
  return out;
}

bool Session::overused(const QueueInfo* q) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::Overused) && in.plugin->desc->overused &&
          in.plugin->desc->overused(in.self, to_handle(q)))
        return true;
  return false;
}

bool Session::allocatable(const QueueInfo* q, const TaskInfo* t) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::Allocatable) && in.plugin->desc->allocatable &&
          !in.plugin->desc->allocatable(in.self, to_handle(q), to_handle(t)))
        return false;
  return true;
}

bool Session::preemptive(const QueueInfo* q, const TaskInfo* t) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::Preemptive) && in.plugin->desc->preemptive &&
          !in.plugin->desc->preemptive(in.self, to_handle(q), to_handle(t)))
        return false;
  return true;
}

bool Session::job_ready(const JobInfo* j) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::JobReady) && in.plugin->desc->job_ready &&
          !in.plugin->desc->job_ready(in.self, to_handle(j)))
        return false;
  return true;
}

namespace {
// Votes: any reject decides no; a tier with a permit decides yes; all abstain: yes.
bool vote(const std::vector<std::vector<Session::Instance>>& tiers, Point p,
          cal_job_vote_fn cal_plugin::*slot, const JobInfo* j) {
  for (const auto& tier : tiers) {
    bool permit = false;
    for (const auto& in : tier) {
      cal_job_vote_fn fn = in.plugin->desc->*slot;
      if (!in.plugin->points.has(p) || !fn) continue;
      cal_vote v = fn(in.self, to_handle(j));
      if (v == CAL_REJECT) return false;
      if (v == CAL_PERMIT) permit = true;
    }
    if (permit) return true;
  }
  return true;
}
}  // namespace

bool Session::job_pipelined(const JobInfo* j) const {
  return vote(tiers_, Point::JobPipelined, &cal_plugin::job_pipelined, j);
}

bool Session::job_enqueueable(const JobInfo* j) const {
  return vote(tiers_, Point::JobEnqueueable, &cal_plugin::job_enqueueable, j);
}

bool Session::job_starving(const JobInfo* j) const {
  for (const auto& tier : tiers_) {
    bool found = false;
    for (const auto& in : tier) {
      if (!in.plugin->points.has(Point::JobStarving) || !in.plugin->desc->job_starving) continue;
      found = true;
      if (!in.plugin->desc->job_starving(in.self, to_handle(j))) return false;
    }
    if (found) return true;
  }
  return false;
}

void Session::job_enqueued(JobInfo* j) {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::JobEnqueueable) && in.plugin->desc->job_enqueued)
        in.plugin->desc->job_enqueued(in.self, to_handle(j));
}

PointStatus Session::job_valid(const JobInfo* j) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->desc->job_valid) {
        cal_status st{};
        st.struct_size = sizeof st;
        cal_code c = in.plugin->desc->job_valid(in.self, to_handle(j), &st);
        if (c != CAL_SUCCESS && c != CAL_SKIP) return failed(c, st, in.plugin->name);
      }
  return {};
}

// ---------------------------------------------------------------------------------------
// changes
// ---------------------------------------------------------------------------------------

void Session::fire_allocate(TaskInfo* t) {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->desc->on_allocate) in.plugin->desc->on_allocate(in.self, to_handle(t));
}

void Session::fire_deallocate(TaskInfo* t) {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->desc->on_deallocate) in.plugin->desc->on_deallocate(in.self, to_handle(t));
}

void Session::count_pod(TaskInfo* t, NodeInfo* n, int sign) {
  if ((sign > 0) == t->in_pod_view) return;
  t->in_pod_view = sign > 0;
  const double s = sign;
  const size_t R = n->pod_requests.size();
  for (size_t i = 0; i < R && i < t->init_resreq.size(); ++i) {
    const double whole = std::round(t->init_resreq[i]);  // Kubernetes counts int64 units
    double nonzero = whole;
    if (i == 0 && whole == 0) nonzero = kDefaultMilliCpuRequest;
    if (i == 1 && whole == 0) nonzero = kDefaultMemoryRequest;
    n->pod_requests[i] += s * whole;
    n->pod_requests_nonzero[i] += s * nonzero;
  }
}

const double* Session::node_table(cal_node_field f) const {
  const auto i = static_cast<size_t>(f);
  return i < CAL_NODE_FIELD_COUNT ? node_tables_[i].data() : nullptr;
}

void Session::sync_node(const NodeInfo* n) {
  const size_t R = resource_names_.size();
  const ResVec* fields[CAL_NODE_FIELD_COUNT] = {&n->allocatable, &n->idle,       &n->used,
                                                &n->releasing,   &n->pipelined,  &n->future_idle,
                                                &n->pod_requests, &n->pod_requests_nonzero};
  for (size_t f = 0; f < CAL_NODE_FIELD_COUNT; ++f)
    std::copy(fields[f]->data(), fields[f]->data() + R, node_tables_[f].data() + n->index * R);
}

void Session::allocate_task(TaskInfo* t, NodeInfo* n) {
  t->job->update_task_status(t, CAL_TASK_ALLOCATED);
  n->add_task(t);
  count_pod(t, n, +1);
  sync_node(n);
  fire_allocate(t);
}

void Session::pipeline_task(TaskInfo* t, NodeInfo* n) {
  t->job->update_task_status(t, CAL_TASK_PIPELINED);
  n->add_task(t);
  count_pod(t, n, +1);
  sync_node(n);
  fire_allocate(t);
}

void Session::evict_task(TaskInfo* t) {
  t->status_before_evict = t->status;
  t->job->update_task_status(t, CAL_TASK_RELEASING);
  if (NodeInfo* n = t->node) {  // Volcano's node.UpdateTask: remove as before, add as now
    n->remove_task(t);
    n->add_task(t);
    // Volcano's predicates plugin drops an evicted pod from its Kubernetes node view.
    count_pod(t, n, -1);
    sync_node(n);
  }
  fire_deallocate(t);
}

void Session::unallocate_task(TaskInfo* t) {
  t->job->update_task_status(t, CAL_TASK_PENDING);
  if (NodeInfo* n = t->node) {
    count_pod(t, n, -1);
    n->remove_task(t);
    sync_node(n);
  }
  fire_deallocate(t);
  t->new_annotations.clear();  // after the event, so plugins can still read them
}

void Session::unevict_task(TaskInfo* t) {
  t->job->update_task_status(t, t->status_before_evict);
  if (NodeInfo* n = t->node) {
    n->remove_task(t);
    n->add_task(t);
    count_pod(t, n, +1);
    sync_node(n);
  }
  fire_allocate(t);
}

void Session::commit_bind(TaskInfo* t) {
  t->job->update_task_status(t, CAL_TASK_BINDING);
  t->node_status = CAL_TASK_BINDING;  // same accounting branch as Allocated
  result_.binds.emplace_back(t->uid, t->node ? t->node->name : std::string());
  if (!t->new_annotations.empty()) result_.bind_annotations[std::string(t->uid)] = t->new_annotations;
}

void Session::commit_evict(TaskInfo* t) { result_.evictions.emplace_back(t->uid); }

void Session::set_job_phase(JobInfo* j, JobPhase p) { j->phase = p; }

void Session::set_pending_reason(TaskInfo* t, std::string reason) {
  t->pending_reason = std::move(reason);
}

void Session::set_job_pending_reason(JobInfo* j, const std::string& plugin, std::string reason) {
  j->pending_reasons[plugin] = std::move(reason);
  if (closing_) j->unschedulable = true;
}

// ---------------------------------------------------------------------------------------
// close
// ---------------------------------------------------------------------------------------

SessionResult Session::close() {
  // Plugins first (Volcano's OnSessionClose), while the session is still readable.
  closing_ = true;
  for (auto& tier : tiers_)
    for (auto& in : tier) {
      calling_ = in.plugin;
      if (in.plugin->desc->close) in.plugin->desc->close(in.self);
      calling_ = nullptr;
    }
  closed_ = true;

  // The states for the next session: every plugin of the policy (opened or not) keeps what
  // it saved now, else what it had from the same file; plugins not in the policy have none.
  for (const auto& tier : policy_->tiers)
    for (const ConfiguredPlugin& cp : tier) {
      if (auto it = saved_.find(cp.name); it != saved_.end()) {
        if (!it->second->empty())
          result_.plugin_states[cp.name] = PluginState{cp.file_id, it->second};
      } else if (carried_) {
        auto c = carried_->find(cp.name);
        if (c != carried_->end() && c->second.file_id == cp.file_id)
          result_.plugin_states[cp.name] = c->second;
      }
    }

  for (JobInfo* j : job_list_) {
    // Volcano's jobStatus (framework/job_updater.go / session.go).
    bool unschedulable = j->unschedulable;
    JobPhase phase = j->phase;
    if (j->count(CAL_TASK_RUNNING) != 0 && unschedulable) {
      phase = JobPhase::Unknown;
    } else {
      int32_t allocated = j->count(CAL_TASK_ALLOCATED) + j->count(CAL_TASK_BINDING) +
                          j->count(CAL_TASK_BOUND) + j->count(CAL_TASK_RUNNING) +
                          j->count(CAL_TASK_SUCCEEDED);
      if (allocated >= j->min_available)
        phase = JobPhase::Running;
      else if (j->phase != JobPhase::Inqueue)
        phase = JobPhase::Pending;
    }
    j->phase = phase;
    if (j->podgroup) result_.podgroup_phases[j->uid] = phase;

    std::string job_reason;
    for (const auto& [plugin, text] : j->pending_reasons) {
      if (!job_reason.empty()) job_reason += "; ";
      job_reason += text;
    }
    if (!job_reason.empty()) result_.job_pending[j->uid] = job_reason;

    for (TaskInfo* t : j->tasks) {
      if (t->status == CAL_TASK_PIPELINED)
        result_.pipelined.emplace_back(t->uid, t->node ? t->node->name : std::string());
      if (t->status == CAL_TASK_ALLOCATED)
        result_.allocated.emplace_back(t->uid, t->node ? t->node->name : std::string());
      if (t->status != CAL_TASK_PENDING) continue;
      std::string why = t->pending_reason;
      if (why.empty()) why = job_reason;
      if (why.empty() && j->phase == JobPhase::Pending)
        why = "PodGroup " + j->uid + " is Pending: not admitted by enqueue yet";
      if (why.empty()) why = "not scheduled in this session";
      result_.pending[std::string(t->uid)] = why;
    }
  }
  return std::move(result_);
}

// ---------------------------------------------------------------------------------------
// plugin states (host API state_get / state_put)
// ---------------------------------------------------------------------------------------

const void* Session::plugin_state_get(size_t* size) const {
  if (size) *size = 0;
  if (!calling_) {
    spdlog::error("a plugin called state_get outside its open() and close(); it gets nothing");
    return nullptr;
  }
  if (!carried_) return nullptr;
  auto it = carried_->find(calling_->name);
  if (it == carried_->end() || it->second.file_id != calling_->file_id ||
      it->second.bytes->empty())
    return nullptr;
  if (size) *size = it->second.bytes->size();
  return it->second.bytes->data();
}

int Session::plugin_state_put(const void* bytes, size_t size) {
  if (!calling_) {
    spdlog::error("a plugin called state_put outside its open() and close(); nothing is saved");
    return -1;
  }
  if (size > CAL_STATE_MAX) {
    spdlog::error("plugin {}: state_put of {} bytes refused: at most {} (CAL_STATE_MAX); the "
                  "state saved before stays",
                  calling_->name, size, CAL_STATE_MAX);
    return -1;
  }
  if (!bytes && size > 0) {
    spdlog::error("plugin {}: state_put of {} bytes from NULL refused", calling_->name, size);
    return -1;
  }
  saved_[calling_->name] = std::make_shared<const std::string>(
      size ? std::string(static_cast<const char*>(bytes), size) : std::string());
  return 0;
}

}  // namespace caldera
