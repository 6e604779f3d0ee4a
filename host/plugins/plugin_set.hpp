// Loaded plugins and the policy built from a config: what a session runs with.
//
// A PluginLibrary is one loaded .so (from a private copy of the file, so that a file
// replaced on disk can be loaded again as a new library). A Policy is a config whose every
// plugin is resolved to a library and whose arguments are validated; it is immutable once
// built, shared by the sessions that use it, and freed when the last one lets go.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caldera/plugin.h"
#include "host/config/config.hpp"
#include "host/plugins/args.hpp"

namespace caldera {

class PluginLibrary;  // defined in plugin_library.hpp

// Identity of a file on disk, to notice replacement.
struct FileStamp {
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

struct PluginInfo {
  std::string name;
  std::string version;
  std::string description;
  uint32_t abi_version = 0;
  std::filesystem::path file;  // the file in the plugin dir (not the private copy)
  FileStamp stamp;
  std::string sha256;          // of the file's bytes, for status output
  PointSet implemented = PointSet::none();  // points with at least one non-NULL slot
  std::vector<cal_option> options;          // the plugin's table (strings in the .so)
};

// One plugin as a tier of the policy uses it.
struct ConfiguredPlugin {
  std::shared_ptr<const PluginLibrary> library;
  const cal_plugin* desc = nullptr;  // points into library
  std::string name;
  PointSet points = PointSet::all();  // enabled in the config AND implemented
  bool hierarchy = false;
  std::shared_ptr<const Args> args;   // validated against desc's option table
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
