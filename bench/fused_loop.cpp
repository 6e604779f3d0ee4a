// The fused loop. Formulas, each from the file the plugin takes it from:
//   leastrequested  k8s noderesources/least_allocated.go, via nodeorder_math.hpp
//   balanced        k8s noderesources/balanced_allocation.go, via nodeorder_math.hpp
//   taint score     k8s tainttoleration/taint_toleration.go + helper/normalize_score.go
//   binpack         Volcano pkg/scheduler/plugins/binpack/binpack.go, via binpack_math.hpp
//   fit             Volcano pkg/scheduler/api/resource_info.go (LessEqual, minResource 0.1)
#include "bench/fused_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace caldera::bench {

namespace {

constexpr double kMinResource = 0.1;     // Volcano's tolerance
constexpr int64_t kMaxScore = 100;       // k8s framework.MaxNodeScore
constexpr int64_t kDefaultCpu = 100;     // schedutil.DefaultMilliCPURequest
constexpr int64_t kDefaultMemory = 200LL * 1024 * 1024;
constexpr int64_t kTaintWeight = 3;      // nodeorder tainttoleration.weight default
constexpr const char* kGpu = "nvidia.com/gpu";

enum Effect : int8_t { kNoSchedule, kPreferNoSchedule, kNoExecute, kAnyEffect };

struct Interner {
  std::unordered_map<std::string, int32_t> ids;
  int32_t operator()(const std::string& s) {
    auto [it, added] = ids.emplace(s, static_cast<int32_t>(ids.size()));
    return it->second;
  }
  int32_t find(const std::string& s) const {
    auto it = ids.find(s);
    return it == ids.end() ? -1 : it->second;
  }
};

Effect effect_of(const std::string& e) {
  if (e == "NoSchedule") return kNoSchedule;
  if (e == "PreferNoSchedule") return kPreferNoSchedule;
  if (e == "NoExecute") return kNoExecute;
  return kAnyEffect;  // a toleration's empty effect
}

struct Label {
  int32_t key, value;
};
struct FTaint {
  int32_t key, value;
  Effect effect;
};
struct FToleration {
  int32_t key;  // -1: any key (empty key with Exists)
  int32_t value;
  bool exists;
  Effect effect;  // kAnyEffect: every effect
};

struct FNode {
  double alloc[3];  // cpu, memory, gpu
  double idle[3];
  double used[3];
  int64_t req_cpu = 0, req_mem = 0, req_gpu = 0;  // sum of pods' init requests
  int64_t req_cpu_nz = 0, req_mem_nz = 0;         // with the non-zero defaults
  int32_t pods = 0, max_pods = 0;
  bool unschedulable = false;
  uint32_t label_begin = 0, label_end = 0;
  uint32_t taint_begin = 0, taint_end = 0;
};

struct FPod {
  double req[3];
  int64_t cpu, mem, gpu, cpu_nz, mem_nz;
  uint32_t sel_begin, sel_end;
  uint32_t tol_begin, tol_end;
  int32_t job_priority;
  double created;
  int64_t index;
  const std::string* key;
};

struct Flat {
  std::vector<FNode> nodes;
  std::vector<Label> labels;
  std::vector<FTaint> taints;
  std::vector<FPod> pods;
  std::vector<Label> selectors;
  std::vector<FToleration> tolerations;
  int32_t unschedulable_key = -1;
  int32_t empty_value = -1;  // the interned ""
};

int64_t whole(double x) { return static_cast<int64_t>(std::llround(x)); }
bool le(double l, double r) { return l < r || std::fabs(l - r) < kMinResource; }

double amount(const ResourceList& l, const char* name) {
  auto it = l.find(name);
  return it == l.end() ? 0 : it->second;
}

int64_t name_index(const std::string& name) {
  auto dash = name.rfind('-');
  if (dash == std::string::npos || dash + 1 >= name.size()) return -1;
  int64_t v = 0;
  for (size_t i = dash + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

void add_pod_to_node(FNode& n, const double req[3]) {
  for (int d = 0; d < 3; ++d) {
    n.idle[d] -= req[d];
    n.used[d] += req[d];
  }
  const int64_t cpu = whole(req[0]), mem = whole(req[1]);
  n.req_cpu += cpu;
  n.req_mem += mem;
  n.req_gpu += whole(req[2]);
  n.req_cpu_nz += cpu == 0 ? kDefaultCpu : cpu;
  n.req_mem_nz += mem == 0 ? kDefaultMemory : mem;
  ++n.pods;
}

Flat flatten(const Cache& cache) {
  Flat f;
  Interner strings;
  f.unschedulable_key = strings("node.kubernetes.io/unschedulable");
  f.empty_value = strings("");
  const int32_t empty_value = f.empty_value;
  std::unordered_map<std::string, uint32_t> node_index;
  node_index.reserve(cache.nodes().size());
  f.nodes.reserve(cache.nodes().size());
  for (const auto& [name, n] : cache.nodes()) {  // by name: ties go to the first name
    FNode fn;
    fn.alloc[0] = amount(n->allocatable, kCpu);
    fn.alloc[1] = amount(n->allocatable, kMemory);
    fn.alloc[2] = amount(n->allocatable, kGpu);
    for (int d = 0; d < 3; ++d) {
      fn.idle[d] = fn.alloc[d];
      fn.used[d] = 0;
    }
    fn.max_pods = n->max_pods;
    fn.unschedulable = n->unschedulable || !n->ready;
    fn.label_begin = static_cast<uint32_t>(f.labels.size());
    for (const auto& [k, v] : n->labels) f.labels.push_back({strings(k), strings(v)});
    fn.label_end = static_cast<uint32_t>(f.labels.size());
    fn.taint_begin = static_cast<uint32_t>(f.taints.size());
    for (const Taint& t : n->taints)
      f.taints.push_back({strings(t.key), strings(t.value), effect_of(t.effect)});
    fn.taint_end = static_cast<uint32_t>(f.taints.size());
    node_index.emplace(name, static_cast<uint32_t>(f.nodes.size()));
    f.nodes.push_back(fn);
  }

  std::unordered_map<std::string, int32_t> pc_value;
  for (const auto& [name, pc] : cache.priority_classes()) pc_value[name] = pc->value;

  for (const auto& [key, p] : cache.pods()) {
    if (p->phase == PodPhase::Succeeded || p->phase == PodPhase::Failed) continue;
    const ResourceList& init = p->init_requests.empty() ? p->requests : p->init_requests;
    const double req[3] = {amount(init, kCpu), amount(init, kMemory), amount(init, kGpu)};
    if (!p->node.empty()) {
      auto it = node_index.find(p->node);
      if (it != node_index.end()) add_pod_to_node(f.nodes[it->second], req);
      continue;
    }
    FPod fp;
    for (int d = 0; d < 3; ++d) fp.req[d] = req[d];
    fp.cpu = whole(req[0]);
    fp.mem = whole(req[1]);
    fp.gpu = whole(req[2]);
    fp.cpu_nz = fp.cpu == 0 ? kDefaultCpu : fp.cpu;
    fp.mem_nz = fp.mem == 0 ? kDefaultMemory : fp.mem;
    fp.sel_begin = static_cast<uint32_t>(f.selectors.size());
    for (const auto& [k, v] : p->node_selector) f.selectors.push_back({strings(k), strings(v)});
    fp.sel_end = static_cast<uint32_t>(f.selectors.size());
    fp.tol_begin = static_cast<uint32_t>(f.tolerations.size());
    for (const Toleration& t : p->tolerations) {
      const bool exists = t.op == "Exists";
      f.tolerations.push_back({t.key.empty() ? -1 : strings(t.key),
                               exists ? empty_value : strings(t.value), exists,
                               effect_of(t.effect)});
    }
    fp.tol_end = static_cast<uint32_t>(f.tolerations.size());
    // Job order: the PodGroup's priority (else the pod's), then creation; task order by
    // the index in the name.
    int32_t prio = p->priority.value_or(0);
    const std::string* pcn = &p->priority_class;
    if (!p->podgroup.empty()) {
      if (const PodGroupSpec* g = cache.podgroup(p->ns + "/" + p->podgroup)) pcn = &g->priority_class;
    }
    if (auto it = pc_value.find(*pcn); it != pc_value.end()) prio = it->second;
    fp.job_priority = prio;
    fp.created = p->created;
    fp.index = name_index(p->name);
    fp.key = &key;
    f.pods.push_back(fp);
  }
  std::sort(f.pods.begin(), f.pods.end(), [](const FPod& l, const FPod& r) {
    if (l.job_priority != r.job_priority) return l.job_priority > r.job_priority;
    if (l.created != r.created) return l.created < r.created;
    if (l.index != r.index) return l.index < r.index;
    return *l.key < *r.key;
  });
  return f;
}

bool tolerates(const FToleration& t, int32_t key, int32_t value, Effect effect) {
  if (t.effect != kAnyEffect && t.effect != effect) return false;
  if (t.key >= 0 && t.key != key) return false;
  return t.exists || t.value == value;
}

bool tolerated(const Flat& f, const FPod& p, int32_t key, int32_t value, Effect effect) {
  for (uint32_t i = p.tol_begin; i < p.tol_end; ++i)
    if (tolerates(f.tolerations[i], key, value, effect)) return true;
  return false;
}

bool passes(const Flat& f, const FPod& p, const FNode& n) {
  if (n.pods >= n.max_pods) return false;
  // Resource fit first: the cheapest check that fails most on a busy cluster.
  if (!le(p.req[0], n.idle[0]) || !le(p.req[1], n.idle[1])) return false;
  if (p.req[2] > 0 && !le(p.req[2], n.idle[2])) return false;
  // NodeUnschedulable: as a node.kubernetes.io/unschedulable:NoSchedule taint.
  if (n.unschedulable && !tolerated(f, p, f.unschedulable_key, f.empty_value, kNoSchedule))
    return false;
  for (uint32_t s = p.sel_begin; s < p.sel_end; ++s) {
    const Label& want = f.selectors[s];
    bool found = false;
    for (uint32_t l = n.label_begin; l < n.label_end; ++l) {
      if (f.labels[l].key != want.key) continue;
      found = f.labels[l].value == want.value;
      break;
    }
    if (!found) return false;
  }
  for (uint32_t t = n.taint_begin; t < n.taint_end; ++t) {
    const FTaint& taint = f.taints[t];
    if (taint.effect != kNoSchedule && taint.effect != kNoExecute) continue;
    if (!tolerated(f, p, taint.key, taint.value, taint.effect)) return false;
  }
  return true;
}

int64_t least_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return ((capacity - requested) * kMaxScore) / capacity;
}

// nodeorder's node_order plus binpack's score, for a node that passed the filter.
double base_score(const FPod& p, const FNode& n) {
  const int64_t acpu = whole(n.alloc[0]), amem = whole(n.alloc[1]), agpu = whole(n.alloc[2]);
  // leastrequested: cpu and memory weighted 50 each, integer mean.
  int64_t least = 0, wsum = 0;
  if (acpu != 0) {
    least += least_requested(n.req_cpu_nz + p.cpu_nz, acpu) * 50;
    wsum += 50;
  }
  if (amem != 0) {
    least += least_requested(n.req_mem_nz + p.mem_nz, amem) * 50;
    wsum += 50;
  }
  double score = wsum == 0 ? 0 : static_cast<double>(least / wsum);
  // balancedresource: 1 - std deviation of the requested fractions.
  if (p.cpu > 0 || p.mem > 0 || p.gpu > 0) {
    double fr[3];
    int k = 0;
    if (acpu != 0) fr[k++] = std::min(1.0, static_cast<double>(n.req_cpu + p.cpu) / acpu);
    if (amem != 0) fr[k++] = std::min(1.0, static_cast<double>(n.req_mem + p.mem) / amem);
    if (p.gpu > 0 && agpu != 0) fr[k++] = std::min(1.0, static_cast<double>(n.req_gpu + p.gpu) / agpu);
    double sd = 0;
    if (k == 2) {
      sd = std::fabs((fr[0] - fr[1]) / 2);
    } else if (k == 3) {
      const double mean = (fr[0] + fr[1] + fr[2]) / 3;
      sd = std::sqrt(((fr[0] - mean) * (fr[0] - mean) + (fr[1] - mean) * (fr[1] - mean) +
                      (fr[2] - mean) * (fr[2] - mean)) / 3);
    }
    score += static_cast<double>(static_cast<int64_t>((1 - sd) * kMaxScore));
  }
  // binpack: cpu and memory (weight 1 each) when requested; 0 for a dimension that would
  // not fit.
  double bp = 0;
  int64_t bw = 0;
  for (int d = 0; d < 2; ++d) {
    if (p.req[d] < kMinResource || p.req[d] == 0) continue;
    bw += 1;
    if (n.alloc[d] == 0) continue;
    const double fin = p.req[d] + n.used[d];
    if (fin <= n.alloc[d]) bp += fin / n.alloc[d];
  }
  if (bw > 0) bp /= static_cast<double>(bw);
  return score + bp * kMaxScore;
}

}  // namespace

FusedResult run_fused(const Cache& cache, const NodeSearchConfig& search) {
  using clock = std::chrono::steady_clock;
  FusedResult r;
  const auto t0 = clock::now();
  Flat f = flatten(cache);
  const auto t1 = clock::now();

  struct Candidate {
    uint32_t node;
    int64_t taints;  // untolerated PreferNoSchedule taints
    double score;
  };
  std::vector<Candidate> cand;
  cand.reserve(f.nodes.size());
  const size_t all = f.nodes.size();
  const size_t want = search.nodes_to_find(all);
  size_t start = 0;
  for (const FPod& p : f.pods) {
    cand.clear();
    int64_t max_taints = 0;
    size_t seen = 0;
    for (; seen < all && cand.size() < want; ++seen) {
      const auto i = static_cast<uint32_t>((start + seen) % all);
      const FNode& n = f.nodes[i];
      if (!passes(f, p, n)) continue;
      int64_t untolerated = 0;
      for (uint32_t t = n.taint_begin; t < n.taint_end; ++t) {
        const FTaint& taint = f.taints[t];
        if (taint.effect == kPreferNoSchedule &&
            !tolerated(f, p, taint.key, taint.value, kPreferNoSchedule))
          ++untolerated;
      }
      max_taints = std::max(max_taints, untolerated);
      cand.push_back({i, untolerated, base_score(p, n)});
    }
    if (all != 0) start = (start + seen) % all;
    ++r.pods;
    if (cand.empty()) continue;
    // helper.DefaultNormalizeScore, reversed: no taint anywhere scores every node 100.
    double best = -std::numeric_limits<double>::infinity();
    uint32_t best_node = 0;
    for (const Candidate& c : cand) {
      const int64_t norm =
          max_taints == 0 ? kMaxScore : kMaxScore - kMaxScore * c.taints / max_taints;
      const double s = c.score + static_cast<double>(norm * kTaintWeight);
      // Ties to the first node by name, as the scheduler's best_node.
      if (s > best || (s == best && c.node < best_node)) {
        best = s;
        best_node = c.node;
      }
    }
    add_pod_to_node(f.nodes[best_node], p.req);
    ++r.bound;
  }
  const auto t2 = clock::now();
  r.snapshot_seconds = std::chrono::duration<double>(t1 - t0).count();
  r.loop_seconds = std::chrono::duration<double>(t2 - t1).count();
  r.seconds = r.snapshot_seconds + r.loop_seconds;
  return r;
}

}  // namespace caldera::bench
