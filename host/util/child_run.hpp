// Running a piece of code in a forked child and reading what it writes, synchronously.
//
// For the few moments the host needs an answer from plugin code outside a session: what a
// plugin file declares (its descriptor) and whether a plugin accepts its arguments. That
// code is untrusted; run here it can crash, hang or exit, and only the child goes. The
// caller's process never loads it (docs/ISOLATION.md).
#pragma once

#include <functional>
#include <string>

namespace caldera {

struct ChildRun {
  enum class How { Exited, Signaled, TimedOut, ForkFailed, TooMuchOutput };
  How how = How::Exited;
  int code = 0;        // Exited: exit status; Signaled: the signal
  std::string output;  // all the child wrote to its pipe (up to the cap)
  std::string error;   // ForkFailed: why
  // "exited with status 3", "SIGSEGV", "did not finish within 10s", ...
  std::string ending() const;
};

// Forks; the child runs body(fd) with fd the write end of a pipe and _exits with its
// return value (an exception escaping body exits 70; atexit handlers never run in the
// child). The parent reads the pipe until the child closes it, killing the child (SIGKILL)
// once timeout_seconds have passed or more than max_output bytes came, and reaps it.
ChildRun run_in_child(const std::function<int(int fd)>& body, double timeout_seconds,
                      size_t max_output = 16u << 20);

// "SIGSEGV", or "signal 77" for one without an abbreviation.
std::string signal_name(int sig);

}  // namespace caldera
