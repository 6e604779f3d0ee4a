#include "host/scheduler/commit.hpp"

#include <spdlog/spdlog.h>

namespace caldera {

CommitReport commit_decisions(const SessionResult& r, Cache& cache, Backend& backend,
                              double now) {
  CommitReport rep;
  for (const auto& [key, node] : r.binds) {
    const PodSpec* pod = cache.pod(key);
    if (!pod || !pod->node.empty() || pod->releasing || !pod->schedulable || !cache.node(node)) {
      ++rep.binds_skipped;
      spdlog::debug("bind of {} to {} skipped: the pod or node changed", key, node);
      continue;
    }
    PodSpec observed = *pod;
    PodSpec bound = observed;
    bound.node = node;
    if (auto a = r.bind_annotations.find(key); a != r.bind_annotations.end())
      for (const auto& [k, v] : a->second) bound.annotations[k] = v;
    cache.upsert_pod(bound);
    backend.bind(observed, bound);
    ++rep.binds;
  }
  for (const auto& key : r.evictions) {
    const PodSpec* pod = cache.pod(key);
    if (!pod || pod->node.empty() || pod->releasing) {
      ++rep.evictions_skipped;
      spdlog::debug("eviction of {} skipped: the pod changed", key);
      continue;
    }
    PodSpec observed = *pod;
    PodSpec releasing = observed;
    releasing.releasing = true;
    cache.upsert_pod(std::move(releasing));
    backend.evict(observed);
    ++rep.evictions;
  }
  // A pipelined pod whose room was made by evictions remembers the node (Volcano's
  // taskUnschedulable writes status.nominatedNodeName; an empty one never clears it).
  for (const auto& [key, node] : r.nominated) {
    const PodSpec* pod = cache.pod(key);
    if (!pod || !pod->node.empty() || pod->nominated_node == node) continue;
    PodSpec next = *pod;
    next.nominated_node = node;
    cache.upsert_pod(std::move(next));
  }
  for (const auto& [key, phase] : r.podgroup_phases) {
    const PodGroupSpec* pg = cache.podgroup(key);
    if (!pg || pg->phase == phase) continue;  // a pod without PodGroup has no record
    PodGroupSpec next = *pg;
    next.phase = phase;
    next.phase_since = now;
    cache.upsert_podgroup(std::move(next));
  }
  backend.update_status(r, now);
  return rep;
}

}  // namespace caldera
