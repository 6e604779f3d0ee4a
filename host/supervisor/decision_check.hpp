// The supervisor checks what it commits. A session's result comes from a worker that ran
// plugin code; a plugin that scribbled over the worker's memory can spoil the decisions
// without crashing. Before anything reaches the cache or the backend, the result must be
// one the cluster can take:
//   - one decision per pod: no pod bound twice, or bound and evicted;
//   - no node goes over its allocatable in any resource the binds add to, pod count
//     included, counting the pods already on it (Releasing ones too: they hold their
//     resources until they are gone).
// A result that breaks one is refused whole, with the first thing wrong. A decision that
// no longer applies (the pod or node is gone, the pod was bound or ended meanwhile: the
// cluster moves while a session runs) is no fault: commit_decisions skips it, and so does
// this check.
#pragma once

#include <optional>
#include <string>

#include "host/cache/cache.hpp"
#include "host/session/session.hpp"
#include "host/supervisor/session_worker.hpp"

namespace caldera {

// nullopt when the result may be committed; else what is wrong with it.
std::optional<std::string> check_decisions(const SessionResult& result, const Cache& cache);

// A worker's outcome that handed back a result the cluster cannot take becomes a fault
// (kind BadResult, "result refused: ..."): what every front end does before it commits.
void refuse_unfit(WorkerOutcome& outcome, const Cache& cache);

}  // namespace caldera
