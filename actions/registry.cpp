// The list of actions the host knows (SCENARIOS.md section 1: action names).
#include "actions/action.hpp"

namespace caldera {

const std::vector<ActionInfo>& action_registry() {
  static const std::vector<ActionInfo> all = [] {
    std::vector<ActionInfo> v;
    v.push_back(enqueue_action_info());
    v.push_back(allocate_action_info());
    v.push_back(backfill_action_info());
    v.push_back(preempt_action_info());
    v.push_back(reclaim_action_info());
    v.push_back(shuffle_action_info());
    v.push_back(gangpreempt_action_info());
    v.push_back(gangreclaim_action_info());
    return v;
  }();
  return all;
}

const ActionInfo* find_action(const std::string& name) {
  for (const auto& a : action_registry())
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace caldera
