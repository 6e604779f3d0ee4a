// The session's snapshot: Session::build copies the cache into the session's own objects
// (JobInfo, NodeInfo, QueueInfo, TaskInfo), with resource ids, priorities, the default
// queue, the pods of other schedulers on their nodes, job counts and the node tables.
// Follows Volcano's pkg/scheduler/cache/cache.go (Snapshot) and the copying part of
// pkg/scheduler/framework/session.go (openSession).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "host/cache/cache.hpp"
#include "host/session/breadcrumb.hpp"
#include "host/session/runtime.hpp"
#include "host/session/session.hpp"

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

}  // namespace

void Session::build(const Cache& cache) {
  // Resource ids: cpu, memory, pods (kPodsId), then every other name in use, sorted. A
  // node's pods are its max_pods, every task asks for one. A cluster uses a handful of
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
  // Volcano counts a pod's CSI volumes as a resource it requests (SessionVolumes::
  // csi_requests); only pods with claims have any.
  volumes_.open(cache);
  open_policies(cache);
  std::unordered_map<const PodSpec*, ResourceList> csi;
  for (const auto& [_, p] : cache.pods()) {
    collect(p->requests);
    collect(p->init_requests);
    if (p->constraints && p->constraints->view()->claims.count > 0) {
      auto counts = SessionVolumes::csi_requests(*p, cache, policy_->config);
      if (counts.empty()) continue;
      ResourceList& rl = csi[p.get()];
      for (auto& [name, n] : counts) rl[name] = n;
      collect(rl);
    }
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
  resource_names_ = {kCpu, kMemory, kPods};
  resource_names_.insert(resource_names_.end(), scalars.begin(), scalars.end());
  for (size_t i = 0; i < resource_names_.size(); ++i)
    resource_ids_[resource_names_[i]] = static_cast<int>(i);
  const size_t R = resource_names_.size();
  // A name's id: cpu and memory first, then a search of the short list (a map for the rare
  // cluster with many resource names).
  auto id_of = [&](const std::string& name) -> int {
    if (name == kCpu) return 0;
    if (name == kMemory) return 1;
    if (name == kPods) return static_cast<int>(kPodsId);
    if (R > 16) {
      auto it = resource_ids_.find(name);
      return it == resource_ids_.end() ? -1 : it->second;
    }
    for (size_t i = kPodsId + 1; i < R; ++i)
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
    insufficient_ids_.push_back(reasons_.intern("Insufficient " + name));

  // Nodes. Volcano's snapshot leaves out nodes that are not ready.
  total_ = ResVec(R);
  for (const auto& [name, spec] : cache.nodes()) {
    if (!spec->ready) continue;
    auto n = std::make_unique<NodeInfo>();
    n->name = name;
    n->allocatable = vec(spec->allocatable);
    n->allocatable[kPodsId] = spec->max_pods;
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
    n->spec = spec.get();
    total_.add(n->allocatable);
    node_by_name_[name] = n.get();
    node_list_.push_back(n.get());
    nodes_.push_back(std::move(n));
  }

  // Queues, then their parents.
  auto add_queue = [&](std::shared_ptr<const QueueSpec> spec) {
    auto q = std::make_unique<QueueInfo>();
    q->session = this;
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
  };
  for (const auto& [_, spec] : cache.queues()) add_queue(spec);
  auto default_queue = [&]() -> QueueInfo* {
    // Volcano always has a "default" queue (its controller creates it); a cluster that
    // does not declare one gets an open queue of weight 1 when a job needs it.
    if (auto* q = queue("default")) return q;
    auto spec = std::make_shared<QueueSpec>();
    spec->name = "default";
    own_records_.push_back(spec);  // the cache has no such record to point into
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
    j->podgroup = pg.get();
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
    req[kPodsId] = 1;
    if (auto it = csi.find(&pod); it != csi.end()) req.add(vec(it->second));
    n->idle.sub(req);
    n->used.add(req);
    ++n->pods;
    n->refresh_future_idle();
    // Volcano's cache puts such a pod in its node's task list, so the Kubernetes view of
    // the node (pod_requests) has it too.
    TaskInfo outside;
    outside.init_resreq = pod.init_requests.empty() ? req : vec(pod.init_requests);
    count_pod(&outside, n, +1);
    // count_pod listed the stand-in's handle; the pod's own takes its place.
    n->view_pods.back() = &foreign_pods_.emplace_back(PodRef{&pod, nullptr});
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
    t->resreq[kPodsId] = 1;  // Volcano's GetPodResourceRequest: every pod asks for one
    t->init_resreq = pod->init_requests.empty() ? t->resreq : vec(pod->init_requests);
    t->init_resreq[kPodsId] = 1;
    // Volcano adds the CSI volumes to Resreq, which is InitResreq too (one object).
    if (auto it = csi.find(pod.get()); it != csi.end()) {
      const ResVec v = vec(it->second);
      t->resreq.add(v);
      t->init_resreq.add(v);
    }
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
    t->nominated_node = pod->nominated_node;
    t->role = d.role;
    t->created = pod->created;
    t->name_index = d.name_index;
    t->pod = pod.get();
    t->pod_ref = PodRef{t->pod, t};
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
    // stable_sort: Volcano's task comparison is not transitive when names with and without
    // an index mix, and std::sort's partition may read past the range under such a
    // comparison; a merge sort stays in bounds and gives one deterministic order.
    std::stable_sort(j->tasks.begin(), j->tasks.end(), task_fallback_less);
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
  if (crumb_board()) {  // a supervised session: its node indexes, named for the supervisor
    std::vector<std::string_view> names;
    names.reserve(node_list_.size());
    for (const NodeInfo* n : node_list_) names.push_back(n->name);
    crumb_node_names(names);
  }
  for (auto& table : node_tables_) table.assign(node_list_.size() * R, 0.0);
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
  for (const auto& [name, args] : policy_->action_args) action_args_[name] = *args;
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
