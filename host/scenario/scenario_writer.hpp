// The cache as a scenario file (SCENARIOS.md section 2): what `caldera run` writes on
// SIGUSR1 (volcano-scheduler's cache dump, in a form `caldera scenario run` and the
// volcano-oracle can run again), so that a running scheduler's decision can be replayed
// and explained offline.
//
// Written: priority classes, queues, nodes (allocatable, labels, annotations, taints,
// unschedulable, ready), PodGroups (with min_task_member, min_resources, network
// topology) and pods (requests, phase, node, priority, labels, annotations, selector,
// tolerations, preemption policy, creation, releasing). Not written, and said so in the
// file's header when the cache holds any: pods' affinity, topology spread, ports, images
// and volumes; storage objects; HyperNodes; nodes' NUMA layout and images; init-container
// requests.
#pragma once

#include <filesystem>
#include <string>

#include "host/cache/cache.hpp"

namespace caldera {

struct ScenarioDump {
  std::string name;                   // the scenario's name
  std::filesystem::path config_file;  // config_file = ... (written as given)
  std::string header;                 // comment lines on top (without '#')
};

// The scenario file's text.
std::string scenario_text(const Cache& cache, const ScenarioDump& d);

// Writes `dir`/snapshot-<unix seconds>.toml whole (a temporary file renamed) and returns
// its path; throws InputError naming the file when it cannot.
std::filesystem::path write_cache_dump(const Cache& cache, const std::filesystem::path& dir,
                                       const std::filesystem::path& config_file, double now);

}  // namespace caldera
