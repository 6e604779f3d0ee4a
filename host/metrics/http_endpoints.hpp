// volcano-scheduler's HTTP endpoints: /metrics on --listen-address (with --enable-metrics)
// and /healthz, /readyz on --healthz-address (with --enable-healthz), served by civetweb
// (and Caldera's /debug/explain?pod=NAMESPACE/NAME beside /metrics: `caldera explain`)
// (Debian's libcivetweb) on its own threads. Those threads run no scheduling code: they read
// the metrics text and the health the scheduling thread publishes here.
//
// Health follows progress, not only the process: /healthz fails once the scheduler loop
// has not moved for `stall_after` seconds (a session stuck in a plugin, a wedged loop), so
// the kubelet's liveness probe restarts a scheduler that no longer schedules; /readyz says
// whether it can schedule now (the cache synced, a plugin set it may run) and why not.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

struct mg_context;
struct mg_connection;

namespace caldera::metrics {

// What the scheduling thread publishes and the endpoints read.
class Health {
 public:
  // The loop moved on (a tick, a session's end): `now` on the monotonic clock, seconds;
  // /healthz fails once no progress came for `stall_after` seconds.
  void progressed(double now, double stall_after);
  // Whether it can schedule now, and why not ("" when ready).
  void set_ready(bool ready, std::string why);

  struct Verdict {
    bool ok;
    std::string text;
  };
  Verdict live(double now) const;
  Verdict ready() const;

 private:
  mutable std::mutex mu_;
  double stall_after_ = 0;
  double last_progress_ = -1;
  bool ready_ = false;
  std::string why_ = "starting";
};

class HttpEndpoints {
 public:
  struct Options {
    std::string metrics_address;  // "" for none; Volcano's form ":8080", "0.0.0.0:8080"
    std::string healthz_address;  // "" for none
  };
  // Starts listening; throws InputError naming the address when a port cannot be bound.
  // `metrics` is called on a server thread for each scrape.
  // `explain` answers /debug/explain?pod=... (status, JSON body); null: not served.
  using Explain = std::function<std::pair<int, std::string>(const std::string& pod)>;
  HttpEndpoints(const Options& o, std::function<std::string()> metrics, const Health* health,
                Explain explain = nullptr);
  ~HttpEndpoints();
  HttpEndpoints(const HttpEndpoints&) = delete;
  HttpEndpoints& operator=(const HttpEndpoints&) = delete;

  // civetweb's "listening_ports" for a Go listen address: ":8080" -> "8080" (every
  // interface), "127.0.0.1:8080" and "[::1]:8080" as they are. Throws InputError for an
  // address without a port.
  static std::string civetweb_port(const std::string& address, const char* flag);

 private:
  static int serve_metrics(mg_connection* c, void* self);
  static int serve_healthz(mg_connection* c, void* self);
  static int serve_readyz(mg_connection* c, void* self);
  static int serve_explain(mg_connection* c, void* self);

  std::function<std::string()> metrics_;
  const Health* health_;
  Explain explain_;
  mg_context* metrics_ctx_ = nullptr;
  mg_context* healthz_ctx_ = nullptr;
};

}  // namespace caldera::metrics
