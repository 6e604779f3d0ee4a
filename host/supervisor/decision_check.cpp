// check_decisions (decision_check.hpp).
#include "host/supervisor/decision_check.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace caldera {

namespace {
// Requests are sums of parsed quantities: allow for the rounding of a sum of doubles.
bool over(double used, double allocatable) {
  return used > allocatable + 1e-6 * std::max(1.0, std::abs(allocatable));
}
}  // namespace

std::optional<std::string> check_decisions(const SessionResult& r, const Cache& cache) {
  std::set<std::string> decided;
  // Per node: what the binds add, and how many pods.
  std::map<std::string, std::pair<ResourceList, int32_t>> added;
  for (const auto& [key, node] : r.binds) {
    if (!decided.insert(key).second) return fmt::format("pod {} is bound twice", key);
    const PodSpec* pod = cache.pod(key);
    if (!pod || !pod->node.empty() || !cache.node(node)) continue;  // stale: skipped at commit
    auto& [res, pods] = added[node];
    for (const auto& [name, q] : pod->requests) res[name] += q;
    ++pods;
  }
  for (const std::string& key : r.evictions) {
    if (!decided.insert(key).second) return fmt::format("pod {} is bound or evicted twice", key);
  }
  if (added.empty()) return std::nullopt;
  // What the nodes that take binds already hold (the cache's per-node index: a part of a
  // streamed session looks at its nodes' pods only).
  std::map<std::string, std::pair<ResourceList, int32_t>> held;
  for (const auto& [node, _] : added) {
    const std::set<std::string_view>* on = cache.pods_on(node);
    if (!on) continue;
    auto& [res, pods] = held[node];
    for (std::string_view key : *on) {
      const PodSpec* pod = cache.pod(std::string(key));
      if (!pod || pod->phase == PodPhase::Succeeded || pod->phase == PodPhase::Failed) continue;
      for (const auto& [name, q] : pod->requests) res[name] += q;
      ++pods;
    }
  }
  for (const auto& [name, add] : added) {
    const NodeSpec& node = *cache.node(name);
    const auto& [have, have_pods] = held[name];
    if (have_pods + add.second > node.max_pods)
      return fmt::format("node {} would hold {} pods, over its {} allowed", name,
                         have_pods + add.second, node.max_pods);
    for (const auto& [res, q] : add.first) {
      if (q <= 0) continue;
      const auto a = node.allocatable.find(res);
      const double allocatable = a == node.allocatable.end() ? 0 : a->second;
      const auto h = have.find(res);
      const double used = (h == have.end() ? 0 : h->second) + q;
      if (over(used, allocatable))
        return fmt::format("node {} would have {:g} of {} requested, over its allocatable {:g}",
                           name, used, res, allocatable);
    }
  }
  return std::nullopt;
}

void refuse_unfit(WorkerOutcome& outcome, const Cache& cache) {
  if (!outcome.ok) return;
  if (auto bad = check_decisions(outcome.result.result, cache)) {
    outcome.ok = false;
    outcome.fault = SessionFault{};
    outcome.fault.kind = SessionFault::Kind::BadResult;
    outcome.fault.what = "result refused: " + *bad;
  }
}

}  // namespace caldera
