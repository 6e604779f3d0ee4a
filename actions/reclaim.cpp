// The reclaim action: Volcano's pkg/scheduler/actions/reclaim/reclaim.go (Execute and
// reclaimForTask; the victim filter is reclaim_victim.go's isReclaimVictimTask).
//
// A queue that is not overused takes back resources from other queues:
//   queues in queue order; an overused queue is skipped. For each of its starving jobs in
//   job order, a Statement; the job's pending tasks in task order (while the job starves)
//   each try to reclaim: preemptionPolicy Never skips the task, Session::preemptive(queue,
//   task) must allow it, and the pre-predicate must pass. For one task, on every node that
//   passes the preemption predicate (failures other than CAL_UNSCHEDULABLE rule a node
//   out), the candidates are the node's Running, preemptable tasks of OTHER queues that are
//   reclaimable, in victim order (eviction::victim_less); Session::reclaimable picks the
//   victims; they are evicted lowest first, each only while the task's InitResreq does not
//   fit the node's future idle plus what was evicted yet, in a statement of the node's own;
//   when it fits, the task is pipelined there, that statement joins the job's, and the
//   next task is tried; when it does not, the node's evictions are undone. The job's statement commits when the job is pipelined, else it is discarded.
//
// Deterministic where Volcano is not: jobs are collected in the session's order (uid) and
// nodes are tried in node-name order (Volcano: its parallel predicate's order).
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "actions/action.hpp"
#include "actions/eviction.hpp"
#include "actions/predicate_helper.hpp"
#include "actions/priority_queue.hpp"
#include "host/session/statement.hpp"

namespace caldera {
namespace {

using eviction::fits;

constexpr const char* kPredicateErrorCache = "predicateErrorCacheEnable";

// Volcano's isReclaimVictimTask: a Running, preemptable task of a job in another queue
// that can be reclaimed from.
bool is_reclaim_victim(const TaskInfo* t, const JobInfo* reclaimer_job) {
  if (t->status != CAL_TASK_RUNNING || !t->preemptable) return false;
  if (!t->job || !t->job->queue) return false;
  if (t->job->queue == reclaimer_job->queue) return false;
  return t->job->queue->reclaimable;
}

class ReclaimAction final : public Action {
 public:
  std::string name() const override { return "reclaim"; }
  void execute(Session& ssn) override;

 private:
  void reclaim_for_task(Session& ssn, Statement& stmt, TaskInfo* task, JobInfo* job);
  bool predicate_error_cache_ = true;
};

void ReclaimAction::execute(Session& ssn) {
  predicate_error_cache_ = ssn.action_args("reclaim").get_bool(kPredicateErrorCache, true);

  PriorityQueue<QueueInfo*> queues(
      [&ssn](QueueInfo* const& l, QueueInfo* const& r) { return ssn.queue_order_less(l, r); });
  auto job_less = [&ssn](JobInfo* const& l, JobInfo* const& r) { return ssn.job_order_less(l, r); };
  auto task_less = [&ssn](TaskInfo* const& l, TaskInfo* const& r) {
    return ssn.task_order_less(l, r);
  };

  std::set<const QueueInfo*> queue_seen;
  std::map<const QueueInfo*, PriorityQueue<JobInfo*>> preemptors_map;
  std::map<const JobInfo*, PriorityQueue<TaskInfo*>> preemptor_tasks;

  for (JobInfo* job : ssn.jobs()) {
    if (job->is_pending()) continue;
    if (PointStatus vr = ssn.job_valid(job); !vr.ok()) {
      spdlog::debug("reclaim: job {} skipped: {}", job->uid, vr.reason);
      continue;
    }
    if (!job->queue) {
      spdlog::error("reclaim: job {} has no queue in the session", job->uid);
      continue;
    }
    if (queue_seen.insert(job->queue).second) queues.push(job->queue);
    if (ssn.job_starving(job)) {
      preemptors_map.try_emplace(job->queue, job_less).first->second.push(job);
      PriorityQueue<TaskInfo*> tasks(task_less);
      for (TaskInfo* t : job->tasks)
        if (t->status == CAL_TASK_PENDING) tasks.push(t);
      preemptor_tasks.insert_or_assign(job, std::move(tasks));
    }
  }

  while (!queues.empty()) {
    QueueInfo* queue = queues.pop();
    if (ssn.overused(queue)) {
      spdlog::debug("reclaim: queue {} is overused, ignore it", queue->name);
      continue;
    }
    for (;;) {
      auto jit = preemptors_map.find(queue);
      if (jit == preemptors_map.end() || jit->second.empty()) break;
      PriorityQueue<JobInfo*>& jobs = jit->second;
      JobInfo* job = jobs.pop();
      Statement stmt(ssn);

      for (;;) {
        if (!ssn.job_starving(job)) break;
        auto tit = preemptor_tasks.find(job);
        if (tit == preemptor_tasks.end() || tit->second.empty()) {
          spdlog::debug("reclaim: no reclaimer task left in job {}", job->uid);
          break;
        }
        TaskInfo* task = tit->second.pop();
        if (task->preempt_never) {
          spdlog::debug("reclaim: task {} cannot reclaim: preemptionPolicy is Never", task->uid);
          continue;
        }
        if (!ssn.preemptive(queue, task)) {
          spdlog::debug("reclaim: queue {} cannot reclaim for task {}", queue->name, task->uid);
          continue;
        }
        if (PointStatus st = ssn.pre_predicate(task); !st.ok()) {
          spdlog::debug("reclaim: pre-predicate for task {} failed: {}", task->uid, st.reason);
          continue;
        }
        reclaim_for_task(ssn, stmt, task, job);
      }

      if (ssn.job_pipelined(job)) {
        stmt.commit();
      } else {
        stmt.discard();
      }
      // Volcano puts the queue back while it still has starving jobs; the loop above goes
      // on with them anyway, so a later pop of the queue finds nothing left.
      if (!jobs.empty()) queues.push(queue);
    }
  }
}

void ReclaimAction::reclaim_for_task(Session& ssn, Statement& stmt, TaskInfo* task, JobInfo* job) {
  // A fresh helper per task, as in Volcano: its error cache never serves within one walk.
  PredicateHelper ph(ssn, predicate_error_cache_);
  // Nodes the task's last fit errors found unresolvable are not tried (Volcano's
  // FilterOutUnschedulableAndUnresolvableNodesForTask).
  const std::vector<NodeInfo*> nodes =
      ph.predicate_nodes(task, ssn.nodes_not_unresolvable(task), kPreemptFilter, nullptr);

  for (NodeInfo* n : nodes) {
    std::vector<TaskInfo*> reclaimees;
    for (TaskInfo* t : n->tasks)
      if (is_reclaim_victim(t, job)) reclaimees.push_back(t);
    if (reclaimees.empty()) {
      spdlog::debug("reclaim: no reclaimees on node {}", n->name);
      continue;
    }
    // Volcano collects them from a map (any order) and capacity's reclaimableFn walks them
    // through BuildVictimsPriorityQueue; passing them in that order makes capacity pick
    // Volcano's victims, and is one of the orders the other plugins may see in Volcano.
    std::stable_sort(reclaimees.begin(), reclaimees.end(),
                     [&ssn](const TaskInfo* l, const TaskInfo* r) {
                       return eviction::victim_less(ssn, l, r);
                     });
    const std::vector<TaskInfo*> victims = ssn.reclaimable(task, reclaimees);
    std::string why;
    if (!eviction::validate_victims(task, n, victims, &why)) {
      spdlog::debug("reclaim: no valid victims on node {} for task {}: {}", n->name, task->uid,
                    why);
      continue;
    }

    // What the node will have for the task: its future idle plus what is evicted for it.
    // Volcano ed72c7c checks before each eviction, so a task that already fits in what
    // the node is releasing evicts nobody, and no more is reclaimed than needed. The
    // evictions go into a statement of this node's own: merged into the job's statement
    // only when the task is pipelined here, discarded when it still does not fit, so
    // victims on a node that ends up unused are never evicted.
    ResVec available = n->future_idle;
    Statement node_stmt(ssn);
    PriorityQueue<TaskInfo*> victims_q = eviction::victims_queue(ssn, victims);
    bool eviction_occurred = false;
    while (!victims_q.empty()) {
      if (fits(task->init_resreq, available)) break;
      TaskInfo* reclaimee = victims_q.pop();
      spdlog::debug("reclaim: task {} evicted for task {} on node {}", reclaimee->uid, task->uid,
                    n->name);
      if (!eviction::try_evict(node_stmt, reclaimee, "reclaim")) continue;
      available.add(reclaimee->resreq);
      eviction_occurred = true;
    }
    if (!fits(task->init_resreq, available) ||
        !eviction::try_pipeline(node_stmt, task, n, eviction_occurred)) {
      node_stmt.discard();
      continue;
    }
    stmt.merge(std::move(node_stmt));
    return;
  }
}

std::unique_ptr<Action> make_reclaim() { return std::make_unique<ReclaimAction>(); }

}  // namespace

ActionInfo reclaim_action_info() {
  return ActionInfo{
      "reclaim",
      "Queues that are not overused take resources back from reclaimable queues by evicting "
      "their preemptable running tasks, lowest first, and pipeline their starving jobs.",
      {
          cal_option{sizeof(cal_option), kPredicateErrorCache, CAL_OPT_BOOL, "true",
                     "Volcano's predicate error cache (reclaim builds a fresh cache for each "
                     "task, so it does not change decisions here)."},
      },
      &make_reclaim,
  };
}

}  // namespace caldera
