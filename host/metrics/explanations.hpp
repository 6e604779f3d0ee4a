// What `caldera explain NAMESPACE/POD` asks a running scheduler (GET /debug/explain?pod=...
// on the metrics address): what the last session that decided about a pod decided, and why.
// Kept by the scheduling thread after each applied session, read by the HTTP threads; a
// pod's entry stays while the pod is in the cache (at most kMaxPods entries, the oldest
// decisions go first), so a pod bound minutes ago is still explained.
//
// Per pod: bound (to which node), pipelined, or left
// pending with its reason (Volcano's fit error, as the pod's condition says) and its job's
// reasons (the plugins' job-level reasons); and, for a pod the session scored nodes for, the best nodes of its last
// scoring with each plugin's score (SessionResult::top_scores, kept when the runtime's
// explain_top is set).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "host/session/session.hpp"

namespace caldera {
class Cache;
}

namespace caldera::metrics {

class Explanations {
 public:
  // The nodes kept per scored task (Runtime::set_explain_top).
  static constexpr size_t kTopNodes = 3;
  // Entries kept at most (about 0.5 KB each with three nodes' scores).
  static constexpr size_t kMaxPods = 50000;

  // After the session `r` was applied to `cache` at `now` (seconds on the pods' clock).
  void record(const SessionResult& r, const Cache& cache, double now);

  // The answer for pod "namespace/name": an HTTP status (200, or 404 when the last session
  // decided nothing about it) and a JSON body.
  std::pair<int, std::string> query(const std::string& pod) const;

 private:
  struct Pod {
    std::string state;  // "bound", "pipelined", "pending", "scored"
    std::string node;   // bound or pipelined
    std::string reason;  // pending
    std::string job;     // its PodGroup, "namespace/name" ("" for a pod without one)
    std::string job_reason;  // pending: the job's reasons, as the session joined them
    std::vector<NodeScore> top;
    uint64_t session = 0;  // the session that decided this
    double time = 0;
    uint64_t scored_in = 0;  // the session `top` comes from (an earlier one for a pipelined
                             // pod bound later without scoring)
  };
  mutable std::mutex mu_;
  uint64_t session_ = 0;
  double time_ = 0;
  std::map<std::string, Pod> pods_;
};

}  // namespace caldera::metrics
