// The arithmetic of the gang plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/gang/gang.go and the JobInfo methods it calls in
// pkg/scheduler/api/job_info.go: ReadyTaskNum, WaitingTaskNum, ValidTaskNum,
// PendingBestEffortTaskNum, IsReady, IsPipelined, IsStarving, CheckTaskValid,
// CheckTaskReady, CheckTaskPipelined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace caldera::gang {

// One role ("volcano.sh/task-spec") of a job: its min member (PodGroup minTaskMember, 0
// when unset) and its task counts, with Volcano's meaning of each count.
struct RoleCounts {
  std::string name;
  int32_t min = 0;
  int32_t ready = 0;    // allocated, binding, bound, running, succeeded
  int32_t waiting = 0;  // pipelined
  int32_t valid = 0;    // ready + waiting + pending
  int32_t pending_best_effort = 0;  // pending tasks that request nothing
};

// Decimal text of n. (std::to_string pulls a GNU-unique symbol into the .so, which would
// make the host's dlclose of a replaced plugin a no-op; snprintf does not.)
inline std::string num(int64_t n) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(n));
  return buf;
}

// A job's counts as the gang checks read them.
struct JobCounts {
  int32_t min_available = 0;  // PodGroup minMember
  int32_t ready = 0;
  int32_t waiting = 0;
  int32_t valid = 0;
  int32_t pending_best_effort = 0;
  std::vector<RoleCounts> roles;
};

// Volcano's TaskMinAvailableTotal: the sum of the roles' min members.
inline int64_t task_min_total(const JobCounts& j) {
  int64_t sum = 0;
  for (const RoleCounts& r : j.roles) sum += r.min;
  return sum;
}

// Volcano skips every per-role check when minMember < sum(minTaskMember): the job-level
// minimum is then the weaker rule and the role minimums are advisory.
inline bool role_checks_apply(const JobCounts& j) { return j.min_available >= task_min_total(j); }

// The first role failing a per-role rule, or nullptr. `count` maps a role to the number
// the rule compares with its min.
template <class Count>
const RoleCounts* first_short_role(const JobCounts& j, Count count) {
  if (!role_checks_apply(j)) return nullptr;
  for (const RoleCounts& r : j.roles)
    if (r.min > 0 && count(r) < r.min) return &r;
  return nullptr;
}

// CheckTaskValid: every role with a min has at least min tasks that can still run.
inline const RoleCounts* first_invalid_role(const JobCounts& j) {
  return first_short_role(j, [](const RoleCounts& r) { return r.valid; });
}
inline bool check_task_valid(const JobCounts& j) { return first_invalid_role(j) == nullptr; }

// CheckTaskReady: every role has min tasks ready (a pending best-effort task counts: it
// needs nothing, so it is as good as placed).
inline const RoleCounts* first_unready_role(const JobCounts& j) {
  return first_short_role(j, [](const RoleCounts& r) { return r.ready + r.pending_best_effort; });
}
inline bool check_task_ready(const JobCounts& j) { return first_unready_role(j) == nullptr; }

// CheckTaskPipelined: as CheckTaskReady, with pipelined tasks counted too.
inline bool check_task_pipelined(const JobCounts& j) {
  return first_short_role(j, [](const RoleCounts& r) {
           return r.ready + r.waiting + r.pending_best_effort;
         }) == nullptr;
}

// IsReady: ready + pending best-effort >= minMember.
inline bool is_ready(const JobCounts& j) {
  return int64_t{j.ready} + j.pending_best_effort >= j.min_available;
}
// IsPipelined: waiting + ready + pending best-effort >= minMember.
inline bool is_pipelined(const JobCounts& j) {
  return int64_t{j.waiting} + j.ready + j.pending_best_effort >= j.min_available;
}
// IsStarving: waiting + ready < minMember. Volcano's gang jobStarvingFn looks only at the
// job-level minimum ("in the preemption scenario the task minAvailable is not concerned").
inline bool is_starving(const JobCounts& j) {
  return int64_t{j.waiting} + j.ready < j.min_available;
}

// gang's jobReadyFn and jobPipelinedFn.
inline bool job_ready(const JobCounts& j) { return check_task_ready(j) && is_ready(j); }
inline bool job_pipelined(const JobCounts& j) {
  return check_task_pipelined(j) && is_pipelined(j);
}

// gang's validJobFn. Returns "" when valid, else Volcano's message.
// `sub_groups_valid`: Volcano's CheckSubJobValid (every subGroupPolicy has at least its
// minSubGroups sub-jobs), checked between the two.
inline std::string job_valid_message(const JobCounts& j, bool sub_groups_valid = true) {
  if (!check_task_valid(j)) return "Not enough valid pods of each task for gang-scheduling";
  if (!sub_groups_valid) return "Not enough valid subGroups of each task for gang-scheduling";
  if (j.valid < j.min_available)
    return "Not enough valid tasks for gang-scheduling, valid: " + num(j.valid) +
           ", min: " + num(j.min_available);
  return {};
}

// A sub-job's counts (Volcano's SubJobInfo): its size and its tasks by status.
struct SubJobCounts {
  int32_t min_available = 1;
  int32_t ready = 0;                // Bound, Binding, Running, Allocated, Succeeded
  int32_t waiting = 0;              // Pipelined
  int32_t pending_best_effort = 0;  // Pending and best-effort
};
// SubJobInfo.IsReady / IsPipelined.
inline bool sub_job_ready(const SubJobCounts& s) {
  return s.ready + s.pending_best_effort >= s.min_available;
}
inline bool sub_job_pipelined(const SubJobCounts& s) {
  return s.waiting + s.ready + s.pending_best_effort >= s.min_available;
}

// Volcano's checkSubJobCondition: for every policy with a minSubGroups above 0, that many of
// its sub-jobs meet the condition. `groups`: (group, minSubGroups) per policy; `met`: the
// group of each sub-job that meets it.
inline bool sub_groups_meet(const std::vector<std::pair<std::string_view, int32_t>>& groups,
                            const std::vector<std::string_view>& met, bool skip_zero) {
  for (const auto& [group, min] : groups) {
    if (skip_zero && min == 0) continue;
    int32_t n = 0;
    for (std::string_view g : met) n += g == group;
    if (n < min) return false;
  }
  return true;
}

// gang's preemptableFn / reclaimableFn ("occupied" counting). Within one call, each job
// starts with its ready count; a candidate may be evicted only while its job keeps more
// than minMember ready tasks, and each victim taken lowers the job's count. So a job never
// loses a task it needs for its gang, however many of its tasks are candidates.
template <class Key>
class OccupiedCounter {
 public:
  // True when the candidate of job `key` (ready tasks `ready`, minMember `min`) may go.
  bool take(const Key& key, int32_t ready, int32_t min) {
    auto [it, fresh] = occupied_.try_emplace(key, ready);
    (void)fresh;
    if (it->second > min) {
      --it->second;
      return true;
    }
    return false;
  }

 private:
  std::unordered_map<Key, int32_t> occupied_;
};

}  // namespace caldera::gang
