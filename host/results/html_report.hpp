// report.html: one self-contained page (inline CSS and SVG, no script, nothing fetched)
// with the run's counts, its plots (queue shares, cluster and node utilisation, job wait
// and run times, per-session decisions) and the table of jobs. Plot ids, for tests and
// links: plot-queue-share, plot-cluster-utilisation, plot-job-times, plot-sessions,
// plot-node-utilisation-RESOURCE (cpu, memory, gpu); tables table-counts, table-jobs.
#pragma once

#include <string>

#include "host/results/run_results.hpp"

namespace caldera {

std::string html_report(const RunResults& r);

}  // namespace caldera
