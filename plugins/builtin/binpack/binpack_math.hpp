// The score of the binpack plugin, free of the ABI so that unit tests can call it.
// Follows Volcano's pkg/scheduler/plugins/binpack/binpack.go: BinPackingScore and
// ResourceBinPackingScore.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "caldera/resources.hpp"

namespace caldera::binpack {

inline constexpr double kMaxNodeScore = 100;  // k8s framework.MaxNodeScore

// ResourceBinPackingScore: how full the resource would be with the task on the node,
// times the resource's weight; 0 when the node has none of it or the weight is 0; nullopt
// when the task would not fit (Volcano's "not enough" error).
inline std::optional<double> resource_score(double requested, double capacity, double used,
                                            int64_t weight) {
  if (capacity == 0 || weight == 0) return 0.0;
  const double used_finally = requested + used;
  if (used_finally > capacity) return std::nullopt;
  return used_finally * static_cast<double>(weight) / capacity;
}

// BinPackingScore. `weights[i]` is the weight of resource id i, or nullopt when binpack
// does not score it (cpu and memory always have one; a scalar has one when it is listed in
// binpack.resources). Only the resources the task requests (>= minResource, and not 0)
// take part, and their weights form the denominator: score = sum(resource_score) /
// sum(weights) * MaxNodeScore * binpack.weight. A node where any of those resources would
// overflow scores 0 as a whole (Volcano returns at the first "not enough").
inline double score(const double* request, const double* allocatable, const double* used,
                    const std::vector<std::optional<int64_t>>& weights, int64_t binpack_weight) {
  double score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (request[i] < kMinResource || request[i] == 0) continue;  // Resource.ResourceNames
    if (!weights[i]) continue;
    const std::optional<double> r = resource_score(request[i], allocatable[i], used[i], *weights[i]);
    if (!r) return 0;
    score += *r;
    weight_sum += *weights[i];
  }
  if (weight_sum > 0) score /= static_cast<double>(weight_sum);
  return score * kMaxNodeScore * static_cast<double>(binpack_weight);
}

}  // namespace caldera::binpack
