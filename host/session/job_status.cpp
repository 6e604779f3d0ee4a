// The job status at close: each job's PodGroup phase as Volcano's jobStatus computes it,
// the tasks left pipelined or allocated, and why each pending task stays pending.
// Follows Volcano's pkg/scheduler/framework/job_updater.go and jobStatus in session.go.
#include "host/session/session.hpp"

namespace caldera {

void Session::update_job_status() {
  for (JobInfo* j : job_list_) {
    // Volcano's jobStatus (framework/job_updater.go / session.go).
    bool unschedulable = j->unschedulable;
    JobPhase phase = j->phase;
    if (j->count(CAL_TASK_RUNNING) != 0 && unschedulable) {
      phase = JobPhase::Unknown;
    } else {
      int32_t allocated = j->count(CAL_TASK_ALLOCATED) + j->count(CAL_TASK_BINDING) +
                          j->count(CAL_TASK_BOUND) + j->count(CAL_TASK_RUNNING) +
                          j->count(CAL_TASK_SUCCEEDED);
      if (allocated >= j->min_available)
        phase = JobPhase::Running;
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
      if (t->status == CAL_TASK_PIPELINED)
        result_.pipelined.emplace_back(t->uid, t->node ? t->node->name : std::string());
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
