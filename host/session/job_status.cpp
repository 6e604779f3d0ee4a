// The job status at close: each job's PodGroup phase as Volcano's jobStatus computes it,
// the tasks left pipelined or allocated, and why each pending task stays pending.
// Follows Volcano's pkg/scheduler/framework/job_updater.go and jobStatus in session.go.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

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

    // The plugins' job-level reasons (gang, proportion, ...) go with the PodGroup's events.
    std::string job_reason;
    for (const auto& [plugin, text] : j->pending_reasons) {
      if (!job_reason.empty()) job_reason += "; ";
      job_reason += text;
    }
    if (!job_reason.empty()) result_.job_pending[j->uid] = job_reason;

    std::string fit_error;  // the job's FitError(), made when a task needs it
    for (TaskInfo* t : j->tasks) {
      if (t->status == CAL_TASK_PIPELINED) {
        result_.pipelined.emplace_back(t->uid, t->node ? t->node->name : std::string());
        if (t->eviction_occurred && t->node) result_.nominated.emplace_back(t->uid, t->node->name);
      }
      if (t->status == CAL_TASK_ALLOCATED)
        result_.allocated.emplace_back(t->uid, t->node ? t->node->name : std::string());
      if (t->status != CAL_TASK_PENDING) continue;
      // Volcano's RecordJobStatusEvent: the task's own message (its fit errors, or where its
      // last, undone placement would have put it), else the job's FitError().
      if (!t->pending_reason.empty()) {
        result_.pending[std::string(t->uid)] = t->pending_reason;
        continue;
      }
      if (fit_error.empty()) fit_error = job_fit_error(*j);
      result_.pending[std::string(t->uid)] = fit_error;
    }
  }
}

namespace {
// The message of a task whose last placement in the session was an allocation that was
// undone (Volcano's TaskSchedulingReason for a LastTransaction of status Allocated).
bool schedulable_message(const std::string& m) {
  return m.rfind("Pod ", 0) == 0 && m.size() > 30 &&
         m.compare(m.size() - 30, 30, "once minAvailable is satisfied") == 0 &&
         m.find("resource is released") == std::string::npos;
}

// "N name" strings, sorted as strings (Volcano's sortReasonsHistogram).
std::string histogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) parts.push_back(std::to_string(n) + " " + name);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}
}  // namespace

// Volcano's JobInfo.FitError: whether the PodGroup is ready, the job's tasks by status
// with its minAvailable, the pending tasks by reason, and the first task's node fit errors
// (Volcano walks the tasks in map order there; Caldera in the job's task order).
std::string Session::job_fit_error(const JobInfo& j) const {
  std::map<std::string, int> by_status;
  int32_t pending_best_effort = 0;
  std::map<std::string, int> pending;
  for (const TaskInfo* t : j.tasks) {
    ++by_status[to_string(t->status)];
    if (t->status != CAL_TASK_PENDING) continue;
    if (t->best_effort) ++pending_best_effort;
    ++pending[schedulable_message(t->pending_reason) ? "Schedulable" : "Unschedulable"];
  }
  by_status["minAvailable"] = j.min_available;
  const bool ready = j.ready_num() + pending_best_effort >= j.min_available;
  std::string out = std::string(ready ? "pod group is ready" : "pod group is not ready") + ", " +
                    histogram(by_status);
  if (!pending.empty()) out += "; Pending: " + histogram(pending);
  for (const TaskInfo* t : j.tasks) {
    if (t->status != CAL_TASK_PENDING || t->pending_reason.empty() ||
        schedulable_message(t->pending_reason) ||
        t->pending_reason.rfind("Pod ", 0) == 0)
      continue;
    out += ". Origin reason is " + std::string(t->name) + ": " + t->pending_reason;
    break;
  }
  return out;
}

}  // namespace caldera
