// Placing one task: resource fit, predicates with Volcano's error cache, node choice.
// Volcano: pkg/scheduler/actions/allocate/allocate.go, pkg/scheduler/util/predicate_helper.go,
// pkg/scheduler/util/scheduler_helper.go, pkg/scheduler/api/resource_info.go.
#include "actions/placement.hpp"

#include <fmt/format.h>

namespace caldera::placement {

namespace {
// Resource ids 0 and 1 are cpu and memory in every session (caldera/plugin.h, UNITS).
constexpr size_t kFixedDims = 2;

bool dim_fits(const ResVec& req, const ResVec& avail, size_t i) {
  // cpu and memory are always compared; a scalar only when the request names it.
  if (i >= kFixedDims && !(req[i] > 0)) return true;
  return res::le(req[i], avail[i]);
}
}  // namespace

bool fits(const ResVec& req, const ResVec& avail) {
  const size_t n = std::min(req.size(), avail.size());
  for (size_t i = 0; i < n; ++i)
    if (!dim_fits(req, avail, i)) return false;
  return true;
}

void insufficient_resources(const Session& ssn, const ResVec& req, const ResVec& avail,
                            std::vector<std::string>& reasons) {
  const auto& names = ssn.resource_names();
  const size_t n = std::min({req.size(), avail.size(), names.size()});
  for (size_t i = 0; i < n; ++i)
    if (!dim_fits(req, avail, i)) reasons.push_back("insufficient " + names[i]);
}

bool has_pod_room(const NodeInfo* n) { return n->pods < n->max_pods; }

std::string status_reason(const PointStatus& st) {
  if (!st.reason.empty()) return st.reason;
  if (!st.plugin.empty()) return fmt::format("node(s) didn't pass the {} predicate", st.plugin);
  return "node(s) didn't pass the predicates";
}

bool plugin_predicate(const Session& ssn, const TaskInfo* t, const NodeInfo* n,
                      std::vector<std::string>& reasons) {
  if (!has_pod_room(n)) {
    reasons.emplace_back(kInsufficientPods);
    return false;
  }
  PointStatus st = ssn.predicate(t, n);
  if (st.ok()) return true;
  reasons.push_back(status_reason(st));
  return false;
}

bool allocate_predicate(const Session& ssn, const TaskInfo* t, const NodeInfo* n,
                        std::vector<std::string>& reasons) {
  // The action's own resource check comes first and, when it fails, the plugins are not
  // asked (Volcano returns the insufficient-resource fit error at once).
  size_t before = reasons.size();
  insufficient_resources(ssn, t->init_resreq, n->future_idle, reasons);
  if (!has_pod_room(n)) reasons.emplace_back(kInsufficientPods);
  if (reasons.size() != before) return false;
  PointStatus st = ssn.predicate(t, n);
  if (st.ok()) return true;
  reasons.push_back(status_reason(st));
  return false;
}

std::vector<NodeInfo*> PredicateHelper::predicate_nodes(const TaskInfo* t,
                                                        const std::vector<NodeInfo*>& nodes,
                                                        const NodePredicate& pred,
                                                        FitErrors& fe) {
  std::vector<NodeInfo*> passed;
  fe.set_nodes(nodes.size());
  std::map<std::string, std::vector<std::string>>* node_cache = nullptr;
  if (cache_enabled_ && !t->role.empty() && t->job != nullptr)
    node_cache = &cache_[t->job->uid + "/" + t->role];

  std::vector<std::string> reasons;
  for (NodeInfo* n : nodes) {
    if (node_cache != nullptr) {
      auto hit = node_cache->find(n->name);
      if (hit != node_cache->end()) {
        for (const auto& r : hit->second) fe.add(r);
        continue;
      }
    }
    reasons.clear();
    if (pred(t, n, reasons)) {
      passed.push_back(n);
      continue;
    }
    if (reasons.empty()) reasons.emplace_back("node(s) didn't pass the predicates");
    for (const auto& r : reasons) fe.add(r);
    if (node_cache != nullptr) (*node_cache)[n->name] = reasons;
  }
  return passed;
}

void fail_every_node(FitErrors& fe, size_t node_count, const std::string& reason) {
  fe.set_nodes(node_count);
  for (size_t i = 0; i < node_count; ++i) fe.add(reason);
}

NodeInfo* select_node(const Session& ssn, const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                      double* score) {
  if (score) *score = 0;
  if (nodes.empty()) return nullptr;
  if (nodes.size() == 1) return nodes.front();
  std::vector<double> scores(nodes.size(), 0.0);
  ssn.node_scores(t, nodes, scores);
  NodeInfo* best = ssn.best_node(t, nodes, scores);
  if (score)
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i] == best) *score = scores[i];
  return best;
}

}  // namespace caldera::placement
