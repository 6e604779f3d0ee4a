// Leader election, after client-go's tools/leaderelection/leaderelection.go
// (tryAcquireOrRenew, renew with a deadline, ReleaseOnCancel) and resourcelock/leaselock.go.
#include "host/backend/kubernetes/leader.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>


#include "host/util/clock.hpp"

namespace caldera::k8s {

LeaderElector::LeaderElector(uv_loop_t* loop, HttpClient& http, LeaderOptions opts,
                             std::function<void(bool)> on_change)
    : loop_(loop), http_(http), opts_(std::move(opts)), on_change_(std::move(on_change)) {
  if (opts_.identity.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    opts_.identity = fmt::format("{}_{}", host, getpid());
  }
  uv_timer_init(loop_, &timer_);
  timer_.data = this;
}

std::string LeaderElector::path() const {
  return fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", opts_.ns, opts_.name);
}

void LeaderElector::start() {
  spdlog::info("kubernetes: leader election on Lease {}/{} as {}", opts_.ns, opts_.name,
               opts_.identity);
  uv_timer_start(
      &timer_, [](uv_timer_t* t) { static_cast<LeaderElector*>(t->data)->tick(); }, 0,
      static_cast<uint64_t>(opts_.retry_period * 1000));
}

void LeaderElector::tick() {
  if (stopping_) return;
  // Self-fencing: past the renew deadline this replica is no leader, whether or not the
  // renewal that is still in flight would succeed.
  if (leading_ && monotonic_seconds() - last_renew_ > opts_.renew_deadline) {
    spdlog::error("kubernetes: could not renew Lease {}/{} within {}s; leadership lost",
                  opts_.ns, opts_.name, opts_.renew_deadline);
    set_leading(false);
  }
  if (fit_ && !fit_()) {
    // No progress (a session stuck, nothing that may be scheduled): no renewal, and a held
    // lease goes back at once so a standby takes over.
    if (leading_) {
      spdlog::error("kubernetes: this replica cannot schedule; releasing Lease {}/{}", opts_.ns,
                    opts_.name);
      set_leading(false);
      if (!busy_) {
        busy_ = true;
        release([this] { busy_ = false; });
      }
    } else if (!released_unfit_) {
      spdlog::warn("kubernetes: this replica cannot schedule; not taking Lease {}/{}", opts_.ns,
                   opts_.name);
    }
    released_unfit_ = true;
    return;
  }
  released_unfit_ = false;
  if (!busy_) try_acquire_or_renew();
}

void LeaderElector::set_leading(bool v) {
  if (leading_ == v) return;
  leading_ = v;
  if (v)
    spdlog::info("kubernetes: leading (Lease {}/{} acquired by {})", opts_.ns, opts_.name,
                 opts_.identity);
  else
    spdlog::warn("kubernetes: no longer leading; scheduling stops");
  if (on_change_) on_change_(v);
}

void LeaderElector::try_acquire_or_renew() {
  busy_ = true;
  HttpRequest req;
  req.path = path();
  req.timeout_ms = static_cast<long>(opts_.retry_period * 1000);
  request_ = http_.send(std::move(req), [this](HttpResponse&& r) {
    request_ = 0;
    on_get(std::move(r));
  });
}

json LeaderElector::record(bool keep_acquire) const {
  std::string now = format_time(unix_seconds(), true);
  return {{"holderIdentity", opts_.identity},
          {"leaseDurationSeconds", static_cast<int64_t>(opts_.lease_duration)},
          {"acquireTime", keep_acquire && !acquire_time_.empty() ? acquire_time_ : now},
          {"renewTime", now},
          {"leaseTransitions", transitions_}};
}

void LeaderElector::on_get(HttpResponse&& r) {
  if (stopping_) {
    busy_ = false;
    maybe_closed();
    return;
  }
  if (r.status == 404) {
    transitions_ = 0;
    json spec = record(false);
    acquire_time_ = spec["acquireTime"];
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", opts_.name}, {"namespace", opts_.ns}}},
                  {"spec", spec}};
    write(std::move(lease), true);
    return;
  }
  json lease = r.ok() ? parse_server_json(r.body) : json();
  if (!lease.is_object()) {
    busy_ = false;
    spdlog::debug("kubernetes: reading Lease {}/{} failed: {}", opts_.ns, opts_.name,
                  r.describe());
    return;  // the deadline check in tick() decides what that means for a leader
  }
  json spec = lease.contains("spec") && lease["spec"].is_object() ? lease["spec"] : json::object();
  std::string holder = json_string(spec, "holderIdentity");
  std::string rec = spec.dump();
  if (rec != observed_record_) {
    observed_record_ = rec;
    observed_time_ = monotonic_seconds();
  }
  observed_holder_ = holder;
  double duration = opts_.lease_duration;
  if (auto d = spec.find("leaseDurationSeconds"); d != spec.end() && d->is_number() && d->get<double>() > 0)
    duration = d->get<double>();
  bool ours = holder == opts_.identity;
  if (!holder.empty() && !ours && observed_time_ + duration > monotonic_seconds()) {
    // Someone else holds a lease that is still fresh, as far as this replica can tell.
    busy_ = false;
    if (leading_) set_leading(false);
    return;
  }
  if (ours) {
    acquire_time_ = json_string(spec, "acquireTime", acquire_time_);
    transitions_ = json_int(spec, "leaseTransitions", transitions_);
  } else {
    transitions_ = json_int(spec, "leaseTransitions", 0) + 1;
    acquire_time_.clear();
  }
  json next = record(ours);
  acquire_time_ = next["acquireTime"];
  lease["spec"] = next;  // metadata.resourceVersion stays: a concurrent update gets 409
  write(std::move(lease), false);
}

void LeaderElector::write(json lease, bool create) {
  HttpRequest req;
  req.method = create ? "POST" : "PUT";
  req.path = create ? fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases", opts_.ns)
                    : path();
  req.content_type = "application/json";
  req.body = lease.dump();
  req.timeout_ms = static_cast<long>(opts_.retry_period * 1000);
  request_ = http_.send(std::move(req), [this](HttpResponse&& r) {
    request_ = 0;
    busy_ = false;
    if (stopping_) {
      maybe_closed();
      return;
    }
    if (r.ok()) {
      json l = parse_server_json(r.body);
      if (l.is_object() && l.contains("spec")) {
        observed_record_ = l["spec"].dump();
        observed_time_ = monotonic_seconds();
        observed_holder_ = opts_.identity;
      }
      last_renew_ = monotonic_seconds();
      set_leading(true);
      return;
    }
    // 409: another replica wrote the lease first. Anything else: try again next period;
    // the renew deadline decides when a leader gives up.
    if (r.status == 409 || r.status == 0)
      spdlog::debug("kubernetes: writing Lease {}/{}: {}", opts_.ns, opts_.name, r.describe());
    else if (!warned_)  // 403, 404 (no such namespace): say it once, keep trying
      spdlog::warn("kubernetes: cannot write Lease {}/{}: {}", opts_.ns, opts_.name, r.describe());
    warned_ = warned_ || (r.status != 409 && r.status != 0);
    if (r.status == 409 && leading_) set_leading(false);
  });
}

void LeaderElector::stop(std::function<void()> closed) {
  stopping_ = true;
  closed_ = std::move(closed);
  uv_timer_stop(&timer_);
  ++pending_close_;
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), [](uv_handle_t* h) {
    auto* self = static_cast<LeaderElector*>(h->data);
    --self->pending_close_;
    self->maybe_closed();
  });
  if (request_) {
    http_.cancel(request_);
    request_ = 0;
  }
  busy_ = false;
  bool was_leading = leading_;
  if (leading_) set_leading(false);
  if (was_leading) {
    ++pending_close_;
    release([this] {
      --pending_close_;
      maybe_closed();
    });
  }
  maybe_closed();
}

void LeaderElector::release(std::function<void()> done) {
  {
    // ReleaseOnCancel: clear the holder so a standby replica takes over without waiting
    // for the lease to expire. A release that fails changes nothing: the lease expires.
    HttpRequest req;
    req.method = "PATCH";
    req.path = path();
    req.content_type = "application/merge-patch+json";
    std::string now = format_time(unix_seconds(), true);
    req.body = json{{"spec",
                     {{"holderIdentity", nullptr},
                      {"leaseDurationSeconds", 1},
                      {"renewTime", now},
                      {"acquireTime", now}}}}
                   .dump();
    req.timeout_ms = 2000;
    http_.send(std::move(req), [this, done = std::move(done)](HttpResponse&& r) {
      if (r.ok())
        spdlog::info("kubernetes: Lease {}/{} released", opts_.ns, opts_.name);
      else
        spdlog::warn("kubernetes: releasing Lease {}/{}: {}", opts_.ns, opts_.name, r.describe());
      done();
    });
  }
}

void LeaderElector::maybe_closed() {
  if (stopping_ && pending_close_ == 0 && closed_) {
    auto cb = std::move(closed_);
    closed_ = nullptr;
    cb();
  }
}

}  // namespace caldera::k8s
