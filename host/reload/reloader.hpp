// Changing the policy while the scheduler runs: config and plugins reloaded with no
// restart, validated as a whole, tried in isolation, and published between two sessions.
//
// One attempt, from a trigger (a settled file change, or SIGHUP) to a decision:
//   1. read the config's bytes, hash them and parse them (load_config_text, after a trial
//      parse in a child). A syntax or shape error refuses the attempt here, with the
//      parser's file:line:column message.
//   2. nothing changed (same config hash, same plugin folders, every .so with the same
//      device/inode/size/mtime as when the running policy was built): logged, done.
//   3. the plugin folders are scanned (unchanged files lent by the running catalog, new
//      ones read into sealed memfds and inspected in a child) and the policy is built.
//   4. the trial: one session of the new policy on the current cache, in a session worker
//      (host/supervisor/session_worker.hpp) as every session runs, its decisions dropped.
//      A fault (named with plugin, point and node), a hang past canary_timeout, or an
//      error logged by a plugin refuses the attempt; else the policy is published and the
//      next session uses it. The loop is single-threaded and sessions start inside one
//      timer callback, so publishing (swapping a shared_ptr in another callback) is always
//      between sessions. The trial runs the exact bytes the policy holds, so nothing can
//      change between the trial and the sessions.
// Every attempt is logged (what triggered it, what changed, accepted or refused and why)
// and recorded for the status file. Whatever fails leaves the running policy untouched.
//
// Lifetimes: sessions hold the policy they started with (shared_ptr<const Policy>), a
// policy holds its libraries. A retired policy is freed when the last session using it has
// closed and the catalog no longer holds its libraries; [scheduler] unload_retired_plugins
// decides whether their code is then unloaded. Nothing else the host keeps points into a
// plugin: names, versions, hashes and reasons are copied into std::strings.
#pragma once

#include <uv.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/plugins/policy.hpp"
#include "host/session/runtime.hpp"
#include "host/supervisor/session_worker.hpp"
#include "host/reload/watcher.hpp"

namespace caldera {

// One reload attempt, for the log and the status file. Times are Unix seconds (wall).
struct ReloadRecord {
  size_t attempt = 0;
  std::string trigger;     // "SIGHUP", "config /etc/caldera.toml", "plugin /x/y.so", ...
  std::string result;      // "accepted" | "refused" | "unchanged"
  std::string reason;      // refused: why (the InputError text, the trial's failure)
  std::string changes;     // accepted: what changed
  std::string config_hash; // of the config text that was tried ("" when unreadable)
  double noticed_at = 0;   // first file event of the burst (or the signal)
  double started_at = 0;   // the attempt began (after settling)
  double finished_at = 0;
  double trial_seconds = 0;
  std::string trial;       // accepted: what the trial session did ("3 binds, 0 pending")
};

struct ReloadStats {
  size_t attempts = 0, accepted = 0, refused = 0, unchanged = 0;
  std::optional<ReloadRecord> last;        // the latest attempt
  std::optional<ReloadRecord> last_error;  // the latest refused attempt
  double active_since = 0;                 // when the running policy was published
  double first_session_at = 0;             // first session that used it (0: none yet)
};

class Reloader {
 public:
  struct Options {
    std::filesystem::path config_file;
    std::vector<std::filesystem::path> default_plugin_dirs;  // when the config names none
    std::vector<std::filesystem::path> override_plugin_dirs;  // --plugin-dir: wins over the config
    // Command-line settings that win over the config's (volcano-scheduler's flags), applied
    // to every config loaded, the first and each reload. May be empty.
    std::function<void(SchedulerConfig&)> override_config;
    std::function<const Cache&()> cache;  // the live cache, for the trial session
    std::function<double()> now;          // the session clock, for the trial session
    std::function<void()> after_attempt;  // e.g. write the status file
  };

  // Builds the first policy directly (as a plain `caldera run` always did); throws
  // InputError. Watching starts with start().
  Reloader(uv_loop_t* loop, Options options);
  ~Reloader();
  Reloader(const Reloader&) = delete;
  Reloader& operator=(const Reloader&) = delete;

  // Starts the file watches.
  void start();
  // A reload attempt now (SIGHUP). While a trial runs, the request is queued and one more
  // attempt follows the current one.
  void trigger(const std::string& why, double noticed_at = 0);
  // Stops watching, kills a running trial. Call before the loop ends.
  void close();

  std::shared_ptr<const Policy> active() const { return active_; }
  const PluginCatalog& catalog() const { return *catalog_; }
  const ReloadStats& stats() const { return stats_; }
  // Policies retired by reloads whose memory is still held (by a session in progress).
  size_t retired_alive() const;
  std::vector<std::filesystem::path> watched_dirs() const;
  bool trial_running() const { return trial_ && trial_->running(); }

  // The run loop reports each session and the policy it used.
  void session_done(const std::shared_ptr<const Policy>& used, double wall_time);

 private:
  struct Candidate {
    ReloadRecord rec;
    SchedulerConfig config;
    // What is new relative to the running policy (plugins newly named, plugin files added
    // or changed): the suspects when the trial fails with no plugin to blame.
    std::string suspects;
    std::shared_ptr<const Policy> policy;    // built, on trial
    std::unique_ptr<PluginCatalog> catalog;  // the files it was built from
    std::map<std::string, FileStamp> files;  // their stamps (the "nothing changed" check)
  };

  // Parses the config text, applying the --plugin-dir override. Throws InputError.
  SchedulerConfig parse(const std::string& text) const;
  void attempt(const std::string& why, double noticed_at);
  void on_trial(WorkerOutcome outcome);
  void publish(Candidate& c, std::shared_ptr<const Policy> policy,
               std::unique_ptr<PluginCatalog> catalog, std::map<std::string, FileStamp> files);
  void finish(ReloadRecord& rec, const std::string& result);
  void refuse(ReloadRecord& rec, const std::string& why);
  void run_queued();

  uv_loop_t* loop_;
  Options opt_;
  std::shared_ptr<const Policy> active_;
  std::unique_ptr<PluginCatalog> catalog_;
  std::map<std::string, FileStamp> active_files_;  // the .so files the running set was built from
  std::vector<std::weak_ptr<const Policy>> retired_;
  std::unique_ptr<ReloadWatcher> watcher_;
  std::unique_ptr<SessionWorker> trial_;
  Runtime trial_runtime_;  // the trial's own: no plugin state, nothing absorbed
  std::optional<Candidate> candidate_;  // the attempt whose trial is running
  bool queued_ = false;                  // a trigger came in during a trial
  std::string queued_why_;
  double queued_noticed_ = 0;
  ReloadStats stats_;
  bool closed_ = false;
};

// Describes what differs between two policies (config hash, actions, period, tiers,
// arguments, plugin folders, plugin files added / removed / replaced), one clause each;
// "nothing" when they are the same.
std::string describe_changes(const Policy& before, const PluginCatalog& before_catalog,
                             const Policy& after, const PluginCatalog& after_catalog);

}  // namespace caldera
