// predicates: node filters, as Volcano's pkg/scheduler/plugins/predicates/predicates.go
// registers them (AddPredicateFn), in the same order and with the same codes:
//   1. pod count        node's pods >= its allocatable pods   Unschedulable, and go on
//                       (pods evicted in this session do not count, as in Volcano)
//   2. NodeUnschedulable                                       UnschedulableAndUnresolvable
//   3. NodeAffinity     the pod's nodeSelector                 UnschedulableAndUnresolvable
//   4. TaintToleration  NoSchedule / NoExecute taints          UnschedulableAndUnresolvable
// Volcano stops at the first UnschedulableAndUnresolvable (ShouldAbort) and otherwise
// reports every failure: a full node that a filter refuses gives both reasons (one per
// line, as cal_status allows). Unschedulable keeps a node open to preemption, as Volcano's
// PredicateForPreemptAction does.
//
// Resources are not checked here, as in Volcano: its allocate and backfill check the fit
// before they call predicates, and so does the host (actions/placement.cpp). So a
// predicate call on a node that is merely full passes, which preempt's nominated-node
// check (taskEligibleToPreempt) relies on.
//
// Volcano's other filters (NodePorts, InterPodAffinity, NodeVolumeLimits, VolumeZone,
// PodTopologySpread, VolumeBinding, DRA) and its pre-predicates need pod fields our model
// does not carry (ports, pod affinity terms, volumes, claims, topology constraints); their
// switches are accepted so that Volcano configs load, and pass every pod. Required node
// affinity terms are not in the model either: NodeAffinity here is the nodeSelector part.
//
// Steps 2 to 4 read only what a session never changes; their answers are kept for the
// session per node and per set of selector and tolerations (see Static below), so that a
// node's label and taint look-ups are paid once per such set, not once per task.
//
// Only reads session state: node-parallel.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "caldera/sdk.hpp"
#include "predicates/predicates_math.hpp"

namespace {

namespace pr = caldera::predicates;
namespace sdk = caldera::sdk;

class Predicates {
 public:
  static constexpr const char* kName = "predicates";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "filters nodes: pod count, unschedulable nodes, node selector, taints and tolerations, "
      "GPU proportionality, resource fit (Volcano's predicates)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::pre_predicate,
      sdk::Hook::predicate, sdk::Hook::on_allocate, sdk::Hook::on_deallocate);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

// The tail of the description of a filter Volcano has and the model gives no input to.
#define CALDERA_PREDICATES_NO_INPUT                                                          \
  " Accepted so that Volcano configs load; no effect here: the pod model has no input for "   \
  "this filter, so every pod passes it."
  static constexpr sdk::Bool kNodeAffinity{
      "predicate.NodeAffinityEnable", true,
      "Check the pod's nodeSelector against the node's labels (Kubernetes NodeAffinity; the "
      "model carries no required affinity terms)."};
  static constexpr sdk::Bool kTaintToleration{
      "predicate.TaintTolerationEnable", true,
      "Refuse nodes with a NoSchedule or NoExecute taint the pod does not tolerate "
      "(Kubernetes TaintToleration)."};
// Options Volcano's predicates read before ed72c7c, when the proportional check was its own.
#define CALDERA_PREDICATES_MOVED                                                             \
  " Accepted so that older Volcano configs load; no effect: at Volcano ed72c7c the "         \
  "predicates plugin no longer reads it (the proportional check moved to the "               \
  "resource-strategy-fit plugin's 'proportional' arguments)."
  static constexpr sdk::Bool kProportional{
      "predicate.ProportionalEnable", false,
      "Keep cpu and memory idle in proportion to a node's idle scalar resources."
      CALDERA_PREDICATES_MOVED};
  static constexpr sdk::String kResources{
      "predicate.resources", sdk::no_default,
      "Scalar resources for predicate.ProportionalEnable." CALDERA_PREDICATES_MOVED};
  static constexpr sdk::Family<sdk::Double> kResourceRates{
      "predicate.resources.*",
      "predicate.resources.<name>.cpu and .memory for predicate.ProportionalEnable."
      CALDERA_PREDICATES_MOVED};
#undef CALDERA_PREDICATES_MOVED
  static constexpr sdk::Bool kNodePorts{
      "predicate.NodePortsEnable", true,
      "Volcano's NodePorts filter." CALDERA_PREDICATES_NO_INPUT};
  static constexpr sdk::Bool kPodAffinity{
      "predicate.PodAffinityEnable", true,
      "Volcano's InterPodAffinity filter." CALDERA_PREDICATES_NO_INPUT};
  static constexpr sdk::Bool kNodeVolumeLimits{
      "predicate.NodeVolumeLimitsEnable", true,
      "Volcano's NodeVolumeLimits (CSI) filter." CALDERA_PREDICATES_NO_INPUT};
  static constexpr sdk::Bool kVolumeZone{
      "predicate.VolumeZoneEnable", true,
      "Volcano's VolumeZone filter." CALDERA_PREDICATES_NO_INPUT};
  static constexpr sdk::Bool kPodTopologySpread{
      "predicate.PodTopologySpreadEnable", true,
      "Volcano's PodTopologySpread filter." CALDERA_PREDICATES_NO_INPUT};
  static constexpr sdk::Bool kVolumeBinding{
      "predicate.VolumeBindingEnable", true,
      "Volcano's VolumeBinding filter." CALDERA_PREDICATES_NO_INPUT};
  static constexpr sdk::Bool kDynamicResourceAllocation{
      "predicate.DynamicResourceAllocationEnable", false,
      "Volcano's DynamicResourceAllocation filter." CALDERA_PREDICATES_NO_INPUT};
#undef CALDERA_PREDICATES_NO_INPUT
  static constexpr sdk::Bool kCache{
      "predicate.CacheEnable", false,
      "Volcano's equivalence cache of filter results. Accepted; no effect here: the answers "
      "of the filters on what a session never changes (node unschedulable, selector, taints) "
      "are always kept per selector and tolerations for the session, and give the same "
      "answers as without."};
  static constexpr sdk::Bool kGpuSharing{
      "predicate.GPUSharingEnable", false,
      "Volcano's older GPU-sharing switch. Accepted; no effect here: GPU sharing is the "
      "deviceshare plugin's job."};
  static constexpr sdk::Bool kGpuNumber{
      "predicate.GPUNumberEnable", false,
      "Volcano's older GPU-number switch. Accepted; no effect here: GPU placement is the "
      "deviceshare plugin's job."};
  static constexpr sdk::Int kVolumeBindingWeight{
      "volumebinding.weight", 1,
      "Weight of Volcano's VolumeBinding score. Accepted; no effect here: the model has no "
      "volumes, so the score is 0 on every node."};
  static constexpr sdk::Int kBindTimeout{
      "volumebinding.bindTimeoutSeconds", 600,
      "Volcano's VolumeBinding bind timeout. Accepted; no effect here (no volumes)."};
  static constexpr auto kOptions = sdk::options(
      kNodeAffinity, kTaintToleration, kProportional, kResources, kResourceRates, kNodePorts,
      kPodAffinity, kNodeVolumeLimits, kVolumeZone, kPodTopologySpread, kVolumeBinding,
      kDynamicResourceAllocation, kCache, kGpuSharing, kGpuNumber, kVolumeBindingWeight,
      kBindTimeout);

  Predicates(sdk::Session s, const sdk::Args& a)
      : node_affinity_(a.get(kNodeAffinity)),
        taint_toleration_(a.get(kTaintToleration)),
        // Kubernetes filters that read what their PreFilter left in the task's cycle state.
        needs_cycle_state_(a.get(kNodePorts) || a.get(kPodAffinity) || a.get(kVolumeZone) ||
                           a.get(kNodeVolumeLimits) || a.get(kPodTopologySpread) ||
                           a.get(kVolumeBinding)),
        node_count_(s.node_count()) {}

  // What predicate() needs of a task, read once per task: pre_predicate prepares the task
  // the next search is for (the host calls it first, on the scheduling thread), so the
  // node-parallel predicate calls of that search only read it.
  sdk::Status pre_predicate(sdk::Task t) {
    prepared_ = TaskView::of(t);
    prepared_.known = known_for(prepared_);
    prefiltered_.insert(t.handle());
    return sdk::Status::ok();
  }

  sdk::Status predicate(sdk::Task t, sdk::Node n) const {
    if (prepared_.task == t.handle()) return check(prepared_, n);
    // Asked before this session's pre-predicate for the task (preempt's nominated-node
    // check does that): Volcano's Kubernetes filters find no PreFilter data in the task's
    // cycle state and fail the node, with a code that neither passes nor rules it out.
    if (needs_cycle_state_ && !prefiltered_.count(t.handle()))
      return sdk::Status::unschedulable(
          "reading \"PreFilterNodePorts\" from cycleState: not found");
    return check(TaskView::of(t), n);
  }

 // Volcano's k8s NodeInfo loses a task's pod when the task is deallocated (evicted) in
  // the session and gets it back on allocation; the host keeps an evicted task on its node
  // (Releasing) until the session ends. Only an evicted task stays on a node after a
  // deallocation, so this set in effect holds this session's evictions. Changed only by
  // these events, which the host never runs during node-parallel predicates.
  void on_deallocate(sdk::Task t) { evicted_.insert(t.handle()); }
  void on_allocate(sdk::Task t) { evicted_.erase(t.handle()); }

 private:
  // The answers of the checks that read only what a session never changes (the node's
  // unschedulable flag, labels and taints; the task's selector and tolerations), by node
  // index, for every task with the same selector and tolerations: Volcano's
  // predicate.CacheEnable keys its cache by pod template the same way. Most pending tasks
  // of a cluster share a handful of such sets, so after the first search a node's label
  // and taint look-ups become one byte. kUnknown until a search has visited the node.
  // Bytes are written by the node-parallel predicate calls of one search, each node by one
  // call (distinct bytes: no race); the table itself is made in pre_predicate, on the
  // scheduling thread.
  // kTaint: one of the node's NoSchedule / NoExecute taints blocks (Kubernetes 1.36's
  // reason does not say which).
  enum Static : uint8_t { kUnknown = 0, kPasses = 1, kNodeUnschedulable = 2, kSelector = 3,
                          kTaint = 4 };

  // A task's tolerations and node selector, as views of host strings (valid for the
  // session).
  struct TaskView {
    const cal_task* task = nullptr;
    std::vector<pr::Toleration> tolerations;
    std::vector<std::pair<std::string_view, std::string_view>> selector;
    uint8_t* known = nullptr;  // the static answers of tasks like this one, or null

    static TaskView of(sdk::Task t) {
      TaskView v;
      v.task = t.handle();
      for (const cal_taint& tol : t.tolerations())
        v.tolerations.push_back({sdk::sv(tol.key), sdk::sv(tol.op), sdk::sv(tol.value), sdk::sv(tol.effect)});
      for (size_t i = 0; i < t.selector_count(); ++i)
        v.selector.emplace_back(t.selector_key(i), t.selector_value(i));
      return v;
    }
  };

  // The table of tasks with t's selector and tolerations (made on first use), or null on a
  // host without node_index.
  uint8_t* known_for(const TaskView& t) {
    if (!CAL_HOST_HAS(sdk::host, node_index)) return nullptr;
    std::string key;
    for (const auto& [k, v] : t.selector) key.append(k).append(1, '\x1f').append(v).append(1, '\x1e');
    key.append(1, '\x1d');
    for (const pr::Toleration& tol : t.tolerations)
      key.append(tol.key).append(1, '\x1f').append(tol.op).append(1, '\x1f').append(tol.value)
          .append(1, '\x1f').append(tol.effect).append(1, '\x1e');
    std::vector<uint8_t>& table = known_[key];
    if (table.empty()) table.assign(node_count_, kUnknown);
    return table.data();
  }

  // The checks on what the session never changes, in Volcano's order.
  uint8_t static_answer(const TaskView& t, sdk::Node n) const {
    if (pr::unschedulable_blocks(n.unschedulable(), t.tolerations)) return kNodeUnschedulable;
    if (node_affinity_ && !t.selector.empty() &&
        // Selector keys are views of whole host strings, so data() is NUL-terminated.
        !pr::selector_matches(t.selector, [&](std::string_view k) { return n.label(k.data()); }))
      return kSelector;
    if (taint_toleration_ && has_blocking_taint(t, n)) return kTaint;
    return kPasses;
  }

  // Whether some taint of the node is one none of t's tolerations tolerates.
  static bool has_blocking_taint(const TaskView& t, sdk::Node n) {
    const size_t count = n.taint_count();
    for (size_t i = 0; i < count; ++i) {
      const cal_taint raw = n.taint(i);
      if (pr::blocks(pr::Taint{sdk::sv(raw.key), sdk::sv(raw.value), sdk::sv(raw.effect)},
                     t.tolerations))
        return true;
    }
    return false;
  }

  sdk::Status check(const TaskView& t, sdk::Node n) const {
    uint8_t answer = kUnknown;
    if (t.known != nullptr) {
      uint8_t& slot = t.known[n.index()];
      if (slot == kUnknown) slot = static_answer(t, n);
      answer = slot;
    } else {
      answer = static_answer(t, n);
    }
    const bool too_many_pods = n.pods_max() <= pods_on(n);
    if (answer != kPasses) {
      // Volcano records the pod count first and goes on, so a full node that a filter
      // then refuses gives both reasons (one per line, see cal_status).
      const char* why = answer == kNodeUnschedulable ? pr::kUnschedulable
                        : answer == kSelector        ? pr::kNodeSelectorMismatch
                                                     : pr::kUntoleratedTaint;
      if (too_many_pods) return sdk::Status::unresolvable({pr::kPodNumberExceeded, "\n", why});
      return sdk::Status::unresolvable(why);
    }
    if (too_many_pods) return sdk::Status::unschedulable(pr::kPodNumberExceeded);
    return sdk::Status::ok();
  }

  // The pods Volcano's pod-count check counts on the node (see on_deallocate).
  int32_t pods_on(sdk::Node n) const {
    int32_t pods = n.pods_used();
    if (pods < n.pods_max() || evicted_.empty()) return pods;  // the common case: no walk
    for (size_t i = 0; i < n.task_count(); ++i)
      if (evicted_.count(n.task(i).handle())) --pods;
    return pods;
  }

  bool node_affinity_;
  bool taint_toleration_;
  bool needs_cycle_state_;
  std::unordered_set<const cal_task*> prefiltered_;  // pre_predicate ran for them
  std::unordered_set<const cal_task*> evicted_;
  size_t node_count_;
  std::unordered_map<std::string, std::vector<uint8_t>> known_;  // by selector + tolerations
  TaskView prepared_;
};

}  // namespace

CALDERA_PLUGIN(Predicates)
