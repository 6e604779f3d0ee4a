// The arithmetic of the drf plugin (Dominant Resource Fairness), free of the ABI so that
// unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/drf/drf.go: calculateShare, the jobOrderFn
// comparison and the preemptableFn test (with its shareDelta).
#pragma once

#include <cmath>
#include <cstddef>

namespace caldera::drf {

// Volcano's shareDelta: shares closer than this count as equal when choosing victims.
inline constexpr double kShareDelta = 0.000001;

struct DominantShare {
  int resource = -1;  // resource id of the dominant resource, -1 when nothing is allocated
  double share = 0;   // allocated / total of that resource
};

// Volcano's calculateShare: the largest allocated/total over the cluster's resources.
// Only dimensions the cluster has (total > 0) count: a resource no ready node offers has
// no share to divide, and pods are not a resource dimension here. Ties keep the first
// (lowest id) dimension, so the dominant resource is deterministic.
inline DominantShare dominant_share(const double* allocated, const double* total, size_t n) {
  DominantShare d;
  for (size_t i = 0; i < n; ++i) {
    if (!(total[i] > 0)) continue;
    const double s = allocated[i] / total[i];
    if (s > d.share) {
      d.share = s;
      d.resource = static_cast<int>(i);
    }
  }
  return d;
}

// jobOrderFn: the smaller share goes first; exactly equal shares are no opinion (0), so
// the next plugin or the host's fallback decides.
inline int compare_shares(double l, double r) {
  if (l == r) return 0;
  return l < r ? -1 : 1;
}

// preemptableFn's test for one preemptee: `preemptor_after` is the preemptor job's share
// with the preemptor task added, `preemptee_after` the preemptee job's share with this
// (and every earlier candidate of the same job) taken away. The preemptee may go when its
// job would still hold at least the preemptor job's share, so that eviction never makes
// the preemptee the poorer job (which would invite preemption back).
inline bool may_preempt(double preemptor_after, double preemptee_after) {
  return preemptor_after < preemptee_after ||
         std::fabs(preemptor_after - preemptee_after) <= kShareDelta;
}

}  // namespace caldera::drf
