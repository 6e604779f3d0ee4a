// One scheduling period: open a session on the cache with a policy, run the policy's
// actions in order, close (Volcano's pkg/scheduler/scheduler.go runOnce). Every front end
// (caldera run, scenario runs, replay, the Kubernetes backend, the reload trial,
// benchmarks) runs its sessions through this one function and hands the result to
// commit_decisions (host/scheduler/commit.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/session/policy.hpp"
#include "host/session/runtime.hpp"
#include "host/session/session.hpp"
#include "host/session/session_image.hpp"

namespace caldera {

struct SessionTimings {
  double open_seconds = 0;
  std::vector<std::pair<std::string, double>> action_seconds;  // in run order
  double close_seconds = 0;

  // Open, every action and close.
  double total_seconds() const {
    double s = open_seconds + close_seconds;
    for (const auto& [_, a] : action_seconds) s += a;
    return s;
  }
};

// Told before each step ("opening the session (plugins' open)", "running action
// allocate in the session", "closing the session"), so that whoever watches a session
// (the reload trial) can say which step a crash or a hang happened in.
using SessionStageFn = std::function<void(std::string_view stage)>;

// The session reads the plugin states `runtime` carries (caldera/plugin.h, state_get /
// state_put); the result's plugin_states are the states for the next session, which the
// caller hands to runtime.carry() when it accepts the session's results, and only then.
SessionResult run_session(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          Runtime& runtime, SessionTimings* timings = nullptr,
                          const SessionStageFn& on_stage = {});
// The same on a kept snapshot (host/session/session_image.hpp), refreshed for `cache` and
// its policy: the session takes the image's objects. In a process forked after the refresh
// the session is left to the process's exit, not freed.
SessionResult run_session(SessionImage& image, const Cache& cache, double now, Runtime& runtime,
                          SessionTimings* timings = nullptr);


}  // namespace caldera
