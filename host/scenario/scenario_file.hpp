// Scenario files (SCENARIOS.md section 2): one cluster state, the config to run on it, and
// what must come of it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/toml/reader.hpp"

namespace caldera {

struct ScenarioExpect {
  std::optional<std::map<std::string, std::string>> binds;  // task uid -> node
  std::optional<size_t> bind_count;
  std::optional<std::vector<std::string>> evictions;
  std::optional<size_t> evict_count;
  std::optional<std::vector<std::string>> pipelined;
  std::optional<std::map<std::string, std::string>> podgroup_phases;
  // Task uid -> a text its pending reason contains (compared without regard to case).
  std::optional<std::map<std::string, std::string>> pending;
};

struct Scenario {
  std::filesystem::path file;
  std::string name;
  int sessions = 1;
  SchedulerConfig config;
  Cache cache;  // nodes, queues, priority classes, podgroups, pods
  ScenarioExpect expect;
};

// Reads and checks a scenario file. Unknown keys, bad quantities, negative requests, a pod
// naming a missing PodGroup, a PodGroup naming a missing queue, duplicate names, a running
// pod on a missing node: InputError naming file, line and object.
// `default_plugin_dirs` is used when the config names no plugin_dirs.
Scenario load_scenario(const std::filesystem::path& file,
                       const std::vector<std::filesystem::path>& default_plugin_dirs);

// Reads the cluster part of a TOML table (priority_classes, queues, nodes, podgroups,
// pods) into `cache`, with the checks above. Shared with the embedded cluster's files.
void load_cluster_objects(const toml::table& tbl, const std::filesystem::path& file,
                          Cache& cache);

// A pod's tolerations ({ key, operator, value, effect } tables) with Kubernetes' validation
// (ValidateTolerations): an empty key needs Exists, Exists takes no value, the effect is
// one of the taint effects or empty (every effect). Shared with the embedded cluster's
// workload files.
std::vector<Toleration> read_tolerations(const input::Value& v);

}  // namespace caldera
