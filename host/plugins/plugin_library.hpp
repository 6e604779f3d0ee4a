// One loaded plugin shared object, and discovery of the plugins in a set of folders.
//
// Each .so is loaded from a private copy (a unique path in a private temp folder): dlopen
// hands back the already loaded library for a path or inode it has seen, so loading the
// file itself would never pick up a replaced build. The copy is made only once the file
// has stopped changing (see settle in PluginCatalog::scan).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "caldera/plugin.h"
#include "host/config/points.hpp"

namespace caldera {

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

class PluginLibrary {
 public:
  // Loads `file` (from a private copy), calls its entry with the host table, and checks the
  // descriptor: ABI major equal, minor not newer than the host's, struct size, name
  // present, every reserved word inside struct_size zero, open and close set, options well
  // formed. Keeps a copy of the descriptor with only the slots the plugin's minor defines
  // (descriptor()). Throws InputError naming the file, both versions and
  // what to rebuild on a mismatch; "not a caldera plugin" when the entry symbol is missing
  // or the file is not a loadable shared object.
  static std::shared_ptr<PluginLibrary> load(const std::filesystem::path& file);
  ~PluginLibrary();

  // Whether a library is unloaded (dlclose) when the last reference to it goes (the
  // default), or kept mapped until the process exits: the config's
  // [scheduler] unload_retired_plugins. Read when a library is released.
  static void set_unload_on_release(bool unload);
  // Removes the private copies made by another process (a forked child that loaded
  // plugins and exited or died without unloading them). Copies are named "<pid>-...".
  static void remove_private_copies_of(long pid);

  const PluginInfo& info() const { return info_; }
  // The host's copy of the plugin's descriptor: the bytes its ABI minor defines and its
  // struct_size covers (struct_size is set to that), the rest zero; pointers in it point
  // into the library.
  const cal_plugin* descriptor() const { return &desc_; }

 private:
  PluginLibrary() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;  // holds the boost::dll::shared_library and the copy's path
  PluginInfo info_;
  cal_plugin desc_{};
};

// Why the scheduler must not run the code at `p` (a plugin file or folder): it, or what a
// link at `p` points to, belongs to another user than root or this one, or is writable by
// its group or others (sshd's StrictModes). "" when it may.
std::string trust_problem(const std::filesystem::path& p);

// The plugins found in the plugin dirs: every *.so, loaded and checked. A folder that
// fails trust_problem is an error; a file that fails it is a failure like a broken file. Files that fail to
// load are kept as errors (file and reason), so that "plugin X not found" can say which
// broken files might have been it, and `caldera plugins list` can show them.
class PluginCatalog {
 public:
  struct Failure {
    std::filesystem::path file;
    std::string error;
  };

  // Scans dirs in order (a missing dir is an error). Two files declaring one plugin name
  // is an error naming both files. `previous`, when given, lends libraries whose file is
  // unchanged (same FileStamp), so a rescan loads only what changed.
  static PluginCatalog scan(const std::vector<std::filesystem::path>& dirs,
                            const PluginCatalog* previous = nullptr);

  // nullptr when no plugin of that name was found.
  std::shared_ptr<const PluginLibrary> find(const std::string& name) const;
  const std::vector<std::shared_ptr<const PluginLibrary>>& plugins() const { return plugins_; }
  const std::vector<Failure>& failures() const { return failures_; }

 private:
  std::vector<std::shared_ptr<const PluginLibrary>> plugins_;  // sorted by name
  std::vector<Failure> failures_;
};

}  // namespace caldera
