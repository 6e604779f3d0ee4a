// volcano-scheduler's metrics (pkg/scheduler/metrics at Volcano ed72c7c), under the same
// names, labels, units (milliseconds) and buckets, fed once per session from what the
// session measured and decided and from the cache it was committed to.
//
// Where Volcano declares a metric but never updates it (schedule_attempts_total,
// unschedule_task_count, unschedule_job_count) Caldera fills it in; where only Volcano's
// capacity plugin sets one (the queue_* gauges) Caldera sets those it knows without a
// plugin's help from the cache: allocated, request, capacity, deserved (the Queue's own
// fields) and weight. docs/METRICS.md lists every series and where its value comes from.
#pragma once

#include <map>
#include <set>
#include <string>

#include "host/metrics/registry.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/session/session.hpp"

namespace caldera {
class Cache;
struct SessionResult;
}  // namespace caldera

namespace caldera::metrics {

class SchedulerMetrics {
 public:
  SchedulerMetrics();

  // One session whose decisions were applied to `cache` (committed) at `now` (seconds,
  // the clock pods' creation times are on).
  void session(const SessionTimings& timings, const SessionResult& result, const Cache& cache,
               double now);
  // A session that was dropped (a plugin fault, leadership lost): its timings count, its
  // decisions do not; `result` is "error" for a fault.
  void session_dropped(const SessionTimings& timings, bool fault);

  const Registry& registry() const { return registry_; }
  std::string text() const { return registry_.text(); }

 private:
  void timings(const SessionTimings& t);
  void queues(const Cache& cache, const std::map<std::string, SessionStats::FairShare>& fair);
  void jobs(const SessionResult& r, const Cache& cache, double now);

  Registry registry_;
  std::set<std::vector<std::string>> jobs_shown_;      // (name, queue, namespace)
  std::set<std::string> unschedulable_jobs_shown_;     // job ids with a task count
};

}  // namespace caldera::metrics
