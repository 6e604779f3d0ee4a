// The checks of the predicates plugin, free of the ABI so that unit tests can call them.
//
// Volcano's pkg/scheduler/plugins/predicates/predicates.go runs Kubernetes filter plugins;
// the ones our model has inputs for are written out here with Kubernetes' own rules and
// wording:
//   NodeUnschedulable  k8s pkg/scheduler/framework/plugins/nodeunschedulable
//   NodeAffinity       k8s .../nodeaffinity (the nodeSelector part; see predicates.cpp)
//   TaintToleration    k8s .../tainttoleration, v1helper.TolerationsTolerateTaint
// plus Volcano's own pod-count check.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

}  // namespace caldera::predicates
