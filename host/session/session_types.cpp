// Volcano's JobInfo / NodeInfo bookkeeping (pkg/scheduler/api/job_info.go, node_info.go).
#include "host/session/session_types.hpp"

namespace caldera {

const char* to_string(TaskStatus s) {
  switch (s) {
    case CAL_TASK_PENDING: return "Pending";
    case CAL_TASK_ALLOCATED: return "Allocated";
    case CAL_TASK_PIPELINED: return "Pipelined";
    case CAL_TASK_BINDING: return "Binding";
    case CAL_TASK_BOUND: return "Bound";
    case CAL_TASK_RUNNING: return "Running";
    case CAL_TASK_RELEASING: return "Releasing";
    case CAL_TASK_SUCCEEDED: return "Succeeded";
    case CAL_TASK_FAILED: return "Failed";
    case CAL_TASK_UNKNOWN: return "Unknown";
  }
  return "Unknown";
}

// Volcano's CompareTask (pkg/controllers/job/helpers): the pod indexes are compared only
// when both names have one (name_index >= 0: three or more '-'-separated parts, the last a
// number) and they differ; else creation time, then UID.
bool task_fallback_less(const TaskInfo* l, const TaskInfo* r) {
  if (l->name_index >= 0 && r->name_index >= 0 && l->name_index != r->name_index)
    return l->name_index < r->name_index;
  if (l->created != r->created) return l->created < r->created;
  return l->uid < r->uid;
}

namespace {
int32_t ready_of(const int32_t* c) {
  return c[CAL_TASK_ALLOCATED] + c[CAL_TASK_BINDING] + c[CAL_TASK_BOUND] +
         c[CAL_TASK_RUNNING] + c[CAL_TASK_SUCCEEDED];
}
}  // namespace

int32_t JobInfo::ready_num() const { return ready_of(status_count); }
int32_t JobInfo::waiting_num() const { return status_count[CAL_TASK_PIPELINED]; }
int32_t JobInfo::valid_num() const {
  return ready_num() + waiting_num() + status_count[CAL_TASK_PENDING];
}
int32_t JobInfo::role_ready(size_t role) const {
  return ready_of(&role_status_count[role * CAL_TASK_STATUS_COUNT]);
}
int32_t JobInfo::role_waiting(size_t role) const { return role_count(role, CAL_TASK_PIPELINED); }
int32_t JobInfo::role_valid(size_t role) const {
  return role_ready(role) + role_waiting(role) + role_count(role, CAL_TASK_PENDING);
}

void JobInfo::update_task_status(TaskInfo* t, TaskStatus to) {
  TaskStatus from = t->status;
  if (from == to) return;
  --status_count[from];
  ++status_count[to];
  if (t->role_index >= 0) {
    --role_status_count[t->role_index * CAL_TASK_STATUS_COUNT + from];
    ++role_status_count[t->role_index * CAL_TASK_STATUS_COUNT + to];
  }
  if (allocated_status(from)) allocated.sub(t->resreq);
  if (allocated_status(to)) allocated.add(t->resreq);
  t->status = to;
}

void NodeInfo::add_task(TaskInfo* t) {
  switch (t->status) {
    case CAL_TASK_RELEASING:
      idle.sub(t->resreq);
      releasing.add(t->resreq);
      used.add(t->resreq);
      break;
    case CAL_TASK_PIPELINED:
      pipelined.add(t->resreq);
      break;
    default:
      idle.sub(t->resreq);
      used.add(t->resreq);
      break;
  }
  t->node_status = t->status;
  t->node = this;
  tasks.push_back(t);
  ++pods;
  refresh_future_idle();
}

void NodeInfo::remove_task(TaskInfo* t) {
  switch (t->node_status) {
    case CAL_TASK_RELEASING:
      releasing.sub(t->resreq);
      idle.add(t->resreq);
      used.sub(t->resreq);
      break;
    case CAL_TASK_PIPELINED:
      pipelined.sub(t->resreq);
      break;
    default:
      idle.add(t->resreq);
      used.sub(t->resreq);
      break;
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i] == t) {
      tasks.erase(tasks.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  --pods;
  t->node = nullptr;
  refresh_future_idle();
}

void NodeInfo::reset_accounting(size_t resources) {
  idle = allocatable;
  used = ResVec(resources);
  releasing = ResVec(resources);
  pipelined = ResVec(resources);
  future_idle = allocatable;
  pod_requests = ResVec(resources);
  pod_requests_nonzero = ResVec(resources);
  pods = 0;
  tasks.clear();
  view_pods.clear();
}

void NodeInfo::refresh_future_idle() {
  for (size_t i = 0; i < future_idle.size(); ++i)
    future_idle[i] = idle[i] + releasing[i] - pipelined[i];
}

}  // namespace caldera
