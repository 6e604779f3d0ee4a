// The preempt action: Volcano's pkg/scheduler/actions/preempt/preempt.go (with
// enableTopologyAwarePreemption, normalPreempt, topologyAwarePreempt, SelectVictimsOnNode,
// SelectCandidate / pickOneNodeForPreemption).
//
// Starving jobs take resources from lower-priority work of their own queue:
//   For every queue with starving jobs, in queue order:
//   1. its starving jobs in job order, one turn each: a Statement; the job's pending tasks
//      in task order preempt running tasks of OTHER jobs of the same queue until the job is
//      no longer starving. The statement commits when the job is pipelined, else it is
//      discarded.
//   2. Then, for each of the queue's starving jobs, its pending tasks preempt tasks of the
//      SAME job (lower task order first); each preemptor commits on its own; the first
//      failure is undone and ends the job's turn.
// For one preemptor: preemptionPolicy Never skips it; pre-predicate; nodes whose
// predicate fails with anything but CAL_UNSCHEDULABLE are left out; on each remaining node
// (by score) the filtered tasks go through Session::preemptable, and victims are evicted,
// lowest first, until the queue is allocatable for the preemptor and it fits the node's
// future idle; then it is pipelined there.
//
// Where Volcano is nondeterministic Caldera fixes an order, documented here:
//   - jobs of phase 2 in the session's job order by uid (Volcano: map order);
//   - nodes with equal scores, and the predicate's node list, by node name;
//   - topology-aware preemption starts its dry run at the first node (Volcano: a random
//     offset) and runs it on one thread (topologyAwarePreemptWorkerNum is accepted and
//     does not change decisions); ties between candidates go to the first found.
// Nodes where the task's last fit errors (allocate's, backfill's) were
// UnschedulableAndUnresolvable are left out (Volcano's
// FilterOutUnschedulableAndUnresolvableNodesForTask): a filter that reads what the session
// changes (pod affinity) may pass there now, and Volcano still does not try them.
// Not modelled: scheduling gates.
// A job with a network topology does not preempt (Volcano ed72c7c: "jobs containing
// networkTopology do not support preemption", issue volcano#4374).
//
// A preemptor may be pipelined without victims: Volcano v1.12's util.ValidateVictims
// accepts none ("Victims should not be judged to be empty here") when the node's future
// idle already fits it, and phase 2 commits its statement whether or not the job is
// pipelined. So a gang that cannot run keeps one task pipelined on free room (the
// Kubernetes integration test gang-whole-or-nothing shows it).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "actions/action.hpp"
#include "actions/eviction.hpp"
#include "actions/predicate_helper.hpp"
#include "actions/priority_queue.hpp"
#include "host/session/hypernodes.hpp"
#include "host/session/runtime.hpp"
#include "host/session/statement.hpp"

namespace caldera {
namespace {

using eviction::fits;
using Filter = std::function<bool(const TaskInfo*)>;

constexpr const char* kPredicateErrorCache = "predicateErrorCacheEnable";
constexpr const char* kTopologyAware = "enableTopologyAwarePreemption";
constexpr const char* kWorkerNum = "topologyAwarePreemptWorkerNum";
constexpr const char* kMinPercentage = "minCandidateNodesPercentage";
constexpr const char* kMinAbsolute = "minCandidateNodesAbsolute";
constexpr const char* kMaxAbsolute = "maxCandidateNodesAbsolute";

struct Options {
  bool predicate_error_cache = true;
  bool topology_aware = false;
  int64_t worker_num = 16;
  int64_t min_candidate_percentage = 10;
  int64_t min_candidate_absolute = 1;
  int64_t max_candidate_absolute = 100;
};

Options read_options(const Session& ssn) {
  const Args& a = ssn.action_args("preempt");
  Options o;
  o.predicate_error_cache = a.get_bool(kPredicateErrorCache, o.predicate_error_cache);
  o.topology_aware = a.get_bool(kTopologyAware, o.topology_aware);
  o.worker_num = a.get_int(kWorkerNum, o.worker_num);
  o.min_candidate_percentage = a.get_int(kMinPercentage, o.min_candidate_percentage);
  o.min_candidate_absolute = a.get_int(kMinAbsolute, o.min_candidate_absolute);
  o.max_candidate_absolute = a.get_int(kMaxAbsolute, o.max_candidate_absolute);
  // Volcano takes these as they come; say so when they make no sense rather than guess.
  // Sessions run every period: warn when the values change, not every session.
  std::string problems;
  if (o.min_candidate_percentage < 0 || o.min_candidate_percentage > 100)
    problems += fmt::format("; {} = {} is outside 0..100", kMinPercentage,
                            o.min_candidate_percentage);
  if (o.min_candidate_absolute < 0)
    problems += fmt::format("; {} = {} is negative", kMinAbsolute, o.min_candidate_absolute);
  if (o.max_candidate_absolute < 0)
    problems += fmt::format("; {} = {} is negative (no candidate can be found)", kMaxAbsolute,
                            o.max_candidate_absolute);
  if (o.min_candidate_absolute > o.max_candidate_absolute)
    problems += fmt::format("; {} = {} exceeds {} = {} (the maximum wins)", kMinAbsolute,
                            o.min_candidate_absolute, kMaxAbsolute, o.max_candidate_absolute);
  if (o.worker_num < 1)
    problems += fmt::format("; {} = {} is less than 1", kWorkerNum, o.worker_num);
  // Said once per change of the arguments, not every session.
  if (ssn.runtime().changed("actions.preempt", problems) && !problems.empty())
    spdlog::warn("[actions.preempt]: {}", problems.substr(2));
  return o;
}

// The nominated-node part of Volcano's taskEligibleToPreempt: a pod an earlier preemption
// made room for does not preempt again while its nominated node would take it (the
// predicates pass there; resources are the action's business, not the predicates'), nor
// when the node is gone or a plugin failed on it. Only a node its predicates rule out for
// good (UnschedulableAndUnresolvable) sends it preempting anew. Returns why it may not
// preempt, "" when it may. Not modelled: Volcano's further check for lower-priority pods
// still terminating on the node after a preemption (the embedded cluster removes an
// evicted pod at once).
std::string nomination_bars(const Session& ssn, const TaskInfo* preemptor) {
  if (preemptor->nominated_node.empty()) return {};
  const NodeInfo* node = ssn.node(std::string(preemptor->nominated_node));
  if (!node) return "its nominated node is not found in the session";
  const PointStatus st = ssn.predicate(preemptor, node);
  if (st.ok())
    return fmt::format("its nominated node {} is already schedulable, which should not happen "
                       "as preemption means no node is schedulable",
                       node->name);
  if (st.code == CAL_ERROR)
    return fmt::format("the predicate on its nominated node {} failed: {}", node->name,
                       st.reason);
  return {};
}

std::vector<TaskInfo*> pending_tasks(const JobInfo* job) {
  std::vector<TaskInfo*> out;
  for (TaskInfo* t : job->tasks)
    if (t->status == CAL_TASK_PENDING) out.push_back(t);
  return out;
}

// A candidate node of topology-aware preemption and the victims it needs.
struct Candidate {
  NodeInfo* node = nullptr;
  std::vector<TaskInfo*> victims;  // in the order they were chosen
};

class PreemptAction final : public Action {
 public:
  std::string name() const override { return "preempt"; }
  void execute(Session& ssn) override;

 private:
  bool preempt(Session& ssn, Statement& stmt, TaskInfo* preemptor, const Filter& filter);
  bool normal_preempt(Session& ssn, Statement& stmt, TaskInfo* preemptor, const Filter& filter,
                      const std::vector<NodeInfo*>& nodes);
  bool topology_aware_preempt(Session& ssn, Statement& stmt, TaskInfo* preemptor,
                              const Filter& filter, const std::vector<NodeInfo*>& nodes);
  bool select_victims_on_node(Session& ssn, TaskInfo* preemptor, NodeInfo* node,
                              const Filter& filter, std::vector<TaskInfo*>& victims);
  size_t num_candidates(size_t num_nodes) const;

  Options opt_;
  std::optional<PredicateHelper> ph_;  // one per run of the action, as Volcano's
};

void PreemptAction::execute(Session& ssn) {
  opt_ = read_options(ssn);
  ph_.emplace(ssn, opt_.predicate_error_cache);

  auto job_less = [&ssn](JobInfo* const& l, JobInfo* const& r) { return ssn.job_order_less(l, r); };
  auto task_less = [&ssn](TaskInfo* const& l, TaskInfo* const& r) {
    return ssn.task_order_less(l, r);
  };
  auto task_queue = [&](const JobInfo* job) {
    PriorityQueue<TaskInfo*> q(task_less);
    for (TaskInfo* t : pending_tasks(job)) q.push(t);
    return q;
  };

  std::map<const QueueInfo*, PriorityQueue<JobInfo*>> preemptors_map;
  std::map<const JobInfo*, PriorityQueue<TaskInfo*>> preemptor_tasks;
  std::map<const QueueInfo*, std::vector<JobInfo*>> under_request;
  PriorityQueue<QueueInfo*> queues(
      [&ssn](QueueInfo* const& l, QueueInfo* const& r) { return ssn.queue_order_less(l, r); });

  for (JobInfo* job : ssn.jobs()) {
    if (job->is_pending()) continue;
    if (PointStatus vr = ssn.job_valid(job); !vr.ok()) {
      spdlog::debug("preempt: job {} skipped: {}", job->uid, vr.reason);
      continue;
    }
    if (!job->queue || !ssn.job_starving(job)) continue;
    if (network_topology_of(job)) {
      spdlog::debug("preempt: job {} skipped: jobs with a network topology do not preempt",
                    job->uid);
      continue;
    }
    auto [it, first] = preemptors_map.try_emplace(job->queue, job_less);
    if (first) queues.push(job->queue);
    it->second.push(job);
    under_request[job->queue].push_back(job);
    preemptor_tasks.insert_or_assign(job, task_queue(job));
  }

  while (!queues.empty()) {
    QueueInfo* queue = queues.pop();
    // Phase 1: preemption between jobs of the queue. Each job gets one turn.
    PriorityQueue<JobInfo*>& preemptors = preemptors_map.at(queue);
    while (!preemptors.empty()) {
      JobInfo* preemptor_job = preemptors.pop();
      Statement stmt(ssn);
      for (;;) {
        if (!ssn.job_starving(preemptor_job)) break;
        PriorityQueue<TaskInfo*>& tasks = preemptor_tasks.at(preemptor_job);
        if (tasks.empty()) {
          spdlog::debug("preempt: no preemptor task left in job {}", preemptor_job->uid);
          break;
        }
        TaskInfo* preemptor = tasks.pop();
        const Filter other_jobs_of_queue = [preemptor, preemptor_job](const TaskInfo* t) {
          if (!preemptable_status(t->status)) return false;
          // A best-effort pod may not preempt one that requests resources.
          if (preemptor->best_effort && !t->best_effort) return false;
          if (!t->preemptable) return false;
          if (!t->job) return false;
          return t->job->queue == preemptor_job->queue && t->job != preemptor->job;
        };
        preempt(ssn, stmt, preemptor, other_jobs_of_queue);
      }
      if (ssn.job_pipelined(preemptor_job)) {
        stmt.commit();
      } else {
        spdlog::debug("preempt: job {} is not pipelined, discarding its preemption",
                      preemptor_job->uid);
        stmt.discard();
      }
    }

    // Phase 2: preemption between tasks of one job, for the queue's starving jobs, over
    // the tasks pending now; each preemptor commits on its own, the first failure is
    // undone and ends the job's turn.
    for (JobInfo* job : under_request[queue]) {
      PriorityQueue<TaskInfo*> tasks = task_queue(job);
      while (!tasks.empty()) {
        TaskInfo* preemptor = tasks.pop();
        Statement stmt(ssn);
        const Filter same_job = [preemptor](const TaskInfo* t) {
          if (!preemptable_status(t->status)) return false;
          if (preemptor->best_effort && !t->best_effort) return false;
          if (!t->preemptable) return false;
          return t->job == preemptor->job;
        };
        if (!preempt(ssn, stmt, preemptor, same_job)) {
          stmt.discard();
          break;
        }
        stmt.commit();
      }
    }
  }
}

bool PreemptAction::preempt(Session& ssn, Statement& stmt, TaskInfo* preemptor,
                            const Filter& filter) {
  // Volcano's taskEligibleToPreempt.
  if (preemptor->preempt_never) {
    spdlog::debug("preempt: task {} is not eligible to preempt: preemptionPolicy is Never",
                  preemptor->uid);
    return false;
  }
  if (std::string why = nomination_bars(ssn, preemptor); !why.empty()) {
    spdlog::debug("preempt: task {} is not eligible to preempt: {}", preemptor->uid, why);
    return false;
  }
  if (PointStatus st = ssn.pre_predicate(preemptor); !st.ok()) {
    spdlog::debug("preempt: pre-predicate for task {} failed: {}", preemptor->uid, st.reason);
    return false;
  }
  // Nodes the task's last fit errors found unresolvable are not tried again.
  const std::vector<NodeInfo*> nodes = ph_->predicate_nodes(
      preemptor, ssn.nodes_not_unresolvable(preemptor), kPreemptFilter, nullptr);
  if (opt_.topology_aware) return topology_aware_preempt(ssn, stmt, preemptor, filter, nodes);
  return normal_preempt(ssn, stmt, preemptor, filter, nodes);
}

bool PreemptAction::normal_preempt(Session& ssn, Statement& stmt, TaskInfo* preemptor,
                                   const Filter& filter, const std::vector<NodeInfo*>& nodes) {
  if (!preemptor->job || !preemptor->job->queue) return false;
  const QueueInfo* queue = preemptor->job->queue;
  // Volcano's preemptorFitsOnNode: the queue may take the preemptor, the node's future idle
  // holds it, and the predicates pass (a node that has the room in sum may still fail them,
  // fragmented devices for one). While the queue is not allocatable, evicting tasks of the
  // same queue (which is all phase 1 evicts) is what makes it so.
  auto fits_on = [&](NodeInfo* node) {
    return ssn.allocatable(queue, preemptor) && fits(preemptor->init_resreq, node->future_idle) &&
           ssn.predicate(preemptor, node).ok();
  };

  for (NodeInfo* node : eviction::sort_nodes_by_score(ssn, preemptor, nodes)) {
    std::vector<TaskInfo*> preemptees;
    for (TaskInfo* t : node->tasks)
      if (filter(t)) preemptees.push_back(t);
    const std::vector<TaskInfo*> victims = ssn.preemptable(preemptor, preemptees);
    ssn.stats().preemption_victims = static_cast<int64_t>(victims.size());
    std::string why;
    if (!eviction::validate_victims(preemptor, node, victims, &why)) {
      spdlog::debug("preempt: no valid victims on node {} for task {}: {}", node->name,
                    preemptor->uid, why);
      continue;
    }
    // The evictions for this node go into a statement of its own (Volcano ed72c7c): merged
    // into the caller's when the preemptor is pipelined here, undone when it still does
    // not fit, so no victim is evicted on a node the preemptor does not take.
    Statement node_stmt(ssn);
    PriorityQueue<TaskInfo*> victims_q = eviction::victims_queue(ssn, victims);
    bool preemptor_fits = fits_on(node);
    bool eviction_occurred = false;  // Volcano: what was preempted is not empty
    while (!victims_q.empty() && !preemptor_fits) {
      TaskInfo* victim = victims_q.pop();
      spdlog::debug("preempt: task {} evicted for task {} on node {}", victim->uid,
                    preemptor->uid, node->name);
      eviction::try_evict(node_stmt, victim, "preempt");
      eviction_occurred = eviction_occurred || !victim->resreq.is_empty();
      preemptor_fits = fits_on(node);
    }
    ++ssn.stats().preemption_attempts;  // Volcano counts each node that got this far
    if (preemptor_fits && eviction::try_pipeline(node_stmt, preemptor, node, eviction_occurred)) {
      stmt.merge(std::move(node_stmt));
      return true;
    }
    node_stmt.discard();
  }
  return false;
}

size_t PreemptAction::num_candidates(size_t num_nodes) const {
  // Volcano's calculateNumCandidates.
  int64_t n = static_cast<int64_t>(num_nodes) * opt_.min_candidate_percentage / 100;
  if (n < opt_.min_candidate_absolute) n = opt_.min_candidate_absolute;
  if (n > opt_.max_candidate_absolute) n = opt_.max_candidate_absolute;
  if (n > static_cast<int64_t>(num_nodes)) n = static_cast<int64_t>(num_nodes);
  return n < 0 ? 0 : static_cast<size_t>(n);
}

// Volcano's SelectVictimsOnNode. Volcano simulates on a clone of the node with the
// plugins' Simulate* functions; Caldera simulates with real evictions in a scratch
// statement that is always discarded, so the plugins' allocate / deallocate handlers
// keep their state (queue shares) exactly as a real eviction would.
bool PreemptAction::select_victims_on_node(Session& ssn, TaskInfo* preemptor, NodeInfo* node,
                                           const Filter& filter,
                                           std::vector<TaskInfo*>& victims) {
  const QueueInfo* queue = preemptor->job->queue;
  std::vector<TaskInfo*> preemptees;
  for (TaskInfo* t : node->tasks)
    if (filter(t)) preemptees.push_back(t);
  const std::vector<TaskInfo*> all_victims = ssn.preemptable(preemptor, preemptees);
  ssn.stats().preemption_victims = static_cast<int64_t>(all_victims.size());
  std::string why;
  if (!eviction::validate_victims(preemptor, node, all_victims, &why)) {
    spdlog::debug("preempt: no valid victims on node {}: {}", node->name, why);
    return false;
  }
  auto schedulable = [&] {
    return ssn.allocatable(queue, preemptor) &&
           fits(preemptor->init_resreq, node->future_idle) && ssn.predicate(preemptor, node).ok();
  };

  Statement scratch(ssn);
  // Remove victims, lowest first, until the preemptor could run.
  std::vector<TaskInfo*> potential;
  PriorityQueue<TaskInfo*> victims_q = eviction::victims_queue(ssn, all_victims);
  while (!victims_q.empty()) {
    TaskInfo* t = victims_q.pop();
    potential.push_back(t);
    eviction::try_evict(scratch, t, "preempt");
    if (schedulable()) break;
  }
  if (potential.empty()) {
    spdlog::debug("preempt: no preemption victims found on node {}", node->name);
    return false;
  }
  if (!ssn.predicate(preemptor, node).ok()) {
    spdlog::debug("preempt: task {} does not pass the predicates on node {} even without its "
                  "victims",
                  preemptor->uid, node->name);
    scratch.discard();
    return false;
  }
  // Reprieve: give each potential victim back in turn; keep it evicted only when the
  // preemptor no longer fits without that eviction.
  std::vector<TaskInfo*> evicted = potential;
  victims.clear();
  for (TaskInfo* p : potential) {
    std::vector<TaskInfo*> without;
    for (TaskInfo* t : evicted)
      if (t != p) without.push_back(t);
    scratch.discard();
    for (TaskInfo* t : without) eviction::try_evict(scratch, t, "preempt");
    if (schedulable()) {
      evicted = std::move(without);
    } else {
      victims.push_back(p);
    }
  }
  scratch.discard();
  return true;
}

bool PreemptAction::topology_aware_preempt(Session& ssn, Statement& stmt, TaskInfo* preemptor,
                                           const Filter& filter,
                                           const std::vector<NodeInfo*>& nodes) {
  if (!preemptor->job || !preemptor->job->queue) return false;
  if (nodes.empty()) {
    spdlog::debug("preempt: no node is eligible for task {}", preemptor->uid);
    return false;
  }
  // Volcano's DryRunPreemption: check nodes until numCandidates of them can host the
  // preemptor after evicting a non-empty victim set.
  const size_t wanted = num_candidates(nodes.size());
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < nodes.size() && candidates.size() < wanted; ++i) {
    Candidate c;
    c.node = nodes[i];
    if (select_victims_on_node(ssn, preemptor, c.node, filter, c.victims) && !c.victims.empty())
      candidates.push_back(std::move(c));
  }
  if (candidates.empty()) {
    spdlog::debug("preempt: no candidate node fits task {}", preemptor->uid);
    return false;
  }

  // Volcano's pickOneNodeForPreemption: each criterion keeps the best-scoring candidates;
  // the first criterion that leaves one decides, else the first candidate left.
  std::vector<const Candidate*> left;
  for (const Candidate& c : candidates) left.push_back(&c);
  using Score = std::function<int64_t(const Candidate&)>;
  const std::vector<Score> criteria = {
      // A node whose "highest priority" victim is lowest. Volcano reads the first victim,
      // which is the first one the victim order chose.
      [](const Candidate& c) { return -static_cast<int64_t>(c.victims.front()->priority); },
      // The smallest sum of victim priorities (shifted so that all are positive).
      [](const Candidate& c) {
        int64_t sum = 0;
        for (const TaskInfo* v : c.victims)
          sum += static_cast<int64_t>(v->priority) + static_cast<int64_t>(INT32_MAX) + 1;
        return -sum;
      },
      // The fewest victims.
      [](const Candidate& c) { return -static_cast<int64_t>(c.victims.size()); },
      // The latest start among the highest-priority victims (creation time stands in for
      // the start time, in milliseconds).
      [](const Candidate& c) {
        int32_t top = INT32_MIN;
        for (const TaskInfo* v : c.victims) top = std::max(top, v->priority);
        double earliest = 0;
        bool any = false;
        for (const TaskInfo* v : c.victims)
          if (v->priority == top && (!any || v->created < earliest)) {
            earliest = v->created;
            any = true;
          }
        return static_cast<int64_t>(earliest * 1000.0);
      },
  };
  for (const Score& f : criteria) {
    if (left.size() == 1) break;
    int64_t best = INT64_MIN;
    std::vector<const Candidate*> next;
    for (const Candidate* c : left) {
      const int64_t s = f(*c);
      if (s > best) {
        best = s;
        next.clear();
      }
      if (s == best) next.push_back(c);
    }
    left = std::move(next);
  }
  const Candidate& chosen = *left.front();

  // Volcano's prepareCandidate, then the pipeline.
  for (TaskInfo* v : chosen.victims) {
    spdlog::debug("preempt: task {} evicted for task {} on node {}", v->uid, preemptor->uid,
                  chosen.node->name);
    if (!eviction::try_evict(stmt, v, "preempt")) return false;
  }
  ++ssn.stats().preemption_attempts;  // Volcano's prepareCandidate
  eviction::try_pipeline(stmt, preemptor, chosen.node, /*eviction_occurred=*/true);
  return true;
}

std::unique_ptr<Action> make_preempt() { return std::make_unique<PreemptAction>(); }

}  // namespace

ActionInfo preempt_action_info() {
  auto opt = [](const char* name, cal_option_type type, const char* def, const char* desc) {
    return cal_option{sizeof(cal_option), name, type, def, desc};
  };
  return ActionInfo{
      "preempt",
      "Starving jobs evict lower-priority tasks of their own queue (other jobs first, then "
      "lower tasks of the same job) and are pipelined onto the freed resources.",
      {
          opt(kPredicateErrorCache, CAL_OPT_BOOL, "true",
              "Skip nodes on which a task of the same job and role already failed the "
              "preemption predicate in this action."),
          opt(kTopologyAware, CAL_OPT_BOOL, "false",
              "Dry-run preemption on several candidate nodes and pick the one whose victims "
              "matter least, instead of evicting on the best-scored node that works."),
          opt(kWorkerNum, CAL_OPT_INT, "16",
              "Parallel workers of the topology-aware dry run (Caldera runs it on one thread "
              "for deterministic decisions; accepted for compatibility)."),
          opt(kMinPercentage, CAL_OPT_INT, "10",
              "Topology-aware: candidate nodes to find, as a percentage of eligible nodes."),
          opt(kMinAbsolute, CAL_OPT_INT, "1", "Topology-aware: at least this many candidates."),
          opt(kMaxAbsolute, CAL_OPT_INT, "100", "Topology-aware: at most this many candidates."),
      },
      &make_preempt,
  };
}

}  // namespace caldera
