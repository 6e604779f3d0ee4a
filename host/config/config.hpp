// The scheduler config (SCENARIOS.md section 1): actions in order, plugin dirs, tiers of
// plugins with enable / disable point lists and arguments, action arguments.
//
// Parsing checks the syntax and shape of the file (keys, types, point names), reading it
// through host/toml/ (whose reader.hpp documents the error format); action names are
// checked against the actions, and arguments against each plugin's option table, by
// build_policy() (host/plugins/policy.hpp) once the plugins are loaded, so this layer
// knows nothing of the actions or the plugins.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "host/config/points.hpp"
#include "host/model/objects.hpp"
#include "host/util/duration.hpp"  // parse_duration, for the readers of durations
#include "host/util/input_error.hpp"

namespace toml {
inline namespace v3 {
class table;
}
}  // namespace toml

namespace caldera {

// One argument value as written in TOML.
struct ArgValue {
  std::variant<bool, int64_t, double, std::string> value;
  SourceRef src;
};
using ArgMap = std::map<std::string, ArgValue>;

struct PluginConfig {
  std::string name;
  // Which extension points the plugin takes part in: all it implements, unless enable
  // (only these) or disable (all but these) says otherwise.
  PointSet points = PointSet::all();
  // The points named in `enable` (none when there is no enable list): an enabled point the
  // plugin does not implement is worth a warning, an implicitly enabled one is not.
  PointSet enabled_explicitly = PointSet::none();
  bool hierarchy = false;  // Volcano's enableHierarchy
  ArgMap arguments;
  SourceRef src;
};

struct TierConfig {
  std::vector<PluginConfig> plugins;
};

// How many nodes a task's predicate search looks for before it stops (Volcano's
// --percentage-nodes-to-find, --minimum-feasible-nodes, --minimum-percentage-nodes-to-find
// and util.CalculateNumOfFeasibleNodesToFind): every node when the cluster has at most
// minimum_nodes nodes or percentage is 100; else percentage% of the nodes, where
// percentage 0 means adaptive (50% minus 1% per 125 nodes, at least minimum_percentage),
// and never fewer than minimum_nodes.
struct NodeSearchConfig {
  int32_t percentage = 0;
  int32_t minimum_nodes = 100;
  int32_t minimum_percentage = 5;

  size_t nodes_to_find(size_t all_nodes) const;
};

struct SchedulerConfig {
  std::filesystem::path file;  // where it was read from ("" for an inline config)
  double period_seconds = 1.0;
  std::vector<std::string> actions{"enqueue", "allocate", "backfill"};
  std::vector<std::filesystem::path> plugin_dirs;  // absolute, in search order
  SourceRef plugin_dirs_src;  // where plugin_dirs was written; file only when defaulted
  std::vector<TierConfig> tiers;
  std::map<std::string, ArgMap> action_arguments;  // [actions.NAME]
  SourceRef actions_src;                 // where scheduler.actions was written
  std::vector<SourceRef> action_srcs;    // each name of it, as actions (empty when defaulted)
  std::map<std::string, SourceRef> action_arguments_src;  // each [actions.NAME] table
  // Where the config sits in its file, the prefix of its object paths in errors: "" for a
  // config file, "config" for a scenario's [config].
  std::string object_path;

  // Reload (host/reload/, docs/RELOAD.md). unload_retired_plugins: dlclose a plugin library
  // once no policy and no session uses it (true), or keep its code mapped until exit
  // (false, for plugins that cannot be unloaded safely, e.g. ones with thread_local
  // destructors or atexit handlers). canary_timeout: how long the trial session of a new
  // policy may take before it counts as hung. reload_settle: quiet time after the last
  // file event before a reload is attempted (a file being written is not read half-way).
  bool unload_retired_plugins = true;
  double canary_timeout_seconds = 5.0;
  double reload_settle_seconds = 0.3;

  // Supervised sessions (docs/ISOLATION.md). Each session runs in a worker process
  // (isolation "process"; "in-process" for profilers and debuggers). session_timeout: the
  // watchdog (0: derived, the larger of 60 s and 10 periods); session_memory_limit: the
  // address space a session may add, in bytes (0: no limit); on_plugin_fault: what runs
  // after a plugin faulted when no good set is left ("fallback": nothing; "disable": the
  // configured set without the plugin).
  double session_timeout_seconds = 0;
  double session_memory_limit_bytes = 0;
  std::string on_plugin_fault = "fallback";
  std::string isolation = "process";
  double session_timeout() const {
    return session_timeout_seconds > 0 ? session_timeout_seconds
                                       : std::max(60.0, 10.0 * period_seconds);
  }

  NodeSearchConfig node_search;
  // Threads for node-level work (predicates and scores of plugins that declare
  // CAL_CAP_NODE_PARALLEL), the scheduling thread included; 0: one per core. Decisions do
  // not depend on it.
  int32_t threads = 0;

  // Volcano's count of CSI volumes (its cache's addPodCSIVolumesToTask; Volcano issue
  // 3271): each claim a pod uses whose CSI driver (its PV's, else its StorageClass's
  // csi-driver-name parameter or provisioner) is not an ignored provisioner adds one
  // `attachable-volumes-csi-<driver>` to the pod's request (in milli-units: 1), which no
  // node offers unless its CSINode or allocatable says so. true: as Volcano, so a pod whose
  // WaitForFirstConsumer claim has a class with no dynamic provisioner can never be
  // placed; false: as kube-scheduler, claims ask for no resource.
  bool count_csi_volumes = true;
  // Provisioners whose claims are not counted, besides Volcano's built-in two
  // (rancher.io/local-path, hostpath.csi.k8s.io): vc-scheduler's --ignored-provisioners.
  std::vector<std::string> ignored_provisioners;

  // Every plugin named in the tiers, in order of first mention.
  std::vector<std::string> plugin_names() const;
};

// Parses a config file. Relative plugin_dirs are resolved against the file's folder; when
// the file names none, default_plugin_dirs are used. Throws InputError.
SchedulerConfig load_config(const std::filesystem::path& file,
                            const std::vector<std::filesystem::path>& default_plugin_dirs);

// Parses a config from its text, as if read from `file` (which names it in errors and
// resolves relative plugin dirs; it is not read). The reloader hashes and parses the same
// bytes, so the hash in the status always belongs to the config that runs. Throws
// InputError.
SchedulerConfig load_config_text(const std::string& text, const std::filesystem::path& file,
                                 const std::vector<std::filesystem::path>& default_plugin_dirs);

// Parses a config held in a TOML table (a scenario's [config]); `file` names the
// enclosing file for errors and resolves relative plugin dirs, `object_path` is where the
// table sits in it ("config"), the prefix of the object paths errors name. Throws
// InputError.
SchedulerConfig parse_config(const toml::table& tbl, const std::filesystem::path& file,
                             const std::vector<std::filesystem::path>& default_plugin_dirs,
                             const std::string& object_path = "");

}  // namespace caldera
