// The allocate action's path for jobs with a network topology: a job placed as a whole
// inside one HyperNode, the lowest tier first.
//
// Follows Volcano's pkg/scheduler/actions/allocate/allocate.go of v1.12
// (allocateResourceForTasksWithTopology, selectBestHyperNode, sumNodeScoresInHyperNode) and
// pkg/scheduler/util/scheduler_helper.go (PrioritizeHyperNodes, SelectBestHyperNode):
//
//   hard job (mode hard, highest tier T): for each tier from the lowest up to T, until a
//     tier holds the job: for each HyperNode of the tier (by name) -- skipped when the job
//     already runs somewhere and the lowest HyperNode holding both is missing or above T --
//     try the job's pending tasks (a copy of its task queue, fit errors reset) on the
//     HyperNode's nodes only, exactly as the plain path tries them on every node; a try
//     that leaves the job ready with at least one placement holds it. Every try is undone
//     at once. The node scores of the nodes chosen in a HyperNode add up per job and
//     HyperNode over the whole action (Volcano's hyperNodeScoresByJob).
//     Among the HyperNodes of the tier that hold the job: the only one, else the highest
//     sum of hyper_node_order scores plus those node scores, the first by name on a tie.
//     Its placements are made again in a new statement, its leftover tasks become the
//     job's queue, and the job's allocated HyperNode becomes the lowest one holding the
//     chosen HyperNode and where the job ran before.
//     No HyperNode holds it: the job waits; its pending tasks say why, every session.
//   soft job: the same over every tier, with no tier limit and no restriction by where the
//     job runs; when no HyperNode holds it, the plain path places it on any nodes.
//
// Choices where Volcano differs or is silent (README "Choices"):
//   - HyperNodes of a tier are tried by name and ties go to the first by name (Volcano
//     ranges over a map and picks a tie at random).
//   - A try that leaves the job pipelined but not ready is undone like any other (Volcano
//     keeps such a try's placements in the session by accident, then tries the next
//     HyperNode on top of them).
//   - Soft mode searches the tiers as hard mode does, then falls back to every node;
//     Volcano v1.12 places a soft job on any node and only its plugin's node scores pull
//     the tasks together.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actions/priority_queue.hpp"
#include "host/session/session.hpp"
#include "host/session/statement.hpp"

namespace caldera {

// One placement made while trying a job's tasks.
struct Placement {
  TaskInfo* task;
  NodeInfo* node;
  bool pipelined;
};

// What one try of a job's tasks on some nodes did, its placements still in effect.
struct TaskAttempt {
  std::unique_ptr<Statement> stmt;
  std::vector<Placement> placed;  // in order
  double node_scores = 0;         // sum of the score of each node chosen among several
  std::string failure;            // why the first task that found no node found none
};

class HyperNodeAllocate {
 public:
  using TaskQueue = PriorityQueue<TaskInfo*>;
  // Tries the job's tasks in `tasks` (popping them) on `nodes`, fit errors of the job reset
  // first: the plain allocate path up to its outcome.
  using TryTasks =
      std::function<TaskAttempt(TaskQueue& tasks, const std::vector<NodeInfo*>& nodes)>;

  enum class Result {
    Placed,     // `stmt` holds the job's placements inside one HyperNode
    NotPlaced,  // the job waits (its pending tasks say why); `tasks` is emptied
    AnyNodes,   // soft job no HyperNode holds: place it through the plain path
  };
  struct Outcome {
    Result result = Result::NotPlaced;
    std::unique_ptr<Statement> stmt;
  };

  explicit HyperNodeAllocate(Session& ssn) : ssn_(ssn) {}

  // True when the job goes through this path: it has a hard network topology, or a soft
  // one and the session has HyperNodes.
  bool applies(const JobInfo* job) const;

  // One turn of the job. On Placed, `tasks` holds what is left to place.
  Outcome allocate(JobInfo* job, TaskQueue& tasks, const TryTasks& try_tasks);

  // After the plain path placed a soft job: its allocated HyperNode follows its tasks.
  void placed_on_any_nodes(JobInfo* job);

 private:
  struct Held {
    HyperNodeInfo* hypernode;
    HyperNodeInfo* allocated_after;  // the job's allocated HyperNode if this one is chosen
    std::vector<Placement> placed;
    TaskQueue left;
  };
  // Tries every HyperNode of one tier; returns those that hold the job. `why` collects, per
  // reason, the HyperNodes that do not.
  std::vector<Held> try_tier(JobInfo* job, int32_t tier, const TaskQueue& tasks,
                             const TryTasks& try_tasks, const NetworkTopology& topo,
                             std::map<std::string, std::vector<std::string>>& why, size_t& tried);
  size_t choose(const JobInfo* job, const std::vector<Held>& held);
  void wait_with_reason(JobInfo* job, TaskQueue& tasks, const std::string& reason);

  Session& ssn_;
  // Volcano's hyperNodeScoresByJob: job -> HyperNode -> summed node scores.
  std::map<const JobInfo*, std::map<const HyperNodeInfo*, double>> node_scores_;
};

}  // namespace caldera
