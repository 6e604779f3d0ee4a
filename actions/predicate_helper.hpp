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
  // The task's init request (pods included) must fit the node's future idle (Volcano's
  // allocate checks this before the plugins; the plugins are not asked when it fails).
  // Volcano's backfill checks no resources: its best-effort pods meet only the plugins'
  // pod count.
  bool resources = false;
  // Volcano's PredicateForPreemptAction: a plain Unschedulable failure (which evicting may
  // resolve) passes; UnschedulableAndUnresolvable, Error and Wait rule the node out.
  bool unschedulable_passes = false;
};
inline constexpr NodeFilter kAllocateFilter{true, false};
inline constexpr NodeFilter kBackfillFilter{false, false};
inline constexpr NodeFilter kPreemptFilter{false, true};

class PredicateHelper {
 public:
  PredicateHelper(Session& ssn, bool error_cache) : ssn_(ssn), error_cache_(error_cache) {}
  ~PredicateHelper();
  PredicateHelper(const PredicateHelper&) = delete;
  PredicateHelper& operator=(const PredicateHelper&) = delete;

  // The feasible nodes for t among `nodes` (the session's, or a HyperNode's), in walk
  // order. When none is found and `fe` is given, fe gets the reasons of every node
  // (Volcano records every node it looked at; the reasons only matter for a task that
  // found no node, so they are spelled out only then).
  std::vector<NodeInfo*> predicate_nodes(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                                         const NodeFilter& filter, FitErrors* fe);
  std::vector<NodeInfo*> predicate_nodes(const TaskInfo* t, const NodeFilter& filter,
                                         FitErrors* fe) {
    return predicate_nodes(t, ssn_.nodes(), filter, fe);
  }

 private:
  // One node's answer, written by whichever thread evaluated the node; a plugin's reason
  // text is kept here and interned later, on one thread.
  struct Verdict {
    bool ok = false;
    bool cached = false;       // failed before for this task group: reasons from the cache
    bool host_failed = false;  // the filter's resource or pod check failed
    cal_code code = CAL_SUCCESS;
    const std::string* plugin = nullptr;  // the plugin that refused, if one did
    const char* reason = nullptr;         // its words (the plugin's, or in statuses_)
  };

  // A failure as one word, so that recording one costs a store (slot kinds in the .cpp):
  // the short resources of a host check as a bit mask, a plugin's reason id, or (for
  // sessions with more resources than a mask holds) an entry of pool_.
  using Failure = uint64_t;
  // The failures of one task group by node index (0: none), and the same as a bit per
  // node, so that a walk of the session's nodes steps over a word of 64 known failures at
  // once instead of looking at each. The arrays are recycled from helper to helper, so
  // only what was written is cleared, never the whole array.
  struct Group {
    std::vector<Failure> slots;
    std::vector<uint64_t> failed;
    std::vector<uint32_t> written;
  };

  // Answers for nodes[positions[0]], nodes[positions[1]], ... (count of them) into
  // verdicts_[at ...]: the host's checks node by node, then the plugins' chain over the
  // nodes that passed them, a run at a time. `by_index`: nodes is the session's list, so
  // a position is the node's index. A node the group failed before (`cached`) is not asked.
  void evaluate(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                const uint32_t* positions, size_t count, size_t at, const NodeFilter& filter,
                const Group* cached, bool by_index);
  // The next `batch` positions of the walk from `from` (the walk's own count, 0 at its
  // start) into positions_, stopping at `all`: every position, or, when `skip` is given
  // (the session's list, by index), only those the group has not failed. Returns the walk
  // count just past the last position taken, or past the last one looked at.
  size_t next_positions(size_t start, size_t from, size_t all, size_t batch, const Group* skip);
  // Some resource the task asks for is short on every node (the session's maxima).
  bool fits_no_node(const TaskInfo* t) const;
  // The failure word of a node that did not pass (not for a cached one).
  Failure failure_of(const TaskInfo* t, uint32_t node, const NodeFilter& filter,
                     const Verdict& v);
  // A plugin's refusal as a failure word, without the unresolvable bit.
  Failure plugin_failure(const Verdict& v);
  void record(Group*& group, const TaskInfo* t, uint32_t node, Failure f);
  void add_reasons(Failure f, FitErrors& fe) const;
  Group* group_of(const TaskInfo* t, bool create);

  Session& ssn_;
  bool error_cache_;
  std::map<std::string, Group> groups_;  // by task group
  std::vector<int32_t> pool_;            // entries: [count, reason id, reason id, ...]
  std::string last_reason_;              // the last plugin refusal's words and their id
  int32_t last_reason_id_ = -1;
  std::string last_lines_;               // the last several-reason refusal and its pool_ entry
  uint64_t last_lines_at_ = 0;
  bool has_last_lines_ = false;
  std::vector<Verdict> verdicts_;        // scratch: one batch of nodes
  std::vector<uint32_t> positions_;      // scratch: their positions in the list walked
  std::vector<size_t> walked_;           // scratch: the walk count of each, plus one
  std::vector<cal_status> statuses_;     // scratch: reasons of plugins answering per node
};

}  // namespace caldera
