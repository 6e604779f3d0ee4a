// The arithmetic of the overcommit plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/overcommit/overcommit.go (OnSessionOpen's idle
// and inqueue sums, the enqueueable and enqueued functions, validate()) and the helpers it
// calls: Resource.ScaleResourcesWithRatios and LessEqualWithDimension
// (pkg/scheduler/api/resource_info.go), util.CalculateAllocatedTaskNum and
// util.GetInqueueResource (pkg/scheduler/plugins/util/util.go).
//
// Vectors are the session's dense resource vectors (cpu millicores, memory bytes, scalars
// in milli-units); a dimension the PodGroup's minResources leaves out reads 0.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "caldera/resources.hpp"

namespace caldera::overcommit {

inline constexpr const char* kFactorKey = "overcommit-factor";
inline constexpr const char* kFactorPrefix = "overcommit-factor.";  // + a resource name
inline constexpr double kDefaultFactor = 1.2;

// validate(): a factor below 1 would shrink the cluster. Volcano replaces it with the
// default and logs it; Caldera refuses the config instead (the plugin's check_args), so
// that a typo is an error with a file and line, never a silent 1.2. Not-a-number and
// infinity are refused the same way: neither is a ratio, and infinity times an empty
// dimension is not a number.
inline bool valid_factor(double f) { return std::isfinite(f) && f >= 1.0; }

// What is wrong with the factor given for `key`, or "" when it is valid; the plugin's
// check_args refuses the config with this text ("overcommit-factor.cpu must be a finite
// number >= 1, got 0.5").
inline std::string factor_problem(const std::string& key, double f) {
  if (valid_factor(f)) return {};
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.15g", f);
  return key + " must be a finite number >= 1, got " + buf;
}

// The idle resources enqueue may still promise:
//   total * factor - used  (ScaleResourcesWithRatios, then SubWithoutAssert)
// `factors` holds each dimension's factor (its own overcommit-factor.<name>, else the
// overcommit-factor). The result may be negative: a cluster that is already overcommitted
// admits nothing that asks for that dimension.
inline ResVec idle(const ResVec& total, const ResVec& factors, const ResVec& used) {
  ResVec out(total.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = total[i] * factors[i] - used[i];
  return out;
}

// Whether a Running job still reserves part of its minResources: Volcano counts it only
// when as many tasks as minMember are placed (allocated, binding, bound or running), so
// that a finished driver of a still-running PodGroup does not reserve again.
inline bool running_job_reserves(int32_t allocated_tasks, int32_t min_member) {
  return allocated_tasks >= min_member;
}

// GetInqueueResource: what a Running job's minResources still reserves beyond what its
// tasks already hold, per dimension max(0, minResources - allocated).
inline ResVec running_reserve(const double* min_resources, const double* allocated, size_t n) {
  ResVec out(n);
  for (size_t i = 0; i < n; ++i) {
    const double left = min_resources[i] - allocated[i];
    out[i] = left > 0 ? left : 0;
  }
  return out;
}

// The dimensions in which admitting a job with minResources `min` would overcommit the
// cluster: (inqueue + min) > idle, checked only where min asks for something
// (LessEqualWithDimension, with Volcano's 0.1 tolerance). Empty: the job may be enqueued.
inline std::vector<size_t> overused_dims(const ResVec& inqueue, const double* min,
                                         const ResVec& idle) {
  std::vector<size_t> out;
  for (size_t i = 0; i < idle.size(); ++i) {
    if (!(min[i] > kMinResource)) continue;
    if (!res::le(inqueue[i] + min[i], idle[i])) out.push_back(i);
  }
  return out;
}

inline bool admits(const ResVec& inqueue, const double* min, const ResVec& idle) {
  return overused_dims(inqueue, min, idle).empty();
}

}  // namespace caldera::overcommit
