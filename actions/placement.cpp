// Placing one task: node choice. Volcano: pkg/scheduler/actions/allocate/allocate.go,
// pkg/scheduler/util/scheduler_helper.go.
#include "actions/placement.hpp"

#include <fmt/format.h>

namespace caldera::placement {

std::string status_reason(const PointStatus& st) {
  if (!st.reason.empty()) return st.reason;
  if (!st.plugin.empty()) return fmt::format("node(s) didn't pass the {} predicate", st.plugin);
  return "node(s) didn't pass the predicates";
}

void fail_every_node(FitErrors& fe, size_t node_count, const std::string& reason) {
  fe.set_nodes(node_count);
  fe.add(reason, node_count);
}

NodeInfo* select_node(const Session& ssn, const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                      double* score) {
  if (score) *score = 0;
  if (nodes.empty()) return nullptr;
  if (nodes.size() == 1) return nodes.front();
  thread_local std::vector<double> scores;
  ssn.node_scores(t, nodes, scores);
  NodeInfo* best = ssn.best_node(t, nodes, scores);
  if (score)
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i] == best) *score = scores[i];
  return best;
}

}  // namespace caldera::placement
