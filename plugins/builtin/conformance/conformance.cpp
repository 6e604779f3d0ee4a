// conformance: keeps the scheduler from evicting pods the cluster itself depends on.
//
// Follows Volcano's pkg/scheduler/plugins/conformance/conformance.go, which registers one
// evictableFn as both AddPreemptableFn and AddReclaimableFn: every candidate is a victim
// except pods in kube-system and pods of the system-cluster-critical /
// system-node-critical priority classes. It always votes (Permit), so a tier in which
// every candidate is critical ends with no victims. Its AddUnifiedEvictableFn (ABI 1.7
// unified_evictable, the gang-aware actions) applies the same rule whatever the kind.
// The class is read by name (the host table's task_priority_class), as Volcano reads
// Pod.Spec.PriorityClassName.
#include <cstdint>
#include <vector>

#include "caldera/sdk.hpp"
#include "conformance/conformance_math.hpp"

namespace {

namespace sdk = caldera::sdk;
using caldera::sdk::Args;
using caldera::sdk::Session;
using caldera::sdk::Task;

bool evictable(const Task& t) {
  namespace cf = caldera::conformance;
  return !cf::is_critical(cf::namespace_of(t.name()), t.priority_class());
}

cal_vote evictable_fn(const std::vector<Task>& evictees, std::vector<uint8_t>& victims) {
  for (size_t i = 0; i < evictees.size(); ++i) victims[i] = evictable(evictees[i]) ? 1 : 0;
  return CAL_PERMIT;
}

struct Conformance {
  static constexpr const char* kName = "conformance";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "never evicts kube-system pods or pods of the system-critical priority classes";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::preemptable,
      sdk::Hook::reclaimable, sdk::Hook::unified_evictable);
  // Volcano's conformance plugin reads no arguments.

  Conformance(Session, const Args&) {}

  cal_vote preemptable(Task, const std::vector<Task>& c, std::vector<uint8_t>& v) {
    return evictable_fn(c, v);
  }
  cal_vote reclaimable(Task, const std::vector<Task>& c, std::vector<uint8_t>& v) {
    return evictable_fn(c, v);
  }
  cal_vote unified_evictable(const sdk::EvictionContext&, const std::vector<Task>& c,
                             std::vector<uint8_t>& v) {
    return evictable_fn(c, v);
  }
};

}  // namespace

CALDERA_PLUGIN(Conformance)
