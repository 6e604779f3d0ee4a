// The dry run of gangpreempt and gangreclaim (see the header). Volcano ed72c7c:
// pkg/scheduler/actions/utils/simulate.go.
#include "actions/gang_simulate.hpp"

#include <memory>
#include <set>

#include <spdlog/spdlog.h>

#include "actions/eviction.hpp"
#include "actions/gang_bundles.hpp"
#include "actions/placement.hpp"
#include "actions/predicate_helper.hpp"
#include "actions/priority_queue.hpp"

namespace caldera::gang {

namespace {

// Volcano's simulatePredicate: the task's InitResreq must fit the node's future idle
// before the plugins are asked, and a plain Unschedulable from them passes
// (PredicateForPreemptAction): the victims may resolve it.
constexpr NodeFilter kSimulateFilter{true, true};

// Volcano's organizeEvictionWorksheet for the job's one sub-job: its pending tasks that
// request something, in task order (Volcano pops them from a priority queue by TaskOrderFn).
std::vector<TaskInfo*> eviction_worksheet(const Session& ssn, const JobInfo* job) {
  PriorityQueue<TaskInfo*> q([&ssn](TaskInfo* const& l, TaskInfo* const& r) {
    return ssn.task_order_less(l, r);
  });
  for (TaskInfo* t : job->tasks)
    if (t->status == CAL_TASK_PENDING && !t->resreq.is_empty()) q.push(t);
  std::vector<TaskInfo*> out;
  while (!q.empty()) out.push_back(q.pop());
  return out;
}

// Volcano's intersectNodesByName(candidate, FilterOutUnschedulableAndUnresolvableNodes-
// ForTask(task)): the HyperNode's nodes that the task's last fit errors did not find
// unresolvable; all of them when that filter leaves no node at all (Volcano reads an empty
// filter as no restriction).
std::vector<NodeInfo*> schedulable_in(const Session& ssn, const TaskInfo* task,
                                      const std::vector<NodeInfo*>& candidate) {
  if (task->unresolvable_nodes.empty()) return candidate;
  const std::vector<NodeInfo*> schedulable = ssn.nodes_not_unresolvable(task);
  if (schedulable.empty()) return candidate;
  std::set<const NodeInfo*> allow(schedulable.begin(), schedulable.end());
  std::vector<NodeInfo*> out;
  for (NodeInfo* n : candidate)
    if (allow.count(n) != 0) out.push_back(n);
  return out;
}

// Volcano's prioritizeNodesForSimulate: the nodes whose idle holds the task, else those
// whose future idle does; the only one, or the best scored.
NodeInfo* prioritize_nodes_for_simulate(const Session& ssn, const TaskInfo* task,
                                        const std::vector<NodeInfo*>& nodes) {
  std::vector<NodeInfo*> idle_fit, future_fit;
  for (NodeInfo* n : nodes) {
    if (placement::fits(task->init_resreq, n->idle))
      idle_fit.push_back(n);
    else if (placement::fits(task->init_resreq, n->future_idle))
      future_fit.push_back(n);
  }
  if (NodeInfo* n = placement::select_node(ssn, task, idle_fit)) return n;
  return placement::select_node(ssn, task, future_fit);
}

// One trial of Volcano's runSimulateTrialAtHyperNode: every task pipelined inside `where`.
// On success the placements stay in `trial` (and in the session); on failure `trial` is
// discarded.
bool run_simulate_trial(Session& ssn, QueueInfo* queue, JobInfo* job,
                        const std::vector<TaskInfo*>& tasks, const Domain& where,
                        bool victims_present, bool error_cache, Statement& trial,
                        std::vector<NominationPlan::Pipelined>& placed) {
  const std::vector<NodeInfo*>& candidate = *where.nodes;
  if (candidate.empty()) return false;
  placed.clear();
  PredicateHelper ph(ssn, error_cache);  // one per trial, as Volcano's
  auto fail = [&] {
    trial.discard();
    placed.clear();
    return false;
  };
  for (TaskInfo* task : tasks) {
    if (queue != nullptr && !ssn.allocatable(queue, task)) return fail();
    const std::vector<NodeInfo*> nodes = schedulable_in(ssn, task, candidate);
    if (nodes.empty()) return fail();
    if (!ssn.pre_predicate(task).ok()) return fail();
    const std::vector<NodeInfo*> feasible =
        ph.predicate_nodes(task, nodes, kSimulateFilter, nullptr);
    if (feasible.empty()) return fail();
    NodeInfo* best = prioritize_nodes_for_simulate(ssn, task, feasible);
    if (best == nullptr) return fail();
    if (!placement::fits(task->init_resreq, best->future_idle)) return fail();
    if (!eviction::try_pipeline(trial, task, best, victims_present)) return fail();
    placed.push_back({task, best, victims_present});
  }
  if (trial.empty()) return fail();
  // Volcano's SubJobReady || SubJobPipelined, which for a job without sub-group policies
  // are JobReady and JobPipelined.
  if (!ssn.job_ready(job) && !ssn.job_pipelined(job)) return fail();
  return true;
}

}  // namespace

std::vector<TaskInfo*> collect_pending_tasks_for_gang_eviction(const Session& ssn,
                                                               const JobInfo* job) {
  // Volcano takes the first sub-job with pending tasks when the job is ready and every
  // sub-job's otherwise; with one sub-job both are its worksheet.
  if (job == nullptr) return {};
  return eviction_worksheet(ssn, job);
}

std::optional<NominationPlan> build_nomination_plan_in_domain(
    Session& ssn, const EvictionDomains& domains, QueueInfo* queue, JobInfo* job,
    const Domain& domain, const std::vector<TaskInfo*>& victims, const std::string& reason,
    bool predicate_error_cache) {
  if (job == nullptr || domain.nodes == nullptr || domain.nodes->empty()) return std::nullopt;
  const std::vector<TaskInfo*> tasks = eviction_worksheet(ssn, job);
  if (tasks.empty()) return std::nullopt;

  const bool victims_present = !victims.empty();

  // The chain: the victims' statement, then the winning trial; undone in reverse order on
  // every way out (Volcano's deferred discardChain), after the plan is taken.
  NominationPlan plan;
  Statement victim_stmt(ssn);
  for (TaskInfo* v : victims)
    if (eviction::try_evict(victim_stmt, v, reason)) plan.victims.push_back(v);

  Statement trial(ssn);
  bool won = false;
  if (domains.hard(job)) {
    const ResVec pending = sum_init_resreq(tasks, ssn.resource_count());
    for (const auto& row : domains.sub_job_gradients(job, domain, pending)) {
      for (const Domain& hn : row) {
        if (run_simulate_trial(ssn, queue, job, tasks, hn, victims_present,
                               predicate_error_cache, trial, plan.pipelined)) {
          plan.hypernode = std::string(hn.name);
          won = true;
          break;
        }
      }
      if (won) break;
    }
  } else if (run_simulate_trial(ssn, queue, job, tasks, domain, victims_present,
                                predicate_error_cache, trial, plan.pipelined)) {
    plan.hypernode = std::string(domain.name);
    won = true;
  }

  // Volcano's loop over sub-jobs stops once the job was ready before the dry run or is
  // pipelined now; with one sub-job it ends here either way, and the job must be pipelined.
  const bool pipelined = won && ssn.job_pipelined(job);
  trial.discard();
  victim_stmt.discard();
  if (!pipelined) return std::nullopt;
  spdlog::debug("{}: job {} fits in {} after evicting {} task(s)", reason, job->uid,
                plan.hypernode, plan.victims.size());
  return plan;
}

bool recover_operations(Statement& stmt, const NominationPlan& plan, const std::string& reason) {
  for (TaskInfo* v : plan.victims) eviction::try_evict(stmt, v, reason);
  for (const NominationPlan::Pipelined& p : plan.pipelined)
    if (!eviction::try_pipeline(stmt, p.task, p.node, p.eviction_occurred)) return false;
  return true;
}

}  // namespace caldera::gang
