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

namespace {

// The actions of the session's policy in order, then close.
SessionResult run_actions(Session& ssn, SessionTimings* timings, const SessionStageFn& stage) {
  int32_t action_index = -1;
  for (const std::string& name : ssn.policy().config.actions) {
    ++action_index;
    const ActionInfo* info = find_action(name);
    if (!info) {  // build_policy refuses unknown actions; this is a guard, not a path
      spdlog::error("unknown action '{}' skipped", name);
      continue;
    }
    if (stage) stage("running action " + name + " in the session");
    crumb_stage(SessionStage::Action, action_index);
    auto ta = std::chrono::steady_clock::now();
    ssn.set_action(name);
    info->make()->execute(ssn);
    if (timings) timings->action_seconds.emplace_back(name, seconds_since(ta));
  }
  if (stage) stage("closing the session");
  crumb_stage(SessionStage::Closing);
  auto tc = std::chrono::steady_clock::now();
  SessionResult r = ssn.close();
  if (timings) timings->close_seconds = seconds_since(tc);
  return r;
}

}  // namespace

SessionResult run_session(const Cache& cache, std::shared_ptr<const Policy> policy, double now,
                          Runtime& runtime, SessionTimings* timings,
                          const SessionStageFn& on_stage) {
  auto t0 = std::chrono::steady_clock::now();
  if (on_stage) on_stage("opening the session (plugins' open)");
  crumb_stage(SessionStage::Opening);
  auto ssn = Session::open(cache, std::move(policy), now, runtime);
  if (timings) timings->open_seconds = seconds_since(t0);
  return run_actions(*ssn, timings, on_stage);
}

SessionResult run_session(SessionImage& image, const Cache& cache, double now, Runtime& runtime,
                          SessionTimings* timings) {
  auto t0 = std::chrono::steady_clock::now();
  crumb_stage(SessionStage::Opening);
  const bool in_fork = image.in_fork();
  auto ssn = image.open(cache, now, runtime);
  if (timings) timings->open_seconds = seconds_since(t0);
  SessionResult r = run_actions(*ssn, timings, {});
  // The process ends right after: freeing the session object by object would touch (and
  // copy on write) every page of the image it came from.
  if (in_fork) (void)ssn.release();
  return r;
}

}  // namespace caldera
