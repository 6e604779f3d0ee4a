// gang: all-or-nothing scheduling of a job's minMember tasks (and of each role's
// minTaskMember).
//
// Follows Volcano's pkg/scheduler/plugins/gang/gang.go (with the JobInfo checks of
// pkg/scheduler/api/job_info.go), mapping its registrations to ABI slots:
//   AddJobValidFn                     -> job_valid     (CheckTaskValid, ValidTaskNum)
//   AddPreemptableFn/AddReclaimableFn -> preemptable, reclaimable (occupied counting)
//   AddJobOrderFn                     -> job_order     (ready jobs after unready ones)
//   AddJobReadyFn                     -> job_ready     (CheckTaskReady && IsReady)
//   AddJobPipelinedFn                 -> job_pipelined (CheckTaskPipelined && IsPipelined;
//                                                       permit or reject)
//   AddJobStarvingFns                 -> job_starving  (IsStarving)
//   AddSubJobOrderFn                  -> sub_job_order (ABI 1.8: ready sub-jobs after
//                                        unready ones)
//   AddSubJobReadyFn / PipelinedFn    -> sub_job_ready, sub_job_pipelined (IsReady /
//                                        IsPipelined of the sub-job); job_valid, job_ready
//                                        and job_pipelined add CheckSubJobValid / Ready /
//                                        Pipelined (each subGroupPolicy's minSubGroups)
//   AddUnifiedEvictableFn             -> unified_evictable (ABI 1.7: allows every candidate;
//                                        the gang-aware actions keep victims' gangs through
//                                        their safe / whole bundles instead)
//   OnSessionClose                    -> the plugin's close: every job with tasks that is
//                                        not IsReady() gets the PodGroup's Unschedulable
//                                        condition, "U/N tasks in gang unschedulable:
//                                        FitError()" (U = minMember less the schedulable
//                                        tasks), unless its terminating pods fill the gang.
// The pure rules live in gang_math.hpp.
//
// The close message's counts and text come from the host (job_schedulable_num: ready tasks
// and pending ones whose last transaction was an allocation; job_fit_error: the job's
// FitError()), as Volcano's gang reads them from the JobInfo.
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/sdk.hpp"
#include "gang/gang_math.hpp"

namespace {

using caldera::gang::JobCounts;
using caldera::gang::RoleCounts;
namespace sdk = caldera::sdk;
using caldera::sdk::Args;
using caldera::sdk::Job;
using caldera::sdk::Session;
using caldera::sdk::Status;
using caldera::sdk::SubJob;
using caldera::sdk::Task;

// The job's counts from the host. Roles are read only when a rule needs them; pending
// best-effort tasks (which need a walk over the tasks) only on demand, see add_best_effort.
JobCounts job_counts(const Job& j, bool with_roles) {
  JobCounts c;
  c.min_available = j.min_available();
  c.ready = j.ready_num();
  c.waiting = j.waiting_num();
  c.valid = j.valid_num();
  if (with_roles) {
    const size_t n = j.role_count();
    c.roles.resize(n);
    for (size_t i = 0; i < n; ++i) {
      RoleCounts& r = c.roles[i];
      r.name = std::string(j.role_name(i));
      r.min = j.role_min(i);
      r.ready = j.role_ready(i);
      r.waiting = j.role_waiting(i);
      r.valid = j.role_valid(i);
    }
  }
  return c;
}

// Volcano counts a pending task that requests nothing as ready (PendingBestEffortTaskNum,
// and the InitResreq.IsEmpty() case of the CheckTask* functions).
void add_best_effort(const Job& j, JobCounts& c) {
  c.pending_best_effort = 0;
  for (RoleCounts& r : c.roles) r.pending_best_effort = 0;
  const size_t n = j.task_count();
  for (size_t i = 0; i < n; ++i) {
    const Task t = j.task(i);
    if (t.status() != CAL_TASK_PENDING || !t.best_effort()) continue;
    ++c.pending_best_effort;
    const std::string_view role = t.role();
    for (RoleCounts& r : c.roles)
      if (r.name == role) {
        ++r.pending_best_effort;
        break;
      }
  }
}

// Evaluates a rule that can only become true with more best-effort tasks counted: first
// without the task walk, then (only when that says no) with it.
template <class Rule>
bool with_best_effort(const Job& j, JobCounts& c, Rule rule) {
  if (rule(c)) return true;
  add_best_effort(j, c);
  return rule(c);
}

// Volcano's shouldSkipUnschedulableForReleasing: a job short of ready tasks only because
// some of its pods are terminating on their nodes (Releasing, with a node) still holds its
// gang slots; with nothing pending or pipelined it is not called unschedulable.
bool releasing_fills_gang(const Job& j) {
  int32_t releasing = 0, scheduled = 0;
  const size_t n = j.task_count();
  for (size_t i = 0; i < n; ++i) {
    const Task t = j.task(i);
    switch (t.status()) {
      case CAL_TASK_RELEASING:
        if (t.node()) ++releasing;
        break;
      case CAL_TASK_PENDING:
      case CAL_TASK_PIPELINED:
        return false;
      case CAL_TASK_RUNNING:
      case CAL_TASK_BOUND:
      case CAL_TASK_FAILED:
      case CAL_TASK_SUCCEEDED:
        ++scheduled;
        break;
      default:
        break;
    }
  }
  return releasing > 0 && scheduled + releasing >= j.min_available();
}

struct Gang {
  static constexpr const char* kName = "gang";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "gang scheduling: a job runs only when minMember of its tasks (and each role's "
      "minTaskMember) can run together";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::job_order, sdk::Hook::preemptable,
      sdk::Hook::reclaimable, sdk::Hook::job_ready, sdk::Hook::job_starving,
      sdk::Hook::job_pipelined, sdk::Hook::job_valid, sdk::Hook::unified_evictable,
      sdk::Hook::sub_job_order, sdk::Hook::sub_job_ready, sdk::Hook::sub_job_pipelined);
  // Volcano's gang plugin reads no arguments.

  Gang(Session s, const Args&) : ssn_(s) {}

  // OnSessionClose: explain every job that is not ready. Runs inside the host's close();
  // nothing may escape a destructor, so failures are logged and dropped.
  ~Gang() {
    try {
      const size_t n = ssn_.job_count();
      for (size_t i = 0; i < n; ++i) {
        const Job j = ssn_.job(i);
        const size_t tasks = j.task_count();
        if (tasks == 0) continue;  // as Volcano: an empty job has nothing to explain
        JobCounts c = job_counts(j, /*with_roles=*/true);
        if (with_best_effort(j, c, caldera::gang::is_ready)) continue;
        if (releasing_fills_gang(j)) continue;
        const int64_t unready = int64_t{j.min_available()} - j.schedulable_num();
        j.set_unschedulable_condition(kName, std::to_string(unready) + "/" +
                                                 std::to_string(tasks) +
                                                 " tasks in gang unschedulable: " +
                                                 std::string(j.fit_error()));
      }
    } catch (const std::exception& e) {
      caldera::sdk::log(CAL_LOG_ERROR, kName,
                        std::string("pending reasons at close failed: ") + e.what());
    } catch (...) {
      caldera::sdk::log(CAL_LOG_ERROR, kName, "pending reasons at close failed");
    }
  }

  Status job_valid(Job j) {
    const std::string msg = caldera::gang::job_valid_message(
        job_counts(j, true), sub_groups(j, [](const caldera::gang::SubJobCounts&) {
          return true;
        }, false));
    if (msg.empty()) return Status::ok();
    return Status::unschedulable(msg);
  }

  cal_vote preemptable(Task, const std::vector<Task>& preemptees,
                       std::vector<uint8_t>& victims) {
    return occupied_victims(preemptees, victims);
  }
  cal_vote reclaimable(Task, const std::vector<Task>& reclaimees,
                       std::vector<uint8_t>& victims) {
    return occupied_victims(reclaimees, victims);
  }

  // gangpreempt and gangreclaim bundle their candidates so that a victim job loses tasks
  // only above its minMember or goes whole (actions/gang_bundles.hpp): the occupied
  // counting of preemptable has nothing left to check, and Volcano's gang permits all.
  cal_vote unified_evictable(const sdk::EvictionContext&, const std::vector<Task>& candidates,
                             std::vector<uint8_t>& victims) {
    std::fill(victims.begin(), victims.begin() + candidates.size(), 1);
    return CAL_PERMIT;
  }

  // Ready jobs go after jobs that still need tasks, so that resources first complete
  // gangs that are not yet running.
  int job_order(Job l, Job r) {
    JobCounts lc = job_counts(l, false), rc = job_counts(r, false);
    const bool l_ready = with_best_effort(l, lc, caldera::gang::is_ready);
    const bool r_ready = with_best_effort(r, rc, caldera::gang::is_ready);
    if (l_ready == r_ready) return 0;
    return l_ready ? 1 : -1;
  }

  // CheckTaskReady && CheckSubJobReady && IsReady.
  bool job_ready(Job j) {
    JobCounts c = job_counts(j, true);
    return with_best_effort(j, c, caldera::gang::job_ready) &&
           sub_groups(j, caldera::gang::sub_job_ready, true);
  }

  cal_vote job_pipelined(Job j) {
    JobCounts c = job_counts(j, true);
    return with_best_effort(j, c, caldera::gang::job_pipelined) &&
                   sub_groups(j, caldera::gang::sub_job_pipelined, true)
               ? CAL_PERMIT
               : CAL_REJECT;
  }

  // Ready sub-jobs go after those that still need tasks.
  int sub_job_order(SubJob l, SubJob r) {
    const bool l_ready = caldera::gang::sub_job_ready(sub_job_counts(l));
    const bool r_ready = caldera::gang::sub_job_ready(sub_job_counts(r));
    if (l_ready == r_ready) return 0;
    return l_ready ? 1 : -1;
  }
  bool sub_job_ready(SubJob s) { return caldera::gang::sub_job_ready(sub_job_counts(s)); }
  cal_vote sub_job_pipelined(SubJob s) {
    return caldera::gang::sub_job_pipelined(sub_job_counts(s)) ? CAL_PERMIT : CAL_REJECT;
  }

  bool job_starving(Job j) { return caldera::gang::is_starving(job_counts(j, false)); }

 private:
  static caldera::gang::SubJobCounts sub_job_counts(SubJob s) {
    caldera::gang::SubJobCounts c;
    c.min_available = s.min_available();
    // One pass over its tasks (job_ready asks this for every sub-job after each placement).
    for (size_t i = 0, n = s.task_count(); i < n; ++i) {
      const Task t = s.task(i);
      switch (t.status()) {
        case CAL_TASK_BOUND:
        case CAL_TASK_BINDING:
        case CAL_TASK_RUNNING:
        case CAL_TASK_ALLOCATED:
        case CAL_TASK_SUCCEEDED:
          ++c.ready;
          break;
        case CAL_TASK_PIPELINED:
          ++c.waiting;
          break;
        case CAL_TASK_PENDING:
          c.pending_best_effort += t.best_effort();
          break;
        default:
          break;
      }
    }
    return c;
  }

  // Whether the job's sub-jobs satisfy its subGroupPolicy minimums under `cond` (Volcano's
  // CheckSubJobValid with every sub-job counted, CheckSubJobReady / Pipelined with the
  // policies of minSubGroups 0 skipped). True for a job without a policy.
  template <class Cond>
  static bool sub_groups(Job j, Cond cond, bool skip_zero) {
    const size_t policies = j.sub_group_count();
    if (policies == 0) return true;
    std::vector<std::pair<std::string_view, int32_t>> groups;
    for (size_t i = 0; i < policies; ++i) {
      int32_t min = 0;
      std::string_view g = j.sub_group(i, &min);
      groups.emplace_back(g, min);
    }
    std::vector<std::string_view> met;
    for (size_t i = 0, n = j.sub_job_count(); i < n; ++i) {
      const SubJob s = j.sub_job(i);
      if (cond(sub_job_counts(s))) met.push_back(s.group());
    }
    return caldera::gang::sub_groups_meet(groups, met, skip_zero);
  }

  cal_vote occupied_victims(const std::vector<Task>& candidates, std::vector<uint8_t>& victims) {
    caldera::gang::OccupiedCounter<const cal_job*> occupied;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const Job j = candidates[i].job();
      victims[i] = occupied.take(j.handle(), j.ready_num(), j.min_available()) ? 1 : 0;
    }
    return CAL_PERMIT;
  }

  Session ssn_;
};

}  // namespace

CALDERA_PLUGIN(Gang)
