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
// The search itself is actions/hypernode_gradients.hpp (shared with allocate): without the
// network-topology-aware plugin every job has the whole cluster as its one domain, as in
// Volcano. A job with a subGroupPolicy is searched as one sub-job here (Volcano searches
// per sub-job); README, "Choices".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actions/hypernode_gradients.hpp"
#include "host/session/session.hpp"

namespace caldera::gang {

class EvictionDomains {
 public:
  // `max_hypernodes`: the network-topology-aware plugin's hypernode.gradient.evict.max-
  // hypernodes (read by evict_max_hypernodes below).
  EvictionDomains(const Session& ssn, int64_t max_hypernodes);

  Domain top() const { return search_.top(); }
  Domain of(HyperNodeInfo* h) const { return search_.of(h); }

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
  // hyperNodeGradientFn (PurposeEvict) + reverseAndCapEvictionGradients.
  std::vector<std::vector<Domain>> gradients(const Domain& available, int32_t highest_tier,
                                             HyperNodeInfo* allocated,
                                             const ResVec& min_resource) const;
  const Session& ssn_;
  HyperNodeGradients search_;
  int64_t max_hypernodes_;
};

// The network-topology-aware plugin's hypernode.gradient.evict.max-hypernodes as the policy
// gives it (Volcano's default 8 when the plugin is not configured or the value is not
// positive).
int64_t evict_max_hypernodes(const Session& ssn);

}  // namespace caldera::gang
