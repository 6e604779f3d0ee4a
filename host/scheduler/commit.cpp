#include "host/scheduler/commit.hpp"

#include <spdlog/spdlog.h>

namespace caldera {

namespace {

// The bind's volume decisions as the cache is to hold them (Kubernetes' AssumePodVolumes),
// or nullopt when one no longer applies: a claim or PV gone, a PV taken by another claim.
std::optional<std::vector<ClaimDecision>> volume_decisions(
    const std::vector<std::pair<std::string, std::string>>& bindings, const Cache& cache,
    const std::string& node) {
  std::vector<ClaimDecision> out;
  for (const auto& [claim_key, volume] : bindings) {
    const PersistentVolumeClaim* c = cache.claim(claim_key);
    if (c == nullptr) return std::nullopt;
    ClaimDecision d{c->spec(), std::nullopt};
    if (volume.empty()) {
      d.claim.meta.set_annotation(kAnnSelectedNode, node);
    } else {
      const PersistentVolume* pv = cache.persistent_volume(volume);
      if (pv == nullptr) return std::nullopt;
      PersistentVolumeSpec next = pv->spec();
      const bool ours = next.has_claim_ref && next.claim_namespace == c->spec().meta.ns &&
                        next.claim_name == c->spec().meta.name &&
                        (next.claim_uid.empty() || next.claim_uid == c->spec().meta.uid);
      if (next.has_claim_ref && !ours) return std::nullopt;
      if (!ours) next.meta.set_annotation(kAnnBoundByController, "yes");
      next.has_claim_ref = true;
      next.claim_namespace = c->spec().meta.ns;
      next.claim_name = c->spec().meta.name;
      next.claim_uid = c->spec().meta.uid;
      d.volume = std::move(next);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

CommitReport commit_binds(const SessionResult& r, Cache& cache, Backend& backend) {
  CommitReport rep;
  for (const auto& [key, node] : r.binds) {
    const PodSpec* pod = cache.pod(key);
    if (!pod || !pod->node.empty() || pod->releasing || !pod->schedulable || !cache.node(node)) {
      ++rep.binds_skipped;
      spdlog::debug("bind of {} to {} skipped: the pod or node changed", key, node);
      continue;
    }
    if (auto vb = r.volume_bindings.find(key); vb != r.volume_bindings.end()) {
      std::optional<std::vector<ClaimDecision>> decisions = volume_decisions(vb->second, cache, node);
      if (!decisions) {
        ++rep.binds_skipped;
        spdlog::debug("bind of {} to {} skipped: a claim or volume it was given changed", key, node);
        continue;
      }
      if (!backend.bind_volumes(*pod, *decisions)) {
        ++rep.binds_skipped;
        continue;
      }
      pod = cache.pod(key);  // the backend may have moved the cache on
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
  return rep;
}

CommitReport commit_decisions(const SessionResult& r, Cache& cache, Backend& backend,
                              double now) {
  CommitReport rep = commit_binds(r, cache, backend);
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
    auto why = r.eviction_reasons.find(key);
    backend.evict(observed, why == r.eviction_reasons.end() ? std::string() : why->second);
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
