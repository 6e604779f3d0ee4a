// What gangpreempt and gangreclaim share (see the header). Volcano ed72c7c:
// pkg/scheduler/actions/gangpreempt/gangpreempt.go, gangreclaim/gangreclaim.go,
// actions/utils/util.go.
#include "actions/gang_eviction.hpp"

#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "actions/gang_simulate.hpp"
#include "actions/placement.hpp"

namespace caldera::gang {

namespace {
constexpr const char* kPredicateErrorCacheKey = "predicateErrorCacheEnable";  // allocate's
constexpr const char* kPodPreemptable = "volcano.sh/preemptable";

// Go's strconv.ParseBool.
std::optional<bool> parse_go_bool(std::string_view v) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"})
    if (v == t) return true;
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"})
    if (v == f) return false;
  return std::nullopt;
}
}  // namespace

Options read_options(const Session& ssn, const std::string& action) {
  const Args& a = ssn.action_args(action);
  Options o;
  const int64_t given = a.get_int(kMaxDomainsKey, kDefaultMaxDomains);
  o.max_domains = given > 0 ? given : kDefaultMaxDomains;
  o.allow_whole_bundle = a.get_bool(kAllowWholeBundleKey, true);
  o.predicate_error_cache = ssn.action_args("allocate").get_bool(kPredicateErrorCacheKey, true);
  // Volcano warns every session; sessions come every period, so once per change here.
  const std::string problem =
      given > 0 ? std::string()
                : fmt::format("{} = {} is not positive; the default {} is used", kMaxDomainsKey,
                              given, kDefaultMaxDomains);
  if (ssn.runtime().changed("actions." + action, problem) && !problem.empty())
    spdlog::warn("[actions.{}]: {}", action, problem);
  return o;
}

std::vector<cal_option> action_options() {
  return {
      cal_option{sizeof(cal_option), kMaxDomainsKey, CAL_OPT_INT, "8",
                 "At most this many eviction domains (HyperNodes, or the whole cluster) are "
                 "tried for each starving job; not positive: 8."},
      cal_option{sizeof(cal_option), kAllowWholeBundleKey, CAL_OPT_BOOL, "true",
                 "Victim jobs may be evicted whole (every task of theirs that the domain "
                 "offers) when sparing tasks above their gang minimum is not enough."},
  };
}

bool is_job_preemptable_for_gang_eviction(const JobInfo* job) {
  if (job == nullptr || job->podgroup == nullptr) return true;
  auto it = job->podgroup->annotations.find(kPodPreemptable);
  if (it == job->podgroup->annotations.end()) return true;
  return parse_go_bool(it->second).value_or(false);
}

Preemptors::Preemptors(Session& ssn, const std::string& action)
    : queues([&ssn](QueueInfo* const& l, QueueInfo* const& r) {
        return ssn.queue_order_less(l, r);
      }) {
  std::set<const QueueInfo*> seen;
  for (JobInfo* job : ssn.jobs()) {
    if (job->is_pending()) continue;
    if (PointStatus vr = ssn.job_valid(job); !vr.ok()) {
      spdlog::debug("{}: job {} skipped: {}", action, job->uid, vr.reason);
      continue;
    }
    if (job->queue == nullptr) continue;
    // Every queue with a job in play is walked, whether or not it has starving jobs.
    if (seen.insert(job->queue).second) queues.push(job->queue);
    if (!ssn.job_starving(job)) continue;
    jobs.try_emplace(job->queue, [&ssn](JobInfo* const& l, JobInfo* const& r) {
          return ssn.job_order_less(l, r);
        }).first->second.push(job);
  }
}

std::vector<Bundle> allowed_bundles(const Session& ssn, cal_eviction_kind kind,
                                    const JobInfo* job, const Domain& domain,
                                    std::vector<Bundle> bundles,
                                    const std::function<void(std::vector<Bundle>&)>& sort,
                                    bool allow_whole_bundle) {
  if (bundles.empty()) return {};
  sort(bundles);
  EvictionContext ctx;
  ctx.kind = kind;
  ctx.job = job;
  ctx.hypernode = domain.name;
  ctx.hypernode_info = domain.hypernode;
  const std::vector<TaskInfo*> allowed = ssn.unified_evictable(ctx, flatten_bundles(bundles));
  if (allowed.empty()) return {};
  const std::set<const TaskInfo*> allowed_set(allowed.begin(), allowed.end());
  std::vector<Bundle> valid = apply_allowed_tasks(bundles, allowed_set);
  if (valid.empty()) return {};
  sort(valid);
  std::vector<Bundle> selected;
  for (Bundle& b : valid) {
    if (b.type == BundleType::Whole && !allow_whole_bundle) continue;
    selected.push_back(std::move(b));
  }
  return selected;
}

bool evict_in_domains(Session& ssn, Statement& stmt, const EvictionDomains& domains,
                      QueueInfo* queue, JobInfo* job, const std::vector<TaskInfo*>& pending,
                      const std::function<std::vector<Bundle>(const Domain&)>& select_bundles,
                      const std::string& reason, const Options& opt) {
  const size_t R = ssn.resource_count();
  const ResVec need = sum_init_resreq(pending, R);
  for (const Domain& domain : domains.candidates(job, opt.max_domains)) {
    if (domain.nodes->empty()) continue;
    const std::vector<Bundle> bundles = select_bundles(domain);
    if (bundles.empty()) continue;
    const ResVec idle = sum_idle_and_releasing(*domain.nodes, R);
    std::vector<TaskInfo*> selected;
    for (const Bundle& b : bundles) {
      selected.insert(selected.end(), b.tasks.begin(), b.tasks.end());
      ResVec available = idle;
      available.add(sum_resreq(selected, R).data());
      if (!placement::fits(need, available)) continue;
      std::optional<NominationPlan> plan = build_nomination_plan_in_domain(
          ssn, domains, queue, job, domain, selected, reason, opt.predicate_error_cache);
      if (!plan) continue;
      if (!recover_operations(stmt, *plan, reason)) continue;
      spdlog::debug("{}: job {} pipelined in {} ({}) evicting {} task(s)", reason, job->uid,
                    plan->hypernode, domain.name, plan->victims.size());
      return true;
    }
  }
  return false;
}

void finish_job(Session& ssn, Statement& stmt, JobInfo* job, const std::string& action) {
  if (ssn.job_pipelined(job)) {
    stmt.commit();
  } else {
    spdlog::debug("{}: job {} is not pipelined, its evictions are undone", action, job->uid);
    stmt.discard();
  }
}

}  // namespace caldera::gang
