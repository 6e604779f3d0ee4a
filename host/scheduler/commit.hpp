// The one step that applies a session's decisions: to the cache (as Volcano's cache
// assumes them) and to the backend (backend.hpp). Every front end commits through it:
// caldera run and scenario runs (the embedded cluster), the openb replay and the
// Kubernetes backend.
#pragma once

#include <cstddef>

#include "host/cache/cache.hpp"
#include "host/scheduler/backend.hpp"
#include "host/session/session.hpp"

namespace caldera {

struct CommitReport {
  size_t binds = 0, evictions = 0;
  // Decisions that no longer apply: the pod or node changed while the session ran (gone,
  // bound elsewhere, being deleted), as can happen when a session runs on a snapshot.
  size_t binds_skipped = 0, evictions_skipped = 0;
};

// In order: each bind (the pod is put on its node with its bind annotations, then
// backend.bind), each eviction (the pod is marked Releasing, then backend.evict), each
// PodGroup phase that changed (written to the cache with phase_since = now), then
// backend.update_status once.
CommitReport commit_decisions(const SessionResult& result, Cache& cache, Backend& backend,
                              double now);

// The binds alone, as commit_decisions makes them: for binds handed over while their
// session still runs (SessionWorker::stream_binds); the rest follows with the result.
CommitReport commit_binds(const SessionResult& result, Cache& cache, Backend& backend);

}  // namespace caldera
