// priority: orders jobs and tasks by priority and lets higher-priority work preempt
// lower-priority work.
//
// Follows Volcano's pkg/scheduler/plugins/priority/priority.go, which registers exactly:
//   AddTaskOrderFn     -> task_order    (task priority, higher first)
//   AddJobOrderFn      -> job_order     (job priority from the PodGroup's priority class)
//   AddPreemptableFn   -> preemptable   (lower job priority, or lower task priority in
//                                        the same job)
//   AddJobStarvingFns  -> job_starving  (ready + pipelined < number of tasks)
//   AddSubJobOrderFn   -> sub_job_order (ABI 1.8: the sub-job's priority, its tasks'
//                                        highest, higher first)
//   AddUnifiedEvictableFn -> unified_evictable (ABI 1.7, the gang-aware actions: for
//                                        gang-reclaim every candidate, as reclaim is about
//                                        fairness between queues; otherwise a candidate
//                                        whose job's priority is lower than the evicting
//                                        job's)
// Volcano's priority plugin registers no reclaimable and no job_pipelined function, so
// neither does this one: a config that enables those points for priority is accepted
// (a known point the plugin does not implement) and priority simply takes no part, as in
// Volcano. Reclaim across queues is decided by conformance, gang and proportion.
//
// The NodeIPAware feature gate of Volcano's taskOrderFn (rank / name-suffix ordering of
// MPI and PyTorch pods) is off by default there and is not carried over: the host's task
// order fallback already orders by the number after the last '-' of the pod name.
//
// Task priority is 1 when the pod sets none (the session does this, as Volcano's
// TaskInfo does); job priority is the PodGroup's priority class value, else 0.
#include <cstdint>
#include <vector>

#include "caldera/sdk.hpp"
#include "priority/priority_math.hpp"

namespace {

namespace sdk = caldera::sdk;
using caldera::sdk::Args;
using caldera::sdk::Job;
using caldera::sdk::Session;
using caldera::sdk::Task;

struct Priority {
  static constexpr const char* kName = "priority";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "orders jobs and tasks by priority; lower-priority tasks may be preempted";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::job_order, sdk::Hook::task_order,
      sdk::Hook::preemptable, sdk::Hook::job_starving, sdk::Hook::unified_evictable,
      sdk::Hook::sub_job_order);
  // Volcano's priority plugin reads no arguments.

  Priority(Session, const Args&) {}

  int task_order(Task l, Task r) {
    return caldera::priority::order_higher_first(l.priority(), r.priority());
  }

  int job_order(Job l, Job r) {
    return caldera::priority::order_higher_first(l.priority(), r.priority());
  }

  int sub_job_order(sdk::SubJob l, sdk::SubJob r) {
    return caldera::priority::order_higher_first(l.priority(), r.priority());
  }

  cal_vote preemptable(Task preemptor, const std::vector<Task>& preemptees,
                       std::vector<uint8_t>& victims) {
    const Job pj = preemptor.job();
    const int32_t pj_prio = pj.priority();
    const int32_t pt_prio = preemptor.priority();
    for (size_t i = 0; i < preemptees.size(); ++i) {
      const Task& t = preemptees[i];
      const Job tj = t.job();
      victims[i] = caldera::priority::may_preempt(tj == pj, pj_prio, tj.priority(), pt_prio,
                                                  t.priority())
                       ? 1
                       : 0;
    }
    return CAL_PERMIT;
  }

  cal_vote unified_evictable(const sdk::EvictionContext& ctx, const std::vector<Task>& candidates,
                             std::vector<uint8_t>& victims) {
    const bool reclaim = ctx.kind() == CAL_EVICTION_GANG_RECLAIM;
    const int32_t evicting = reclaim ? 0 : ctx.job().priority();
    for (size_t i = 0; i < candidates.size(); ++i)
      victims[i] = reclaim || candidates[i].job().priority() < evicting ? 1 : 0;
    return CAL_PERMIT;
  }

  bool job_starving(Job j) {
    return caldera::priority::job_starving(j.ready_num(), j.waiting_num(), j.task_count());
  }
};

}  // namespace

CALDERA_PLUGIN(Priority)
