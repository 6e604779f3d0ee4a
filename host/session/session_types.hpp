// The session's working objects: Volcano's TaskInfo, JobInfo, NodeInfo and QueueInfo.
//
// A session owns one copy of each, made from the cache at open. Actions and plugins change
// them freely through the session and its statements; nothing reaches the cache or the
// backend until the session closes. Plugins see these objects as the opaque handles of
// caldera/plugin.h: a cal_task* is a TaskInfo*, and so on (see handles.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/plugin.h"
#include "caldera/resources.hpp"
#include "host/model/objects.hpp"

namespace caldera {

class Session;
struct JobInfo;
struct TaskInfo;
struct NodeInfo;
struct QueueInfo;

// Kubernetes' defaults for a pod that requests no cpu / memory, in its scoring
// (pkg/scheduler/util/pod_resources.go: DefaultMilliCPURequest, DefaultMemoryRequest).
inline constexpr double kDefaultMilliCpuRequest = 100;
inline constexpr double kDefaultMemoryRequest = 200.0 * 1024 * 1024;

using TaskStatus = cal_task_status;
const char* to_string(TaskStatus s);
// Volcano's AllocatedStatus: Allocated, Binding, Bound, Running.
inline bool allocated_status(TaskStatus s) {
  return s == CAL_TASK_ALLOCATED || s == CAL_TASK_BINDING || s == CAL_TASK_BOUND ||
         s == CAL_TASK_RUNNING;
}
// Statuses whose task is on a node and uses (or is about to use) its resources.
inline bool on_node_status(TaskStatus s) {
  return allocated_status(s) || s == CAL_TASK_PIPELINED || s == CAL_TASK_RELEASING;
}
// The fallback task order of SCENARIOS.md: name index, creation time, name (when every
// task_order plugin answers 0, and the order of a job's tasks in the snapshot).
bool task_fallback_less(const TaskInfo* l, const TaskInfo* r);
// Volcano's PreemptableStatus (api/helpers.go): only Running and Bound tasks can be evicted.
inline bool preemptable_status(TaskStatus s) {
  return s == CAL_TASK_RUNNING || s == CAL_TASK_BOUND;
}

// What a cal_pod handle points to: a pod of Kubernetes' view of a node, with its task
// (null for a pod no job owns: another scheduler placed it, or its PodGroup is not in the
// session).
struct PodRef {
  const PodSpec* spec = nullptr;
  TaskInfo* task = nullptr;
};

// One volume decision of a task's placement (task_assume_volume, host/session/volumes.hpp):
// `volume` NULL asks for the claim to be provisioned on the task's node.
struct VolumeDecision {
  const cal_persistent_volume_claim* claim = nullptr;
  const cal_persistent_volume* volume = nullptr;
};

struct TaskInfo {
  // Views of the pod record's strings (the cache keeps it alive for the session): a
  // snapshot copies no string per pod.
  std::string_view uid;  // "namespace/name"
  std::string_view name;
  std::string_view ns;
  JobInfo* job = nullptr;
  NodeInfo* node = nullptr;  // set while the task is on a node in this session
  TaskStatus status = CAL_TASK_PENDING;
  TaskStatus cache_status = CAL_TASK_PENDING;  // status at open, to tell what changed
  ResVec resreq;       // Resreq
  ResVec init_resreq;  // InitResreq
  int32_t priority = 1;
  bool preemptable = false;
  bool best_effort = false;
  bool preempt_never = false;
  std::string_view nominated_node;  // the pod's status.nominatedNodeName, "" when none
  // Its last pipelining evicted victims to make room (Volcano's TaskInfo.EvictionOccurred):
  // left Pipelined at close, the node becomes the pod's nominated node.
  bool eviction_occurred = false;
  std::string_view role;   // volcano.sh/task-spec
  double created = 0;
  int64_t name_index = -1;  // the number after the last '-' of the name, -1 if none
  const PodSpec* pod = nullptr;  // the cache record (labels, selector, tolerations...)
  PodRef pod_ref;                // {pod, this}: the task's cal_pod handle
  // Why no node fits it, from the last search that found none in this session ("0/3
  // nodes are unavailable: ..."; Volcano's JobInfo.NodesFitErrors[task]).
  std::string fit_error;
  // The nodes (by index) whose refusal in those fit errors was UnschedulableAndUnresolvable:
  // preempt and reclaim do not try them for the task.
  std::vector<uint32_t> unresolvable_nodes;
  // The task's placement when a statement holding it was last discarded (Volcano's
  // TaskInfo.LastTransaction, set by Statement.Discard, cleared by Statement.Commit): a
  // task left pending says where that placement would have put it.
  struct LastTransaction {
    bool set = false;
    TaskStatus status = CAL_TASK_PENDING;
    const NodeInfo* node = nullptr;
    bool eviction_occurred = false;  // a pipelining that evicted: the node is nominated
  } last_tx;
  // Annotations plugins recorded for this session's placement (device assignments); they
  // go out with the bind and are dropped when the placement is undone.
  StringMap new_annotations;
  // Its placement's volume decisions, dropped with it (host/session/volumes.hpp).
  std::vector<VolumeDecision> volume_decisions;
  int role_index = -1;  // index into JobInfo::roles
  uint32_t job_pos = 0;  // index in JobInfo::tasks
  // The status the node accounted this task under when it was added (Volcano keeps a
  // clone of the task in NodeInfo.Tasks; removal subtracts by that clone's status).
  TaskStatus node_status = CAL_TASK_PENDING;
  // The status before an eviction, so that a discarded eviction restores it.
  TaskStatus status_before_evict = CAL_TASK_RUNNING;
  // Counted in its node's pod_requests (see NodeInfo).
  bool in_pod_view = false;
  // Pre-predicate ran for it in this session (Volcano: its CycleState holds the
  // PreFilter data). Only such a task's pod returns to the Kubernetes node view when its
  // eviction is undone, see Session::unevict_task. Set from the const dispatch.
  mutable bool pre_predicated = false;
};

struct RoleInfo {
  std::string name;
  int32_t min = 0;
};

struct JobInfo {
  std::string uid;  // "namespace/name" of the PodGroup
  std::string name;
  std::string ns;
  QueueInfo* queue = nullptr;
  Session* session = nullptr;  // the session that owns this job (for host API calls)
  int32_t min_available = 0;
  int32_t priority = 0;
  double created = 0;
  JobPhase phase = JobPhase::Pending;  // PodGroup status phase, updated at close
  double phase_since = 0;
  bool has_min_resources = false;
  ResVec min_resources;
  std::vector<RoleInfo> roles;     // sorted by name
  std::vector<TaskInfo*> tasks;    // in the fallback task order (task_fallback_less)
  int32_t status_count[CAL_TASK_STATUS_COUNT] = {};
  std::vector<int32_t> role_status_count;  // roles.size() * CAL_TASK_STATUS_COUNT
  ResVec allocated;      // tasks in allocated statuses
  ResVec total_request;  // every task of the job (Volcano's TotalRequest)
  const PodGroupSpec* podgroup = nullptr;  // the cache record; null for a pod without one
  // Job-level pending reasons set by plugins (plugin name -> text).
  std::map<std::string, std::string> pending_reasons;
  // Set when a plugin records a pending reason from its close() (Volcano's
  // PodGroupUnschedulable condition, which gang sets in OnSessionClose): a job with running
  // tasks that is unschedulable gets phase Unknown at close.
  bool unschedulable = false;
  // The PodGroup's Unschedulable condition message a plugin set (job_set_unschedulable_
  // condition); empty when none did.
  std::string condition_message;
  // The last job_fit_error text handed out (the C string must outlive the call).
  std::string fit_error_text;

  int32_t count(TaskStatus s) const { return status_count[s]; }
  int32_t ready_num() const;    // allocated statuses + succeeded
  int32_t waiting_num() const;  // pipelined
  int32_t valid_num() const;    // ready + waiting + pending
  int32_t role_count(size_t role, TaskStatus s) const {
    return role_status_count[role * CAL_TASK_STATUS_COUNT + s];
  }
  int32_t role_ready(size_t role) const;
  int32_t role_waiting(size_t role) const;
  int32_t role_valid(size_t role) const;
  bool is_pending() const { return phase == JobPhase::Pending; }
  // Moves a task to a new status, keeping counts and sums right.
  void update_task_status(TaskInfo* t, TaskStatus to);
};

// The fields the plugins read of every node they are asked about (through the host API:
// its index into the node tables, its pod count and limit) come first, in one cache line:
// a node search touches thousands of these records per task.
struct alignas(64) NodeInfo {
  uint32_t index = 0;  // position in Session::nodes() (by name); the host API's node_index
  int32_t max_pods = 0;
  int32_t pods = 0;
  bool unschedulable = false;
  bool ready = true;
  const NodeSpec* spec = nullptr;  // the cache record: labels, taints
  // The pods of Kubernetes' view of the node (the host API's node_pod_at; see
  // pod_requests below), kept with the sums: appended when a pod joins the view; a pod
  // that leaves it is replaced by the last one, as Kubernetes' NodeInfo.RemovePod does.
  std::vector<const PodRef*> view_pods;
  std::string name;
  ResVec allocatable;
  ResVec idle;
  ResVec used;
  ResVec releasing;
  ResVec pipelined;
  ResVec future_idle;  // idle + releasing - pipelined, kept current
  std::vector<TaskInfo*> tasks;    // tasks on the node, in the order they arrived
  // Kubernetes' view of the node, as Volcano's predicates and nodeorder plugins feed the
  // Kubernetes score plugins: the pods of every task on the node except those evicted in
  // this session, each pod's init request rounded to a whole unit (int64 in Kubernetes)
  // and summed (NodeInfo.Requested), and the same with 100m cpu / 200Mi memory for a pod
  // that requests none (NonZeroRequested). Kept by Session::count_pod.
  ResVec pod_requests;
  ResVec pod_requests_nonzero;
  // The scheduler cache's idle, which a bind is checked against (Volcano's dispatch:
  // cache.AddBindTask puts the task on the cache's node as Binding and refuses it when its
  // request does not fit that node's idle). The idle at open, less the binds sent: what
  // the session evicts still holds its resources there.
  ResVec cache_idle;

  // Volcano's NodeInfo.AddTask / RemoveTask / UpdateTask: account the task's request by
  // its status (Releasing: idle->releasing+used; Pipelined: pipelined; else idle->used).
  void add_task(TaskInfo* t);
  void remove_task(TaskInfo* t);
  void refresh_future_idle();
  // Empty of pods: idle and future idle its allocatable, every sum 0, no task, no view pod
  // (vectors of `resources` entries). The snapshot's start for a node.
  void reset_accounting(size_t resources);
};

struct QueueInfo {
  Session* session = nullptr;  // the session this record belongs to
  std::string name;
  double weight = 1;
  bool has_capability = false, has_deserved = false, has_guarantee = false;
  ResVec capability;  // unset dimensions: +inf
  ResVec deserved;
  ResVec guarantee;
  bool reclaimable = true;
  int32_t priority = 0;
  QueueState state = QueueState::Open;
  QueueInfo* parent = nullptr;
  std::vector<QueueInfo*> children;
  double created = 0;
  const QueueSpec* spec = nullptr;  // the cache record
  // spec->affinity as plugins read it (queue_affinity); has_affinity false when none. The
  // view points into affinity_items, whose elements point into the record.
  bool has_affinity = false;
  cal_queue_affinity affinity{};
  std::array<std::vector<const char*>, 4> affinity_items;
};

}  // namespace caldera
