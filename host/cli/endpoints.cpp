#include "host/cli/endpoints.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace caldera::cli {

Endpoints::Endpoints(const RunOptions& o) : metrics_served_(o.enable_metrics) {
  metrics::HttpEndpoints::Options eo;
  if (o.enable_metrics) eo.metrics_address = o.listen_address;
  if (o.enable_healthz) eo.healthz_address = o.healthz_address;
  if (eo.metrics_address.empty() && eo.healthz_address.empty()) return;
  metrics::HttpEndpoints::Explain explain;
  if (o.enable_metrics) explain = [this](const std::string& pod) { return explanations.query(pod); };
  servers = std::make_unique<metrics::HttpEndpoints>(
      eo, [this] { return metrics.text(); }, &health, std::move(explain));
  if (o.enable_metrics)
    spdlog::info("caldera: serving /metrics and /debug/explain on {}", o.listen_address);
  if (o.enable_healthz)
    spdlog::info("caldera: serving /healthz and /readyz on {}", o.healthz_address);
}

void Endpoints::session(const SessionTimings& t, const SessionResult& r, const Cache& cache,
                        double now) {
  if (!metrics_served_) return;
  metrics.session(t, r, cache, now);
  explanations.record(r, cache, now);
}

void Endpoints::session_dropped(const SessionTimings& t) {
  if (metrics_served_) metrics.session_dropped(t, /*fault=*/true);
}

double Endpoints::stall_after(double session_timeout, double period) {
  return session_timeout + std::max(30.0, 10 * period);
}

}  // namespace caldera::cli
