// The embedded cluster ("sim" backend): a cache fed from files and a virtual clock. Jobs
// arrive from the workload, bound pods start at once and run for their duration, finished
// jobs leave, evicted pods return to Pending (or fail, as configured) -- what the demo, the
// tests and the benchmarks schedule against.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "host/backend/sim/workload.hpp"
#include "host/cache/cache.hpp"
#include "host/session/session.hpp"

namespace caldera {

struct SimJobRecord {
  std::string key;
  std::string queue;
  double arrival = 0;
  double started = -1;   // first time min_member pods were running
  double finished = -1;  // all pods succeeded
  int pods = 0;
  int min_member = 0;
};

struct SimCounts {
  size_t sessions = 0;
  size_t binds = 0;
  size_t evictions = 0;
  size_t unschedulable = 0;  // pending tasks summed over sessions
};

class SimCluster {
 public:
  // Reads the cluster file (scenario keys: priority_classes, queues, nodes, and optionally
  // podgroups and pods already present) and the workload. Throws InputError.
  SimCluster(const std::filesystem::path& cluster_file, const std::filesystem::path& workload_file,
             bool evicted_pods_fail = false);

  // Moves the clock to `now`: pods whose run time is over succeed, jobs that are done
  // leave, jobs whose arrival time has come enter the cache as Pending PodGroups.
  void advance(double now);
  // Applies a session's decisions at `now`.
  void apply(const SessionResult& r, double now);

  const Cache& cache() const { return cache_; }
  bool all_arrived() const { return next_arrival_ >= workload_.jobs.size(); }
  // Nothing left to do: every job arrived and finished.
  bool finished() const { return all_arrived() && live_jobs() == 0; }
  size_t live_jobs() const;
  size_t running_pods() const { return end_time_.size(); }
  // The next time something happens by itself (an arrival or a pod finishing); -1 if none.
  double next_event() const;

  const SimCounts& counts() const { return counts_; }
  const std::map<std::string, SimJobRecord>& jobs() const { return records_; }

 private:
  Cache cache_;
  Workload workload_;
  size_t next_arrival_ = 0;
  bool evicted_fail_ = false;
  std::map<std::string, double> end_time_;   // running pod -> when it finishes
  std::map<std::string, double> duration_;   // pod -> run time
  std::map<std::string, SimJobRecord> records_;
  SimCounts counts_;
};

}  // namespace caldera
