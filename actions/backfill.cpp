// The backfill action: places best-effort tasks (tasks that request no resources) of
// admitted jobs on any node that passes the predicates.
//
// Follows Volcano's pkg/scheduler/actions/backfill/backfill.go:
//   pick up:  jobs that are not Pending and pass job_valid; of each, its Pending
//             best-effort tasks, and its Pipelined best-effort tasks after undoing the
//             pipeline (they are placed again from scratch). Tasks are taken queue by
//             queue (queue_order), job by job (job_order), task by task (task_order):
//             each queue's jobs are exhausted before the next queue.
//   place:    per task: a failed pre-predicate or no node passing the predicates records
//             why and backfill goes on with the next task (Volcano ed72c7c `continue`s).
//             Otherwise the only node, or the best by node order / best_node, gets it.
//   commit:   per task, as Volcano's Session.Allocate does: the task is allocated; when its
//             job is then ready, every allocated task of the job is bound; else the task
//             stays allocated in the session (no bind).
// The node check is the plugin predicates plus the pod count (a node at its pod limit
// takes no pod, best-effort or not). Volcano leaves the pod count to its predicates
// plugin; Caldera's actions check it themselves (see placement.hpp).
#include <spdlog/spdlog.h>

#include <map>

#include "actions/action.hpp"
#include "actions/placement.hpp"
#include "actions/predicate_helper.hpp"
#include "actions/priority_queue.hpp"
#include "host/session/statement.hpp"

namespace caldera {
namespace {

class BackfillAction : public Action {
 public:
  std::string name() const override { return "backfill"; }

  void execute(Session& ssn) override {
    for (TaskInfo* task : pick_up_pending_tasks(ssn)) {
      JobInfo* job = task->job;
      // Volcano makes one helper per task here, so its error cache never carries over
      // from one task to the next: no cache.
      PredicateHelper helper(ssn, false);

      PointStatus pre = ssn.pre_predicate(task);
      if (!pre.ok()) {
        FitErrors fe(ssn.reasons());
        placement::fail_every_node(fe, ssn.nodes().size(), placement::status_reason(pre));
        ssn.set_fit_error(task, fe.str());
        spdlog::debug("backfill: pre-predicate failed for {}", task->uid);
        continue;
      }

      FitErrors fe(ssn.reasons());
      std::vector<NodeInfo*> nodes = helper.predicate_nodes(task, kBackfillFilter, &fe);
      if (nodes.empty()) {
        ssn.set_fit_error(task, fe.str(), fe.unresolvable_nodes());
        spdlog::debug("backfill: no node for {}", task->uid);
        continue;
      }

      NodeInfo* node = placement::select_node(ssn, task, nodes);
      Statement stmt(ssn);
      stmt.allocate(task, node);
      if (ssn.job_ready(job)) {
        // Session.Allocate dispatches every allocated task of a ready job, including ones
        // an earlier action left allocated without a bind.
        stmt.dispatch_allocated(job);
        stmt.commit();
      } else {
        stmt.keep();
      }
    }
  }

 private:
  static std::vector<TaskInfo*> pick_up_pending_tasks(Session& ssn) {
    PriorityQueue<QueueInfo*> queues(
        [&ssn](QueueInfo* const& l, QueueInfo* const& r) { return ssn.queue_order_less(l, r); });
    std::map<QueueInfo*, PriorityQueue<JobInfo*>> jobs;
    std::map<JobInfo*, PriorityQueue<TaskInfo*>> tasks;
    auto task_less = [&ssn](TaskInfo* const& l, TaskInfo* const& r) {
      return ssn.task_order_less(l, r);
    };

    for (JobInfo* job : ssn.jobs()) {
      if (job->is_pending()) continue;
      PointStatus valid = ssn.job_valid(job);
      if (!valid.ok()) {
        spdlog::debug("backfill: job {} skipped: {}", job->uid, valid.reason);
        continue;
      }
      QueueInfo* queue = job->queue;
      if (queue == nullptr) continue;

      auto add = [&](TaskInfo* t) {
        auto it = tasks.find(job);
        if (it == tasks.end()) it = tasks.emplace(job, PriorityQueue<TaskInfo*>(task_less)).first;
        it->second.push(t);
      };
      // Copy first: undoing a pipeline changes the task's status while we look.
      std::vector<TaskInfo*> job_tasks = job->tasks;
      for (TaskInfo* t : job_tasks)
        if (t->status == CAL_TASK_PENDING && t->best_effort) add(t);
      for (TaskInfo* t : job_tasks) {
        if (t->status != CAL_TASK_PIPELINED || !t->best_effort) continue;
        Statement undo(ssn);
        undo.unpipeline(t);  // Volcano's UnPipeline: back to Pending, placed anew
        undo.commit();
        add(t);
      }
      if (tasks.find(job) == tasks.end()) continue;

      auto jit = jobs.find(queue);
      if (jit == jobs.end()) {
        queues.push(queue);
        jit = jobs.emplace(queue, PriorityQueue<JobInfo*>([&ssn](JobInfo* const& l,
                                                                 JobInfo* const& r) {
                      return ssn.job_order_less(l, r);
                    }))
                  .first;
      }
      jit->second.push(job);
    }

    std::vector<TaskInfo*> out;
    while (!queues.empty()) {
      QueueInfo* queue = queues.pop();
      auto& queue_jobs = jobs.at(queue);
      while (!queue_jobs.empty()) {
        JobInfo* job = queue_jobs.pop();
        auto& job_tasks = tasks.at(job);
        while (!job_tasks.empty()) out.push_back(job_tasks.pop());
      }
    }
    return out;
  }
};

}  // namespace

ActionInfo backfill_action_info() {
  return ActionInfo{
      "backfill",
      "Places best-effort tasks (tasks that request nothing) of admitted jobs on any node "
      "that passes the predicates.",
      {},
      []() -> std::unique_ptr<Action> { return std::make_unique<BackfillAction>(); },
  };
}

}  // namespace caldera
