// The scheduler's log at the default level: one line when a job's state changes (tasks
// bound or evicted, its PodGroup's phase, the reason it waits for), not one per session.
// A job that waits logs why when it starts waiting; after that, a new kind of reason
// (numbers left out: "4 Insufficient cpu" and "6 Insufficient cpu" are the same wait) is
// logged at most once per kRelogSeconds of that job, since reasons flap as the cluster
// moves (a queue over its share one session and not the next). The reason is the job's
// own (gang, queue) when it has one, else its first task's. With -v 3, each session's own
// line (binds, evictions, pending) and every waiting job's reason in every session.
//
// Both front ends log through it: the embedded cluster (`caldera run`) and the Kubernetes
// backend.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "host/session/session.hpp"

namespace caldera {

class Cache;

class JobLog {
 public:
  // One committed session. `head` starts each line ("t=  12s" on the embedded cluster's
  // clock; "" on a real cluster, where the log's timestamp says when); `cache` is the
  // cache the session ran on (before its decisions: it still holds every job it names).
  // `now` is the session's clock (seconds).
  void session(uint64_t index, const std::string& head, const SessionResult& r,
               const Cache& cache, double now, double seconds);
  static constexpr double kRelogSeconds = 300;

  // The reason with its numbers left out: what tells one kind of wait from another.
  static std::string kind_of(const std::string& reason);

 private:
  struct Seen {
    JobPhase phase = JobPhase::Pending;
    std::string wait_kind;  // "" while it does not wait
    bool bound = false;     // its binds were logged
    double wait_logged = -1;  // when its last wait line was written (the session clock)
  };
  std::unordered_map<std::string, Seen> jobs_;
};

}  // namespace caldera
