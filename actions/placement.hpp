// Placing one task on one of the session's nodes: the pieces every placing action shares
// besides the predicate search (actions/predicate_helper.hpp).
//
// Follows Volcano's
//   pkg/scheduler/actions/allocate/allocate.go   (prioritizeNodes)
//   pkg/scheduler/util/scheduler_helper.go       (PrioritizeNodes, SelectBestNode)
//   pkg/scheduler/api/resource_info.go           (LessEqualWithResourcesName)
//
// Among equal scores the first node by name wins (Session::best_node), where Volcano picks
// one at random.
#pragma once

#include <string>
#include <vector>

#include "host/session/session.hpp"

namespace caldera::placement {

// Resource ids 0 and 1 are cpu and memory in every session (caldera/plugin.h, UNITS).
inline constexpr size_t kFixedDims = 2;

// One dimension of Volcano's LessEqual(rr, Zero) with its 0.1 tolerance: cpu and memory are
// always compared; a scalar resource (pods among them: every task asks for one) only when
// `req` asks for it, as Volcano compares only the scalars present in the request.
inline bool dim_fits(const ResVec& req, const ResVec& avail, size_t i) {
  if (i >= kFixedDims && !(req[i] > 0)) return true;
  return res::le(req[i], avail[i]);
}

// Every dimension of `req` fits in `avail`.
inline bool fits(const ResVec& req, const ResVec& avail) {
  const size_t n = std::min(req.size(), avail.size());
  for (size_t i = 0; i < n; ++i)
    if (!dim_fits(req, avail, i)) return false;
  return true;
}


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
