#include "host/metrics/scheduler_metrics.hpp"

#include <map>

#include "host/cache/cache.hpp"
#include "host/session/session.hpp"

namespace caldera::metrics {

namespace {

// Volcano's subsystem prefix and label values.
constexpr const char* kE2e = "volcano_e2e_scheduling_latency_milliseconds";
constexpr const char* kOpen = "volcano_open_session_duration_milliseconds";
constexpr const char* kAction = "volcano_action_scheduling_latency_milliseconds";
constexpr const char* kPlugin = "volcano_plugin_scheduling_latency_milliseconds";
constexpr const char* kTask = "volcano_task_scheduling_latency_milliseconds";
constexpr const char* kJobLatency = "volcano_e2e_job_scheduling_latency_milliseconds";
constexpr const char* kJobDuration = "volcano_e2e_job_scheduling_duration";
constexpr const char* kJobStart = "volcano_e2e_job_scheduling_start_time";
constexpr const char* kJobLast = "volcano_e2e_job_scheduling_last_time";
constexpr const char* kAttempts = "volcano_schedule_attempts_total";
constexpr const char* kVictims = "volcano_pod_preemption_victims";
constexpr const char* kPreemptAttempts = "volcano_total_preemption_attempts";
constexpr const char* kEvictions = "volcano_eviction_transactions_total";
constexpr const char* kUnschedTasks = "volcano_unschedule_task_count";
constexpr const char* kUnschedJobs = "volcano_unschedule_job_count";

// The queue gauges: a family per kind and unit, as Volcano's queue.go declares them.
struct QueueFamily {
  const char* what;  // allocated, request, deserved, capacity
  const char* help;  // Volcano's words, "%s" for the unit
};
constexpr QueueFamily kQueueFamilies[] = {
    {"allocated", "Allocated"},
    {"request", "Request"},
    {"deserved", "Deserved"},
    {"capacity", "Capacity"},
};

std::string queue_name(const char* what, const char* unit) {
  return std::string("volcano_queue_") + what + "_" + unit;
}

double ms(double seconds) { return seconds * 1000.0; }

// Resources Volcano keeps as scalars: every one but cpu, memory, pods and
// ephemeral-storage (its Resource holds those apart).
bool scalar(const std::string& name) {
  return name != kCpu && name != kMemory && name != kPods && name != "ephemeral-storage";
}

}  // namespace

SchedulerMetrics::SchedulerMetrics() {
  Registry& r = registry_;
  r.declare(kE2e, Kind::Histogram,
            "Duration of a single scheduling session execution in milliseconds. It covers the "
            "entire cycle from session open, action executions to session close.",
            {}, exponential_buckets_range(1, 5000, 20));
  r.declare(kOpen, Kind::Histogram,
            "Duration of opening a scheduling session in milliseconds, including cache "
            "snapshot and session initialization.",
            {}, exponential_buckets_range(1, 5000, 20));
  r.declare(kJobLatency, Kind::Histogram,
            "End-to-end job scheduling latency in milliseconds (histogram of per-job duration "
            "from creation to last task assumed)",
            {}, exponential_buckets_range(100, 120000, 30));
  r.declare(kJobDuration, Kind::Gauge,
            "Per-job duration from job creation to last task assumed in scheduler cache, in "
            "milliseconds",
            {"job_name", "queue", "job_namespace"});
  r.declare(kJobStart, Kind::Gauge, "E2E job scheduling start time",
            {"job_name", "queue", "job_namespace"});
  r.declare(kJobLast, Kind::Gauge, "E2E job scheduling last time",
            {"job_name", "queue", "job_namespace"});
  r.declare(kPlugin, Kind::Histogram, "Plugin scheduling latency in milliseconds",
            {"plugin", "OnSession"}, exponential_buckets_range(0.1, 100, 15));
  r.declare(kAction, Kind::Histogram, "Action scheduling latency in milliseconds", {"action"},
            exponential_buckets_range(1, 2000, 20));
  r.declare(kTask, Kind::Histogram,
            "Task scheduling latency from creation to various stages in milliseconds",
            {"stage"}, exponential_buckets_range(50, 60000, 30));
  r.declare(kAttempts, Kind::Counter,
            "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod "
            "could not be scheduled, while 'error' means an internal scheduler problem.",
            {"result"});
  r.declare(kVictims, Kind::Gauge, "Number of selected preemption victims");
  r.declare(kPreemptAttempts, Kind::Counter, "Total preemption attempts in the cluster till now");
  r.declare(kEvictions, Kind::Counter,
            "Total number of committed eviction transactions, by action", {"action"});
  r.declare(kUnschedTasks, Kind::Gauge, "Number of tasks could not be scheduled", {"job_id"});
  r.declare(kUnschedJobs, Kind::Gauge, "Number of jobs could not be scheduled");
  for (const QueueFamily& f : kQueueFamilies) {
    r.declare(queue_name(f.what, "milli_cpu"), Kind::Gauge,
              std::string(f.help) + " CPU count for one queue", {"queue_name"});
    r.declare(queue_name(f.what, "memory_bytes"), Kind::Gauge,
              std::string(f.help) + " memory for one queue", {"queue_name"});
    r.declare(queue_name(f.what, "scalar_resources"), Kind::Gauge,
              std::string(f.help) + " scalar resources for one queue", {"queue_name", "resource"});
  }
  r.declare("volcano_queue_weight", Kind::Gauge, "Weight for one queue", {"queue_name"});
  r.declare("volcano_queue_share", Kind::Gauge, "Share for one queue", {"queue_name"});
}

void SchedulerMetrics::timings(const SessionTimings& t) {
  for (const auto& [action, secs] : t.action_seconds) registry_.observe(kAction, {action}, ms(secs));
  registry_.observe(kOpen, {}, ms(t.open_seconds));
  registry_.observe(kE2e, {}, ms(t.total_seconds()));
}

void SchedulerMetrics::session_dropped(const SessionTimings& t, bool fault) {
  timings(t);
  if (fault) registry_.add(kAttempts, {"error"}, 1);
}

void SchedulerMetrics::session(const SessionTimings& t, const SessionResult& r,
                               const Cache& cache, double now) {
  timings(t);
  for (const SessionStats::PluginTime& p : r.stats.plugin_seconds)
    registry_.observe(kPlugin, {p.plugin, p.point}, ms(p.seconds));
  registry_.add(kAttempts, {"scheduled"}, static_cast<double>(r.binds.size()));
  registry_.add(kAttempts, {"unschedulable"}, static_cast<double>(r.pending.size()));
  if (r.stats.preemption_victims >= 0)
    registry_.set(kVictims, {}, static_cast<double>(r.stats.preemption_victims));
  registry_.add(kPreemptAttempts, {}, static_cast<double>(r.stats.preemption_attempts));
  for (const auto& [action, n] : r.stats.eviction_transactions)
    // Volcano keeps the label to the actions that evict by design.
    if (action == "preempt" || action == "reclaim" || action == "gangpreempt" ||
        action == "gangreclaim")
      registry_.add(kEvictions, {action}, static_cast<double>(n));
  for (const auto& [task, _] : r.binds)
    if (const PodSpec* p = cache.pod(task); p != nullptr && now >= p->created)
      registry_.observe(kTask, {"Bound"}, ms(now - p->created));
  jobs(r, cache, now);
  queues(cache, r.stats.fair_shares);
}

void SchedulerMetrics::jobs(const SessionResult& r, const Cache& cache, double now) {
  // The jobs that had tasks bound: their time from creation to now (Volcano's allocate
  // sets these as it commits a job).
  std::set<std::string> committed;
  for (const auto& [task, _] : r.binds)
    if (const PodSpec* p = cache.pod(task); p != nullptr && !p->podgroup.empty())
      committed.insert(p->ns + "/" + p->podgroup);
  std::set<std::vector<std::string>> alive;
  for (const auto& [key, pg] : cache.podgroups()) {
    std::vector<std::string> labels{pg->name, pg->queue, pg->ns};
    if (jobs_shown_.count(labels)) alive.insert(labels);
    if (!committed.count(key)) continue;
    const double took = ms(std::max(0.0, now - pg->created));
    registry_.set(kJobDuration, labels, took);
    registry_.observe(kJobLatency, {}, took);
    registry_.set(kJobStart, labels, pg->created);
    registry_.set(kJobLast, labels, now);
    alive.insert(labels);
  }
  // A job gone from the cache takes its series with it (Volcano's DeleteJobMetrics).
  for (const auto& labels : jobs_shown_)
    if (!alive.count(labels))
      for (const char* name : {kJobDuration, kJobStart, kJobLast}) registry_.remove(name, labels);
  jobs_shown_ = std::move(alive);

  // Volcano labels the count with the job's name (its PodGroup's, or the pod's).
  std::map<std::string, int> unschedulable;  // job name -> tasks left pending
  for (const auto& [task, _] : r.pending) {
    const PodSpec* p = cache.pod(task);
    if (p == nullptr) continue;
    unschedulable[p->podgroup.empty() ? p->name : p->podgroup]++;
  }
  for (const std::string& job : unschedulable_jobs_shown_)
    if (!unschedulable.count(job)) registry_.remove(kUnschedTasks, {job});
  unschedulable_jobs_shown_.clear();
  for (const auto& [job, n] : unschedulable) {
    registry_.set(kUnschedTasks, {job}, n);
    unschedulable_jobs_shown_.insert(job);
  }
  registry_.set(kUnschedJobs, {}, static_cast<double>(r.job_pending.size()));
}

void SchedulerMetrics::queues(const Cache& cache,
                              const std::map<std::string, SessionStats::FairShare>& fair) {
  struct Sums {
    ResourceList allocated, request;
  };
  std::map<std::string, Sums> by_queue;
  for (const auto& [_, p] : cache.pods()) {
    if (!p->schedulable) continue;
    if (p->phase != PodPhase::Pending && p->phase != PodPhase::Running) continue;
    std::string queue = "default";
    if (!p->podgroup.empty()) {
      const PodGroupSpec* pg = cache.podgroup(p->ns + "/" + p->podgroup);
      if (pg == nullptr) continue;
      queue = pg->queue;
    }
    Sums& s = by_queue[queue];
    for (const auto& [name, v] : p->requests) {
      s.request[name] += v;
      if (!p->node.empty() && !p->releasing) s.allocated[name] += v;
    }
  }
  // Every queue family is replaced whole: a deleted queue's series go (Volcano's
  // DeleteQueueMetrics), and so does a scalar resource a queue no longer has.
  std::map<std::string, std::map<Registry::Labels, double>> series;
  auto put = [&](const char* what, const std::string& queue, const ResourceList& rl) {
    auto get = [&](const char* name) {
      auto it = rl.find(name);
      return it == rl.end() ? 0.0 : it->second;
    };
    series[queue_name(what, "milli_cpu")][{queue}] = get(kCpu);
    series[queue_name(what, "memory_bytes")][{queue}] = get(kMemory);
    auto& scalars = series[queue_name(what, "scalar_resources")];
    for (const auto& [name, v] : rl)
      if (scalar(name)) scalars[{queue, name}] = v;
  };
  auto& weights = series["volcano_queue_weight"];
  auto& shares = series["volcano_queue_share"];
  for (const auto& [name, q] : cache.queues()) {
    const Sums& s = by_queue[name];
    put("allocated", name, s.allocated);
    put("request", name, s.request);
    // Deserved and share as the fair-share plugin (proportion, capacity) worked them out
    // this session, as Volcano's plugins set them; else the Queue's own deserved.
    auto f = fair.find(name);
    if (f != fair.end() && f->second.has_deserved)
      put("deserved", name, f->second.deserved);
    else if (q->deserved)
      put("deserved", name, *q->deserved);
    if (f != fair.end() && f->second.share >= 0) shares[{name}] = f->second.share;
    if (q->capability) put("capacity", name, *q->capability);
    weights[{name}] = q->weight;
  }
  for (const QueueFamily& f : kQueueFamilies)
    for (const char* unit : {"milli_cpu", "memory_bytes", "scalar_resources"})
      registry_.set_all(queue_name(f.what, unit), std::move(series[queue_name(f.what, unit)]));
  registry_.set_all("volcano_queue_weight", std::move(weights));
  registry_.set_all("volcano_queue_share", std::move(shares));
}

}  // namespace caldera::metrics
