// The openb replay protocol of the FGD paper's simulator (Weng et al., USENIX ATC 2023,
// "Beware of Fragmentation"; hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/core.go TunePodsByNodeTotalResource and the experiments' run scripts):
//
//   1. tune: add random copies of trace pods until the total GPU request reaches
//      tune x the cluster's GPU capacity (the copy that would pass it is not added); when
//      the trace already asks more, remove random pods until it does not;
//   2. shuffle the pods with the seed;
//   3. submit them one at a time, nothing ever leaves: each pod gets one scheduling session
//      (the config's actions) and is placed or has failed for good;
//   4. report the share of the cluster's GPU capacity allocated at each point where the
//      GPU requests that have arrived reach 0%, 5%, 10%, ... of capacity, up to tune.
//
// Randomness is std::mt19937_64 with our own bounded draw and Fisher-Yates shuffle (the
// standard distributions differ between library implementations), so a seed gives the
// same pods in the same order on every platform.
//
// How the cluster is modelled for the scheduler:
//   node  allocatable cpu = cpu_milli, memory = memory_mib MiB, nvidia.com/gpu = gpu,
//         caldera.sh/gpu-milli = gpu x 1000; label nvidia.com/gpu.product = model; no pod
//         limit (the trace has none; max pods is set far above what fits).
//   pod   requests cpu, memory; a share asks caldera.sh/gpu-milli = gpu_milli; whole cards
//         ask nvidia.com/gpu = num_gpu and caldera.sh/gpu-milli = num_gpu x 1000 (so the
//         node's gpu-milli total stays exact); gpu_spec goes in the annotation
//         caldera.sh/gpu-models. The deviceshare plugin reads these (its README).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/session/policy.hpp"
#include "host/replay/openb_trace.hpp"

namespace caldera::replay {

// A number in [0, n) from the generator, the same on every platform (rejection sampling
// on the raw 64-bit output; n > 0).
uint64_t bounded_draw(std::mt19937_64& rng, uint64_t n);
// Fisher-Yates with bounded_draw.
template <class T>
void shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(bounded_draw(rng, i));
    std::swap(v[i - 1], v[j]);
  }
}

int64_t gpu_capacity_milli(const std::vector<OpenbNode>& nodes);

// Steps 1 and 2: the pods to submit, in order. Copies are named "<name>-copy-<k>", k
// counting the copies of that pod from 1. `tune` > 0. Throws InputError when there is no
// pod asking for a GPU to copy and the target is not met.
std::vector<OpenbPod> tune_and_shuffle(const std::vector<OpenbPod>& trace, int64_t capacity_milli,
                                       double tune, uint64_t seed);

// The cache records the replay gives the scheduler (see the header comment).
NodeSpec node_record(const OpenbNode& n);
PodSpec pod_record(const OpenbPod& p, double created);

struct ReplayPoint {
  double arrived = 0;    // GPU requests arrived / capacity
  double allocated = 0;  // GPU allocated / capacity
};

struct ReplayPlacement {
  std::string pod;
  std::string node;          // empty: not placed
  std::vector<int> gpus;     // card indexes chosen by the device plugin
  int64_t gpu_milli = 0;     // per card (1000 for whole cards); 0 with no GPU
  std::string reason;        // why not placed
};

struct ReplayResult {
  size_t pods = 0;
  size_t nodes = 0;
  int64_t gpu_capacity_milli = 0;
  int64_t gpu_allocated_milli = 0;
  size_t placed = 0;
  size_t failed = 0;
  // Pods asking GPUs that were placed without a card assignment (no device plugin in the
  // config): their cards are unknown, the placements file leaves gpus empty.
  size_t placed_without_cards = 0;
  size_t session_nodes = 0;  // nodes in the sessions, summed over the sessions
  // Where the time went, summed over the sessions: opening them (the snapshot of the cache
  // and the plugins' open), their actions, closing them. The rest of `seconds` is the
  // replay's own work (the cache, the prefilter, the report).
  double open_seconds = 0, action_seconds = 0, close_seconds = 0;
  double seconds = 0;
  std::vector<ReplayPoint> points;
  std::vector<ReplayPlacement> placements;  // one per submitted pod, in order
};

// Called after each pod: (done, total).
using ProgressFn = std::function<void(size_t, size_t)>;

struct RunOptions {
  double step = 0.05;   // spacing of the report points
  double until = 1.3;   // the last point (the tune factor)
  // The fast path: the pods placed on a node are kept in the cache as one running record
  // per node ("openb-placed/<node>", all in one running PodGroup "openb-placed/placed")
  // holding their summed requests and, when the device
  // plugin chose cards, the use of each card (volcano.sh/gpu-index "0;2",
  // caldera.sh/gpu-milli-per-card "1000;440"). A session then copies at most one record per
  // node instead of every pod placed so far; the nodes' used resources and cards are the
  // same, so the decisions are too (tests/unit/openb_replay_test.cpp checks it). GPU pods
  // placed with no card assignment (no device plugin in the config) are merged too, in a
  // record without card annotations, on a node where no pod has cards; on a node whose
  // record lists cards such a pod stays a record of its own (a device plugin would give it
  // cards of its own; this only happens when one leaves a pod without cards). false: every
  // placed pod stays its own record (slow: each session copies them all).
  bool merge_placed = true;
  // With merge_placed: the session of a pod holds only the nodes the pod fits by the host's
  // own resource arithmetic (cpu, memory, caldera.sh/gpu-milli and nvidia.com/gpu free) and,
  // when it lists GPU models, of one of them, with their records. The others would be
  // refused by the allocate action's first check before any plugin is asked, so placements
  // are the same (tested); what changes is what plugins see of the cluster as a whole
  // (cluster totals, the pending reason's "0/N nodes"): plugins that weigh cluster totals
  // (drf, proportion, capacity) need prefilter false (`--all-nodes`).
  bool prefilter = true;
  // With prefilter: of the nodes in the same state (same node record but for the name, same
  // resources in use, the same use of each card) only the first by name is in the session.
  // The others would score exactly as it does (a plugin sees a node's record and its pods,
  // and these are the same), and among equal scores the first node by name wins, so they
  // could never be chosen. Early in a replay most of the cluster is idle nodes of a few
  // kinds: this keeps one of each kind. Same decisions (tested) for plugins that judge a
  // node by its record and pods, not by its name (a best_node slot that picks by name, or a
  // score hashed from it, needs prefilter false); the pending reason's "0/N nodes" counts
  // the nodes of the session.
  bool one_node_per_state = true;
  ProgressFn progress;
};

// Steps 3 and 4 on the given nodes and pods (already tuned and shuffled), one session per
// pod with the policy. Throws std::runtime_error when a device plugin hands out more of a
// card than it has (a plugin bug, never the input's fault).
ReplayResult run_replay(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                        std::shared_ptr<const Policy> policy, const RunOptions& options);

// Writes SCENARIOS.md section 3's CSV.
void write_placements_csv(const std::string& path, const ReplayResult& r);

// The curve as an SVG document, or a self-contained HTML page holding it.
std::string plot_svg(const ReplayResult& r, const std::string& title);
std::string plot_html(const ReplayResult& r, const std::string& title);

}  // namespace caldera::replay
