// The reload canary: a forked child that loads, builds and tries a candidate policy. See
// canary.hpp for why it is a child process.
#include "host/reload/canary.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "host/plugins/policy.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/util/fd_io.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

double now_seconds() { return static_cast<double>(uv_hrtime()) / 1e9; }

// One protocol line per record: "<kind> <text>\n"; text never holds a newline or a tab
// except the tabs that separate fields.
std::string clean(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}

void emit(int fd, const std::string& kind, const std::string& text) {
  // A parent that is gone or a broken pipe: nothing to tell anyone.
  (void)write_all(fd, kind + " " + clean(text) + "\n");
}

std::string stamp_text(const FileStamp& s) {
  return fmt::format("{}\t{}\t{}\t{}", s.device, s.inode, s.size, s.mtime_ns);
}

bool stat_stamp(const fs::path& p, FileStamp& out) {
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) return false;
  out.device = static_cast<uint64_t>(st.st_dev);
  out.inode = static_cast<uint64_t>(st.st_ino);
  out.size = static_cast<uint64_t>(st.st_size);
  out.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return true;
}

// Counts error-level log lines in the child and keeps the first few. Every way a plugin
// can fail in a session ends in one: CAL_ERROR from a slot or from open() ("plugin X:
// ..."), an exception caught by the C++ SDK (logged through the host table at error
// level), a plugin's own error log line.
class ErrorCountingSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  size_t count() {
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
  size_t count_ = 0;
  std::vector<std::string> first_;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// ChildProcess
// ---------------------------------------------------------------------------------------

ChildProcess::ChildProcess(uv_loop_t* loop) : loop_(loop) {
  timer_ = new uv_timer_t;
  uv_timer_init(loop_, timer_);
  timer_->data = this;
}

ChildProcess::~ChildProcess() { close(); }

void ChildProcess::close() {
  kill_and_forget();
  if (timer_) {
    uv_timer_stop(timer_);
    timer_->data = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(timer_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    timer_ = nullptr;
  }
}

void ChildProcess::kill_and_forget() {
  if (pid_ <= 0) return;
  ::kill(static_cast<pid_t>(pid_), SIGKILL);
  int st = 0;
  while (::waitpid(static_cast<pid_t>(pid_), &st, 0) < 0 && errno == EINTR) {
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  pid_ = 0;
  done_ = nullptr;
  if (timer_) uv_timer_stop(timer_);
}

void ChildProcess::start(std::function<int(int fd)> body, double timeout_seconds,
                         std::function<void(ChildOutcome)> done) {
  if (pid_ > 0 || !timer_) {
    ChildOutcome o;
    o.how = ChildOutcome::How::ForkFailed;
    o.error = pid_ > 0 ? "a trial is already running" : "the loop is stopping";
    done(std::move(o));
    return;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    ChildOutcome o;
    o.how = ChildOutcome::How::ForkFailed;
    o.error = fmt::format("pipe: {}", std::strerror(errno));
    done(std::move(o));
    return;
  }
  // Whatever sits in stdio buffers would be written twice (by both processes) otherwise.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    ChildOutcome o;
    o.how = ChildOutcome::How::ForkFailed;
    o.error = fmt::format("fork: {}", std::strerror(err));
    done(std::move(o));
    return;
  }
  if (pid == 0) {
    // The child. Die with the parent; take no terminal signals meant for the scheduler (a
    // Ctrl-C would otherwise read as a crash of the trial); default signal handling (the
    // parent's libuv handlers write to the parent's loop).
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(5);
    ::setpgid(0, 0);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2})
      ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int code = 4;
    try {
      code = body(fds[1]);
    } catch (...) {
      code = 4;
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  pid_ = pid;
  fd_ = fds[0];
  timeout_ = timeout_seconds;
  started_ = now_seconds();
  killed_ = false;
  output_.clear();
  done_ = std::move(done);
  // 5 ms: short against a 100 ms period, and a waitpid(WNOHANG) costs nothing.
  uv_timer_start(timer_, on_poll, 5, 5);
}

void ChildProcess::on_poll(uv_timer_t* t) {
  if (auto* self = static_cast<ChildProcess*>(t->data)) self->poll();
}

void ChildProcess::drain() {
  if (fd_ < 0) return;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      // A child that floods the pipe is cut off at 1 MiB; the rest is read and dropped so
      // that it never blocks on a full pipe.
      if (output_.size() < (1u << 20)) output_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN (nothing now) or 0 (closed)
  }
}

void ChildProcess::poll() {
  if (pid_ <= 0) return;
  drain();
  int st = 0;
  pid_t r = ::waitpid(static_cast<pid_t>(pid_), &st, WNOHANG);
  if (r == static_cast<pid_t>(pid_)) {
    drain();
    if (killed_)
      finish(ChildOutcome::How::TimedOut, 0);
    else if (WIFSIGNALED(st))
      finish(ChildOutcome::How::Signaled, WTERMSIG(st));
    else
      finish(ChildOutcome::How::Exited, WEXITSTATUS(st));
    return;
  }
  if (!killed_ && now_seconds() - started_ > timeout_) {
    // Reaped by a later poll: a process in uninterruptible sleep takes a moment to go.
    ::kill(static_cast<pid_t>(pid_), SIGKILL);
    killed_ = true;
  }
}

void ChildProcess::finish(ChildOutcome::How how, int code) {
  uv_timer_stop(timer_);
  ChildOutcome o;
  o.how = how;
  o.code = code;
  o.output = std::move(output_);
  o.seconds = now_seconds() - started_;
  o.pid = pid_;
  ::close(fd_);
  fd_ = -1;
  pid_ = 0;
  auto done = std::move(done_);
  done_ = nullptr;
  output_.clear();
  if (done) done(std::move(o));
}

// ---------------------------------------------------------------------------------------
// The trial (child side)
// ---------------------------------------------------------------------------------------

std::map<std::string, FileStamp> plugin_files(const std::vector<fs::path>& dirs) {
  // The same enumeration as PluginCatalog::scan: *.so regular files (links followed), a
  // folder named twice scanned once.
  std::map<std::string, FileStamp> out;
  std::set<fs::path> scanned;
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    fs::path canon = fs::weakly_canonical(dir, ec);
    if (!scanned.insert(ec ? dir : canon).second) continue;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() != ".so") continue;
      std::error_code fec;
      if (!fs::is_regular_file(p, fec)) continue;
      FileStamp s;
      if (stat_stamp(p, s)) out[p.string()] = s;
    }
  }
  return out;
}

int canary_child(int fd, const SchedulerConfig& config, const std::string& config_hash,
                 const PluginCatalog& previous, const Cache& cache, double now,
                 bool try_unload) {
  auto sink = std::make_shared<ErrorCountingSink>();
  auto logger = std::make_shared<spdlog::logger>("canary", sink);
  logger->set_level(spdlog::level::info);
  spdlog::set_default_logger(logger);

  std::shared_ptr<const Policy> policy;
  std::unique_ptr<PluginCatalog> catalog;
  try {
    emit(fd, "stage", "loading plugins");
    catalog = std::make_unique<PluginCatalog>(PluginCatalog::scan(config.plugin_dirs, &previous));
    // What was loaded, so that the parent can check it later loads the same bytes.
    for (const auto& lib : catalog->plugins())
      write_all(fd, fmt::format("file {}\t{}\t{}\n", clean(lib->info().file.string()),
                                stamp_text(lib->info().stamp), lib->info().sha256));
    for (const auto& f : catalog->failures()) {
      FileStamp s;
      if (stat_stamp(f.file, s))
        write_all(fd, fmt::format("file {}\t{}\t-\n", clean(f.file.string()), stamp_text(s)));
    }
    emit(fd, "stage", "building the policy");
    policy = build_policy(config, *catalog, config_hash);
  } catch (const InputError& e) {
    emit(fd, "build-error", e.what());
    return 2;
  }

  // The session every front end runs (host/scheduler/run_session.hpp), each step reported
  // as a stage, so that a crash or a hang is reported with the step it happened in.
  SessionResult r;
  try {
    Runtime runtime;
    r = run_session(cache, policy, now, runtime, nullptr, [fd](std::string_view stage) {
      // "opening the session ..." reads "opening the trial session ..." in the report.
      std::string text(stage);
      if (size_t at = text.find("the session"); at != std::string::npos)
        text.replace(at, 11, "the trial session");
      emit(fd, "stage", text);
    });
  } catch (const std::exception& e) {
    emit(fd, "failure", fmt::format("the trial session threw: {}", e.what()));
    return 4;
  }
  write_all(fd, fmt::format("session {}\t{}\n", r.binds.size(), r.pending.size()));
  size_t errors = sink->count();
  for (const std::string& line : sink->first()) emit(fd, "error", line);
  write_all(fd, fmt::format("errors {}\n", errors));
  if (errors > 0) return 3;

  if (try_unload) {
    // The libraries this trial loaded are unloaded here as they would be when retired: a
    // plugin that cannot survive dlclose is found now, not when the host drops it. (Those
    // shared with the running policy stay: the inherited catalog still holds them.)
    emit(fd, "stage", "unloading");
    policy.reset();
    catalog.reset();
  }
  emit(fd, "stage", "done");
  return 0;
}

// ---------------------------------------------------------------------------------------
// The trial (parent side)
// ---------------------------------------------------------------------------------------

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* desc = strsignal(sig);
  return fmt::format("SIG{} ({})", abbrev ? abbrev : std::to_string(sig), desc ? desc : "?");
}

}  // namespace

TrialReport read_trial(const ChildOutcome& o, double timeout_seconds) {
  TrialReport rep;
  rep.seconds = o.seconds;
  std::vector<std::string> errors;
  std::string build_error, failure;
  size_t error_count = 0;
  std::istringstream in(o.output);
  for (std::string line; std::getline(in, line);) {
    size_t sp = line.find(' ');
    std::string kind = line.substr(0, sp);
    std::string text = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (kind == "stage") {
      rep.stage = text;
    } else if (kind == "build-error") {
      build_error = text;
    } else if (kind == "failure") {
      failure = text;
    } else if (kind == "error") {
      errors.push_back(text);
    } else if (kind == "errors") {
      error_count = std::strtoull(text.c_str(), nullptr, 10);
    } else if (kind == "session") {
      auto f = split(text, '\t');
      if (f.size() == 2) {
        rep.binds = std::strtoull(f[0].c_str(), nullptr, 10);
        rep.pending = std::strtoull(f[1].c_str(), nullptr, 10);
      }
    } else if (kind == "file") {
      auto f = split(text, '\t');
      if (f.size() == 6) {
        TrialFile tf;
        tf.stamp.device = std::strtoull(f[1].c_str(), nullptr, 10);
        tf.stamp.inode = std::strtoull(f[2].c_str(), nullptr, 10);
        tf.stamp.size = std::strtoull(f[3].c_str(), nullptr, 10);
        tf.stamp.mtime_ns = std::strtoll(f[4].c_str(), nullptr, 10);
        tf.sha256 = f[5] == "-" ? "" : f[5];
        rep.files[f[0]] = tf;
      }
    }
  }

  using How = ChildOutcome::How;
  using R = TrialReport::Result;
  const std::string where = rep.stage.empty() ? "before it started" : "while " + rep.stage;
  switch (o.how) {
    case How::ForkFailed:
      rep.result = R::Failed;
      rep.error = "cannot start the trial: " + o.error;
      break;
    case How::TimedOut:
      rep.result = R::Hung;
      rep.error = fmt::format("the trial did not finish within canary_timeout {}s ({}); killed",
                              timeout_seconds, where);
      break;
    case How::Signaled:
      rep.result = R::Crashed;
      rep.error = fmt::format("the trial crashed with {} {}", signal_name(o.code), where);
      break;
    case How::Exited:
      if (o.code == 0) {
        rep.result = R::Ok;
      } else if (o.code == 2) {
        rep.result = R::BuildFailed;
        rep.error = build_error.empty() ? "the policy could not be built" : build_error;
      } else if (o.code == 3) {
        rep.result = R::PluginErrors;
        std::string first;
        for (const auto& e : errors) first += (first.empty() ? "" : "; ") + e;
        rep.error = fmt::format("the trial session logged {} plugin error(s): {}", error_count,
                                first.empty() ? "(no text)" : first);
      } else {
        rep.result = R::Failed;
        rep.error = failure.empty() ? fmt::format("the trial exited with code {} {}", o.code, where)
                                    : failure;
      }
      break;
  }
  return rep;
}

}  // namespace caldera
