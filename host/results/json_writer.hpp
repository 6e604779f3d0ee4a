// results.json: every series of a run in one JSON object (docs/RESULTS.md has its keys).
// Series are columns aligned with "sessions.time"; amounts are in user units (cores,
// bytes, cards); a time that has not happened (a job not started) is null.
#pragma once

#include <string>

#include "host/results/run_results.hpp"

namespace caldera {

std::string results_json(const RunResults& r);

}  // namespace caldera
