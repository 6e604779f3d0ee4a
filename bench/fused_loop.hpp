// The framework-tax baseline: the default config's filter and score arithmetic written
// as one hand-fused loop over flat arrays, with no plugins, tiers, statements, queues or
// gangs. Each pending pod in turn goes to its best node (greedy), and the node's idle and
// requested amounts are updated at once.
//
// What it computes per (pod, node), as the default config's plugins do:
//   filter  pod count < max pods; unschedulable node refused (unless the pod tolerates
//           node.kubernetes.io/unschedulable); nodeSelector labels all equal; every
//           NoSchedule / NoExecute taint tolerated; init request <= idle within Volcano's
//           0.1 tolerance (cpu and memory always, the GPU when requested)
//           (plugins/builtin/predicates, actions/placement.cpp)
//   score   nodeorder: leastrequested (cpu 50, memory 50, non-zero request defaults) +
//           balancedresource (cpu, memory, and the GPU when requested) + 3 x the
//           normalised, reversed count of untolerated PreferNoSchedule taints
//           (plugins/builtin/nodeorder); binpack with weight 1, cpu 1, memory 1
//           (plugins/builtin/binpack). Highest total wins, ties to the first node by name.
// Nodes are visited as the scheduler's predicate search visits them (the same arithmetic
// means the same number of (pod, node) pairs): from where the last pod's search stopped,
// until NodeSearchConfig::nodes_to_find feasible nodes are found or every node was seen.
// Labels, taint keys and values are interned to integers first: that is what a fused loop
// would do, and that work is timed as the loop's own snapshot.
#pragma once

#include <cstddef>

#include "host/cache/cache.hpp"
#include "host/config/config.hpp"

namespace caldera::bench {

struct FusedResult {
  double snapshot_seconds = 0;  // flattening the cache into the loop's arrays
  double loop_seconds = 0;
  double seconds = 0;           // both
  size_t pods = 0;              // pending pods tried
  size_t bound = 0;             // pods that found a node
};

FusedResult run_fused(const Cache& cache, const NodeSearchConfig& search);

}  // namespace caldera::bench
