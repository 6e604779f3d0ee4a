// The score formulas of the nodeorder plugin, free of the ABI so that unit tests can call
// them. Volcano's pkg/scheduler/plugins/nodeorder/nodeorder.go runs Kubernetes score
// plugins; these are those plugins' formulas, in their integer arithmetic:
//   k8s pkg/scheduler/framework/plugins/noderesources/least_allocated.go
//   k8s .../noderesources/most_allocated.go
//   k8s .../noderesources/balanced_allocation.go (v1.36.1, as Volcano ed72c7c links it)
//   k8s .../noderesources/resource_allocation.go (which amounts are compared)
//   k8s .../tainttoleration/taint_toleration.go (Score, NormalizeScore)
//   k8s .../helper/normalize_score.go (DefaultNormalizeScore)
//   k8s pkg/scheduler/util/pod_resources.go (the non-zero request defaults)
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace caldera::nodeorder {

inline constexpr int64_t kMaxNodeScore = 100;  // framework.MaxNodeScore
// schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: what the least / most allocated
// scores count for a container that requests no cpu / memory.
inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;

// One resource as a resource-allocation scorer sees it: the node's allocatable, the amount
// requested on the node with the pod being placed counted in, and the resource's weight.
// A dimension with allocatable 0 is skipped by every scorer.
struct Dim {
  int64_t allocatable = 0;
  int64_t requested = 0;
  int64_t weight = 1;
};

// Amounts are whole millicores, bytes and milli-units; Kubernetes holds them as int64.
// Rounds half away from zero as std::llround does, inline: the scorers call it for every
// node of every task, and libm's llround is a call each time.
inline int64_t whole(double x) {
  return x >= 0 ? static_cast<int64_t>(x + 0.5) : -static_cast<int64_t>(-x + 0.5);
}

// The request that least / most allocated count: 0 becomes the default.
inline int64_t non_zero(int64_t request, int64_t default_request) {
  return request == 0 ? default_request : request;
}

// leastRequestedScore: ((capacity - requested) * MaxNodeScore) / capacity; 0 when over.
inline int64_t least_requested_score(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return ((capacity - requested) * kMaxNodeScore) / capacity;
}

// mostRequestedScore: (requested * MaxNodeScore) / capacity, requested capped at capacity.
inline int64_t most_requested_score(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return (requested * kMaxNodeScore) / capacity;
}

// leastResourceScorer / mostResourceScorer: the weighted mean of the per-resource scores,
// integer division as Kubernetes does it.
template <class PerResource>
int64_t weighted_mean(const Dim* dims, size_t n, PerResource per_resource) {
  int64_t node_score = 0, weight_sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const Dim& d = dims[i];
    if (d.allocatable == 0) continue;
    node_score += per_resource(d.requested, d.allocatable) * d.weight;
    weight_sum += d.weight;
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

inline int64_t least_allocated(const Dim* dims, size_t n) {
  return weighted_mean(dims, n, least_requested_score);
}
inline int64_t most_allocated(const Dim* dims, size_t n) {
  return weighted_mean(dims, n, most_requested_score);
}
inline int64_t least_allocated(const std::vector<Dim>& dims) {
  return least_allocated(dims.data(), dims.size());
}
inline int64_t most_allocated(const std::vector<Dim>& dims) {
  return most_allocated(dims.data(), dims.size());
}

// balancedResourceScore: (1 - standard deviation of the requested fractions) * 100. With
// two resources the deviation is |f1 - f2| / 2; with more, the population deviation; with
// one or none, 0. Fractions are capped at 1. Weights do not enter.
inline int64_t balanced_resource_score(const Dim* dims, size_t n) {
  auto fraction = [](const Dim& d) {
    double f = static_cast<double>(d.requested) / static_cast<double>(d.allocatable);
    return f > 1 ? 1.0 : f;
  };
  size_t count = 0;
  double total = 0, first = 0, second = 0;
  for (size_t i = 0; i < n; ++i) {
    if (dims[i].allocatable == 0) continue;
    const double f = fraction(dims[i]);
    if (count == 0) first = f;
    if (count == 1) second = f;
    total += f;
    ++count;
  }
  double std_dev = 0;
  if (count == 2) {
    std_dev = std::fabs((first - second) / 2);
  } else if (count > 2) {
    const double mean = total / static_cast<double>(count);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      if (dims[i].allocatable == 0) continue;
      const double f = fraction(dims[i]);
      sum += (f - mean) * (f - mean);
    }
    std_dev = std::sqrt(sum / static_cast<double>(count));
  }
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}
inline int64_t balanced_resource_score(const std::vector<Dim>& dims) {
  return balanced_resource_score(dims.data(), dims.size());
}

// balancedResourceScorer as Kubernetes 1.36 has it (the version Volcano ed72c7c links):
// the score rewards the change in balance the pod brings, not the balance after it:
//   50 + (50 + score(with the pod) - score(without it)) / 2   (Go's truncating division)
// `with_pod[i].requested` counts the pod in, `without_pod[i].requested` does not; the
// allocatables are the same.
inline int64_t balanced_allocation(const Dim* with_pod, const Dim* without_pod, size_t n) {
  const int64_t with = balanced_resource_score(with_pod, n);
  const int64_t without = balanced_resource_score(without_pod, n);
  return kMaxNodeScore / 2 + (kMaxNodeScore / 2 + with - without) / 2;
}

// helper.DefaultNormalizeScore(MaxNodeScore, reverse, scores), in place.
inline void normalize(std::vector<int64_t>& scores, bool reverse) {
  int64_t max_count = 0;
  for (int64_t s : scores)
    if (s > max_count) max_count = s;
  if (max_count == 0) {
    if (reverse)
      for (int64_t& s : scores) s = kMaxNodeScore;
    return;
  }
  for (int64_t& s : scores) {
    int64_t v = kMaxNodeScore * s / max_count;
    s = reverse ? kMaxNodeScore - v : v;
  }
}

}  // namespace caldera::nodeorder
