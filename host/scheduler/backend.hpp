// Where a session's decisions go: the cluster behind the cache. Volcano's scheduler cache
// hands them to a Binder, an Evictor and a StatusUpdater (pkg/scheduler/cache/interface.go);
// Caldera's backends implement this one small interface: the embedded cluster
// (host/backend/sim), the Kubernetes API (host/backend/kubernetes) and the openb trace
// replay (host/replay).
//
// commit_decisions (commit.hpp) is the only caller: it has already changed the cache the
// way Volcano's cache assumes a decision (a bound pod is on its node, an evicted pod is
// Releasing, a PodGroup has its new phase) before it calls the backend, so a backend only
// makes the decision real and records what follows from it (a simulated kubelet starting
// the pod, an API call, an event).
#pragma once

#include <optional>
#include <vector>

#include "host/model/objects.hpp"
#include "host/model/storage.hpp"

namespace caldera {

struct SessionResult;

// A volume decision of a bind, as the cache now holds its objects: `volume` set, the PV
// chosen for the claim (its claimRef names the claim, annotation bound-by-controller);
// unset, the claim is to be provisioned on the pod's node (annotation selected-node).
struct ClaimDecision {
  PersistentVolumeClaimSpec claim;
  std::optional<PersistentVolumeSpec> volume;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // Binder. `observed` is the pod as it was before the decision; `bound` is what the cache
  // now holds: on `bound.node`, with the plugins' bind annotations (device assignments).
  virtual void bind(const PodSpec& observed, const PodSpec& bound) = 0;

  // VolumeBinding's PreBind, just before bind() of the same pod, for a pod the session
  // made volume decisions for: writes them as kube-scheduler's volume binder does (the
  // PV's claimRef, the claim's selected-node annotation); the PV controller does the rest.
  // False: they could not be written, and the pod is not bound.
  virtual bool bind_volumes(const PodSpec& pod, const std::vector<ClaimDecision>& decisions) = 0;

  // Evictor. `observed` is the pod as it was; the cache now holds it Releasing. `reason`:
  // the action that chose the victim ("preempt", "reclaim", "shuffle"; "" when unknown).
  virtual void evict(const PodSpec& observed, const std::string& reason) = 0;

  // StatusUpdater, once per session after the binds and evictions: PodGroup status and
  // conditions, queue status, pending reasons and events. The cache already holds the
  // session's PodGroup phases.
  virtual void update_status(const SessionResult& result, double now) = 0;
};

}  // namespace caldera
