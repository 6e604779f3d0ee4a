// A session in a worker process: the supervisor never runs plugin code.
//
// The process that holds the cache, the backend connections and the libuv loop forks a
// worker for each session. The worker starts from the supervisor's memory by copy on
// write (the cache, the policy, the runtime: nothing is copied up front), runs the session
// with run_session, writes the result as plain bytes on a pipe (result_codec.hpp) and
// exits. Whatever a plugin does in the worker (a signal, exit(), a hang, a runaway
// allocation, an exception thrown through the C ABI, an answer outside the contract,
// scribbles over memory) ends that worker and nothing else; the supervisor reads the
// breadcrumbs (host/session/breadcrumb.hpp) the dispatch left in shared memory to say
// which plugin, extension point and node were running, and the session's decisions are
// dropped whole.
//
// Fork per session rather than a long-lived worker: the session reads the cache as the
// supervisor holds it at that moment, with no copy and no protocol to keep a second cache
// in step, and a worker never carries a plugin's damage into the next session. What it
// costs is measured in docs/ISOLATION.md.
#pragma once

#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/session/policy.hpp"
#include "host/session/runtime.hpp"
#include "host/session/session_image.hpp"
#include "host/supervisor/result_codec.hpp"

namespace caldera {

struct WorkerLimits {
  double timeout_seconds = 60;  // the watchdog: the worker is killed after this long
  uint64_t memory_bytes = 0;    // address space the session may add; 0: no limit
  const char* timeout_name = "session_timeout";  // the setting a hang message names

  // What the config's [scheduler] session_timeout and session_memory_limit say.
  static WorkerLimits of(const SchedulerConfig& config) {
    WorkerLimits l;
    l.timeout_seconds = config.session_timeout();
    l.memory_bytes = static_cast<uint64_t>(config.session_memory_limit_bytes);
    return l;
  }
};

// What went wrong in a worker, and who was running.
struct SessionFault {
  enum class Kind {
    Signal,         // a fatal signal (SIGSEGV, SIGABRT, ...)
    Exit,           // the worker exited before handing back a result (exit(), _exit())
    Timeout,        // the watchdog killed it
    MemoryLimit,    // it ran out of the address space it was allowed
    Exception,      // a C++ exception escaped a plugin
    InvalidOutput,  // a plugin answered outside the contract (NaN score, bad code, ...)
    BadResult,      // the result bytes were spoiled
    Start,          // the worker could not be started (pipe, mmap, fork)
  };
  Kind kind = Kind::Exit;
  std::string what;     // "SIGSEGV", "exit status 0 before the session ended", ...
  // Who was running: empty plugin = the host's own code (no plugin is blamed).
  std::string plugin;
  std::string plugin_file_id;  // ConfiguredPlugin::file_id ("<path>\n<sha256>")
  std::string point;           // "predicate", "open", "close", ...
  std::string node;            // "n4", or "n4 and 63 more nodes in one call"
  std::string task;            // the task being placed, when known
  std::string stage;           // "action allocate", "open", "close"

  // "plugin evil-segv, point predicate, node n4: SIGSEGV (in action allocate, task ns/p)"
  std::string text() const;
  const char* kind_name() const;
};

struct WorkerOutcome {
  bool ok = false;
  WorkerResult result;  // when ok
  SessionFault fault;   // when not
  double seconds = 0;   // from the fork until the result was in (or the worker was reaped)
  long pid = 0;
  // The kept snapshot's refresh before the fork (SessionWorker::use_image); seconds 0 and
  // built false without one.
  SessionImage::Refresh refresh;
  size_t bind_frames = 0;  // frames of binds handed over during the session (stream_binds)
};

class SessionWorker {
 public:
  explicit SessionWorker(uv_loop_t* loop);
  ~SessionWorker();
  SessionWorker(const SessionWorker&) = delete;
  SessionWorker& operator=(const SessionWorker&) = delete;

  // Forks a worker that runs one session of `policy` on `cache` at `now`, with `runtime`'s
  // worker pool settings, memo and plugin states (the worker's copy). `done` is called
  // from the loop once the worker is gone (at once when it cannot be started). One worker
  // at a time. The cache, the policy and the runtime may change in the supervisor as soon
  // as start() returns: the worker has its own copy.
  void start(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
             const Runtime& runtime, const WorkerLimits& limits,
             std::function<void(WorkerOutcome)> done);
  bool running() const { return pid_ > 0; }
  // Sessions on a kept snapshot (host/session/session_image.hpp): each start() first brings
  // `image` up to date with what changed in the cache, and the worker opens its session on
  // its copy of it, so that a session costs what changed, not the cluster. For the worker
  // that runs every session of one cache; `image` outlives the worker. Null: each worker
  // builds its snapshot from the cache (a reload trial).
  void use_image(SessionImage* image) { image_ = image; }
  // Binds as they are decided (issue 17): the worker writes each statement's binds on the
  // pipe as it commits them, and `on_binds` gets them from the loop while the session goes
  // on (binds, their annotations and volume decisions; nothing else set), in the order the
  // session decided them. The result at the end still lists them. A worker that faults
  // later has handed these over already: they stand, the rest of its decisions is
  // dropped. Empty: the binds come with the result only.
  void stream_binds(std::function<void(SessionResult)> on_binds) { on_binds_ = std::move(on_binds); }
  // Kills a running worker (SIGKILL) and reaps it; `done` is not called. For shutdown.
  void kill();
  // Kills a running worker and closes the handles (before the loop ends).
  void close();

 private:
  struct Handles;
  void on_readable();
  void on_child();
  void on_timeout();
  void finish();
  void drain();

  uv_loop_t* loop_;
  std::unique_ptr<Handles> h_;
  long pid_ = 0;
  int fd_ = -1;
  void* board_ = nullptr;  // the CrumbBoard mapping (shared with the worker)
  size_t board_bytes_ = 0;
  std::shared_ptr<const Policy> policy_;
  SessionImage* image_ = nullptr;
  SessionImage::Refresh refresh_;
  std::function<void(SessionResult)> on_binds_;
  std::string streamed_error_;  // a spoiled binds frame: the session's result is refused
  size_t bind_frames_ = 0;
  void take_streamed();
  WorkerLimits limits_;
  double started_ = 0;
  bool timed_out_ = false;
  int status_ = 0;  // waitpid's
  bool reaped_ = false;
  bool eof_ = false;
  // Workers that handed back a whole result and are still on their way out: the result is
  // taken at once (the worker's exit, which unmaps its copy of the supervisor's memory,
  // overlaps the commit) and they are reaped as SIGCHLD comes.
  std::vector<long> exiting_;
  void reap_exiting();
  std::string bytes_;
  std::function<void(WorkerOutcome)> done_;
};

// One session in a worker, waited for: for the tools that run sessions one after the other
// with nothing else to do meanwhile (the scenario runner). Runs a private loop.
// With `image`, the session is on that kept snapshot (SessionWorker::use_image).
// With `on_binds`, the binds are streamed (SessionWorker::stream_binds).
WorkerOutcome run_session_in_worker(const Cache& cache, std::shared_ptr<const Policy> policy,
                                    double now, const Runtime& runtime,
                                    const WorkerLimits& limits, SessionImage* image = nullptr,
                                    std::function<void(SessionResult)> on_binds = {});

// The Runtime after an accepted session: its plugin states and the warnings it said.
void absorb(Runtime& runtime, WorkerResult& result);

}  // namespace caldera
