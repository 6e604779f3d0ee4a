// A session in a forked worker (session_worker.hpp).
#include "host/supervisor/session_worker.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>

#include <fmt/format.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "host/config/points.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/session/breadcrumb.hpp"
#include "host/util/child_run.hpp"
#include "host/util/clock.hpp"
#include "host/util/fd_io.hpp"
#include "host/util/worker_pool.hpp"

namespace caldera {

namespace {

// How a worker ends when it could not hand back a result on its own terms.
constexpr int kExceptionExit = 87;  // an exception reached the worker's top

// Counts the error lines logged in the worker and keeps the first few.
class ErrorLines : public spdlog::sinks::base_sink<std::mutex> {
 public:
  uint64_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }
  std::vector<std::string> first() {
    std::lock_guard<std::mutex> lock(mutex_);
    return first_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (msg.level < spdlog::level::err) return;
    ++count_;
    if (first_.size() < 5) first_.emplace_back(msg.payload.data(), msg.payload.size());
  }
  void flush_() override {}

 private:
  uint64_t count_ = 0;
  std::vector<std::string> first_;
};
constexpr int kMemoryExit = 88;     // std::bad_alloc reached the worker's top
constexpr int kWriteExit = 89;      // the result could not be written


// ---- the worker's side ------------------------------------------------------------------

CrumbBoard* g_worker_board = nullptr;

// Fatal signals: note which thread took it, then die of it (the handler is reset on
// entry, so re-raising runs the default action).
void on_fatal_signal(int sig) {
  if (g_worker_board) {
    g_worker_board->fault_thread.store(
        static_cast<int32_t>(std::min(WorkerPool::thread_index(), CrumbBoard::kThreads - 1)));
    g_worker_board->fault_signal.store(sig);
  }
  ::raise(sig);
}

void note(const std::string& text) {
  if (!g_worker_board) return;
  const size_t n = std::min(text.size(), CrumbBoard::kNoteBytes - 1);
  std::memcpy(g_worker_board->note, text.data(), n);
  g_worker_board->note[n] = '\0';
}

// std::terminate in the worker (an exception thrown through a noexcept frame, or while
// another unwinds): say what it was before aborting.
void on_terminate() {
  std::string what = "std::terminate called";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      what = fmt::format("C++ exception escaped: {}", ex.what());
    } catch (...) {
      what = "C++ exception escaped (not a std::exception)";
    }
  }
  note(what);
  ::signal(SIGABRT, SIG_DFL);
  std::abort();
}

uint64_t address_space_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0;
  if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
  std::fclose(f);
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

[[noreturn]] void worker_main(int fd, CrumbBoard* board, const Cache& cache,
                              const std::shared_ptr<const Policy>& policy, double now,
                              const Runtime& parent_runtime, const WorkerLimits& limits,
                              SessionImage* image, bool stream) {
  g_worker_board = board;
  set_crumb_board(board);
  // A stack of its own for the fatal signal handler (a stack overflow still gets named).
  static char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP})
    ::sigaction(sig, &sa, nullptr);
  std::set_terminate(on_terminate);
  // exit() from a plugin: say so with its status and leave at once, before the atexit
  // handlers and static destructors of the supervisor's code run in this copy of it (and
  // before a sanitizer's exit-time checks turn the status into their own).
  ::on_exit(
      [](int status, void*) {
        note(fmt::format("exit({}) called before the session ended", status));
        ::_exit(status);
      },
      nullptr);
  if (limits.memory_bytes > 0) {
    const uint64_t cap = address_space_bytes() + limits.memory_bytes;
    struct rlimit rl{cap, cap};
    ::setrlimit(RLIMIT_AS, &rl);
  }

  // The runtime is the supervisor's, copied by the fork; the worker pool is built afresh
  // here (threads do not survive a fork), the memo and the states carry over.
  Runtime& runtime = const_cast<Runtime&>(parent_runtime);
  runtime.forget_workers();
  if (stream)
    runtime.set_bind_stream([fd](const SessionResult& r, size_t first) {
      if (!write_all(fd, encode_binds(r, first))) ::_exit(kWriteExit);
    });
  WorkerResult wr;
  // Error lines logged during the session are counted for the result (a reload trial with
  // any is refused); they are still written where the log goes.
  auto errors = std::make_shared<ErrorLines>();
  spdlog::default_logger()->sinks().push_back(errors);
  try {
    wr.result = image ? run_session(*image, cache, now, runtime, &wr.timings)
                      : run_session(cache, policy, now, runtime, &wr.timings);
  } catch (const std::bad_alloc&) {
    note("out of memory (std::bad_alloc)");
    ::_exit(kMemoryExit);
  } catch (const std::exception& e) {
    note(fmt::format("C++ exception escaped: {}", e.what()));
    ::_exit(kExceptionExit);
  } catch (...) {
    note("C++ exception escaped (not a std::exception)");
    ::_exit(kExceptionExit);
  }
  crumb_stage(SessionStage::Encoding);
  for (const auto& [topic, text] : runtime.said()) wr.said.emplace_back(topic, text);
  wr.errors_logged = errors->count();
  wr.first_errors = errors->first();
  if (!write_all(fd, encode_result(wr))) ::_exit(kWriteExit);
  crumb_stage(SessionStage::Done);
  ::_exit(0);
}

// ---- the supervisor's side --------------------------------------------------------------

// The plugin, point and node a board names for the fault.
void blame(const CrumbBoard& b, const Policy& policy, SessionFault& f) {
  int32_t plugin = b.note_plugin.load(), slot = b.note_slot.load(), node = b.note_node.load();
  int32_t run = 0;
  if (plugin < 0) {
    // The thread that took the signal, else the first thread inside a plugin.
    const int32_t t = b.fault_thread.load();
    auto take = [&](const Crumb& c) {
      if (c.plugin.load() < 0) return false;
      plugin = c.plugin.load();
      slot = c.slot.load();
      node = c.node.load();
      run = c.run.load();
      return true;
    };
    if (!(t >= 0 && take(b.threads[t])))
      for (const Crumb& c : b.threads)
        if (take(c)) break;
  }
  if (plugin >= 0) {
    int32_t i = 0;
    for (const auto& tier : policy.tiers)
      for (const auto& cp : tier)
        if (i++ == plugin) {
          f.plugin = cp.name;
          f.plugin_file_id = cp.file_id;
        }
    if (f.plugin.empty()) f.plugin = fmt::format("#{}", plugin);
    if (slot == kCrumbOpen) f.point = "open";
    else if (slot == kCrumbClose) f.point = "close";
    else if (slot == kCrumbLoad) f.point = "load";
    else if (slot >= 0 && slot < static_cast<int32_t>(kSlotCount)) {
      const Point p = slot_point(static_cast<Slot>(slot));
      f.point = p == Point::Count ? std::string(slot_name(static_cast<Slot>(slot)))
                                  : std::string(point_name(p));
    }
  }
  if (node >= 0) {
    const char* at = b.names();
    const char* end = at + std::min(b.names_used.load(), b.names_size);
    for (int32_t i = 0; i < node && at < end; ++i) at += ::strnlen(at, end - at) + 1;
    if (node < b.names_count.load() && at < end)
      f.node = std::string(at, ::strnlen(at, end - at));
    else
      f.node = fmt::format("#{}", node);
    if (run > 1) f.node += fmt::format(" and {} more nodes in one call", run - 1);
  }
  f.task = std::string(b.task, ::strnlen(b.task, sizeof b.task));
  switch (static_cast<SessionStage>(b.stage.load())) {
    case SessionStage::Opening: f.stage = "open"; break;
    case SessionStage::Action: {
      const int32_t a = b.action.load();
      f.stage = a >= 0 && static_cast<size_t>(a) < policy.config.actions.size()
                    ? "action " + policy.config.actions[a]
                    : "an action";
      break;
    }
    case SessionStage::Closing: f.stage = "close"; break;
    case SessionStage::Encoding: f.stage = "handing back the result"; break;
    default: break;
  }
}

}  // namespace

// ---- SessionFault -------------------------------------------------------------------------

const char* SessionFault::kind_name() const {
  switch (kind) {
    case Kind::Signal: return "signal";
    case Kind::Exit: return "exit";
    case Kind::Timeout: return "timeout";
    case Kind::MemoryLimit: return "memory-limit";
    case Kind::Exception: return "exception";
    case Kind::InvalidOutput: return "invalid-output";
    case Kind::BadResult: return "bad-result";
    case Kind::Start: return "start";
  }
  return "?";
}

std::string SessionFault::text() const {
  std::string who;
  if (!plugin.empty()) {
    who = "plugin " + plugin;
    if (!point.empty()) who += ", point " + point;
  } else {
    who = "the session (no plugin was running)";
  }
  if (!node.empty()) who += ", node " + node;
  std::string where;
  if (!stage.empty()) where = "in " + stage;
  if (!task.empty() && !node.empty()) where += (where.empty() ? "" : ", ") + ("task " + task);
  return fmt::format("{}: {}{}", who, what, where.empty() ? "" : " (" + where + ")");
}

// ---- SessionWorker --------------------------------------------------------------------------

struct SessionWorker::Handles {
  uv_timer_t watchdog;
  uv_signal_t sigchld;
  uv_poll_t* poll = nullptr;  // one per worker (it watches that worker's pipe)
  int open = 0;               // watchdog and sigchld not yet closed
};

namespace {
// Stops and closes a worker's pipe watch; its memory goes in the close callback.
void close_poll(uv_poll_t*& poll) {
  if (!poll) return;
  uv_poll_stop(poll);
  uv_close(reinterpret_cast<uv_handle_t*>(poll),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
  poll = nullptr;
}
}  // namespace

SessionWorker::SessionWorker(uv_loop_t* loop) : loop_(loop), h_(new Handles) {
  uv_timer_init(loop_, &h_->watchdog);
  h_->watchdog.data = this;
  uv_signal_init(loop_, &h_->sigchld);
  h_->sigchld.data = this;
  // Reaping exiting workers is no reason to keep a loop running.
  uv_unref(reinterpret_cast<uv_handle_t*>(&h_->sigchld));
  h_->open = 2;
}

SessionWorker::~SessionWorker() {
  close();
  if (board_) ::munmap(board_, board_bytes_);
}

void SessionWorker::close() {
  kill();
  if (!h_ || h_->open == 0) return;
  // The handles close on the loop; their memory goes once the last close callback ran.
  Handles* h = h_.release();
  auto closed = [](uv_handle_t* handle) {
    Handles* hh = static_cast<Handles*>(handle->data);
    if (--hh->open == 0) delete hh;
  };
  h->watchdog.data = h;
  h->sigchld.data = h;
  uv_close(reinterpret_cast<uv_handle_t*>(&h->watchdog), closed);
  uv_close(reinterpret_cast<uv_handle_t*>(&h->sigchld), closed);
}

void SessionWorker::reap_exiting() {
  std::vector<long> still;
  for (long pid : exiting_) {
    int st = 0;
    if (::waitpid(static_cast<pid_t>(pid), &st, WNOHANG) == 0) still.push_back(pid);
  }
  exiting_ = std::move(still);
}

void SessionWorker::kill() {
  for (long pid : exiting_) {
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    int st = 0;
    while (::waitpid(static_cast<pid_t>(pid), &st, 0) < 0 && errno == EINTR) {
    }
  }
  exiting_.clear();
  if (pid_ <= 0) return;
  ::kill(static_cast<pid_t>(pid_), SIGKILL);
  int st = 0;
  while (::waitpid(static_cast<pid_t>(pid_), &st, 0) < 0 && errno == EINTR) {
  }
  if (h_) {
    close_poll(h_->poll);
    uv_timer_stop(&h_->watchdog);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  pid_ = 0;
  done_ = nullptr;
  policy_.reset();
}

void SessionWorker::start(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          const Runtime& runtime, const WorkerLimits& limits,
                          std::function<void(WorkerOutcome)> done) {
  auto refuse = [&](std::string why) {
    WorkerOutcome o;
    o.fault.kind = SessionFault::Kind::Start;
    o.fault.what = std::move(why);
    done(std::move(o));
  };
  if (pid_ > 0 || !h_) return refuse(pid_ > 0 ? "a session is already running" : "stopping");
  refresh_ = SessionImage::Refresh{};
  SessionImage* image = image_;
  if (image) {
    try {
      refresh_ = image->refresh(cache, policy);
      spdlog::debug("session image: {} in {:.1f} ms ({} pod, {} PodGroup, {} node changes)",
                    refresh_.built ? "built (" + refresh_.why + ")" : "brought up to date",
                    refresh_.seconds * 1e3, refresh_.pods, refresh_.podgroups, refresh_.nodes);
    } catch (const std::exception& e) {
      // The host's own code ran out of something (memory): the worker builds its snapshot.
      spdlog::warn("session image: {}; this session builds its snapshot in the worker", e.what());
      image = nullptr;
    }
  }

  // The board: the crumbs and a name table big enough for every node's name.
  size_t names = 0;
  for (const auto& [name, node] : cache.nodes()) names += name.size() + 1;
  const size_t want = sizeof(CrumbBoard) + names;
  if (board_bytes_ < want) {
    if (board_) ::munmap(board_, board_bytes_);
    board_bytes_ = std::max(want, board_bytes_ * 2);
    board_ = ::mmap(nullptr, board_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                     -1, 0);
    if (board_ == MAP_FAILED) {
      board_ = nullptr;
      board_bytes_ = 0;
      return refuse(fmt::format("mmap: {}", std::strerror(errno)));
    }
  }
  auto* board = new (board_) CrumbBoard();
  board->names_size = board_bytes_ - sizeof(CrumbBoard);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return refuse(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  started_ = monotonic_seconds();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return refuse(fmt::format("fork: {}", std::strerror(err)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(kWriteExit);
    ::setpgid(0, 0);  // a Ctrl-C meant for the scheduler is not the worker's fault
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2})
      ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    worker_main(fds[1], board, cache, policy, now, runtime, limits, image,
                static_cast<bool>(on_binds_));
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  pid_ = pid;
  fd_ = fds[0];
  policy_ = std::move(policy);
  limits_ = limits;
  timed_out_ = reaped_ = eof_ = false;
  status_ = 0;
  bytes_.clear();
  streamed_error_.clear();
  bind_frames_ = 0;
  done_ = std::move(done);

  h_->poll = new uv_poll_t;
  uv_poll_init(loop_, h_->poll, fd_);
  h_->poll->data = this;
  uv_poll_start(h_->poll, UV_READABLE | UV_DISCONNECT, [](uv_poll_t* p, int, int) {
    static_cast<SessionWorker*>(p->data)->on_readable();
  });
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&h_->sigchld)))
    uv_signal_start(&h_->sigchld, [](uv_signal_t* s, int) {
      auto* w = static_cast<SessionWorker*>(s->data);
      w->reap_exiting();
      w->on_child();
    }, SIGCHLD);
  const uint64_t ms = static_cast<uint64_t>(std::max(0.0, limits.timeout_seconds) * 1000.0);
  uv_timer_start(&h_->watchdog, [](uv_timer_t* t) {
    static_cast<SessionWorker*>(t->data)->on_timeout();
  }, ms, 0);
  on_child();  // it may be gone already
}

void SessionWorker::drain() {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      bytes_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) eof_ = true;
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: nothing more for now
  }
  take_streamed();
}

// The whole binds frames at the head of what the worker wrote, handed over in order, as
// one part: what arrived together is checked and sent together (the check reads the
// nodes' pods in the cache, once per part rather than once per statement).
void SessionWorker::take_streamed() {
  size_t at = 0;
  SessionResult all;
  while (streamed_error_.empty()) {
    const size_t n = binds_frame_length(std::string_view(bytes_).substr(at));
    if (n == 0) break;
    try {
      SessionResult part = decode_binds(std::string_view(bytes_).substr(at, n));
      all.binds.insert(all.binds.end(), std::make_move_iterator(part.binds.begin()),
                       std::make_move_iterator(part.binds.end()));
      all.bind_annotations.merge(part.bind_annotations);
      all.volume_bindings.merge(part.volume_bindings);
      ++bind_frames_;
    } catch (const ResultError& e) {
      streamed_error_ = e.what();
    }
    at += n;
  }
  bytes_.erase(0, at);
  if (!all.binds.empty() && streamed_error_.empty() && on_binds_) on_binds_(std::move(all));
}

void SessionWorker::on_readable() {
  if (pid_ <= 0) return;
  drain();
  if (eof_ && h_->poll) uv_poll_stop(h_->poll);
  if (!reaped_ && frame_complete(bytes_)) {
    // Everything is said: take the result now, reap the worker when it is gone.
    exiting_.push_back(pid_);
    reaped_ = true;
    status_ = 0;  // as if it exited 0: the result decides
    finish();
    return;
  }
  on_child();
}

void SessionWorker::on_child() {
  if (pid_ <= 0 || reaped_) return;
  int st = 0;
  const pid_t r = ::waitpid(static_cast<pid_t>(pid_), &st, WNOHANG);
  if (r != static_cast<pid_t>(pid_)) return;
  reaped_ = true;
  status_ = st;
  drain();  // what it wrote before it went (a grandchild may hold the pipe open: no EOF)
  finish();
}

void SessionWorker::on_timeout() {
  if (pid_ <= 0 || reaped_) return;
  timed_out_ = true;
  ::kill(static_cast<pid_t>(pid_), SIGKILL);
  // SIGCHLD follows; reap now if it is already gone.
  on_child();
}

void SessionWorker::finish() {
  WorkerOutcome o;
  o.pid = pid_;
  auto* board = static_cast<CrumbBoard*>(board_);
  SessionFault& f = o.fault;
  using K = SessionFault::Kind;
  const std::string note_text(board->note, ::strnlen(board->note, sizeof board->note));
  if (timed_out_) {
    f.kind = K::Timeout;
    f.what = fmt::format("no result after {:g}s ({}); killed", limits_.timeout_seconds,
                         limits_.timeout_name);
  } else if (WIFSIGNALED(status_)) {
    f.kind = K::Signal;
    f.what = signal_name(WTERMSIG(status_));
    if (!note_text.empty()) f.what += ": " + note_text;
    if (limits_.memory_bytes > 0 && WTERMSIG(status_) == SIGABRT && note_text.empty())
      // Said as a possibility: an abort() of any other cause looks the same from here.
      f.what += fmt::format(" (perhaps session_memory_limit, {} MiB: a failed allocation "
                            "ends this way in most plugins)",
                            limits_.memory_bytes >> 20);
  } else if (!streamed_error_.empty()) {
    f.kind = K::BadResult;
    f.what = streamed_error_;
  } else if (WIFEXITED(status_)) {
    const int code = WEXITSTATUS(status_);
    if (code == 0) {
      try {
        o.result = decode_result(bytes_);
        o.ok = true;
      } catch (const ResultError& e) {
        f.kind = bytes_.empty() ? K::Exit : K::BadResult;
        f.what = !bytes_.empty()     ? e.what()
                 : note_text.empty() ? "exit status 0 before the session ended"
                                     : note_text;
      }
    } else if (code == kInvalidOutputExit) {
      f.kind = K::InvalidOutput;
      f.what = note_text;
    } else if (code == kExceptionExit) {
      f.kind = K::Exception;
      f.what = note_text;
    } else if (code == kMemoryExit) {
      f.kind = K::MemoryLimit;
      f.what = fmt::format("{}: over session_memory_limit ({} MiB)", note_text,
                           limits_.memory_bytes >> 20);
    } else {
      f.kind = K::Exit;
      f.what = note_text.empty() ? fmt::format("exit status {} before the session ended", code)
                                 : note_text;
    }
  }
  if (!o.ok && f.kind != K::BadResult) blame(*board, *policy_, f);
  if (!o.ok && f.kind == K::InvalidOutput) {
    // The note already names the plugin and point; keep only what it says went wrong.
    const std::string cut = "broke the ABI contract: ";
    if (auto at = f.what.find(cut); at != std::string::npos) f.what = f.what.substr(at);
  }

  o.seconds = monotonic_seconds() - started_;  // the result decoded: what the commit waits for
  o.refresh = refresh_;
  o.bind_frames = bind_frames_;
  auto done = std::move(done_);
  // Release the worker's things before telling: `done` may start the next session.
  if (h_) {
    uv_timer_stop(&h_->watchdog);
    close_poll(h_->poll);
  }
  ::close(fd_);
  fd_ = -1;
  pid_ = 0;
  policy_.reset();
  bytes_.clear();
  bytes_.shrink_to_fit();
  if (done) done(std::move(o));
}

// ---- helpers ----------------------------------------------------------------------------------

WorkerOutcome run_session_in_worker(const Cache& cache, std::shared_ptr<const Policy> policy,
                                    double now, const Runtime& runtime,
                                    const WorkerLimits& limits, SessionImage* image,
                                    std::function<void(SessionResult)> on_binds) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  WorkerOutcome out;
  {
    SessionWorker w(&loop);
    w.use_image(image);
    w.stream_binds(std::move(on_binds));
    w.start(cache, std::move(policy), now, runtime, limits,
            [&](WorkerOutcome o) { out = std::move(o); });
    while (w.running()) uv_run(&loop, UV_RUN_ONCE);
    w.close();
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  return out;
}

void absorb(Runtime& runtime, WorkerResult& result) {
  runtime.carry(std::move(result.result.plugin_states));
  for (auto& [topic, text] : result.said) runtime.set_said(std::move(topic), std::move(text));
}

}  // namespace caldera
