// The results of a run on the embedded cluster, as collected after every session
// (host/results/collector.hpp) and written as JSON, CSV and an HTML report
// (host/results/writers.hpp). Definitions, which the files and docs/RESULTS.md repeat:
//
//   sample       taken after each session's decisions are applied, at the session's time;
//                it holds until the next session (the embedded cluster changes only then)
//   allocated    requests of the pods that hold a node (bound or running, not yet finished)
//   queue share  per resource: what the queue's pods hold / the cluster's allocatable total;
//                the dominant share is the largest of these (DRF's dominant share)
//   utilisation  per node and resource: what the pods on it hold / its allocatable
//   gpu          GPU cards in use, whole cards (nvidia.com/gpu, volcano.sh/gpu-number) plus
//                shares of one card (caldera.sh/gpu-milli / 1000), over the node's cards
//   wait         started - arrival (started: the gang became ready, see JobRecord)
//   completion   finished - arrival (jobs that failed have none)
//   unschedulable attempts
//                tasks a session left pending, summed over sessions (a task pending for 3
//                sessions counts 3)
//
// Amounts are in Caldera units (host/model/objects.hpp: cpu millicores, memory bytes,
// other resources milli-units); the writers turn them into user units (cores, bytes,
// cards).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "host/backend/sim/job_record.hpp"

namespace caldera {

// The pseudo-resource of GPU cards (whole and shared) in the utilisation series.
inline constexpr const char* kGpuCards = "gpu";

struct SessionRecord {
  size_t session = 0;  // 1, 2, ...
  double time = 0;     // seconds on the (virtual) clock
  size_t binds = 0;
  size_t evictions = 0;
  size_t pipelined = 0;
  size_t unschedulable = 0;  // tasks left pending this session
  size_t running_pods = 0;   // pods holding a node after the session
  size_t pending_pods = 0;   // pods of the cluster waiting for a node after the session
};

// One series per queue: allocated[s * R + r] for session s and resource r of
// RunResults::resources; deserved likewise, as the fair-share plugin (proportion,
// capacity) worked it out in that session (host API queue_set_fair_share), 0 in a session
// that reported none for the queue (a queue without jobs deserves nothing).
struct QueueSeries {
  std::vector<double> allocated;
  std::vector<double> deserved;
};

// One node: its allocatable and what its pods held after every session.
struct NodeSeries {
  std::vector<double> allocatable;  // [r]
  double gpu_cards = 0;             // cards (0: no GPU)
  std::vector<double> used;         // [s * R + r]
  std::vector<double> gpu_used;     // [s], cards
};

struct RunResults {
  // What ran.
  std::string config, cluster, workload;
  double period = 0;
  double end_time = 0;  // the clock when the run stopped
  size_t total_jobs = 0;  // jobs in the workload, arrived or not

  std::vector<std::string> resources;  // measured resources, sorted (never "pods")
  // The cluster's allocatable per resource and its GPU cards: the nodes' sums, fixed for
  // the run (the embedded cluster's nodes do not change).
  std::vector<double> allocatable_total;
  double gpu_cards_total = 0;
  std::vector<SessionRecord> sessions;
  std::map<std::string, QueueSeries> queues;
  // Some session's fair-share plugin reported deserved resources (else the deserved
  // series are all 0 and not shown).
  bool deserved_reported = false;
  std::map<std::string, NodeSeries> nodes;
  std::vector<JobRecord> jobs;  // by arrival, then key

  size_t resource_count() const { return resources.size(); }
  double cluster_allocatable(size_t r) const { return allocatable_total[r]; }
  double cluster_gpu_cards() const { return gpu_cards_total; }
  // Sums over the nodes after session s.
  double cluster_used(size_t s, size_t r) const;
  double cluster_gpu_used(size_t s) const;

  double queue_allocated(const QueueSeries& q, size_t s, size_t r) const {
    return q.allocated[s * resources.size() + r];
  }
  // 0 when the cluster has none of the resource.
  double queue_share(const QueueSeries& q, size_t s, size_t r) const;
  // The largest share and its resource index (-1 when the queue holds nothing).
  double dominant_share(const QueueSeries& q, size_t s, int* resource = nullptr) const;
  // The same of what the queue deserved in session s: its largest deserved share.
  double deserved_share(const QueueSeries& q, size_t s) const;
};

// Wait-time percentiles of the jobs of one queue that started (nearest rank: the smallest
// wait at least p% of the waits are at or below).
struct WaitPercentiles {
  size_t started = 0;
  double p50 = 0, p95 = 0, p99 = 0, max = 0;
};
// By queue, every queue with a job in the run (started or not).
std::map<std::string, WaitPercentiles> wait_percentiles(const RunResults& r);

// The run's totals: what the closing log lines print and what the files report.
struct Summary {
  size_t sessions = 0;
  size_t binds = 0;
  size_t evictions = 0;
  size_t pipelined = 0;
  size_t unschedulable = 0;
  size_t jobs_total = 0;     // in the workload
  size_t jobs_arrived = 0;
  size_t jobs_started = 0;
  size_t jobs_finished = 0;
  size_t jobs_failed = 0;    // ended with fewer than min_member pods succeeded
  // Over the jobs that started (wait) or finished (completion); 0 when none did.
  double mean_wait = 0, max_wait = 0;
  double mean_completion = 0, max_completion = 0;
  double end_time = 0;
};

Summary summarize(const RunResults& r);

// A resource's amount in the units a user reads: cpu in cores, memory in bytes, every
// other resource in its own unit (nvidia.com/gpu in cards); `gpu` cards stay cards.
double user_amount(const std::string& resource, double caldera_amount);
// "cores", "bytes", "cards" or "" (the resource's own unit).
const char* user_unit(const std::string& resource);

// A number as the files print it: times and fractions to 6 decimals (the clock adds up
// periods, so 0.1 + 0.2 prints 0.3), large amounts (bytes) to a whole number.
double tidy(double v);

}  // namespace caldera
