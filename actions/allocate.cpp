// The allocate action: places the pending tasks of admitted jobs on nodes, a gang at a time.
//
// Follows Volcano ed72c7c's pkg/scheduler/actions/allocate/allocate.go (and recorder.go)
// and, for the helpers it calls, pkg/scheduler/api/job_info.go (NeedContinueAllocating,
// TaskHasFitErrors, FitFailedRoles) and pkg/scheduler/framework/statement.go.
//
//   pick up:  every job that is not Pending (a Pending job is first moved to Inqueue when
//             the config runs no enqueue action) and passes job_valid, per queue in a
//             priority queue by job_order; the queues in a priority queue by queue_order.
//             A job with a network topology waits while the HyperNodes are unusable. Its
//             worksheet: per sub-job (host/session/sub_jobs.hpp), the pending tasks that
//             request something (best-effort ones are backfill's) in a priority queue by
//             task_order; the sub-jobs with tasks in a queue, those the job needs to meet
//             its policies' minSubGroups first, then by sub_job_order.
//   loop:     pop the first queue; an overused queue drops out. Pop its first job.
//     flat:   a job without a network topology and without a subGroupPolicy: its tasks in
//             one statement (tasks below) over every node.
//     by sub-job (allocateForJob): a job with a topology or a policy. For each gradient of
//             HyperNodes the job may use (actions/hypernode_gradients.hpp; the whole
//             cluster when it has no topology), lowest tier first: in each HyperNode, on a
//             copy of the worksheet, the sub-jobs in order, each placed by
//             allocateForSubJob inside that HyperNode, until the job is ready; a HyperNode
//             that leaves the job ready or pipelined is a solution, scored by the sum of
//             its sub-jobs' scores; every try is undone. The best solution (the first of
//             equal ones) is made again and its worksheet kept; none: the next gradient.
//             allocateForSubJob: for each gradient of the sub-job inside the job's
//             HyperNode, each HyperNode is tried (tasks below, on its nodes) and undone; of
//             those that placed something, the one the hyper_node_order plugins score best
//             is made again, and the sub-job's allocated HyperNode grows to hold it.
//   tasks:    for each task in order: skip it if its queue may not take it (allocatable)
//             or another task of its role in its sub-job already failed the predicates; a
//             failed pre-predicate fails every node; filter the nodes by the action's own
//             check (init request <= future idle, one more pod fits) and the plugin
//             predicates; with no node left record why (prefixed "In hyperNode H:" inside a
//             HyperNode) and go on only when the job can still become ready
//             (NeedContinueAllocating). Choose the node among those whose idle fits (else
//             those whose future idle fits) by score; allocate when the idle fits, else
//             pipeline. Stop once the sub-job (for the flat path, the job) is ready. The
//             statement holds when the sub-job is ready or pipelined, else is discarded.
//   outcome:  the job ready: the statement is committed (binds), the job's and its
//             sub-jobs' allocated HyperNodes recorded, and a job with tasks left goes back
//             in its queue. Not ready but pipelined: kept, neither committed nor undone, as
//             Volcano leaves it. The queue goes back in line.
//
// Not carried over: the nomination fast path (gangpreempt's NominatedHyperNode; Caldera's
// gang actions report their nominations only, actions/gang_simulate.hpp), scheduling gates,
// soft sharding.
//
// Why-pending texts: the fit errors "0/N nodes are unavailable: ..." of tasks that found no
// node (a discarded statement records where the others would have gone, see Statement).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "actions/action.hpp"
#include "actions/hypernode_gradients.hpp"
#include "actions/placement.hpp"
#include "actions/predicate_helper.hpp"
#include "actions/priority_queue.hpp"
#include "host/session/statement.hpp"

namespace caldera {
namespace {

constexpr const char* kErrorCacheKey = "predicateErrorCacheEnable";

// One placement made while trying tasks.
struct Placement {
  TaskInfo* task;
  NodeInfo* node;
  bool pipelined;
};

// What one try of tasks on some nodes did, its placements still in effect in `stmt` (null
// when the try was undone).
struct TaskAttempt {
  std::unique_ptr<Statement> stmt;
  std::vector<Placement> placed;  // in order
};

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
        gradients_(ssn, SearchPurpose::Allocate),
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
  using SubJobQueue = PriorityQueue<SubJobInfo*>;

  // Volcano's JobWorksheet: the sub-jobs with tasks to place, and their tasks.
  struct Worksheet {
    SubJobQueue sub_jobs;
    std::map<SubJobInfo*, TaskQueue> tasks;
    bool empty() const { return sub_jobs.empty(); }
  };

  // One try's placements, in order, with their statements (still in effect).
  struct Placed {
    std::vector<std::unique_ptr<Statement>> stmts;
    std::vector<Placement> placements;
    bool empty() const { return placements.empty(); }
    void add(TaskAttempt&& a) {
      placements.insert(placements.end(), a.placed.begin(), a.placed.end());
      stmts.push_back(std::move(a.stmt));
    }
    void discard() {
      for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) (*it)->discard();
      stmts.clear();
    }
  };

  // Where a commit leaves a job and its sub-jobs (Volcano's Recorder).
  struct Decision {
    HyperNodeInfo* job_hypernode = nullptr;  // the HyperNode the job was placed in (null: all)
    std::vector<std::pair<SubJobInfo*, HyperNodeInfo*>> sub_jobs;
  };

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

  TaskQueue new_task_queue() {
    return TaskQueue([this](TaskInfo* const& l, TaskInfo* const& r) {
      return ssn_.task_order_less(l, r);
    });
  }

  // A job takes the sub-job path when it has a network topology or a subGroupPolicy
  // (Volcano's ContainsHardTopology || ContainsSubJobPolicy, every topology being hard once
  // the session adjusted it).
  bool by_sub_job(const JobInfo* job) const {
    const PodGroupSpec* pg = job->podgroup;
    return pg && (pg->network_topology || !pg->sub_group_policy.empty());
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
      if (by_sub_job(job)) {
        if (ssn_.sub_jobs(job).has_topology() && !ssn_.hypernodes().problem().empty()) {
          // Volcano's HyperNodesReadyToSchedule = false: jobs with a topology wait.
          wait_with_reason(job, fmt::format("network topology: the HyperNodes cannot be used "
                                            "({}); the job waits until they are fixed",
                                            ssn_.hypernodes().problem()));
          continue;
        }
        Worksheet sheet = organize_worksheet(job);
        if (sheet.empty()) continue;
        worksheets_.emplace(job, std::move(sheet));
      } else {
        TaskQueue tasks = new_task_queue();
        for (TaskInfo* t : job->tasks) {
          if (t->status != CAL_TASK_PENDING) continue;
          if (t->resreq.is_empty()) continue;  // best-effort: the backfill action's
          tasks.push(t);
        }
        if (tasks.empty()) continue;
        flat_tasks_.emplace(job, std::move(tasks));
      }
      jobs_of(job->queue).push(job);
    }
  }

  // Volcano's organizeJobWorksheet.
  Worksheet organize_worksheet(JobInfo* job) {
    const JobSubJobs& subs = ssn_.sub_jobs(job);
    std::map<std::string_view, int32_t> counted;  // sub-jobs per group already ready / taken
    std::vector<SubJobInfo*> unready;
    for (const auto& sj : subs.list) {
      if (ssn_.sub_job_ready(sj.get()))
        ++counted[sj->gid];
      else
        unready.push_back(sj.get());
    }
    std::stable_sort(unready.begin(), unready.end(), [this](SubJobInfo* l, SubJobInfo* r) {
      return ssn_.sub_job_order_less(l, r);
    });
    // The fewest sub-jobs that meet the policies' minSubGroups go first.
    auto required = std::make_shared<std::set<const SubJobInfo*>>();
    for (SubJobInfo* sj : unready) {
      int32_t min = 0;
      for (const auto& [gid, m] : subs.min_sub_jobs)
        if (gid == sj->gid) min = m;
      if (counted[sj->gid] < min) {
        required->insert(sj);
        ++counted[sj->gid];
      }
    }
    Worksheet sheet{SubJobQueue([this, required](SubJobInfo* const& l, SubJobInfo* const& r) {
                      const bool lr = required->count(l) != 0, rr = required->count(r) != 0;
                      if (lr != rr) return lr;
                      return ssn_.sub_job_order_less(l, r);
                    }),
                    {}};
    for (const auto& sj : subs.list) {
      TaskQueue tasks = new_task_queue();
      for (TaskInfo* t : sj->tasks) {
        if (t->status != CAL_TASK_PENDING) continue;
        if (t->resreq.is_empty()) continue;  // best-effort: the backfill action's
        tasks.push(t);
      }
      if (tasks.empty()) continue;
      sheet.sub_jobs.push(sj.get());
      sheet.tasks.emplace(sj.get(), std::move(tasks));
    }
    return sheet;
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

      if (auto wit = worksheets_.find(job); wit != worksheets_.end()) {
        Worksheet& sheet = wit->second;
        Decision decision;
        std::unique_ptr<Statement> stmt = allocate_for_job(job, queue, sheet, decision);
        if (stmt && ssn_.job_ready(job)) {
          stmt->commit();
          record_decision(job, decision);
          if (!sheet.empty()) jobs.push(job);
        } else if (stmt) {
          stmt->keep();  // pipelined: the placements hold for the rest of the session
        }
      } else {
        TaskQueue& tasks = flat_tasks_.at(job);
        TaskAttempt attempt = allocate_for_tasks(job, nullptr, queue, tasks, gradients_.top());
        if (attempt.stmt && ssn_.job_ready(job)) {
          attempt.stmt->commit();
          // Tasks left when min available < replicas: another turn.
          if (!tasks.empty()) jobs.push(job);
        } else if (attempt.stmt) {
          attempt.stmt->keep();
        }
      }
      // Back in line with its share updated by this turn's allocations.
      queues_.push(queue);
    }
  }

  // The job's gradients: HyperNodeGradientForJobFn(job, whole cluster, allocate).
  std::vector<std::vector<Domain>> job_gradients(const JobInfo* job) {
    const JobSubJobs& subs = ssn_.sub_jobs(job);
    if (!gradients_.enabled() || !subs.job_topology) return {{gradients_.top()}};
    ResVec min_resource(ssn_.resource_count());
    if (job->has_min_resources) min_resource = job->min_resources;
    return gradients_.search(gradients_.top(), subs.job_topology->highest_tier_allowed,
                             ssn_.hypernodes().allocated(job), min_resource);
  }

  // HyperNodeGradientForSubJobFn(subJob, the job's HyperNode, allocate).
  std::vector<std::vector<Domain>> sub_job_gradients(const SubJobInfo* sj, const Domain& within) {
    if (!gradients_.enabled() || !sj->topology) return {{within}};
    return gradients_.search(within, sj->topology->highest_tier_allowed, sj->allocated,
                             sj->pending_init_request(ssn_.resource_count()));
  }

  // Volcano's allocateForJob. Returns the statement of the job's placements in the best
  // HyperNode (`sheet` then holds what is left), or nullptr.
  std::unique_ptr<Statement> allocate_for_job(JobInfo* job, QueueInfo* queue, Worksheet& sheet,
                                              Decision& decision) {
    if (sheet.empty()) return nullptr;
    const JobSubJobs& subs = ssn_.sub_jobs(job);
    // Volcano's Recorder.SnapshotSubJobStatus: each try starts from these.
    std::vector<std::pair<SubJobInfo*, HyperNodeInfo*>> before;
    for (const auto& sj : subs.list) before.emplace_back(sj.get(), sj->allocated);

    for (const std::vector<Domain>& row : job_gradients(job)) {
      struct Solution {
        Domain domain;
        std::vector<Placement> placements;
        Worksheet left;
        double score = 0;
        Decision decision;
      };
      std::vector<Solution> solutions;
      for (const Domain& domain : row) {
        // Volcano's job.ResetFitErr(): what earlier tries found is forgotten.
        for (const auto& sj : subs.list) {
          failed_roles_.erase(sj.get());
          forget_fit_errors(sj.get());
        }
        Worksheet copy = sheet;
        Placed placed;
        double score = 0;
        Decision tried{domain.hypernode, {}};
        while (!copy.empty()) {
          SubJobInfo* sj = copy.sub_jobs.pop();
          TaskQueue& tasks = copy.tasks.at(sj);
          double sub_score = 0;
          TaskAttempt a = allocate_for_sub_job(job, sj, queue, tasks, domain, sub_score);
          if (!a.stmt || a.placed.empty()) continue;
          placed.add(std::move(a));
          score += sub_score;
          tried.sub_jobs.emplace_back(sj, sj->allocated);
          if (!tasks.empty()) copy.sub_jobs.push(sj);  // placed, with tasks left
          if (ssn_.job_ready(job)) break;
        }
        for (auto& [sj, h] : before) sj->allocated = h;  // RecoverSubJobStatus
        if (!placed.empty() && (ssn_.job_ready(job) || ssn_.job_pipelined(job)))
          solutions.push_back({domain, placed.placements, std::move(copy), score, tried});
        placed.discard();  // a dry run in every HyperNode
      }
      if (solutions.empty()) continue;  // the next gradient

      // selectBestHyperNodeForJob: the highest score (the first of equal ones; Volcano
      // picks at random).
      size_t best = 0;
      for (size_t i = 1; i < solutions.size(); ++i)
        if (solutions[i].score > solutions[best].score) best = i;
      Solution& s = solutions[best];
      auto stmt = replay(s.placements);
      sheet = std::move(s.left);
      decision = std::move(s.decision);
      spdlog::debug("allocate: job {} placed in {}", job->uid, s.domain.name);
      return stmt;
    }
    return nullptr;
  }

  // Volcano's allocateForSubJob inside `within` (the job's HyperNode). Returns the
  // statement of its placements in the best HyperNode of the first gradient that holds it
  // (`tasks` then holds what is left, `score` that HyperNode's score), or an empty attempt.
  TaskAttempt allocate_for_sub_job(JobInfo* job, SubJobInfo* sj, QueueInfo* queue,
                                   TaskQueue& tasks, const Domain& within, double& score) {
    TaskAttempt out;
    if (tasks.empty()) return out;
    for (const std::vector<Domain>& row : sub_job_gradients(sj, within)) {
      struct Tried {
        Domain domain;
        std::vector<Placement> placements;
        TaskQueue left;
      };
      std::vector<Tried> held;
      for (const Domain& domain : row) {
        failed_roles_.erase(sj);  // Volcano's job.ResetSubJobFitErr(subJob)
        forget_fit_errors(sj);
        TaskQueue copy = tasks;
        TaskAttempt a = allocate_for_tasks(job, sj, queue, copy, domain);
        if (a.stmt && !a.placed.empty()) {
          held.push_back({domain, a.placed, std::move(copy)});
          a.stmt->discard();  // a dry run in every HyperNode
        }
      }
      if (held.empty()) continue;  // the next gradient

      // selectBestHyperNodeForSubJob: the hyper_node_order plugins' scores (the whole
      // cluster is never scored: it is alone in its gradient); the highest, the first of
      // equal ones (Volcano picks at random).
      std::vector<HyperNodeInfo*> scored;
      std::vector<size_t> at;
      for (size_t i = 0; i < held.size(); ++i)
        if (held[i].domain.hypernode) {
          scored.push_back(held[i].domain.hypernode);
          at.push_back(i);
        }
      std::vector<double> plugin_scores;
      hyper_node_scores(ssn_, sj, scored, plugin_scores);
      std::vector<double> scores(held.size(), 0.0);
      for (size_t k = 0; k < at.size(); ++k) scores[at[k]] = plugin_scores[k];
      size_t best = 0;
      for (size_t i = 1; i < held.size(); ++i)
        if (scores[i] > scores[best]) best = i;

      Tried& t = held[best];
      out.stmt = replay(t.placements);
      out.placed = t.placements;
      // Grown to hold the chosen HyperNode; the whole cluster reads as none.
      sj->allocated = t.domain.hypernode ? lca_or_either(sj->allocated, t.domain.hypernode) : nullptr;
      tasks = std::move(t.left);
      score = scores[best];
      return out;
    }
    return out;
  }

  // Volcano's RecoverOperations: the placements again, in a new statement.
  std::unique_ptr<Statement> replay(const std::vector<Placement>& placements) {
    auto stmt = std::make_unique<Statement>(ssn_);
    for (const Placement& p : placements) {
      if (p.pipelined)
        stmt->pipeline(p.task, p.node);
      else
        stmt->allocate(p.task, p.node);
    }
    return stmt;
  }

  // Recorder.UpdateDecisionToJob, after a commit: the job's and its sub-jobs' allocated
  // HyperNodes grow to hold where they were placed.
  void record_decision(JobInfo* job, const Decision& d) {
    HyperNodes& hns = ssn_.hypernodes();
    if (d.job_hypernode) hns.set_allocated(job, lca_or_either(hns.allocated(job), d.job_hypernode));
    for (const auto& [sj, h] : d.sub_jobs) sj->allocated = lca_or_either(sj->allocated, h);
  }

  // Volcano's allocateResourcesForTasks for the tasks of sub-job `sj` (null for the flat
  // path, whose one sub-job is the whole job) on `domain`'s nodes. Returns the statement
  // when the sub-job is ready or pipelined (its placements in effect), else an empty
  // attempt (the statement discarded here).
  TaskAttempt allocate_for_tasks(JobInfo* job, SubJobInfo* sj, QueueInfo* queue,
                                 TaskQueue& tasks, const Domain& domain) {
    const void* owner = fit_errors_owner(job, sj);
    const int32_t min = sj ? sj->min_available : job->min_available;
    const int32_t total = static_cast<int32_t>(sj ? sj->tasks.size() : job->tasks.size());
    TaskAttempt attempt;
    const std::vector<NodeInfo*>& all_nodes = *domain.nodes;
    if (all_nodes.empty()) return attempt;
    attempt.stmt = std::make_unique<Statement>(ssn_);
    Statement* stmt = attempt.stmt.get();
    std::vector<Placement>& placed = attempt.placed;
    PredicateHelper helper(ssn_, error_cache_);
    const bool with_topology = sj && sj->topology;
    HyperNodeInfo* allocated = sj ? sj->allocated : nullptr;
    auto owner_ready = [&] { return sj ? ssn_.sub_job_ready(sj) : ssn_.job_ready(job); };
    auto owner_pipelined = [&] { return sj ? ssn_.sub_job_pipelined(sj) : ssn_.job_pipelined(job); };

    while (!tasks.empty()) {
      TaskInfo* task = tasks.pop();
      if (!ssn_.allocatable(queue, task)) {
        spdlog::debug("allocate: queue {} may not take task {}", queue->name, task->uid);
        continue;
      }
      if (task_has_fit_errors(owner, task)) {
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
        record_fit_errors(owner, task, fe, nullptr);
        // As after a search that found no node (Volcano's allocate does the same).
        if (need_continue_allocating(job, owner, min, total)) continue;
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
        record_fit_errors(owner, task, fe, domain.hypernode);
        // The rest can still make the job ready only in some cases (see the function).
        if (need_continue_allocating(job, owner, min, total)) continue;
        break;
      }

      if (with_topology) ssn_.set_task_allocated_hypernode(task, allocated);
      double score = 0;
      NodeInfo* node = prioritize_nodes(task, nodes, score);
      if (node == nullptr) continue;

      if (placement::fits(task->init_resreq, node->idle)) {
        stmt->allocate(task, node);
        placed.push_back({task, node, false});
      } else if (placement::fits(task->init_resreq, node->future_idle)) {
        stmt->pipeline(task, node);
        placed.push_back({task, node, true});
      }
      if (with_topology) {
        // getNewAllocatedHyperNode: the lowest HyperNode holding both.
        const auto& own = ssn_.hypernodes().of_node(node);
        if (!own.empty()) allocated = lca_or_either(allocated, own.front());
      }
      if (owner_ready()) break;
    }
    if (owner_ready() || owner_pipelined()) return attempt;
    attempt.stmt->discard();
    attempt.stmt.reset();
    attempt.placed.clear();
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

  // Whose fit errors a task's are (Volcano keys FitFailedRoles by sub-job): the sub-job's,
  // or for the flat path the job's.
  static const void* fit_errors_owner(const JobInfo* job, const SubJobInfo* sj) {
    return sj ? static_cast<const void*>(sj) : static_cast<const void*>(job);
  }

  // `in`: the HyperNode the search was inside (Volcano's FitErrors.SetHyperNode), null for
  // the whole cluster.
  void record_fit_errors(const void* owner, TaskInfo* task, const FitErrors& fe,
                         const HyperNodeInfo* in) {
    failed_roles_[owner].insert(task->role);
    std::string why = fe.str();
    if (in) why = fmt::format("In hyperNode {}: {}", in->name, why);
    ssn_.set_fit_error(task, std::move(why), fe.unresolvable_nodes());
  }

  // Volcano's JobInfo.TaskHasFitErrors: a task with a role is skipped once a task of the
  // same role in the same sub-job failed the predicates (tasks without a role never are).
  bool task_has_fit_errors(const void* owner, const TaskInfo* task) const {
    if (task->role.empty()) return false;
    auto it = failed_roles_.find(owner);
    return it != failed_roles_.end() && it->second.count(task->role) != 0;
  }

  static int32_t role_min(const JobInfo* job, std::string_view role) {
    for (const RoleInfo& r : job->roles)
      if (r.name == role) return r.min;
    return 0;
  }

  // Volcano's JobInfo.NeedContinueAllocating(subJob): after a task found no node, may the
  // other tasks still make the job ready? `min` / `total`: the sub-job's size and tasks.
  bool need_continue_allocating(const JobInfo* job, const void* owner, int32_t min,
                                int32_t total) const {
    // Every task must run: one that cannot means the job (or sub-job) cannot be ready.
    if (job->min_available == static_cast<int32_t>(job->tasks.size())) return false;
    if (min >= total) return false;
    // Volcano: a job with sub-group policies does not use the strategies below.
    if (owner != job && ssn_.sub_jobs(job).has_policy) return true;
    static const std::set<std::string_view> kNone;
    auto fit = failed_roles_.find(owner);
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
      int32_t min_of_role = role_min(job, role);
      if (min_of_role == 0) continue;
      if (allocated[role] < min_of_role) return false;
    }
    return true;
  }

  // The fit errors of the sub-job's tasks, forgotten (Volcano's ResetFitErr and
  // ResetSubJobFitErr clear job.NodesFitErrors: a task's message is then the last try's).
  void forget_fit_errors(const SubJobInfo* sj) {
    for (TaskInfo* t : sj->tasks)
      if (!t->fit_error.empty()) ssn_.set_fit_error(t, std::string());
  }

  // A job that waits before any try: the PodGroup's reason and each pending task's.
  void wait_with_reason(JobInfo* job, const std::string& reason) {
    spdlog::debug("allocate: job {} waits: {}", job->uid, reason);
    ssn_.set_job_pending_reason(job, "allocate", reason);
    for (TaskInfo* t : job->tasks)
      if (t->status == CAL_TASK_PENDING && !t->resreq.is_empty()) ssn_.set_fit_error(t, reason);
  }

  Session& ssn_;
  const bool error_cache_;
  HyperNodeGradients gradients_;
  PriorityQueue<QueueInfo*> queues_;
  std::map<QueueInfo*, JobQueue> jobs_;
  std::map<JobInfo*, TaskQueue> flat_tasks_;   // the flat path's worksheet
  std::map<JobInfo*, Worksheet> worksheets_;   // the sub-job path's
  // Volcano's job.NodesFitErrors, reduced to what the action reads: the roles of the tasks
  // that found no node (FitFailedRoles), "" for tasks without a role; by sub-job, or by job
  // for the flat path (whose one sub-job is the whole job).
  std::map<const void*, std::set<std::string_view>> failed_roles_;  // views of task roles
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
