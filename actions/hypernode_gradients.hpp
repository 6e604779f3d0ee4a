// Where a job or sub-job with a network topology may be placed: the HyperNodes it may use,
// in gradients (rows of HyperNodes of one tier, the lowest tier first). The allocate action
// tries them row by row; the gang-aware evicting actions look for room in them, the widest
// first (actions/gang_domains.hpp).
//
// Follows Volcano ed72c7c:
//   pkg/scheduler/framework/session.go            addClusterTopHyperNode
//   pkg/scheduler/plugins/network-topology-aware  hyperNodeGradientFn, isEligibleHyperNode,
//                                                 getSearchRoot, getHighestAllowedHyperNode
//
// A domain is a HyperNode, or the whole cluster: Volcano's virtual "<cluster-top-hypernode>",
// the parent of every HyperNode without one, of a tier above every real one (1 when there
// are none), holding every node of the session.
//
// The search: from `available` (or, for one already placed somewhere, the highest HyperNode
// above its allocated one whose tier is allowed, when that lies inside `available`; no
// search when it does not or when the allocated one is above the tier), breadth first,
// every HyperNode whose tier is allowed and, for one placed nowhere yet, whose nodes hold
// `min_resource`: for allocation, in their idle or in their future idle summed at the
// session's start (Volcano's hyperNodeResourceCache, which the plugin builds at open); for
// eviction, in their allocatable.
//
// Volcano computes the gradients in the network-topology-aware plugin: without it, every
// job and sub-job has one gradient, the domain it is offered. So does Caldera (enabled() below); the search itself is the host's, so that
// it is the same for every action.
//
// Where Caldera differs (README, "Choices"): children are visited by name (Volcano walks a
// set, so HyperNodes of one tier come in random order); an allocated HyperNode is derived
// from where the tasks run (host/session/hypernodes.hpp, sub_jobs.hpp), and "the whole
// cluster" as an allocated HyperNode reads as none.
#pragma once

#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/session/session.hpp"

namespace caldera {

// Volcano's framework.ClusterTopHyperNode.
inline constexpr std::string_view kClusterTopHyperNode = "<cluster-top-hypernode>";

struct Domain {
  std::string_view name;                          // a HyperNode's name, or kClusterTopHyperNode
  HyperNodeInfo* hypernode = nullptr;             // null: the whole cluster
  const std::vector<NodeInfo*>* nodes = nullptr;  // Volcano's RealNodesList[name], by name
  int32_t tier = 0;
};

enum class SearchPurpose { Allocate, Evict };

class HyperNodeGradients {
 public:
  // `purpose`: what the searches are for; an allocating one takes each domain's idle and
  // future idle now, as the plugin does at open (an evicting one needs no sums).
  HyperNodeGradients(const Session& ssn, SearchPurpose purpose);

  // Whether the session computes gradients: the network-topology-aware plugin is in the
  // policy (Volcano's HyperNodeGradientFor*Fn are that plugin's; its
  // enabledHyperNodeGradient switch has no point: `false` is refused, docs/CONFIG.md).
  bool enabled() const { return enabled_; }

  Domain top() const;
  Domain of(HyperNodeInfo* h) const;  // top() for null
  int32_t top_tier() const { return top_tier_; }

  // hyperNodeGradientFn: the eligible domains under `available`, grouped by tier, the
  // lowest first; empty when there is no search root.
  std::vector<std::vector<Domain>> search(const Domain& available, int32_t highest_tier,
                                          HyperNodeInfo* allocated,
                                          const ResVec& min_resource) const;

 private:
  std::vector<Domain> children(const Domain& d) const;
  bool eligible(const Domain& d, int32_t highest_tier, HyperNodeInfo* allocated,
                const ResVec& min_resource) const;

  const Session& ssn_;
  const HyperNodes& hns_;
  SearchPurpose purpose_;
  bool enabled_ = false;
  int32_t top_tier_ = 1;
  std::vector<HyperNodeInfo*> roots_;  // HyperNodes without a parent, by name
  // Idle and future idle of each domain's nodes at construction (null key: the whole
  // cluster), for the allocation pre-filter; made only for an allocating search.
  struct Free {
    ResVec idle;
    ResVec future_idle;
  };
  std::unordered_map<const HyperNodeInfo*, Free> free_;
};

// Volcano's GetLCAHyperNode with the whole cluster as null: the lowest HyperNode holding
// both; the other one when either is null; null when none holds both.
HyperNodeInfo* lca_or_either(HyperNodeInfo* a, HyperNodeInfo* b);

}  // namespace caldera
