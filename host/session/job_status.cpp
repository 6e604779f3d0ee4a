// The job status at close: each job's PodGroup phase as Volcano's jobStatus computes it,
// the tasks left pipelined or allocated, and why each pending task stays pending.
// Follows Volcano's pkg/scheduler/framework/job_updater.go and jobStatus in session.go.
#include <fmt/format.h>

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
    // Volcano's RecordJobStatusEvent: a PodGroup still Pending, Inqueue or Unknown at close
    // gets an Unschedulable event with the count of pending tasks and FitError() (also
    // when every task was just placed: its phase moves next session).
    if (j->podgroup && !j->tasks.empty() &&
        (phase == JobPhase::Pending || phase == JobPhase::Inqueue || phase == JobPhase::Unknown))
      result_.podgroup_unschedulable[j->uid] =
          fmt::format("{}/{} tasks in gang unschedulable: {}", j->count(CAL_TASK_PENDING),
                      j->tasks.size(), job_fit_error(*j));

    // The plugins' job-level reasons (gang, proportion, ...) go with the PodGroup's events.
    std::string job_reason;
    for (const auto& [plugin, text] : j->pending_reasons) {
      if (!job_reason.empty()) job_reason += "; ";
      job_reason += text;
    }
    if (!job_reason.empty()) result_.job_pending[j->uid] = job_reason;
    if (j->podgroup && !j->condition_message.empty())
      result_.podgroup_conditions[j->uid] = j->condition_message;

    std::string fit_error;  // the job's FitError(), made when a task needs it
    for (TaskInfo* t : j->tasks) {
      if (t->status == CAL_TASK_PIPELINED) {
        result_.pipelined.emplace_back(t->uid, t->node ? t->node->name : std::string());
        if (t->eviction_occurred && t->node) result_.nominated.emplace_back(t->uid, t->node->name);
      }
      if (t->status == CAL_TASK_ALLOCATED)
        result_.allocated.emplace_back(t->uid, t->node ? t->node->name : std::string());
      if (t->status != CAL_TASK_PENDING) continue;
      // Volcano's RecordJobStatusEvent: the task's own message, else the job's FitError();
      // a pipelining that evicted and was then undone still nominates its node.
      if (t->last_tx.set && t->last_tx.status == CAL_TASK_PIPELINED &&
          t->last_tx.eviction_occurred && t->last_tx.node)
        result_.nominated.emplace_back(t->uid, t->last_tx.node->name);
      std::string msg = scheduling_reason(*t).message;
      if (msg.empty()) {
        if (fit_error.empty()) fit_error = job_fit_error(*j);
        msg = fit_error;
      }
      result_.pending[std::string(t->uid)] = std::move(msg);
    }
  }
}

// Volcano's JobInfo.TaskSchedulingReason: a task whose last placement was undone says where
// it would have gone (Schedulable when it was allocated there, Unschedulable when pipelined,
// waiting for resources to be released); a pending one gives its fit errors; otherwise
// no message (the job's FitError() stands in).
Session::SchedulingReason Session::scheduling_reason(const TaskInfo& t) {
  const TaskStatus status = t.last_tx.set ? t.last_tx.status : t.status;
  const std::string node = t.last_tx.set && t.last_tx.node ? t.last_tx.node->name
                           : t.node                       ? t.node->name
                                                          : std::string();
  switch (status) {
    case CAL_TASK_ALLOCATED:
      return {"Schedulable", fmt::format("Pod {}/{} can possibly be assigned to {}, once "
                                         "minAvailable is satisfied", t.ns, t.name, node)};
    case CAL_TASK_PIPELINED:
      return {"Unschedulable",
              fmt::format("Pod {}/{} can possibly be assigned to {}, once resource is released "
                          "and minAvailable is satisfied", t.ns, t.name, node)};
    case CAL_TASK_PENDING:
      return {"Unschedulable", t.fit_error};
    default:
      return {to_string(status), {}};
  }
}

namespace {

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
    ++pending[scheduling_reason(*t).reason];
  }
  by_status["minAvailable"] = j.min_available;
  const bool ready = j.ready_num() + pending_best_effort >= j.min_available;
  std::string out = std::string(ready ? "pod group is ready" : "pod group is not ready") + ", " +
                    histogram(by_status);
  if (!pending.empty()) out += "; Pending: " + histogram(pending);
  // The first task with fit errors, whatever its status now (Volcano walks the tasks in
  // map order here; Caldera in the job's task order).
  for (const TaskInfo* t : j.tasks) {
    if (t->fit_error.empty()) continue;
    out += ". Origin reason is " + std::string(t->name) + ": " + t->fit_error;
    break;
  }
  return out;
}

}  // namespace caldera
