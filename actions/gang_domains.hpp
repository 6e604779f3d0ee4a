// Where the gang-aware evicting actions look for room: the eviction domains of a job, and
// inside a domain the HyperNodes a job's pending tasks may be placed in.
//
// Follows Volcano ed72c7c:
//   pkg/scheduler/actions/utils/util.go          GetCandidateDomains, PickDomainsFromGradients
//   pkg/scheduler/framework/session.go           addClusterTopHyperNode, adjustNetworkTopologySpec
//   pkg/scheduler/plugins/network-topology-aware HyperNodeGradientForJobFn / ForSubJobFn with
//     PurposeEvict: hyperNodeGradientFn, isEligibleHyperNode, getSearchRoot,
//     reverseAndCapEvictionGradients
//
// A domain is a HyperNode, or the whole cluster: Volcano's virtual "<cluster-top-hypernode>",
// the parent of every HyperNode without one, of a tier above every real one (1 when there
// are none), holding every node of the session.
//
// A job's domains: a job without a network topology has one, the whole cluster. A job with
// one is searched as Volcano's session sees it: a hard job up to its highest tier allowed, a
// soft job as a hard one whose highest tier is the cluster's (so the whole cluster is among
// its domains). The search starts at the whole cluster, or, for a job already running
// somewhere (its allocated HyperNode), at the highest HyperNode above that one within the
// tier allowed; it takes every HyperNode under the start, breadth first, whose tier is
// allowed and whose nodes' allocatable holds the job's minResources (any, for a job already
// running); it lists them by tier, the highest tier first (the widest domains are likeliest
// to hold the job), at most `hypernode.gradient.evict.max-hypernodes` of them (the
// network-topology-aware plugin's argument, default 8), keeping the last of a tier's list
// when it must cut one; then at most the action's maxDomains (default 8) of those. A job
// with a topology whose search finds nothing has no domain this session.
// Inside a domain, a hard (or soft) job's pending tasks are tried in the same way from the
// domain down, with the pending tasks' summed request in place of minResources.
//
// Where Caldera differs, each a choice where Volcano is random or a consequence of
// Caldera's model (README, "Choices"):
//   - Children are visited by name (Volcano walks a set: HyperNodes of one tier come in
//     random order).
//   - The search is the host's, as allocate's HyperNode path is (actions/hypernode_allocate.hpp):
//     it applies whether or not the network-topology-aware plugin is configured (Volcano
//     searches only through that plugin, and without it gives every job the whole cluster).
//   - A job's allocated HyperNode is derived from where its tasks run (host/session/
//     hypernodes.hpp); Volcano reads it from the PodGroup's annotation.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/session/session.hpp"

namespace caldera::gang {

// Volcano's framework.ClusterTopHyperNode.
inline constexpr std::string_view kClusterTopHyperNode = "<cluster-top-hypernode>";

struct Domain {
  std::string_view name;                       // a HyperNode's name, or kClusterTopHyperNode
  HyperNodeInfo* hypernode = nullptr;          // null: the whole cluster
  const std::vector<NodeInfo*>* nodes = nullptr;  // Volcano's RealNodesList[name], by name
  int32_t tier = 0;
};

class EvictionDomains {
 public:
  // `max_hypernodes`: the network-topology-aware plugin's hypernode.gradient.evict.max-
  // hypernodes (read by evict_max_hypernodes below).
  EvictionDomains(const Session& ssn, int64_t max_hypernodes);

  Domain top() const;
  Domain of(HyperNodeInfo* h) const;

  // Volcano's job.ContainsHardTopology() once the session made soft jobs hard.
  bool hard(const JobInfo* job) const;

  // Volcano's GetCandidateDomains(ssn, job, maxDomains).
  std::vector<Domain> candidates(const JobInfo* job, int64_t max_domains) const;

  // Volcano's HyperNodeGradientForSubJobFn(subJob, domain, PurposeEvict) for a hard job
  // (its one sub-job, its pending tasks' InitResreq summed in `pending_request`): rows of
  // HyperNodes, the highest tier first. Empty when the search has no start (the job runs
  // above its tier, or outside `within`).
  std::vector<std::vector<Domain>> sub_job_gradients(const JobInfo* job, const Domain& within,
                                                     const ResVec& pending_request) const;

 private:
  // The job's highest tier allowed (the cluster's tier for a soft job); nullopt when the
  // job has no network topology.
  std::optional<int32_t> highest_tier(const JobInfo* job) const;
  // hyperNodeGradientFn + reverseAndCapEvictionGradients.
  std::vector<std::vector<Domain>> gradients(const Domain& available, int32_t highest_tier,
                                             HyperNodeInfo* allocated,
                                             const ResVec& min_resource) const;
  std::vector<Domain> children(const Domain& d) const;
  const Session& ssn_;
  const HyperNodes& hns_;
  int64_t max_hypernodes_;
  int32_t top_tier_ = 1;
  std::vector<HyperNodeInfo*> roots_;  // HyperNodes without a parent, by name
};

// The network-topology-aware plugin's hypernode.gradient.evict.max-hypernodes as the policy
// gives it (Volcano's default 8 when the plugin is not configured or the value is not
// positive).
int64_t evict_max_hypernodes(const Session& ssn);

}  // namespace caldera::gang
