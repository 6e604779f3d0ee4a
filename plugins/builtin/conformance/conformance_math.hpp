// The rule of the conformance plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/conformance/conformance.go: a pod is never a
// victim of preemption or reclaim when it is critical to the cluster.
#pragma once

#include <string_view>

namespace caldera::conformance {

// metav1.NamespaceSystem.
inline constexpr std::string_view kSystemNamespace = "kube-system";
// Kubernetes' built-in critical priority classes (scheduling.SystemClusterCritical /
// SystemNodeCritical).
inline constexpr std::string_view kSystemClusterCritical = "system-cluster-critical";
inline constexpr std::string_view kSystemNodeCritical = "system-node-critical";

// The namespace part of a "namespace/name" key.
inline std::string_view namespace_of(std::string_view key) {
  const size_t slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash);
}

// True when the pod must never be evicted by the scheduler: exactly Volcano's test, on the
// namespace and the priority class NAME. A high priority value alone (a pod whose class is
// not one of the two system classes) does not protect it, nor does the legacy
// critical-pod annotation.
inline bool is_critical(std::string_view ns, std::string_view priority_class) {
  return ns == kSystemNamespace || priority_class == kSystemClusterCritical ||
         priority_class == kSystemNodeCritical;
}

}  // namespace caldera::conformance
