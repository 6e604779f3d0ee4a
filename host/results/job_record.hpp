// When a job arrived, started and finished: what a backend that knows arrivals (the
// embedded cluster) records for every job, and what the results report per job.
#pragma once

#include <string>

namespace caldera {

struct JobRecord {
  std::string key;    // "namespace/name" of the PodGroup
  std::string queue;
  int pods = 0;
  int min_member = 0;
  double arrival = 0;
  // The first time at least max(1, min_member) of its pods were running at once: the gang
  // became ready. Stays the first such time when pods are evicted later. -1: never.
  double started = -1;
  double finished = -1;  // every pod succeeded and the job left the cluster; -1: not yet

  bool has_started() const { return started >= 0; }
  bool has_finished() const { return finished >= 0; }
  double wait() const { return started - arrival; }        // when has_started()
  double completion() const { return finished - arrival; }  // when has_finished()
  double run_time() const { return finished - started; }   // when has_finished()
};

}  // namespace caldera
