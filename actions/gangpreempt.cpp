// The gangpreempt action: Volcano ed72c7c's pkg/scheduler/actions/gangpreempt/gangpreempt.go.
//
// Starving jobs take room from lower-priority jobs of their own queue, a whole gang at a
// time and inside one eviction domain (a HyperNode, or the whole cluster):
//   Every queue of a job in play, in queue order; its starving jobs in job order, each in a
//   statement of its own: the job's pending tasks (those that request something) are its
//   need; its domains are tried in turn (gang_domains.hpp). In a domain, the victims are
//   the Running or Bound, preemptable tasks on the domain's nodes of OTHER jobs of the SAME
//   queue whose job priority is lower than the preemptor job's, and whose PodGroup does not
//   say volcano.sh/preemptable: false. They are bundled per victim job (gang_bundles.hpp),
//   ordered safe before whole, then the victim jobs in reverse job order, then by what they
//   free of the need, and cut to what the plugins allow (unified_evictable, kind
//   gang-preempt). Bundles are added in that order until the domain's idle and releasing
//   resources plus the victims' hold the need; then the eviction and the placement of every
//   pending task of the job in the domain are dry-run (gang_simulate.hpp), and the first
//   dry run that leaves the job pipelined is replayed in its statement. The statement
//   commits when the job is pipelined, else it is discarded.
//
// What it does differently from preempt (actions/preempt.cpp):
//   - victims are chosen per job and per domain, not per task and node: a job's victims
//     come as whole bundles and it is placed whole or not at all;
//   - each victim's gang is kept: the tasks a victim job can spare above its minMember
//     (and its roles' minTaskMember) go first, the rest only as the whole job's bundle, and
//     only with allowWholeBundle;
//   - the priority test is the job's priority (preemptor job above victim job); preempt
//     asks the preemptable plugins per task and also evicts within a job by task priority,
//     which gangpreempt never does;
//   - a best-effort preemptor may evict a task that requests resources (Volcano removed
//     that check here and leaves it to the plugins);
//   - a job with a network topology takes part, inside its HyperNodes (preempt skips such
//     jobs);
//   - nothing is evicted until a dry run shows the job pipelined with those victims; the
//     preemptionPolicy Never and nominated-node checks of preempt's taskEligibleToPreempt
//     are not made.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "actions/action.hpp"
#include "actions/gang_eviction.hpp"
#include "actions/gang_simulate.hpp"

namespace caldera {
namespace {

using namespace gang;

constexpr const char* kName = "gangpreempt";

class GangPreemptAction final : public Action {
 public:
  std::string name() const override { return kName; }
  void execute(Session& ssn) override;

 private:
  bool preempt_job_in_domains(Session& ssn, Statement& stmt, const EvictionDomains& domains,
                              QueueInfo* queue, JobInfo* preemptor_job);
  std::vector<Bundle> select_domain_bundles(Session& ssn, JobInfo* preemptor_job,
                                            const ResVec& job_need, const Domain& domain);
  Options opt_;
};

void GangPreemptAction::execute(Session& ssn) {
  opt_ = read_options(ssn, kName);
  const EvictionDomains domains(ssn, evict_max_hypernodes(ssn));
  Preemptors p(ssn, kName);
  while (!p.queues.empty()) {
    QueueInfo* queue = p.queues.pop();
    auto it = p.jobs.find(queue);
    if (it == p.jobs.end()) continue;
    while (!it->second.empty()) {
      JobInfo* preemptor_job = it->second.pop();
      Statement stmt(ssn);
      preempt_job_in_domains(ssn, stmt, domains, queue, preemptor_job);
      finish_job(ssn, stmt, preemptor_job, kName);
    }
  }
}

bool GangPreemptAction::preempt_job_in_domains(Session& ssn, Statement& stmt,
                                               const EvictionDomains& domains, QueueInfo* queue,
                                               JobInfo* preemptor_job) {
  const std::vector<TaskInfo*> pending = collect_pending_tasks_for_gang_eviction(ssn, preemptor_job);
  if (pending.empty()) return false;
  const ResVec job_need = sum_init_resreq(pending, ssn.resource_count());
  return evict_in_domains(
      ssn, stmt, domains, queue, preemptor_job, pending,
      [&](const Domain& d) { return select_domain_bundles(ssn, preemptor_job, job_need, d); },
      kName, opt_);
}

std::vector<Bundle> GangPreemptAction::select_domain_bundles(Session& ssn,
                                                             JobInfo* preemptor_job,
                                                             const ResVec& job_need,
                                                             const Domain& domain) {
  std::vector<Bundle> bundles =
      victim_bundles(*domain.nodes, ssn.resource_count(), [&](const TaskInfo* task) {
        if (!preemptable_status(task->status) || !task->preemptable) return false;
        // Volcano's preempt leaves a task that requests resources alone when the preemptor
        // is best-effort; gangpreempt leaves that to the unified_evictable plugins.
        const JobInfo* victim_job = task->job;
        return victim_job->queue == preemptor_job->queue &&
               is_job_preemptable_for_gang_eviction(victim_job) &&
               preemptor_job->priority > victim_job->priority && victim_job != preemptor_job;
      });

  // Victim jobs in reverse job order (Volcano: !JobOrderFn(l, r)).
  auto sort = [&](std::vector<Bundle>& bs) {
    sort_bundles_for_preempt(bs, job_need, [&ssn](const JobInfo* l, const JobInfo* r) {
      return !ssn.job_order_less(l, r);
    });
  };
  return allowed_bundles(ssn, CAL_EVICTION_GANG_PREEMPT, preemptor_job, domain,
                         std::move(bundles), sort, opt_.allow_whole_bundle);
}

std::unique_ptr<Action> make_gangpreempt() { return std::make_unique<GangPreemptAction>(); }

}  // namespace

ActionInfo gangpreempt_action_info() {
  return ActionInfo{
      kName,
      "Starving jobs evict whole lower-priority jobs (or the tasks those can spare above "
      "their gang minimum) of their own queue inside one HyperNode, after a dry run shows "
      "the starving job placed whole; it is then pipelined.",
      action_options(),
      &make_gangpreempt,
  };
}

}  // namespace caldera
