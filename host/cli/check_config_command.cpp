// `caldera check-config FILE`: everything the scheduler would check before using a config
// (syntax, keys, names, plugins found and loadable, arguments against option tables),
// without running it. Volcano has no counterpart: it finds a bad config only at start
// (pkg/scheduler/util.go: unmarshalSchedulerConf) and ignores much of what is wrong.
// `caldera convert-config FILE`: Volcano's YAML config written as Caldera's TOML.
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "host/cli/commands.hpp"
#include "host/cli/plugin_dirs.hpp"
#include "host/config/volcano_yaml.hpp"
#include "host/toml/reader.hpp"
#include "host/plugins/policy.hpp"
#include "host/util/sha256.hpp"

namespace caldera::cli {

int check_config(const Common& c, const std::filesystem::path& config) {
  try {
    SchedulerConfig cfg = config_for_plugins(c, config);
    PluginCatalog catalog = PluginCatalog::scan(cfg.plugin_dirs);
    std::ifstream in(config, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::shared_ptr<const Policy> policy = build_policy(cfg, catalog, sha256_hex(text.str()));
    size_t plugins = 0;
    for (const auto& t : policy->tiers) plugins += t.size();
    fmt::print("{}: ok ({} action{}, {} plugin{} in {} tier{})\n", config.string(),
               cfg.actions.size(), cfg.actions.size() == 1 ? "" : "s", plugins,
               plugins == 1 ? "" : "s", policy->tiers.size(), policy->tiers.size() == 1 ? "" : "s");
    std::fflush(stdout);
    return 0;
  } catch (const InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
}

int convert_config(const std::filesystem::path& config) {
  try {
    const std::string text = input::read_text(config, "config", input::kMaxConfigBytes);
    if (!looks_like_volcano_yaml(text))
      throw InputError(config.string() +
                       ": not Volcano's YAML config (its first line that is not blank or a "
                       "comment is not 'key:'); expected a volcano-scheduler.conf");
    fmt::print("# {} (Volcano's YAML) as Caldera's TOML: caldera convert-config\n{}",
               config.filename().string(), volcano_yaml_to_toml(text, config));
    return 0;
  } catch (const InputError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
}

}  // namespace caldera::cli
