// Kubernetes' InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity, v1.36) as
// Volcano runs it: its PreFilter / Filter in the predicates plugin, its PreScore / Score /
// NormalizeScore in nodeorder, over the host's view of each node's pods (node_pod_at).
//
// Volcano builds each plugin's Kubernetes snapshot when the session opens, and with it the
// lists of nodes that hold a pod with affinity terms (HavePodsWithAffinityList) and with
// required anti-affinity (HavePodsWithRequiredAntiAffinityList). The pods on a listed node
// follow the session (allocations add them), but a node that gains its first such pod during
// the session stays off the list. `AffinityNodes` records the lists at open so that the
// same pods count here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <unordered_map>
#include <string_view>
#include <utility>
#include <vector>

#include "caldera/sdk.hpp"
#include "kube/label_columns.hpp"
#include "kube/label_index.hpp"
#include "kube/selectors.hpp"

namespace caldera::kube {

inline constexpr const char* kAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
inline constexpr const char* kAntiAffinityRulesNotMatch =
    "node(s) didn't match pod anti-affinity rules";
inline constexpr const char* kExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";

// Whether term (of a pod in owner_ns) matches pod p (AffinityTerm.Matches).
inline bool term_matches(const cal_pod_affinity_term& t, std::string_view owner_ns, sdk::Pod p) {
  const std::string_view ns = p.ns();
  if (!term_covers_namespace(t, owner_ns, ns.data())) return false;
  return selector_matches(t.selector, [&](const char* k) { return p.label(k); });
}

inline bool has_pod_affinity(const cal_pod_constraints* c) {
  return c != nullptr && (c->required_affinity_count > 0 || c->preferred_affinity_count > 0 ||
                          c->required_anti_affinity_count > 0 ||
                          c->preferred_anti_affinity_count > 0);
}
inline bool has_required_anti_affinity(const cal_pod_constraints* c) {
  return c != nullptr && c->required_anti_affinity_count > 0;
}

// The nodes of the two snapshot lists, by node index, as they were when the session opened.
struct AffinityNodes {
  std::vector<size_t> with_affinity;               // a pod with any pod (anti-)affinity
  std::vector<size_t> with_required_anti_affinity;  // a pod with required anti-affinity

  static AffinityNodes at_open(sdk::Session s) {
    AffinityNodes out;
    for (size_t i = 0; i < s.node_count(); ++i) {
      const sdk::Node n = s.node(i);
      bool any = false, anti = false;
      for (size_t k = 0; k < n.pod_count(); ++k) {
        const cal_pod_constraints* c = n.pod(k).constraints();
        any = any || has_pod_affinity(c);
        anti = anti || has_required_anti_affinity(c);
      }
      if (any) out.with_affinity.push_back(i);
      if (anti) out.with_required_anti_affinity.push_back(i);
    }
    return out;
  }
};

// PreFilter's state for one pod, and Filter. Topology domains are kept as label-column
// ids (kube/label_columns.hpp): Filter reads the node's value of each key by node index.
class PodAffinityFilter {
 public:
  // Returns false for Kubernetes' Skip (nothing to check for this pod). With `index`, the
  // pods the pod's own terms may match are looked up by label (built at first use) rather
  // than visited on every node. Every column Filter reads is made here.
  bool prefilter(sdk::Session s, const AffinityNodes& lists, sdk::Pod pod, LabelColumns& columns,
                 LabelIndex* index = nullptr) {
    pod_ = pod;
    c_ = pod.constraints();
    existing_anti_.clear();
    affinity_.clear();
    anti_.clear();
    columns_ = &columns;
    const std::string_view ns = pod.ns();
    // Existing pods' required anti-affinity terms that match this pod.
    for (size_t i : lists.with_required_anti_affinity) {
      const sdk::Node n = s.node(i);
      for (size_t k = 0; k < n.pod_count(); ++k) {
        const sdk::Pod other = n.pod(k);
        const cal_pod_constraints* oc = other.constraints();
        if (!has_required_anti_affinity(oc)) continue;
        for (size_t t = 0; t < oc->required_anti_affinity_count; ++t) {
          const cal_pod_affinity_term& term = oc->required_anti_affinity[t];
          if (term_matches(term, other.ns(), pod))
            add(existing_anti_, columns.column(s, term.topology_key), i, 1);
        }
      }
    }
    const size_t req_aff = c_ ? c_->required_affinity_count : 0;
    const size_t req_anti = c_ ? c_->required_anti_affinity_count : 0;
    affinity_columns_.clear();
    anti_columns_.clear();
    for (size_t t = 0; t < req_aff; ++t)
      affinity_columns_.push_back(&columns.column(s, c_->required_affinity[t].topology_key));
    for (size_t t = 0; t < req_anti; ++t)
      anti_columns_.push_back(&columns.column(s, c_->required_anti_affinity[t].topology_key));
    if (index != nullptr && (req_aff > 0 || req_anti > 0) && !index->built()) index->build(s);
    // A pod matching every affinity term matches the first: its candidates are enough.
    if (req_aff > 0)
      visit(s, index, c_->required_affinity[0].selector, [&](sdk::Pod other, size_t node) {
        if (matches_all(c_->required_affinity, req_aff, ns, other))
          for (size_t t = 0; t < req_aff; ++t) add(affinity_, *affinity_columns_[t], node, 1);
      });
    for (size_t t = 0; t < req_anti; ++t) {
      const cal_pod_affinity_term& term = c_->required_anti_affinity[t];
      visit(s, index, term.selector, [&](sdk::Pod other, size_t node) {
        if (term_matches(term, ns, other)) add(anti_, *anti_columns_[t], node, 1);
      });
    }
    return !(existing_anti_.empty() && req_aff == 0 && req_anti == 0);
  }

  // nullptr when the node (of index `node`) passes; else the reason, and *unresolvable for
  // UnschedulableAndUnresolvable (affinity) rather than Unschedulable.
  const char* filter(size_t node, bool* unresolvable) const {
    *unresolvable = false;
    if (!satisfies_affinity(node)) {
      *unresolvable = true;
      return kAffinityRulesNotMatch;
    }
    if (!anti_.empty()) {
      for (const LabelColumns::Column* col : anti_columns_) {
        const uint32_t v = col->value[node];
        if (v != LabelColumns::kNone && count(anti_, *col, v) > 0) return kAntiAffinityRulesNotMatch;
      }
    }
    for (const auto& [domain, cnt] : existing_anti_) {
      if (cnt <= 0) continue;
      if (columns_->column_of(domain).value[node] == LabelColumns::value_of(domain))
        return kExistingAntiAffinityRulesNotMatch;
    }
    return nullptr;
  }

 private:
  using Counts = std::unordered_map<LabelColumns::Domain, int64_t>;

  // Calls f(pod, node index) for every pod of the view that `selector` may match: the pods
  // with its anchor label when the index can say, else every pod.
  template <typename F>
  static void visit(sdk::Session s, const LabelIndex* index, const cal_label_selector& selector,
                    F&& f) {
    std::string_view k, v;
    if (index != nullptr && LabelIndex::anchor(selector, &k, &v)) {
      if (const auto* pods = index->find(k, v))
        for (const LabelIndex::Entry& e : *pods) f(sdk::Pod(e.pod), e.node);
      return;
    }
    for (size_t i = 0; i < s.node_count(); ++i) {
      const sdk::Node n = s.node(i);
      for (size_t k2 = 0; k2 < n.pod_count(); ++k2) f(n.pod(k2), i);
    }
  }

  static void add(Counts& m, const LabelColumns::Column& col, size_t node, int64_t v) {
    if (const uint32_t value = col.value[node]; value != LabelColumns::kNone)
      m[LabelColumns::domain(col, value)] += v;
  }
  static int64_t count(const Counts& m, const LabelColumns::Column& col, uint32_t value) {
    auto it = m.find(LabelColumns::domain(col, value));
    return it == m.end() ? 0 : it->second;
  }
  // podMatchesAllAffinityTerms: false for no terms.
  static bool matches_all(const cal_pod_affinity_term* terms, size_t n, std::string_view owner_ns,
                          sdk::Pod p) {
    if (n == 0) return false;
    for (size_t t = 0; t < n; ++t)
      if (!term_matches(terms[t], owner_ns, p)) return false;
    return true;
  }

  bool satisfies_affinity(size_t node) const {
    bool pods_exist = true;
    for (const LabelColumns::Column* col : affinity_columns_) {
      const uint32_t v = col->value[node];
      if (v == LabelColumns::kNone) return false;
      if (count(affinity_, *col, v) <= 0) pods_exist = false;
    }
    if (pods_exist) return true;
    // The first pod of a group that selects itself may go anywhere its terms' keys exist.
    return affinity_.empty() &&
           matches_all(c_->required_affinity, affinity_columns_.size(), pod_.ns(), pod_);
  }

  sdk::Pod pod_;
  const cal_pod_constraints* c_ = nullptr;
  const LabelColumns* columns_ = nullptr;
  std::vector<const LabelColumns::Column*> affinity_columns_, anti_columns_;  // per term
  Counts existing_anti_, affinity_, anti_;
};

// InterPodAffinity's score over the candidate nodes, normalised to 0..100; false when
// PreScore skips (the scores are then left alone).
inline bool pod_affinity_scores(sdk::Session s, const AffinityNodes& lists, sdk::Pod pod,
                                LabelColumns& columns, const cal_node* const* nodes,
                                size_t count, int64_t* out) {
  const cal_pod_constraints* c = pod.constraints();
  const bool constraints =
      c != nullptr && (c->preferred_affinity_count > 0 || c->preferred_anti_affinity_count > 0);
  const std::string_view ns = pod.ns();
  NodeLabels labels(s, columns);
  // topologyScore: (key, value) -> score, and the keys it has.
  std::unordered_map<LabelColumns::Domain, int64_t> topo;
  std::vector<const LabelColumns::Column*> keys;
  auto process = [&](const cal_pod_affinity_term& t, int64_t weight, std::string_view owner,
                     sdk::Pod matched, size_t node) {
    if (!term_matches(t, owner, matched)) return;
    const LabelColumns::Column& col = labels.column(t.topology_key);
    const uint32_t v = col.value[node];
    if (v == LabelColumns::kNone) return;
    topo[LabelColumns::domain(col, v)] += weight;
    if (std::find(keys.begin(), keys.end(), &col) == keys.end()) keys.push_back(&col);
  };
  auto visit = [&](size_t node) {
    const sdk::Node n = s.node(node);
    for (size_t k = 0; k < n.pod_count(); ++k) {
      const sdk::Pod other = n.pod(k);
      const cal_pod_constraints* oc = other.constraints();
      if (!constraints && !has_pod_affinity(oc)) continue;
      if (c != nullptr) {
        for (size_t t = 0; t < c->preferred_affinity_count; ++t)
          process(c->preferred_affinity[t], c->preferred_affinity[t].weight, ns, other, node);
        for (size_t t = 0; t < c->preferred_anti_affinity_count; ++t)
          process(c->preferred_anti_affinity[t], -c->preferred_anti_affinity[t].weight, ns, other,
                  node);
      }
      // Volcano's InterPodAffinityArgs leave HardPodAffinityWeight at 0: existing pods'
      // required affinity terms add nothing.
      if (oc != nullptr) {
        for (size_t t = 0; t < oc->preferred_affinity_count; ++t)
          process(oc->preferred_affinity[t], oc->preferred_affinity[t].weight, other.ns(), pod,
                  node);
        for (size_t t = 0; t < oc->preferred_anti_affinity_count; ++t)
          process(oc->preferred_anti_affinity[t], -oc->preferred_anti_affinity[t].weight,
                  other.ns(), pod, node);
      }
    }
  };
  if (constraints) {
    for (size_t i = 0; i < s.node_count(); ++i) visit(i);
  } else {
    for (size_t i : lists.with_affinity) visit(i);
  }
  if (topo.empty()) return false;
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < count; ++i) {
    const size_t node = sdk::Node(nodes[i], 0).index();
    int64_t score = 0;
    for (const LabelColumns::Column* col : keys) {
      const uint32_t v = col->value[node];
      if (v == LabelColumns::kNone) continue;
      if (auto it = topo.find(LabelColumns::domain(*col, v)); it != topo.end()) score += it->second;
    }
    out[i] = score;
    lo = std::min(lo, score);
    hi = std::max(hi, score);
  }
  const int64_t diff = hi - lo;
  for (size_t i = 0; i < count; ++i) {
    double f = 0;
    if (diff > 0) f = 100.0 * (static_cast<double>(out[i] - lo) / static_cast<double>(diff));
    out[i] = static_cast<int64_t>(f);
  }
  return true;
}

}  // namespace caldera::kube
