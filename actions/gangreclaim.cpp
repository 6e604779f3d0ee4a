// The gangreclaim action: Volcano ed72c7c's pkg/scheduler/actions/gangreclaim/gangreclaim.go.
//
// Queues that are not overused take room back from other queues, a whole gang at a time
// and inside one eviction domain (a HyperNode, or the whole cluster):
//   Every queue of a job in play, in queue order, unless it is overused; its starving jobs
//   in job order, each in a statement of its own: the job's pending tasks (those that
//   request something) are its need, and the queue must be allowed to reclaim for all of
//   them at once (preemptive, over the whole list); its domains are tried in turn
//   (gang_domains.hpp). In a domain, the victims are the Running, preemptable tasks on the
//   domain's nodes of jobs of OTHER queues that are reclaimable, whose PodGroup does not
//   say volcano.sh/preemptable: false. They are bundled per victim job (gang_bundles.hpp),
//   ordered safe before whole, then by victim queue (the reverse of queue order), then by
//   what they free of the need, and cut to what the plugins allow (unified_evictable, kind
//   gang-reclaim). Then as gangpreempt: bundles are added until the domain can hold the
//   need, the eviction and the placement of the whole job are dry-run, and the first dry run
//   that leaves the job pipelined is replayed; the statement commits when the job is
//   pipelined, else it is discarded.
//
// What it does differently from reclaim (actions/reclaim.cpp):
//   - victims are chosen per job and per domain, not per task and node, and the job is
//     placed whole or not at all, after a dry run;
//   - each victim's gang is kept (safe bundles first; whole jobs only with
//     allowWholeBundle);
//   - preemptive is asked once for all the job's pending tasks together (reclaim asks per
//     task), and a task's preemptionPolicy Never is not looked at;
//   - which victims the queues give up is the unified_evictable plugins' answer (capacity
//     keeps each victim queue at its guarantee and takes only from queues above deserved),
//     not the reclaimable plugins';
//   - a job with a network topology takes part, inside its HyperNodes.
// Not modelled: capacity's victim queue order for hierarchical queues (Volcano's
// VictimQueueOrderFn has no extension point in Caldera), so victim queues are always in the
// reverse of queue order.
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

constexpr const char* kName = "gangreclaim";

class GangReclaimAction final : public Action {
 public:
  std::string name() const override { return kName; }
  void execute(Session& ssn) override;

 private:
  bool reclaim_job_in_domains(Session& ssn, Statement& stmt, const EvictionDomains& domains,
                              QueueInfo* queue, JobInfo* job);
  std::vector<Bundle> select_domain_bundles(Session& ssn, JobInfo* reclaimer_job,
                                            const ResVec& job_need, const Domain& domain);
  Options opt_;
};

void GangReclaimAction::execute(Session& ssn) {
  opt_ = read_options(ssn, kName);
  const EvictionDomains domains(ssn, evict_max_hypernodes(ssn));
  Preemptors p(ssn, kName);
  while (!p.queues.empty()) {
    QueueInfo* queue = p.queues.pop();
    if (ssn.overused(queue)) {
      spdlog::debug("{}: queue {} is overused, ignore it", kName, queue->name);
      continue;
    }
    auto it = p.jobs.find(queue);
    if (it == p.jobs.end()) continue;
    while (!it->second.empty()) {
      JobInfo* job = it->second.pop();
      Statement stmt(ssn);
      reclaim_job_in_domains(ssn, stmt, domains, queue, job);
      finish_job(ssn, stmt, job, kName);
    }
  }
}

bool GangReclaimAction::reclaim_job_in_domains(Session& ssn, Statement& stmt,
                                               const EvictionDomains& domains, QueueInfo* queue,
                                               JobInfo* job) {
  const std::vector<TaskInfo*> pending = collect_pending_tasks_for_gang_eviction(ssn, job);
  if (pending.empty()) return false;
  if (!ssn.preemptive(queue, pending)) {
    spdlog::debug("{}: queue {} cannot reclaim for job {}, skip", kName, queue->name, job->uid);
    return false;
  }
  const ResVec job_need = sum_init_resreq(pending, ssn.resource_count());
  return evict_in_domains(
      ssn, stmt, domains, queue, job, pending,
      [&](const Domain& d) { return select_domain_bundles(ssn, job, job_need, d); }, kName,
      opt_);
}

std::vector<Bundle> GangReclaimAction::select_domain_bundles(Session& ssn, JobInfo* reclaimer_job,
                                                             const ResVec& job_need,
                                                             const Domain& domain) {
  std::vector<Bundle> bundles =
      victim_bundles(*domain.nodes, ssn.resource_count(), [&](const TaskInfo* task) {
        if (task->status != CAL_TASK_RUNNING || !task->preemptable) return false;
        const JobInfo* victim_job = task->job;
        return victim_job->queue != reclaimer_job->queue &&
               is_job_preemptable_for_gang_eviction(victim_job) && victim_job->queue != nullptr &&
               victim_job->queue->reclaimable;
      });

  // Volcano's queueLessFn: VictimQueueOrderFn against the reclaimer's queue, which without
  // a victim-queue-order plugin is !QueueOrderFn(l, r).
  auto sort = [&](std::vector<Bundle>& bs) {
    sort_bundles_for_reclaim(bs, job_need, [&ssn](const QueueInfo* l, const QueueInfo* r) {
      return !ssn.queue_order_less(l, r);
    });
  };
  return allowed_bundles(ssn, CAL_EVICTION_GANG_RECLAIM, reclaimer_job, domain,
                         std::move(bundles), sort, opt_.allow_whole_bundle);
}

std::unique_ptr<Action> make_gangreclaim() { return std::make_unique<GangReclaimAction>(); }

}  // namespace

ActionInfo gangreclaim_action_info() {
  return ActionInfo{
      kName,
      "Queues that are not overused take room back from reclaimable queues by evicting whole "
      "jobs (or the tasks those can spare above their gang minimum) inside one HyperNode, "
      "after a dry run shows the starving job placed whole; it is then pipelined.",
      action_options(),
      &make_gangreclaim,
  };
}

}  // namespace caldera
