// The dispatch of the extension points over tiers, each with Volcano's combination rule
// (written once, in caldera/plugin.h): orders, best node, victims, queue and job checks,
// votes, job_valid, job_enqueued. The node-level chains (predicate, node_order) are in
// node_dispatch.cpp.
// Follows Volcano's pkg/scheduler/framework/session_plugins.go.
#include "host/session/dispatch.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "host/session/host_api.hpp"

namespace caldera {

PointStatus failed_status(cal_code code, const cal_status& st, const std::string& plugin) {
  PointStatus ps;
  ps.code = code;
  ps.reason = st.reason;
  ps.plugin = plugin;
  if (code == CAL_ERROR)
    spdlog::error("plugin {}: error: {}", plugin, ps.reason.empty() ? "no reason" : ps.reason);
  if (ps.reason.empty()) ps.reason = plugin + " refused";
  return ps;
}

bool Session::has_point(Point p) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(p)) return true;
  return false;
}

bool Session::job_order_less(const JobInfo* l, const JobInfo* r) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::JobOrder) && in.plugin->desc->job_order) {
        int c = in.plugin->desc->job_order(in.self, to_handle(l), to_handle(r));
        if (c != 0) return c < 0;
      }
  if (l->created != r->created) return l->created < r->created;
  if (l->name != r->name) return l->name < r->name;
  return l->uid < r->uid;
}

bool Session::queue_order_less(const QueueInfo* l, const QueueInfo* r) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::QueueOrder) && in.plugin->desc->queue_order) {
        int c = in.plugin->desc->queue_order(in.self, to_handle(l), to_handle(r));
        if (c != 0) return c < 0;
      }
  if (l->created != r->created) return l->created < r->created;
  return l->name < r->name;
}

bool Session::task_order_less(const TaskInfo* l, const TaskInfo* r) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::TaskOrder) && in.plugin->desc->task_order) {
        int c = in.plugin->desc->task_order(in.self, to_handle(l), to_handle(r));
        if (c != 0) return c < 0;
      }
  return task_fallback_less(l, r);
}

NodeInfo* Session::best_node(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                             const std::vector<double>& scores) const {
  if (nodes.empty()) return nullptr;
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::BestNode) && in.plugin->desc->best_node) {
        int64_t i = in.plugin->desc->best_node(
            in.self, to_handle(t), reinterpret_cast<const cal_node* const*>(nodes.data()),
            scores.data(), nodes.size());
        if (i >= 0 && static_cast<size_t>(i) < nodes.size()) return nodes[i];
      }
  // Highest score; among equal scores the node first by name (Volcano picks at random;
  // Caldera must be deterministic).
  size_t best = 0;
  for (size_t i = 1; i < nodes.size(); ++i) {
    if (scores[i] > scores[best] ||
        (scores[i] == scores[best] && nodes[i]->name < nodes[best]->name))
      best = i;
  }
  return nodes[best];
}

namespace {
// Volcano's Preemptable / Reclaimable: intersect inside a tier; an empty answer ends the
// tier; the first tier that leaves victims decides. `init` carries across tiers exactly as
// in Volcano (session_plugins.go).
std::vector<TaskInfo*> select_victims(const std::vector<std::vector<Session::Instance>>& tiers,
                                      Point p, cal_victims_fn cal_plugin::*slot,
                                      const TaskInfo* preemptor,
                                      const std::vector<TaskInfo*>& candidates) {
  std::vector<TaskInfo*> victims;
  bool init = false;
  std::vector<const cal_task*> handles(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) handles[i] = to_handle(candidates[i]);
  std::vector<uint8_t> marks(candidates.size());
  for (const auto& tier : tiers) {
    for (const auto& in : tier) {
      cal_victims_fn fn = in.plugin->desc->*slot;
      if (!in.plugin->points.has(p) || !fn) continue;
      std::fill(marks.begin(), marks.end(), 0);
      cal_vote v = fn(in.self, to_handle(preemptor), handles.data(), handles.size(), marks.data());
      if (v == CAL_ABSTAIN) continue;
      std::vector<TaskInfo*> chosen;
      for (size_t i = 0; i < candidates.size(); ++i)
        if (marks[i]) chosen.push_back(candidates[i]);
      if (chosen.empty()) {
        victims.clear();
        break;
      }
      if (!init) {
        victims = std::move(chosen);
        init = true;
      } else {
        std::vector<TaskInfo*> both;
        for (TaskInfo* v : victims)
          if (std::find(chosen.begin(), chosen.end(), v) != chosen.end()) both.push_back(v);
        victims = std::move(both);
      }
    }
    if (!victims.empty()) return victims;
  }
  return victims;
}
}  // namespace

std::vector<TaskInfo*> Session::preemptable(const TaskInfo* preemptor,
                                            const std::vector<TaskInfo*>& candidates) const {
  return select_victims(tiers_, Point::Preemptable, &cal_plugin::preemptable, preemptor,
                        candidates);
}

std::vector<TaskInfo*> Session::reclaimable(const TaskInfo* reclaimer,
                                            const std::vector<TaskInfo*>& candidates) const {
  return select_victims(tiers_, Point::Reclaimable, &cal_plugin::reclaimable, reclaimer,
                        candidates);
}

std::vector<TaskInfo*> Session::victim_tasks(const std::vector<TaskInfo*>& tasks) const {
  std::vector<const cal_task*> handles(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) handles[i] = to_handle(tasks[i]);
  std::vector<uint8_t> union_marks(tasks.size(), 0), marks(tasks.size());
  for (const auto& tier : tiers_) {
    bool any = false;
    for (const auto& in : tier) {
      if (!in.plugin->points.has(Point::VictimTasks) || !in.plugin->desc->victim_tasks) continue;
      std::fill(marks.begin(), marks.end(), 0);
      in.plugin->desc->victim_tasks(in.self, handles.data(), handles.size(), marks.data());
      for (size_t i = 0; i < tasks.size(); ++i)
        if (marks[i]) union_marks[i] = 1, any = true;
    }
    if (any) break;
  }
  std::vector<TaskInfo*> out;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (union_marks[i]) out.push_back(tasks[i]);
  return out;
}

bool Session::overused(const QueueInfo* q) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::Overused) && in.plugin->desc->overused &&
          in.plugin->desc->overused(in.self, to_handle(q)))
        return true;
  return false;
}

bool Session::allocatable(const QueueInfo* q, const TaskInfo* t) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::Allocatable) && in.plugin->desc->allocatable &&
          !in.plugin->desc->allocatable(in.self, to_handle(q), to_handle(t)))
        return false;
  return true;
}

bool Session::preemptive(const QueueInfo* q, const TaskInfo* t) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::Preemptive) && in.plugin->desc->preemptive &&
          !in.plugin->desc->preemptive(in.self, to_handle(q), to_handle(t)))
        return false;
  return true;
}

bool Session::job_ready(const JobInfo* j) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::JobReady) && in.plugin->desc->job_ready &&
          !in.plugin->desc->job_ready(in.self, to_handle(j)))
        return false;
  return true;
}

namespace {
// Votes: any reject decides no; a tier with a permit decides yes; all abstain: yes.
bool vote(const std::vector<std::vector<Session::Instance>>& tiers, Point p,
          cal_job_vote_fn cal_plugin::*slot, const JobInfo* j) {
  for (const auto& tier : tiers) {
    bool permit = false;
    for (const auto& in : tier) {
      cal_job_vote_fn fn = in.plugin->desc->*slot;
      if (!in.plugin->points.has(p) || !fn) continue;
      cal_vote v = fn(in.self, to_handle(j));
      if (v == CAL_REJECT) return false;
      if (v == CAL_PERMIT) permit = true;
    }
    if (permit) return true;
  }
  return true;
}
}  // namespace

bool Session::job_pipelined(const JobInfo* j) const {
  return vote(tiers_, Point::JobPipelined, &cal_plugin::job_pipelined, j);
}

bool Session::job_enqueueable(const JobInfo* j) const {
  return vote(tiers_, Point::JobEnqueueable, &cal_plugin::job_enqueueable, j);
}

bool Session::job_starving(const JobInfo* j) const {
  for (const auto& tier : tiers_) {
    bool found = false;
    for (const auto& in : tier) {
      if (!in.plugin->points.has(Point::JobStarving) || !in.plugin->desc->job_starving) continue;
      found = true;
      if (!in.plugin->desc->job_starving(in.self, to_handle(j))) return false;
    }
    if (found) return true;
  }
  return false;
}

void Session::job_enqueued(JobInfo* j) {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(Point::JobEnqueueable) && in.plugin->desc->job_enqueued)
        in.plugin->desc->job_enqueued(in.self, to_handle(j));
}

PointStatus Session::job_valid(const JobInfo* j) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->desc->job_valid) {
        cal_status st{};
        st.struct_size = sizeof st;
        cal_code c = in.plugin->desc->job_valid(in.self, to_handle(j), &st);
        if (c != CAL_SUCCESS && c != CAL_SKIP) return failed_status(c, st, in.plugin->name);
      }
  return {};
}

}  // namespace caldera
