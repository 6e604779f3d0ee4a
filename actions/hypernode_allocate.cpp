// The allocate action's HyperNode path (see the header). Volcano:
// pkg/scheduler/actions/allocate/allocate.go (v1.12), pkg/scheduler/util/scheduler_helper.go.
#include "actions/hypernode_allocate.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace caldera {

namespace {

// "s0, s1 and 3 more": the names behind one reason, kept short for a pod's condition.
std::string some_names(const std::vector<std::string>& names) {
  constexpr size_t kShown = 4;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kShown) out += fmt::format(" and {} more", names.size() - kShown);
  return out;
}

std::string reasons_text(const std::map<std::string, std::vector<std::string>>& why) {
  std::string out;
  for (const auto& [reason, names] : why)
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", some_names(names), reason);
  return out;
}

}  // namespace

bool HyperNodeAllocate::applies(const JobInfo* job) const {
  const NetworkTopology* topo = network_topology_of(job);
  if (!topo) return false;
  return topo->mode == TopologyMode::Hard || !ssn_.hypernodes().empty();
}

HyperNodeAllocate::Outcome HyperNodeAllocate::allocate(JobInfo* job, TaskQueue& tasks,
                                                      const TryTasks& try_tasks) {
  const NetworkTopology& topo = *network_topology_of(job);
  const HyperNodes& hns = ssn_.hypernodes();
  const bool hard = topo.mode == TopologyMode::Hard;
  Outcome out;

  if (hns.empty()) {
    // Only a hard job gets here (applies()).
    wait_with_reason(job, tasks,
                     hns.problem().empty()
                         ? "network topology hard: the cluster has no HyperNodes"
                         : fmt::format("network topology hard: the HyperNodes cannot be used "
                                       "({}); the job waits until they are fixed",
                                       hns.problem()));
    return out;
  }

  std::map<std::string, std::vector<std::string>> why;  // reason -> HyperNodes
  size_t tried = 0;
  std::vector<Held> held;
  for (int32_t tier : hns.tiers()) {
    // Volcano: the lowest tier first; stop above the highest tier allowed, and at the first
    // tier that holds the job (its HyperNodes span the fewest switches).
    if (hard && tier > topo.highest_tier_allowed) break;
    held = try_tier(job, tier, tasks, try_tasks, topo, why, tried);
    if (!held.empty()) break;
  }

  if (held.empty()) {
    if (!hard) {
      out.result = Result::AnyNodes;
      return out;
    }
    std::string reason =
        tried == 0 ? fmt::format("network topology hard: no HyperNode of tier <= {} (the lowest "
                                 "tier is {})",
                                 topo.highest_tier_allowed, hns.tiers().front())
                   : fmt::format("0/{} HyperNodes of tier <= {} can hold the job (network "
                                 "topology hard): {}",
                                 tried, topo.highest_tier_allowed, reasons_text(why));
    wait_with_reason(job, tasks, reason);
    return out;
  }

  Held& best = held[choose(job, held)];
  // Volcano's RecoverOperations: the chosen try's placements, again, in a new statement.
  out.stmt = std::make_unique<Statement>(ssn_);
  for (const Placement& p : best.placed) {
    if (p.pipelined)
      out.stmt->pipeline(p.task, p.node);
    else
      out.stmt->allocate(p.task, p.node);
  }
  tasks = std::move(best.left);
  ssn_.hypernodes().set_allocated(job, best.allocated_after);
  spdlog::debug("allocate: job {} placed in HyperNode {} (tier {})", job->uid,
                best.hypernode->name, best.hypernode->tier);
  out.result = Result::Placed;
  return out;
}

std::vector<HyperNodeAllocate::Held> HyperNodeAllocate::try_tier(
    JobInfo* job, int32_t tier, const TaskQueue& tasks, const TryTasks& try_tasks,
    const NetworkTopology& topo, std::map<std::string, std::vector<std::string>>& why,
    size_t& tried) {
  const HyperNodes& hns = ssn_.hypernodes();
  const bool hard = topo.mode == TopologyMode::Hard;
  HyperNodeInfo* allocated = hns.allocated(job);
  std::vector<Held> held;
  for (HyperNodeInfo* hn : hns.at_tier(tier)) {
    ++tried;
    HyperNodeInfo* after = hn;
    if (hard && allocated) {
      // The job already runs in `allocated`: the rest may only go where the lowest
      // HyperNode holding both is still within the tier allowed.
      HyperNodeInfo* lca = HyperNodes::lca(hn, allocated);
      if (!lca || lca->tier > topo.highest_tier_allowed) {
        why[fmt::format("not under one HyperNode of tier <= {} with {}, where the job runs",
                        topo.highest_tier_allowed, allocated->name)]
            .push_back(hn->name);
        continue;
      }
      after = lca;
    } else if (HyperNodeInfo* lca = HyperNodes::lca(hn, allocated)) {
      after = lca;
    }
    if (hn->nodes.empty()) {
      why["no node of the session behind it"].push_back(hn->name);
      continue;
    }

    TaskQueue copy = tasks;  // Volcano's tasks.Clone()
    TaskAttempt a = try_tasks(copy, hn->nodes);
    node_scores_[job][hn] += a.node_scores;  // Volcano sums them whatever the outcome
    const bool ready = ssn_.job_ready(job);
    if (ready && !a.placed.empty()) {
      held.push_back(Held{hn, after, a.placed, copy});
    } else if (!a.failure.empty()) {
      why[a.failure].push_back(hn->name);
    } else {
      why[fmt::format("{} of the job's tasks fit, too few for it to be ready", a.placed.size())]
          .push_back(hn->name);
    }
    a.stmt->discard();
  }
  return held;
}

size_t HyperNodeAllocate::choose(const JobInfo* job, const std::vector<Held>& held) {
  if (held.size() == 1) return 0;
  // Volcano's PrioritizeHyperNodes: the plugins' HyperNode scores plus the node scores
  // summed in each HyperNode; SelectBestHyperNode: the highest (here the first by name of
  // equal ones: `held` is in name order).
  std::vector<HyperNodeInfo*> candidates;
  for (const Held& h : held) candidates.push_back(h.hypernode);
  std::vector<double> scores;
  hyper_node_scores(ssn_, job, candidates, scores);
  const auto& summed = node_scores_[job];
  size_t best = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    auto it = summed.find(held[i].hypernode);
    if (it != summed.end()) scores[i] += it->second;
    if (scores[i] > scores[best]) best = i;
  }
  return best;
}

void HyperNodeAllocate::wait_with_reason(JobInfo* job, TaskQueue& tasks,
                                         const std::string& reason) {
  spdlog::debug("allocate: job {} waits: {}", job->uid, reason);
  // The PodGroup's reason. Each task's own message stays Volcano's: the tasks the dry runs
  // placed say where the last one put them (Statement::discard), the others this reason.
  ssn_.set_job_pending_reason(job, "allocate", reason);
  for (TaskInfo* t : job->tasks)
    if (t->status == CAL_TASK_PENDING && !t->resreq.is_empty()) ssn_.set_fit_error(t, reason);
  // No more turns this session (Volcano does not put the job back in its queue).
  while (!tasks.empty()) tasks.pop();
}

void HyperNodeAllocate::placed_on_any_nodes(JobInfo* job) {
  if (HyperNodeInfo* h = ssn_.hypernodes().derive_allocated(job))
    ssn_.hypernodes().set_allocated(job, h);
}

}  // namespace caldera
