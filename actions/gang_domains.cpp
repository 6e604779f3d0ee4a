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
    : ssn_(ssn), search_(ssn, SearchPurpose::Evict), max_hypernodes_(max_hypernodes) {}

std::optional<int32_t> EvictionDomains::highest_tier(const JobInfo* job) const {
  // The job's topology as the session adjusted it (host/session/sub_jobs.hpp: a soft one is
  // hard with the cluster top's tier, so that no HyperNode is ruled out).
  const std::optional<NetworkTopology>& topo = ssn_.sub_jobs(job).job_topology;
  if (!topo) return std::nullopt;
  return topo->highest_tier_allowed;
}

bool EvictionDomains::hard(const JobInfo* job) const { return highest_tier(job).has_value(); }

std::vector<std::vector<Domain>> EvictionDomains::gradients(const Domain& available,
                                                            int32_t highest_tier,
                                                            HyperNodeInfo* allocated,
                                                            const ResVec& min_resource) const {
  if (!search_.enabled()) return {{available}};  // no network-topology-aware plugin
  const std::vector<std::vector<Domain>> by_tier =
      search_.search(available, highest_tier, allocated, min_resource);
  // reverseAndCapEvictionGradients: the highest tier first, at most max_hypernodes_ in all;
  // a row that does not fit whole keeps its last entries.
  std::vector<std::vector<Domain>> out;
  int64_t remaining = max_hypernodes_;
  for (auto it = by_tier.rbegin(); it != by_tier.rend() && remaining > 0; ++it) {
    const std::vector<Domain>& row = *it;
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
    rows = gradients(top(), *tier, ssn_.hypernodes().allocated(job), min_resource);
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
  return gradients(within, *tier, ssn_.hypernodes().allocated(job), pending_request);
}

}  // namespace caldera::gang
