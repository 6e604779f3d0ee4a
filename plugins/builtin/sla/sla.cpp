// sla: a service-level waiting time per job. A job that has waited longer than its waiting
// time since it was created is let through enqueue and pipelining, and jobs with a waiting
// time go first, earliest deadline first.
//
// Follows Volcano's pkg/scheduler/plugins/sla/sla.go, mapping its registrations to slots:
//   AddJobOrderFn        -> job_order        (deadline = creation + waiting time; jobs with
//                                             a deadline before jobs without one)
//   AddJobEnqueueableFn  -> job_enqueueable  (permitableFn: permit once waited, else abstain)
//   AddJobPipelinedFn    -> job_pipelined    (the same permitableFn)
// The waiting time of a job is its own annotation if it has a valid one, else the plugin's
// `sla-waiting-time` argument (readJobWaitingTime); a job with neither has no SLA.
//
// The per-job waiting time is the PodGroup's annotation, read as Volcano's
// JobInfo.extractWaitingTime does (pkg/scheduler/api/job_info.go): first
// "volcano.sh/sla-waiting-time", then "sla-waiting-time", each with Go's
// time.ParseDuration; a value that does not parse or is not positive is logged and the
// job has no waiting time of its own. PodGroup annotations reach plugins through the host
// table's job_annotation (added after ABI 1.0): on a host without it, jobs have only the
// plugin's global waiting time.
//
// The argument is checked when the config is loaded (check_args): a waiting time that is
// not positive is refused with its name; Volcano would log it and run with no global SLA
// (which a host without the check_args slot still does here at session open).
//
// Time is the session clock (Session::now()) against the PodGroup's creation time
// (Job::created()), as Volcano's time.Since(job.CreationTimestamp); the time the PodGroup
// entered its phase (Job::phase_since()) plays no part in Volcano's rule.
#include <cstdio>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "caldera/sdk.hpp"
#include "sla/sla_math.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace sm = caldera::sla;
using sm::Nanos;

// Seconds with the shortest exact-looking text ("180", "0.5"), for messages.
std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

class Sla {
 public:
  static constexpr const char* kName = "sla";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "service-level waiting time: jobs with a deadline (creation + sla-waiting-time) go "
      "first, earliest first, and a job that has waited that long is let through enqueue "
      "and pipelining (Volcano's sla)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::job_order,
      sdk::Hook::job_pipelined, sdk::Hook::job_enqueueable, sdk::Hook::check_args);

  static constexpr sdk::Duration kWaitingTime{
      sm::kWaitingTimeKey, sdk::no_default,
      "the longest time a job may wait from its creation before it is enqueued regardless of "
      "resources (e.g. \"3m\", \"1h30m\"); a PodGroup's own sla-waiting-time annotation "
      "overrides it; unset: only PodGroups with the annotation have an SLA"};
  static constexpr auto kOptions = sdk::options(kWaitingTime);

  static sdk::Status check_args(const sdk::Args& a) {
    if (!a.has(kWaitingTime)) return sdk::Status::ok();
    const std::string problem = sm::global_waiting_time_problem(a.get(kWaitingTime));
    return problem.empty() ? sdk::Status::ok() : sdk::Status::error(problem);
  }

  Sla(sdk::Session s, const sdk::Args& a) : ssn_(s) {
    if (a.has(kWaitingTime)) {
      const double secs = a.get(kWaitingTime);
      const Nanos ns = sm::to_nanos(secs);
      // Only reachable on a host that does not call check_args: then, as Volcano, log a
      // waiting time that is not positive and run with no global SLA.
      if (ns <= 0)
        sdk::log(CAL_LOG_WARN, kName,
                 "argument sla-waiting-time must be positive, got " + seconds_text(secs) +
                     "s; no global waiting time this session");
      else
        global_ = ns;
    }
  }

  int job_order(sdk::Job l, sdk::Job r) {
    return sm::deadline_order(sm::to_nanos(l.created()), waiting_time(l),
                              sm::to_nanos(r.created()), waiting_time(r));
  }

  cal_vote job_enqueueable(sdk::Job j) { return permitable(j); }
  cal_vote job_pipelined(sdk::Job j) { return permitable(j); }

 private:
  cal_vote permitable(const sdk::Job& j) {
    return sm::waited_out(sm::to_nanos(ssn_.now()), sm::to_nanos(j.created()), waiting_time(j))
               ? CAL_PERMIT
               : CAL_ABSTAIN;
  }

  std::optional<Nanos> waiting_time(const sdk::Job& j) {
    return sm::effective_waiting_time(own_waiting_time(j), global_);
  }

  // The job's own waiting time, read once per session (job_order asks for it O(n log n)
  // times; annotations do not change inside a session).
  std::optional<Nanos> own_waiting_time(const sdk::Job& j) {
    auto [it, fresh] = own_.try_emplace(j.handle());
    if (fresh) it->second = read_own_waiting_time(j);
    return it->second;
  }

  // extractWaitingTime: the prefixed key first, then the plain one; a value Volcano would
  // refuse is logged and the next key tried.
  std::optional<Nanos> read_own_waiting_time(const sdk::Job& j) const {
    if (!CAL_HOST_HAS(sdk::host, job_annotation)) return std::nullopt;
    for (const char* key : {sm::kPrefixedWaitingTimeKey, sm::kWaitingTimeKey}) {
      const char* value = j.annotation(key);
      if (!value) continue;
      sm::ParsedDuration p = sm::job_waiting_time(value);
      if (p.value) return p.value;
      sdk::log(CAL_LOG_WARN, kName,
               "job " + std::string(j.name()) + ": annotation " + key + "=\"" + value +
                   "\" ignored: " + p.error);
    }
    return std::nullopt;
  }

  sdk::Session ssn_;
  std::optional<Nanos> global_;
  std::unordered_map<const cal_job*, std::optional<Nanos>> own_;
};

}  // namespace

CALDERA_PLUGIN(Sla)
