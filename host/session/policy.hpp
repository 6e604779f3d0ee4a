// What a session runs with: a Policy is a config whose every plugin is resolved to a loaded
// descriptor and whose arguments are validated. It is immutable once built, shared by the
// sessions that use it, and freed when the last one lets go.
//
// The session layer only needs each plugin's descriptor, name, points and arguments; how a
// descriptor was found and loaded (host/plugins/plugin_library.hpp, a layer above) stays
// out of sight behind `keepalive`, which owns the loaded library so that its code outlives
// every session using it. Policies are built by host/plugins/policy.hpp.
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

// One plugin as a tier of the policy uses it.
struct ConfiguredPlugin {
  std::shared_ptr<const void> keepalive;  // the loaded library (keeps desc's code mapped)
  const cal_plugin* desc = nullptr;       // points into that library
  std::string name;
  // Which file's bytes this is ("<path>\n<sha256>"): plugin states saved through the ABI
  // go back only to the same bytes of the same file.
  std::string file_id;
  PointSet implemented = PointSet::none();  // points with at least one non-NULL slot
  PointSet points = PointSet::all();        // enabled in the config AND implemented
  bool hierarchy = false;
  std::shared_ptr<const Args> args;  // validated against desc's option table
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
