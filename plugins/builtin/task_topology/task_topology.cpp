// task-topology: affinity and anti-affinity between the task roles of one job, as Volcano's
// pkg/scheduler/plugins/task-topology/topology.go does it (buckets in
// task_topology_math.hpp).
//
// The job's PodGroup annotations (Volcano's keys):
//   volcano.sh/task-topology-affinity       "ps,worker;chief"  roles that want one node
//                                           (a group of one: tasks of that role together)
//   volcano.sh/task-topology-anti-affinity  "ps;worker,evaluator"  roles kept apart (a
//                                           group of one: tasks of that role spread)
//   volcano.sh/task-topology-task-order     "ps,worker"  roles placed first, in this order
// At session open every job with pending tasks and any of these annotations gets its
// tasks sorted into buckets (tasks meant for one node). Then:
//   task_order   tasks in a bucket first; bigger buckets first; older buckets first; in one
//                bucket by the role order above, then by topology priority
//   node_order   a node scores the bucket's tasks already on it, less the anti-affinity with
//                tasks placed on it this session, plus the bucket's pending tasks, less one
//                per task that must leave the bucket for the rest to fit the node's idle +
//                releasing resources; times task-topology.weight, scaled to 100 by the
//                largest bucket. 0 when the task alone does not fit.
//   on_allocate  the task counts on its node and leaves its bucket's pending set;
//   on_deallocate undoes that for an allocation made in this session (Volcano has no
//                deallocate handler; a placement rolled back would otherwise still count).
// An annotation naming a role the job does not have leaves the job without buckets and is
// logged, as in Volcano. Tasks of jobs without buckets, or with a role that has no
// (anti-)affinity, are "out of bucket": the plugin has no opinion on them.
//
// Argument: task-topology.weight (default 1).
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "caldera/sdk.hpp"
#include "task_topology/task_topology_math.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace tt = caldera::task_topology;
using caldera::ResVec;

class TaskTopology {
 public:
  static constexpr const char* kName = "task-topology";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "places the task roles of a job together or apart as its PodGroup's task-topology "
      "annotations ask, through buckets of tasks meant for one node (Volcano's "
      "task-topology)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::task_order, sdk::Hook::node_order,
      sdk::Hook::on_allocate, sdk::Hook::on_deallocate, sdk::Hook::check_args);

  static constexpr sdk::Int kWeight{"task-topology.weight", 1, "Weight of the bucket score."};
  static constexpr auto kOptions = sdk::options(kWeight);

  static sdk::Status check_args(const sdk::Args& a) {
    if (a.get(kWeight) < 0)
      return sdk::Status::error(
          {kWeight.name, " must be >= 0, got ", std::to_string(a.get(kWeight))});
    return sdk::Status::ok();
  }

  TaskTopology(sdk::Session s, const sdk::Args& a)
      : ssn_(s), n_(s.resource_count()), weight_(a.get(kWeight)) {
    for (size_t i = 0; i < s.job_count(); ++i) init_job(s.job(i));
  }

  int task_order(sdk::Task l, sdk::Task r) const {
    const tt::JobManager* lm = manager(l.job());
    const tt::JobManager* rm = manager(r.job());
    if (!lm || !rm) return 0;
    const std::string lu(l.name()), ru(r.name());
    const bool lin = lm->bucket_of(lu) != nullptr, rin = rm->bucket_of(ru) != nullptr;
    if (lin != rin) return lin ? -1 : 1;  // in a bucket first, even across jobs
    if (lm != rm) return 0;               // ordering jobs is not this plugin's duty
    return lm->task_order(lu, ru);
  }

  double node_order(sdk::Task t, sdk::Node n) const {
    // calcBucketScore: a node that cannot hold the task even with what is releasing.
    ResVec max_resource = n.idle().copy();
    max_resource.add(n.releasing().data());
    sdk::Res req = t.request();
    for (size_t i = 0; i < n_; ++i)
      if (max_resource[i] < req[i]) return 0;
    const tt::JobManager* m = manager(t.job());
    if (!m) return 0;
    const int score = m->bucket_score(std::string(t.name()), std::string(n.name()), max_resource);
    return m->node_score(score, weight_);
  }

  void on_allocate(sdk::Task t) {
    tt::JobManager* m = manager(t.job());
    sdk::Node n = t.node();
    if (!m || !n) return;
    const std::string uid(t.name()), node(n.name());
    m->task_bound(uid, node);
    bound_here_[uid] = node;
  }

  void on_deallocate(sdk::Task t) {
    tt::JobManager* m = manager(t.job());
    if (!m) return;
    auto it = bound_here_.find(std::string(t.name()));
    if (it == bound_here_.end()) return;  // not placed by this session
    m->task_unbound(it->first, it->second);
    bound_here_.erase(it);
  }

 private:
  tt::JobManager* manager(sdk::Job j) const {
    auto it = managers_.find(j.handle());
    return it == managers_.end() ? nullptr : it->second.get();
  }

  // initBucket for one job.
  void init_job(sdk::Job j) {
    if (j.status_count(CAL_TASK_PENDING) == 0) return;  // noPendingTasks
    std::set<std::string> roles;
    for (size_t i = 0; i < j.task_count(); ++i) {
      std::string_view r = j.task(i).role();
      if (!r.empty()) roles.emplace(r);
    }
    std::string why;
    bool present = false;
    auto topo = tt::read_topology(j.annotation(tt::kAffinityKey), j.annotation(tt::kAntiAffinityKey),
                                  j.annotation(tt::kTaskOrderKey), roles, &why, &present);
    if (!present) return;
    if (!topo) {
      sdk::log(CAL_LOG_WARN, kName,
               "job " + std::string(j.name()) + ": task topology ignored: " + why);
      return;
    }
    auto m = std::make_unique<tt::JobManager>(n_);
    m->apply(*topo);
    std::vector<tt::TaskRec> tasks;
    for (size_t i = 0; i < j.task_count(); ++i) {
      sdk::Task t = j.task(i);
      const cal_task_status st = t.status();
      // Finished tasks hold no node and no resources: they belong to no bucket.
      if (st == CAL_TASK_SUCCEEDED || st == CAL_TASK_FAILED) continue;
      sdk::Node n = t.node();
      tasks.push_back(tt::TaskRec{std::string(t.name()), std::string(t.role()),
                                  n ? std::string(n.name()) : std::string(),
                                  t.request().copy()});
    }
    m->construct(tasks);
    managers_.emplace(j.handle(), std::move(m));
  }

  sdk::Session ssn_;
  size_t n_;
  int64_t weight_;
  std::unordered_map<const cal_job*, std::unique_ptr<tt::JobManager>> managers_;
  std::map<std::string, std::string> bound_here_;  // task -> node, placed this session
};

}  // namespace

CALDERA_PLUGIN(TaskTopology)
