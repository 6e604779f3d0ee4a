// The session's HyperNodes (see the header).
#include "host/session/hypernodes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "host/cache/cache.hpp"
#include "host/model/hypernode_tree.hpp"
#include "host/session/dispatch.hpp"
#include "host/session/host_api.hpp"
#include "host/session/session.hpp"

namespace caldera {

namespace {


bool same_inputs(const HyperNodeTreeMemo& m, const Cache& cache) {
  if (m.hypernodes.size() != cache.hypernodes().size() || m.nodes.size() != cache.nodes().size())
    return false;
  size_t i = 0;
  for (const auto& [_, hn] : cache.hypernodes())
    if (m.hypernodes[i++] != hn) return false;
  i = 0;
  for (const auto& [_, n] : cache.nodes()) {
    const auto& old = m.nodes[i++];
    if (old == n) continue;
    if (old->name != n->name || old->labels != n->labels) return false;
  }
  return true;
}

std::shared_ptr<const HyperNodeTree> tree_of(const Cache& cache, HyperNodeTreeMemo& memo) {
  if (memo.tree && same_inputs(memo, cache)) {
    // Keep the newest node records, so that the next comparison is by pointer again.
    size_t i = 0;
    for (const auto& [_, n] : cache.nodes()) memo.nodes[i++] = n;
    return memo.tree;
  }
  std::vector<HyperNodeProblem> problems;
  auto tree = std::make_shared<const HyperNodeTree>(
      build_hypernode_tree(cache.hypernodes(), cache.nodes(), &problems));
  // Said once per change of the tree, not once per session.
  for (const HyperNodeProblem& p : problems)
    spdlog::warn("HyperNode {}{}: {}{}", p.hypernode,
                 p.member >= 0 ? " member " + std::to_string(p.member) : std::string(), p.message,
                 p.fatal ? " (no job with a network topology is placed until it is fixed)" : "");
  memo.hypernodes.clear();
  for (const auto& [_, hn] : cache.hypernodes()) memo.hypernodes.push_back(hn);
  memo.nodes.clear();
  for (const auto& [_, n] : cache.nodes()) memo.nodes.push_back(n);
  memo.tree = tree;
  return tree;
}

const std::vector<HyperNodeInfo*>& no_hypernodes() {
  static const std::vector<HyperNodeInfo*> v;
  return v;
}

}  // namespace

HyperNodes::HyperNodes() = default;
HyperNodes::~HyperNodes() = default;

void HyperNodes::build(const Cache& cache, const std::vector<NodeInfo*>& nodes,
                       const std::vector<JobInfo*>& jobs, HyperNodeTreeMemo& memo) {
  if (cache.hypernodes().empty()) return;
  std::shared_ptr<const HyperNodeTree> tree = tree_of(cache, memo);
  if (!tree->usable) {
    problem_ = tree->problem;
    return;
  }
  std::unordered_map<std::string, NodeInfo*> node_by_name;
  for (NodeInfo* n : nodes) node_by_name[n->name] = n;

  for (const auto& e : tree->entries) {
    auto h = std::make_unique<HyperNodeInfo>();
    h->name = e.spec->name;
    h->tier = e.spec->tier;
    for (const std::string& name : e.nodes)
      if (auto it = node_by_name.find(name); it != node_by_name.end())
        h->nodes.push_back(it->second);
    by_name_[h->name] = h.get();
    owned_.push_back(std::move(h));
  }
  for (size_t i = 0; i < tree->entries.size(); ++i) {
    const auto& e = tree->entries[i];
    HyperNodeInfo* h = owned_[i].get();
    if (e.parent >= 0) h->parent = owned_[static_cast<size_t>(e.parent)].get();
    for (int c : e.children) h->children.push_back(owned_[static_cast<size_t>(c)].get());
  }

  for (auto& h : owned_) all_.push_back(h.get());
  std::sort(all_.begin(), all_.end(), [](const HyperNodeInfo* a, const HyperNodeInfo* b) {
    return a->tier != b->tier ? a->tier < b->tier : a->name < b->name;
  });
  for (HyperNodeInfo* h : all_) {
    if (tiers_.empty() || tiers_.back() != h->tier) {
      tiers_.push_back(h->tier);
      by_tier_.emplace_back();
    }
    by_tier_.back().push_back(h);
    for (NodeInfo* n : h->nodes) of_node_[n].push_back(h);  // all_ is by tier: lowest first
  }

  for (JobInfo* j : jobs)
    if (HyperNodeInfo* h = lowest_holding(j->tasks)) allocated_[j] = h;
}

const std::vector<HyperNodeInfo*>& HyperNodes::at_tier(int32_t tier) const {
  auto it = std::lower_bound(tiers_.begin(), tiers_.end(), tier);
  if (it == tiers_.end() || *it != tier) return no_hypernodes();
  return by_tier_[static_cast<size_t>(it - tiers_.begin())];
}

HyperNodeInfo* HyperNodes::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const std::vector<HyperNodeInfo*>& HyperNodes::of_node(const NodeInfo* n) const {
  auto it = of_node_.find(n);
  return it == of_node_.end() ? no_hypernodes() : it->second;
}

bool HyperNodes::contains(const HyperNodeInfo* h, const NodeInfo* n) const {
  const auto& v = of_node(n);
  return std::find(v.begin(), v.end(), h) != v.end();
}

HyperNodeInfo* HyperNodes::lca(HyperNodeInfo* a, HyperNodeInfo* b) {
  if (!a || !b) return nullptr;
  std::set<const HyperNodeInfo*> up;
  for (HyperNodeInfo* p = a; p; p = p->parent) up.insert(p);
  for (HyperNodeInfo* p = b; p; p = p->parent)
    if (up.count(p)) return p;
  return nullptr;
}

HyperNodeInfo* HyperNodes::allocated(const JobInfo* j) const {
  auto it = allocated_.find(j);
  return it == allocated_.end() ? nullptr : it->second;
}

void HyperNodes::set_allocated(const JobInfo* j, HyperNodeInfo* h) {
  if (h)
    allocated_[j] = h;
  else
    allocated_.erase(j);
}

HyperNodeInfo* HyperNodes::lowest_holding(const std::vector<TaskInfo*>& tasks) const {
  HyperNodeInfo* acc = nullptr;
  bool any = false;
  for (const TaskInfo* t : tasks) {
    if (!t->node || !allocated_status(t->cache_status)) continue;
    const auto& hs = of_node(t->node);
    if (hs.empty()) return nullptr;  // a task outside every HyperNode: no common one
    acc = any ? lca(acc, hs.front()) : hs.front();
    any = true;
    if (!acc) return nullptr;
  }
  return acc;
}

const NetworkTopology* network_topology_of(const JobInfo* j) {
  if (!j->podgroup || !j->podgroup->network_topology) return nullptr;
  return &*j->podgroup->network_topology;
}

void hyper_node_scores(const Session& ssn, const SubJobInfo* sub_job,
                       const std::vector<HyperNodeInfo*>& candidates, std::vector<double>& scores) {
  scores.assign(candidates.size(), 0.0);
  if (candidates.empty()) return;
  std::vector<const cal_hypernode*> handles(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) handles[i] = to_handle(candidates[i]);
  const PluginChains& chains = ssn.chains();
  combine<Slot::sub_job_hyper_node_order>(chains, candidates.size(), scores.data(),
                                          to_handle(sub_job), handles.data(), handles.size());
  // A plugin without the sub-job form scores the sub-job's job (plugin.h,
  // sub_job_hyper_node_order); one with both answered above.
  const auto& sub = chains[Slot::sub_job_hyper_node_order];
  for (const PluginCall& c : chains[Slot::hyper_node_order]) {
    const bool answered = std::any_of(sub.begin(), sub.end(),
                                      [&](const PluginCall& m) { return m.name == c.name; });
    if (answered) continue;
    dispatch::sum<Slot::hyper_node_order>(dispatch::Chain{c}, candidates.size(), scores.data(),
                                          to_handle(sub_job->job), handles.data(),
                                          handles.size());
  }
}

}  // namespace caldera
