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
//   7. NodeVolumeLimits  a claim of the pod's is missing         UnschedulableAndUnresolvable
//                        (no CSINode limits are modelled: kube/volumes.hpp)
//   8. VolumeZone        the zone / region labels of the pod's bound PVs
//                                                               UnschedulableAndUnresolvable
//   9. PodTopologySpread DoNotSchedule constraints              Unschedulable; a node
//                        without the topology label: UnschedulableAndUnresolvable
//  10. VolumeBinding     bound claims' PV node affinity, a PV or a provisioner for each
//                        unbound WaitForFirstConsumer claim       UnschedulableAndUnresolvable
// Volcano stops at the first UnschedulableAndUnresolvable (ShouldAbort) and otherwise
// reports every failure: a full node that a filter refuses gives both reasons (one per
// line, as cal_status allows). Unschedulable keeps a node open to preemption, as Volcano's
// PredicateForPreemptAction does.
//
// Steps 5 to 10 read what their PreFilter computed when the task was last pre-predicated
// (Volcano's cycle state): pre_predicate builds it, over Kubernetes' view of every node's
// pods (node_pod_at), so pods placed earlier in the session count. A PreFilter that has
// nothing to check for the pod (Kubernetes' Skip) switches its filter off for the task for
// the rest of the session, as Volcano's skip set is never emptied. A PreFilter that fails
// (a missing claim, an unbound Immediate claim) fails the task on every node, with
// Volcano's "plugin NAME pre-predicates failed ..." and no later PreFilter run.
//
// VolumeBinding's Reserve runs in on_allocate: the PVs it matched and the claims it
// provisions on the task's node become the task's volume decisions (task_assume_volume),
// which the host writes with the bind and drops when the placement is undone.
//
// Resources are not checked here, as in Volcano: its allocate and backfill check the fit
// before they call predicates, and so does the host (actions/placement.cpp). So a
// predicate call on a node that is merely full passes, which preempt's nominated-node
// check (taskEligibleToPreempt) relies on.
//
// DRA reads resource claims, which the model does not carry: a pod with any is kept out by
// the Kubernetes backend (api_objects.cpp), so the switch changes nothing for the others.
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
#include "kube/volumes.hpp"
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
      "tolerations, host ports, inter-pod affinity, volumes, topology spread (Volcano's "
      "predicates); binds volumes";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::pre_predicate,
      sdk::Hook::predicate, sdk::Hook::on_allocate, sdk::Hook::on_deallocate);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

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
      "Refuse every node to a pod one of whose claims does not exist (Kubernetes "
      "NodeVolumeLimits, CSI). CSINode attach limits are not modelled: no node has one."};
  static constexpr sdk::Bool kVolumeZone{
      "predicate.VolumeZoneEnable", true,
      "Refuse nodes outside the zone or region of the PVs the pod's claims are bound to "
      "(Kubernetes VolumeZone)."};
  static constexpr sdk::Bool kPodTopologySpread{
      "predicate.PodTopologySpreadEnable", true,
      "Honour the pod's DoNotSchedule topology spread constraints (Kubernetes "
      "PodTopologySpread)."};
  static constexpr sdk::Bool kVolumeBinding{
      "predicate.VolumeBindingEnable", true,
      "Place a pod only where its bound claims' PVs reach and where each unbound "
      "WaitForFirstConsumer claim finds a PV or a provisioner, and bind those volumes with "
      "the pod (Kubernetes VolumeBinding)."};
  static constexpr sdk::Bool kDynamicResourceAllocation{
      "predicate.DynamicResourceAllocationEnable", false,
      "Volcano's DynamicResourceAllocation filter, which only pods with resource claims "
      "(spec.resourceClaims) meet. Caldera does not model resource claims: whatever this "
      "says, such a pod is not scheduled, with a warning naming it (Kubernetes backend), "
      "and every other pod passes, as under Volcano."};
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
      "Weight of VolumeBinding's score. Accepted; no effect, as in Volcano: Kubernetes scores "
      "volumes only under the StorageCapacityScoring feature gate, which Volcano leaves off."};
  static constexpr sdk::Int kBindTimeout{
      "volumebinding.bindTimeoutSeconds", 600,
      "How long Volcano's bind waits for the PV controller to complete the volume bindings "
      "it wrote before it binds the pod. Read and checked, not used: Caldera binds the pod "
      "once its volume writes are accepted and leaves that wait to the kubelet (the "
      "embedded cluster completes the bindings at once)."};
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
        volume_limits_(a.get(kNodeVolumeLimits)),
        volume_zone_(a.get(kVolumeZone)),
        volume_binding_(a.get(kVolumeBinding)),
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
    std::string failed;
    prepared_.kube = &prefilter(t, prepared_.fit, &failed);
    if (!failed.empty()) return sdk::Status::unresolvable(failed);
    return sdk::Status::ok();
  }

  // VolumeBinding's Reserve, as Volcano calls it: on the node the pod's spec names, which
  // Volcano's Allocate sets and its Pipeline does not (statement.go), so a task pipelined
  // without an earlier allocation in the session reserves nothing; and only when the
  // filter passed on that node since the task's last pre-predicate (Volcano reads the
  // filter's answer for the node from the cycle state, and finds none otherwise).
  void on_allocate(sdk::Task t) {
    // The pod joins the node's view (the host adds it back after an undone eviction only
    // for a task pre-predicated in the session: Volcano's Reserve fails otherwise), and
    // with it its ports.
    if (t.node()) placed_on_[t.handle()] = t.node().index();
    if (prefiltered_.count(t.handle())) {
      if (node_ports_)
        if (auto r = removed_ports_.find(t.node().index()); r != removed_ports_.end())
          r->second.drop(t.pod().constraints());
      if (label_index_.built()) label_index_.add(t.pod(), t.node().index());
    }
    auto it = kube_.find(t.handle());
    if (it == kube_.end() || !it->second.binding) return;
    KubeState& k = it->second;
    if (t.status() == CAL_TASK_ALLOCATED) k.spec_node = t.node().index() + 1;
    if (k.spec_node == 0 || !k.volume_ok[k.spec_node - 1]) return;
    k.binding_filter.reserve(t, session_.node(k.spec_node - 1));
  }

  // The pod leaves the node's view, and its ports leave the node's set (kube/node_ports.hpp).
  // An undone allocation comes after the host took the task off its node, so the node is
  // the one on_allocate saw.
  void on_deallocate(sdk::Task t) {
    size_t node = 0;
    if (t.node()) {
      node = t.node().index();
    } else if (auto it = placed_on_.find(t.handle()); it != placed_on_.end()) {
      node = it->second;
    } else {
      return;
    }
    placed_on_.erase(t.handle());
    if (label_index_.built()) label_index_.remove(t.pod());
    if (!node_ports_) return;
    const cal_pod_constraints* c = t.pod().constraints();
    if (c != nullptr && c->host_port_count > 0) removed_ports_[node].add(c);
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
    bool volume_limits = false, zone = false, binding = false;
    uint8_t skipped = 0;  // kSkip* bits
    kube::PodAffinityFilter affinity_filter;
    kube::SpreadFilter spread_filter;
    std::string missing_claim;  // NodeVolumeLimits: why every node fails, or ""
    kube::VolumeZoneFilter zone_filter;
    kube::VolumeBindingFilter binding_filter;
    // By node index: VolumeBinding's filter passed there since the last pre-predicate.
    // Written by the node-parallel predicate calls, each node's byte by one call.
    mutable std::vector<uint8_t> volume_ok;
    size_t spec_node = 0;  // 1 + the index of the node the pod's spec names; 0: none
  };
  static constexpr uint8_t kSkipPorts = 1, kSkipAffinity = 2, kSkipSpread = 4,
                           kSkipVolumeLimits = 8, kSkipZone = 16, kSkipBinding = 32;

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
    std::vector<uint8_t>& table = known_[fit_key(t.fit)];
    if (table.empty()) table.assign(node_count_, kUnknown);
    return table.data();
  }

  // What tells tasks apart for the checks on what a session never changes: the selector,
  // the required node affinity terms and the tolerations.
  static std::string fit_key(const kube::PodFit& fit) {
    std::string key;
    for (const auto& [k, v] : fit.selector) key.append(k).append(1, '\x1f').append(v).append(1, '\x1e');
    key.append(1, '\x1d');
    // Pods with other required node affinity terms answer differently; the terms are the
    // pod's own record (shared by pods read from one template), so its address keys them.
    const cal_pod_constraints* c = fit.constraints;
    if (c != nullptr && c->has_required_node_affinity)
      key.append(std::to_string(reinterpret_cast<uintptr_t>(c)));
    key.append(1, '\x1d');
    for (const pr::Toleration& tol : fit.tolerations)
      key.append(tol.key).append(1, '\x1f').append(tol.op).append(1, '\x1f').append(tol.value)
          .append(1, '\x1f').append(tol.effect).append(1, '\x1e');
    return key;
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
    const size_t node = n.index();
    uint8_t answer = kUnknown;
    if (t.known != nullptr) {
      uint8_t& slot = t.known[node];
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
    const char* reasons[6];
    std::string volume_reason;  // VolumeBinding's, which joins several
    size_t count = 0;
    if (too_many_pods) reasons[count++] = pr::kPodNumberExceeded;
    bool unresolvable = false;
    if (k != nullptr) {
      if (k->ports && !kube::ports_fit(t.fit.constraints, n, removed_ports(n)))
        reasons[count++] = kube::kNodePortsNotFree;
      if (k->affinity)
        if (const char* why = k->affinity_filter.filter(node, &unresolvable))
          reasons[count++] = why;
      // NodeVolumeLimits and VolumeZone fail as UnschedulableAndUnresolvable, which ends
      // the check.
      if (!unresolvable && k->volume_limits && !k->missing_claim.empty()) {
        reasons[count++] = k->missing_claim.c_str();
        unresolvable = true;
      }
      if (!unresolvable && k->zone && !k->zone_filter.fits(n)) {
        reasons[count++] = kube::kVolumeZoneConflict;
        unresolvable = true;
      }
      if (!unresolvable && k->spread)
        if (const char* why = k->spread_filter.filter(node, &unresolvable)) reasons[count++] = why;
      if (!unresolvable && k->binding) {
        volume_reason = k->binding_filter.filter(n, nullptr);
        if (!volume_reason.empty()) {
          reasons[count++] = volume_reason.c_str();
          unresolvable = true;
        } else {
          k->volume_ok[node] = 1;  // stored even after Unschedulable reasons, as Volcano's
        }
      }
    }
    if (count == 0) return sdk::Status::ok();
    std::string text;
    for (size_t i = 0; i < count; ++i) text.append(i ? "\n" : "").append(reasons[i]);
    return unresolvable ? sdk::Status::unresolvable(text) : sdk::Status::unschedulable(text);
  }


  // Runs the PreFilters of steps 5 to 10 for t, in Volcano's order; returns the task's
  // state (its address stays put: unordered_map keeps its elements where they are). A
  // PreFilter that fails sets *failed to Volcano's message and ends the run.
  const KubeState& prefilter(sdk::Task t, const kube::PodFit& fit, std::string* failed) {
    const sdk::Pod pod = t.pod();
    KubeState& k = kube_[t.handle()];
    const auto fail = [&](const char* plugin, const std::string& why) -> const KubeState& {
      *failed = std::string("plugin ") + plugin + " pre-predicates failed " + why;
      return k;
    };
    if (node_ports_ && (fit.constraints == nullptr || fit.constraints->host_port_count == 0))
      k.skipped |= kSkipPorts;
    k.ports = node_ports_ && !(k.skipped & kSkipPorts);
    if (pod_affinity_ &&
        !k.affinity_filter.prefilter(session_, affinity_nodes_, pod, label_columns_, &label_index_))
      k.skipped |= kSkipAffinity;
    k.affinity = pod_affinity_ && !(k.skipped & kSkipAffinity);
    // NodeVolumeLimits: skipped for a pod without claims; its filter fails every node for
    // a missing claim.
    const cal_string_list claims = kube::pod_claims(pod);
    if (volume_limits_ && claims.count == 0) k.skipped |= kSkipVolumeLimits;
    k.volume_limits = volume_limits_ && !(k.skipped & kSkipVolumeLimits);
    k.missing_claim.clear();
    if (k.volume_limits) {
      const std::string ns(pod.ns());
      for (size_t i = 0; i < claims.count && k.missing_claim.empty(); ++i)
        if (session_.claim(ns.c_str(), claims.items[i]) == nullptr)
          k.missing_claim = "looking up PVC " + ns + "/" + claims.items[i] + ": " +
                            kube::not_found("persistentvolumeclaim", claims.items[i]);
    }
    if (volume_zone_) {
      bool run = false;
      const std::string why = k.zone_filter.prefilter(session_, pod, &run);
      if (!why.empty()) return fail("VolumeZone", why);
      if (!run) k.skipped |= kSkipZone;
    }
    k.zone = volume_zone_ && !(k.skipped & kSkipZone);
    if (topology_spread_ &&
        !k.spread_filter.prefilter(session_, pod, fit, label_columns_, &label_index_,
                                   &spread_domains_, fit_key(fit)))
      k.skipped |= kSkipSpread;
    k.spread = topology_spread_ && !(k.skipped & kSkipSpread);
    if (volume_binding_) {
      bool run = false;
      const std::string why = k.binding_filter.prefilter(session_, pod, &run);
      if (!why.empty()) return fail("VolumeBinding", why);
      if (!run) k.skipped |= kSkipBinding;
    }
    k.binding = volume_binding_ && !(k.skipped & kSkipBinding);
    if (k.binding) k.volume_ok.assign(node_count_, 0);
    return k;
  }


  sdk::Session session_;
  bool node_affinity_;
  bool taint_toleration_;
  bool node_ports_;
  bool pod_affinity_;
  bool topology_spread_;
  bool volume_limits_;
  bool volume_zone_;
  bool volume_binding_;
  bool needs_cycle_state_;
  std::unordered_set<const cal_task*> prefiltered_;  // pre_predicate ran for them
  size_t node_count_;
  std::unordered_map<std::string, std::vector<uint8_t>> known_;  // by selector + tolerations
  TaskView prepared_;
  kube::AffinityNodes affinity_nodes_;  // the snapshot's lists at open (kube/pod_affinity.hpp)
  std::unordered_map<const cal_task*, KubeState> kube_;
  // The view's pods by label, for the affinity PreFilter (kube/label_index.hpp); built at
  // its first use, kept by on_allocate / on_deallocate.
  kube::LabelIndex label_index_;
  kube::LabelColumns label_columns_;  // nodes' topology-key values (kube/label_columns.hpp)
  kube::DomainCache spread_domains_;  // the spread PreFilter's nodes per constraint shape and fit
  std::unordered_map<const cal_task*, size_t> placed_on_;  // node index, by task (on_allocate)
  // By node index: port entries gone from the node's set in this session.
  std::unordered_map<size_t, kube::RemovedPorts> removed_ports_;
  const kube::RemovedPorts* removed_ports(sdk::Node n) const {
    auto it = removed_ports_.find(n.index());
    return it == removed_ports_.end() ? nullptr : &it->second;
  }
};

}  // namespace

CALDERA_PLUGIN(Predicates)
