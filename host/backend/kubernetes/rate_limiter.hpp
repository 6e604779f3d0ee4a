// Client-side request rate limit to the API server, as client-go's token bucket
// (flowcontrol.NewTokenBucketRateLimiter behind rest.Config's QPS and Burst, which
// volcano-scheduler sets from --kube-api-qps and --kube-api-burst): `burst` tokens at the
// start, refilled at `qps` per second up to `burst`; each request takes one, and one that
// finds none waits until a token is due. Pure arithmetic on a clock the caller passes, so
// tests drive it; HttpClient applies it to every request it starts.
#pragma once

#include <algorithm>

namespace caldera::k8s {

class RateLimiter {
 public:
  // qps < 0: no limit. client-go's defaults stand in for zeros (QPS 5, burst 10).
  RateLimiter(double qps, int burst)
      : qps_(qps == 0 ? 5.0 : qps), burst_(burst <= 0 ? 10.0 : static_cast<double>(burst)),
        tokens_(burst_) {}

  bool unlimited() const { return qps_ < 0; }

  // Takes a token at time `now` (seconds) when one is there: true. Else false, and
  // *wait is how long until the next one is due.
  bool take(double now, double* wait) {
    if (unlimited()) return true;
    refill(now);
    if (tokens_ >= 1) {
      tokens_ -= 1;
      return true;
    }
    if (wait) *wait = (1 - tokens_) / qps_;
    return false;
  }

 private:
  void refill(double now) {
    if (last_ >= 0 && now > last_) tokens_ = std::min(burst_, tokens_ + (now - last_) * qps_);
    last_ = std::max(last_, now);
  }

  double qps_;
  double burst_;
  double tokens_;
  double last_ = -1;
};

}  // namespace caldera::k8s
