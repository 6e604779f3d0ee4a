// The host loop on libuv: one tick (session) per period, either on the wall clock
// (realtime) or back to back (as fast as the CPU allows, for virtual time). SIGINT and
// SIGTERM stop the loop at a session boundary; SIGHUP calls the reload hook.
#pragma once

#include <functional>

namespace caldera {

class SchedulerLoop {
 public:
  // Returns the seconds until the next tick, or a negative number to stop.
  using Tick = std::function<double()>;

  // Runs until a tick says stop or a stop signal arrives. Returns 0 when a tick stopped it,
  // 128 + signal number when a signal did.
  int run(bool realtime, Tick tick, std::function<void()> on_sighup = {});
};

}  // namespace caldera
