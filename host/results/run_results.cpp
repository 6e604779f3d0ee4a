#include "host/results/run_results.hpp"

#include <algorithm>
#include <cmath>

#include "host/model/objects.hpp"

namespace caldera {

double RunResults::cluster_used(size_t s, size_t r) const {
  double t = 0;
  for (const auto& [_, n] : nodes) t += n.used[s * resources.size() + r];
  return t;
}

double RunResults::cluster_gpu_used(size_t s) const {
  double t = 0;
  for (const auto& [_, n] : nodes) t += n.gpu_used[s];
  return t;
}

double RunResults::queue_share(const QueueSeries& q, size_t s, size_t r) const {
  double total = cluster_allocatable(r);
  return total > 0 ? queue_allocated(q, s, r) / total : 0;
}

double RunResults::dominant_share(const QueueSeries& q, size_t s, int* resource) const {
  // Volcano's drf plugin (pkg/scheduler/plugins/drf/drf.go, calculateShare): the largest
  // allocated / total over the resources.
  double best = 0;
  int which = -1;
  for (size_t r = 0; r < resources.size(); ++r) {
    double share = queue_share(q, s, r);
    if (share > best) best = share, which = static_cast<int>(r);
  }
  if (resource) *resource = which;
  return best;
}

double RunResults::deserved_share(const QueueSeries& q, size_t s) const {
  double best = 0;
  for (size_t r = 0; r < resources.size(); ++r) {
    const double total = cluster_allocatable(r);
    if (total > 0 && s * resources.size() + r < q.deserved.size())
      best = std::max(best, q.deserved[s * resources.size() + r] / total);
  }
  return best;
}

std::map<std::string, WaitPercentiles> wait_percentiles(const RunResults& r) {
  std::map<std::string, std::vector<double>> waits;
  for (const auto& j : r.jobs) {
    auto& w = waits[j.queue];
    if (j.has_started()) w.push_back(j.wait());
  }
  std::map<std::string, WaitPercentiles> out;
  for (auto& [queue, w] : waits) {
    WaitPercentiles& p = out[queue];
    p.started = w.size();
    if (w.empty()) continue;
    std::sort(w.begin(), w.end());
    // Nearest rank: the ceil(p/100 * n)-th smallest.
    auto rank = [&](double pct) {
      size_t k = static_cast<size_t>(std::ceil(pct / 100.0 * static_cast<double>(w.size())));
      return w[std::clamp<size_t>(k, 1, w.size()) - 1];
    };
    p.p50 = rank(50);
    p.p95 = rank(95);
    p.p99 = rank(99);
    p.max = w.back();
  }
  return out;
}

Summary summarize(const RunResults& r) {
  Summary m;
  m.sessions = r.sessions.size();
  for (const auto& s : r.sessions) {
    m.binds += s.binds;
    m.evictions += s.evictions;
    m.pipelined += s.pipelined;
    m.unschedulable += s.unschedulable;
  }
  m.jobs_total = r.total_jobs;
  m.jobs_arrived = r.jobs.size();
  double wait_sum = 0, completion_sum = 0;
  for (const auto& j : r.jobs) {
    if (j.has_started()) {
      ++m.jobs_started;
      wait_sum += j.wait();
      m.max_wait = std::max(m.max_wait, j.wait());
    }
    if (j.has_finished()) {
      ++m.jobs_finished;
      completion_sum += j.completion();
      m.max_completion = std::max(m.max_completion, j.completion());
    }
    if (j.has_failed()) ++m.jobs_failed;
  }
  if (m.jobs_started) m.mean_wait = wait_sum / m.jobs_started;
  if (m.jobs_finished) m.mean_completion = completion_sum / m.jobs_finished;
  m.end_time = r.end_time;
  return m;
}

double user_amount(const std::string& resource, double amount) {
  if (resource == kMemory || resource == kPods || resource == kGpuCards) return amount;
  return amount / 1000;  // cpu millicores -> cores, scalars milli-units -> units
}

const char* user_unit(const std::string& resource) {
  if (resource == kCpu) return "cores";
  if (resource == kMemory) return "bytes";
  if (resource == kGpuCards || resource == "nvidia.com/gpu" || resource == "volcano.sh/gpu-number")
    return "cards";
  return "";
}

double tidy(double v) {
  if (std::abs(v) >= 1e9) return std::round(v);
  double r = std::round(v * 1e6) / 1e6;
  return r == 0 ? 0 : r;  // no "-0"
}

}  // namespace caldera
