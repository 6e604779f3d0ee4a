// Notices changes to the scheduler config and to the plugin folders (libuv fs events, i.e.
// inotify) and reports them once the files have been quiet for a while.
//
// Folders are watched, not files: editors save by writing a new file and renaming it over
// the old one, and Kubernetes ConfigMap volumes swap a symlink (..data) to a new folder,
// so a watch on the file itself would follow the old inode and go deaf after the first
// change. For the config, every event in its folder (and in the folder its symlinks
// resolve to) re-resolves the path and compares the file's identity (target, device,
// inode, size, mtime) with the last one seen; other files' events (swap files, temp files)
// change nothing and are ignored. For plugin folders, events on *.so names count.
//
// Settling: a build writing a .so, or cp copying one, makes a burst of events. Each event
// restarts a quiet timer; only when it expires is the change reported, so a half-written
// file is normally not read at all (and if a writer pauses longer than that, the loader's
// own checks refuse a truncated file, and the next event tries again).
//
// Volcano watches its config file with fsnotify (pkg/scheduler/scheduler.go:
// watchSchedulerConf), on the file's folder for the same ConfigMap reason.
#pragma once

#include <uv.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "host/plugins/plugin_library.hpp"

namespace caldera {

class ReloadWatcher {
 public:
  // `on_change` gets a short description of what changed ("config /etc/caldera.toml",
  // "plugin /opt/plugins/binpack.so"), called on the loop after `settle_seconds` of quiet,
  // and the wall time (Unix seconds) of the burst's first event.
  using OnChange = std::function<void(const std::string& what, double first_event_at)>;

  ReloadWatcher(uv_loop_t* loop, std::filesystem::path config_file, double settle_seconds,
                OnChange on_change);
  ~ReloadWatcher();
  ReloadWatcher(const ReloadWatcher&) = delete;
  ReloadWatcher& operator=(const ReloadWatcher&) = delete;

  void set_settle(double seconds) { settle_ = seconds; }
  // Watches exactly these plugin folders from now on (and the config's folders): folders
  // no longer named are dropped, new ones added. A folder that cannot be watched (missing)
  // is logged; it is retried at the next call.
  void watch_plugin_dirs(const std::vector<std::filesystem::path>& dirs);
  // The folders currently watched (for the status and tests).
  std::vector<std::filesystem::path> watched() const;
  // Closes every handle (before the loop ends). No more callbacks afterwards.
  void close();

 private:
  struct Watch;
  struct ConfigIdentity {
    std::string target;  // the path after resolving every symlink
    FileStamp stamp;
    bool exists = false;
    bool operator==(const ConfigIdentity&) const = default;
  };

  ConfigIdentity identify() const;
  void rewatch();
  void on_event(Watch* w, const char* name, int events, int status);
  void note(const std::string& what);
  static void on_fs_event(uv_fs_event_t* h, const char* name, int events, int status);
  static void on_settled(uv_timer_t* t);

  uv_loop_t* loop_;
  std::filesystem::path config_;  // absolute, symlinks not resolved
  double settle_;
  OnChange on_change_;
  ConfigIdentity config_id_;
  std::vector<std::filesystem::path> plugin_dirs_;
  std::map<std::filesystem::path, Watch*> watches_;  // by folder
  std::set<std::string> pending_;                    // what changed since the last report
  double first_event_at_ = 0;                        // wall time of the first of them
  uv_timer_t* settle_timer_ = nullptr;
  bool closed_ = false;
};

}  // namespace caldera
