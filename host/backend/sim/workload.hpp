// The embedded cluster's workload file: jobs that arrive over (virtual) time.
//
//   [[jobs]]
//   name = "train-a"            # the PodGroup's name; pods are NAME-ROLE-INDEX
//   namespace = "team-a"        # default "default"
//   queue = "research"          # default "default"
//   arrival = 12                # seconds on the simulated clock
//   min_member = 4              # default: every task of the job
//   priority_class = "high"     # optional
//   preemptable = true          # marks the pods volcano.sh/preemptable (default false)
//   [[jobs.tasks]]
//   role = "worker"             # volcano.sh/task-spec; default "task"
//   replicas = 4                # default 1
//   min = 4                     # minTaskMember of this role (optional)
//   requests = { cpu = "2", memory = "4Gi", "nvidia.com/gpu" = 1 }
//   duration = 30               # run time in seconds once running
//   node_selector = { pool = "gpu" }   # optional, likewise tolerations, labels
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "host/model/objects.hpp"

namespace caldera {

struct WorkloadTask {
  PodSpec pod;           // ns, name, podgroup, requests, labels, selector, tolerations
  double duration = 0;   // seconds of run time
};

struct WorkloadJob {
  PodGroupSpec podgroup;  // created = arrival
  double arrival = 0;
  std::vector<WorkloadTask> tasks;
};

struct Workload {
  std::vector<WorkloadJob> jobs;  // sorted by arrival, then name
};

// Reads a workload file. Unknown keys, bad quantities, negative durations or requests,
// duplicate job names: InputError naming file, line and object.
Workload load_workload(const std::filesystem::path& file);

}  // namespace caldera
