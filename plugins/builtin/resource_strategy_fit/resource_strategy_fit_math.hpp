// The arithmetic of the resource-strategy-fit plugin, free of the ABI so that unit tests
// can call it. Follows Volcano ed72c7c pkg/scheduler/plugins/resource-strategy-fit:
// resource_strategy_fit.go (Score, mostRequestedScore, leastRequestedScore,
// findResourceConfigWithPrefix, isValidWildcardPattern), sra.go (sraScore) and
// proportional.go (checkNodeResourceIsProportional).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace caldera::resource_strategy_fit {

inline constexpr double kMaxNodeScore = 100;  // k8s framework.MaxNodeScore

enum class Strategy { LeastAllocated, MostAllocated, Other };

inline std::optional<Strategy> strategy_of(std::string_view s) {
  if (s == "LeastAllocated") return Strategy::LeastAllocated;
  if (s == "MostAllocated") return Strategy::MostAllocated;
  return std::nullopt;
}

// isValidWildcardPattern: no '*', or one '*' at the end of a longer name ("nvidia.com/*").
inline bool valid_pattern(std::string_view p) {
  const size_t star = p.find('*');
  if (star == std::string_view::npos) return true;
  return p.size() > 1 && star == p.size() - 1;
}

struct ResourceConfig {
  Strategy strategy = Strategy::LeastAllocated;
  int64_t weight = 1;
};

// findResourceConfigWithPrefix: the exact name first, else the wildcard pattern with the
// longest prefix that the name starts with.
inline const ResourceConfig* find_config(const std::map<std::string, ResourceConfig>& configs,
                                         std::string_view resource) {
  if (auto it = configs.find(std::string(resource)); it != configs.end()) return &it->second;
  const ResourceConfig* best = nullptr;
  size_t best_len = 0;
  for (const auto& [pattern, config] : configs) {
    if (pattern.empty() || pattern.back() != '*') continue;
    const std::string_view prefix = std::string_view(pattern).substr(0, pattern.size() - 1);
    if (resource.substr(0, prefix.size()) == prefix && (!best || prefix.size() > best_len)) {
      best = &config;
      best_len = prefix.size();
    }
  }
  return best;
}

// mostRequestedScore / leastRequestedScore for one resource: nullopt when the node would
// overflow ("node resources are not enough"), 0 when the weight or the capacity is 0.
inline std::optional<double> resource_score(Strategy s, double requested, double used,
                                            double capacity, int64_t weight) {
  if (weight == 0 || capacity == 0) return 0.0;
  const double used_finally = requested + used;
  if (used_finally > capacity) return std::nullopt;
  switch (s) {
    case Strategy::MostAllocated:
      return used_finally * static_cast<double>(weight) / capacity;
    case Strategy::LeastAllocated:
      return (capacity - used_finally) * static_cast<double>(weight) / capacity;
    case Strategy::Other:
      return 0.0;  // Volcano's switch has no case for it: the resource scores 0
  }
  return 0.0;
}

// One resource the task requests, as Score walks them.
struct Term {
  Strategy strategy;
  int64_t weight;
  double requested, used, capacity;
};

// Score, one resource at a time (no list to build per node): add() each resource the task
// requests; result() is the weighted resource scores over their weights, times 100 * the
// plugin weight, and 0 when the task overflows the node in any of them.
class ScoreSum {
 public:
  void add(const Term& t) {
    if (overflow_) return;
    const std::optional<double> r =
        resource_score(t.strategy, t.requested, t.used, t.capacity, t.weight);
    if (!r) {
      overflow_ = true;
      return;
    }
    score_ += *r;
    weight_sum_ += t.weight;
  }
  double result(int64_t plugin_weight) const {
    if (overflow_) return 0;
    const double s = weight_sum_ > 0 ? score_ / static_cast<double>(weight_sum_) : score_;
    return s * kMaxNodeScore * static_cast<double>(plugin_weight);
  }

 private:
  double score_ = 0;
  int64_t weight_sum_ = 0;
  bool overflow_ = false;
};

inline double score(const std::vector<Term>& terms, int64_t plugin_weight) {
  ScoreSum sum;
  for (const Term& t : terms) sum.add(t);
  return sum.result(plugin_weight);
}

// sraScore once the task's requested resources all exist on the node: the share of the sra
// resources' weight the node does NOT carry (nodes without the scarce resources score
// high, keeping them for the tasks that need them), times 100 * sra.weight.
inline double sra_score(int64_t weight_on_node, int64_t weight_sum, int64_t sra_weight) {
  double score = static_cast<double>(weight_on_node);
  if (weight_sum > 0) score = 1.0 - score / static_cast<double>(weight_sum);
  return score * kMaxNodeScore * static_cast<double>(sra_weight);
}

// checkNodeResourceIsProportional for one resource the node has and the task does not ask:
// the node's idle cpu and memory left after the task must cover idle_resource * rate (cpu
// in milli-cores per milli-unit, memory in MB per milli-unit, as Volcano keeps scalars).
inline bool proportional_ok(double idle_cpu, double idle_memory, double idle_resource,
                            double request_cpu, double request_memory, double cpu_rate,
                            double memory_rate) {
  const double cpu_reserved = idle_resource * cpu_rate;
  const double memory_reserved = idle_resource * memory_rate * 1000 * 1000;
  return !(idle_cpu - request_cpu < cpu_reserved || idle_memory - request_memory < memory_reserved);
}

}  // namespace caldera::resource_strategy_fit
