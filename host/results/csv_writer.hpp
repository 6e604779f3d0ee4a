// The CSV files of a run's results, one table each (docs/RESULTS.md lists their columns):
//   summary.csv              metric,value: the counts and the mean and largest times
//   jobs.csv                 one row per job: arrival, started, finished, wait, completion
//   sessions.csv             one row per session: binds, evictions, unschedulable, pods
//   queue_shares.csv         one row per session, queue and resource: allocated and share
//   cluster_utilisation.csv  one row per session and resource: used / allocatable
//   node_utilisation.csv     one row per session, node and resource the node has
// Amounts in user units (cores, bytes, cards); a time that has not happened is empty.
#pragma once

#include <string>
#include <vector>

#include "host/results/run_results.hpp"

namespace caldera {

struct CsvFile {
  std::string name;  // "jobs.csv"
  std::string text;
};

std::vector<CsvFile> results_csv(const RunResults& r);

}  // namespace caldera
