// Synthetic clusters and backlogs for the benchmark, generated from a seed and written
// straight into a caldera::Cache.
//
// Everything is drawn from one std::mt19937_64 with the benchmark's own integer / real
// helpers (not std::uniform_*_distribution, whose output differs between standard
// libraries), so a seed gives the same cluster everywhere.
//
// The cluster: three node shapes (16 cpu / 64Gi, 64 cpu / 256Gi, and 32 cpu / 256Gi with 8
// nvidia.com/gpu), three zones, GPU nodes tainted nvidia.com/gpu=present:NoSchedule and
// labelled accelerator=nvidia-a100, and a tenth of the cpu nodes dedicated to batch
// (label and NoSchedule taint dedicated=batch). Four queues weighted 1 to 4, three
// priority classes.
//
// The jobs: PodGroups of 1 to 64 pods (a master of its own size plus workers, the
// volcano.sh/task-spec roles), minMember the whole gang or half of it, minResources the
// sum of the first minMember pods as Volcano's job controller sets it. Kinds: plain cpu
// jobs, GPU jobs (selector accelerator and a toleration of the GPU taint), zone-pinned jobs
// (selector zone) and dedicated jobs (selector and toleration dedicated=batch).
#pragma once

#include <cstddef>
#include <cstdint>

#include "host/cache/cache.hpp"

namespace caldera::bench {

// What to generate for an allocation case.
struct BacklogShape {
  size_t nodes = 0;
  size_t pending_pods = 0;  // in Pending PodGroups, admitted by the enqueue action
  size_t running_pods = 0;  // Running pods placed up front (the steady state)
  uint64_t seed = 1;
  // Pending jobs carry Kubernetes constraints, a third each: required pod anti-affinity
  // on the hostname against the job's own pods (one per node per job), a DoNotSchedule
  // zone spread of the job's pods, preferred node affinity for a zone. One constraints
  // record per job, shared by its pods.
  bool constraints = false;
};

// What to generate for the preemption case: every node full of low-priority preemptable
// pods of one queue, and one high-priority Inqueue gang that can only run on victims' room.
struct PreemptShape {
  size_t nodes = 0;
  size_t gang = 64;  // pods of the high-priority gang (minMember = all of them)
  uint64_t seed = 1;
};

// What filling the cache produced and what it cost. Heap figures are mallinfo2 deltas
// around each kind of record (the generator allocates nothing that outlives a record, so
// the delta is what the cache keeps); RSS figures are VmRSS growth over the same windows,
// coarser (pages, and malloc keeps freed memory) but independent of malloc's bookkeeping.
struct FillStats {
  size_t nodes = 0;
  size_t queues = 0;
  size_t podgroups = 0;
  size_t pods = 0;
  size_t running_pods = 0;
  size_t pending_pods = 0;
  int64_t node_heap_bytes = 0;
  int64_t podgroup_heap_bytes = 0;
  int64_t pod_heap_bytes = 0;
  int64_t node_rss_bytes = 0;
  int64_t pod_rss_bytes = 0;  // pods and their PodGroups
  // Share of the cluster's cpu / memory / GPUs the running pods request (0 with none).
  double cpu_used = 0, memory_used = 0, gpu_used = 0;
  double seconds = 0;          // generating and filling
  double now = 0;              // a session time after every creation time
};

FillStats fill_backlog(Cache& cache, const BacklogShape& shape);
FillStats fill_preempt(Cache& cache, const PreemptShape& shape);

}  // namespace caldera::bench
