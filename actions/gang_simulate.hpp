// The dry run of the gang-aware evicting actions: evict a set of victims, place every
// pending task of the job inside one domain, and keep the result only when the job ends up
// pipelined. Volcano ed72c7c: pkg/scheduler/actions/utils/simulate.go
// (BuildNominationPlanInDomain, organizeEvictionWorksheet, runSimulateTrialAtHyperNode,
// simulatePredicate, prioritizeNodesForSimulate, CollectPendingTasksForGangEviction) and
// framework/statement.go (SaveOperations, RecoverOperations).
//
// The dry run, for a job, a domain and victims:
//   1. the victims are evicted (in a statement of their own);
//   2. the job's pending tasks that request something (best-effort ones are backfill's), in
//      task order, are tried in a HyperNode: for a job with a network topology each
//      HyperNode of its search inside the domain (gang_domains.hpp), the highest tier first,
//      until one holds them all; for the others, the domain itself. In a HyperNode, each
//      task in turn must be allocatable to its queue, find nodes among the HyperNode's that
//      its last fit errors did not rule out for good, pass pre-predicate, and pass Volcano's
//      simulatePredicate on some node (its InitResreq fits the node's future idle, then the
//      plugins' predicates where a plain Unschedulable passes); the node is the best scored
//      among those whose idle holds it, else among those whose future idle does; the task
//      is pipelined there (nominating the node when there were victims). One task that
//      fails fails the HyperNode. The HyperNode holds the job when every task was placed
//      and the job is then ready or pipelined;
//   3. the job must be pipelined. Everything is then undone, and what was done is returned
//      as a plan that the action replays in the job's statement (Volcano's SaveOperations /
//      RecoverOperations), so the session is unchanged until the action commits.
// Every job is one sub-job here (sub-group policies are not in Caldera's model), so the
// dry run places one sub-job and Volcano's per-sub-job nominated HyperNode
// (ApplySubJobNominations) is only reported: Volcano's allocate reads it for tasks of the
// sub-job still pending later in the same session, and the plan pipelines them all.
// Not modelled: scheduling gates (Volcano leaves gated tasks out of the dry run) and the
// soft sharding of nodes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "actions/gang_domains.hpp"
#include "host/session/session.hpp"
#include "host/session/statement.hpp"

namespace caldera::gang {

// What a dry run did, to be done again in the job's statement.
struct NominationPlan {
  std::vector<TaskInfo*> victims;  // evicted, in order
  struct Pipelined {
    TaskInfo* task;
    NodeInfo* node;
    bool eviction_occurred;
  };
  std::vector<Pipelined> pipelined;  // in order
  std::string hypernode;             // where the job's sub-job went (Volcano's subJobHyperNodes)
};

// Volcano's CollectPendingTasksForGangEviction for a job of one sub-job: its pending tasks
// that request something, in task order.
std::vector<TaskInfo*> collect_pending_tasks_for_gang_eviction(const Session& ssn,
                                                               const JobInfo* job);

// Volcano's BuildNominationPlanInDomain: the dry run above; nullopt when the job does not
// end up pipelined. The session is as before when it returns.
std::optional<NominationPlan> build_nomination_plan_in_domain(
    Session& ssn, const EvictionDomains& domains, QueueInfo* queue, JobInfo* job,
    const Domain& domain, const std::vector<TaskInfo*>& victims, const std::string& reason,
    bool predicate_error_cache);

// Volcano's Statement.RecoverOperations: the plan's evictions, then its pipelines, in `stmt`.
// False when a pipeline fails (the operations done so far stay in `stmt`, as in Volcano).
bool recover_operations(Statement& stmt, const NominationPlan& plan, const std::string& reason);

}  // namespace caldera::gang
