// Kubernetes' PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread, v1.36)
// as Volcano runs it: DoNotSchedule constraints filter in the predicates plugin (PreFilter /
// Filter), ScheduleAnyway constraints score in nodeorder (PreScore / Score /
// NormalizeScore). Feature gates at their 1.36 defaults: node inclusion policies and
// matchLabelKeys on. Cluster-level default constraints (SystemDefaulting) apply only to
// pods selected by a Service, ReplicaSet or StatefulSet, which the session does not know: a
// pod without constraints of its own has none.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <string_view>
#include <utility>
#include <vector>

#include "caldera/sdk.hpp"
#include "kube/label_columns.hpp"
#include "kube/label_index.hpp"
#include "kube/pod_fit.hpp"
#include "kube/selectors.hpp"

namespace caldera::kube {

inline constexpr const char* kSpreadNotMatch =
    "node(s) didn't match pod topology spread constraints";
inline constexpr const char* kSpreadMissingLabel =
    "node(s) didn't match pod topology spread constraints (missing required label)";
inline constexpr const char* kHostnameKey = "kubernetes.io/hostname";

// One constraint of the pod, its selector merged with the pod's values of matchLabelKeys.
struct SpreadConstraint {
  const cal_spread_constraint* c = nullptr;
  std::vector<std::pair<const char*, const char*>> extra;  // key In (value)

  // labels.Selector.Empty(): counts nothing (but the pod itself still matches).
  bool empty() const { return extra.empty() && selector_everything(c->selector); }
  bool matches(sdk::Pod p) const {
    if (c->selector.absent) return false;  // labels.Nothing(), whatever the extra keys
    for (const auto& [k, v] : extra) {
      const char* have = p.label(k);
      if (have == nullptr || sv(have) != sv(v)) return false;
    }
    return selector_matches(c->selector, [&](const char* k) { return p.label(k); });
  }
};

// The pod's constraints with whenUnsatisfiable = do_not_schedule.
inline std::vector<SpreadConstraint> spread_constraints(sdk::Pod pod, bool do_not_schedule) {
  std::vector<SpreadConstraint> out;
  const cal_pod_constraints* c = pod.constraints();
  if (c == nullptr) return out;
  for (size_t i = 0; i < c->spread_count; ++i) {
    const cal_spread_constraint& sc = c->spread[i];
    if ((sc.do_not_schedule != 0) != do_not_schedule) continue;
    SpreadConstraint s;
    s.c = &sc;
    for (size_t k = 0; k < sc.match_label_keys.count; ++k)
      if (const char* v = pod.label(sc.match_label_keys.items[k]))
        s.extra.emplace_back(sc.match_label_keys.items[k], v);
    // SelectorFromSet keeps one value per key, in key order: duplicates collapse.
    std::sort(s.extra.begin(), s.extra.end(),
              [](const auto& a, const auto& b) { return sv(a.first) < sv(b.first); });
    s.extra.erase(std::unique(s.extra.begin(), s.extra.end(),
                              [](const auto& a, const auto& b) { return sv(a.first) == sv(b.first); }),
                  s.extra.end());
    out.push_back(std::move(s));
  }
  return out;
}

// countPodsMatchSelector over the node's pods: same namespace, not terminating.
inline int64_t matching_pods(sdk::Node n, const SpreadConstraint& s, std::string_view ns) {
  if (s.empty()) return 0;
  int64_t count = 0;
  for (size_t k = 0; k < n.pod_count(); ++k) {
    const sdk::Pod p = n.pod(k);
    if (p.terminating() || p.ns() != ns) continue;
    if (s.matches(p)) ++count;
  }
  return count;
}

// Node inclusion policies: with Honor, a node the pod's required node affinity (node
// selector included) rules out, or whose NoSchedule / NoExecute taints it does not
// tolerate, is not one of the constraint's domains.
inline bool included(const SpreadConstraint& s, const PodFit& fit, sdk::Node n) {
  if (s.c->node_affinity_policy_honor && !fit.node_affinity_matches(n)) return false;
  if (s.c->node_taints_policy_honor && fit.untolerated_taint(n)) return false;
  return true;
}

// For one constraint shape (topology key, node inclusion policies) and one pod fit
// (selector, required node affinity, tolerations), by node index: whether the node is one
// of the constraint's domains (it has the key, and the inclusion policies keep it). The
// node's value of the key is its label column's. Nodes' labels and taints do not change in
// a session, so tasks alike share the answers.
struct NodeDomains {
  std::vector<char> included;
  std::map<std::string_view, int64_t> empty_counts;  // every domain of an included node, 0
};

class DomainCache {
 public:
  const NodeDomains& get(sdk::Session s, const std::string& fit_key, const SpreadConstraint& sc,
                         const LabelColumns::Column& column, const PodFit& fit) {
    std::string key = fit_key;
    key.append(1, '\x1c').append(sc.c->topology_key).append(1, '\x1c');
    key.append(1, sc.c->node_affinity_policy_honor ? 'A' : 'a');
    key.append(1, sc.c->node_taints_policy_honor ? 'T' : 't');
    auto [it, added] = cache_.try_emplace(std::move(key));
    NodeDomains& d = it->second;
    if (added) {
      d.included.resize(s.node_count());
      for (size_t i = 0; i < s.node_count(); ++i) {
        d.included[i] = column.value[i] != LabelColumns::kNone && included(sc, fit, s.node(i));
        if (d.included[i]) d.empty_counts.emplace(sv(column.at(i)), 0);
      }
    }
    return d;
  }

 private:
  std::unordered_map<std::string, NodeDomains> cache_;
};

// PreFilter's state and Filter.
class SpreadFilter {
 public:
  // False for Kubernetes' Skip: the pod has no DoNotSchedule constraint.
  // With `index` (built at first use), a constraint whose selector names a label value
  // counts only the pods carrying it instead of every pod of every node.
  // With `domains` (and the fit's key, see DomainCache), the nodes' inclusion is read from
  // answers kept for tasks alike; the nodes' values always from `columns`.
  bool prefilter(sdk::Session s, sdk::Pod pod, const PodFit& fit, LabelColumns& columns,
                 LabelIndex* index = nullptr, DomainCache* domains = nullptr,
                 const std::string& fit_key = {}) {
    pod_ = pod;
    constraints_ = spread_constraints(pod, /*do_not_schedule=*/true);
    counts_.assign(constraints_.size(), {});
    if (constraints_.empty()) return false;
    const std::string_view ns = pod.ns();
    if (index != nullptr && !index->built()) index->build(s);
    // Per constraint: its anchor label, and which nodes are its domains' (by node index).
    std::vector<std::pair<std::string_view, std::string_view>> anchors(constraints_.size());
    std::vector<char> anchored(constraints_.size(), 0);
    std::vector<std::vector<char>> counted(constraints_.size());
    for (size_t c = 0; c < constraints_.size() && index != nullptr; ++c) {
      const SpreadConstraint& sc = constraints_[c];
      if (sc.c->selector.absent || sc.empty()) continue;  // counts nothing: no look-up
      if (LabelIndex::anchor(sc.c->selector, &anchors[c].first, &anchors[c].second)) {
        anchored[c] = 1;
      } else if (!sc.extra.empty()) {
        anchors[c] = {sc.extra.front().first, sc.extra.front().second};
        anchored[c] = 1;
      }
      if (anchored[c]) counted[c].assign(s.node_count(), 0);
    }
    // Each constraint's key, by node index (its label column).
    std::vector<const LabelColumns::Column*> col(constraints_.size());
    for (size_t c = 0; c < constraints_.size(); ++c)
      col[c] = &columns.column(s, constraints_[c].c->topology_key);
    std::vector<const NodeDomains*> known(constraints_.size(), nullptr);
    if (domains != nullptr)
      for (size_t c = 0; c < constraints_.size(); ++c)
        known[c] = &domains->get(s, fit_key, constraints_[c], *col[c], fit);
    // One constraint (the usual case): its domains are the cached ones, and only the pods
    // carrying its anchor label are counted, so no node is visited.
    const bool one_known = constraints_.size() == 1 && known[0] != nullptr;
    if (one_known) {
      counts_[0] = known[0]->empty_counts;
      if (anchored[0]) counted[0] = known[0]->included;
    }
    for (size_t i = 0; i < s.node_count() && !(one_known && anchored[0]); ++i) {
      bool all_keys = true;
      for (size_t c = 0; c < constraints_.size() && all_keys; ++c)
        all_keys = col[c]->value[i] != LabelColumns::kNone;
      if (!all_keys) continue;
      const sdk::Node n = s.node(i);
      for (size_t c = 0; c < constraints_.size(); ++c) {
        if (!(known[c] ? known[c]->included[i] != 0 : included(constraints_[c], fit, n))) continue;
        int64_t& domain = counts_[c][sv(col[c]->at(i))];
        if (anchored[c]) counted[c][i] = 1;
        else domain += matching_pods(n, constraints_[c], ns);
      }
    }
    for (size_t c = 0; c < constraints_.size(); ++c) {
      if (!anchored[c]) continue;
      const auto* pods = index->find(anchors[c].first, anchors[c].second);
      if (pods == nullptr) continue;
      for (const LabelIndex::Entry& e : *pods) {
        if (!counted[c][e.node]) continue;
        const sdk::Pod p(e.pod);
        if (p.terminating() || p.ns() != ns || !constraints_[c].matches(p)) continue;
        ++counts_[c][sv(col[c]->at(e.node))];
      }
    }
    // What Filter reads, per constraint: the node's domain by node index (the key's label
    // column), the pods per domain by value id, the smallest count, and the pod itself.
    checks_.assign(constraints_.size(), {});
    for (size_t c = 0; c < constraints_.size(); ++c) {
      Check& k = checks_[c];
      k.column = col[c];
      k.by_value.assign(k.column->names.size(), 0);
      k.min_match = INT32_MAX;
      for (const auto& [value, cnt] : counts_[c]) {
        k.min_match = std::min(k.min_match, cnt);
        k.by_value[k.column->id_of(value)] = cnt;
      }
      if (static_cast<int64_t>(counts_[c].size()) < constraints_[c].c->min_domains) k.min_match = 0;
      k.self = constraints_[c].matches(pod_) ? 1 : 0;
    }
    return true;
  }

  // nullptr when the node (of index `node`) passes; else the reason, and *unresolvable
  // for a node without a constraint's key.
  const char* filter(size_t node, bool* unresolvable) const {
    *unresolvable = false;
    for (size_t c = 0; c < checks_.size(); ++c) {
      const Check& k = checks_[c];
      const uint32_t value = k.column->value[node];
      if (value == LabelColumns::kNone) {
        *unresolvable = true;
        return kSpreadMissingLabel;
      }
      if (k.by_value[value] + k.self - k.min_match > constraints_[c].c->max_skew)
        return kSpreadNotMatch;
    }
    return nullptr;
  }

 private:
  struct Check {
    const LabelColumns::Column* column = nullptr;
    std::vector<int64_t> by_value;  // pods per domain, by value id (0: not a domain)
    int64_t min_match = 0;
    int64_t self = 0;
  };
  sdk::Pod pod_;
  std::vector<SpreadConstraint> constraints_;
  std::vector<std::map<std::string_view, int64_t>> counts_;  // per constraint: domain -> pods
  std::vector<Check> checks_;
};

// PodTopologySpread's score over the candidate nodes, normalised; false when PreScore skips.
inline bool spread_scores(sdk::Session s, sdk::Pod pod, const PodFit& fit, LabelColumns& columns,
                          const cal_node* const* nodes, size_t count, int64_t* out) {
  const std::vector<SpreadConstraint> cs = spread_constraints(pod, /*do_not_schedule=*/false);
  if (cs.empty() || s.node_count() == 0) return false;
  const std::string_view ns = pod.ns();
  // Per constraint: the key's column, whether it is the hostname, and the pods per domain
  // (by value id; -1: not one of the candidates' domains).
  std::vector<const LabelColumns::Column*> col(cs.size());
  std::vector<char> hostname(cs.size());
  std::vector<std::vector<int64_t>> counts(cs.size());
  for (size_t c = 0; c < cs.size(); ++c) {
    col[c] = &columns.column(s, cs[c].c->topology_key);
    hostname[c] = sv(cs[c].c->topology_key) == kHostnameKey;
    counts[c].assign(col[c]->names.size(), -1);
  }
  auto has_all_keys_at = [&](size_t node) {
    for (size_t c = 0; c < cs.size(); ++c)
      if (col[c]->value[node] == LabelColumns::kNone) return false;
    return true;
  };
  std::vector<char> ignored(count, 0);
  std::vector<size_t> index(count);
  std::vector<size_t> sizes(cs.size(), 0);
  size_t ignored_count = 0;
  for (size_t i = 0; i < count; ++i) {
    index[i] = sdk::Node(nodes[i], 0).index();
    if (!has_all_keys_at(index[i])) {
      ignored[i] = 1;
      ++ignored_count;
      continue;
    }
    for (size_t c = 0; c < cs.size(); ++c) {
      if (hostname[c]) continue;
      int64_t& domain = counts[c][col[c]->value[index[i]]];
      if (domain < 0) {
        domain = 0;
        ++sizes[c];
      }
    }
  }
  std::vector<double> weight(cs.size());
  for (size_t c = 0; c < cs.size(); ++c) {
    const size_t size = hostname[c] ? count - ignored_count : sizes[c];
    weight[c] = std::log(static_cast<double>(size + 2));
  }
  for (size_t i = 0; i < s.node_count(); ++i) {
    if (!has_all_keys_at(i)) continue;
    const sdk::Node n = s.node(i);
    for (size_t c = 0; c < cs.size(); ++c) {
      int64_t& domain = counts[c][col[c]->value[i]];
      if (domain < 0 || !included(cs[c], fit, n)) continue;
      domain += matching_pods(n, cs[c], ns);
    }
  }
  int64_t lo = INT64_MAX, hi = 0;
  for (size_t i = 0; i < count; ++i) {
    if (ignored[i]) continue;
    double score = 0;
    for (size_t c = 0; c < cs.size(); ++c) {
      const uint32_t value = col[c]->value[index[i]];
      int64_t cnt = 0;
      if (hostname[c]) {
        cnt = matching_pods(sdk::Node(nodes[i], 0), cs[c], ns);
      } else {
        cnt = std::max<int64_t>(counts[c][value], 0);
      }
      score += static_cast<double>(cnt) * weight[c] + static_cast<double>(cs[c].c->max_skew - 1);
    }
    out[i] = static_cast<int64_t>(std::round(score));
    lo = std::min(lo, out[i]);
    hi = std::max(hi, out[i]);
  }
  for (size_t i = 0; i < count; ++i) {
    if (ignored[i]) {
      out[i] = 0;
    } else if (hi == 0) {
      out[i] = 100;
    } else {
      out[i] = 100 * (hi + lo - out[i]) / hi;
    }
  }
  return true;
}

}  // namespace caldera::kube
