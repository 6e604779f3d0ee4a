// The embedded cluster ("sim" backend): a cache fed from files and a virtual clock. Jobs
// arrive from the workload, bound pods start at once and run for their duration, finished
// jobs leave, evicted pods return to Pending (or fail, as the workload's evicted_pods says)
// -- what the demo, the tests and the benchmarks schedule against.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "host/backend/sim/workload.hpp"
#include "host/cache/cache.hpp"
#include "host/backend/sim/job_record.hpp"
#include "host/scheduler/backend.hpp"
#include "host/scheduler/commit.hpp"
#include "host/session/session.hpp"

namespace caldera {

// As a Backend (host/scheduler/backend.hpp) it is the cluster's kubelets and controllers:
// a bound pod runs at once (no kubelet delay), an evicted pod leaves its node and is
// Pending again, as its controller would recreate it, or Failed (the workload's
// evicted_pods); a job whose last pods failed ends.
class SimCluster : public Backend {
 public:
  // Reads the cluster file (scenario keys: priority_classes, queues, nodes, and optionally
  // podgroups and pods already present) and the workload. Throws InputError.
  SimCluster(const std::filesystem::path& cluster_file, const std::filesystem::path& workload_file);
  // A cluster in the state `cache` holds, with no workload: nothing arrives, and pods run
  // until the end (a scenario file's cluster).
  explicit SimCluster(Cache cache);

  // Moves the clock to `now`: pods whose run time is over succeed, jobs that ended leave,
  // jobs whose arrival time has come enter the cache as Pending PodGroups.
  void advance(double now);
  // Commits a session's decisions at `now` (host/scheduler/commit.hpp, with this cluster
  // as the backend). What the decisions were is counted by the results collector
  // (host/results/collector.hpp), which is fed the same SessionResult.
  CommitReport commit(const SessionResult& r, double now);

  // Backend: called by commit_decisions.
  void bind(const PodSpec& observed, const PodSpec& bound) override;
  bool bind_volumes(const PodSpec& pod, const std::vector<ClaimDecision>& decisions) override;
  void evict(const PodSpec& observed, const std::string& reason) override;
  void update_status(const SessionResult& r, double now) override;

  const Cache& cache() const { return cache_; }
  bool all_arrived() const { return next_arrival_ >= workload_.jobs.size(); }
  size_t total_jobs() const { return workload_.jobs.size(); }
  // Nothing left to do: every job arrived and ended (finished or failed).
  bool finished() const { return all_arrived() && live_jobs() == 0; }
  size_t live_jobs() const;
  size_t ended_jobs() const { return records_.size() - live_jobs(); }
  size_t running_pods() const { return end_time_.size(); }
  // The next time something happens by itself (an arrival or a pod finishing); -1 if none.
  double next_event() const;

  // Every job that has arrived: arrival, start (the gang became ready), finish or failure.
  const std::map<std::string, JobRecord>& jobs() const { return records_; }
  std::vector<JobRecord> job_records() const;

 private:
  // Ends the jobs among `keys` whose pods have all succeeded or failed (JobRecord says
  // which way) and removes them from the cache.
  void end_jobs(const std::set<std::string>& keys, double now);

  Cache cache_;
  Workload workload_;
  size_t next_arrival_ = 0;
  std::map<std::string, double> end_time_;   // running pod -> when it finishes
  std::map<std::string, double> duration_;   // pod -> run time
  std::map<std::string, JobRecord> records_;
  double now_ = 0;  // the clock: the last advance() or commit()
  std::set<std::string> failed_jobs_;  // jobs with a pod failed by eviction, this commit
};

}  // namespace caldera
