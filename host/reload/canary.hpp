// The reload canary: a candidate policy is built and run once, in a forked child, before
// the running scheduler touches it.
//
// Why a child: a plugin's code runs in the host's address space. A new build that aborts,
// dereferences NULL, loops forever or hangs in its entry point or in a session would take
// the scheduler down with it. So everything that executes new plugin code for the first
// time happens in a fork: the child inherits the current cache (copy-on-write, so the
// trial session sees exactly the cluster the next real session will, at no copying cost),
// loads the plugin folders (reusing what the running policy already has loaded), builds
// the policy, runs one session and reports through a pipe. The parent's loop stays
// responsive: it polls the child from a uv_timer, kills it (SIGKILL) at the time limit,
// and only when the child exited cleanly loads the same files itself.
//
// Volcano has no counterpart (its plugins are compiled in and a config change is applied
// at the next OpenSession, pkg/scheduler/scheduler.go: watchSchedulerConf / loadSchedulerConf);
// the child-process trial is Caldera's answer to loading third-party code at run time.
#pragma once

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/plugins/plugin_library.hpp"

namespace caldera {

// How a child process ended.
struct ChildOutcome {
  enum class How { Exited, Signaled, TimedOut, ForkFailed };
  How how = How::Exited;
  int code = 0;         // exit code (Exited) or signal number (Signaled)
  std::string output;   // everything the child wrote to its pipe
  std::string error;    // ForkFailed: why
  double seconds = 0;   // from fork to reaping
  long pid = 0;
};

// Runs a function in a forked child, with a time limit, without blocking the loop.
class ChildProcess {
 public:
  explicit ChildProcess(uv_loop_t* loop);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running() const { return pid_ > 0; }

  // Forks. The child runs body(fd), where fd is the write end of a pipe to the parent, and
  // _exits with body's return value (it never returns into the caller's code). `done` is
  // called from the loop once the child is gone (or at once, when fork fails). At most
  // one child at a time.
  void start(std::function<int(int fd)> body, double timeout_seconds,
             std::function<void(ChildOutcome)> done);

  // Kills a running child (SIGKILL) and reaps it; `done` is not called. For shutdown.
  void kill_and_forget();
  // Closes the poll timer (before the loop ends). Kills a running child first.
  void close();

 private:
  static void on_poll(uv_timer_t* t);
  void poll();
  void drain();
  void finish(ChildOutcome::How how, int code);

  uv_loop_t* loop_;
  uv_timer_t* timer_ = nullptr;  // heap: freed by its close callback
  long pid_ = 0;
  int fd_ = -1;  // read end of the pipe
  double timeout_ = 0;
  double started_ = 0;  // uv_hrtime in seconds
  bool killed_ = false;
  std::string output_;
  std::function<void(ChildOutcome)> done_;
};

// What a trial reports about the files it loaded, so the parent can check it loads the
// very same bytes afterwards.
struct TrialFile {
  FileStamp stamp;
  std::string sha256;  // empty for a file that failed to load
};

// The report of one canary trial, parsed from the child's output.
struct TrialReport {
  enum class Result {
    Ok,            // built, one session ran, no plugin error
    BuildFailed,   // an InputError while loading or building (error holds its text)
    PluginErrors,  // the session ran but plugins logged errors (CAL_ERROR, exceptions)
    Crashed,       // the child died of a signal
    Hung,          // no result within the time limit
    Failed,        // anything else (fork failed, unexpected exit)
  };
  Result result = Result::Failed;
  std::string error;           // the reason, one line, for the log and the status
  std::string stage;           // the last stage the child reached ("session: allocate")
  std::map<std::string, TrialFile> files;  // every .so of the plugin dirs, by path
  size_t binds = 0, pending = 0;
  double seconds = 0;
};

// The child's side: loads `dirs` (reusing `previous`), builds a policy of `config`, runs
// one session on `cache` at `now`, writes its report on fd and returns the exit code (0
// ok, 2 build failed, 3 plugin errors, 4 other failure). Runs in the forked child only:
// it replaces the logger with one that counts plugin errors.
int canary_child(int fd, const SchedulerConfig& config, const std::string& config_hash,
                 const PluginCatalog& previous, const Cache& cache, double now,
                 bool try_unload);

// The parent's side: turns the child's ending and output into a report.
TrialReport read_trial(const ChildOutcome& outcome, double timeout_seconds);

// The .so files of the plugin dirs (as PluginCatalog::scan enumerates them) with their
// stamps; missing dirs are skipped (the scan reports them).
std::map<std::string, FileStamp> plugin_files(const std::vector<std::filesystem::path>& dirs);

}  // namespace caldera
