// What a session runs with: a Policy is a config whose every plugin is resolved to a plugin
// file and whose arguments are validated. It is immutable once built, shared by the
// sessions that use it, and freed when the last one lets go.
//
// The session layer only needs each plugin's code, name, points and arguments; how a file
// was found and inspected (host/plugins/plugin_library.hpp, a layer above) stays out of sight
// behind PluginCode. The code is loaded into a process only when a session there first opens
// the plugin: in a session worker, never in the supervisor (docs/ISOLATION.md). Policies are
// built by host/plugins/policy.hpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caldera/plugin.h"
#include "host/config/args.hpp"
#include "host/config/config.hpp"
#include "host/config/points.hpp"

namespace caldera {

// A plugin's code as a session reaches it.
class PluginCode {
 public:
  virtual ~PluginCode() = default;
  // The plugin's descriptor, its code loaded into this process on the first call (later
  // calls, from any thread, return the same). The pointer stays valid while this object
  // lives. Throws std::runtime_error naming the plugin when the code cannot be loaded here.
  virtual const cal_plugin* descriptor() const = 0;
  // Code already in memory: a descriptor the caller keeps alive (tests, built-ins).
  static std::shared_ptr<const PluginCode> resident(const cal_plugin* d);
};

// One plugin as a tier of the policy uses it.
struct ConfiguredPlugin {
  std::shared_ptr<const PluginCode> code;  // loaded where the session opens it
  std::string name;
  // Which file's bytes this is ("<path>\n<sha256>"): plugin states saved through the ABI
  // go back only to the same bytes of the same file.
  std::string file_id;
  PointSet implemented = PointSet::none();  // points with at least one non-NULL slot
  PointSet points = PointSet::all();        // enabled in the config AND implemented
  bool hierarchy = false;
  std::shared_ptr<const Args> args;  // validated against the plugin's option table
};

struct Policy {
  SchedulerConfig config;
  std::vector<std::vector<ConfiguredPlugin>> tiers;
  // Validated [actions.NAME] arguments, for every action named in config.actions (an
  // action without a table gets its defaults).
  std::map<std::string, std::shared_ptr<const Args>> action_args;
  std::string config_hash;  // sha256 of the config text, for status output
};

}  // namespace caldera
