// The arithmetic of the sla plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/sla/sla.go (readJobWaitingTime, jobOrderFn,
// permitableFn) and JobInfo.extractWaitingTime in pkg/scheduler/api/job_info.go, which
// parses the per-job annotation with Go's time.ParseDuration (parse_go_duration below).
//
// Times are whole nanoseconds, as Go's time.Duration and time.Time count them: the session
// clock (seconds, a double) is rounded once on the way in, so that two deadlines that are
// equal on paper ("created 0 + 3m" and "created 60 + 2m") compare equal, with no floating
// error deciding a job order.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace caldera::sla {

using Nanos = int64_t;

inline constexpr Nanos kNanosPerSecond = 1000000000;
inline constexpr Nanos kMaxNanos = std::numeric_limits<Nanos>::max();
inline constexpr Nanos kMinNanos = std::numeric_limits<Nanos>::min();

// The plugin argument and the PodGroup annotation (Volcano's api.JobWaitingTime), and the
// prefixed annotation Volcano reads first (scheduling v1beta1.JobWaitingTime).
inline constexpr const char* kWaitingTimeKey = "sla-waiting-time";
inline constexpr const char* kPrefixedWaitingTimeKey = "volcano.sh/sla-waiting-time";

// Seconds on the session clock to nanoseconds, rounded to the nearest; saturates at the
// int64 range (Go's time arithmetic saturates the same way) and maps NaN to 0.
inline Nanos to_nanos(double seconds) {
  if (std::isnan(seconds)) return 0;
  const double ns = seconds * 1e9;
  if (ns >= 9.2e18) return kMaxNanos;
  if (ns <= -9.2e18) return kMinNanos;
  return static_cast<Nanos>(std::llround(ns));
}

// a + b without overflow (a deadline far in the future stays "far in the future").
inline Nanos add_saturating(Nanos a, Nanos b) {
  if (b > 0 && a > kMaxNanos - b) return kMaxNanos;
  if (b < 0 && a < kMinNanos - b) return kMinNanos;
  return a + b;
}

// The result of parse_go_duration: a value, or Go's error text.
struct ParsedDuration {
  std::optional<Nanos> value;
  std::string error;  // set when value is empty: "time: invalid duration \"3x\"", ...
};

// Go's time.ParseDuration, exactly: a possibly signed sequence of decimal numbers, each
// with an optional fraction and a unit ("ns", "us", "µs", "μs", "ms", "s", "m", "h"), such
// as "300ms", "-1.5h" or "2h45m"; "0" alone needs no unit. Volcano reads the per-job
// sla-waiting-time annotation with it, so a value Volcano refuses is refused here too.
inline ParsedDuration parse_go_duration(std::string_view orig) {
  const std::string quoted = "\"" + std::string(orig) + "\"";
  auto fail = [&](const std::string& what) {
    return ParsedDuration{std::nullopt, "time: " + what + " " + quoted};
  };
  std::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return ParsedDuration{Nanos{0}, {}};
  if (s.empty()) return fail("invalid duration");

  constexpr uint64_t kLimit = uint64_t{1} << 63;  // |d| may reach 2^63 only when negative
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  uint64_t d = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0]))) return fail("invalid duration");
    // Integer part (Go's leadingInt: overflow is an error).
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (v > kLimit / 10) return fail("invalid duration");
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      if (v > kLimit) return fail("invalid duration");
    }
    const bool pre = i > 0;
    s.remove_prefix(i);
    // Fraction (Go's leadingFraction: digits past what fits are read and dropped).
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      size_t k = 0;
      for (; k < s.size() && is_digit(s[k]); ++k) {
        if (overflow) continue;
        if (f > (kLimit - 1) / 10) {
          overflow = true;
          continue;
        }
        const uint64_t y = f * 10 + static_cast<uint64_t>(s[k] - '0');
        if (y > kLimit) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = k > 0;
      s.remove_prefix(k);
    }
    if (!pre && !post) return fail("invalid duration");  // "." or ".s"
    // Unit: everything up to the next digit or dot.
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !is_digit(s[u])) ++u;
    if (u == 0) return fail("missing unit in duration");
    const std::string_view unit_name = s.substr(0, u);
    s.remove_prefix(u);
    uint64_t unit = 0;
    if (unit_name == "ns")
      unit = 1;
    else if (unit_name == "us" || unit_name == "\xC2\xB5s" || unit_name == "\xCE\xBCs")
      unit = 1000;  // "µs" as U+00B5 (micro sign) or U+03BC (Greek mu)
    else if (unit_name == "ms")
      unit = 1000000;
    else if (unit_name == "s")
      unit = 1000000000ull;
    else if (unit_name == "m")
      unit = 60ull * 1000000000ull;
    else if (unit_name == "h")
      unit = 3600ull * 1000000000ull;
    else
      return ParsedDuration{std::nullopt, "time: unknown unit \"" + std::string(unit_name) +
                                              "\" in duration " + quoted};
    if (v > kLimit / unit) return fail("invalid duration");
    v *= unit;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) *
                                 (static_cast<double>(unit) / scale));
      if (v > kLimit) return fail("invalid duration");
    }
    d += v;
    if (d > kLimit) return fail("invalid duration");
  }
  if (neg) return ParsedDuration{d == kLimit ? kMinNanos : -static_cast<Nanos>(d), {}};
  if (d > kLimit - 1) return fail("invalid duration");
  return ParsedDuration{static_cast<Nanos>(d), {}};
}

// JobInfo.extractWaitingTime for one annotation value: the parsed duration when it is
// positive; otherwise no value, with the reason (Volcano logs it and treats the job as
// having no waiting time of its own).
inline ParsedDuration job_waiting_time(std::string_view annotation) {
  ParsedDuration p = parse_go_duration(annotation);
  if (p.value && *p.value <= 0) return ParsedDuration{std::nullopt, "invalid sla waiting time"};
  return p;
}

// What is wrong with the plugin's sla-waiting-time argument (in seconds, as the host read
// it), or "" when it is valid. Volcano logs a waiting time that is not positive and runs
// with no global SLA; Caldera's check_args refuses the config with this text instead.
inline std::string global_waiting_time_problem(double seconds) {
  if (to_nanos(seconds) > 0) return {};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%gs", seconds);
  return std::string(kWaitingTimeKey) + " must be a positive duration (e.g. \"3m\"), got " +
         buf;
}

// readJobWaitingTime: the job's own waiting time wins over the plugin's global one.
inline std::optional<Nanos> effective_waiting_time(std::optional<Nanos> job,
                                                   std::optional<Nanos> global) {
  return job ? job : global;
}

// jobOrderFn: jobs with a waiting time go before jobs without; among them the earlier
// deadline (creation + waiting time) goes first; equal deadlines, or no waiting time on
// either side, give no opinion (0).
inline int deadline_order(Nanos l_created, std::optional<Nanos> l_wait, Nanos r_created,
                          std::optional<Nanos> r_wait) {
  if (!l_wait) return r_wait ? 1 : 0;
  if (!r_wait) return -1;
  const Nanos l = add_saturating(l_created, *l_wait);
  const Nanos r = add_saturating(r_created, *r_wait);
  if (l < r) return -1;
  if (l > r) return 1;
  return 0;
}

// permitableFn (job_enqueueable and job_pipelined): permit once the job has waited its
// waiting time since creation (time.Since(created) >= wait); before that, and for a job
// with no waiting time at all, abstain.
inline bool waited_out(Nanos now, Nanos created, std::optional<Nanos> wait) {
  if (!wait) return false;
  // now - created < wait, written so that it cannot overflow.
  return now >= add_saturating(created, *wait);
}

}  // namespace caldera::sla
