// Shared by the unit tests that run sessions: one session with a Runtime of its own, as a
// front end runs it (host/scheduler/run_session.hpp).
#pragma once

#include <memory>

#include "host/scheduler/run_session.hpp"

namespace caldera::testing {

inline SessionResult run_one_session(const Cache& cache, std::shared_ptr<const Policy> policy,
                                     double now) {
  Runtime runtime;
  return run_session(cache, std::move(policy), now, runtime);
}

}  // namespace caldera::testing
