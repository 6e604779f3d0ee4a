// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does,
// so several replicas can run and only one schedules. A replica that holds the lease
// renews it every retry period; one that cannot renew within the renew deadline stops
// leading at once (on its own clock, whatever the API server says later), and the others
// take the lease over once it has not been renewed for a lease duration as they observe
// it (their own clocks: the holder's timestamps are not trusted).
#pragma once

#include <uv.h>

#include <functional>
#include <string>

#include "host/backend/kubernetes/api_objects.hpp"
#include "host/backend/kubernetes/http_client.hpp"

namespace caldera::k8s {

struct LeaderOptions {
  std::string ns = "kube-system";
  std::string name = "caldera-scheduler";
  std::string identity;          // this replica; default: hostname_pid
  double lease_duration = 15;    // seconds (kube-scheduler's defaults)
  double renew_deadline = 10;
  double retry_period = 2;
};

class LeaderElector {
 public:
  // `on_change(true)` when this replica starts leading, `on_change(false)` when it stops.
  LeaderElector(uv_loop_t* loop, HttpClient& http, LeaderOptions opts,
                std::function<void(bool)> on_change);
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  void start();
  // Stops; a held lease is released (holder cleared) so another replica takes over at once.
  void stop(std::function<void()> closed);
  // Whether this replica can schedule now (its sessions complete, it has a plugin set to
  // run): asked before every acquire or renew. While it says no, the lease is neither
  // taken nor renewed, and a lease held is released at once so a standby takes over
  // (docs/ISOLATION.md).
  void set_fit(std::function<bool()> fit) { fit_ = std::move(fit); }

  bool leading() const { return leading_; }
  const std::string& identity() const { return opts_.identity; }
  const std::string& holder() const { return observed_holder_; }

 private:
  void tick();
  void try_acquire_or_renew();
  void on_get(HttpResponse&& r);
  void write(json lease, bool create);
  void set_leading(bool v);
  json record(bool keep_acquire) const;
  std::string path() const;

  uv_loop_t* loop_;
  HttpClient& http_;
  LeaderOptions opts_;
  std::function<void(bool)> on_change_;
  uv_timer_t timer_;
  bool leading_ = false;
  bool busy_ = false;            // a get/update round is in flight
  bool stopping_ = false;
  uint64_t request_ = 0;
  double last_renew_ = -1;       // monotonic seconds of the last successful acquire/renew
  std::string observed_record_;  // the lease spec as last seen (to detect renewals)
  std::string observed_holder_;
  double observed_time_ = 0;     // monotonic seconds when observed_record_ last changed
  std::string acquire_time_;
  int64_t transitions_ = 0;
  std::function<void()> closed_;
  int pending_close_ = 0;
  bool warned_ = false;
  void maybe_closed();
  // Clears the holder (client-go's ReleaseOnCancel); `done` after the answer.
  void release(std::function<void()> done);
  std::function<bool()> fit_;
  bool released_unfit_ = false;  // the lease was released because this replica was unfit
};

}  // namespace caldera::k8s
