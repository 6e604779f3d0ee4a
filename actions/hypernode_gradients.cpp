// HyperNode gradients (see the header). Volcano:
// pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go, session.go.
#include "actions/hypernode_gradients.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "actions/placement.hpp"

namespace caldera {

namespace {

constexpr const char* kNetworkTopologyAware = "network-topology-aware";

// A HyperNode and its ancestors, itself first, ending with the whole cluster (nullptr):
// Volcano's HyperNodeInfoMap.GetAncestors once every root hangs under the cluster top.
std::vector<HyperNodeInfo*> ancestors(HyperNodeInfo* h) {
  std::vector<HyperNodeInfo*> out;
  for (HyperNodeInfo* a = h; a != nullptr; a = a->parent) out.push_back(a);
  out.push_back(nullptr);
  return out;
}

// Volcano's GetLCAHyperNode with the cluster top as everyone's last ancestor (nullptr).
HyperNodeInfo* lca_with_top(HyperNodeInfo* a, HyperNodeInfo* b) {
  const std::vector<HyperNodeInfo*> up = ancestors(a);
  const std::set<HyperNodeInfo*> mine(up.begin(), up.end());
  for (HyperNodeInfo* x : ancestors(b))
    if (mine.count(x) != 0) return x;
  return nullptr;
}

}  // namespace

HyperNodeInfo* lca_or_either(HyperNodeInfo* a, HyperNodeInfo* b) {
  if (a == nullptr) return b;
  if (b == nullptr) return a;
  return HyperNodes::lca(a, b);
}

HyperNodeGradients::HyperNodeGradients(const Session& ssn, SearchPurpose purpose)
    : ssn_(ssn), hns_(ssn.hypernodes()), purpose_(purpose), top_tier_(ssn.cluster_top_tier()) {
  for (const auto& tier : ssn.policy().tiers)
    for (const ConfiguredPlugin& p : tier)
      if (p.name == kNetworkTopologyAware) enabled_ = true;
  for (HyperNodeInfo* h : hns_.all())
    if (h->parent == nullptr) roots_.push_back(h);
  std::sort(roots_.begin(), roots_.end(),
            [](const HyperNodeInfo* l, const HyperNodeInfo* r) { return l->name < r->name; });
  if (purpose_ != SearchPurpose::Allocate || !enabled_) return;
  const size_t n = ssn.resource_count();
  auto sum = [n](const std::vector<NodeInfo*>& nodes) {
    Free f{ResVec(n), ResVec(n)};
    for (const NodeInfo* node : nodes) {
      f.idle.add(node->idle.data());
      f.future_idle.add(node->future_idle.data());
    }
    return f;
  };
  free_.emplace(nullptr, sum(ssn.nodes()));
  for (HyperNodeInfo* h : hns_.all()) free_.emplace(h, sum(h->nodes));
}

Domain HyperNodeGradients::top() const {
  return Domain{kClusterTopHyperNode, nullptr, &ssn_.nodes(), top_tier_};
}

Domain HyperNodeGradients::of(HyperNodeInfo* h) const {
  if (h == nullptr) return top();
  return Domain{h->name, h, &h->nodes, h->tier};
}

std::vector<Domain> HyperNodeGradients::children(const Domain& d) const {
  std::vector<Domain> out;
  for (HyperNodeInfo* c : d.hypernode ? d.hypernode->children : roots_) out.push_back(of(c));
  return out;
}

bool HyperNodeGradients::eligible(const Domain& d, int32_t highest_tier,
                                  HyperNodeInfo* allocated, const ResVec& min_resource) const {
  if (d.tier > highest_tier) return false;
  if (allocated != nullptr) return true;  // already placed: no pre-filter
  if (purpose_ == SearchPurpose::Evict) {
    ResVec allocatable(ssn_.resource_count());
    for (const NodeInfo* n : *d.nodes) allocatable.add(n->allocatable.data());
    return placement::fits(min_resource, allocatable);
  }
  const Free& f = free_.at(d.hypernode);
  return placement::fits(min_resource, f.idle) || placement::fits(min_resource, f.future_idle);
}

std::vector<std::vector<Domain>> HyperNodeGradients::search(const Domain& available,
                                                            int32_t highest_tier,
                                                            HyperNodeInfo* allocated,
                                                            const ResVec& min_resource) const {
  // getSearchRoot: one placed in `allocated` may only grow within the highest HyperNode
  // above it whose tier is allowed; that subtree intersected with `available`.
  Domain root = available;
  if (allocated != nullptr) {
    bool found = false;
    HyperNodeInfo* highest = nullptr;
    for (HyperNodeInfo* a : ancestors(allocated)) {
      const int32_t tier = a ? a->tier : top_tier_;
      if (tier > highest_tier) break;
      highest = a;
      found = true;
    }
    if (!found) return {};  // already placed above its tier
    HyperNodeInfo* lca = lca_with_top(available.hypernode, highest);
    if (lca == highest) {
      root = available;
    } else if (lca == available.hypernode) {
      root = of(highest);
    } else {
      return {};  // no intersection
    }
  }

  // Breadth first from the root; eligible domains grouped by tier, tiers ascending.
  std::map<int32_t, std::vector<Domain>> by_tier;
  std::deque<Domain> todo{root};
  std::set<std::string_view> enqueued{root.name};
  while (!todo.empty()) {
    const Domain cur = todo.front();
    todo.pop_front();
    if (eligible(cur, highest_tier, allocated, min_resource))
      by_tier[cur.tier].push_back(cur);
    for (const Domain& c : children(cur))
      if (enqueued.insert(c.name).second) todo.push_back(c);
  }
  std::vector<std::vector<Domain>> out;
  for (auto& [tier, row] : by_tier) out.push_back(std::move(row));
  return out;
}

}  // namespace caldera
