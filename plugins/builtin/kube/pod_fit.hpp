// What a pod asks of a node's labels and taints, read once from its task: the node
// selector, the required node affinity terms (together Kubernetes' RequiredNodeAffinity)
// and the tolerations. The predicates plugin filters with it; PodTopologySpread's node
// inclusion policies (nodeAffinityPolicy / nodeTaintsPolicy: Honor) read the same.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "caldera/sdk.hpp"
#include "kube/selectors.hpp"
#include "predicates/predicates_math.hpp"

namespace caldera::kube {

struct PodFit {
  std::vector<predicates::Toleration> tolerations;
  std::vector<std::pair<std::string_view, std::string_view>> selector;  // views of host strings
  const cal_pod_constraints* constraints = nullptr;

  static PodFit of(sdk::Task t) {
    PodFit f;
    f.constraints = t.pod().constraints();
    for (const cal_taint& tol : t.tolerations())
      f.tolerations.push_back({sdk::sv(tol.key), sdk::sv(tol.op), sdk::sv(tol.value), sdk::sv(tol.effect)});
    for (size_t i = 0; i < t.selector_count(); ++i)
      f.selector.emplace_back(t.selector_key(i), t.selector_value(i));
    return f;
  }

  // RequiredNodeAffinity.Match: the node selector and the required terms.
  bool node_affinity_matches(sdk::Node n) const {
    if (!selector.empty() &&
        // Selector keys are views of whole host strings, so data() is NUL-terminated.
        !predicates::selector_matches(selector,
                                      [&](std::string_view k) { return n.label(k.data()); }))
      return false;
    return required_node_affinity_matches(
        constraints, [&](const char* k) { return n.label(k); }, n.name().data());
  }

  // Whether some NoSchedule / NoExecute taint of the node is tolerated by none of the
  // tolerations.
  bool untolerated_taint(sdk::Node n) const {
    const size_t count = n.taint_count();
    for (size_t i = 0; i < count; ++i) {
      const cal_taint raw = n.taint(i);
      if (predicates::blocks(
              predicates::Taint{sdk::sv(raw.key), sdk::sv(raw.value), sdk::sv(raw.effect)},
              tolerations))
        return true;
    }
    return false;
  }
};

}  // namespace caldera::kube
