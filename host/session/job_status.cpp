// The job status at close: each job's PodGroup phase as Volcano's jobStatus computes it,
// the tasks left pipelined or allocated, and why each pending task stays pending.
// Follows Volcano's pkg/scheduler/framework/job_updater.go and jobStatus in session.go.
#include "host/session/session.hpp"

namespace caldera {

void Session::update_job_status() {
  for (JobInfo* j : job_list_) {
    // Volcano's getPodGroupPhase (framework/session.go). Scheduled means Running, Bound,
    // Failed or Succeeded, plus Releasing tasks that are on a node: tasks allocated or
    // bound in this very session (Allocated, Binding) do not count yet, so a job placed
    // now stays Inqueue until its pods are seen bound. All scheduled tasks completed
    // (none at all with minMember 0 included) is Completed.
    bool unschedulable = j->unschedulable;
    JobPhase phase = j->phase;
    if (j->count(CAL_TASK_RUNNING) != 0 && unschedulable) {
      phase = JobPhase::Unknown;
    } else {
      const int32_t completed = j->count(CAL_TASK_SUCCEEDED) + j->count(CAL_TASK_FAILED);
      int32_t scheduled = j->count(CAL_TASK_BOUND) + j->count(CAL_TASK_RUNNING) + completed;
      for (const TaskInfo* t : j->tasks)
        if (t->status == CAL_TASK_RELEASING && t->node) ++scheduled;
      if (scheduled >= j->min_available)
        phase = scheduled == completed ? JobPhase::Completed : JobPhase::Running;
      else if (j->phase != JobPhase::Inqueue)
        phase = JobPhase::Pending;
    }
    j->phase = phase;
    if (j->podgroup) result_.podgroup_phases[j->uid] = phase;

    std::string job_reason;
    for (const auto& [plugin, text] : j->pending_reasons) {
      if (!job_reason.empty()) job_reason += "; ";
      job_reason += text;
    }
    if (!job_reason.empty()) result_.job_pending[j->uid] = job_reason;

    for (TaskInfo* t : j->tasks) {
      if (t->status == CAL_TASK_PIPELINED) {
        result_.pipelined.emplace_back(t->uid, t->node ? t->node->name : std::string());
        if (t->eviction_occurred && t->node) result_.nominated.emplace_back(t->uid, t->node->name);
      }
      if (t->status == CAL_TASK_ALLOCATED)
        result_.allocated.emplace_back(t->uid, t->node ? t->node->name : std::string());
      if (t->status != CAL_TASK_PENDING) continue;
      std::string why = t->pending_reason;
      if (why.empty()) why = job_reason;
      if (why.empty() && j->phase == JobPhase::Pending)
        why = "PodGroup " + j->uid + " is Pending: not admitted by enqueue yet";
      if (why.empty()) why = "not scheduled in this session";
      result_.pending[std::string(t->uid)] = why;
    }
  }
}

}  // namespace caldera
