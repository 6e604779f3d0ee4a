// run_in_child (child_run.hpp).
#include "host/util/child_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include <fmt/format.h>

namespace caldera {

namespace {
double monotonic() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}
}  // namespace

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

std::string ChildRun::ending() const {
  switch (how) {
    case How::Exited: return fmt::format("exited with status {}", code);
    case How::Signaled: return signal_name(code);
    case How::TimedOut: return "did not finish in time; killed";
    case How::ForkFailed: return "could not be started: " + error;
    case How::TooMuchOutput: return "wrote more than the host reads; killed";
  }
  return "?";
}

ChildRun run_in_child(const std::function<int(int fd)>& body, double timeout_seconds,
                      size_t max_output) {
  ChildRun r;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    r.how = ChildRun::How::ForkFailed;
    r.error = fmt::format("pipe: {}", std::strerror(errno));
    return r;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.how = ChildRun::How::ForkFailed;
    r.error = fmt::format("fork: {}", std::strerror(errno));
    ::close(fds[0]);
    ::close(fds[1]);
    return r;
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The parent's handlers (libuv's write to the parent's own signal pipe) are not the
    // child's: a signal meant for the scheduler must not be heard twice.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2})
      ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int code = 70;
    try {
      code = body(fds[1]);
    } catch (...) {
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  const double deadline = monotonic() + timeout_seconds;
  bool killed = false;
  char buf[65536];
  for (;;) {
    const double left = deadline - monotonic();
    if (left <= 0) {
      r.how = ChildRun::How::TimedOut;
      killed = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::ceil(std::min(left, 1.0) * 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) break;  // the child closed its end (exited, or closed it)
    if (r.output.size() + static_cast<size_t>(got) > max_output) {
      r.how = ChildRun::How::TooMuchOutput;
      killed = true;
      break;
    }
    r.output.append(buf, static_cast<size_t>(got));
  }
  ::close(fds[0]);
  if (killed) ::kill(pid, SIGKILL);
  int status = 0;
  pid_t w;
  // A child that closed its pipe but goes on running is waited for until the deadline.
  while ((w = ::waitpid(pid, &status, killed ? 0 : WNOHANG)) == 0) {
    if (monotonic() > deadline) {
      ::kill(pid, SIGKILL);
      killed = true;
      r.how = ChildRun::How::TimedOut;
      continue;
    }
    ::usleep(1000);
  }
  if (w < 0 && errno == EINTR) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (killed) return r;
  if (WIFSIGNALED(status)) {
    r.how = ChildRun::How::Signaled;
    r.code = WTERMSIG(status);
  } else {
    r.how = ChildRun::How::Exited;
    r.code = WEXITSTATUS(status);
  }
  return r;
}

}  // namespace caldera
