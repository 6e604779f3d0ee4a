// The embedded cluster's workload file: jobs that arrive over (virtual) time.
//
//   evicted_pods = "pending"    # what an evicted pod becomes: "pending" (default: it waits
//                               # to be scheduled again, as the pods of a Volcano Job,
//                               # which its controller recreates) or "failed" (it fails and
//                               # is not run again, as a bare pod; its job ends once every
//                               # pod has ended, Completed or Failed as Volcano's job
//                               # controller decides: docs/RESULTS.md, "Evicted pods")
//   [[jobs]]
//   name = "train-a"            # the PodGroup's name; pods are NAME-ROLE-INDEX
//   namespace = "team-a"        # default "default"
//   queue = "research"          # default "default"
//   arrival = 12                # seconds on the simulated clock (required)
//   min_member = 4              # default: every task of the job
//   priority_class = "high"     # optional
//   preemptable = true          # marks the pods volcano.sh/preemptable (default false)
//   [[jobs.tasks]]
//   role = "worker"             # volcano.sh/task-spec; default "task"
//   replicas = 4                # default 1
//   min = 4                     # minTaskMember of this role (optional)
//   requests = { cpu = "2", memory = "4Gi", "nvidia.com/gpu" = 1 }
//   duration = 30               # run time in seconds once running (required)
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
  std::string object;    // its [[jobs.tasks]] in errors: "jobs[0] (default/a).tasks[1] (w)"
};

struct WorkloadJob {
  PodGroupSpec podgroup;  // created = arrival
  double arrival = 0;
  std::vector<WorkloadTask> tasks;
  // Where the job is, for the errors that need the cluster (SimCluster): its [[jobs]] in
  // errors ("jobs[1] (default/b)") and its queue and priority_class values (line 0 when
  // not written).
  std::string object;
  SourceRef queue_src;
  SourceRef priority_class_src;
};

struct Workload {
  std::vector<WorkloadJob> jobs;  // sorted by arrival, then name
  bool evicted_pods_fail = false;  // evicted_pods = "failed"
};

// Reads a workload file through host/toml/. Every bad value is an InputError naming file,
// line, column, the object path of the value ("jobs[0] (team-a/train-a).tasks[1]
// (worker).replicas") and what was expected, in the format host/toml/reader.hpp
// documents: unknown keys, a missing name, arrival or duration, values of the wrong type,
// an evicted_pods other than "pending" or "failed", negative, infinite or NaN numbers,
// counts (replicas, min, min_member) that are not whole or out of range, bad quantities,
// bad tolerations, names with '/' or spaces, a role twice in one job, duplicate job names.
// Queues and priority classes are checked against the cluster by SimCluster. Nothing
// missing silently becomes zero; what may be left out has the default written above.
Workload load_workload(const std::filesystem::path& file);

}  // namespace caldera
