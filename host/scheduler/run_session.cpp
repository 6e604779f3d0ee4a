#include "host/scheduler/run_session.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "actions/action.hpp"

namespace caldera {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

SessionResult run(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                  const PluginStates* states, SessionTimings* timings) {
  auto t0 = std::chrono::steady_clock::now();
  auto ssn = Session::open(cache, policy, now, states);
  if (timings) timings->open_seconds = seconds_since(t0);
  for (const std::string& name : policy->config.actions) {
    const ActionInfo* info = find_action(name);
    if (!info) {  // build_policy refuses unknown actions; this is a guard, not a path
      spdlog::error("unknown action '{}' skipped", name);
      continue;
    }
    auto ta = std::chrono::steady_clock::now();
    info->make()->execute(*ssn);
    if (timings) timings->action_seconds.emplace_back(name, seconds_since(ta));
  }
  auto tc = std::chrono::steady_clock::now();
  SessionResult r = ssn->close();
  if (timings) timings->close_seconds = seconds_since(tc);
  return r;
}

}  // namespace

SessionResult run_session(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          SessionTimings* timings) {
  return run(cache, std::move(policy), now, nullptr, timings);
}

SessionResult run_session(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          const PluginStates& states, SessionTimings* timings) {
  return run(cache, std::move(policy), now, &states, timings);
}

}  // namespace caldera
