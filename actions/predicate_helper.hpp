// The predicate search every placing and evicting action shares: Volcano's
// util.PredicateHelper (pkg/scheduler/util/predicate_helper.go, PredicateNodes).
//
// A search walks the session's nodes (by name) starting where the session's last search
// stopped, and stops once it has found nodes_to_find() feasible nodes (Volcano's
// CalculateNumOfFeasibleNodesToFind: every node up to 100 nodes, 5% of 10,000) or has
// seen every node; the next search starts after the last node this one looked at
// (Volcano's lastProcessedNodeIndex). Volcano finds its nodes with 16 goroutines, so which
// nodes it finds is a race; here the search takes the first feasible nodes in walk order,
// whatever the number of threads, so that decisions depend on the input only.
//
// With the error cache on, a node that failed for a task of some task group (job and
// role, Volcano's taskGroupID; a task without a role is a group of its own) earlier in the
// life of the helper is not asked again for the next task of the group: it fails with the
// reasons it gave (Volcano's taskPredicateErrorCache). One helper lives as long as Volcano
// keeps its own: one attempt at one job in allocate, one task in backfill and reclaim, one
// run of preempt.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "host/session/session.hpp"

namespace caldera {

// What a node must pass to be a candidate.
struct NodeFilter {
  // The task's init request must fit the node's future idle (Volcano's allocate and
  // backfill check this before the plugins; the plugins are not asked when it fails).
  bool resources = false;
  // One more pod must fit on the node.
  bool pod_room = false;
  // Volcano's PredicateForPreemptAction: a plain Unschedulable failure (which evicting may
  // resolve) passes; UnschedulableAndUnresolvable, Error and Wait rule the node out.
  bool unschedulable_passes = false;
};
inline constexpr NodeFilter kAllocateFilter{true, true, false};
inline constexpr NodeFilter kBackfillFilter{false, true, false};
inline constexpr NodeFilter kPreemptFilter{false, false, true};

class PredicateHelper {
 public:
  PredicateHelper(Session& ssn, bool error_cache) : ssn_(ssn), error_cache_(error_cache) {}

  // The feasible nodes for t among `nodes` (the session's, or a HyperNode's), in walk
  // order. Each node that fails adds its reasons to `fe` (when given; Volcano records
  // every node it looked at).
  std::vector<NodeInfo*> predicate_nodes(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                                         const NodeFilter& filter, FitErrors* fe);
  std::vector<NodeInfo*> predicate_nodes(const TaskInfo* t, const NodeFilter& filter,
                                         FitErrors* fe) {
    return predicate_nodes(t, ssn_.nodes(), filter, fe);
  }

 private:
  // One node's answer, written by whichever thread evaluated the node. The host's own
  // reasons are derived again when the failure is recorded (the node does not change
  // during a search); a plugin's reason text is kept here and interned on one thread.
  struct Verdict {
    bool ok = false;
    bool cached = false;       // failed before for this task group: reasons from the cache
    bool host_failed = false;  // the filter's resource or pod check failed
    cal_code code = CAL_SUCCESS;
    const std::string* plugin = nullptr;  // the plugin that refused, if one did
    cal_status st;
  };
  // The failures of one task group: per node index, 0 when none, else 1 + the start in
  // pool_ of [count, id, id, ...].
  using GroupErrors = std::vector<uint32_t>;

  void evaluate(const TaskInfo* t, const NodeInfo* n, const NodeFilter& filter,
                const GroupErrors* cached, Verdict& v) const;
  // Records a failed node's reasons in fe and, for a fresh failure, in the group's cache.
  void record_failure(const TaskInfo* t, const NodeInfo* n, const NodeFilter& filter,
                      const Verdict& v, GroupErrors*& group, FitErrors* fe);
  GroupErrors* group_of(const TaskInfo* t, bool create);

  Session& ssn_;
  bool error_cache_;
  std::map<std::string, GroupErrors> groups_;  // by task group
  std::vector<int32_t> pool_;
  std::vector<int32_t> ids_;       // scratch: one node's reason ids
  std::vector<Verdict> verdicts_;  // scratch: one batch of nodes
};

}  // namespace caldera
