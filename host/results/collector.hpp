// Collects a run's results (host/results/run_results.hpp) from the cache after every
// session: per-session counts from the session's decisions, per-queue allocated and
// per-node used amounts from the pods that hold a node. A pod's GPU cards are its whole
// cards (nvidia.com/gpu or volcano.sh/gpu-number), else its share of one card
// (caldera.sh/gpu-milli / 1000). One pass over the pods per
// session, so collecting costs about what the session's own snapshot does.
#pragma once

#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/results/run_results.hpp"
#include "host/session/session.hpp"

namespace caldera {

class ResultsCollector {
 public:
  // The cluster as the run starts: its nodes fix the measured resources (every
  // allocatable resource but pods) and their totals; its queues get a series each.
  explicit ResultsCollector(const Cache& cluster);

  // After `r` was applied to `cache` at `now`.
  void record_session(double now, const SessionResult& r, const Cache& cache);

  // The jobs as the backend recorded them (arrival, started, finished), and how many the
  // workload holds in all; kept sorted by arrival, then key.
  void set_jobs(std::vector<JobRecord> jobs, size_t total_jobs);

  RunResults& results() { return results_; }
  const RunResults& results() const { return results_; }

 private:
  QueueSeries& queue(const std::string& name);

  RunResults results_;
  // Lookups of the per-pod loop, by name: the nodes (fixed for the run) and, rebuilt each
  // session from the PodGroups, namespace -> PodGroup name -> its queue's series.
  std::unordered_map<std::string_view, NodeSeries*> node_index_;
  std::unordered_map<std::string, std::unordered_map<std::string, QueueSeries*>> podgroup_queue_;
};

// GPU cards a node has: allocatable nvidia.com/gpu, else volcano.sh/gpu-number.
double gpu_cards_allocatable(const NodeSpec& node);

}  // namespace caldera
