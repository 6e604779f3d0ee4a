// The session's snapshot: Session::build copies the cache into the session's own objects
// (JobInfo, NodeInfo, QueueInfo, TaskInfo), with resource ids, priorities, the default
// queue, the pods of other schedulers on their nodes, job counts and the node tables.
// Follows Volcano's pkg/scheduler/cache/cache.go (Snapshot) and the copying part of
// pkg/scheduler/framework/session.go (openSession).
//
// The parts that make one object (a job, a task, a pod held on a node, a job's counts) are
// functions of their own: a SessionImage (session_image.cpp) keeps a built snapshot between
// sessions and brings it up to date with the same functions, object by object, so that
// the image and a build from scratch cannot drift apart. A build for an image also fills
// its bookkeeping (image_book.hpp): which record made which object.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "host/cache/cache.hpp"
#include "host/session/breadcrumb.hpp"
#include "host/session/image_book.hpp"
#include "host/session/runtime.hpp"
#include "host/session/session.hpp"

namespace caldera {

TaskStatus snapshot_status(const PodSpec& p) {
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

bool snapshot_holds_node(const PodSpec& p) {
  const TaskStatus s = snapshot_status(p);
  return !p.node.empty() && s != CAL_TASK_SUCCEEDED && s != CAL_TASK_FAILED;
}

bool snapshot_has_claims(const PodSpec& p) {
  return p.constraints && p.constraints->view()->claims.count > 0;
}

namespace {

// The CSI volumes a pod asks for, as resources (only pods with claims have any).
ResourceList csi_of(const PodSpec& p, const Cache& cache, const SchedulerConfig& config) {
  ResourceList rl;
  if (!snapshot_has_claims(p)) return rl;
  for (auto& [name, n] : SessionVolumes::csi_requests(p, cache, config)) rl[name] = n;
  return rl;
}

}  // namespace

// ---- the parts -----------------------------------------------------------------------------

ResVec Session::to_vec(const ResourceList& rl, double fill) const {
  const size_t R = resource_names_.size();
  ResVec v(R, fill);
  for (const auto& [name, amount] : rl) {
    // cpu and memory first, then a search of the short list (a map for the rare cluster
    // with many resource names).
    int id = -1;
    if (name == kCpu) {
      id = 0;
    } else if (name == kMemory) {
      id = 1;
    } else if (name == kPods) {
      id = static_cast<int>(kPodsId);
    } else if (R > 16) {
      auto it = resource_ids_.find(name);
      if (it != resource_ids_.end()) id = it->second;
    } else {
      for (size_t i = kPodsId + 1; i < R; ++i)
        if (resource_names_[i] == name) {
          id = static_cast<int>(i);
          break;
        }
    }
    if (id >= 0) v[static_cast<size_t>(id)] = amount;
  }
  return v;
}

bool Session::knows_resources(const ResourceList& rl) const {
  for (const auto& [name, _] : rl)
    if (name != kCpu && name != kMemory && name != kPods && !resource_ids_.count(name))
      return false;
  return true;
}

QueueInfo* Session::add_queue(std::shared_ptr<const QueueSpec> spec) {
  auto q = std::make_unique<QueueInfo>();
  q->session = this;
  q->name = spec->name;
  q->weight = spec->weight;
  q->has_capability = spec->capability.has_value();
  q->capability = spec->capability ? to_vec(*spec->capability, kInf) : ResVec(resource_count(), kInf);
  q->has_deserved = spec->deserved.has_value();
  q->deserved = spec->deserved ? to_vec(*spec->deserved) : ResVec(resource_count());
  q->has_guarantee = spec->guarantee.has_value();
  q->guarantee = spec->guarantee ? to_vec(*spec->guarantee) : ResVec(resource_count());
  q->reclaimable = spec->reclaimable;
  q->priority = spec->priority;
  q->state = spec->state;
  q->created = spec->created;
  if (spec->affinity) {
    const QueueAffinity& a = *spec->affinity;
    q->has_affinity = true;
    q->affinity.struct_size = sizeof(cal_queue_affinity);
    auto list = [&](size_t i, const std::vector<std::string>& names, cal_string_list& out) {
      for (const std::string& n : names) q->affinity_items[i].push_back(n.c_str());
      out.items = q->affinity_items[i].data();
      out.count = names.size();
    };
    list(0, a.required, q->affinity.required);
    list(1, a.preferred, q->affinity.preferred);
    list(2, a.anti_required, q->affinity.anti_required);
    list(3, a.anti_preferred, q->affinity.anti_preferred);
  }
  q->spec = spec.get();
  QueueInfo* raw = q.get();
  queue_by_name_[q->name] = raw;
  queues_.push_back(std::move(q));
  return raw;
}

QueueInfo* Session::default_queue() {
  // Volcano always has a "default" queue (its controller creates it); a cluster that does
  // not declare one gets an open queue of weight 1 when a job needs it.
  if (auto* q = queue("default")) return q;
  auto spec = std::make_shared<QueueSpec>();
  spec->name = "default";
  own_records_.push_back(spec);  // the cache has no such record to point into
  return add_queue(spec);
}

int32_t Session::class_priority(const std::string& priority_class) const {
  if (!priority_class.empty())
    if (auto it = class_value_.find(priority_class); it != class_value_.end()) return it->second;
  return default_priority_;
}

JobInfo* Session::new_job(const std::string& uid, const std::string& ns, const std::string& name) {
  auto j = std::make_unique<JobInfo>();
  j->uid = uid;
  j->session = this;
  j->ns = ns;
  j->name = name;
  j->allocated = ResVec(resource_count());
  j->total_request = ResVec(resource_count());
  j->min_resources = ResVec(resource_count());
  JobInfo* raw = j.get();
  job_by_uid_[uid] = raw;
  jobs_.push_back(std::move(j));
  return raw;
}

JobInfo* Session::podgroup_job(const std::string& key, const PodGroupSpec& pg) {
  QueueInfo* q = pg.queue == "default" ? default_queue() : queue(pg.queue);
  if (!q) {
    // Volcano's snapshot skips a job whose queue does not exist. Said once per PodGroup by
    // the backend that feeds the cache (a Warning event on the PodGroup on Kubernetes; an
    // error when a file is loaded), not every session.
    spdlog::debug("podgroup {}: queue '{}' not found; left out of the session", key, pg.queue);
    return nullptr;
  }
  JobInfo* j = new_job(key, pg.ns, pg.name);
  j->queue = q;
  j->min_available = pg.min_member;
  j->priority = class_priority(pg.priority_class);
  j->created = pg.created;
  j->phase = pg.phase;
  j->phase_since = pg.phase_since;
  if (pg.min_resources) {
    j->has_min_resources = true;
    j->min_resources = to_vec(*pg.min_resources);
  }
  j->podgroup = &pg;  // its roles are made with its tasks' (finish_job)
  return j;
}

JobInfo* Session::podless_job(const PodSpec& pod) {
  // Admitted as kube-scheduler would take it (so Caldera works with no Volcano controllers
  // installed).
  JobInfo* j = new_job(pod.digest.key, pod.ns, pod.name);
  j->queue = default_queue();
  j->min_available = 1;
  j->phase = JobPhase::Inqueue;
  j->created = pod.created;
  j->priority = class_priority(pod.priority_class);
  return j;
}

TaskInfo* Session::task_slot() {
  if (free_tasks_.empty()) return &tasks_.emplace_back();
  TaskInfo* t = free_tasks_.back();
  free_tasks_.pop_back();
  *t = TaskInfo{};
  return t;
}

PodRef* Session::foreign_slot(const PodSpec* pod) {
  if (free_foreign_.empty()) return &foreign_pods_.emplace_back(PodRef{pod, nullptr});
  PodRef* r = free_foreign_.back();
  free_foreign_.pop_back();
  *r = PodRef{pod, nullptr};
  return r;
}

ResVec Session::pod_request(const PodSpec& pod, const Cache& cache) const {
  ResVec req = to_vec(pod.requests);
  req[kPodsId] = 1;  // Volcano's GetPodResourceRequest: every pod asks for one
  // Volcano counts a pod's CSI volumes as a resource it requests.
  if (snapshot_has_claims(pod)) req.add(to_vec(csi_of(pod, cache, policy_->config)));
  return req;
}

TaskInfo* Session::new_task(const PodSpec& pod, JobInfo* j, const Cache& cache) {
  TaskInfo* t = task_slot();
  const PodDigest& d = pod.digest;
  t->uid = d.key;
  t->name = pod.name;
  t->ns = pod.ns;
  t->job = j;
  t->status = snapshot_status(pod);
  t->cache_status = t->status;
  t->resreq = to_vec(pod.requests);
  t->resreq[kPodsId] = 1;  // Volcano's GetPodResourceRequest: every pod asks for one
  t->init_resreq = pod.init_requests.empty() ? t->resreq : to_vec(pod.init_requests);
  t->init_resreq[kPodsId] = 1;
  // Volcano adds the CSI volumes to Resreq, which is InitResreq too (one object).
  if (snapshot_has_claims(pod)) {
    const ResVec v = to_vec(csi_of(pod, cache, policy_->config));
    t->resreq.add(v);
    t->init_resreq.add(v);
  }
  if (pod.priority) {
    t->priority = *pod.priority;
  } else if (auto it = class_value_.find(pod.priority_class);
             !pod.priority_class.empty() && it != class_value_.end()) {
    t->priority = it->second;
  } else {
    t->priority = 1;  // Volcano's TaskInfo default when spec.priority is unset
  }
  t->preemptable = d.preemptable;
  t->best_effort = t->init_resreq.is_empty();
  t->preempt_never = pod.preempt_never;
  t->nominated_node = pod.nominated_node;
  t->role = d.role;
  t->created = pod.created;
  t->name_index = d.name_index;
  t->pod = &pod;
  t->pod_ref = PodRef{t->pod, t};
  j->tasks.push_back(t);
  return t;
}

void Session::hold_on_node(NodeInfo* n, const PodRef* ref, const Cache& cache) {
  const PodSpec& pod = *ref->spec;
  ResVec req = pod_request(pod, cache);
  n->idle.sub(req);
  n->used.add(req);
  ++n->pods;
  n->refresh_future_idle();
  // Volcano's cache puts such a pod in its node's task list, so the Kubernetes view of the
  // node (pod_requests) has it too.
  TaskInfo outside;
  outside.init_resreq = pod.init_requests.empty() ? req : to_vec(pod.init_requests);
  count_pod(&outside, n, +1);
  // count_pod listed the stand-in's handle; the pod's own takes its place.
  n->view_pods.back() = ref;
}

void Session::finish_job(JobInfo* j) {
  // Roles: the PodGroup's minimums, then any other role a task names, by name.
  j->roles.clear();
  if (j->podgroup)
    for (const auto& [role, min] : j->podgroup->min_task_member) j->roles.push_back({role, min});
  for (TaskInfo* t : j->tasks) {
    bool known = std::any_of(j->roles.begin(), j->roles.end(),
                             [&](const RoleInfo& r) { return r.name == t->role; });
    if (!known) j->roles.push_back({std::string(t->role), 0});
  }
  std::sort(j->roles.begin(), j->roles.end(),
            [](const RoleInfo& a, const RoleInfo& b) { return a.name < b.name; });
  j->role_status_count.assign(j->roles.size() * CAL_TASK_STATUS_COUNT, 0);
  std::fill(std::begin(j->status_count), std::end(j->status_count), 0);
  j->allocated = ResVec(resource_count());
  j->total_request = ResVec(resource_count());
  // By uid first (the cache's order), then stable_sort: Volcano's task comparison is not
  // transitive when names with and without an index mix, and std::sort's partition may
  // read past the range under such a comparison; a merge sort stays in bounds and gives one
  // deterministic order.
  std::sort(j->tasks.begin(), j->tasks.end(),
            [](const TaskInfo* a, const TaskInfo* b) { return a->uid < b->uid; });
  std::stable_sort(j->tasks.begin(), j->tasks.end(), task_fallback_less);
  for (uint32_t i = 0; i < j->tasks.size(); ++i) {
    TaskInfo* t = j->tasks[i];
    t->job_pos = i;
    t->role_index = -1;
    for (size_t r = 0; r < j->roles.size(); ++r)
      if (j->roles[r].name == t->role) t->role_index = static_cast<int>(r);
    ++j->status_count[t->status];
    if (t->role_index >= 0)
      ++j->role_status_count[t->role_index * CAL_TASK_STATUS_COUNT + t->status];
    if (allocated_status(t->status)) j->allocated.add(t->resreq);
    j->total_request.add(t->resreq);
  }
}

// ---- the build -------------------------------------------------------------------------------

void Session::build(const Cache& cache) {
  ImageBook* book = book_.get();
  // Resource ids: cpu, memory, pods (kPodsId), then every other name in use, sorted. A
  // node's pods are its max_pods, every task asks for one. A cluster uses a handful of
  // names, so the names seen are kept in a short list that a pod's few entries are looked
  // up in, cheaper than a tree insert per entry.
  std::vector<std::string> seen;
  auto collect = [&](const ResourceList& rl) {
    for (const auto& [name, v] : rl) {
      if (name == kCpu || name == kMemory || name == kPods) continue;
      if (book) ++book->scalar_uses[name];
      if (std::find(seen.begin(), seen.end(), name) == seen.end()) seen.push_back(name);
    }
  };
  for (const auto& [_, n] : cache.nodes()) collect(n->allocatable);
  for (const auto& [_, p] : cache.pods()) {
    collect(p->requests);
    collect(p->init_requests);
    collect(csi_of(*p, cache, policy_->config));
  }
  for (const auto& [_, pg] : cache.podgroups())
    if (pg->min_resources) collect(*pg->min_resources);
  for (const auto& [_, q] : cache.queues()) {
    if (q->capability) collect(*q->capability);
    if (q->deserved) collect(*q->deserved);
    if (q->guarantee) collect(*q->guarantee);
  }
  std::sort(seen.begin(), seen.end());
  resource_names_ = {kCpu, kMemory, kPods};
  resource_names_.insert(resource_names_.end(), seen.begin(), seen.end());
  for (size_t i = 0; i < resource_names_.size(); ++i)
    resource_ids_[resource_names_[i]] = static_cast<int>(i);
  const size_t R = resource_names_.size();

  // The host's own why-pending reasons, interned first.
  for (const std::string& name : resource_names_)
    insufficient_ids_.push_back(reasons_.intern("Insufficient " + name));

  // Nodes. Volcano's snapshot leaves out nodes that are not ready.
  total_ = ResVec(R);
  for (const auto& [name, spec] : cache.nodes()) {
    if (book) book->nodes[name] = spec;
    if (!spec->ready) continue;
    auto n = std::make_unique<NodeInfo>();
    n->name = name;
    n->allocatable = to_vec(spec->allocatable);
    n->allocatable[kPodsId] = spec->max_pods;
    n->reset_accounting(R);
    n->max_pods = spec->max_pods;
    n->unschedulable = spec->unschedulable;
    n->ready = spec->ready;
    n->spec = spec.get();
    total_.add(n->allocatable);
    node_by_name_[name] = n.get();
    node_list_.push_back(n.get());
    nodes_.push_back(std::move(n));
  }

  // Queues, then their parents (below, once every queue exists).
  for (const auto& [_, spec] : cache.queues()) add_queue(spec);

  // Priority classes. Kubernetes always defines the two system classes; a cluster that
  // does not list them still has them (conformance protects pods that use them).
  class_value_ = {{"system-cluster-critical", 2000000000}, {"system-node-critical", 2000001000}};
  default_priority_ = 0;
  for (const auto& [name, pc] : cache.priority_classes()) {
    class_value_[name] = pc->value;
    if (pc->global_default) default_priority_ = pc->value;
  }

  // Jobs from PodGroups.
  for (const auto& [key, pg] : cache.podgroups()) {
    if (book) book->podgroups[key] = pg;
    podgroup_job(key, *pg);
  }

  // Tasks. A pod that holds a node but is no task of the session still uses the node's
  // resources: Volcano's cache adds every pod with a node name to its node
  // (cache/event_handlers.go addTask), whether or not the pod's job makes it into the
  // snapshot.
  for (const auto& [key, pod] : cache.pods()) {
    ImageBook::PodEntry* entry = book ? &book->pods[key] : nullptr;
    if (entry) entry->record = pod;
    JobInfo* j = nullptr;
    if (!pod->schedulable) {
      // Placed by another scheduler: it uses its node's resources, and is nobody's job.
    } else if (pod->podgroup.empty()) {
      j = podless_job(*pod);
    } else if (auto it = job_by_uid_.find(pod->digest.job_key); it != job_by_uid_.end()) {
      j = it->second;
    } else {
      // The PodGroup does not exist (or its queue does not): the pod is nobody's task, as
      // in Volcano, but if it runs somewhere it still fills that node. The backend tells
      // the pod's owner why it waits.
      spdlog::debug("pod {}: PodGroup {}/{} not in the session; left out", key, pod->ns,
                    pod->podgroup);
      if (book) book->orphans[pod->digest.job_key].insert(key);
    }
    if (j) {
      TaskInfo* t = new_task(*pod, j, cache);
      if (entry) entry->task = t;
    } else if (snapshot_holds_node(*pod)) {
      if (NodeInfo* n = node(pod->node)) {
        PodRef* ref = foreign_slot(pod.get());
        hold_on_node(n, ref, cache);
        if (entry) entry->foreign = ref;
      }
    }
  }

  // Per job: roles, order, counts, sums; then the tasks on nodes, job by job.
  for (auto& jp : jobs_) {
    JobInfo* j = jp.get();
    finish_job(j);
    for (TaskInfo* t : j->tasks) {
      if (!snapshot_holds_node(*t->pod)) continue;
      if (NodeInfo* n = node(t->pod->node)) {
        n->add_task(t);
        count_pod(t, n, +1);
      }
    }
  }

  for (uint32_t i = 0; i < node_list_.size(); ++i) node_list_[i]->index = i;
  for (auto& table : node_tables_) table.assign(node_list_.size() * R, 0.0);
  future_idle_maxima_.reset(node_list_.size(), R);
  for (NodeInfo* n : node_list_) {
    sync_node(n);
    n->cache_idle = n->idle;
  }

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
}

void Session::open_rest(const Cache& cache) {
  volumes_.open(cache);
  open_policies(cache);
  action_args_.clear();
  for (const auto& [name, args] : policy_->action_args) action_args_[name] = *args;
  if (crumb_board()) {  // a supervised session: its node indexes, named for the supervisor
    std::vector<std::string_view> names;
    names.reserve(node_list_.size());
    for (const NodeInfo* n : node_list_) names.push_back(n->name);
    crumb_node_names(names);
  }
  hypernodes_.build(cache, node_list_, job_list_, runtime_->hypernode_memo());
}

void Session::open_policies(const Cache& cache) {
  budgets_.clear();
  quotas_.clear();
  // A status left out is worked out from the pods, once per session (files and the embedded
  // cluster; on Kubernetes every object has the one its controller wrote).
  std::vector<const PodSpec*> pods;
  auto pod_list = [&]() -> const std::vector<const PodSpec*>& {
    if (pods.empty())
      for (const auto& [_, p] : cache.pods()) pods.push_back(p.get());
    return pods;
  };
  for (const auto& [_, b] : cache.disruption_budgets())
    budgets_.push_back(b->spec().has_status
                           ? b
                           : std::make_shared<const DisruptionBudget>(
                                 derive_status(b->spec(), pod_list())));
  for (const auto& [_, q] : cache.resource_quotas())
    quotas_.push_back(q->spec().has_used ? q
                                         : std::make_shared<const ResourceQuota>(
                                               derive_status(q->spec(), pod_list())));
}

}  // namespace caldera
