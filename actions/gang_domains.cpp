// Eviction domains (see the header). Volcano: pkg/scheduler/actions/utils/util.go,
// pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go (PurposeEvict).
#include "actions/gang_domains.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "actions/placement.hpp"

namespace caldera::gang {

namespace {

constexpr const char* kNetworkTopologyAware = "network-topology-aware";
constexpr const char* kEvictMaxHyperNodes = "hypernode.gradient.evict.max-hypernodes";
constexpr int64_t kDefaultEvictMaxHyperNodes = 8;  // Volcano's DefaultEvictMaxHyperNodes

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

int64_t evict_max_hypernodes(const Session& ssn) {
  for (const auto& tier : ssn.policy().tiers)
    for (const ConfiguredPlugin& p : tier)
      if (p.name == kNetworkTopologyAware && p.args) {
        const int64_t v = p.args->get_int(kEvictMaxHyperNodes, kDefaultEvictMaxHyperNodes);
        return v > 0 ? v : kDefaultEvictMaxHyperNodes;  // Volcano's getMaxHyperNodesForEviction
      }
  return kDefaultEvictMaxHyperNodes;
}

EvictionDomains::EvictionDomains(const Session& ssn, int64_t max_hypernodes)
    : ssn_(ssn), hns_(ssn.hypernodes()), max_hypernodes_(max_hypernodes) {
  // Volcano's addClusterTopHyperNode: a tier above every real one, at least 1.
  for (int32_t t : hns_.tiers())
    if (t >= top_tier_) top_tier_ = t + 1;
  for (HyperNodeInfo* h : hns_.all())
    if (h->parent == nullptr) roots_.push_back(h);
  std::sort(roots_.begin(), roots_.end(),
            [](const HyperNodeInfo* l, const HyperNodeInfo* r) { return l->name < r->name; });
}

Domain EvictionDomains::top() const {
  return Domain{kClusterTopHyperNode, nullptr, &ssn_.nodes(), top_tier_};
}

Domain EvictionDomains::of(HyperNodeInfo* h) const {
  if (h == nullptr) return top();
  return Domain{h->name, h, &h->nodes, h->tier};
}

std::vector<Domain> EvictionDomains::children(const Domain& d) const {
  std::vector<Domain> out;
  for (HyperNodeInfo* c : d.hypernode ? d.hypernode->children : roots_) out.push_back(of(c));
  return out;
}

std::optional<int32_t> EvictionDomains::highest_tier(const JobInfo* job) const {
  const NetworkTopology* topo = network_topology_of(job);
  if (topo == nullptr) return std::nullopt;
  // Volcano's adjustNetworkTopologySpec: a soft job becomes a hard one whose highest tier is
  // the cluster top's, so that it takes the hard path with no HyperNode ruled out.
  if (topo->mode == TopologyMode::Soft) return top_tier_;
  return topo->highest_tier_allowed;
}

bool EvictionDomains::hard(const JobInfo* job) const { return highest_tier(job).has_value(); }

std::vector<std::vector<Domain>> EvictionDomains::gradients(const Domain& available,
                                                            int32_t highest_tier,
                                                            HyperNodeInfo* allocated,
                                                            const ResVec& min_resource) const {
  // getSearchRoot: a job running in `allocated` may only grow within the highest HyperNode
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
    if (!found) return {};  // the job already runs above its tier
    HyperNodeInfo* lca = lca_with_top(available.hypernode, highest);
    if (lca == highest) {
      root = available;
    } else if (lca == available.hypernode) {
      root = of(highest);
    } else {
      return {};  // no intersection
    }
  }

  // isEligibleHyperNode (PurposeEvict): the tier is allowed, and the job already runs
  // somewhere or the HyperNode's allocatable holds min_resource.
  auto eligible = [&](const Domain& d) {
    if (d.tier > highest_tier) return false;
    if (allocated != nullptr) return true;
    ResVec allocatable(ssn_.resource_count());
    for (const NodeInfo* n : *d.nodes) allocatable.add(n->allocatable.data());
    return placement::fits(min_resource, allocatable);
  };

  // Breadth first from the root; eligible HyperNodes grouped by tier, tiers ascending.
  std::map<int32_t, std::vector<Domain>> by_tier;
  std::deque<Domain> todo{root};
  std::set<std::string_view> enqueued{root.name};
  while (!todo.empty()) {
    const Domain cur = todo.front();
    todo.pop_front();
    if (eligible(cur)) by_tier[cur.tier].push_back(cur);
    for (const Domain& c : children(cur))
      if (enqueued.insert(c.name).second) todo.push_back(c);
  }

  // reverseAndCapEvictionGradients: the highest tier first, at most max_hypernodes_ in all;
  // a row that does not fit whole keeps its last entries.
  std::vector<std::vector<Domain>> out;
  int64_t remaining = max_hypernodes_;
  for (auto it = by_tier.rbegin(); it != by_tier.rend() && remaining > 0; ++it) {
    const std::vector<Domain>& row = it->second;
    if (static_cast<int64_t>(row.size()) <= remaining) {
      out.push_back(row);
      remaining -= static_cast<int64_t>(row.size());
    } else {
      out.emplace_back(row.end() - remaining, row.end());
      remaining = 0;
    }
  }
  return out;
}

std::vector<Domain> EvictionDomains::candidates(const JobInfo* job, int64_t max_domains) const {
  // HyperNodeGradientForJobFn(job, cluster top, PurposeEvict): the search for a job with a
  // topology, the whole cluster for the others.
  std::vector<std::vector<Domain>> rows;
  const std::optional<int32_t> tier = highest_tier(job);
  if (tier) {
    ResVec min_resource(ssn_.resource_count());
    if (job->has_min_resources) min_resource = job->min_resources;
    rows = gradients(top(), *tier, hns_.allocated(job), min_resource);
  } else {
    rows = {{top()}};
  }
  // PickDomainsFromGradients: in order, each name once, at most max_domains; the whole
  // cluster when nothing is left and the job is not hard.
  std::vector<Domain> out;
  std::set<std::string_view> seen;
  for (const auto& row : rows)
    for (const Domain& d : row) {
      if (!seen.insert(d.name).second) continue;
      out.push_back(d);
      if (max_domains > 0 && static_cast<int64_t>(out.size()) >= max_domains) return out;
    }
  if (out.empty() && !tier) out.push_back(top());
  return out;
}

std::vector<std::vector<Domain>> EvictionDomains::sub_job_gradients(
    const JobInfo* job, const Domain& within, const ResVec& pending_request) const {
  const std::optional<int32_t> tier = highest_tier(job);
  if (!tier) return {{within}};
  return gradients(within, *tier, hns_.allocated(job), pending_request);
}

}  // namespace caldera::gang
