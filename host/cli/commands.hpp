// The subcommands of the `caldera` program. main.cpp parses the command line with CLI11 and
// calls one of these; each returns the process exit code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "host/config/config.hpp"

namespace caldera::cli {

struct Common {
  int verbosity = 0;  // -v N, like Volcano's --v
  std::vector<std::filesystem::path> plugin_dirs;  // --plugin-dir, overrides the defaults
};

// Default plugin dirs when neither the config nor --plugin-dir names any: the build tree's
// plugins folder next to the program, else the installed one.
std::vector<std::filesystem::path> default_plugin_dirs();
// The bundled default config (conf/caldera.toml in the tree, or the installed one).
std::filesystem::path default_config_path();

// volcano-scheduler's flags that set what Caldera's config also sets; given, they win over
// the config (every load and reload). Unset: nullopt / empty.
struct VolcanoFlags {
  std::optional<double> schedule_period;                    // --schedule-period, seconds
  std::optional<int32_t> percentage_nodes_to_find;          // --percentage-nodes-to-find
  std::optional<int32_t> minimum_feasible_nodes;            // --minimum-feasible-nodes
  std::optional<int32_t> minimum_percentage_nodes_to_find;  // --minimum-percentage-nodes-to-find
  std::vector<std::filesystem::path> plugins_dirs;          // --plugins-dir: added to the config's
  std::vector<std::string> ignored_provisioners;            // --ignored-provisioners: added too
  // The config as the flags leave it.
  void apply(SchedulerConfig& cfg) const;
};

struct RunOptions {
  std::filesystem::path config;    // default: default_config_path()
  VolcanoFlags volcano;            // volcano-scheduler's flags (win over the config)
  std::filesystem::path cluster;   // the embedded cluster's file; default: conf/demo-cluster.toml
  std::filesystem::path workload;  // jobs arriving over time; default: conf/demo-workload.toml
  bool realtime = false;           // one session per period of wall time
  double until = 0;                // stop at this virtual time (0: when the workload is done)
  std::filesystem::path results;   // folder for results (JSON, CSV, HTML); empty: none
  size_t results_every = 0;        // also rewrite them every N sessions (0: only at the end)
  std::filesystem::path status_file;  // JSON status, rewritten after every session and
                                      // reload attempt (host/reload/status.hpp); empty: none

  // --backend kubernetes (run_kubernetes.cpp): a real cluster instead of the embedded one.
  std::string backend = "sim";                 // sim | kubernetes
  std::string kubeconfig;                      // default: $KUBECONFIG, in-cluster, ~/.kube/config
  std::string context;                         // kubeconfig context; default: the current one
  std::vector<std::string> scheduler_names;    // pods' spec.schedulerName; default: volcano
  std::string evict_mode = "eviction";         // eviction (policy/v1, honours PDBs) | delete
  bool leader_elect = false;
  std::string lease_name = "caldera-scheduler";
  std::string lease_namespace = "kube-system";
  double lease_duration = 15, renew_deadline = 10, retry_period = 2;  // seconds
  std::string identity;                        // this replica (default: hostname_pid)
  int list_page_size = 0;  // objects per list page from etcd; 0: lists from the watch cache
  // Requests per second to the API server and the burst above it (volcano-scheduler's
  // --kube-api-qps / --kube-api-burst and defaults; qps < 0: no limit).
  double kube_api_qps = 2000;
  int kube_api_burst = 2000;

  // volcano-scheduler's HTTP endpoints, flags and defaults (host/cli/endpoints.hpp):
  // /metrics on listen_address, /healthz and /readyz on healthz_address, each off unless
  // enabled, as in Volcano.
  // volcano-scheduler's cache dumper (host/cli/dump_signals.hpp): SIGUSR1 writes the cache
  // as a scenario file into cache_dump_dir, SIGUSR2 logs it.
  bool cache_dumper = true;
  std::filesystem::path cache_dump_dir = "/tmp";
  // Volcano's --node-selector: "key:value" entries; only nodes with one of those labels.
  std::vector<std::string> node_selector;
  bool enable_metrics = false;
  std::string listen_address = ":8080";
  bool enable_healthz = false;
  std::string healthz_address = ":11251";
};
int run(const Common& c, const RunOptions& o);
// `caldera run --backend kubernetes`: schedules the pods of a Kubernetes cluster.
int run_kubernetes(const Common& c, const RunOptions& o);
int plugins_list(const Common& c, const std::filesystem::path& config);
int plugins_describe(const Common& c, const std::filesystem::path& config, const std::string& name);
int check_config(const Common& c, const std::filesystem::path& config);
// `caldera new-plugin NAME`: a plugin folder (C or C++) that builds against the installed
// SDK, with a scenario that checks it (new_plugin_command.cpp).
int new_plugin(const std::string& name, const std::string& lang,
               const std::filesystem::path& dir);
// `caldera convert-config FILE`: Volcano's YAML config as Caldera's TOML, on stdout.
int convert_config(const std::filesystem::path& config);
// `caldera status PATH`: prints a running scheduler's status file readably.
int status(const std::filesystem::path& status_file);

// `caldera explain NAMESPACE/POD`: what a running scheduler's last session decided about
// the pod and why (its /debug/explain at `address`, the run's --listen-address).
int explain(const std::string& pod, const std::string& address);
int scenario_run(const Common& c, const std::vector<std::filesystem::path>& files, bool json,
                 bool explain);

// `caldera replay openb` (replay_command.cpp): the FGD paper's openb trace replay.
struct ReplayOptions {
  std::filesystem::path pods;        // an openb_pod_list_*.csv
  std::filesystem::path nodes;       // default: openb_node_list_gpu_node.csv beside pods
  std::filesystem::path config;      // default: openb/fragmentation.toml beside the default config
  std::filesystem::path placements;  // CSV of every decision (SCENARIOS.md section 3)
  std::filesystem::path plot;        // .svg or .html
  uint64_t seed = 42;
  double tune = 1.3;
  bool json = false;
  bool skip_bad_rows = false;
  bool keep_pods = false;  // every placed pod its own cache record (the slow, plain path)
  bool all_nodes = false;  // every node in every session (no prefilter)
};
int replay_openb(const Common& c, const ReplayOptions& o);

}  // namespace caldera::cli
