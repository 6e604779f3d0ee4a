// The host loop on libuv: one tick (session) per period, either on the wall clock
// (realtime) or back to back (as fast as the CPU allows, for virtual time). SIGINT and
// SIGTERM stop the loop at a session boundary; SIGHUP calls the reload hook. Backends and
// file watchers register their own handles on loop() before run(): the loop owns time and
// I/O for all of them.
#pragma once

#include <uv.h>

#include <functional>
#include <memory>

namespace caldera {

class SchedulerLoop {
 public:
  // Returns the seconds until the next tick, or a negative number to stop.
  using Tick = std::function<double()>;
  // A tick whose session ends later (in a session worker): it calls `next` once, with the
  // seconds until the next tick or a negative number to stop, from any loop callback.
  using AsyncTick = std::function<void(std::function<void(double)> next)>;

  SchedulerLoop();
  ~SchedulerLoop();
  SchedulerLoop(const SchedulerLoop&) = delete;
  SchedulerLoop& operator=(const SchedulerLoop&) = delete;

  uv_loop_t* loop() { return &loop_; }

  // Runs until a tick says stop or a stop signal arrives. Returns 0 when a tick stopped it,
  // 128 + signal number when a signal did. Handles other parts registered on loop() are
  // closed by their owners; run() returns once they are (it runs the loop until empty).
  // `on_stop` (optional) is called once when stopping, so owners can close their handles.
  int run(bool realtime, Tick tick, std::function<void()> on_sighup = {},
          std::function<void()> on_stop = {});
  // The same with an asynchronous tick. While a tick's session runs the loop goes on
  // serving signals, file watches and backends; a stop signal then calls on_stop (which
  // kills the session's worker) and returns within the loop's next turn.
  int run_async(bool realtime, AsyncTick tick, std::function<void()> on_sighup = {},
                std::function<void()> on_stop = {});

 private:
  uv_loop_t loop_;
};

}  // namespace caldera
