// A job's sub-jobs: Volcano's SubJobInfo (pkg/scheduler/api/sub_job_info.go) and the parts
// of JobInfo that group a job's tasks into them (pkg/scheduler/api/job_info.go:
// getOrCreateSubJob, SubJobs, MinSubJobs, CheckSubJobValid / Ready / Pipelined), with the
// session's adjustments (pkg/scheduler/framework/session.go: adjustNetworkTopologySpec,
// recoverAllocatedHyperNode).
//
// A PodGroup's spec.subGroupPolicy entries are tried in order for each task: a policy takes
// the task when its labelSelector (if any) selects the pod and the pod has a non-empty
// value for every one of its matchLabelKeys (a policy without matchLabelKeys takes no
// task, as in Volcano); the sub-job is the policy's and those values'. A task no policy
// takes goes to the job's default sub-job. Without a policy the default sub-job holds every
// task, with the job's minMember as its size.
//
// Network topology, as the session reads it: a soft job topology becomes hard with the
// whole cluster's tier (one above the highest real tier, at least 1); a sub-job's soft one
// becomes hard with the job's tier (after that) or else the cluster's. The default sub-job
// carries the job's topology. So every topology the actions see is hard.
//
// Allocated HyperNodes: Volcano keeps a sub-job's in its cache between sessions and
// recovers it from its running tasks after a restart; Caldera always recovers it
// (HyperNodes::lowest_holding, from the statuses at the session's open). The allocate
// action moves it as it places the sub-job.
//
// Sub-jobs are built on first use in a session (Session::sub_jobs) and live with it: the
// tasks of a job do not change during a session, only their statuses, and every count
// below is read from the tasks when asked.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "host/model/objects.hpp"
#include "host/session/session_types.hpp"

namespace caldera {

class HyperNodes;
struct HyperNodeInfo;

struct SubJobInfo {
  std::string uid;  // Volcano's SubJobID
  std::string gid;  // Volcano's SubJobGID: one per policy; the job's uid for the default
  JobInfo* job = nullptr;
  bool is_default = false;
  int32_t min_available = 1;
  int32_t priority = 0;     // the highest of its tasks' priorities, 0 at least
  int32_t match_index = 0;  // the first label value as an integer, 0 when not one
  std::vector<TaskInfo*> tasks;  // in the job's task order
  // After the session's adjustment: hard, or none.
  std::optional<NetworkTopology> topology;
  HyperNodeInfo* allocated = nullptr;  // Volcano's AllocatedHyperNode

  int32_t count(TaskStatus s) const;
  int32_t ready_num() const;  // Bound, Binding, Running, Allocated, Succeeded
  int32_t waiting_num() const { return count(CAL_TASK_PIPELINED); }
  int32_t pending_best_effort_num() const;
  int32_t allocated_num() const;  // tasks in an allocated status
  bool is_ready() const { return ready_num() + pending_best_effort_num() >= min_available; }
  bool is_pipelined() const {
    return waiting_num() + ready_num() + pending_best_effort_num() >= min_available;
  }
  // Volcano's GetMinResources: the pending tasks' init requests summed.
  ResVec pending_init_request(size_t resources) const;
};

struct JobSubJobs {
  std::vector<std::unique_ptr<SubJobInfo>> list;  // by uid
  // The job's policies, in order: (group, minSubGroups; 0 when not set).
  std::vector<std::pair<std::string, int32_t>> min_sub_jobs;
  bool has_policy = false;  // Volcano's ContainsSubJobPolicy
  // The job's network topology after the session's adjustment (hard), when it has one.
  std::optional<NetworkTopology> job_topology;
  std::unordered_map<const TaskInfo*, SubJobInfo*> of_task;

  SubJobInfo* default_sub_job() const;  // null when no task is in it
  // Volcano's ContainsNetworkTopology / ContainsHardTopology (every topology is hard once
  // adjusted): the job or one of its sub-jobs has one.
  bool has_topology() const;
  // Volcano's CheckSubJobValid: every policy has at least minSubGroups sub-jobs.
  bool valid() const;
  // Volcano's CheckSubJobReady / CheckSubJobPipelined: every policy with a minSubGroups
  // has that many sub-jobs ready / pipelined.
  bool ready() const;
  bool pipelined() const;
};

// The sub-jobs of `job` as the session sees them. `top_tier`: the whole cluster's tier.
std::unique_ptr<JobSubJobs> build_sub_jobs(JobInfo* job, const HyperNodes& hns,
                                           int32_t top_tier);

}  // namespace caldera
