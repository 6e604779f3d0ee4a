// The scores of the network-topology-aware plugin, free of the ABI so that unit tests can
// call them.
//
// Follows Volcano's pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go
// (the HyperNode-level bin packing form: getSubJobHyperNodeBinPackingScore,
// getPodHyperNodeBinPackingScore, batchNodeOrderFnForNormalPods,
// networkTopologyAwareScore, scoreHyperNodeWithTier, scoreHyperNodeWithTaskNum,
// scaleFinalScore). Every score here is in [0, 1] before scale().
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "caldera/resources.hpp"

namespace caldera::network_topology {

inline constexpr double kMaxNodeScore = 100;  // k8s framework.MaxNodeScore
inline constexpr double kFullScore = 1;

// Bin packing of `request` into a HyperNode that has `allocatable` and `used` (sums over its
// nodes): the weighted mean over the requested resources that have a weight (weights[i]
// is nullopt for a resource the plugin does not pack; cpu and memory always have one) of
// (used + request) / allocatable. 0 when any of them would not fit, or when their weights
// add up to 0. A resource counts as requested from kMinResource up (Resource.ResourceNames).
inline double binpack_score(const double* request, const double* allocatable, const double* used,
                            const std::vector<std::optional<int64_t>>& weights) {
  double total = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!weights[i] || request[i] < kMinResource) continue;
    if (used[i] + request[i] > allocatable[i]) return 0;  // cannot bin-pack the HyperNode
    total += static_cast<double>(*weights[i]) * (used[i] + request[i]) / allocatable[i];
    weight_sum += *weights[i];
  }
  return weight_sum > 0 ? total / static_cast<double>(weight_sum) : 0;
}

// scoreHyperNodeWithTier: the lower the tier of the lowest common HyperNode, the higher;
// 1 when every HyperNode has one tier, 0 outside [min_tier, max_tier].
inline double tier_score(int32_t tier, int32_t min_tier, int32_t max_tier) {
  if (min_tier == max_tier) return kFullScore;
  if (tier < min_tier || tier > max_tier) return 0;
  return static_cast<double>(max_tier - tier) / static_cast<double>(max_tier - min_tier);
}

// scoreHyperNodeWithTaskNum: the share of the job's tasks already in the HyperNode.
inline double task_num_score(size_t in_hypernode, size_t all) {
  if (all == 0) return kFullScore;
  return static_cast<double>(in_hypernode) / static_cast<double>(all);
}

// The weight of tier t for pods without a network topology: fading^(t - 1) (0^0 = 1, so a
// fading of 0 leaves tier 1 alone).
inline double tier_weight(double fading, int32_t tier) {
  return std::pow(fading, static_cast<double>(tier - 1));
}

// The sum of tier_weight over the tiers from min_tier to max_tier (a geometric series; added
// up term by term for the usual few tiers).
inline double tier_weight_sum(double fading, int32_t min_tier, int32_t max_tier) {
  const int64_t span = static_cast<int64_t>(max_tier) - min_tier + 1;
  if (span <= 0) return 0;
  if (span <= 64) {
    double w = 0;
    for (int64_t t = min_tier; t <= max_tier; ++t)
      w += tier_weight(fading, static_cast<int32_t>(t));
    return w;
  }
  if (fading == 1) return static_cast<double>(span);
  return tier_weight(fading, min_tier) * (1 - std::pow(fading, static_cast<double>(span))) /
         (1 - fading);
}

// One tier's bin packing score of a pod in the node's HyperNode of that tier.
struct TierScore {
  int32_t tier;
  double score;
};

// batchNodeOrderFnForNormalPods for one node: the tier-weighted mean, over every tier from
// min_tier to max_tier, of the pod's bin packing score in the node's HyperNode of the tier;
// a tier where the node has no HyperNode scores 1 (nodes outside HyperNodes are preferred,
// as in Volcano). `present`: the tiers where the node has one. 0 when the weights do not
// add up to a positive finite number.
inline double normal_pod_score(const std::vector<TierScore>& present, double fading,
                               int32_t min_tier, int32_t max_tier) {
  const double total_weight = tier_weight_sum(fading, min_tier, max_tier);
  if (!(total_weight > 0) || !std::isfinite(total_weight)) return 0;
  double total = total_weight;  // every tier at the full score, then corrected
  for (const TierScore& ts : present)
    total += tier_weight(fading, ts.tier) * (ts.score - kFullScore);
  return total / total_weight;
}

// scaleFinalScore.
inline double scale(double score, int64_t weight) {
  return kMaxNodeScore * static_cast<double>(weight) * score;
}

}  // namespace caldera::network_topology
