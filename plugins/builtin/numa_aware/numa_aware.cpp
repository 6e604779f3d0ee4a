// numa-aware: NUMA placement of guaranteed pods, as Volcano's
// pkg/scheduler/plugins/numaaware/numaaware.go does it (policies, hints, cpu assignment
// and score normalisation in numa_aware_math.hpp).
//
//   predicate         a guaranteed pod must be admissible under the node's topology
//                     manager policy: single-numa-node needs its whole cpus (and memory)
//                     free within one NUMA node, restricted within the fewest NUMA nodes
//                     that could ever hold them, best-effort and none admit anything. A pod
//                     annotated volcano.sh/numa-topology-policy=<policy> only goes to nodes
//                     with a NUMA layout and that same policy.
//   batch_node_order  for a pod with such an annotation (other than "none"): fewer NUMA
//                     nodes used scores higher, 100 - 100 * used / most used over the
//                     candidate nodes (integers), times the `weight` argument.
//   on_allocate       the pod takes its cpus and memory from the chosen NUMA nodes; the
//                     choice is written on the pod as volcano.sh/topology-decision
//                     ({"numa":{"0":{"cpu":"4","memory":"8589934592"}}}: whole cpus and
//                     bytes per NUMA node), which is how the next session, rebuilding each
//                     node's free NUMA resources from the pods on it, knows it.
//   on_deallocate     an undone allocation or an eviction gives them back.
//
// Guaranteed. Volcano asks the pod's QoS class (requests equal to limits for cpu and
// memory in every container). Caldera's pods carry requests only, which stand for
// requests and limits alike, so a pod is Guaranteed when it requests both cpu and memory.
// As with the kubelet's static cpu manager, only a whole number of cpus is pinned; a
// guaranteed pod with a fractional cpu request has no cpu preference (it runs on the
// shared pool) and passes unless its memory cannot be aligned.
//
// The node. A node that declares a NUMA layout (Caldera's `numa` list) stands for a node
// whose kubelet runs the static cpu manager; its policy is the node's topology_policy. A
// node without a layout has no NUMA information.
//
// Argument: weight (Volcano's name, default 1).
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "caldera/sdk.hpp"
#include "numa_aware/numa_aware_math.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace nm = caldera::numa;

constexpr const char* kTaskPolicyKey = "volcano.sh/numa-topology-policy";
constexpr const char* kDecisionKey = "volcano.sh/topology-decision";

bool guaranteed(const sdk::Task& t) {
  sdk::Res r = t.request();
  return r.size() >= 2 && r[0] > 0 && r[1] > 0;
}

std::string task_policy(const sdk::Task& t) {
  const char* v = t.annotation(kTaskPolicyKey);
  return v ? std::string(v) : std::string();
}

bool unset_policy(const std::string& p) { return p.empty() || p == "none"; }

class NumaAware {
 public:
  static constexpr const char* kName = "numa-aware";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "keeps guaranteed pods' whole cpus (and memory) within the NUMA nodes the node's "
      "topology manager policy allows, and prefers nodes where they span fewer NUMA nodes "
      "(Volcano's numa-aware)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::predicate,
      sdk::Hook::batch_node_order, sdk::Hook::on_allocate, sdk::Hook::on_deallocate,
      sdk::Hook::check_args);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

  static constexpr sdk::Int kWeight{
      "weight", 1, "Weight of the NUMA score (fewer NUMA nodes used scores higher)."};
  static constexpr auto kOptions = sdk::options(kWeight);

  static sdk::Status check_args(const sdk::Args& a) {
    if (a.get(kWeight) < 0)
      return sdk::Status::error(
          {kWeight.name, " must be >= 0, got ", std::to_string(a.get(kWeight))});
    return sdk::Status::ok();
  }

  NumaAware(sdk::Session s, const sdk::Args& a) : ssn_(s), weight_(a.get(kWeight)) {
    for (size_t i = 0; i < s.node_count(); ++i) {
      sdk::Node n = s.node(i);
      const size_t k = n.numa_count();
      if (k == 0) continue;
      if (k > nm::kMaxNumaNodes) {
        sdk::log(CAL_LOG_WARN, kName,
                 "node " + std::string(n.name()) + " declares " + std::to_string(k) +
                     " NUMA nodes; at most " + std::to_string(nm::kMaxNumaNodes) +
                     " are supported, so it is treated as having no NUMA information");
        continue;
      }
      NodeState st;
      st.policy = std::string(n.topology_policy());
      for (size_t j = 0; j < k; ++j) {
        st.numa.cpu_capacity.push_back(std::floor(n.numa_cpu(j) / 1000.0));
        st.numa.mem_capacity.push_back(n.numa_memory(j));
      }
      st.numa.cpu_free = st.numa.cpu_capacity;
      st.numa.mem_free = st.numa.mem_capacity;
      // What the pods already on the node hold (their recorded decisions).
      for (size_t t = 0; t < n.task_count(); ++t) {
        sdk::Task task = n.task(t);
        const char* d = task.annotation(kDecisionKey);
        if (!d) continue;
        auto as = nm::parse_decision(d, k);
        if (!as) {
          sdk::log(CAL_LOG_WARN, kName,
                   "pod " + std::string(task.name()) + ": " + kDecisionKey + " '" + d +
                       "' does not describe this node's NUMA layout; ignored");
          continue;
        }
        take(st.numa, *as);
        held_[task.handle()] = Held{n.handle(), *as};
      }
      nodes_.emplace(n.handle(), std::move(st));
    }
  }

  sdk::Status predicate(sdk::Task t, sdk::Node n) const {
    Plan p = plan(t, n);
    if (p.verdict == Verdict::Refused) return sdk::Status::unresolvable(p.reason);
    if (p.verdict == Verdict::NoFit) return sdk::Status::unschedulable(p.reason);
    return sdk::Status::ok();
  }

  void batch_node_order(sdk::Task t, const cal_node* const* nodes, size_t n, double* scores) const {
    if (unset_policy(task_policy(t)) || weight_ == 0) return;
    std::vector<int64_t> used(n, 0);
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      Plan p = plan(t, ssn_.wrap(nodes[i]));
      if (p.verdict != Verdict::Placed) continue;
      any = true;
      used[i] = p.assignment.numa_used();
    }
    if (!any) return;  // Volcano: no assignment for the task, no scores
    const std::vector<int64_t> norm = nm::normalize_reverse(used, 100);
    for (size_t i = 0; i < n; ++i) scores[i] += static_cast<double>(norm[i] * weight_);
  }

  void on_allocate(sdk::Task t) {
    sdk::Node n = t.node();
    if (!n) return;
    Plan p = plan(t, n);
    if (p.verdict != Verdict::Placed || p.assignment.empty()) return;
    NodeState& st = nodes_.at(n.handle());
    take(st.numa, p.assignment);
    held_[t.handle()] = Held{n.handle(), p.assignment};
    t.set_annotation(kDecisionKey, nm::write_decision(p.assignment));
  }

  void on_deallocate(sdk::Task t) {
    auto it = held_.find(t.handle());
    if (it == held_.end()) return;
    auto nit = nodes_.find(it->second.node);
    if (nit != nodes_.end()) give_back(nit->second.numa, it->second.assignment);
    held_.erase(it);
  }

 private:
  struct NodeState {
    std::string policy;
    nm::NodeNuma numa;
  };
  struct Held {
    const cal_node* node;
    nm::Assignment assignment;
  };
  enum class Verdict {
    Pass,     // the plugin has nothing to say (not guaranteed, or no NUMA handling)
    Placed,   // admitted, with the assignment it would get
    NoFit,    // the policy cannot align it now (evictions could help)
    Refused,  // the node can never take it (no layout, another policy)
  };
  struct Plan {
    Verdict verdict = Verdict::Pass;
    nm::Assignment assignment;
    std::string reason;
  };

  // The predicate's path (Volcano's predicateFn and filterNodeByPolicy), with the
  // assignment the pod would get on the node.
  Plan plan(const sdk::Task& t, const sdk::Node& n) const {
    Plan out;
    if (!guaranteed(t)) return out;
    const std::string tp = task_policy(t);
    auto it = nodes_.find(n.handle());
    const NodeState* st = it == nodes_.end() ? nullptr : &it->second;
    if (!unset_policy(tp)) {
      if (!st) return refuse("plugin numa-aware: numa info is empty");
      if (tp != st->policy)
        return refuse("plugin numa-aware: task topology policy[" + tp +
                      "] is different with node[" + st->policy + "]");
      double free = 0;
      for (double c : st->numa.cpu_free) free += c;
      if (free == 0) {
        out.verdict = Verdict::NoFit;
        out.reason = "plugin numa-aware: cpu allocatable map is empty";
        return out;
      }
    } else if (!st || unset_policy(st->policy)) {
      return out;
    }
    auto policy = nm::policy_from(st->policy);
    if (!policy) return out;  // Volcano's GetPolicy falls back to "none": admit
    sdk::Res req = t.request();
    const int64_t cpus = nm::guaranteed_cpus(req[0]);
    const double memory = req[1];
    const auto [hint, admitted] =
        nm::admit(*policy, st->numa.size(), nm::provider_hints(st->numa, cpus, memory));
    if (!admitted) {
      out.verdict = Verdict::NoFit;
      out.reason = "plugin numa-aware: cannot align " + std::to_string(cpus) +
                   " cpu(s) and the memory request under the " + st->policy + " policy";
      return out;
    }
    out.verdict = Verdict::Placed;
    out.assignment = nm::allocate(st->numa, hint, cpus, memory);
    return out;
  }

  static Plan refuse(std::string why) {
    Plan p;
    p.verdict = Verdict::Refused;
    p.reason = std::move(why);
    return p;
  }

  static void take(nm::NodeNuma& numa, const nm::Assignment& a) {
    for (size_t i = 0; i < numa.size(); ++i) {
      numa.cpu_free[i] = std::max(0.0, numa.cpu_free[i] - a.cpus[i]);
      numa.mem_free[i] = std::max(0.0, numa.mem_free[i] - a.memory[i]);
    }
  }

  static void give_back(nm::NodeNuma& numa, const nm::Assignment& a) {
    for (size_t i = 0; i < numa.size(); ++i) {
      numa.cpu_free[i] = std::min(numa.cpu_capacity[i], numa.cpu_free[i] + a.cpus[i]);
      numa.mem_free[i] = std::min(numa.mem_capacity[i], numa.mem_free[i] + a.memory[i]);
    }
  }

  sdk::Session ssn_;
  int64_t weight_;
  std::unordered_map<const cal_node*, NodeState> nodes_;
  std::unordered_map<const cal_task*, Held> held_;  // tasks holding NUMA resources
};

}  // namespace

CALDERA_PLUGIN(NumaAware)
