// run_in_child (host/util/child_run.hpp): the way the host asks untrusted code a question
// (a plugin file's descriptor, a plugin's argument check, a config parse) without running
// it in its own process. Every way the child can end is told apart.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "host/util/child_run.hpp"
#include "host/util/fd_io.hpp"

namespace caldera {
namespace {

TEST(ChildRun, OutputAndExitStatus) {
  ChildRun r = run_in_child(
      [](int fd) {
        write_all(fd, "answer 42\n");
        return 3;
      },
      10);
  EXPECT_EQ(r.how, ChildRun::How::Exited);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.output, "answer 42\n");
  EXPECT_EQ(r.ending(), "exited with status 3");
}

TEST(ChildRun, ACrashIsTheChildsAlone) {
  ChildRun r = run_in_child(
      [](int fd) {
        write_all(fd, "before\n");
        ::raise(SIGSEGV);
        return 0;
      },
      10);
  EXPECT_EQ(r.how, ChildRun::How::Signaled);
  EXPECT_EQ(r.code, SIGSEGV);
  EXPECT_EQ(r.output, "before\n");
  EXPECT_EQ(r.ending(), "SIGSEGV");
}

TEST(ChildRun, ExitAndExceptionsDoNotReturnIntoTheCaller) {
  ChildRun r = run_in_child([](int) -> int { std::exit(5); }, 10);
  EXPECT_EQ(r.how, ChildRun::How::Exited);
  // 5, or LeakSanitizer's 23 under scripts/test --sanitize (exit() runs its leak check).
  EXPECT_TRUE(r.code == 5 || r.code == 23) << r.code;
  EXPECT_EQ(r.output, "");
  r = run_in_child([](int) -> int { throw std::runtime_error("boom"); }, 10);
  EXPECT_EQ(r.how, ChildRun::How::Exited);
  EXPECT_EQ(r.code, 70);
}

TEST(ChildRun, AHangIsKilledAtTheTimeLimit) {
  ChildRun r = run_in_child(
      [](int) {
        for (;;) ::pause();
        return 0;
      },
      0.3);
  EXPECT_EQ(r.how, ChildRun::How::TimedOut);
  // One that closes its pipe and goes on running is waited for to the limit too.
  r = run_in_child(
      [](int fd) {
        ::close(fd);
        for (;;) ::pause();
        return 0;
      },
      0.3);
  EXPECT_EQ(r.how, ChildRun::How::TimedOut);
}

TEST(ChildRun, TooMuchOutputIsCut) {
  ChildRun r = run_in_child(
      [](int fd) {
        const std::string chunk(4096, 'x');
        for (;;)
          if (!write_all(fd, chunk)) return 1;
        return 0;
      },
      10, 64 * 1024);
  EXPECT_EQ(r.how, ChildRun::How::TooMuchOutput);
  EXPECT_LE(r.output.size(), 64u * 1024);
}

}  // namespace
}  // namespace caldera
