// Victim bundles of the gang-aware evicting actions (gangpreempt, gangreclaim): Volcano's
// pkg/scheduler/actions/utils/bundle.go.
//
// The candidates a domain offers are grouped per victim job into at most two bundles:
//   safe   the tasks the job can lose and stay gang-ready (its ready count stays at or
//          above minMember, each role at or above its minTaskMember);
//   whole  the rest: evicting any of them breaks the job's gang, so they go together.
// A job already below minMember is all "safe": evicting more cannot break it further.
// Bundles are then ordered (safe before whole; then the victim job or queue order; then
// the bundle's return on investment against what the evicting job needs; then by job uid
// and first task uid) and cut down to what the plugins allow (unified_evictable): a safe
// bundle keeps the tasks allowed, a whole bundle survives only when all of it is allowed.
//
// Sub-jobs (Volcano's SubGroupPolicy, MinSubJobs) are not in Caldera's model: every job is
// one sub-job, which is what Volcano makes of a PodGroup without a sub-group policy, and
// the sub-job part of CreateJobBundles then never applies.
#pragma once

#include <functional>
#include <set>
#include <vector>

#include "host/session/session.hpp"

namespace caldera::gang {

enum class BundleType { Safe = 0, Whole = 1 };  // Volcano's BundleSafe, BundleWhole: safe first

struct Bundle {
  BundleType type = BundleType::Safe;
  JobInfo* job = nullptr;
  std::vector<TaskInfo*> tasks;
  ResVec local;   // Volcano's LocalRes: the Resreq of the bundle's tasks
  ResVec global;  // GlobalRes: empty for a safe bundle; every task of the job for a whole one
};

// Volcano's SumInitResreq and SumResreq over tasks; SumIdleAndReleasing over nodes.
ResVec sum_init_resreq(const std::vector<TaskInfo*>& tasks, size_t resources);
ResVec sum_resreq(const std::vector<TaskInfo*>& tasks, size_t resources);
ResVec sum_idle_and_releasing(const std::vector<NodeInfo*>& nodes, size_t resources);

// Volcano's CreateJobBundles: the job's candidate tasks, sorted by task priority then uid,
// split into a safe and a whole bundle (either may be absent).
std::vector<Bundle> create_job_bundles(JobInfo* job, std::vector<TaskInfo*> local_tasks,
                                       size_t resources);

// The bundles of the tasks on `nodes` that `candidate` takes, job by job in the order the
// jobs are first met (each job's by create_job_bundles; the bundle sort orders the jobs):
// the candidate walk both gang actions start from.
std::vector<Bundle> victim_bundles(const std::vector<NodeInfo*>& nodes, size_t resources,
                                   const std::function<bool(const TaskInfo*)>& candidate);

// Volcano's FlattenBundles: every bundle's tasks, in bundle order.
std::vector<TaskInfo*> flatten_bundles(const std::vector<Bundle>& bundles);

// Volcano's ApplyAllowedTasks: a safe bundle keeps its allowed tasks (dropped when none
// is), a whole bundle is kept only when every task is allowed.
std::vector<Bundle> apply_allowed_tasks(const std::vector<Bundle>& bundles,
                                        const std::set<const TaskInfo*>& allowed);

// Volcano's bundleROI: what the bundle frees of the need (each resource capped at the
// need), over what evicting it costs (its job's whole request; nothing for a safe bundle,
// which makes the ratio infinite).
double bundle_roi(const Bundle& b, const ResVec& need);

// Volcano's SortBundlesForPreempt (stable): safe before whole; then by `victim_job_first`
// (true when l's job is evicted before r's); then the higher ROI; then job uid, first task
// uid, fewer tasks.
void sort_bundles_for_preempt(
    std::vector<Bundle>& bundles, const ResVec& need,
    const std::function<bool(const JobInfo*, const JobInfo*)>& victim_job_first);

// Volcano's SortBundlesForReclaim: the same with the victim queue order in place of the job
// order (`victim_queue_first`: true when l's queue gives up resources before r's).
void sort_bundles_for_reclaim(
    std::vector<Bundle>& bundles, const ResVec& need,
    const std::function<bool(const QueueInfo*, const QueueInfo*)>& victim_queue_first);

}  // namespace caldera::gang
