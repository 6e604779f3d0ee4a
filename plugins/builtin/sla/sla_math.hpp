// The arithmetic of the sla plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/sla/sla.go (readJobWaitingTime, jobOrderFn,
// permitableFn) and JobInfo.extractWaitingTime in pkg/scheduler/api/job_info.go, which
// parses the per-job annotation with Go's time.ParseDuration (kube/go_duration.hpp).
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

#include "kube/go_duration.hpp"

namespace caldera::sla {

// Go's durations (kube/go_duration.hpp), by the names this plugin's code and tests use.
using go::add_saturating;
using go::kMaxNanos;
using go::kMinNanos;
using go::kNanosPerSecond;
using go::Nanos;
using go::parse_go_duration;
using go::ParsedDuration;
using go::to_nanos;

// The plugin argument and the PodGroup annotation (Volcano's api.JobWaitingTime), and the
// prefixed annotation Volcano reads first (scheduling v1beta1.JobWaitingTime).
inline constexpr const char* kWaitingTimeKey = "sla-waiting-time";
inline constexpr const char* kPrefixedWaitingTimeKey = "volcano.sh/sla-waiting-time";

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
