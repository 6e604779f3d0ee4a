#include "host/metrics/http_endpoints.hpp"

#include <civetweb.h>
#include <fmt/format.h>

#include <cstring>
#include <thread>

#include "host/util/clock.hpp"
#include "host/util/input_error.hpp"

namespace caldera::metrics {

namespace {

void reply(mg_connection* c, int status, const char* type, const std::string& body) {
  const char* reason = status == 200   ? "OK"
                       : status == 400 ? "Bad Request"
                       : status == 404 ? "Not Found"
                       : status == 503 ? "Service Unavailable"
                                       : "Internal Server Error";
  mg_printf(c,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
            status, reason, type, body.size());
  mg_write(c, body.data(), body.size());
}

// civetweb is initialised once per process, before the first server starts.
void init_library() {
  static const unsigned ok = mg_init_library(0);
  (void)ok;
}

mg_context* start(const std::string& ports, const char* flag) {
  init_library();
  const char* options[] = {"listening_ports", ports.c_str(), "num_threads", "2", nullptr};
  mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof callbacks);
  mg_init_data init;
  std::memset(&init, 0, sizeof init);
  init.callbacks = &callbacks;
  init.configuration_options = options;
  char text[256] = "";
  unsigned code = 0;
  mg_error_data error;
  std::memset(&error, 0, sizeof error);
  error.code = &code;
  error.text = text;
  error.text_buffer_size = sizeof text;
  mg_context* ctx = mg_start2(&init, &error);
  if (ctx == nullptr)
    throw InputError(fmt::format("{} {}: cannot listen: {}", flag, ports,
                                 text[0] ? text : "no reason given"));
  return ctx;
}

}  // namespace

void Health::progressed(double now, double stall_after) {
  std::lock_guard lock(mu_);
  last_progress_ = now;
  stall_after_ = stall_after;
}

void Health::set_ready(bool ready, std::string why) {
  std::lock_guard lock(mu_);
  ready_ = ready;
  why_ = std::move(why);
}

Health::Verdict Health::live(double now) const {
  std::lock_guard lock(mu_);
  if (last_progress_ < 0 || now - last_progress_ <= stall_after_) return {true, "ok"};
  return {false, fmt::format("the scheduler loop has not moved for {:.0f}s (limit {:.0f}s)",
                             now - last_progress_, stall_after_)};
}

Health::Verdict Health::ready() const {
  std::lock_guard lock(mu_);
  if (ready_) return {true, "ok"};
  return {false, "not ready: " + why_};
}

std::string HttpEndpoints::civetweb_port(const std::string& address, const char* flag) {
  const size_t colon = address.rfind(':');
  const std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos ||
      port.size() > 5 || std::stoul(port) > 65535)
    throw InputError(fmt::format("{} {}: not an address with a port (\":8080\", "
                                 "\"127.0.0.1:8080\", \"[::1]:8080\")",
                                 flag, address));
  const std::string host = address.substr(0, colon);
  return host.empty() ? port : host + ":" + port;
}

HttpEndpoints::HttpEndpoints(const Options& o, std::function<std::string()> metrics,
                             const Health* health, Explain explain)
    : metrics_(std::move(metrics)), health_(health), explain_(std::move(explain)) {
  const std::string mport =
      o.metrics_address.empty() ? "" : civetweb_port(o.metrics_address, "--listen-address");
  const std::string hport =
      o.healthz_address.empty() ? "" : civetweb_port(o.healthz_address, "--healthz-address");
  try {
    if (!mport.empty() && mport == hport) {
      // One address for both: one server with every endpoint.
      metrics_ctx_ = start(mport, "--listen-address");
      mg_set_request_handler(metrics_ctx_, "/metrics$", serve_metrics, this);
      mg_set_request_handler(metrics_ctx_, "/healthz$", serve_healthz, this);
      mg_set_request_handler(metrics_ctx_, "/readyz$", serve_readyz, this);
      if (explain_) mg_set_request_handler(metrics_ctx_, "/debug/explain$", serve_explain, this);
      return;
    }
    if (!mport.empty()) {
      metrics_ctx_ = start(mport, "--listen-address");
      mg_set_request_handler(metrics_ctx_, "/metrics$", serve_metrics, this);
      if (explain_) mg_set_request_handler(metrics_ctx_, "/debug/explain$", serve_explain, this);
    }
    if (!hport.empty()) {
      healthz_ctx_ = start(hport, "--healthz-address");
      mg_set_request_handler(healthz_ctx_, "/healthz$", serve_healthz, this);
      mg_set_request_handler(healthz_ctx_, "/readyz$", serve_readyz, this);
    }
  } catch (...) {
    if (metrics_ctx_) mg_stop(metrics_ctx_);
    throw;
  }
}

HttpEndpoints::~HttpEndpoints() {
  // civetweb's listener notices a stop within its poll period (2 s): both stop at once.
  std::thread other;
  if (healthz_ctx_) other = std::thread([ctx = healthz_ctx_] { mg_stop(ctx); });
  if (metrics_ctx_) mg_stop(metrics_ctx_);
  if (other.joinable()) other.join();
}

int HttpEndpoints::serve_metrics(mg_connection* c, void* self) {
  const auto* e = static_cast<const HttpEndpoints*>(self);
  reply(c, 200, "text/plain; version=0.0.4; charset=utf-8", e->metrics_());
  return 200;
}

int HttpEndpoints::serve_healthz(mg_connection* c, void* self) {
  const auto* e = static_cast<const HttpEndpoints*>(self);
  const Health::Verdict v = e->health_ ? e->health_->live(monotonic_seconds()) : Health::Verdict{true, "ok"};
  reply(c, v.ok ? 200 : 500, "text/plain; charset=utf-8", v.text + "\n");
  return v.ok ? 200 : 500;
}

int HttpEndpoints::serve_readyz(mg_connection* c, void* self) {
  const auto* e = static_cast<const HttpEndpoints*>(self);
  const Health::Verdict v = e->health_ ? e->health_->ready() : Health::Verdict{true, "ok"};
  reply(c, v.ok ? 200 : 503, "text/plain; charset=utf-8", v.text + "\n");
  return v.ok ? 200 : 503;
}

int HttpEndpoints::serve_explain(mg_connection* c, void* self) {
  const auto* e = static_cast<const HttpEndpoints*>(self);
  const mg_request_info* ri = mg_get_request_info(c);
  char pod[512] = "";
  const char* q = ri && ri->query_string ? ri->query_string : "";
  if (mg_get_var(q, std::strlen(q), "pod", pod, sizeof pod) <= 0 ||
      std::strchr(pod, '/') == nullptr) {
    reply(c, 400, "application/json", "{\"error\":\"ask for a pod: /debug/explain?pod=NAMESPACE/NAME\"}\n");
    return 400;
  }
  const auto [status, body] = e->explain_(pod);
  reply(c, status, "application/json", body);
  return status;
}

}  // namespace caldera::metrics
