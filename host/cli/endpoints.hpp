// The HTTP endpoints of `caldera run` (both backends): volcano-scheduler's /metrics,
// /healthz and /readyz (host/metrics/), started from the run's flags.
#pragma once

#include <memory>

#include "host/cli/commands.hpp"
#include "host/metrics/explanations.hpp"
#include "host/metrics/http_endpoints.hpp"
#include "host/metrics/scheduler_metrics.hpp"

namespace caldera::cli {

// What a run publishes: the metrics, the health, and the servers (null when neither
// --enable-metrics nor --enable-healthz was given). Throws InputError for an address that
// cannot be listened on.
struct Endpoints {
  metrics::SchedulerMetrics metrics;
  metrics::Health health;
  metrics::Explanations explanations;  // /debug/explain, served with /metrics
  std::unique_ptr<metrics::HttpEndpoints> servers;

  explicit Endpoints(const RunOptions& o);
  // A session's figures, kept only when /metrics is served (they walk the cache).
  void session(const SessionTimings& t, const SessionResult& r, const Cache& cache, double now);
  void session_dropped(const SessionTimings& t);
  // The best nodes a session should keep per scored task (Runtime::set_explain_top): only
  // while /debug/explain is served.
  size_t explain_top() const { return metrics_served_ ? metrics::Explanations::kTopNodes : 0; }
  // How long the loop may stand still before /healthz fails: a session may run for its
  // whole watchdog time, and the loop waits a period between sessions.
  static double stall_after(double session_timeout, double period);

 private:
  bool metrics_served_ = false;
};

}  // namespace caldera::cli
