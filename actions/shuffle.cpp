// The shuffle action: Volcano's pkg/scheduler/actions/shuffle/shuffle.go.
//
// Every Running task of every job is offered to the victim_tasks point (plugins such as
// tdm or a rescheduling policy mark the tasks to move), and each task marked is evicted
// at once (Volcano calls ssn.Evict directly; here one statement commits them together,
// which records the same evictions).
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "actions/action.hpp"
#include "actions/eviction.hpp"
#include "host/session/statement.hpp"

namespace caldera {
namespace {

class ShuffleAction final : public Action {
 public:
  std::string name() const override { return "shuffle"; }

  void execute(Session& ssn) override {
    std::vector<TaskInfo*> tasks;
    for (JobInfo* job : ssn.jobs())
      for (TaskInfo* t : job->tasks)
        if (t->status == CAL_TASK_RUNNING) tasks.push_back(t);
    if (tasks.empty()) return;

    const std::vector<TaskInfo*> victims = ssn.victim_tasks(tasks);
    Statement stmt(ssn);
    for (TaskInfo* v : victims) {
      spdlog::debug("shuffle: task {} of job {} will be evicted", v->uid,
                    v->job ? v->job->uid : std::string("-"));
      eviction::try_evict(stmt, v, "shuffle");
    }
    stmt.commit();
  }
};

std::unique_ptr<Action> make_shuffle() { return std::make_unique<ShuffleAction>(); }

}  // namespace

ActionInfo shuffle_action_info() {
  return ActionInfo{
      "shuffle",
      "Evicts the running tasks that the victim_tasks plugins select (rescheduling).",
      {},
      &make_shuffle,
  };
}

}  // namespace caldera
