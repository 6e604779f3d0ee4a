// Plugin files as the host holds them, and discovery of the plugins in a set of folders.
//
// The host that runs the scheduler never runs plugin code (docs/ISOLATION.md). It reads
// each .so file once, keeps its bytes in a sealed memfd (so every later load is of exactly
// the bytes that were checked, whatever happens to the file), and learns what the plugin
// declares (name, version, points, options) by loading it in a throwaway child that
// reports the descriptor as plain data. The code itself is loaded from the memfd by the
// process that runs a session (PluginCode::descriptor), which is a session worker.
//
// dlopen hands back the library it already has for a path or inode it has seen; each memfd
// is a new inode, so a replaced build is always loaded afresh.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "caldera/plugin.h"
#include "host/config/points.hpp"
#include "host/session/policy.hpp"

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
  std::filesystem::path file;  // the file in the plugin dir
  FileStamp stamp;
  std::string sha256;          // of the file's bytes, for status output
  PointSet implemented = PointSet::none();  // points with at least one non-NULL slot
  uint64_t capabilities = 0;                // CAL_CAP_*
  bool checks_args = false;                 // the descriptor sets check_args
  std::vector<cal_option> options;          // the plugin's table; strings in option_text
  std::shared_ptr<const std::vector<std::string>> option_text;
};

// One plugin file: its bytes (a sealed memfd) and what its descriptor declares. Its code
// is loaded into a process only by descriptor(), on first use there.
class PluginFile final : public PluginCode {
 public:
  // Reads one file and inspects it in a child (as PluginCatalog::scan does for each file of
  // a folder). Throws InputError with the reason the file is not a usable plugin.
  static std::shared_ptr<const PluginFile> read(const std::filesystem::path& file);
  ~PluginFile() override;
  const PluginInfo& info() const { return info_; }

  // Loads the code from the memfd into this process on the first call (thread-safe): calls
  // its entry with the host table and checks the descriptor again (the same checks as the
  // inspection, and the same name and ABI it declared there). Throws std::runtime_error
  // naming the plugin and file when that fails.
  const cal_plugin* descriptor() const override;
  // Whether this process has loaded the code (descriptor() succeeded here).
  bool loaded_here() const;

  // Whether a library is unloaded (dlclose) when the last reference to it goes (the
  // default), or kept mapped until the process exits: the config's
  // [scheduler] unload_retired_plugins. Read when a file object is released.
  static void set_unload_on_release(bool unload);

 private:
  friend class PluginCatalog;
  PluginFile() = default;
  // Reads a file's bytes into a sealed memfd (its info: file, stamp and sha256 only).
  static std::shared_ptr<PluginFile> open_bytes(const std::filesystem::path& file);
  // Inspects the files in children and fills their info; errors[i] is file i's failure.
  static void inspect_all(const std::vector<PluginFile*>& files, std::vector<std::string>& errors);
  struct Code;
  int fd_ = -1;  // the sealed memfd
  PluginInfo info_;
  mutable std::unique_ptr<Code> code_;  // set once, under Code's once_flag
  mutable std::once_flag once_;
};

// A file's identity now (links followed); nullopt, with strerror in `err`, when it cannot
// be read.
std::optional<FileStamp> file_stamp(const std::filesystem::path& file, std::string* err = nullptr);

// The candidate plugin files of one folder: its *.so regular files (links followed),
// sorted. `ec` is set when the folder cannot be listed.
std::vector<std::filesystem::path> plugin_files_in(const std::filesystem::path& dir,
                                                   std::error_code& ec);

// The *.so files of the plugin dirs with their stamps, as PluginCatalog::scan enumerates
// them (a folder named twice listed once); a missing folder is skipped (the scan says so).
// The reloader compares these to tell "nothing changed".
std::map<std::string, FileStamp> plugin_files(const std::vector<std::filesystem::path>& dirs);

// Why the scheduler must not run the code at `p` (a plugin file or folder): it, or what a
// link at `p` points to, belongs to another user than root or this one, or is writable by
// its group or others (sshd's StrictModes). "" when it may.
std::string trust_problem(const std::filesystem::path& p);

// The plugins found in the plugin dirs: every *.so, read, checked (trust, ELF headers) and
// inspected in a child (plugin_library.cpp: inspect). A folder that fails trust_problem is
// an error; a file that fails it, or does not inspect (not a caldera plugin, another ABI, a
// crash or hang in its constructors or entry point), is kept as a failure (file and
// reason), so that "plugin X not found" can say which broken files might have been it, and
// `caldera plugins list` can show them. No plugin code runs in the calling process.
class PluginCatalog {
 public:
  struct Failure {
    std::filesystem::path file;
    std::string error;
  };

  // Scans dirs in order (a missing dir is an error). Two files declaring one plugin name
  // is an error naming both files. `previous`, when given, lends the files it holds that
  // are unchanged on disk (same FileStamp), so a rescan reads and inspects only what
  // changed.
  static PluginCatalog scan(const std::vector<std::filesystem::path>& dirs,
                            const PluginCatalog* previous = nullptr);

  // nullptr when no plugin of that name was found.
  std::shared_ptr<const PluginFile> find(const std::string& name) const;
  const std::vector<std::shared_ptr<const PluginFile>>& plugins() const { return plugins_; }
  const std::vector<Failure>& failures() const { return failures_; }

 private:
  std::vector<std::shared_ptr<const PluginFile>> plugins_;  // sorted by name
  std::vector<Failure> failures_;
};

}  // namespace caldera
