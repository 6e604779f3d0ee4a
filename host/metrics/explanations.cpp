#include "host/metrics/explanations.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

#include "host/cache/cache.hpp"

namespace caldera::metrics {

void Explanations::record(const SessionResult& r, const Cache& cache, double now) {
  std::map<std::string, Pod> pods;
  for (const auto& [task, node] : r.binds) pods[task] = {"bound", node, "", "", "", {}, 0, now};
  for (const auto& [task, node] : r.pipelined)
    pods[task] = {"pipelined", node, "", "", "", {}, 0, now};
  for (const auto& [task, why] : r.pending) {
    Pod& p = pods[task];
    p.state = "pending";
    p.reason = why;
    p.time = now;
  }
  for (const auto& [task, top] : r.top_scores) {
    Pod& p = pods[task];
    if (p.state.empty()) p.state = "scored";  // scored, then neither bound nor left pending
    p.top = top;
    p.time = now;
  }
  // A pod's job and, for a pending one, the job's reasons (gang, proportion, ...).
  for (auto& [task, p] : pods) {
    const PodSpec* spec = cache.pod(task);
    if (!spec || spec->podgroup.empty()) continue;
    p.job = spec->ns + "/" + spec->podgroup;
    if (p.state != "pending") continue;
    if (auto j = r.job_pending.find(p.job); j != r.job_pending.end()) p.job_reason = j->second;
  }
  std::lock_guard lock(mu_);
  ++session_;
  time_ = now;
  for (auto& [task, p] : pods) {
    p.session = session_;
    if (!p.top.empty()) {
      p.scored_in = session_;
    } else if (auto old = pods_.find(task); old != pods_.end() && !old->second.top.empty()) {
      // Bound now without a scoring (pipelined by preempt or reclaim earlier): the scores
      // that chose its node are the earlier session's.
      p.top = std::move(old->second.top);
      p.scored_in = old->second.scored_in;
    }
    pods_[task] = std::move(p);
  }
  // Pods gone from the cache take their entries with them; past the cap, the oldest
  // decisions go.
  for (auto it = pods_.begin(); it != pods_.end();)
    it = cache.pod(it->first) ? std::next(it) : pods_.erase(it);
  if (pods_.size() > kMaxPods) {
    std::vector<uint64_t> sessions;
    sessions.reserve(pods_.size());
    for (const auto& [_, p] : pods_) sessions.push_back(p.session);
    auto nth = sessions.begin() + static_cast<std::ptrdiff_t>(pods_.size() - kMaxPods);
    std::nth_element(sessions.begin(), nth, sessions.end());
    const uint64_t keep_from = *nth;
    for (auto it = pods_.begin(); it != pods_.end() && pods_.size() > kMaxPods;)
      it = it->second.session < keep_from ? pods_.erase(it) : std::next(it);
  }
}

std::pair<int, std::string> Explanations::query(const std::string& pod) const {
  using Json = nlohmann::ordered_json;
  std::lock_guard lock(mu_);
  Json j;
  j["pod"] = pod;
  j["session"] = session_;
  j["time"] = time_;
  auto it = pods_.find(pod);
  if (it == pods_.end()) {
    j["error"] = session_ == 0 ? "no session has run yet"
                               : "no session has decided about this pod: it is gone, not one "
                                 "of this scheduler's (schedulerName), bound before this "
                                 "scheduler started, or its job has not been in a session";
    return {404, j.dump() + "\n"};
  }
  const Pod& p = it->second;
  j["decided_in_session"] = p.session;
  j["decided_at"] = p.time;
  j["state"] = p.state;
  if (!p.node.empty()) j["node"] = p.node;
  if (!p.reason.empty()) j["reason"] = p.reason;
  if (!p.job.empty()) j["job"] = p.job;
  if (!p.job_reason.empty()) j["job_reason"] = p.job_reason;
  Json top = Json::array();
  for (const NodeScore& n : p.top) {
    Json plugins = Json::object();
    for (const auto& [name, score] : n.plugins) plugins[name] = score;
    top.push_back({{"node", n.node}, {"total", n.total}, {"plugins", std::move(plugins)}});
  }
  j["top_nodes"] = std::move(top);
  if (!p.top.empty()) j["scored_in_session"] = p.scored_in;
  return {200, j.dump() + "\n"};
}

}  // namespace caldera::metrics
