// One scheduling period: open a session on the cache with a policy, run the policy's
// actions in order, close. Every front end (the run loop, scenario runs, replay,
// benchmarks) schedules through this one function.
#pragma once

#include <memory>

#include "host/cache/cache.hpp"
#include "host/plugins/plugin_set.hpp"
#include "host/session/session.hpp"

namespace caldera {

struct SessionTimings {
  double open_seconds = 0;
  std::vector<std::pair<std::string, double>> action_seconds;  // in run order
  double close_seconds = 0;
};

// One session on its own: no plugin state from earlier sessions (tests, benchmarks).
SessionResult run_session(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          SessionTimings* timings = nullptr);

// One session of a sequence: `states` are the plugin states the previous session left
// (caldera/plugin.h, state_get / state_put). The result's plugin_states are the states for
// the next session; the caller keeps them (states = std::move(r.plugin_states)) when it
// accepts the session's results, and only then (see PluginStates in session.hpp).
SessionResult run_session(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          const PluginStates& states, SessionTimings* timings = nullptr);

}  // namespace caldera
