// The enqueue action: admits Pending PodGroups to Inqueue, so that allocate considers them.
//
// Follows Volcano's pkg/scheduler/actions/enqueue/enqueue.go:
//   - every queue that has a job of the session takes part, ordered by queue_order; the
//     Pending jobs of each queue are ordered by job_order;
//   - pop the first queue, pop its first Pending job; a job whose PodGroup sets no
//     minResources is admitted at once, any other job when job_enqueueable votes yes;
//     an admitted job gets the job_enqueued notification, then phase Inqueue;
//   - the queue goes back in line (a refused job does not stop its queue) until it has no
//     Pending job left.
// Not followed: the newest Volcano first sends Inqueue jobs that waited longer than an
// inqueue timeout back to Pending (evictTimedOutInqueueJobs). That needs a plugin
// notification ("inqueue evicted") the plugin ABI does not have, so it is left out.
#include <map>

#include <spdlog/spdlog.h>

#include "actions/action.hpp"
#include "actions/priority_queue.hpp"
#include "host/session/statement.hpp"

namespace caldera {
namespace {

class EnqueueAction : public Action {
 public:
  std::string name() const override { return "enqueue"; }

  void execute(Session& ssn) override {
    PriorityQueue<QueueInfo*> queues(
        [&ssn](QueueInfo* const& l, QueueInfo* const& r) { return ssn.queue_order_less(l, r); });
    std::map<QueueInfo*, PriorityQueue<JobInfo*>> jobs_by_queue;
    std::map<QueueInfo*, bool> queue_listed;

    for (JobInfo* job : ssn.jobs()) {
      QueueInfo* queue = job->queue;
      if (queue == nullptr) {
        spdlog::error("enqueue: job {} names a queue that is not in the session", job->uid);
        continue;
      }
      if (!queue_listed[queue]) {
        queue_listed[queue] = true;
        queues.push(queue);
      }
      if (job->is_pending()) {
        auto it = jobs_by_queue.find(queue);
        if (it == jobs_by_queue.end()) {
          it = jobs_by_queue
                   .emplace(queue, PriorityQueue<JobInfo*>([&ssn](JobInfo* const& l,
                                                                  JobInfo* const& r) {
                     return ssn.job_order_less(l, r);
                   }))
                   .first;
        }
        it->second.push(job);
      }
    }

    while (!queues.empty()) {
      QueueInfo* queue = queues.pop();
      auto it = jobs_by_queue.find(queue);
      // A queue with no Pending job left drops out.
      if (it == jobs_by_queue.end() || it->second.empty()) continue;
      JobInfo* job = it->second.pop();

      if (!job->has_min_resources || ssn.job_enqueueable(job)) {
        // Volcano tells the plugins first (they count the job's minResources as inqueue
        // from here on), then moves the PodGroup to Inqueue.
        ssn.job_enqueued(job);
        Statement stmt(ssn);
        stmt.enqueue(job);
        stmt.commit();
        spdlog::debug("enqueue: job {} of queue {} is Inqueue", job->uid, queue->name);
      } else {
        spdlog::debug("enqueue: job {} of queue {} stays Pending", job->uid, queue->name);
      }
      queues.push(queue);
    }
  }
};

}  // namespace

ActionInfo enqueue_action_info() {
  return ActionInfo{
      "enqueue",
      "Admits Pending PodGroups to Inqueue when the job_enqueueable vote allows it "
      "(a PodGroup without minResources is always admitted).",
      {},
      []() -> std::unique_ptr<Action> { return std::make_unique<EnqueueAction>(); },
  };
}

}  // namespace caldera
