// The checks of the predicates plugin, free of the ABI so that unit tests can call them.
//
// Volcano's pkg/scheduler/plugins/predicates/predicates.go runs Kubernetes filter plugins;
// the ones our model has inputs for are written out here with Kubernetes' own rules and
// wording:
//   NodeUnschedulable  k8s pkg/scheduler/framework/plugins/nodeunschedulable
//   NodeAffinity       k8s .../nodeaffinity (the nodeSelector part; see predicates.cpp)
//   TaintToleration    k8s .../tainttoleration, v1helper.TolerationsTolerateTaint
// plus Volcano's own pod-count check and its proportional check
// (pkg/scheduler/plugins/predicates/proportional.go).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "caldera/resources.hpp"

namespace caldera::predicates {

// Reasons, word for word as Volcano / Kubernetes give them. They are summed over nodes in
// "0/N nodes are unavailable" messages.
inline constexpr const char* kPodNumberExceeded = "node(s) pod number exceeded";
inline constexpr const char* kUnschedulable = "node(s) were unschedulable";
// Kubernetes 1.36's TaintToleration Filter (it no longer names the taint).
inline constexpr const char* kUntoleratedTaint = "node(s) had untolerated taint(s)";
inline constexpr const char* kNodeSelectorMismatch =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr const char* kUnschedulableTaintKey = "node.kubernetes.io/unschedulable";

struct Taint {
  std::string_view key;
  std::string_view value;
  std::string_view effect;  // NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string_view key;
  std::string_view op;      // Equal (or empty) | Exists
  std::string_view value;
  std::string_view effect;  // empty: every effect
};

// v1.Toleration.ToleratesTaint.
inline bool tolerates(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  if (t.op.empty() || t.op == "Equal") return t.value == taint.value;
  if (t.op == "Exists") return true;
  return false;
}

// v1helper.TolerationsTolerateTaint.
inline bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations)
    if (tolerates(t, taint)) return true;
  return false;
}

// NodeUnschedulable.Filter: an unschedulable node admits only pods that tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint.
inline bool unschedulable_blocks(bool node_unschedulable,
                                 const std::vector<Toleration>& tolerations) {
  if (!node_unschedulable) return false;
  return !tolerated(tolerations, Taint{kUnschedulableTaintKey, "", "NoSchedule"});
}

// TaintToleration.Filter for one taint: a NoSchedule / NoExecute taint no toleration
// tolerates keeps the pod off the node.
inline bool blocks(const Taint& taint, const std::vector<Toleration>& tolerations) {
  if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") return false;
  return !tolerated(tolerations, taint);
}

// TaintToleration.Filter: the first NoSchedule / NoExecute taint no toleration tolerates
// (FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc), or -1.
inline long first_untolerated(const std::vector<Taint>& taints,
                              const std::vector<Toleration>& tolerations) {
  for (size_t i = 0; i < taints.size(); ++i)
    if (blocks(taints[i], tolerations)) return static_cast<long>(i);
  return -1;
}


// A pod's nodeSelector matches when the node has every key with the same value.
// `label(key)` (key a std::string_view) returns the node's value or nullptr.
template <class LabelFn>
bool selector_matches(const std::vector<std::pair<std::string_view, std::string_view>>& selector,
                      LabelFn label) {
  for (const auto& [k, v] : selector) {
    const char* have = label(k);
    if (!have || std::string_view(have) != v) return false;
  }
  return true;
}

// The dimension of `request` that does not fit `available` (first by resource id), or -1.
// Volcano's allocate compares InitResreq with the node's FutureIdle within minResource;
// cpu and memory always, a scalar resource only when the task requests it (the same rule
// as the host's actions/placement.cpp, so both give the same answer and reason). Pods are
// left to the pod-count check: Volcano's backfill places best-effort pods with no resource
// check but that one (its allocate's own fit check, the host's here, counts pods).
inline long first_insufficient(const double* request, const double* available, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (i == kPodsId) continue;
    if (i >= 2 && !(request[i] > 0)) continue;
    if (!res::le(request[i], available[i])) return static_cast<long>(i);
  }
  return -1;
}

// Volcano's predicate.ProportionalEnable rule for one scalar resource (a GPU, say): a task
// that does not request it may only take a node's cpu and memory while enough stays idle
// for the node's idle units of that resource: idle.cpu - request.cpu >= idle.res * cpu_rate
// and idle.memory - request.memory >= idle.res * memory_rate * 1e6 (rates per unit, in the
// milli-units Volcano keeps scalars in). Returns true when the rule holds.
struct ProportionalRate {
  size_t resource = 0;  // session resource id of the scalar
  double cpu = 1;
  double memory = 1;
};
inline bool proportional_ok(const ProportionalRate& rate, double idle_cpu, double idle_memory,
                            double idle_resource, double request_cpu, double request_memory) {
  const double cpu_reserved = idle_resource * rate.cpu;
  const double memory_reserved = idle_resource * rate.memory * 1000 * 1000;
  return !(idle_cpu - request_cpu < cpu_reserved || idle_memory - request_memory < memory_reserved);
}

}  // namespace caldera::predicates
