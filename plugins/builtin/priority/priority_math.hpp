// The arithmetic of the priority plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/priority/priority.go (taskOrderFn, jobOrderFn,
// preemptableFn, jobStarvingFn).
#pragma once

#include <cstddef>
#include <cstdint>

namespace caldera::priority {

// Higher priority goes first: negative when l goes first, positive when r does, 0 when
// equal (the next plugin or the host's fallback decides). Used for tasks and jobs alike.
inline int order_higher_first(int32_t l, int32_t r) {
  if (l == r) return 0;
  return l > r ? -1 : 1;
}

// Volcano's preemptableFn for one preemptee. Between different jobs the job priorities
// decide (the preemptee's job must be strictly lower); inside one job the task priorities
// decide (the preemptee task must be strictly lower). Equal never preempts, so two peers
// cannot evict each other back and forth.
inline bool may_preempt(bool same_job, int32_t preemptor_job_priority,
                        int32_t preemptee_job_priority, int32_t preemptor_task_priority,
                        int32_t preemptee_task_priority) {
  if (!same_job) return preemptee_job_priority < preemptor_job_priority;
  return preemptee_task_priority < preemptor_task_priority;
}

// Volcano's priority jobStarvingFn: the job still has tasks that are neither ready nor
// pipelined (len(ji.Tasks) counts every task of the job, whatever its status).
inline bool job_starving(int32_t ready, int32_t waiting, size_t task_count) {
  return static_cast<int64_t>(ready) + waiting < static_cast<int64_t>(task_count);
}

}  // namespace caldera::priority
