// caldera/sdk.hpp -- the C++ layer over the Caldera plugin ABI (caldera/plugin.h).
//
// Header-only; it adds no ABI of its own. A C++ plugin is a class with a constructor taking
// (caldera::sdk::Session, const caldera::sdk::Args&) -- one object per session -- that
// lists the extension methods it defines in kHooks (named as the cal_plugin slots:
// job_order, predicate, node_order, preemptable, job_ready, on_allocate, ...; plus
// on_close(), called at the end of the session while it is still readable, and a static
// check_args(const Args&) returning a Status, called when a config is loaded) and declares
// each option once (kOptions); CALDERA_PLUGIN(Class) exports it:
//
//   struct Binpack {
//     static constexpr const char* kName = "binpack";
//     static constexpr const char* kVersion = "1.0.0";
//     static constexpr const char* kDescription = "packs tasks onto busy nodes";
//     static constexpr caldera::sdk::Hooks kHooks =
//         caldera::sdk::hooks(caldera::sdk::Hook::node_order);
//     static constexpr caldera::sdk::Int kWeight{"binpack.weight", 1, "score weight"};
//     static constexpr auto kOptions = caldera::sdk::options(kWeight);
//     Binpack(caldera::sdk::Session s, const caldera::sdk::Args& a) : w_(a.get(kWeight)) {}
//     double node_order(caldera::sdk::Task t, caldera::sdk::Node n);
//     int64_t w_;
//   };
//   CALDERA_PLUGIN(Binpack)
//
// The build checks the class (see "The extension methods a plugin class defines" below):
// a listed hook without its method (misspelt, other parameters) and a hook-named method
// that is not listed are compile errors, so no point is ever dropped silently.
//
// Many nodes at once (ABI 1.1): a per-node predicate or node_order also fills the
// predicate_many / node_order_many slots, the same method in a loop, so the host makes one
// call per run of nodes. A plugin that can do better over a run (work out what a task
// needs once) defines node_order_many(Task, const cal_node* const*, size_t, double*)
// itself, writing scores[i] for nodes[i], and lists Hook::node_order_many.
//
// State across sessions (ABI 1.2): a plugin object lives for one session, and sessions may
// run in processes of their own, so a static is no memory from one session to the next.
// What must last, the constructor reads with Session::saved_state() and on_close() writes
// with Session::save_state() (StateWriter / StateReader make the bytes).
//
// Guarantee: no exception leaves a callback. Each trampoline catches everything; the
// message is logged with the plugin's name and the call returns the point's neutral or
// error answer (an error status for predicates and open, 0 for orders and scores,
// "abstain" for votes and victims, "not ready" / "not allowed" for checks).
//
// Needs C++20: `pkg-config --variable=cxxflags caldera-sdk` gives the flag (C plugins
// include caldera/plugin.h alone, which is C99, so --cflags carries no language flag).
#pragma once

#if !defined(__cplusplus) || __cplusplus < 202002L
#error "caldera/sdk.hpp needs C++20: compile with -std=c++20 (pkg-config --variable=cxxflags caldera-sdk)"
#endif

#include <algorithm>
#include <array>
#include <charconv>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <exception>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "caldera/option_family.hpp"
#include "caldera/plugin.h"
#include "caldera/resources.hpp"

namespace caldera::sdk {

// The host table of this shared object; set by the entry point. `inline` gives one per .so
// (plugins build with hidden visibility).
inline const cal_host_api* host = nullptr;

// A read-only view of a host resource vector.
struct Res {
  const double* p = nullptr;
  size_t n = 0;
  double operator[](size_t i) const { return p ? p[i] : 0.0; }
  explicit operator bool() const { return p != nullptr; }
  const double* data() const { return p; }
  size_t size() const { return n; }
  ResVec copy() const { return p ? ResVec(p, n) : ResVec(n); }
};

class Session;
class Job;
class Node;
class Queue;
class HyperNode;
class SubJob;

inline std::string_view sv(const char* s) { return s ? std::string_view(s) : std::string_view(); }

class Queue {
 public:
  Queue() = default;
  Queue(const cal_queue* h, size_t nres) : h_(h), n_(nres) {}
  const cal_queue* handle() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  bool operator==(const Queue& o) const { return h_ == o.h_; }
  std::string_view name() const { return sv(host->queue_name(h_)); }
  double weight() const { return host->queue_weight(h_); }
  Res capability() const { return {host->queue_capability(h_), n_}; }
  Res deserved() const { return {host->queue_deserved(h_), n_}; }
  Res guarantee() const { return {host->queue_guarantee(h_), n_}; }
  bool reclaimable() const { return host->queue_reclaimable(h_) != 0; }
  int32_t priority() const { return host->queue_priority(h_); }
  cal_queue_state state() const { return host->queue_state(h_); }
  Queue parent() const { return Queue(host->queue_parent(h_), n_); }
  double created() const { return host->queue_created(h_); }
  // ABI 1.5: the queue's annotations and spec.affinity (node groups; null when none).
  const char* annotation(const char* key) const { return host->queue_annotation(h_, key); }
  const cal_queue_affinity* affinity() const { return host->queue_affinity(h_); }
  // ABI 1.6: publishes the fair share `plugin` worked out (deserved: resource_count amounts
  // or null; share < 0: none), for the metrics and the results report.
  void set_fair_share(const char* plugin, const double* deserved, double share) const {
    host->queue_set_fair_share(const_cast<cal_queue*>(h_), plugin, deserved, share);
  }

 private:
  const cal_queue* h_ = nullptr;
  size_t n_ = 0;
};

class Node;
class Job;

// A pod as Kubernetes sees it (ABI 1.3): a task's, or one no job owns. Its constraints are
// the C view (cal_pod_constraints, caldera/plugin.h), null when it carries none.
class Pod {
 public:
  explicit Pod(const cal_pod* h = nullptr) : h_(h) {}
  const cal_pod* handle() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  bool operator==(const Pod& o) const { return h_ == o.h_; }
  std::string_view name() const { return sv(host->pod_name(h_)); }
  std::string_view ns() const { return sv(host->pod_namespace(h_)); }
  const char* label(const char* key) const { return host->pod_label(h_, key); }
  size_t label_count() const { return host->pod_label_count(h_); }
  std::string_view label_key(size_t i) const { return sv(host->pod_label_key(h_, i)); }
  std::string_view label_value(size_t i) const { return sv(host->pod_label_value(h_, i)); }
  const cal_pod_constraints* constraints() const { return host->pod_constraints(h_); }
  bool terminating() const { return host->pod_terminating(h_) != 0; }
  // Its task, or null for a pod no job owns.
  const cal_task* task() const { return host->pod_task(h_); }

 private:
  const cal_pod* h_;
};

class Task {
 public:
  Task() = default;
  Task(const cal_task* h, size_t nres) : h_(h), n_(nres) {}
  const cal_task* handle() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  bool operator==(const Task& o) const { return h_ == o.h_; }
  std::string_view name() const { return sv(host->task_name(h_)); }
  // ABI 1.8: the task's sub-job (caldera/plugin.h), and where the allocate action had
  // placed that sub-job when it chose the task's node (empty when nowhere).
  inline SubJob sub_job() const;
  inline HyperNode allocated_hypernode() const;
  inline Job job() const;
  inline Node node() const;
  cal_task_status status() const { return host->task_status(h_); }
  Res request() const { return {host->task_request(h_), n_}; }
  Res init_request() const { return {host->task_init_request(h_), n_}; }
  int32_t priority() const { return host->task_priority(h_); }
  bool preemptable() const { return host->task_preemptable(h_) != 0; }
  bool best_effort() const { return host->task_best_effort(h_) != 0; }
  bool preempt_never() const { return host->task_preempt_never(h_) != 0; }
  std::string_view role() const { return sv(host->task_role(h_)); }
  double created() const { return host->task_created(h_); }
  const char* label(const char* key) const { return host->task_label(h_, key); }
  const char* annotation(const char* key) const { return host->task_annotation(h_, key); }
  std::string_view priority_class() const { return sv(host->task_priority_class(h_)); }
  void set_annotation(const char* key, const std::string& value) const {
    host->task_set_annotation(const_cast<cal_task*>(h_), key, value.c_str());
  }
  size_t selector_count() const { return host->task_selector_count(h_); }
  std::string_view selector_key(size_t i) const { return sv(host->task_selector_key(h_, i)); }
  Pod pod() const { return Pod(host->task_pod(h_)); }
  // ABI 1.5: when the pod was scheduled (its PodScheduled condition), on the session clock;
  // nullopt when it has no such condition.
  std::optional<double> scheduled_time() const {
    double at = 0;
    if (host->task_scheduled_time(h_, &at) == 0) return std::nullopt;
    return at;
  }
  // ABI 1.4: a volume decision of this task's placement (plugin.h, task_assume_volume):
  // call from on_allocate. pv null: provision c on the task's node.
  bool assume_volume(const cal_persistent_volume_claim* c, const cal_persistent_volume* pv) const {
    return host->task_assume_volume(const_cast<cal_task*>(h_), c, pv) != 0;
  }
  std::string_view selector_value(size_t i) const {
    return sv(host->task_selector_value(h_, i));
  }
  std::vector<cal_taint> tolerations() const {
    std::vector<cal_taint> out(host->task_toleration_count(h_));
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].struct_size = sizeof(cal_taint);
      host->task_toleration_at(h_, i, &out[i]);
    }
    return out;
  }

 private:
  const cal_task* h_ = nullptr;
  size_t n_ = 0;
};

class Node {
 public:
  Node() = default;
  Node(const cal_node* h, size_t nres) : h_(h), n_(nres) {}
  const cal_node* handle() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  bool operator==(const Node& o) const { return h_ == o.h_; }
  std::string_view name() const { return sv(host->node_name(h_)); }
  Res allocatable() const { return {host->node_allocatable(h_), n_}; }
  Res idle() const { return {host->node_idle(h_), n_}; }
  Res used() const { return {host->node_used(h_), n_}; }
  Res releasing() const { return {host->node_releasing(h_), n_}; }
  Res pipelined() const { return {host->node_pipelined(h_), n_}; }
  Res future_idle() const { return {host->node_future_idle(h_), n_}; }
  size_t index() const { return host->node_index(h_); }
  Res pod_requests() const { return {host->node_pod_requests(h_), n_}; }
  Res pod_requests_nonzero() const { return {host->node_pod_requests_nonzero(h_), n_}; }
  int32_t pods_used() const { return host->node_pods_used(h_); }
  int32_t pods_max() const { return host->node_pods_max(h_); }
  bool unschedulable() const { return host->node_unschedulable(h_) != 0; }
  const char* label(const char* key) const { return host->node_label(h_, key); }
  size_t label_count() const { return host->node_label_count(h_); }
  std::string_view label_key(size_t i) const { return sv(host->node_label_key(h_, i)); }
  std::string_view label_value(size_t i) const { return sv(host->node_label_value(h_, i)); }
  size_t taint_count() const { return host->node_taint_count(h_); }
  cal_taint taint(size_t i) const {
    cal_taint t{};
    t.struct_size = sizeof t;
    host->node_taint_at(h_, i, &t);
    return t;
  }
  std::vector<cal_taint> taints() const {
    std::vector<cal_taint> out(host->node_taint_count(h_));
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].struct_size = sizeof(cal_taint);
      host->node_taint_at(h_, i, &out[i]);
    }
    return out;
  }
  size_t task_count() const { return host->node_task_count(h_); }
  Task task(size_t i) const { return Task(host->node_task_at(h_, i), n_); }
  // Kubernetes' view of the node's pods (ABI 1.3, host->node_pod_at).
  size_t pod_count() const { return host->node_pod_count(h_); }
  Pod pod(size_t i) const { return Pod(host->node_pod_at(h_, i)); }
  size_t image_count() const { return host->node_image_count(h_); }
  cal_image image(size_t i) const {
    cal_image im{};
    im.struct_size = sizeof im;
    host->node_image_at(h_, i, &im);
    return im;
  }
  const char* annotation(const char* key) const { return host->node_annotation(h_, key); }
  size_t numa_count() const { return host->node_numa_count(h_); }
  double numa_cpu(size_t i) const { return host->node_numa_cpu(h_, i); }
  double numa_memory(size_t i) const { return host->node_numa_memory(h_, i); }
  std::string_view topology_policy() const { return sv(host->node_topology_policy(h_)); }

 private:
  const cal_node* h_ = nullptr;
  size_t n_ = 0;
};

// A HyperNode (a switch and the nodes behind it). Reads need a host with the network
// topology functions; on an older host a HyperNode is never handed out.
class HyperNode {
 public:
  HyperNode() = default;
  HyperNode(const cal_hypernode* h, size_t nres) : h_(h), n_(nres) {}
  const cal_hypernode* handle() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  bool operator==(const HyperNode& o) const { return h_ == o.h_; }
  std::string_view name() const { return sv(host->hypernode_name(h_)); }
  int32_t tier() const { return host->hypernode_tier(h_); }
  HyperNode parent() const { return HyperNode(host->hypernode_parent(h_), n_); }
  size_t node_count() const { return host->hypernode_node_count(h_); }
  Node node(size_t i) const { return Node(host->hypernode_node_at(h_, i), n_); }
  // The lowest HyperNode holding both this one and `o`; empty when none does.
  HyperNode lca(const HyperNode& o) const {
    return HyperNode(host->hypernode_lca(h_, o.h_), n_);
  }

 private:
  const cal_hypernode* h_ = nullptr;
  size_t n_ = 0;
};

class Job {
 public:
  Job() = default;
  Job(const cal_job* h, size_t nres) : h_(h), n_(nres) {}
  const cal_job* handle() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  bool operator==(const Job& o) const { return h_ == o.h_; }
  std::string_view name() const { return sv(host->job_name(h_)); }
  std::string_view ns() const { return sv(host->job_namespace(h_)); }
  Queue queue() const { return Queue(host->job_queue(h_), n_); }
  int32_t min_available() const { return host->job_min_available(h_); }
  int32_t priority() const { return host->job_priority(h_); }
  double created() const { return host->job_created(h_); }
  cal_job_phase phase() const { return host->job_phase(h_); }
  double phase_since() const { return host->job_phase_since(h_); }
  size_t task_count() const { return host->job_task_count(h_); }
  Task task(size_t i) const { return Task(host->job_task_at(h_, i), n_); }
  int32_t status_count(cal_task_status s) const { return host->job_status_count(h_, s); }
  int32_t ready_num() const { return host->job_ready_num(h_); }
  int32_t waiting_num() const { return host->job_waiting_num(h_); }
  int32_t valid_num() const { return host->job_valid_num(h_); }
  size_t role_count() const { return host->job_role_count(h_); }
  std::string_view role_name(size_t i) const { return sv(host->job_role_name(h_, i)); }
  int32_t role_min(size_t i) const { return host->job_role_min(h_, i); }
  int32_t role_ready(size_t i) const { return host->job_role_ready(h_, i); }
  int32_t role_waiting(size_t i) const { return host->job_role_waiting(h_, i); }
  int32_t role_valid(size_t i) const { return host->job_role_valid(h_, i); }
  Res allocated() const { return {host->job_allocated(h_), n_}; }
  Res total_request() const { return {host->job_total_request(h_), n_}; }
  Res min_resources() const { return {host->job_min_resources(h_), n_}; }
  const char* annotation(const char* key) const { return host->job_annotation(h_, key); }
  // ABI 1.5: the job's FitError() text now, its schedulable task count (plugin.h), and the
  // PodGroup's Unschedulable condition (also the job's pending reason for `plugin`).
  std::string_view fit_error() const { return sv(host->job_fit_error(h_)); }
  // ABI 1.5: minResources' entry `name` as written (quota names too; plugin.h).
  std::optional<double> min_resource(const char* name) const {
    double a = 0;
    if (host->job_min_resource(h_, name, &a) == 0) return std::nullopt;
    return a;
  }
  int32_t schedulable_num() const { return host->job_schedulable_num(h_); }
  void set_unschedulable_condition(const char* plugin, const std::string& message) const {
    host->job_set_unschedulable_condition(const_cast<cal_job*>(h_), plugin, message.c_str());
  }
  void set_pending_reason(const char* plugin, const std::string& reason) const {
    host->job_set_pending_reason(const_cast<cal_job*>(h_), plugin, reason.c_str());
  }
  // The PodGroup's network topology; `highest_tier` (optional) gets highestTierAllowed.
  cal_topology_mode network_topology(int32_t* highest_tier = nullptr) const {
    if (!CAL_HOST_HAS(host, job_network_topology)) {
      if (highest_tier) *highest_tier = 0;
      return CAL_TOPOLOGY_NONE;
    }
    return host->job_network_topology(h_, highest_tier);
  }
  HyperNode allocated_hypernode() const {
    if (!CAL_HOST_HAS(host, job_allocated_hypernode)) return HyperNode();
    return HyperNode(host->job_allocated_hypernode(h_), n_);
  }
  // ABI 1.8: sub-jobs (caldera/plugin.h). On an older host a job has none.
  size_t sub_job_count() const {
    return CAL_HOST_HAS(host, job_sub_job_count) ? host->job_sub_job_count(h_) : 0;
  }
  inline SubJob sub_job(size_t i) const;
  // The subGroupPolicy entries: their group names and minSubGroups.
  size_t sub_group_count() const {
    return CAL_HOST_HAS(host, job_sub_group_count) ? host->job_sub_group_count(h_) : 0;
  }
  std::string_view sub_group(size_t i, int32_t* min_sub_groups = nullptr) const {
    return sv(host->job_sub_group_at(h_, i, min_sub_groups));
  }

 private:
  const cal_job* h_ = nullptr;
  size_t n_ = 0;
};

inline Job Task::job() const { return Job(host->task_job(h_), n_); }
inline Node Task::node() const { return Node(host->task_node(h_), n_); }

// A sub-job (ABI 1.8): a gang inside a job (caldera/plugin.h, "sub-jobs").
class SubJob {
 public:
  SubJob() = default;
  SubJob(const cal_sub_job* h, size_t nres) : h_(h), n_(nres) {}
  const cal_sub_job* handle() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  bool operator==(const SubJob& o) const { return h_ == o.h_; }
  Job job() const { return Job(host->sub_job_job(h_), n_); }
  std::string_view uid() const { return sv(host->sub_job_uid(h_)); }
  std::string_view group() const { return sv(host->sub_job_group(h_)); }
  int32_t min_available() const { return host->sub_job_min_available(h_); }
  int32_t priority() const { return host->sub_job_priority(h_); }
  int32_t match_index() const { return host->sub_job_match_index(h_); }
  size_t task_count() const { return host->sub_job_task_count(h_); }
  Task task(size_t i) const { return Task(host->sub_job_task_at(h_, i), n_); }
  int32_t status_count(cal_task_status s) const { return host->sub_job_status_count(h_, s); }
  cal_topology_mode network_topology(int32_t* highest_tier = nullptr) const {
    return host->sub_job_network_topology(h_, highest_tier);
  }
  HyperNode allocated_hypernode() const {
    return HyperNode(host->sub_job_allocated_hypernode(h_), n_);
  }

 private:
  const cal_sub_job* h_ = nullptr;
  size_t n_ = 0;
};

inline SubJob Task::sub_job() const {
  if (!CAL_HOST_HAS(host, task_sub_job)) return SubJob();
  return SubJob(host->task_sub_job(h_), n_);
}
inline HyperNode Task::allocated_hypernode() const {
  if (!CAL_HOST_HAS(host, task_allocated_hypernode)) return HyperNode();
  return HyperNode(host->task_allocated_hypernode(h_), n_);
}
inline SubJob Job::sub_job(size_t i) const { return SubJob(host->job_sub_job_at(h_, i), n_); }

class Session {
 public:
  Session() = default;
  explicit Session(cal_session* h) : h_(h), n_(host->resource_count(h)) {}
  cal_session* handle() const { return h_; }
  size_t resource_count() const { return n_; }
  // Every node's resource vector of one kind in one array (ABI 1.1): row Node::index(),
  // resource_count() values each, kept current by the host for the whole session. A
  // plugin that reads many nodes reads rows here instead of a host call per node and field.
  const double* node_table(cal_node_field f) const { return host->node_table(h_, f); }
  std::string_view resource_name(size_t id) const { return sv(host->resource_name(h_, id)); }
  int32_t resource_id(const char* name) const { return host->resource_id(h_, name); }
  Res cluster_total() const { return {host->cluster_total(h_), n_}; }
  double now() const { return host->now(h_); }
  size_t job_count() const { return host->job_count(h_); }
  Job job(size_t i) const { return Job(host->job_at(h_, i), n_); }
  size_t node_count() const { return host->node_count(h_); }
  Node node(size_t i) const { return Node(host->node_at(h_, i), n_); }
  size_t queue_count() const { return host->queue_count(h_); }
  Queue queue(size_t i) const { return Queue(host->queue_at(h_, i), n_); }
  Queue queue_by_name(const char* name) const {
    return Queue(host->queue_by_name(h_, name), n_);
  }
  // The HyperNodes, by tier then name (none on a host without them).
  size_t hypernode_count() const {
    return CAL_HOST_HAS(host, hypernode_count) ? host->hypernode_count(h_) : 0;
  }
  HyperNode hypernode(size_t i) const { return HyperNode(host->hypernode_at(h_, i), n_); }
  // The HyperNodes holding a node, lowest tier first.
  size_t node_hypernode_count(const Node& n) const {
    return CAL_HOST_HAS(host, node_hypernode_count) ? host->node_hypernode_count(h_, n.handle())
                                                    : 0;
  }
  HyperNode node_hypernode(const Node& n, size_t i) const {
    return HyperNode(host->node_hypernode_at(h_, n.handle(), i), n_);
  }
  // ABI 1.4, storage (plugin.h, "Storage"): look-ups (null when absent), every PV in name
  // order, and what this session's volume decisions say.
  const cal_storage_class* storage_class(const char* name) const {
    return host->storage_class_get(h_, name);
  }
  const cal_persistent_volume* volume(const char* name) const { return host->volume_get(h_, name); }
  const cal_persistent_volume_claim* claim(const char* ns, const char* name) const {
    return host->claim_get(h_, ns, name);
  }
  size_t volume_count() const { return host->volume_count(h_); }
  const cal_persistent_volume* volume_at(size_t i) const { return host->volume_at(h_, i); }
  const cal_persistent_volume_claim* volume_assumed_claim(const cal_persistent_volume* pv) const {
    return host->volume_assumed_claim(h_, pv);
  }
  const char* claim_selected_node(const cal_persistent_volume_claim* c) const {
    return host->claim_selected_node(h_, c);
  }

  // ABI 1.5: PodDisruptionBudgets and ResourceQuotas, by namespace then name (plugin.h).
  size_t disruption_budget_count() const { return host->disruption_budget_count(h_); }
  const cal_disruption_budget* disruption_budget_at(size_t i) const {
    return host->disruption_budget_at(h_, i);
  }
  size_t resource_quota_count() const { return host->resource_quota_count(h_); }
  const cal_resource_quota* resource_quota_at(size_t i) const {
    return host->resource_quota_at(h_, i);
  }

  // ABI 1.2, state kept across sessions (plugin.h, state_get / state_put): call both from
  // the constructor (the plugin's open) or on_close() only. saved_state() is what this
  // plugin saved in an earlier session (empty when nothing, or on an older host), valid
  // until close; save_state() keeps `bytes` for the next session (the last call wins) and
  // is false when the host refused them (more than CAL_STATE_MAX, an older host, outside
  // open and close). StateWriter / StateReader below turn values into bytes and back.
  std::string_view saved_state() const {
    if (!CAL_HOST_HAS(host, state_get)) return {};
    size_t size = 0;
    const void* p = host->state_get(h_, &size);
    return p ? std::string_view(static_cast<const char*>(p), size) : std::string_view();
  }
  bool save_state(std::string_view bytes) const {
    return CAL_HOST_HAS(host, state_put) && host->state_put(h_, bytes.data(), bytes.size()) == 0;
  }

  // Wrap raw handles coming into callbacks.
  Job wrap(const cal_job* j) const { return Job(j, n_); }
  HyperNode wrap(const cal_hypernode* h) const { return HyperNode(h, n_); }
  SubJob wrap(const cal_sub_job* j) const { return SubJob(j, n_); }
  Task wrap(const cal_task* t) const { return Task(t, n_); }
  Node wrap(const cal_node* n) const { return Node(n, n_); }
  Queue wrap(const cal_queue* q) const { return Queue(q, n_); }

 private:
  cal_session* h_ = nullptr;
  size_t n_ = 0;
};

// ---------------------------------------------------------------------------------------
// Options, each declared once.
//
// One constexpr object per option holds its key, its type (the class), its default and its
// description; the same object builds the descriptor's cal_option table (kOptions below)
// and reads the validated value (Args::get):
//
//   static constexpr sdk::Int kWeight{"binpack.weight", 1, "Weight of the binpack score."};
//   static constexpr sdk::String kResources{"binpack.resources", sdk::no_default, "..."};
//   static constexpr sdk::Family<sdk::Int> kResourceWeight{"binpack.resources.*", "..."};
//   static constexpr auto kOptions = sdk::options(kWeight, kResources, kResourceWeight);
//   ...
//   weight_ = a.get(kWeight);                        // int64_t; the default when not given
//   for (const std::string& r : a.get_list(kResources))
//     w = a.get(kResourceWeight, r).value_or(1);     // std::optional<int64_t>
//
// The host fills defaults, so get() of an option with a default always has a value; an
// option without one reads as 0 / "" / false unless has() says it was given. Reading an
// option the plugin did not list in kOptions throws (the open() or check_args call then
// fails with the option's name), so a forgotten table entry shows at the first session.
// ---------------------------------------------------------------------------------------

struct NoDefault {};
inline constexpr NoDefault no_default{};

// What every option kind shares: enough to write its cal_option entry.
struct OptionDecl {
  const char* name = nullptr;
  cal_option_type type = CAL_OPT_INT;
  const char* description = nullptr;
  bool has_default = false;
  int64_t int_default = 0;
  double double_default = 0;
  bool bool_default = false;
  const char* text_default = nullptr;  // STRING and DURATION
  bool family = false;

  // The default as the table writes it ("1", "true", "0.5", "3m").
  std::string default_text() const {
    switch (type) {
      case CAL_OPT_BOOL: return bool_default ? "true" : "false";
      case CAL_OPT_INT: return std::to_string(int_default);
      case CAL_OPT_DOUBLE: {
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, double_default);
        std::string s(buf, r.ptr);
        // Keep it a TOML float ("1.0", not "1"), as the tables were written by hand.
        if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
        return s;
      }
      default: return text_default ? text_default : "";
    }
  }
};

// An integer option (TOML integer).
struct Int : OptionDecl {
  using value_type = int64_t;
  constexpr Int(const char* n, int64_t def, const char* desc)
      : OptionDecl{n, CAL_OPT_INT, desc, true, def} {}
  constexpr Int(const char* n, NoDefault, const char* desc) : OptionDecl{n, CAL_OPT_INT, desc} {}
  static value_type read(const cal_args* a, const char* name) { return host->arg_int(a, name); }
  value_type fallback() const { return int_default; }
};

// A floating-point option (TOML float or integer).
struct Double : OptionDecl {
  using value_type = double;
  constexpr Double(const char* n, double def, const char* desc)
      : OptionDecl{n, CAL_OPT_DOUBLE, desc, true, 0, def} {}
  constexpr Double(const char* n, NoDefault, const char* desc)
      : OptionDecl{n, CAL_OPT_DOUBLE, desc} {}
  static value_type read(const cal_args* a, const char* name) {
    return host->arg_double(a, name);
  }
  value_type fallback() const { return double_default; }
};

// A boolean option.
struct Bool : OptionDecl {
  using value_type = bool;
  constexpr Bool(const char* n, bool def, const char* desc)
      : OptionDecl{n, CAL_OPT_BOOL, desc, true, 0, 0, def} {}
  constexpr Bool(const char* n, NoDefault, const char* desc) : OptionDecl{n, CAL_OPT_BOOL, desc} {}
  static value_type read(const cal_args* a, const char* name) {
    return host->arg_bool(a, name) != 0;
  }
  value_type fallback() const { return bool_default; }
};

// A string option; `def` as it reads ("binpack"), nullptr or no_default for none.
struct String : OptionDecl {
  using value_type = std::string;
  constexpr String(const char* n, const char* def, const char* desc)
      : OptionDecl{n, CAL_OPT_STRING, desc, def != nullptr, 0, 0, false, def} {}
  constexpr String(const char* n, NoDefault, const char* desc)
      : OptionDecl{n, CAL_OPT_STRING, desc} {}
  static value_type read(const cal_args* a, const char* name) {
    const char* s = host->arg_string(a, name);
    return s ? std::string(s) : std::string();
  }
  value_type fallback() const { return text_default ? text_default : ""; }
};

// A duration ("500ms", "3m", "1h30m" or a number of seconds), read in seconds; `def` is
// written as in the config ("1m").
struct Duration : OptionDecl {
  using value_type = double;
  constexpr Duration(const char* n, const char* def, const char* desc)
      : OptionDecl{n, CAL_OPT_DURATION, desc, def != nullptr, 0, 0, false, def} {}
  constexpr Duration(const char* n, NoDefault, const char* desc)
      : OptionDecl{n, CAL_OPT_DURATION, desc} {}
  static value_type read(const cal_args* a, const char* name) {
    return host->arg_double(a, name);
  }
  value_type fallback() const { return 0; }
};

// A family of options of kind O: "binpack.resources.*" accepts
// "binpack.resources.nvidia.com/gpu". No default (the host allows none for a family).
template <class O>
struct Family : OptionDecl {
  using value_type = typename O::value_type;
  constexpr Family(const char* n, const char* desc)
      : OptionDecl{n, O("", no_default, "").type, desc} {
    family = true;
  }
  // The key of a member: "binpack.resources.*" + "nvidia.com/gpu" ->
  // "binpack.resources.nvidia.com/gpu"; "resources.*.weight" + "cpu" -> "resources.cpu.weight".
  std::string key(std::string_view member) const { return option_family::key(name, member); }
};

// The option table of a plugin: static constexpr auto kOptions = sdk::options(kA, kB, ...).
template <class... O>
  requires(std::is_base_of_v<OptionDecl, O> && ...)
constexpr std::array<OptionDecl, sizeof...(O)> options(const O&... o) {
  return {static_cast<const OptionDecl&>(o)...};
}


// ---- state kept across sessions (ABI 1.2): values to bytes and back --------------------
//
// A plugin's saved state only ever comes back to the same plugin file (plugin.h), so the
// bytes need no format version and may use the machine's own byte order. A reader that
// runs out of bytes or meets a length beyond them fails (ok() false) and then reads zeros:
// check ok() at the end and start afresh when it is false.
//
//   sdk::StateWriter w;  w.u64(count); w.f64(last); w.str(name);  ssn.save_state(w.bytes());
//   sdk::StateReader r(ssn.saved_state());  count = r.u64(); last = r.f64(); name = r.str();
//   if (!r.ok() || !r.done()) { /* start afresh */ }
class StateWriter {
 public:
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void i64(int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(std::string_view v) {
    u64(v.size());
    buf_.append(v.data(), v.size());
  }
  void raw(const void* p, size_t n) { buf_.append(static_cast<const char*>(p), n); }
  const std::string& bytes() const { return buf_; }
  size_t size() const { return buf_.size(); }

 private:
  std::string buf_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view bytes) : b_(bytes) {}
  uint64_t u64() { return pod<uint64_t>(); }
  int64_t i64() { return pod<int64_t>(); }
  double f64() { return pod<double>(); }
  std::string str() {
    const uint64_t n = u64();
    if (!ok_ || n > b_.size() - at_) {
      fail();
      return {};
    }
    std::string out(b_.substr(at_, n));
    at_ += n;
    return out;
  }
  // The next n bytes (empty, and failed, when fewer are left).
  std::string_view raw(size_t n) {
    if (!ok_ || n > b_.size() - at_) {
      fail();
      return {};
    }
    std::string_view out = b_.substr(at_, n);
    at_ += n;
    return out;
  }
  // A count of items of at least `item_bytes` each, checked against what is left (so a
  // broken count never makes the caller reserve or loop beyond the bytes).
  uint64_t count(size_t item_bytes) {
    const uint64_t n = u64();
    if (ok_ && item_bytes > 0 && n > (b_.size() - at_) / item_bytes) {
      fail();
      return 0;
    }
    return ok_ ? n : 0;
  }
  bool ok() const { return ok_; }
  bool done() const { return at_ == b_.size(); }
  bool empty() const { return b_.empty(); }

 private:
  template <class T>
  T pod() {
    T v{};
    if (!ok_ || sizeof v > b_.size() - at_) {
      fail();
      return v;
    }
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  void fail() { ok_ = false; }
  std::string_view b_;
  size_t at_ = 0;
  bool ok_ = true;
};

// Typed access to the validated arguments.
class Args {
 public:
  explicit Args(const cal_args* a) : a_(a) {}
  // With the plugin's declared options: get() and has() of an option not among them throw.
  Args(const cal_args* a, const OptionDecl* declared, size_t count)
      : a_(a), declared_(declared), declared_count_(count) {}

  // ---- declared options (the one-line declarations above) ----------------------------
  bool has(const OptionDecl& o) const {
    check(o);
    return host->arg_is_set(a_, o.name) != 0;
  }
  template <class O>
    requires(std::is_base_of_v<OptionDecl, O> && requires(const O& x) { x.fallback(); })
  typename O::value_type get(const O& o) const {
    check(o);
    return host->arg_is_set(a_, o.name) ? O::read(a_, o.name) : o.fallback();
  }
  template <class O>
  std::optional<typename O::value_type> get(const Family<O>& f, std::string_view member) const {
    check(f);
    const std::string k = f.key(member);
    if (!host->arg_is_set(a_, k.c_str())) return std::nullopt;
    return O::read(a_, k.c_str());
  }
  // The members of a family that are set (the part the "*" stands for), in name order.
  template <class O>
  std::vector<std::string> members(const Family<O>& f) const {
    check(f);
    std::vector<std::string> out;
    for (const std::string& n : names())
      if (std::optional<std::string_view> m = option_family::member(f.name, n))
        out.emplace_back(*m);
    return out;
  }
  // A comma-separated list option ("nvidia.com/gpu, example.com/foo", Volcano's form): its
  // items with surrounding blanks trimmed, empty items dropped; none when unset.
  std::vector<std::string> get_list(const String& o) const { return split_list(get(o)); }

  bool hierarchy() const { return host->arg_hierarchy(a_) != 0; }

  // ---- by name (options read without a declaration object) ----------------------------
  bool has(const char* name) const { return host->arg_is_set(a_, name) != 0; }
  bool get_bool(const char* name, bool fallback = false) const {
    return has(name) ? host->arg_bool(a_, name) != 0 : fallback;
  }
  int64_t get_int(const char* name, int64_t fallback = 0) const {
    return has(name) ? host->arg_int(a_, name) : fallback;
  }
  double get_double(const char* name, double fallback = 0) const {
    return has(name) ? host->arg_double(a_, name) : fallback;
  }
  std::string get_string(const char* name, const std::string& fallback = {}) const {
    const char* s = has(name) ? host->arg_string(a_, name) : nullptr;
    return s ? std::string(s) : fallback;
  }
  std::vector<std::string> get_list(const char* name) const {
    return split_list(get_string(name));
  }
  // Names of every set argument (for option families such as "binpack.resources.*").
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    size_t n = host->arg_count(a_);
    for (size_t i = 0; i < n; ++i) out.emplace_back(host->arg_name(a_, i));
    return out;
  }

 private:
  static std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> out;
    const char* ws = " \t\r\n";
    size_t pos = 0;
    while (pos <= list.size()) {
      size_t comma = list.find(',', pos);
      if (comma == std::string::npos) comma = list.size();
      const std::string_view item = std::string_view(list).substr(pos, comma - pos);
      pos = comma + 1;
      const size_t b = item.find_first_not_of(ws);
      if (b == std::string_view::npos) continue;
      out.emplace_back(item.substr(b, item.find_last_not_of(ws) - b + 1));
    }
    return out;
  }
  void check(const OptionDecl& o) const {
    if (!declared_) return;
    for (size_t i = 0; i < declared_count_; ++i)
      if (std::strcmp(declared_[i].name, o.name) == 0) return;
    throw std::logic_error(std::string("option '") + o.name +
                           "' is read but not declared in the plugin's kOptions");
  }

  const cal_args* a_;
  const OptionDecl* declared_ = nullptr;
  size_t declared_count_ = 0;
};

// The result of a predicate (and of pre_predicate, job_valid, check_args): success, or a
// code with a reason. The reason is kept inside the object (at most CAL_REASON_MAX - 1
// bytes, longer text is cut), so a predicate that refuses thousands of nodes allocates
// nothing; pieces can be joined without building a std::string first:
//   return Status::unresolvable({"node(s) had untolerated taint {", key, ": ", value, "}"});
class Status {
 public:
  cal_code code = CAL_SUCCESS;

  Status() { text_[0] = '\0'; }
  Status(cal_code c, std::string_view reason) : code(c) {
    text_[0] = '\0';
    append(reason);
  }
  Status(cal_code c, std::initializer_list<std::string_view> parts) : code(c) {
    text_[0] = '\0';
    for (std::string_view p : parts) append(p);
  }
  static Status ok() { return {}; }
  static Status unschedulable(std::string_view r) { return {CAL_UNSCHEDULABLE, r}; }
  static Status unschedulable(std::initializer_list<std::string_view> parts) {
    return {CAL_UNSCHEDULABLE, parts};
  }
  static Status unresolvable(std::string_view r) {
    return {CAL_UNSCHEDULABLE_AND_UNRESOLVABLE, r};
  }
  static Status unresolvable(std::initializer_list<std::string_view> parts) {
    return {CAL_UNSCHEDULABLE_AND_UNRESOLVABLE, parts};
  }
  static Status error(std::string_view r) { return {CAL_ERROR, r}; }
  static Status error(std::initializer_list<std::string_view> parts) { return {CAL_ERROR, parts}; }

  std::string_view reason() const { return {text_, len_}; }
  const char* c_str() const { return text_; }

 private:
  void append(std::string_view p) {
    const size_t room = CAL_REASON_MAX - 1 - len_;
    const size_t n = p.size() < room ? p.size() : room;
    // A plain loop: GCC 12 misreads an inlined memcpy from a short std::string as reading
    // past its inline buffer (-Warray-bounds).
    const char* src = p.data();
    for (size_t i = 0; i < n; ++i) text_[len_ + i] = src[i];
    len_ = static_cast<uint16_t>(len_ + n);
    text_[len_] = '\0';
  }
  uint16_t len_ = 0;
  char text_[CAL_REASON_MAX];
};

// Who evicts, in unified_evictable (ABI 1.7, cal_eviction_context): the kind of eviction,
// the job the victims make room for, the task for the task-level kinds, and the domain the
// candidates are in (a HyperNode, or "<cluster-top-hypernode>" for every node).
class EvictionContext {
 public:
  EvictionContext(const cal_eviction_context* c, size_t nres) : c_(c), n_(nres) {}
  cal_eviction_kind kind() const { return static_cast<cal_eviction_kind>(c_->kind); }
  Job job() const { return Job(c_->job, n_); }
  Task task() const { return Task(c_->task, n_); }
  std::string_view hypernode() const { return sv(c_->hypernode); }
  HyperNode hypernode_handle() const { return HyperNode(c_->hypernode_handle, n_); }
  const cal_eviction_context* handle() const { return c_; }

 private:
  const cal_eviction_context* c_;
  size_t n_;
};

// ---------------------------------------------------------------------------------------
// The extension methods a plugin class defines, declared.
//
// The SDK fills a cal_plugin slot from a method of the plugin class found by its name.
// A name is easy to get wrong (`node_ordr`, `predicate(Task)`), and a method the SDK does
// not recognise would silently leave the point out. So a plugin lists the methods it
// defines, and the SDK checks the list against the class at compile time:
//
//   static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::node_order,
//                                                   sdk::Hook::batch_node_order);
//
//   - each listed hook must be a public method with its signature (below), or the build
//     stops with "lists Hook::node_order in kHooks but has no public method double
//     node_order(Task, Node)": a misspelt or mis-typed method of a listed hook fails;
//   - each method named as a hook must be listed, or the build stops with "has a method
//     named node_order but does not list Hook::node_order in kHooks": a slot is never
//     filled (or dropped) behind the author's back;
//   - a class without kHooks does not build.
// Only listed hooks fill slots. The methods and their signatures (Task, Node, Job, Queue,
// HyperNode by value or const reference):
//   int      job_order(Job, Job)            int   queue_order(Queue, Queue)
//   int      task_order(Task, Task)         Status pre_predicate(Task)
//   Status   predicate(Task, Node)          (fills predicate and, in a loop, predicate_many)
//   double   node_order(Task, Node)         (fills node_order and, in a loop, node_order_many)
//   void     node_order_many(Task, const cal_node* const*, size_t, double* scores)
//   void     batch_node_order(Task, const cal_node* const*, size_t, double* scores)
//   cal_vote preemptable(Task, const std::vector<Task>&, std::vector<uint8_t>& victims)
//   cal_vote reclaimable(Task, const std::vector<Task>&, std::vector<uint8_t>& victims)
//   cal_vote unified_evictable(const EvictionContext&, const std::vector<Task>&,
//                              std::vector<uint8_t>& victims)                  (ABI 1.7)
//   void     hyper_node_order(Job, const std::vector<HyperNode>&, std::vector<double>&)
//   void     victim_tasks(const std::vector<Task>&, std::vector<uint8_t>& victims)
//   bool     overused(Queue)                bool  allocatable(Queue, Task)
//   bool     preemptive(Queue, Task)        bool  job_ready(Job)
//   bool     preemptive_many(Queue, const std::vector<Task>&)                   (ABI 1.7)
//   bool     job_starving(Job)              cal_vote job_pipelined(Job)
//   cal_vote job_enqueueable(Job)           Status job_valid(Job)
//   void     job_enqueued(Job)              void  on_allocate(Task)
//   void     on_deallocate(Task)            void  on_close()
//   int      sub_job_order(SubJob, SubJob)  bool  sub_job_ready(SubJob)          (ABI 1.8)
//   cal_vote sub_job_pipelined(SubJob)                                          (ABI 1.8)
//   void     sub_job_hyper_node_order(SubJob, const std::vector<HyperNode>&,
//                                     std::vector<double>&)                      (ABI 1.8)
//   static Status check_args(const Args&)
// ---------------------------------------------------------------------------------------

enum class Hook : uint8_t {
  job_order, queue_order, task_order, pre_predicate, predicate, node_order, node_order_many,
  batch_node_order, preemptable, reclaimable, hyper_node_order, victim_tasks, overused,
  allocatable, preemptive, job_ready, job_starving, job_pipelined, job_enqueueable, job_valid,
  job_enqueued, on_allocate, on_deallocate, on_close, check_args,
  unified_evictable, preemptive_many,  // ABI 1.7
  sub_job_order, sub_job_ready, sub_job_pipelined, sub_job_hyper_node_order,  // ABI 1.8
};

// A set of hooks.
class Hooks {
 public:
  constexpr Hooks() = default;
  constexpr bool has(Hook h) const { return (bits_ >> static_cast<unsigned>(h)) & 1u; }
  constexpr Hooks& add(Hook h) {
    bits_ |= uint64_t{1} << static_cast<unsigned>(h);
    return *this;
  }
  constexpr bool operator==(const Hooks&) const = default;

 private:
  uint64_t bits_ = 0;
};

template <class... H>
  requires(std::is_same_v<H, Hook> && ...)
constexpr Hooks hooks(H... h) {
  Hooks s;
  (s.add(h), ...);
  return s;
}

inline void log(cal_log_level level, const char* plugin, const std::string& msg) {
  if (host) host->log(level, plugin, msg.c_str());
}

namespace detail {

// The reason texts a session's predicate_many calls have answered with. The slot's contract
// (plugin.h) is that a reason stays valid until close(), while a Status keeps its text in
// itself: each distinct text is kept here once, so a search that refuses thousands of nodes
// for "insufficient cpu" stores one string. Calls may run on several threads at once
// (CAL_CAP_NODE_PARALLEL), hence the lock; a call remembers the last text it kept, and
// failing nodes of one run mostly share a reason, so the lock is rarely taken.
class ReasonStore {
 public:
  struct Last {
    const std::string* text = nullptr;
  };
  const char* keep(std::string_view reason, Last& last) {
    if (last.text && *last.text == reason) return last.text->c_str();
    std::lock_guard<std::mutex> lock(mu_);
    last.text = &*texts_.emplace(reason).first;  // node-based: the string never moves
    return last.text->c_str();
  }

 private:
  std::mutex mu_;
  std::unordered_set<std::string> texts_;
};

// One plugin object per session, plus the session wrapper it was built with.
template <class P>
struct Instance {
  Session ssn;
  P plugin;
  ReasonStore reasons;
  Instance(Session s, const Args& a) : ssn(s), plugin(s, a) {}
};

template <class P>
P& self_of(void* self) {
  return static_cast<Instance<P>*>(self)->plugin;
}
template <class P>
const Session& ssn_of(void* self) {
  return static_cast<Instance<P>*>(self)->ssn;
}

template <class P>
void report(const char* what) {
  log(CAL_LOG_ERROR, P::kName, std::string("exception: ") + what);
}

// Runs f; on any exception logs it and returns fallback.
template <class P, class R, class F>
R guard(R fallback, F&& f) noexcept {
  try {
    return f();
  } catch (const std::exception& e) {
    report<P>(e.what());
  } catch (...) {
    report<P>("unknown exception");
  }
  return fallback;
}

inline void set_reason(cal_status* st, const char* r) {
  if (st) host->status_set(st, r);
}

// ---- compile-time checks of a plugin class (kHooks above) ------------------------------

template <class P>
constexpr Hooks hooks_of() {
  if constexpr (requires { P::kHooks; })
    return P::kHooks;
  else
    return Hooks{};
}
template <class P>
constexpr bool listed(Hook h) {
  return hooks_of<P>().has(h);
}

// For each hook: whether P has a public method of that name (a single, non-template one),
// and whether it can be called with the hook's arguments and gives its result.
#define CALDERA_SDK_HOOK_TRAITS(NAME, ...)                                                \
  template <class P>                                                                      \
  constexpr bool named_##NAME = requires { &P::NAME; };                                   \
  template <class P>                                                                      \
  constexpr bool callable_##NAME = requires __VA_ARGS__;

CALDERA_SDK_HOOK_TRAITS(job_order, (P& x, Job l, Job r) {
  { x.job_order(l, r) } -> std::convertible_to<int>;
})
CALDERA_SDK_HOOK_TRAITS(queue_order, (P& x, Queue l, Queue r) {
  { x.queue_order(l, r) } -> std::convertible_to<int>;
})
CALDERA_SDK_HOOK_TRAITS(task_order, (P& x, Task l, Task r) {
  { x.task_order(l, r) } -> std::convertible_to<int>;
})
CALDERA_SDK_HOOK_TRAITS(pre_predicate, (P& x, Task t) {
  { x.pre_predicate(t) } -> std::convertible_to<Status>;
})
CALDERA_SDK_HOOK_TRAITS(predicate, (P& x, Task t, Node n) {
  { x.predicate(t, n) } -> std::convertible_to<Status>;
})
CALDERA_SDK_HOOK_TRAITS(node_order, (P& x, Task t, Node n) {
  { x.node_order(t, n) } -> std::convertible_to<double>;
})
CALDERA_SDK_HOOK_TRAITS(node_order_many,
                        (P& x, Task t, const cal_node* const* ns, size_t n, double* sc) {
                          x.node_order_many(t, ns, n, sc);
                        })
CALDERA_SDK_HOOK_TRAITS(batch_node_order,
                        (P& x, Task t, const cal_node* const* ns, size_t n, double* sc) {
                          x.batch_node_order(t, ns, n, sc);
                        })
CALDERA_SDK_HOOK_TRAITS(preemptable,
                        (P& x, Task t, const std::vector<Task>& c, std::vector<uint8_t>& v) {
                          { x.preemptable(t, c, v) } -> std::convertible_to<cal_vote>;
                        })
CALDERA_SDK_HOOK_TRAITS(reclaimable,
                        (P& x, Task t, const std::vector<Task>& c, std::vector<uint8_t>& v) {
                          { x.reclaimable(t, c, v) } -> std::convertible_to<cal_vote>;
                        })
CALDERA_SDK_HOOK_TRAITS(unified_evictable,
                        (P& x, const EvictionContext& e, const std::vector<Task>& c,
                         std::vector<uint8_t>& v) {
                          { x.unified_evictable(e, c, v) } -> std::convertible_to<cal_vote>;
                        })
CALDERA_SDK_HOOK_TRAITS(preemptive_many, (P& x, Queue q, const std::vector<Task>& c) {
  { x.preemptive_many(q, c) } -> std::convertible_to<bool>;
})
CALDERA_SDK_HOOK_TRAITS(hyper_node_order,
                        (P& x, Job j, const std::vector<HyperNode>& c, std::vector<double>& v) {
                          x.hyper_node_order(j, c, v);
                        })
CALDERA_SDK_HOOK_TRAITS(sub_job_order, (P& x, SubJob l, SubJob r) {
  { x.sub_job_order(l, r) } -> std::convertible_to<int>;
})
CALDERA_SDK_HOOK_TRAITS(sub_job_ready, (P& x, SubJob j) {
  { x.sub_job_ready(j) } -> std::convertible_to<bool>;
})
CALDERA_SDK_HOOK_TRAITS(sub_job_pipelined, (P& x, SubJob j) {
  { x.sub_job_pipelined(j) } -> std::convertible_to<cal_vote>;
})
CALDERA_SDK_HOOK_TRAITS(sub_job_hyper_node_order,
                        (P& x, SubJob j, const std::vector<HyperNode>& c, std::vector<double>& v) {
                          x.sub_job_hyper_node_order(j, c, v);
                        })
CALDERA_SDK_HOOK_TRAITS(victim_tasks, (P& x, const std::vector<Task>& c, std::vector<uint8_t>& v) {
  x.victim_tasks(c, v);
})
CALDERA_SDK_HOOK_TRAITS(overused, (P& x, Queue q) {
  { x.overused(q) } -> std::convertible_to<bool>;
})
CALDERA_SDK_HOOK_TRAITS(allocatable, (P& x, Queue q, Task t) {
  { x.allocatable(q, t) } -> std::convertible_to<bool>;
})
CALDERA_SDK_HOOK_TRAITS(preemptive, (P& x, Queue q, Task t) {
  { x.preemptive(q, t) } -> std::convertible_to<bool>;
})
CALDERA_SDK_HOOK_TRAITS(job_ready, (P& x, Job j) {
  { x.job_ready(j) } -> std::convertible_to<bool>;
})
CALDERA_SDK_HOOK_TRAITS(job_starving, (P& x, Job j) {
  { x.job_starving(j) } -> std::convertible_to<bool>;
})
CALDERA_SDK_HOOK_TRAITS(job_pipelined, (P& x, Job j) {
  { x.job_pipelined(j) } -> std::convertible_to<cal_vote>;
})
CALDERA_SDK_HOOK_TRAITS(job_enqueueable, (P& x, Job j) {
  { x.job_enqueueable(j) } -> std::convertible_to<cal_vote>;
})
CALDERA_SDK_HOOK_TRAITS(job_valid, (P& x, Job j) {
  { x.job_valid(j) } -> std::convertible_to<Status>;
})
CALDERA_SDK_HOOK_TRAITS(job_enqueued, (P& x, Job j) { x.job_enqueued(j); })
CALDERA_SDK_HOOK_TRAITS(on_allocate, (P& x, Task t) { x.on_allocate(t); })
CALDERA_SDK_HOOK_TRAITS(on_deallocate, (P& x, Task t) { x.on_deallocate(t); })
CALDERA_SDK_HOOK_TRAITS(on_close, (P& x) { x.on_close(); })
CALDERA_SDK_HOOK_TRAITS(check_args, (const Args& a) {
  { P::check_args(a) } -> std::convertible_to<Status>;
})
#undef CALDERA_SDK_HOOK_TRAITS

// Both directions for one hook; the messages are what a plugin author reads.
#define CALDERA_SDK_CHECK_HOOK(NAME, SIGNATURE)                                             \
  static_assert(!listed<P>(Hook::NAME) || callable_##NAME<P>,                               \
                "caldera::sdk: the plugin lists Hook::" #NAME                               \
                " in kHooks but has no public method " SIGNATURE                           \
                " (is the name misspelt, or are the parameter types different?)");          \
  static_assert(listed<P>(Hook::NAME) || !(named_##NAME<P> || callable_##NAME<P>),          \
                "caldera::sdk: the plugin has a method named " #NAME                       \
                " but does not list Hook::" #NAME " in kHooks: list it, or rename the method");

template <class P>
constexpr bool check_plugin() {
  static_assert(requires {
    { P::kHooks } -> std::convertible_to<Hooks>;
  }, "caldera::sdk: a plugin class lists the extension methods it defines: static constexpr "
     "caldera::sdk::Hooks kHooks = caldera::sdk::hooks(caldera::sdk::Hook::node_order, ...);");
  static_assert(requires {
    { P::kName } -> std::convertible_to<const char*>;
    { P::kVersion } -> std::convertible_to<const char*>;
    { P::kDescription } -> std::convertible_to<const char*>;
  }, "caldera::sdk: a plugin class declares static constexpr const char* kName, kVersion and "
     "kDescription");
  static_assert(std::is_constructible_v<P, Session, const Args&>,
                "caldera::sdk: a plugin class has a public constructor "
                "(caldera::sdk::Session, const caldera::sdk::Args&)");
  static_assert(!(requires { P::kOptions; } && requires { P::options(); }),
                "caldera::sdk: declare the options once: kOptions or options(), not both");
  CALDERA_SDK_CHECK_HOOK(job_order, "int job_order(Job, Job)")
  CALDERA_SDK_CHECK_HOOK(queue_order, "int queue_order(Queue, Queue)")
  CALDERA_SDK_CHECK_HOOK(task_order, "int task_order(Task, Task)")
  CALDERA_SDK_CHECK_HOOK(pre_predicate, "Status pre_predicate(Task)")
  CALDERA_SDK_CHECK_HOOK(predicate, "Status predicate(Task, Node)")
  CALDERA_SDK_CHECK_HOOK(node_order, "double node_order(Task, Node)")
  CALDERA_SDK_CHECK_HOOK(node_order_many,
                         "void node_order_many(Task, const cal_node* const*, size_t, double*)")
  CALDERA_SDK_CHECK_HOOK(batch_node_order,
                         "void batch_node_order(Task, const cal_node* const*, size_t, double*)")
  CALDERA_SDK_CHECK_HOOK(preemptable, "cal_vote preemptable(Task, const std::vector<Task>&, "
                                      "std::vector<uint8_t>&)")
  CALDERA_SDK_CHECK_HOOK(reclaimable, "cal_vote reclaimable(Task, const std::vector<Task>&, "
                                      "std::vector<uint8_t>&)")
  CALDERA_SDK_CHECK_HOOK(unified_evictable, "cal_vote unified_evictable(const "
                                            "EvictionContext&, const std::vector<Task>&, "
                                            "std::vector<uint8_t>&)")
  CALDERA_SDK_CHECK_HOOK(preemptive_many, "bool preemptive_many(Queue, const std::vector<Task>&)")
  CALDERA_SDK_CHECK_HOOK(hyper_node_order, "void hyper_node_order(Job, const "
                                           "std::vector<HyperNode>&, std::vector<double>&)")
  CALDERA_SDK_CHECK_HOOK(sub_job_order, "int sub_job_order(SubJob, SubJob)")
  CALDERA_SDK_CHECK_HOOK(sub_job_ready, "bool sub_job_ready(SubJob)")
  CALDERA_SDK_CHECK_HOOK(sub_job_pipelined, "cal_vote sub_job_pipelined(SubJob)")
  CALDERA_SDK_CHECK_HOOK(sub_job_hyper_node_order, "void sub_job_hyper_node_order(SubJob, const "
                                                   "std::vector<HyperNode>&, std::vector<double>&)")
  CALDERA_SDK_CHECK_HOOK(victim_tasks,
                         "void victim_tasks(const std::vector<Task>&, std::vector<uint8_t>&)")
  CALDERA_SDK_CHECK_HOOK(overused, "bool overused(Queue)")
  CALDERA_SDK_CHECK_HOOK(allocatable, "bool allocatable(Queue, Task)")
  CALDERA_SDK_CHECK_HOOK(preemptive, "bool preemptive(Queue, Task)")
  CALDERA_SDK_CHECK_HOOK(job_ready, "bool job_ready(Job)")
  CALDERA_SDK_CHECK_HOOK(job_starving, "bool job_starving(Job)")
  CALDERA_SDK_CHECK_HOOK(job_pipelined, "cal_vote job_pipelined(Job)")
  CALDERA_SDK_CHECK_HOOK(job_enqueueable, "cal_vote job_enqueueable(Job)")
  CALDERA_SDK_CHECK_HOOK(job_valid, "Status job_valid(Job)")
  CALDERA_SDK_CHECK_HOOK(job_enqueued, "void job_enqueued(Job)")
  CALDERA_SDK_CHECK_HOOK(on_allocate, "void on_allocate(Task)")
  CALDERA_SDK_CHECK_HOOK(on_deallocate, "void on_deallocate(Task)")
  CALDERA_SDK_CHECK_HOOK(on_close, "void on_close()")
  CALDERA_SDK_CHECK_HOOK(check_args, "static Status check_args(const Args&)")
  return true;
}
#undef CALDERA_SDK_CHECK_HOOK

// The declared options of P (kOptions), or none.
template <class P>
constexpr const OptionDecl* declared_options() {
  if constexpr (requires { P::kOptions; })
    return P::kOptions.size() ? P::kOptions.data() : nullptr;
  else
    return nullptr;
}
template <class P>
constexpr size_t declared_option_count() {
  if constexpr (requires { P::kOptions; })
    return P::kOptions.size();
  else
    return 0;
}
template <class P>
Args args_of(const cal_args* a) {
  if constexpr (requires { P::kOptions; })
    return Args(a, declared_options<P>(), declared_option_count<P>());
  else
    return Args(a);
}

// Builds the descriptor once per shared object.
template <class P>
const cal_plugin* descriptor() {
  static_assert(check_plugin<P>());
  // Default texts of kOptions, kept for the life of the shared object (a deque never moves
  // its elements).
  static std::deque<std::string> default_texts;
  static std::vector<cal_option> opts = [] {
    if constexpr (requires { P::kOptions; }) {
      std::vector<cal_option> out;
      for (const OptionDecl& o : P::kOptions) {
        const char* def = nullptr;
        if (o.has_default && !o.family) def = default_texts.emplace_back(o.default_text()).c_str();
        out.push_back(cal_option{sizeof(cal_option), o.name, o.type, def, o.description});
      }
      return out;
    } else if constexpr (requires { P::options(); }) {
      return P::options();
    } else {
      return std::vector<cal_option>{};
    }
  }();
  static cal_plugin d = [] {
    cal_plugin p;
    std::memset(&p, 0, sizeof p);
    p.struct_size = sizeof(cal_plugin);
    p.abi_version = CAL_ABI_VERSION;
    p.name = P::kName;
    p.version = P::kVersion;
    p.description = P::kDescription;
    p.options = opts.empty() ? nullptr : opts.data();
    p.option_count = opts.size();
    if constexpr (requires { P::kCapabilities; }) p.capabilities = P::kCapabilities;

    p.open = [](cal_session* s, const cal_args* a, cal_code* code, cal_status* st) -> void* {
      try {
        return new Instance<P>(Session(s), args_of<P>(a));
      } catch (const std::exception& e) {
        *code = CAL_ERROR;
        set_reason(st, e.what());
      } catch (...) {
        *code = CAL_ERROR;
        set_reason(st, "unknown exception in open");
      }
      return nullptr;
    };
    p.close = [](void* self) {
      guard<P, int>(0, [&] {
        // on_close() runs while the session is still readable (Volcano's OnSessionClose).
        if constexpr (listed<P>(Hook::on_close)) self_of<P>(self).on_close();
        delete static_cast<Instance<P>*>(self);
        return 0;
      });
    };

    using S = const Session&;
    if constexpr (listed<P>(Hook::job_order))
      p.job_order = [](void* self, const cal_job* l, const cal_job* r) -> int {
        return guard<P, int>(0, [&] {
          S s = ssn_of<P>(self);
          return self_of<P>(self).job_order(s.wrap(l), s.wrap(r));
        });
      };
    if constexpr (listed<P>(Hook::queue_order))
      p.queue_order = [](void* self, const cal_queue* l, const cal_queue* r) -> int {
        return guard<P, int>(0, [&] {
          S s = ssn_of<P>(self);
          return self_of<P>(self).queue_order(s.wrap(l), s.wrap(r));
        });
      };
    if constexpr (listed<P>(Hook::task_order))
      p.task_order = [](void* self, const cal_task* l, const cal_task* r) -> int {
        return guard<P, int>(0, [&] {
          S s = ssn_of<P>(self);
          return self_of<P>(self).task_order(s.wrap(l), s.wrap(r));
        });
      };
    if constexpr (listed<P>(Hook::pre_predicate))
      p.pre_predicate = [](void* self, const cal_task* t, cal_status* st) -> cal_code {
        try {
          Status r = self_of<P>(self).pre_predicate(ssn_of<P>(self).wrap(t));
          if (r.code != CAL_SUCCESS) set_reason(st, r.c_str());
          return r.code;
        } catch (const std::exception& e) {
          report<P>(e.what());
        } catch (...) {
          report<P>("unknown exception");
        }
        set_reason(st, "exception in pre_predicate");
        return CAL_ERROR;
      };
    if constexpr (listed<P>(Hook::predicate))
      p.predicate = [](void* self, const cal_task* t, const cal_node* n,
                       cal_status* st) -> cal_code {
        try {
          S s = ssn_of<P>(self);
          Status r = self_of<P>(self).predicate(s.wrap(t), s.wrap(n));
          if (r.code != CAL_SUCCESS) set_reason(st, r.c_str());
          return r.code;
        } catch (const std::exception& e) {
          report<P>(e.what());
        } catch (...) {
          report<P>("unknown exception");
        }
        set_reason(st, "exception in predicate");
        return CAL_ERROR;
      };
    // The many-node form (ABI 1.1) of a per-node predicate: the same method in a loop,
    // one host-to-plugin call per run of nodes instead of one per node.
    if constexpr (listed<P>(Hook::predicate))
      p.predicate_many = [](void* self, const cal_task* t, const cal_node* const* nodes,
                            size_t count, cal_code* codes, const char** reasons) {
        auto& in = *static_cast<Instance<P>*>(self);
        const Task task = in.ssn.wrap(t);
        ReasonStore::Last last;
        for (size_t i = 0; i < count; ++i) {
          try {
            const Status r = in.plugin.predicate(task, in.ssn.wrap(nodes[i]));
            codes[i] = r.code;
            reasons[i] = r.code == CAL_SUCCESS || r.code == CAL_SKIP
                             ? nullptr
                             : in.reasons.keep(r.reason(), last);
            continue;
          } catch (const std::exception& e) {
            report<P>(e.what());
          } catch (...) {
            report<P>("unknown exception");
          }
          codes[i] = CAL_ERROR;
          reasons[i] = "exception in predicate";
        }
      };
    if constexpr (listed<P>(Hook::node_order))
      p.node_order = [](void* self, const cal_task* t, const cal_node* n, double* score,
                        cal_status* st) -> cal_code {
        try {
          S s = ssn_of<P>(self);
          *score = self_of<P>(self).node_order(s.wrap(t), s.wrap(n));
          return CAL_SUCCESS;
        } catch (const std::exception& e) {
          set_reason(st, e.what());
        } catch (...) {
          set_reason(st, "unknown exception in node_order");
        }
        *score = 0;
        return CAL_ERROR;
      };
    // The many-node form of node_order: the plugin's own node_order_many (which writes
    // scores[i] for nodes[i], each from its own node only) when it has one, so that what a
    // task needs is worked out once per call; otherwise node_order in a loop, where a node
    // whose score throws scores 0, as node_order's error answer does.
    if constexpr (listed<P>(Hook::node_order_many))
      p.node_order_many = [](void* self, const cal_task* t, const cal_node* const* nodes,
                             size_t count, double* scores, cal_status* st) -> cal_code {
        try {
          S s = ssn_of<P>(self);
          self_of<P>(self).node_order_many(s.wrap(t), nodes, count, scores);
          return CAL_SUCCESS;
        } catch (const std::exception& e) {
          set_reason(st, e.what());
        } catch (...) {
          set_reason(st, "unknown exception in node_order_many");
        }
        return CAL_ERROR;
      };
    else if constexpr (listed<P>(Hook::node_order))
      p.node_order_many = [](void* self, const cal_task* t, const cal_node* const* nodes,
                             size_t count, double* scores, cal_status*) -> cal_code {
        auto& in = *static_cast<Instance<P>*>(self);
        const Task task = in.ssn.wrap(t);
        for (size_t i = 0; i < count; ++i) {
          try {
            scores[i] = in.plugin.node_order(task, in.ssn.wrap(nodes[i]));
            continue;
          } catch (const std::exception& e) {
            report<P>(e.what());
          } catch (...) {
            report<P>("unknown exception");
          }
          scores[i] = 0;
        }
        return CAL_SUCCESS;
      };
    if constexpr (listed<P>(Hook::batch_node_order))
      p.batch_node_order = [](void* self, const cal_task* t, const cal_node* const* ns,
                              size_t n, double* scores, cal_status* st) -> cal_code {
        try {
          S s = ssn_of<P>(self);
          self_of<P>(self).batch_node_order(s.wrap(t), ns, n, scores);
          return CAL_SUCCESS;
        } catch (const std::exception& e) {
          set_reason(st, e.what());
        } catch (...) {
          set_reason(st, "unknown exception in batch_node_order");
        }
        return CAL_ERROR;
      };
    if constexpr (listed<P>(Hook::preemptable))
      p.preemptable = [](void* self, const cal_task* t, const cal_task* const* c, size_t n,
                         uint8_t* victims) -> cal_vote {
        return guard<P, cal_vote>(CAL_ABSTAIN, [&] {
          S s = ssn_of<P>(self);
          std::vector<Task> cand;
          cand.reserve(n);
          for (size_t i = 0; i < n; ++i) cand.push_back(s.wrap(c[i]));
          std::vector<uint8_t> v(n, 0);
          cal_vote r = self_of<P>(self).preemptable(s.wrap(t), cand, v);
          std::copy(v.begin(), v.end(), victims);  // no memcpy: n may be 0, victims null
          return r;
        });
      };
    if constexpr (listed<P>(Hook::reclaimable))
      p.reclaimable = [](void* self, const cal_task* t, const cal_task* const* c, size_t n,
                         uint8_t* victims) -> cal_vote {
        return guard<P, cal_vote>(CAL_ABSTAIN, [&] {
          S s = ssn_of<P>(self);
          std::vector<Task> cand;
          cand.reserve(n);
          for (size_t i = 0; i < n; ++i) cand.push_back(s.wrap(c[i]));
          std::vector<uint8_t> v(n, 0);
          cal_vote r = self_of<P>(self).reclaimable(s.wrap(t), cand, v);
          std::copy(v.begin(), v.end(), victims);  // no memcpy: n may be 0, victims null
          return r;
        });
      };
    if constexpr (listed<P>(Hook::unified_evictable))
      p.unified_evictable = [](void* self, const cal_eviction_context* e,
                               const cal_task* const* c, size_t n,
                               uint8_t* victims) -> cal_vote {
        return guard<P, cal_vote>(CAL_ABSTAIN, [&] {
          S s = ssn_of<P>(self);
          std::vector<Task> cand;
          cand.reserve(n);
          for (size_t i = 0; i < n; ++i) cand.push_back(s.wrap(c[i]));
          std::vector<uint8_t> v(n, 0);
          cal_vote r = self_of<P>(self).unified_evictable(EvictionContext(e, s.resource_count()),
                                                          cand, v);
          std::copy(v.begin(), v.end(), victims);  // no memcpy: n may be 0, victims null
          return r;
        });
      };
    if constexpr (listed<P>(Hook::preemptive_many))
      p.preemptive_many = [](void* self, const cal_queue* q, const cal_task* const* c,
                             size_t n) -> int {
        return guard<P, int>(0, [&] {
          S s = ssn_of<P>(self);
          std::vector<Task> tasks;
          tasks.reserve(n);
          for (size_t i = 0; i < n; ++i) tasks.push_back(s.wrap(c[i]));
          return self_of<P>(self).preemptive_many(s.wrap(q), tasks) ? 1 : 0;
        });
      };
    if constexpr (listed<P>(Hook::hyper_node_order))
      p.hyper_node_order = [](void* self, const cal_job* j, const cal_hypernode* const* hs,
                              size_t n, double* scores, cal_status* st) -> cal_code {
        try {
          S s = ssn_of<P>(self);
          std::vector<HyperNode> cand;
          cand.reserve(n);
          for (size_t i = 0; i < n; ++i) cand.push_back(s.wrap(hs[i]));
          std::vector<double> v(n, 0.0);
          self_of<P>(self).hyper_node_order(s.wrap(j), cand, v);
          for (size_t i = 0; i < n; ++i) scores[i] += v[i];
          return CAL_SUCCESS;
        } catch (const std::exception& e) {
          set_reason(st, e.what());
        } catch (...) {
          set_reason(st, "unknown exception in hyper_node_order");
        }
        return CAL_ERROR;
      };
    if constexpr (listed<P>(Hook::sub_job_order))
      p.sub_job_order = [](void* self, const cal_sub_job* l, const cal_sub_job* r) -> int {
        return guard<P, int>(0, [&] {
          S s = ssn_of<P>(self);
          return self_of<P>(self).sub_job_order(s.wrap(l), s.wrap(r));
        });
      };
    if constexpr (listed<P>(Hook::sub_job_ready))
      p.sub_job_ready = [](void* self, const cal_sub_job* j) -> int {
        return guard<P, int>(0, [&] {
          return self_of<P>(self).sub_job_ready(ssn_of<P>(self).wrap(j)) ? 1 : 0;
        });
      };
    if constexpr (listed<P>(Hook::sub_job_pipelined))
      p.sub_job_pipelined = [](void* self, const cal_sub_job* j) -> cal_vote {
        return guard<P, cal_vote>(CAL_ABSTAIN, [&] {
          return self_of<P>(self).sub_job_pipelined(ssn_of<P>(self).wrap(j));
        });
      };
    if constexpr (listed<P>(Hook::sub_job_hyper_node_order))
      p.sub_job_hyper_node_order = [](void* self, const cal_sub_job* j,
                                      const cal_hypernode* const* hs, size_t n, double* scores,
                                      cal_status* st) -> cal_code {
        try {
          S s = ssn_of<P>(self);
          std::vector<HyperNode> cand;
          cand.reserve(n);
          for (size_t i = 0; i < n; ++i) cand.push_back(s.wrap(hs[i]));
          std::vector<double> v(n, 0.0);
          self_of<P>(self).sub_job_hyper_node_order(s.wrap(j), cand, v);
          for (size_t i = 0; i < n; ++i) scores[i] += v[i];
          return CAL_SUCCESS;
        } catch (const std::exception& e) {
          set_reason(st, e.what());
        } catch (...) {
          set_reason(st, "unknown exception in sub_job_hyper_node_order");
        }
        return CAL_ERROR;
      };
    if constexpr (listed<P>(Hook::victim_tasks))
      p.victim_tasks = [](void* self, const cal_task* const* c, size_t n, uint8_t* victims) {
        guard<P, int>(0, [&] {
          S s = ssn_of<P>(self);
          std::vector<Task> cand;
          for (size_t i = 0; i < n; ++i) cand.push_back(s.wrap(c[i]));
          std::vector<uint8_t> v(n, 0);
          self_of<P>(self).victim_tasks(cand, v);
          std::copy(v.begin(), v.end(), victims);  // no memcpy: n may be 0, victims null
          return 0;
        });
      };
    if constexpr (listed<P>(Hook::overused))
      p.overused = [](void* self, const cal_queue* q) -> int {
        return guard<P, int>(0, [&] {
          return self_of<P>(self).overused(ssn_of<P>(self).wrap(q)) ? 1 : 0;
        });
      };
    if constexpr (listed<P>(Hook::allocatable))
      p.allocatable = [](void* self, const cal_queue* q, const cal_task* t) -> int {
        return guard<P, int>(0, [&] {
          S s = ssn_of<P>(self);
          return self_of<P>(self).allocatable(s.wrap(q), s.wrap(t)) ? 1 : 0;
        });
      };
    if constexpr (listed<P>(Hook::preemptive))
      p.preemptive = [](void* self, const cal_queue* q, const cal_task* t) -> int {
        return guard<P, int>(0, [&] {
          S s = ssn_of<P>(self);
          return self_of<P>(self).preemptive(s.wrap(q), s.wrap(t)) ? 1 : 0;
        });
      };
    if constexpr (listed<P>(Hook::job_ready))
      p.job_ready = [](void* self, const cal_job* j) -> int {
        return guard<P, int>(0, [&] {
          return self_of<P>(self).job_ready(ssn_of<P>(self).wrap(j)) ? 1 : 0;
        });
      };
    if constexpr (listed<P>(Hook::job_starving))
      p.job_starving = [](void* self, const cal_job* j) -> int {
        return guard<P, int>(0, [&] {
          return self_of<P>(self).job_starving(ssn_of<P>(self).wrap(j)) ? 1 : 0;
        });
      };
    if constexpr (listed<P>(Hook::job_pipelined))
      p.job_pipelined = [](void* self, const cal_job* j) -> cal_vote {
        return guard<P, cal_vote>(CAL_ABSTAIN, [&] {
          return self_of<P>(self).job_pipelined(ssn_of<P>(self).wrap(j));
        });
      };
    if constexpr (listed<P>(Hook::job_enqueueable))
      p.job_enqueueable = [](void* self, const cal_job* j) -> cal_vote {
        return guard<P, cal_vote>(CAL_ABSTAIN, [&] {
          return self_of<P>(self).job_enqueueable(ssn_of<P>(self).wrap(j));
        });
      };
    if constexpr (listed<P>(Hook::job_valid))
      p.job_valid = [](void* self, const cal_job* j, cal_status* st) -> cal_code {
        Status r = guard<P, Status>(Status::error("exception in job_valid"), [&] {
          return self_of<P>(self).job_valid(ssn_of<P>(self).wrap(j));
        });
        if (r.code != CAL_SUCCESS) set_reason(st, r.c_str());
        return r.code;
      };
    if constexpr (listed<P>(Hook::job_enqueued))
      p.job_enqueued = [](void* self, const cal_job* j) {
        guard<P, int>(0, [&] {
          self_of<P>(self).job_enqueued(ssn_of<P>(self).wrap(j));
          return 0;
        });
      };
    if constexpr (listed<P>(Hook::on_allocate))
      p.on_allocate = [](void* self, const cal_task* t) {
        guard<P, int>(0, [&] {
          self_of<P>(self).on_allocate(ssn_of<P>(self).wrap(t));
          return 0;
        });
      };
    if constexpr (listed<P>(Hook::on_deallocate))
      p.on_deallocate = [](void* self, const cal_task* t) {
        guard<P, int>(0, [&] {
          self_of<P>(self).on_deallocate(ssn_of<P>(self).wrap(t));
          return 0;
        });
      };
    if constexpr (listed<P>(Hook::check_args))
      p.check_args = [](const cal_args* a, cal_status* st) -> cal_code {
        Status r = guard<P, Status>(Status::error("exception in check_args"),
                                    [&] { return P::check_args(args_of<P>(a)); });
        if (r.code != CAL_SUCCESS) set_reason(st, r.c_str());
        return r.code;
      };
    return p;
  }();
  return &d;
}

}  // namespace detail

// One cal_option entry, for a plugin that writes its table itself in a static options()
// returning std::vector<cal_option> (the form before kOptions; it still works, but then the
// key, type and default are written again where the option is read: prefer kOptions).
inline cal_option option(const char* name, cal_option_type type, const char* def,
                         const char* description) {
  return cal_option{sizeof(cal_option), name, type, def, description};
}

}  // namespace caldera::sdk

// Exports class P as this shared object's plugin. Use once per plugin, at namespace scope.
#define CALDERA_PLUGIN(P)                                                                   \
  CALDERA_PLUGIN_ENTRY(caldera_host_, caldera_abi_) {                                      \
    (void)caldera_abi_;                                                                     \
    caldera::sdk::host = caldera_host_;                                                     \
    return caldera::sdk::detail::descriptor<P>();                                           \
  }
