// pdb: victims are chosen so that PodDisruptionBudgets hold.
//
// Follows Volcano's pkg/scheduler/plugins/pdb/pdb.go (ed72c7c), one filter registered as
// AddPreemptableFn, AddReclaimableFn and AddVictimTasksFns. For each call, every budget
// starts from its status.disruptionsAllowed; the candidates are walked in the order given:
//   - a pod without labels matches no budget and is left out (not a victim), as in Volcano;
//   - for each budget of the pod's namespace whose selector matches it (a budget with no
//     selector, or an empty one, matches nothing), unless the pod is already listed in the
//     budget's status.disruptedPods, one disruption is taken from the budget;
//   - the pod is a victim unless one of its budgets went below zero.
// It always votes (Permit) in preempt and reclaim. As a victim_tasks filter (the shuffle
// action) it marks every pod that violates no budget, as Volcano's does.
// No arguments.
#include <cstdint>
#include <string_view>
#include <vector>

#include "caldera/sdk.hpp"
#include "kube/selectors.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace kube = caldera::kube;

class Pdb {
 public:
  static constexpr const char* kName = "pdb";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "keeps PodDisruptionBudgets: a pod is not a victim when evicting it would take a "
      "budget below zero (Volcano's pdb)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::preemptable,
      sdk::Hook::reclaimable, sdk::Hook::victim_tasks);

  Pdb(sdk::Session s, const sdk::Args&) {
    for (size_t i = 0; i < s.disruption_budget_count(); ++i)
      budgets_.push_back(s.disruption_budget_at(i));
  }

  cal_vote preemptable(sdk::Task, const std::vector<sdk::Task>& c, std::vector<uint8_t>& v) {
    filter(c, v);
    return CAL_PERMIT;
  }
  cal_vote reclaimable(sdk::Task, const std::vector<sdk::Task>& c, std::vector<uint8_t>& v) {
    filter(c, v);
    return CAL_PERMIT;
  }
  void victim_tasks(const std::vector<sdk::Task>& tasks, std::vector<uint8_t>& victims) {
    filter(tasks, victims);
  }

 private:
  void filter(const std::vector<sdk::Task>& tasks, std::vector<uint8_t>& victims) const {
    std::vector<int64_t> allowed;
    allowed.reserve(budgets_.size());
    for (const cal_disruption_budget* b : budgets_) allowed.push_back(b->disruptions_allowed);
    for (size_t i = 0; i < tasks.size(); ++i) {
      const sdk::Pod pod = tasks[i].pod();
      if (pod.label_count() == 0) continue;
      const std::string_view ns = pod.ns();
      const std::string_view name = short_name(pod.name());
      bool violated = false;
      for (size_t k = 0; k < budgets_.size(); ++k) {
        const cal_disruption_budget& b = *budgets_[k];
        if (ns != kube::sv(b.namespace_name)) continue;
        if (kube::selector_everything(b.selector) ||
            !kube::selector_matches(b.selector, [&](const char* key) { return pod.label(key); }))
          continue;
        if (kube::listed(b.disrupted_pods, name)) continue;
        if (--allowed[k] < 0) violated = true;
      }
      if (!violated) victims[i] = 1;
    }
  }

  // "namespace/name" -> "name" (status.disruptedPods lists names in the budget's namespace).
  static std::string_view short_name(std::string_view key) {
    const size_t slash = key.find('/');
    return slash == std::string_view::npos ? key : key.substr(slash + 1);
  }

  std::vector<const cal_disruption_budget*> budgets_;
};

}  // namespace

CALDERA_PLUGIN(Pdb)
