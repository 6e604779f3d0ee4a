// Placing one task on one of the session's nodes: the pieces every placing action shares.
//
// Follows Volcano's
//   pkg/scheduler/actions/allocate/allocate.go   (predicate, prioritizeNodes)
//   pkg/scheduler/util/predicate_helper.go       (PredicateNodes and its error cache)
//   pkg/scheduler/util/scheduler_helper.go       (PrioritizeNodes, SelectBestNode)
//   pkg/scheduler/api/resource_info.go           (LessEqualWithResourcesName)
//
// Differences from Volcano, on purpose:
//   - every node is examined, in the session's node order (by name). Volcano stops after
//     a percentage of feasible nodes and starts where the last search left off; that only
//     matters past 100 nodes and makes decisions depend on history.
//   - among equal scores the first node by name wins (Session::best_node), where Volcano
//     picks one at random.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "host/session/session.hpp"

namespace caldera::placement {

// Volcano's LessEqual(rr, Zero) with its 0.1 tolerance: every dimension of `req` fits in
// `avail`. cpu and memory are always compared; a scalar resource only when `req` asks
// for it, as Volcano compares only the scalars present in the request.
bool fits(const ResVec& req, const ResVec& avail);

// Appends one reason per resource of `req` that `avail` lacks, in resource id order:
// "insufficient cpu", "insufficient memory", "insufficient nvidia.com/gpu".
void insufficient_resources(const Session& ssn, const ResVec& req, const ResVec& avail,
                            std::vector<std::string>& reasons);

// The reason given when a node already holds as many pods as it may.
inline constexpr const char* kInsufficientPods = "insufficient pods";

// True when one more pod still fits on the node (pods counted on it < allocatable pods).
bool has_pod_room(const NodeInfo* n);

// A node check: returns true when the task may go on the node, else appends why.
using NodePredicate =
    std::function<bool(const TaskInfo* t, const NodeInfo* n, std::vector<std::string>& reasons)>;

// The predicate of the allocate action (Volcano's alloc.predicate): the task's init request
// must fit the node's future idle and one more pod must fit, then every plugin predicate
// must pass (a CAL_SKIP passes, as Volcano's PredicateForAllocateAction).
bool allocate_predicate(const Session& ssn, const TaskInfo* t, const NodeInfo* n,
                        std::vector<std::string>& reasons);

// The plugin predicates only (plus the pod count), for best-effort tasks that request
// nothing (the backfill action).
bool plugin_predicate(const Session& ssn, const TaskInfo* t, const NodeInfo* n,
                      std::vector<std::string>& reasons);

// Volcano's util.PredicateHelper: filters nodes with a predicate and collects the reasons
// of every node that fails in `fe`. One helper lives for one attempt at one job (Volcano
// makes one per statement). With the error cache on, a node that failed for a task of some
// role is not tried again for the next task of the same job and role: that task gets the
// same reasons (Volcano's taskPredicateErrorCache; tasks without a role never share, as in
// Volcano since issue #3527).
class PredicateHelper {
 public:
  explicit PredicateHelper(bool enable_error_cache) : cache_enabled_(enable_error_cache) {}

  std::vector<NodeInfo*> predicate_nodes(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                                         const NodePredicate& pred, FitErrors& fe);

 private:
  bool cache_enabled_;
  // "job uid/role" -> node name -> reasons it failed.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> cache_;
};

// Fills `fe` as Volcano does when pre-predicate fails: every node gets the same reason.
void fail_every_node(FitErrors& fe, size_t node_count, const std::string& reason);

// The reason text of a failed point (its reason, else which plugin said no).
std::string status_reason(const PointStatus& st);

// Picks a node among candidates that all passed the predicates: the only one when there is
// one, else the node order scores of every plugin, then best_node, then the highest score
// (ties by node name). Returns nullptr only for an empty list. `score` (optional) receives
// the chosen node's score, 0 when there was only one candidate.
NodeInfo* select_node(const Session& ssn, const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                      double* score = nullptr);

}  // namespace caldera::placement
