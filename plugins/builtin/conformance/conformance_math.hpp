// The rule of the conformance plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/conformance/conformance.go: a pod is never a
// victim of preemption or reclaim when it is critical to the cluster.
#pragma once

#include <cstdint>
#include <string_view>

namespace caldera::conformance {

// metav1.NamespaceSystem.
inline constexpr std::string_view kSystemNamespace = "kube-system";
// Kubernetes' built-in critical priority classes (scheduling.SystemClusterCritical /
// SystemNodeCritical) and the value the first of them carries
// (scheduling.SystemCriticalPriority). No user-defined class may exceed 1e9
// (HighestUserDefinablePriority), so a pod priority at or above 2e9 can only come from one
// of the two system classes: this is Kubernetes' own IsCriticalPodBasedOnPriority test.
inline constexpr std::string_view kSystemClusterCritical = "system-cluster-critical";
inline constexpr std::string_view kSystemNodeCritical = "system-node-critical";
inline constexpr int32_t kSystemCriticalPriority = 2000000000;
// The legacy critical-pod annotation (Kubernetes before priority classes).
inline constexpr const char* kCriticalPodAnnotation = "scheduler.alpha.kubernetes.io/critical-pod";

// The namespace part of a "namespace/name" key.
inline std::string_view namespace_of(std::string_view key) {
  const size_t slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash);
}

// True when the pod must never be evicted by the scheduler. `priority_class` may be empty
// when the host does not tell it; the priority value then stands in for it (see above).
inline bool is_critical(std::string_view ns, std::string_view priority_class, int32_t priority,
                        bool has_critical_annotation) {
  return ns == kSystemNamespace || priority_class == kSystemClusterCritical ||
         priority_class == kSystemNodeCritical || priority >= kSystemCriticalPriority ||
         has_critical_annotation;
}

}  // namespace caldera::conformance
