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

SessionResult run_session(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          SessionTimings* timings = nullptr);

}  // namespace caldera
