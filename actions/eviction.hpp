// Helpers shared by the evicting actions (preempt, reclaim): victim validation and victim
// ordering, as Volcano has them in pkg/scheduler/util/scheduler_helper.go (ValidateVictims,
// PrioritizeNodes, SortNodes) and framework/session_plugins.go (BuildVictimsPriorityQueue).
// Their node filter is the shared predicate search with kPreemptFilter
// (actions/predicate_helper.hpp: Volcano's PredicateForPreemptAction).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actions/priority_queue.hpp"
#include "host/session/session.hpp"
#include "host/session/statement.hpp"

namespace caldera::eviction {


// `req` fits into `avail` in every dimension (Volcano's Resource.LessEqual(r, Zero)).
inline bool fits(const ResVec& req, const ResVec& avail) { return req.less_equal(avail); }

// Volcano's util.ValidateVictims: the preemptor's InitResreq must fit the node's future
// idle plus everything the victims free. An empty victim list is allowed (the preemptor
// may already fit in what is being released). On failure `why` says what was short.
bool validate_victims(const TaskInfo* preemptor, const NodeInfo* node,
                      const std::vector<TaskInfo*>& victims, std::string* why);

// Volcano's BuildVictimsPriorityQueue order: true when `l` is evicted before `r`.
// Same job: the reverse of task order (lowest task first). Different queues: the reverse
// of queue order (Volcano's VictimQueueOrderFn with no victim-queue-order plugin). Same
// queue, different jobs: the reverse of job order (lowest job first).
bool victim_less(const Session& ssn, const TaskInfo* l, const TaskInfo* r);

PriorityQueue<TaskInfo*> victims_queue(const Session& ssn, const std::vector<TaskInfo*>& victims);

// Volcano's util.PrioritizeNodes + util.SortNodes: nodes by summed node_order score,
// highest first. Nodes with equal scores keep their input order (the session's node order,
// by name), which stands in for the order Volcano's parallel predicate happened to produce.
std::vector<NodeInfo*> sort_nodes_by_score(const Session& ssn, const TaskInfo* task,
                                           const std::vector<NodeInfo*>& nodes);

// Statement::evict, logging instead of failing when the session refuses (Volcano logs the
// error of stmt.Evict and goes on with the next victim). Returns whether it took effect.
bool try_evict(Statement& stmt, TaskInfo* victim, const std::string& reason);
// Statement::pipeline, likewise ("Ignore pipeline error, will be corrected in next
// scheduling loop").
bool try_pipeline(Statement& stmt, TaskInfo* task, NodeInfo* node, bool eviction_occurred);

}  // namespace caldera::eviction
