// When a job arrived, started and finished: what a backend that knows arrivals (the
// embedded cluster) records for every job, and what the results report per job.
#pragma once

#include <string>
#include <vector>

namespace caldera {

// One of a job's pods evicted: when, which, by which action (Volcano's eviction reason:
// "preempt", "reclaim", "shuffle").
struct JobEviction {
  double time = 0;
  std::string pod;
  std::string reason;
};

struct JobRecord {
  std::string key;    // "namespace/name" of the PodGroup
  std::string queue;
  int pods = 0;
  int min_member = 0;
  double arrival = 0;
  // The first time at least max(1, min_member) of its pods were running at once: the gang
  // became ready. Stays the first such time when pods are evicted later. -1: never.
  double started = -1;
  // The job ended (every pod succeeded or failed) and left the cluster: `finished` when at
  // least min_member of its pods succeeded, `failed` otherwise (as Volcano's job
  // controller decides Completed or Failed, pkg/controllers/job/state/running.go). Pods
  // fail only when evicted with the workload's evicted_pods = "failed". -1: not (yet).
  double finished = -1;
  double failed = -1;
  std::vector<JobEviction> evictions;  // in the order they happened

  bool has_started() const { return started >= 0; }
  bool has_finished() const { return finished >= 0; }
  bool has_failed() const { return failed >= 0; }
  bool has_ended() const { return has_finished() || has_failed(); }
  double wait() const { return started - arrival; }        // when has_started()
  double completion() const { return finished - arrival; }  // when has_finished()
  double run_time() const { return finished - started; }   // when has_finished()
};

}  // namespace caldera
