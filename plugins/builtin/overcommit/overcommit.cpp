// overcommit: enqueue admits jobs while the minResources of everything admitted fits the
// cluster scaled by an overcommit factor, so that a few more jobs than fit right now wait
// Inqueue with their pods created, and no more.
//
// Follows Volcano's pkg/scheduler/plugins/overcommit/overcommit.go:
//   OnSessionOpen        idle    = total * factor - sum of every node's used;
//                        inqueue = minResources of every Inqueue job with minResources,
//                                + for every Running job with minResources whose placed
//                                  tasks reach minMember, max(0, minResources - allocated)
//   AddJobEnqueueableFn  -> job_enqueueable: no minResources: permit; else permit when
//                           inqueue + minResources <= idle in the dimensions minResources
//                           asks for, reject otherwise
//   AddJobEnqueuedFn     -> job_enqueued: the job's minResources join inqueue
// Arguments, as Volcano names them: `overcommit-factor` (default 1.2), for every resource;
// `overcommit-factor.<resource>` (from later Volcano releases) and
// `max-queue-overcommit-factor` (a design at ed72c7c, docs/design/queue-scoped-overcommit.md)
// are accepted and ignored, said when the config loads. A factor below 1 (or not a
// finite number) is refused when the config is loaded (check_args), with the argument's
// name; Volcano's validate() would log it and use 1.2. A host without the check_args slot
// still gets Volcano's fallback at session open. The pure arithmetic is in
// overcommit_math.hpp.
// Volcano records a PodGroup event "resource in cluster is overused" on a rejection; here
// the job gets that as its pending reason, with the dimensions and numbers.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/sdk.hpp"
#include "overcommit/overcommit_math.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace om = caldera::overcommit;
using caldera::ResVec;

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

class Overcommit {
 public:
  static constexpr const char* kName = "overcommit";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "admits jobs to Inqueue while the minResources of admitted jobs fit the cluster's "
      "total times overcommit-factor, less what is in use (Volcano's overcommit)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::job_enqueueable,
      sdk::Hook::job_enqueued, sdk::Hook::check_args);

  static constexpr sdk::Double kFactor{
      om::kFactorKey, om::kDefaultFactor,
      "how far enqueue may promise beyond the cluster: jobs are admitted while inqueue + "
      "minResources <= total * factor - used (>= 1)"};
  static constexpr sdk::Family<sdk::Double> kResourceFactor{
      "overcommit-factor.*",
      "accepted and IGNORED (said when the config loads): Volcano ed72c7c's overcommit "
      "scales every resource by overcommit-factor; per-resource factors came later"};
  static constexpr sdk::Double kMaxQueueFactor{
      "max-queue-overcommit-factor", sdk::no_default,
      "accepted and IGNORED (said when the config loads): at Volcano ed72c7c queue-scoped "
      "overcommit is a design (docs/design/queue-scoped-overcommit.md), not code; checked "
      "as that design says (a finite number >= 1)"};
  static constexpr auto kOptions = sdk::options(kFactor, kResourceFactor, kMaxQueueFactor);

  // The factor must be a finite number >= 1 (see the header comment). Per-resource
  // factors are said to be ignored.
  static sdk::Status check_args(const sdk::Args& a) {
    std::string problem = om::factor_problem(kFactor.name, a.get(kFactor));
    if (!problem.empty()) return sdk::Status::error(problem);
    if (a.has(kMaxQueueFactor)) {
      problem = om::factor_problem(kMaxQueueFactor.name, a.get(kMaxQueueFactor));
      if (!problem.empty()) return sdk::Status::error(problem);
      sdk::log(CAL_LOG_WARN, kName,
               std::string("argument ") + kMaxQueueFactor.name +
                   " is ignored: Volcano ed72c7c has queue-scoped overcommit as a design only; "
                   "every queue is admitted against " + std::string(om::kFactorKey));
    }
    for (const std::string& resource : a.members(kResourceFactor))
      sdk::log(CAL_LOG_WARN, kName,
               "argument " + kResourceFactor.key(resource) +
                   " is ignored: Volcano's overcommit (ed72c7c) scales every resource by " +
                   std::string(om::kFactorKey));
    return sdk::Status::ok();
  }

  Overcommit(sdk::Session s, const sdk::Args& a)
      : ssn_(s), n_(s.resource_count()), factors_(n_), inqueue_(n_) {
    read_factors(a);

    ResVec used(n_);
    for (size_t i = 0; i < s.node_count(); ++i) {
      sdk::Res u = s.node(i).used();
      if (u) used.add(u.data());
    }
    idle_ = om::idle(s.cluster_total().copy(), factors_, used);

    for (size_t i = 0; i < s.job_count(); ++i) {
      const sdk::Job j = s.job(i);
      const sdk::Res min = j.min_resources();
      if (!min) continue;
      if (j.phase() == CAL_PHASE_INQUEUE) {
        inqueue_.add(min.data());
      } else if (j.phase() == CAL_PHASE_RUNNING &&
                 om::running_job_reserves(allocated_tasks(j), j.min_available())) {
        sdk::Res alloc = j.allocated();
        const ResVec held = alloc ? alloc.copy() : ResVec(n_);
        inqueue_.add(om::running_reserve(min.data(), held.data(), n_));
      }
    }
  }

  cal_vote job_enqueueable(sdk::Job j) {
    const sdk::Res min = j.min_resources();
    if (!min) return CAL_PERMIT;  // best effort: nothing to reserve
    const std::vector<size_t> over = om::overused_dims(inqueue_, min.data(), idle_);
    if (over.empty()) return CAL_PERMIT;
    j.set_pending_reason(kName, overused_reason(over, min.data()));
    return CAL_REJECT;
  }

  void job_enqueued(sdk::Job j) {
    const sdk::Res min = j.min_resources();
    if (min) inqueue_.add(min.data());
  }

 private:
  // Volcano's util.CalculateAllocatedTaskNum: tasks in AllocatedStatus.
  static int32_t allocated_tasks(const sdk::Job& j) {
    return j.status_count(CAL_TASK_ALLOCATED) + j.status_count(CAL_TASK_BINDING) +
           j.status_count(CAL_TASK_BOUND) + j.status_count(CAL_TASK_RUNNING);
  }

  // parse() and validate(): one factor for every dimension, as Volcano ed72c7c has it; an
  // invalid one (only possible when the host skipped check_args) falls back to Volcano's
  // default 1.2.
  void read_factors(const sdk::Args& a) { factors_.fill(checked(kFactor.name, a.get(kFactor))); }

  static double checked(const std::string& key, double f) {
    if (om::valid_factor(f)) return f;
    sdk::log(CAL_LOG_WARN, kName,
             "argument " + key + " = " + num(f) + " is invalid: an overcommit factor must be "
             "a finite number >= 1; using the default " + num(om::kDefaultFactor));
    return om::kDefaultFactor;
  }

  // "resource in cluster is overused: cpu inqueue 4000 + job 3000 > idle 6000 (factor 1.2)"
  std::string overused_reason(const std::vector<size_t>& over, const double* min) const {
    std::string s = "resource in cluster is overused:";
    for (size_t k = 0; k < over.size(); ++k) {
      const size_t i = over[k];
      s += (k ? "; " : " ") + std::string(ssn_.resource_name(i)) + " inqueue " +
           num(inqueue_[i]) + " + job " + num(min[i]) + " > idle " + num(idle_[i]) +
           " (factor " + num(factors_[i]) + ")";
    }
    return s;
  }

  sdk::Session ssn_;
  size_t n_;
  ResVec factors_;
  ResVec idle_;
  ResVec inqueue_;
};

}  // namespace

CALDERA_PLUGIN(Overcommit)
