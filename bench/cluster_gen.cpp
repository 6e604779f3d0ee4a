// Generation in two steps: a compact plan (node shapes, job templates, which node each
// running pod is on) drawn from the seed, then the records, made one at a time from the
// plan and handed to the cache. The plan is built before the measured windows and is not
// touched in them, so heap growth in a window is what the cache keeps of the records.
//
// Record contents follow what Volcano's job controller writes on real pods and PodGroups
// (pkg/controllers/job/job_controller_util.go: the volcano.sh/job-name and queue-name
// labels, the scheduling.k8s.io/group-name and volcano.sh/task-spec annotations; the
// PodGroup's minResources from the first minMember tasks), so that memory per record is
// that of a realistic record, not of a bare one.
#include "bench/cluster_gen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "bench/mem_stats.hpp"
#include "host/model/pod_constraints.hpp"

#include <nlohmann/json.hpp>

namespace caldera::bench {

namespace {

constexpr double kMi = 1024.0 * 1024.0;
constexpr double kGi = 1024.0 * kMi;
constexpr const char* kGpu = "nvidia.com/gpu";
constexpr int kZones = 3;
constexpr int kMaxPods = 110;
constexpr const char* kZoneNames[kZones] = {"zone-a", "zone-b", "zone-c"};

// The generator's random source. below() takes the remainder: for the small ranges used
// here the bias is below 2^-50.
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t below(uint64_t n) { return g_() % n; }
  double real() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return real() < p; }

 private:
  std::mt19937_64 g_;
};

enum class Shape : uint8_t { kSmall, kLarge, kGpu };
struct ShapeSpec {
  const char* name;
  double cpu;  // millicores
  double memory;
  double gpu;  // milli-units
};
constexpr ShapeSpec kShapes[] = {
    {"cpu-16", 16000, 64 * kGi, 0},
    {"cpu-64", 64000, 256 * kGi, 0},
    {"gpu-32", 32000, 256 * kGi, 8000},
};

struct Request {
  double cpu = 0, memory = 0, gpu = 0;
};

struct NodePlan {
  Shape shape = Shape::kSmall;
  uint8_t zone = 0;
  bool dedicated = false;
  Request free;  // room left while running pods are placed
  int32_t free_pods = kMaxPods;
};

enum class Kind : uint8_t { kPlain, kGpu, kZone, kDedicated };

struct JobPlan {
  Kind kind = Kind::kPlain;
  uint8_t zone = 0;
  uint8_t queue = 0;
  uint8_t priority = 1;  // index into kPriorityClasses
  bool preemptable = false;
  int32_t size = 1;
  int32_t min_member = 1;
  Request master;  // pod 0 of a gang of more than one
  Request worker;
  JobPhase phase = JobPhase::Pending;
  double created = 0;
};

struct PodPlan {
  int32_t job = 0;
  int32_t index = 0;
  int32_t node = -1;  // -1: pending
};

struct PriorityClassDef {
  const char* name;
  int32_t value;
};
constexpr PriorityClassDef kPriorityClasses[] = {{"low", 10}, {"normal", 100}, {"high", 1000}};

struct Plan {
  std::vector<NodePlan> nodes;
  std::vector<JobPlan> jobs;
  std::vector<PodPlan> pods;
  // By job: the pending pods' constraints (BacklogShape::constraints), null for none.
  std::vector<std::shared_ptr<const PodConstraints>> constraints;
  int queues = 4;  // weights 1..queues
  size_t running = 0;
};

// ---- planning ----------------------------------------------------------------------

void plan_nodes(Rng& rng, size_t count, bool cpu_only, Plan& plan) {
  plan.nodes.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    NodePlan n;
    const double r = rng.real();
    if (cpu_only)
      n.shape = r < 0.6 ? Shape::kSmall : Shape::kLarge;
    else
      n.shape = r < 0.5 ? Shape::kSmall : (r < 0.85 ? Shape::kLarge : Shape::kGpu);
    n.zone = static_cast<uint8_t>(rng.below(kZones));
    n.dedicated = !cpu_only && n.shape != Shape::kGpu && rng.chance(0.1);
    const ShapeSpec& s = kShapes[static_cast<int>(n.shape)];
    n.free = {s.cpu, s.memory, s.gpu};
    plan.nodes.push_back(n);
  }
}

// A gang size in 1..64, small ones most likely (u^3: mean about 17).
int32_t draw_size(Rng& rng) {
  const double u = rng.real();
  return 1 + static_cast<int32_t>(63.0 * u * u * u + 0.5);
}

// One job's template. `heavy` draws the larger requests of the steady state's running
// work, so that 10 pods a node fill most of it.
JobPlan draw_job(Rng& rng, int queues, bool heavy) {
  JobPlan j;
  const double k = rng.real();
  j.kind = k < 0.7 ? Kind::kPlain : (k < 0.8 ? Kind::kGpu : (k < 0.9 ? Kind::kZone : Kind::kDedicated));
  j.zone = static_cast<uint8_t>(rng.below(kZones));
  j.queue = static_cast<uint8_t>(rng.below(static_cast<uint64_t>(queues)));
  const double p = rng.real();
  j.priority = p < 0.2 ? 0 : (p < 0.8 ? 1 : 2);
  j.size = draw_size(rng);
  if (j.kind == Kind::kGpu) j.size = std::min(j.size, 16);
  j.min_member = rng.chance(0.8) ? j.size : std::max(1, j.size / 2);

  if (j.kind == Kind::kGpu) {
    static constexpr double kGpus[] = {1, 1, 2, 4};
    const double g = kGpus[rng.below(4)];
    j.worker = {3500 * g, 28 * kGi * g, 1000 * g};
  } else {
    static constexpr double kLight[] = {250, 500, 1000, 2000, 4000};
    static constexpr double kHeavy[] = {1000, 2000, 4000, 4000};
    static constexpr double kGiPerCore[] = {1, 2, 4};
    const double cpu = heavy ? kHeavy[rng.below(4)] : kLight[rng.below(5)];
    const double ratio = heavy ? 3.5 : kGiPerCore[rng.below(3)];
    j.worker = {cpu, std::max(256 * kMi, cpu / 1000 * ratio * kGi), 0};
  }
  j.master = {500, 1 * kGi, 0};
  return j;
}

const Request& request_of(const JobPlan& j, int32_t index) {
  return index == 0 && j.size > 1 ? j.master : j.worker;
}

// Places running pods round-robin over the nodes each kind of job may use, so that the
// cluster fills evenly; a node that is full for a pod is skipped. One cursor per class:
// plain, GPU, one per zone, dedicated.
class Placer {
 public:
  explicit Placer(std::vector<NodePlan>& nodes) : nodes_(nodes) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodePlan& n = nodes[i];
      const auto idx = static_cast<int32_t>(i);
      if (n.shape == Shape::kGpu) {
        lists_[kGpuClass].push_back(idx);
      } else if (n.dedicated) {
        lists_[kDedicatedClass].push_back(idx);
      } else {
        lists_[kPlainClass].push_back(idx);
        lists_[kZoneClass + n.zone].push_back(idx);
      }
    }
  }

  bool full(const JobPlan& j) const {
    const int c = class_of(j);
    return full_[c] || lists_[c].empty();
  }

  // The node for one more pod of `j`, or -1 when no node of its class has room. A class
  // whose whole lap found no room is marked full and the generator draws no more jobs of
  // it: a mostly full class would otherwise cost a lap per pod that does not fit.
  int32_t place(const JobPlan& j, const Request& r) {
    const int c = class_of(j);
    std::vector<int32_t>& list = lists_[c];
    if (full_[c] || list.empty()) return -1;
    size_t& cursor = cursors_[c];
    for (size_t k = 0; k < list.size(); ++k) {
      const size_t at = (cursor + k) % list.size();
      NodePlan& n = nodes_[static_cast<size_t>(list[at])];
      if (n.free_pods <= 0 || n.free.cpu < r.cpu || n.free.memory < r.memory || n.free.gpu < r.gpu)
        continue;
      n.free.cpu -= r.cpu;
      n.free.memory -= r.memory;
      n.free.gpu -= r.gpu;
      --n.free_pods;
      cursor = (at + 1) % list.size();
      return list[at];
    }
    full_[c] = true;
    return -1;
  }

 private:
  static constexpr int kPlainClass = 0, kGpuClass = 1, kZoneClass = 2,
                       kDedicatedClass = kZoneClass + kZones, kClasses = kDedicatedClass + 1;
  static int class_of(const JobPlan& j) {
    switch (j.kind) {
      case Kind::kPlain: return kPlainClass;
      case Kind::kGpu: return kGpuClass;
      case Kind::kZone: return kZoneClass + j.zone;
      case Kind::kDedicated: return kDedicatedClass;
    }
    return kPlainClass;
  }
  std::vector<NodePlan>& nodes_;
  std::array<std::vector<int32_t>, kClasses> lists_;
  std::array<size_t, kClasses> cursors_{};
  std::array<bool, kClasses> full_{};
};

std::string job_name(size_t j);

// A pending job's constraints (BacklogShape::constraints), by the job's number: required
// anti-affinity to its own pods per node, a zone spread, preferred node affinity.
std::shared_ptr<const PodConstraints> job_constraints(size_t job, const JobPlan& j) {
  using nlohmann::json;
  const json own = {{"matchLabels", {{"volcano.sh/job-name", job_name(job)}}}};
  PodConstraintsReader r;
  switch (job % 3) {
    case 0:
      r.affinity({{"podAntiAffinity",
                   {{"requiredDuringSchedulingIgnoredDuringExecution",
                     json::array({{{"labelSelector", own},
                                   {"topologyKey", "kubernetes.io/hostname"}}})}}}},
                 "affinity");
      break;
    case 1:
      r.topology_spread(json::array({{{"maxSkew", 1},
                                      {"topologyKey", "topology.kubernetes.io/zone"},
                                      {"whenUnsatisfiable", "DoNotSchedule"},
                                      {"labelSelector", own}}}),
                        "topologySpreadConstraints");
      break;
    default:
      r.affinity({{"nodeAffinity",
                   {{"preferredDuringSchedulingIgnoredDuringExecution",
                     json::array({{{"weight", 50},
                                   {"preference",
                                    {{"matchExpressions",
                                      json::array({{{"key", "topology.kubernetes.io/zone"},
                                                    {"operator", "In"},
                                                    {"values", {kZoneNames[j.zone % kZones]}}}})}}}}})}}}},
                 "affinity");
      break;
  }
  return r.finish();
}

void add_pods(Plan& plan, int32_t job, int32_t size) {
  for (int32_t i = 0; i < size; ++i) plan.pods.push_back({job, i, -1});
}

Plan plan_backlog(const BacklogShape& shape) {
  Rng rng(shape.seed);
  Plan plan;
  plan_nodes(rng, shape.nodes, /*cpu_only=*/false, plan);
  plan.pods.reserve(shape.running_pods + shape.pending_pods);

  // Running work first (older), placed on nodes.
  Placer placer(plan.nodes);
  size_t placed = 0;
  size_t misses = 0;  // jobs in a row of a class that is full
  while (placed < shape.running_pods && misses < 1000) {
    JobPlan j = draw_job(rng, plan.queues, /*heavy=*/true);
    if (placer.full(j)) {
      ++misses;
      continue;
    }
    misses = 0;
    j.size = std::min<int32_t>(j.size, static_cast<int32_t>(shape.running_pods - placed));
    const auto job = static_cast<int32_t>(plan.jobs.size());
    int32_t n = 0;
    for (; n < j.size; ++n) {
      const int32_t node = placer.place(j, request_of(j, n));
      if (node < 0) break;
      plan.pods.push_back({job, n, node});
    }
    if (n == 0) continue;
    j.size = n;  // the pods that found room; the rest of the gang is not generated
    j.min_member = std::min(j.min_member, n);
    j.phase = JobPhase::Running;
    j.created = static_cast<double>(job);
    plan.jobs.push_back(j);
    placed += static_cast<size_t>(n);
  }
  plan.running = placed;

  // The pending backlog.
  size_t pending = 0;
  while (pending < shape.pending_pods) {
    JobPlan j = draw_job(rng, plan.queues, /*heavy=*/false);
    j.size = std::min<int32_t>(j.size, static_cast<int32_t>(shape.pending_pods - pending));
    j.min_member = std::min(j.min_member, j.size);
    j.phase = JobPhase::Pending;
    const auto job = static_cast<int32_t>(plan.jobs.size());
    j.created = static_cast<double>(job);
    plan.jobs.push_back(j);
    add_pods(plan, job, j.size);
    pending += static_cast<size_t>(j.size);
  }
  if (shape.constraints) {
    plan.constraints.resize(plan.jobs.size());
    for (size_t j = 0; j < plan.jobs.size(); ++j)
      if (plan.jobs[j].phase == JobPhase::Pending)
        plan.constraints[j] = job_constraints(j, plan.jobs[j]);
  }
  return plan;
}

Plan plan_preempt(const PreemptShape& shape) {
  Rng rng(shape.seed);
  Plan plan;
  plan.queues = 1;  // preemption takes victims in the preemptor's own queue
  plan_nodes(rng, shape.nodes, /*cpu_only=*/true, plan);

  // Low-priority elastic jobs of 2-cpu / 8Gi pods, filling the nodes in order: 8 pods on
  // a 16-cpu node and 32 on a 64-cpu node use all of its cpu and memory.
  const Request low{2000, 8 * kGi, 0};
  size_t node = 0;
  while (node < plan.nodes.size()) {
    JobPlan j;
    j.queue = 0;
    j.priority = 0;
    j.preemptable = true;
    j.size = draw_size(rng);
    j.min_member = 1;
    j.master = j.worker = low;
    j.phase = JobPhase::Running;
    const auto job = static_cast<int32_t>(plan.jobs.size());
    j.created = static_cast<double>(job);
    int32_t n = 0;
    while (n < j.size && node < plan.nodes.size()) {
      NodePlan& np = plan.nodes[node];
      if (np.free.cpu < low.cpu || np.free.memory < low.memory) {
        ++node;
        continue;
      }
      np.free.cpu -= low.cpu;
      np.free.memory -= low.memory;
      --np.free_pods;
      plan.pods.push_back({job, n++, static_cast<int32_t>(node)});
    }
    if (n == 0) break;
    j.size = n;
    plan.jobs.push_back(j);
    plan.running += static_cast<size_t>(n);
  }

  // The high-priority gang: Inqueue already (admitted in an earlier session; on a full
  // cluster the default config's enqueue would hold it back, having no overcommit).
  JobPlan g;
  g.queue = 0;
  g.priority = 2;
  g.size = static_cast<int32_t>(shape.gang);
  g.min_member = g.size;
  g.master = g.worker = {4000, 16 * kGi, 0};
  g.phase = JobPhase::Inqueue;
  const auto job = static_cast<int32_t>(plan.jobs.size());
  g.created = static_cast<double>(job);
  plan.jobs.push_back(g);
  add_pods(plan, job, g.size);
  return plan;
}

// ---- records -----------------------------------------------------------------------

std::string node_name(size_t i) { return fmt::format("node-{:05d}", i); }
std::string job_name(size_t j) { return fmt::format("job-{:06d}", j); }
std::string queue_name(int q) { return fmt::format("q-{}", q); }
std::string ns_name(int q) { return fmt::format("team-{}", q); }

NodeSpec make_node(const Plan& plan, size_t i) {
  const NodePlan& p = plan.nodes[i];
  const ShapeSpec& s = kShapes[static_cast<int>(p.shape)];
  NodeSpec n;
  n.name = node_name(i);
  n.allocatable[kCpu] = s.cpu;
  n.allocatable[kMemory] = s.memory;
  if (s.gpu > 0) n.allocatable[kGpu] = s.gpu;
  n.max_pods = kMaxPods;
  n.labels["kubernetes.io/hostname"] = n.name;
  n.labels["kubernetes.io/os"] = "linux";
  n.labels["node.kubernetes.io/instance-type"] = s.name;
  n.labels["topology.kubernetes.io/zone"] = kZoneNames[p.zone];
  if (p.shape == Shape::kGpu) {
    n.labels["accelerator"] = "nvidia-a100";
    n.taints.push_back({kGpu, "present", "NoSchedule"});
  }
  if (p.dedicated) {
    n.labels["dedicated"] = "batch";
    n.taints.push_back({"dedicated", "batch", "NoSchedule"});
  }
  return n;
}

ResourceList to_list(const Request& r) {
  ResourceList l;
  l[kCpu] = r.cpu;
  l[kMemory] = r.memory;
  if (r.gpu > 0) l[kGpu] = r.gpu;
  return l;
}

PodGroupSpec make_podgroup(const Plan& plan, size_t j) {
  const JobPlan& p = plan.jobs[j];
  PodGroupSpec g;
  g.ns = ns_name(p.queue);
  g.name = job_name(j);
  g.queue = queue_name(p.queue);
  g.min_member = p.min_member;
  Request min;
  for (int32_t i = 0; i < p.min_member; ++i) {
    const Request& r = request_of(p, i);
    min.cpu += r.cpu;
    min.memory += r.memory;
    min.gpu += r.gpu;
  }
  g.min_resources = to_list(min);
  g.phase = p.phase;
  g.priority_class = kPriorityClasses[p.priority].name;
  g.created = p.created;
  g.phase_since = p.created;
  return g;
}

PodSpec make_pod(const Plan& plan, const PodPlan& pp) {
  const JobPlan& j = plan.jobs[static_cast<size_t>(pp.job)];
  PodSpec p;
  std::string job = job_name(static_cast<size_t>(pp.job));
  p.ns = ns_name(j.queue);
  p.name = fmt::format("{}-{}", job, pp.index);
  p.requests = to_list(request_of(j, pp.index));
  if (pp.node >= 0) {
    p.phase = PodPhase::Running;
    p.node = node_name(static_cast<size_t>(pp.node));
  }
  p.priority_class = kPriorityClasses[j.priority].name;
  p.labels["volcano.sh/job-name"] = job;
  p.labels["volcano.sh/queue-name"] = queue_name(j.queue);
  if (j.preemptable) p.labels["volcano.sh/preemptable"] = "true";
  p.annotations["scheduling.k8s.io/group-name"] = job;
  p.annotations["volcano.sh/task-spec"] = pp.index == 0 && j.size > 1 ? "master" : "worker";
  switch (j.kind) {
    case Kind::kPlain:
      break;
    case Kind::kGpu:
      p.node_selector["accelerator"] = "nvidia-a100";
      p.tolerations.push_back({kGpu, "Exists", "", "NoSchedule"});
      break;
    case Kind::kZone:
      p.node_selector["topology.kubernetes.io/zone"] = kZoneNames[j.zone];
      break;
    case Kind::kDedicated:
      p.node_selector["dedicated"] = "batch";
      p.tolerations.push_back({"dedicated", "Equal", "batch", "NoSchedule"});
      break;
  }
  p.podgroup = std::move(job);
  p.created = j.created;
  if (pp.node < 0 && static_cast<size_t>(pp.job) < plan.constraints.size())
    p.constraints = plan.constraints[static_cast<size_t>(pp.job)];
  return p;
}

FillStats fill(Cache& cache, const Plan& plan) {
  const auto t0 = std::chrono::steady_clock::now();
  FillStats st;
  for (const PriorityClassDef& pc : kPriorityClasses)
    cache.upsert_priority_class({pc.name, pc.value, false, {}});
  for (int q = 0; q < plan.queues; ++q) {
    QueueSpec qs;
    qs.name = queue_name(q);
    qs.weight = q + 1;
    cache.upsert_queue(std::move(qs));
  }
  st.queues = static_cast<size_t>(plan.queues);

  // RSS is read outside the heap windows: reading /proc allocates, and the first read may
  // keep some of it (stream buffers, locale data).
  int64_t rss = rss_now();
  int64_t heap = heap_in_use();
  for (size_t i = 0; i < plan.nodes.size(); ++i) cache.upsert_node(make_node(plan, i));
  st.node_heap_bytes = heap_in_use() - heap;
  st.node_rss_bytes = rss_now() - rss;

  rss = rss_now();
  heap = heap_in_use();
  for (size_t j = 0; j < plan.jobs.size(); ++j) cache.upsert_podgroup(make_podgroup(plan, j));
  const int64_t heap_mid = heap_in_use();
  st.podgroup_heap_bytes = heap_mid - heap;
  for (const PodPlan& pp : plan.pods) cache.upsert_pod(make_pod(plan, pp));
  st.pod_heap_bytes = heap_in_use() - heap_mid;
  st.pod_rss_bytes = rss_now() - rss;

  Request total, free;
  for (const NodePlan& n : plan.nodes) {
    const ShapeSpec& s = kShapes[static_cast<int>(n.shape)];
    total.cpu += s.cpu;
    total.memory += s.memory;
    total.gpu += s.gpu;
    free.cpu += n.free.cpu;
    free.memory += n.free.memory;
    free.gpu += n.free.gpu;
  }
  auto share = [](double used, double all) { return all > 0 ? used / all : 0.0; };
  st.cpu_used = share(total.cpu - free.cpu, total.cpu);
  st.memory_used = share(total.memory - free.memory, total.memory);
  st.gpu_used = share(total.gpu - free.gpu, total.gpu);

  st.nodes = plan.nodes.size();
  st.podgroups = plan.jobs.size();
  st.pods = plan.pods.size();
  st.running_pods = plan.running;
  st.pending_pods = plan.pods.size() - plan.running;
  st.now = static_cast<double>(plan.jobs.size()) + 1;
  st.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace

FillStats fill_backlog(Cache& cache, const BacklogShape& shape) {
  const auto t0 = std::chrono::steady_clock::now();
  Plan plan = plan_backlog(shape);
  FillStats st = fill(cache, plan);
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

FillStats fill_preempt(Cache& cache, const PreemptShape& shape) {
  const auto t0 = std::chrono::steady_clock::now();
  Plan plan = plan_preempt(shape);
  FillStats st = fill(cache, plan);
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace caldera::bench
