#include "host/results/collector.hpp"

#include <algorithm>
#include <set>

namespace caldera {

namespace {

constexpr const char* kNvidiaGpu = "nvidia.com/gpu";
constexpr const char* kGpuNumber = "volcano.sh/gpu-number";
constexpr const char* kGpuMilli = "caldera.sh/gpu-milli";

double amount(const ResourceList& l, const char* name) {
  auto it = l.find(name);
  return it == l.end() ? 0 : it->second;
}

}  // namespace

double gpu_cards_allocatable(const NodeSpec& node) {
  double cards = amount(node.allocatable, kNvidiaGpu);
  if (cards <= 0) cards = amount(node.allocatable, kGpuNumber);
  return cards / 1000;
}

ResultsCollector::ResultsCollector(const Cache& cluster) {
  std::set<std::string> names;
  for (const auto& [_, n] : cluster.nodes())
    for (const auto& [r, _v] : n->allocatable)
      if (r != kPods) names.insert(r);
  results_.resources.assign(names.begin(), names.end());
  for (const auto& [name, n] : cluster.nodes()) {
    NodeSeries& s = results_.nodes[name];
    for (const auto& r : results_.resources) s.allocatable.push_back(amount(n->allocatable, r.c_str()));
    s.gpu_cards = gpu_cards_allocatable(*n);
  }
  for (auto& [name, n] : results_.nodes) node_index_[name] = &n;
  results_.allocatable_total.assign(results_.resources.size(), 0.0);
  for (const auto& [_, n] : results_.nodes) {
    for (size_t r = 0; r < n.allocatable.size(); ++r) results_.allocatable_total[r] += n.allocatable[r];
    results_.gpu_cards_total += n.gpu_cards;
  }
  for (const auto& [name, _] : cluster.queues()) results_.queues[name];
}

QueueSeries& ResultsCollector::queue(const std::string& name) {
  auto it = results_.queues.find(name);
  if (it != results_.queues.end()) return it->second;
  // A queue first seen now (the implicit "default"): zero in every session so far,
  // including the one being recorded.
  QueueSeries& q = results_.queues[name];
  q.allocated.assign(results_.sessions.size() * results_.resources.size(), 0.0);
  q.deserved.assign(results_.sessions.size() * results_.resources.size(), 0.0);
  return q;
}

void ResultsCollector::record_session(double now, const SessionResult& r, const Cache& cache) {
  const size_t R = results_.resources.size();
  SessionRecord rec;
  rec.session = results_.sessions.size() + 1;
  rec.time = now;
  rec.binds = r.binds.size();
  rec.evictions = r.evictions.size();
  rec.pipelined = r.pipelined.size();
  rec.unschedulable = r.pending.size();
  results_.sessions.push_back(rec);
  const size_t s = results_.sessions.size() - 1;

  for (auto& [_, q] : results_.queues) {
    q.allocated.resize((s + 1) * R, 0.0);
    q.deserved.resize((s + 1) * R, 0.0);
  }
  for (const auto& [name, f] : r.stats.fair_shares) {
    if (!f.has_deserved) continue;
    results_.deserved_reported = true;
    double* d = queue(name).deserved.data() + s * R;
    for (size_t k = 0; k < R; ++k) {
      auto it = f.deserved.find(results_.resources[k]);
      if (it != f.deserved.end()) d[k] = it->second;
    }
  }
  for (auto& [_, n] : results_.nodes) {
    n.used.resize((s + 1) * R, 0.0);
    n.gpu_used.push_back(0.0);
  }
  SessionRecord& row = results_.sessions.back();
  for (auto& [_, by_name] : podgroup_queue_) by_name.clear();
  for (const auto& [_, pg] : cache.podgroups()) podgroup_queue_[pg->ns][pg->name] = &queue(pg->queue);
  QueueSeries* default_queue = nullptr;  // for pods without a PodGroup, made when needed
  const std::vector<std::string>& names = results_.resources;
  for (const auto& [_, p] : cache.pods()) {
    if (p->phase == PodPhase::Succeeded || p->phase == PodPhase::Failed) continue;
    if (p->node.empty()) {
      if (p->schedulable) ++row.pending_pods;
      continue;
    }
    ++row.running_pods;
    auto node = node_index_.find(p->node);
    double* used = node == node_index_.end() ? nullptr : node->second->used.data() + s * R;
    double* alloc = nullptr;
    if (p->schedulable) {  // a pod another scheduler placed belongs to no queue
      QueueSeries* q = nullptr;
      if (!p->podgroup.empty()) {
        auto ns = podgroup_queue_.find(p->ns);
        if (ns != podgroup_queue_.end()) {
          auto pg = ns->second.find(p->podgroup);
          if (pg != ns->second.end()) q = pg->second;
        }
      }
      if (!q) q = default_queue ? default_queue : (default_queue = &queue("default"));
      alloc = q->allocated.data() + s * R;
    }
    // Both lists are sorted by name: one merge pass instead of a lookup per request. The
    // GPU amounts are picked up on the way (gpu_cards_requested, without its lookups).
    size_t k = 0;
    double whole = 0, milli = 0;
    for (const auto& [res, v] : p->requests) {
      if (res == kNvidiaGpu || res == kGpuNumber) whole = std::max(whole, v);
      else if (res == kGpuMilli) milli = v;
      while (k < R && names[k] < res) ++k;
      if (k == R || names[k] != res) continue;  // no node has it: nothing to share
      if (used) used[k] += v;
      if (alloc) alloc[k] += v;
    }
    if (used) node->second->gpu_used[s] += whole > 0 ? whole / 1000 : milli / 1e6;
  }
}

void ResultsCollector::set_jobs(std::vector<JobRecord> jobs, size_t total_jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobRecord& a, const JobRecord& b) {
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    return a.key < b.key;
  });
  results_.jobs = std::move(jobs);
  results_.total_jobs = total_jobs;
}

}  // namespace caldera
