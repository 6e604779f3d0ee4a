// The subcommands of the `caldera` program. main.cpp parses the command line with CLI11 and
// calls one of these; each returns the process exit code.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

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

struct RunOptions {
  std::filesystem::path config;    // default: default_config_path()
  std::filesystem::path cluster;   // the embedded cluster's file; default: conf/demo-cluster.toml
  std::filesystem::path workload;  // jobs arriving over time; default: conf/demo-workload.toml
  bool realtime = false;           // one session per period of wall time
  double until = 0;                // stop at this virtual time (0: when the workload is done)
  std::filesystem::path results;   // folder for results (JSON, CSV, HTML); empty: none
};
int run(const Common& c, const RunOptions& o);
int plugins_list(const Common& c, const std::filesystem::path& config);
int plugins_describe(const Common& c, const std::filesystem::path& config, const std::string& name);
int check_config(const Common& c, const std::filesystem::path& config);
int scenario_run(const Common& c, const std::vector<std::filesystem::path>& files, bool json,
                 bool explain);

}  // namespace caldera::cli
