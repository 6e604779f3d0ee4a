// The two clocks, in seconds.
#pragma once

#include <chrono>

namespace caldera {

// The monotonic clock (CLOCK_MONOTONIC, as libuv's uv_hrtime): for durations and
// deadlines, which a change of the wall clock must not move.
inline double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The wall clock, seconds since the Unix epoch: for times written out (API objects, file
// names, the status).
inline double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace caldera
