// Helpers shared by the evicting actions (preempt, reclaim): node filtering for preemption,
// victim validation and victim ordering, as Volcano has them in
// pkg/scheduler/util/predicate_helper.go, util/scheduler_helper.go (ValidateVictims,
// PrioritizeNodes, SortNodes) and framework/session_plugins.go (PredicateForPreemptAction,
// BuildVictimsPriorityQueue).
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

// Volcano's Session.PredicateForPreemptAction: the node is a preemption candidate when
// every predicate passes, or when the failures are only CAL_UNSCHEDULABLE (which evicting
// may resolve). UNSCHEDULABLE_AND_UNRESOLVABLE, ERROR and WAIT rule the node out.
bool predicate_for_preempt(const Session& ssn, const TaskInfo* task, const NodeInfo* node,
                           PointStatus* failure);

// Volcano's util.PredicateHelper: runs the preemption predicate over nodes and keeps the
// ones that pass, in the given order. With the error cache on, a node that failed for a
// task of the same task group (job and role, Volcano's taskGroupID) earlier in the life of
// this helper is skipped without asking the plugins again.
class PredicateHelper {
 public:
  std::vector<NodeInfo*> predicate_nodes(const Session& ssn, const TaskInfo* task,
                                         const std::vector<NodeInfo*>& nodes, bool use_cache);

 private:
  // task group -> node name -> the failure seen
  std::map<std::string, std::map<std::string, PointStatus>> errors_;
};

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
bool try_pipeline(Statement& stmt, TaskInfo* task, NodeInfo* node);

}  // namespace caldera::eviction
