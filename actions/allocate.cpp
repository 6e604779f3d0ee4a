// The allocate action: places the pending tasks of admitted jobs on nodes, a gang at a time.
//
// Follows Volcano's pkg/scheduler/actions/allocate/allocate.go (the queue -> job -> task
// form of v1.10 and later; a job with a network topology takes the HyperNode path of
// actions/hypernode_allocate.hpp) and, for the helpers it
// calls, pkg/scheduler/api/job_info.go (NeedContinueAllocating, TaskHasFitErrors,
// FitFailedRoles) and pkg/scheduler/framework/statement.go.
//
//   pick up:  every job that is not Pending (a Pending job is first moved to Inqueue when
//             the config runs no enqueue action) and passes job_valid, per queue in a
//             priority queue by job_order; the queues in a priority queue by queue_order.
//   loop:     pop the first queue; an overused queue drops out. Pop its first job. Its
//             pending tasks that request something (best-effort ones are backfill's) go in
//             a priority queue by task_order, once per job and session. A job with no task
//             left drops out. Otherwise allocate its tasks in one statement (below); if
//             tasks remain the job goes back in its queue; a returned statement is
//             committed; the queue goes back in line.
//   tasks:    for each task in order: skip it if its queue may not take it (allocatable)
//             or another task of its role already failed the predicates; a failed
//             pre-predicate fails every node and ends the job's turn; filter the nodes by
//             the action's own check (init request <= future idle, one more pod fits) and
//             the plugin predicates; with no node left record why and go on only when the
//             job can still become ready (NeedContinueAllocating). Choose the node among
//             those whose idle fits (else those whose future idle fits) by score; allocate
//             when the idle fits, else pipeline. Once the job is ready and tasks remain,
//             stop (the job goes back in line so other jobs get a turn).
//   outcome:  ready: the statement is committed (binds). Not ready but pipelined: kept,
//             neither committed nor undone, as Volcano leaves it. Else: discarded.
//
// Why-pending texts: the fit errors "0/N nodes are unavailable: ..." of tasks that found no
// node (a discarded statement records where the others would have gone, see Statement).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "actions/action.hpp"
#include "actions/hypernode_allocate.hpp"
#include "actions/placement.hpp"
#include "actions/predicate_helper.hpp"
#include "actions/priority_queue.hpp"
#include "host/session/statement.hpp"

namespace caldera {
namespace {

constexpr const char* kErrorCacheKey = "predicateErrorCacheEnable";

class AllocateAction : public Action {
 public:
  std::string name() const override { return "allocate"; }
  void execute(Session& ssn) override;
};

// One run of the action over one session.
class AllocateRun {
 public:
  explicit AllocateRun(Session& ssn)
      : ssn_(ssn),
        error_cache_(ssn.action_args("allocate").get_bool(kErrorCacheKey, true)),
        hypernodes_(ssn),
        queues_([&ssn](QueueInfo* const& l, QueueInfo* const& r) {
          return ssn.queue_order_less(l, r);
        }) {}

  void run() {
    pick_up_queues_and_jobs();
    allocate_resources();
  }

 private:
  using JobQueue = PriorityQueue<JobInfo*>;
  using TaskQueue = PriorityQueue<TaskInfo*>;

  // A placement made in the current statement, to word why-pending if it does not last.
  using Placed = Placement;

  JobQueue& jobs_of(QueueInfo* q) {
    auto it = jobs_.find(q);
    if (it == jobs_.end()) {
      it = jobs_
               .emplace(q, JobQueue([this](JobInfo* const& l, JobInfo* const& r) {
                 return ssn_.job_order_less(l, r);
               }))
               .first;
      queues_.push(q);
    }
    return it->second;
  }

  void pick_up_queues_and_jobs() {
    const auto& actions = ssn_.policy().config.actions;
    const bool enqueue_configured =
        std::find(actions.begin(), actions.end(), "enqueue") != actions.end();
    for (JobInfo* job : ssn_.jobs()) {
      if (job->is_pending()) {
        if (enqueue_configured) continue;  // waits for enqueue to admit it
        // Without an enqueue action nothing would ever admit it (Volcano does the same).
        Statement admit(ssn_);
        admit.enqueue(job);
        admit.commit();
      }
      PointStatus valid = ssn_.job_valid(job);
      if (!valid.ok()) {
        spdlog::debug("allocate: job {} skipped: {}", job->uid, valid.reason);
        continue;
      }
      if (job->queue == nullptr) {
        spdlog::warn("allocate: job {} has no queue in the session; skipped", job->uid);
        continue;
      }
      jobs_of(job->queue).push(job);
    }
  }

  void allocate_resources() {
    while (!queues_.empty()) {
      QueueInfo* queue = queues_.pop();
      if (ssn_.overused(queue)) {
        spdlog::debug("allocate: queue {} is overused; it gets nothing more", queue->name);
        continue;
      }
      auto jit = jobs_.find(queue);
      if (jit == jobs_.end() || jit->second.empty()) continue;
      JobQueue& jobs = jit->second;
      JobInfo* job = jobs.pop();

      auto tit = pending_tasks_.find(job);
      if (tit == pending_tasks_.end()) {
        TaskQueue tasks([this](TaskInfo* const& l, TaskInfo* const& r) {
          return ssn_.task_order_less(l, r);
        });
        for (TaskInfo* t : job->tasks) {
          if (t->status != CAL_TASK_PENDING) continue;
          if (t->resreq.is_empty()) continue;  // best-effort: the backfill action's
          tasks.push(t);
        }
        tit = pending_tasks_.emplace(job, std::move(tasks)).first;
      }
      TaskQueue& tasks = tit->second;
      if (tasks.empty()) {
        // Nothing left to place for this job; the queue tries its other jobs.
        queues_.push(queue);
        continue;
      }

      std::unique_ptr<Statement> stmt;
      if (hypernodes_.applies(job)) {
        // A network topology: the job goes inside one HyperNode (hypernode_allocate.hpp).
        auto out = hypernodes_.allocate(
            job, tasks, [&](TaskQueue& t, const std::vector<NodeInfo*>& nodes) {
              failed_roles_.erase(job);  // Volcano's job.ResetFitErr() before each try
              return place_tasks(t, job, queue, nodes);
            });
        stmt = std::move(out.stmt);
        if (out.result == HyperNodeAllocate::Result::AnyNodes) {
          failed_roles_.erase(job);
          stmt = allocate_for_tasks(tasks, job, queue);
          hypernodes_.placed_on_any_nodes(job);
        }
      } else {
        stmt = allocate_for_tasks(tasks, job, queue);
      }
      // A job that became ready with tasks left keeps its place in the queue for another
      // turn; one whose turn ended otherwise (a task that fits nowhere, or not ready) is
      // done for this session, as Volcano puts a job back only after committing it.
      if (stmt && !tasks.empty()) jobs.push(job);
      if (stmt) stmt->commit();
      // Back in line with its share updated by this turn's allocations.
      queues_.push(queue);
    }
  }

  // Volcano's allocateResourcesForTasks. Returns the statement to commit when the job is
  // ready, else nullptr (the statement was kept or discarded here).
  std::unique_ptr<Statement> allocate_for_tasks(TaskQueue& tasks, JobInfo* job, QueueInfo* queue) {
    TaskAttempt attempt = place_tasks(tasks, job, queue, ssn_.nodes());
    std::unique_ptr<Statement>& stmt = attempt.stmt;
    if (ssn_.job_ready(job)) return std::move(stmt);
    if (ssn_.job_pipelined(job)) {
      // Kept: the placements hold their resources for the rest of the session.
      stmt->keep();
    } else {
      stmt->discard();
    }
    return nullptr;
  }

  // The task loop of allocateResourcesForTasks over `all_nodes`, without its outcome: the
  // placements stay in effect in the returned statement.
  TaskAttempt place_tasks(TaskQueue& tasks, JobInfo* job, QueueInfo* queue,
                          const std::vector<NodeInfo*>& all_nodes) {
    TaskAttempt attempt;
    attempt.stmt = std::make_unique<Statement>(ssn_);
    Statement* stmt = attempt.stmt.get();
    std::vector<Placed>& placed = attempt.placed;
    PredicateHelper helper(ssn_, error_cache_);

    while (!tasks.empty()) {
      TaskInfo* task = tasks.pop();
      if (!ssn_.allocatable(queue, task)) {
        spdlog::debug("allocate: queue {} may not take task {}", queue->name, task->uid);
        continue;
      }
      if (task_has_fit_errors(job, task)) {
        std::string msg = fmt::format("Task {} with role spec {} has already predicated "
                                      "failed, skip", task->name, task->role);
        spdlog::debug("allocate: {}", msg);
        ssn_.set_fit_error(task, std::move(msg));
        continue;
      }

      PointStatus pre = ssn_.pre_predicate(task);
      if (!pre.ok()) {
        FitErrors fe(ssn_.reasons());
        placement::fail_every_node(fe, all_nodes.size(), placement::status_reason(pre));
        record_fit_errors(job, task, fe, attempt);
        // As after a search that found no node (Volcano's allocate does the same).
        if (need_continue_allocating(job)) continue;
        break;
      }

      // A node an earlier preemption made room on for this pod is likely the only one that
      // takes it, so it is tried alone first (Volcano: when it is among the nodes of this
      // attempt and its future idle holds the task).
      std::vector<NodeInfo*> nodes;
      if (NodeInfo* nominated = nominated_node(task, all_nodes)) {
        FitErrors nominated_fe(ssn_.reasons());
        nodes = helper.predicate_nodes(task, {nominated}, kAllocateFilter, &nominated_fe);
      }
      FitErrors fe(ssn_.reasons());
      if (nodes.empty()) nodes = helper.predicate_nodes(task, all_nodes, kAllocateFilter, &fe);
      if (nodes.empty()) {
        record_fit_errors(job, task, fe, attempt);
        // The rest can still make the job ready only in some cases (see the function).
        if (need_continue_allocating(job)) continue;
        break;
      }

      double score = 0;
      NodeInfo* node = prioritize_nodes(task, nodes, score);
      if (node == nullptr) continue;
      attempt.node_scores += score;  // Volcano's sumNodeScoresInHyperNode

      if (placement::fits(task->init_resreq, node->idle)) {
        stmt->allocate(task, node);
        placed.push_back({task, node, false});
      } else if (placement::fits(task->init_resreq, node->future_idle)) {
        stmt->pipeline(task, node);
        placed.push_back({task, node, true});
      }

      if (ssn_.job_ready(job) && !tasks.empty()) break;
    }
    return attempt;
  }

  NodeInfo* nominated_node(const TaskInfo* task, const std::vector<NodeInfo*>& all_nodes) const {
    if (task->nominated_node.empty()) return nullptr;
    for (NodeInfo* n : all_nodes)
      if (n->name == task->nominated_node)
        return placement::fits(task->init_resreq, n->future_idle) ? n : nullptr;
    return nullptr;
  }

  // Volcano's prioritizeNodes: nodes whose idle fits the task come first; only when none
  // does are the nodes whose future idle fits scored. `score`: the chosen node's score when
  // it was chosen among several, else 0 (Volcano's highestScore).
  NodeInfo* prioritize_nodes(const TaskInfo* task, const std::vector<NodeInfo*>& nodes,
                             double& score) {
    idle_fit_.clear();
    future_fit_.clear();
    for (NodeInfo* n : nodes) {
      if (placement::fits(task->init_resreq, n->idle))
        idle_fit_.push_back(n);
      else if (placement::fits(task->init_resreq, n->future_idle))
        future_fit_.push_back(n);
    }
    if (NodeInfo* n = placement::select_node(ssn_, task, idle_fit_, &score)) return n;
    return placement::select_node(ssn_, task, future_fit_, &score);
  }

  void record_fit_errors(JobInfo* job, TaskInfo* task, const FitErrors& fe,
                         TaskAttempt& attempt) {
    failed_roles_[job].insert(task->role);
    std::string why = fe.str();
    if (attempt.failure.empty()) attempt.failure = why;
    ssn_.set_fit_error(task, std::move(why), fe.unresolvable_nodes());
  }

  // Volcano's JobInfo.TaskHasFitErrors: a task with a role is skipped once a task of the
  // same role failed the predicates in this session (tasks without a role never are).
  bool task_has_fit_errors(JobInfo* job, const TaskInfo* task) const {
    if (task->role.empty()) return false;
    auto it = failed_roles_.find(job);
    return it != failed_roles_.end() && it->second.count(task->role) != 0;
  }

  static int32_t role_min(const JobInfo* job, std::string_view role) {
    for (const RoleInfo& r : job->roles)
      if (r.name == role) return r.min;
    return 0;
  }

  // Volcano's JobInfo.NeedContinueAllocating: after a task found no node, may the other
  // tasks still make the job ready?
  bool need_continue_allocating(JobInfo* job) const {
    // Every task must run: one that cannot means the job cannot be ready.
    if (job->min_available == static_cast<int32_t>(job->tasks.size())) return false;
    static const std::set<std::string_view> kNone;
    auto fit = failed_roles_.find(job);
    const std::set<std::string_view>& failed = fit == failed_roles_.end() ? kNone : fit->second;

    int32_t role_min_total = 0;
    for (const RoleInfo& r : job->roles) role_min_total += r.min;

    // 1. Roles' minimums do not add up to minMember: count what can still be placed.
    if (job->min_available < role_min_total) {
      int32_t left = 0;
      for (const TaskInfo* t : job->tasks)
        if (t->status == CAL_TASK_PENDING && failed.count(t->role) == 0) ++left;
      return job->ready_num() + left >= job->min_available;
    }

    // 2. Each failed role with its own minimum must have reached it already.
    std::map<std::string_view, int32_t> allocated;
    for (const TaskInfo* t : job->tasks) {
      if (allocated_status(t->status) || t->status == CAL_TASK_SUCCEEDED ||
          (t->status == CAL_TASK_PENDING && t->init_resreq.is_empty()))
        ++allocated[t->role];
    }
    for (std::string_view role : failed) {
      int32_t min = role_min(job, role);
      if (min == 0) continue;
      if (allocated[role] < min) return false;
    }
    return true;
  }

  Session& ssn_;
  const bool error_cache_;
  HyperNodeAllocate hypernodes_;
  PriorityQueue<QueueInfo*> queues_;
  std::map<QueueInfo*, JobQueue> jobs_;
  std::map<JobInfo*, TaskQueue> pending_tasks_;
  // Volcano's job.NodesFitErrors, reduced to what the action reads: the roles of the tasks
  // that found no node (FitFailedRoles), "" for tasks without a role.
  std::map<JobInfo*, std::set<std::string_view>> failed_roles_;  // views of task roles
  std::vector<NodeInfo*> idle_fit_, future_fit_;  // scratch of prioritize_nodes
};

void AllocateAction::execute(Session& ssn) { AllocateRun(ssn).run(); }

const cal_option kAllocateOptions[] = {
    {sizeof(cal_option), kErrorCacheKey, CAL_OPT_BOOL, "true",
     "Reuse a node's predicate failure for the next task of the same job and role "
     "(Volcano's predicate error cache)."},
};

}  // namespace

ActionInfo allocate_action_info() {
  return ActionInfo{
      "allocate",
      "Places the pending tasks of admitted jobs on nodes, queue by queue and job by job, "
      "committing a gang only when it is ready.",
      std::vector<cal_option>(std::begin(kAllocateOptions), std::end(kAllocateOptions)),
      []() -> std::unique_ptr<Action> { return std::make_unique<AllocateAction>(); },
  };
}

}  // namespace caldera
