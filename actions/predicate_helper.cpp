// Volcano's util.PredicateHelper.PredicateNodes with a deterministic walk (see the header).
#include "actions/predicate_helper.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "actions/placement.hpp"
#include "host/util/worker_pool.hpp"

namespace caldera {

namespace {
// Nodes per parallel batch at least: below this the hand-over to other threads costs more
// than it saves.
constexpr size_t kMinParallelBatch = 256;
constexpr size_t kMinChunk = 64;
}  // namespace

PredicateHelper::GroupErrors* PredicateHelper::group_of(const TaskInfo* t, bool create) {
  // Volcano's taskGroupID: job and task spec; a pod without a task spec is its own group.
  std::string key = t->role.empty() ? "pod:" + t->uid
                                    : (t->job ? t->job->uid : std::string()) + "/" + t->role;
  auto it = groups_.find(key);
  if (it != groups_.end()) return &it->second;
  if (!create) return nullptr;
  return &groups_.emplace(std::move(key), GroupErrors(ssn_.nodes().size(), 0)).first->second;
}

void PredicateHelper::evaluate(const TaskInfo* t, const NodeInfo* n, const NodeFilter& filter,
                               const GroupErrors* cached, Verdict& v) const {
  v.ok = false;
  v.cached = false;
  v.host_failed = false;
  v.plugin = nullptr;
  if (cached != nullptr && (*cached)[n->index] != 0) {
    v.cached = true;
    return;
  }
  // The action's own checks come first and, when they fail, the plugins are not asked
  // (Volcano returns the insufficient-resource fit error at once).
  if ((filter.resources && !placement::fits(t->init_resreq, n->future_idle)) ||
      (filter.pod_room && !placement::has_pod_room(n))) {
    v.host_failed = true;
    return;
  }
  v.code = ssn_.predicate_code(t, n, v.st, &v.plugin);
  if (v.code == CAL_SUCCESS || (filter.unschedulable_passes && v.code == CAL_UNSCHEDULABLE)) {
    v.ok = true;
    v.plugin = nullptr;
  }
}

void PredicateHelper::record_failure(const TaskInfo* t, const NodeInfo* n,
                                     const NodeFilter& filter, const Verdict& v,
                                     GroupErrors*& group, FitErrors* fe) {
  if (v.cached) {
    const GroupErrors& g = *group;
    const uint32_t at = g[n->index] - 1;
    if (fe != nullptr)
      for (int32_t k = 0; k < pool_[at]; ++k) fe->add(pool_[at + 1 + k]);
    return;
  }
  ids_.clear();
  if (v.host_failed) {
    if (filter.resources) {
      const size_t dims = std::min(t->init_resreq.size(), n->future_idle.size());
      for (size_t d = 0; d < dims; ++d)
        if (!placement::dim_fits(t->init_resreq, n->future_idle, d))
          ids_.push_back(ssn_.insufficient_reason(d));
    }
    if (filter.pod_room && !placement::has_pod_room(n)) ids_.push_back(ssn_.pods_reason());
  } else if (v.plugin != nullptr) {
    if (v.code == CAL_ERROR)
      spdlog::error("plugin {}: error: {}", *v.plugin, v.st.reason[0] ? v.st.reason : "no reason");
    ids_.push_back(v.st.reason[0] != '\0'
                       ? ssn_.reasons().intern(v.st.reason)
                       : ssn_.reasons().intern(
                             fmt::format("node(s) didn't pass the {} predicate", *v.plugin)));
  }
  if (ids_.empty()) ids_.push_back(ssn_.reasons().intern("node(s) didn't pass the predicates"));
  if (fe != nullptr)
    for (int32_t id : ids_) fe->add(id);
  if (group == nullptr) group = group_of(t, true);
  (*group)[n->index] = static_cast<uint32_t>(pool_.size()) + 1;
  pool_.push_back(static_cast<int32_t>(ids_.size()));
  pool_.insert(pool_.end(), ids_.begin(), ids_.end());
}

std::vector<NodeInfo*> PredicateHelper::predicate_nodes(const TaskInfo* t,
                                                        const std::vector<NodeInfo*>& nodes,
                                                        const NodeFilter& filter,
                                                        FitErrors* fe) {
  const size_t all = nodes.size();
  std::vector<NodeInfo*> found;
  if (fe != nullptr) fe->set_nodes(all);
  if (all == 0) return found;
  // Volcano sizes the search by the list it is given (a HyperNode's nodes, say).
  const size_t want = ssn_.policy().config.node_search.nodes_to_find(all);
  const size_t start = ssn_.node_search_start() % all;

  // Volcano reads whether the group failed before once, before it walks the nodes:
  // failures found in this walk only serve later calls.
  GroupErrors* group = group_of(t, false);
  const GroupErrors* cached = error_cache_ ? group : nullptr;

  size_t processed = 0;
  if (!ssn_.predicates_parallel()) {
    Verdict v;
    for (; processed < all && found.size() < want; ++processed) {
      NodeInfo* n = nodes[(start + processed) % all];
      evaluate(t, n, filter, cached, v);
      if (v.ok) {
        found.push_back(n);
      } else {
        record_failure(t, n, filter, v, group, fe);
      }
    }
  } else {
    // Batches evaluated on every thread, then read in walk order: the nodes found and
    // the failures recorded are those a one-thread walk would give; a batch may look at
    // a few nodes past the last one needed, whose answers are dropped.
    while (processed < all && found.size() < want) {
      const size_t batch =
          std::min(all - processed, std::max(kMinParallelBatch, 2 * (want - found.size())));
      if (verdicts_.size() < batch) verdicts_.resize(batch);
      const size_t base = start + processed;
      ssn_.workers().run(batch, kMinChunk, [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) evaluate(t, nodes[(base + i) % all], filter, cached, verdicts_[i]);
      });
      size_t i = 0;
      for (; i < batch && found.size() < want; ++i) {
        NodeInfo* n = nodes[(base + i) % all];
        if (verdicts_[i].ok) {
          found.push_back(n);
        } else {
          record_failure(t, n, filter, verdicts_[i], group, fe);
        }
      }
      processed += i;
    }
  }
  // The next search starts after the last node this one looked at, counted on this list
  // (Volcano's lastProcessedNodeIndex = (last + processed) % len(nodes)).
  ssn_.set_node_search_start((start + processed) % all);
  return found;
}

}  // namespace caldera
