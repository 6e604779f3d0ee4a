// predicates: node filters, as Volcano's pkg/scheduler/plugins/predicates/predicates.go
// registers them (AddPredicateFn), in the same order and with the same codes:
//   1. pod count         node's pods >= its allocatable pods   Unschedulable, and go on
//                        (the pods of Kubernetes' view of the node, as in Volcano)
//   2. NodeUnschedulable                                        UnschedulableAndUnresolvable
//   3. NodeAffinity      nodeSelector and required node affinity terms
//                                                               UnschedulableAndUnresolvable
//   4. TaintToleration   NoSchedule / NoExecute taints          UnschedulableAndUnresolvable
//   5. NodePorts         the pod's host ports are free           Unschedulable
//   6. InterPodAffinity  required pod affinity (Unresolvable), anti-affinity and existing
//                        pods' anti-affinity (Unschedulable)     (plugins/builtin/kube/)
//   7. PodTopologySpread DoNotSchedule constraints              Unschedulable; a node
//                        without the topology label: UnschedulableAndUnresolvable
// Volcano stops at the first UnschedulableAndUnresolvable (ShouldAbort) and otherwise
// reports every failure: a full node that a filter refuses gives both reasons (one per
// line, as cal_status allows). Unschedulable keeps a node open to preemption, as Volcano's
// PredicateForPreemptAction does.
//
// Steps 5 to 7 read what their PreFilter computed when the task was last pre-predicated
// (Volcano's cycle state): pre_predicate builds it, over Kubernetes' view of every node's
// pods (node_pod_at), so pods placed earlier in the session count. A PreFilter that has
// nothing to check for the pod (Kubernetes' Skip) switches its filter off for the task for
// the rest of the session, as Volcano's skip set is never emptied.
//
// Resources are not checked here, as in Volcano: its allocate and backfill check the fit
// before they call predicates, and so does the host (actions/placement.cpp). So a
// predicate call on a node that is merely full passes, which preempt's nominated-node
// check (taskEligibleToPreempt) relies on.
//
// Volcano's volume filters (NodeVolumeLimits, VolumeZone, VolumeBinding) and DRA read pod
// volumes and claims, which the model does not carry yet: their switches are accepted so
// that Volcano configs load, and pass every pod.
//
// Steps 2 to 4 read only what a session never changes; their answers are kept for the
// session per node and per set of selector, node affinity and tolerations (see Static
// below), so that a node's label and taint look-ups are paid once per such set, not once
// per task.
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
#include "kube/node_ports.hpp"
#include "kube/pod_fit.hpp"
#include "kube/pod_affinity.hpp"
#include "kube/selectors.hpp"
#include "kube/topology_spread.hpp"
#include "predicates/predicates_math.hpp"

namespace {

namespace kube = caldera::kube;
namespace pr = caldera::predicates;
namespace sdk = caldera::sdk;

class Predicates {
 public:
  static constexpr const char* kName = "predicates";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "filters nodes: pod count, unschedulable nodes, node selector and affinity, taints and "
      "tolerations, host ports, inter-pod affinity, topology spread (Volcano's predicates)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::pre_predicate,
      sdk::Hook::predicate);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

// The tail of the description of a filter Volcano has and the model gives no input to.
#define CALDERA_PREDICATES_NO_INPUT                                                          \
  " Accepted so that Volcano configs load; no effect yet: the pod model carries no volumes "  \
  "or resource claims, so every pod passes it."
  static constexpr sdk::Bool kNodeAffinity{
      "predicate.NodeAffinityEnable", true,
      "Check the pod's nodeSelector and required node affinity terms against the node's "
      "labels and name (Kubernetes NodeAffinity)."};
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
      "Refuse nodes where one of the pod's host ports (protocol, address) is taken "
      "(Kubernetes NodePorts)."};
  static constexpr sdk::Bool kPodAffinity{
      "predicate.PodAffinityEnable", true,
      "Honour required pod affinity and anti-affinity, the pod's and that of the pods "
      "already placed (Kubernetes InterPodAffinity)."};
  static constexpr sdk::Bool kNodeVolumeLimits{
      "predicate.NodeVolumeLimitsEnable", true,
      "Volcano's NodeVolumeLimits (CSI) filter." CALDERA_PREDICATES_NO_INPUT};
  static constexpr sdk::Bool kVolumeZone{
      "predicate.VolumeZoneEnable", true,
      "Volcano's VolumeZone filter." CALDERA_PREDICATES_NO_INPUT};
  static constexpr sdk::Bool kPodTopologySpread{
      "predicate.PodTopologySpreadEnable", true,
      "Honour the pod's DoNotSchedule topology spread constraints (Kubernetes "
      "PodTopologySpread)."};
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
      "of the filters on what a session never changes (node unschedulable, selector and "
      "node affinity, taints) are always kept per such set for the session, and give the "
      "same answers as without."};
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
      : session_(s),
        node_affinity_(a.get(kNodeAffinity)),
        taint_toleration_(a.get(kTaintToleration)),
        node_ports_(a.get(kNodePorts)),
        pod_affinity_(a.get(kPodAffinity)),
        topology_spread_(a.get(kPodTopologySpread)),
        // Kubernetes filters that read what their PreFilter left in the task's cycle state.
        needs_cycle_state_(a.get(kNodePorts) || a.get(kPodAffinity) || a.get(kVolumeZone) ||
                           a.get(kNodeVolumeLimits) || a.get(kPodTopologySpread) ||
                           a.get(kVolumeBinding)),
        node_count_(s.node_count()),
        affinity_nodes_(a.get(kPodAffinity) ? kube::AffinityNodes::at_open(s)
                                            : kube::AffinityNodes{}) {}

  // What predicate() needs of a task, read once per task: pre_predicate prepares the task
  // the next search is for (the host calls it first, on the scheduling thread), so the
  // node-parallel predicate calls of that search only read it.
  sdk::Status pre_predicate(sdk::Task t) {
    prepared_ = TaskView::of(t);
    prepared_.known = known_for(prepared_);
    prefiltered_.insert(t.handle());
    prepared_.kube = &prefilter(t, prepared_.fit);
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
    TaskView v = TaskView::of(t);
    if (auto it = kube_.find(t.handle()); it != kube_.end()) v.kube = &it->second;
    return check(v, n);
  }


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

  // What the PreFilters of steps 5 to 7 left for a task (Volcano's cycle state): kept per
  // task for the session, rebuilt by each pre_predicate. A filter whose PreFilter skipped
  // once stays off for the task (`skipped`).
  struct KubeState {
    bool ports = false, affinity = false, spread = false;
    uint8_t skipped = 0;  // kSkip* bits
    kube::PodAffinityFilter affinity_filter;
    kube::SpreadFilter spread_filter;
  };
  static constexpr uint8_t kSkipPorts = 1, kSkipAffinity = 2, kSkipSpread = 4;

  // A task's tolerations and node selector, as views of host strings (valid for the
  // session).
  struct TaskView {
    const cal_task* task = nullptr;
    kube::PodFit fit;           // selector, required node affinity, tolerations
    uint8_t* known = nullptr;   // the static answers of tasks like this one, or null
    const KubeState* kube = nullptr;  // what steps 5 to 7 read; null before pre_predicate

    static TaskView of(sdk::Task t) {
      TaskView v;
      v.task = t.handle();
      v.fit = kube::PodFit::of(t);
      return v;
    }
  };

  // The table of tasks with t's selector and tolerations (made on first use), or null on a
  // host without node_index.
  uint8_t* known_for(const TaskView& t) {
    if (!CAL_HOST_HAS(sdk::host, node_index)) return nullptr;
    std::string key;
    for (const auto& [k, v] : t.fit.selector) key.append(k).append(1, '\x1f').append(v).append(1, '\x1e');
    key.append(1, '\x1d');
    // Pods with other required node affinity terms answer differently; the terms are the
    // pod's own record (shared by pods read from one template), so its address keys them.
    const cal_pod_constraints* c = t.fit.constraints;
    if (c != nullptr && c->has_required_node_affinity)
      key.append(std::to_string(reinterpret_cast<uintptr_t>(c)));
    key.append(1, '\x1d');
    for (const pr::Toleration& tol : t.fit.tolerations)
      key.append(tol.key).append(1, '\x1f').append(tol.op).append(1, '\x1f').append(tol.value)
          .append(1, '\x1f').append(tol.effect).append(1, '\x1e');
    std::vector<uint8_t>& table = known_[key];
    if (table.empty()) table.assign(node_count_, kUnknown);
    return table.data();
  }

  // The checks on what the session never changes, in Volcano's order.
  uint8_t static_answer(const TaskView& t, sdk::Node n) const {
    if (pr::unschedulable_blocks(n.unschedulable(), t.fit.tolerations)) return kNodeUnschedulable;
    if (node_affinity_ && !t.fit.node_affinity_matches(n)) return kSelector;
    if (taint_toleration_ && t.fit.untolerated_taint(n)) return kTaint;
    return kPasses;
  }


  sdk::Status check(const TaskView& t, sdk::Node n) const {
    const KubeState* k = t.kube;
    uint8_t answer = kUnknown;
    if (t.known != nullptr) {
      uint8_t& slot = t.known[n.index()];
      if (slot == kUnknown) slot = static_answer(t, n);
      answer = slot;
    } else {
      answer = static_answer(t, n);
    }
    // Volcano counts the pods of its Kubernetes view of the node (len(NodeInfo.GetPods())):
    // a task evicted in the session leaves it, and an undone eviction brings the pod back
    // only for a task pre-predicated in the session (the host keeps that view).
    const bool too_many_pods = static_cast<size_t>(n.pods_max()) <= n.pod_count();
    if (answer != kPasses) {
      // Volcano records the pod count first and goes on, so a full node that a filter
      // then refuses gives both reasons (one per line, see cal_status).
      const char* why = answer == kNodeUnschedulable ? pr::kUnschedulable
                        : answer == kSelector        ? pr::kNodeSelectorMismatch
                                                     : pr::kUntoleratedTaint;
      if (too_many_pods) return sdk::Status::unresolvable({pr::kPodNumberExceeded, "\n", why});
      return sdk::Status::unresolvable(why);
    }
    // The filters with a PreFilter, in Volcano's order; each failure is reported, the
    // first UnschedulableAndUnresolvable ends the check.
    const char* reasons[4];
    size_t count = 0;
    if (too_many_pods) reasons[count++] = pr::kPodNumberExceeded;
    bool unresolvable = false;
    if (k != nullptr) {
      if (k->ports && !kube::ports_fit(t.fit.constraints, n)) reasons[count++] = kube::kNodePortsNotFree;
      if (k->affinity)
        if (const char* why = k->affinity_filter.filter(n, &unresolvable)) reasons[count++] = why;
      if (!unresolvable && k->spread)
        if (const char* why = k->spread_filter.filter(n, &unresolvable)) reasons[count++] = why;
    }
    if (count == 0) return sdk::Status::ok();
    std::string text;
    for (size_t i = 0; i < count; ++i) text.append(i ? "\n" : "").append(reasons[i]);
    return unresolvable ? sdk::Status::unresolvable(text) : sdk::Status::unschedulable(text);
  }


  // Runs the PreFilters of steps 5 to 7 for t; returns the task's state (its address
  // stays put: unordered_map keeps its elements where they are).
  const KubeState& prefilter(sdk::Task t, const kube::PodFit& fit) {
    const sdk::Pod pod = t.pod();
    KubeState& k = kube_[t.handle()];
    if (node_ports_ && (fit.constraints == nullptr || fit.constraints->host_port_count == 0))
      k.skipped |= kSkipPorts;
    k.ports = node_ports_ && !(k.skipped & kSkipPorts);
    if (pod_affinity_ && !k.affinity_filter.prefilter(session_, affinity_nodes_, pod))
      k.skipped |= kSkipAffinity;
    k.affinity = pod_affinity_ && !(k.skipped & kSkipAffinity);
    if (topology_spread_ && !k.spread_filter.prefilter(session_, pod, fit))
      k.skipped |= kSkipSpread;
    k.spread = topology_spread_ && !(k.skipped & kSkipSpread);
    return k;
  }


  sdk::Session session_;
  bool node_affinity_;
  bool taint_toleration_;
  bool node_ports_;
  bool pod_affinity_;
  bool topology_spread_;
  bool needs_cycle_state_;
  std::unordered_set<const cal_task*> prefiltered_;  // pre_predicate ran for them
  size_t node_count_;
  std::unordered_map<std::string, std::vector<uint8_t>> known_;  // by selector + tolerations
  TaskView prepared_;
  kube::AffinityNodes affinity_nodes_;  // the snapshot's lists at open (kube/pod_affinity.hpp)
  std::unordered_map<const cal_task*, KubeState> kube_;
};

}  // namespace

CALDERA_PLUGIN(Predicates)
