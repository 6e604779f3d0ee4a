#include "host/scheduler/run_session.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "actions/action.hpp"
#include "host/session/breadcrumb.hpp"

namespace caldera {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

SessionResult run_session(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          Runtime& runtime, SessionTimings* timings,
                          const SessionStageFn& on_stage) {
  auto stage = [&](std::string_view what) {
    if (on_stage) on_stage(what);
  };
  auto t0 = std::chrono::steady_clock::now();
  stage("opening the session (plugins' open)");
  crumb_stage(SessionStage::Opening);
  auto ssn = Session::open(cache, policy, now, runtime);
  if (timings) timings->open_seconds = seconds_since(t0);
  int32_t action_index = -1;
  for (const std::string& name : policy->config.actions) {
    ++action_index;
    const ActionInfo* info = find_action(name);
    if (!info) {  // build_policy refuses unknown actions; this is a guard, not a path
      spdlog::error("unknown action '{}' skipped", name);
      continue;
    }
    stage("running action " + name + " in the session");
    crumb_stage(SessionStage::Action, action_index);
    auto ta = std::chrono::steady_clock::now();
    ssn->set_action(name);
    info->make()->execute(*ssn);
    if (timings) timings->action_seconds.emplace_back(name, seconds_since(ta));
  }
  stage("closing the session");
  crumb_stage(SessionStage::Closing);
  auto tc = std::chrono::steady_clock::now();
  SessionResult r = ssn->close();
  if (timings) timings->close_seconds = seconds_since(tc);
  return r;
}

}  // namespace caldera
