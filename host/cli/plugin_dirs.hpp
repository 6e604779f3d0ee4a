// Which plugin folders a command uses, shared by `caldera plugins` and `caldera
// check-config`: --plugin-dir when given, else the config's plugin_dirs, else the defaults.
#pragma once

#include <filesystem>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "host/cli/commands.hpp"
#include "host/config/config.hpp"

namespace caldera::cli {

// Loads `config` (when not empty) and settles its plugin_dirs by the rule above. A config
// folder that does not exist is reported at the line that names it. Throws InputError.
inline SchedulerConfig config_for_plugins(const Common& c, const std::filesystem::path& config) {
  SchedulerConfig cfg;
  if (!config.empty()) cfg = load_config(config, default_plugin_dirs());
  if (!c.plugin_dirs.empty()) {
    cfg.plugin_dirs.clear();
    for (const auto& d : c.plugin_dirs) cfg.plugin_dirs.push_back(std::filesystem::absolute(d));
    return cfg;
  }
  if (config.empty()) cfg.plugin_dirs = default_plugin_dirs();
  for (const auto& d : cfg.plugin_dirs) {
    std::error_code ec;
    if (cfg.plugin_dirs_src.line > 0 && !std::filesystem::is_directory(d, ec))
      throw InputError(fmt::format("{}: scheduler.plugin_dirs: plugin folder {} does not exist",
                                   cfg.plugin_dirs_src.str(), d.string()));
  }
  return cfg;
}

}  // namespace caldera::cli
