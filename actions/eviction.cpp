// Helpers of the evicting actions. Follows Volcano's pkg/scheduler/util/predicate_helper.go,
// util/scheduler_helper.go and framework/session_plugins.go (see eviction.hpp).
#include "actions/eviction.hpp"

#include <algorithm>
#include <exception>
#include <numeric>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace caldera::eviction {

bool validate_victims(const TaskInfo* preemptor, const NodeInfo* node,
                      const std::vector<TaskInfo*>& victims, std::string* why) {
  ResVec future = node->future_idle;
  for (const TaskInfo* v : victims) future.add(v->resreq);
  if (fits(preemptor->init_resreq, future)) return true;
  if (why) {
    // Name the first short dimension by index; the caller logs it at debug level.
    for (size_t i = 0; i < future.size(); ++i) {
      if (!res::le(preemptor->init_resreq[i], future[i])) {
        *why = fmt::format("not enough resources on node {}: resource #{} requested {}, future "
                           "idle with {} victim(s) {}",
                           node->name, i, preemptor->init_resreq[i], victims.size(), future[i]);
        break;
      }
    }
  }
  return false;
}

bool victim_less(const Session& ssn, const TaskInfo* l, const TaskInfo* r) {
  if (l == r) return false;
  // Volcano negates the session's orders (!TaskOrderFn(l, r)); the session's orders are
  // total, so for two distinct objects that is the same as swapping the arguments, which
  // keeps this a strict order for the heap.
  if (l->job == r->job) return ssn.task_order_less(r, l);
  const QueueInfo* lq = l->job ? l->job->queue : nullptr;
  const QueueInfo* rq = r->job ? r->job->queue : nullptr;
  if (lq && rq && lq != rq) return ssn.queue_order_less(rq, lq);
  if (!l->job || !r->job) return l->uid < r->uid;  // not reached: victims belong to jobs
  return ssn.job_order_less(r->job, l->job);
}

PriorityQueue<TaskInfo*> victims_queue(const Session& ssn, const std::vector<TaskInfo*>& victims) {
  PriorityQueue<TaskInfo*> q(
      [&ssn](TaskInfo* const& l, TaskInfo* const& r) { return victim_less(ssn, l, r); });
  for (TaskInfo* v : victims) q.push(v);
  return q;
}

std::vector<NodeInfo*> sort_nodes_by_score(const Session& ssn, const TaskInfo* task,
                                           const std::vector<NodeInfo*>& nodes) {
  if (nodes.size() <= 1) return nodes;
  std::vector<double> scores(nodes.size(), 0.0);
  ssn.node_scores(task, nodes, scores);
  std::vector<size_t> idx(nodes.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  std::vector<NodeInfo*> out;
  out.reserve(nodes.size());
  for (size_t i : idx) out.push_back(nodes[i]);
  return out;
}

bool try_evict(Statement& stmt, TaskInfo* victim, const std::string& reason) {
  try {
    stmt.evict(victim, reason);
    return true;
  } catch (const std::exception& e) {
    spdlog::error("failed to evict task {} ({}): {}", victim->uid, reason, e.what());
    return false;
  }
}

bool try_pipeline(Statement& stmt, TaskInfo* task, NodeInfo* node, bool eviction_occurred) {
  try {
    stmt.pipeline(task, node, eviction_occurred);
    return true;
  } catch (const std::exception& e) {
    spdlog::error("failed to pipeline task {} on node {}: {}", task->uid, node->name, e.what());
    return false;
  }
}

}  // namespace caldera::eviction
