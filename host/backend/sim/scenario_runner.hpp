// Running a scenario: N sessions on its cluster with its config, and the check of its
// expectations.
#pragma once

#include <string>
#include <vector>

#include "host/scenario/scenario_file.hpp"
#include "host/session/session.hpp"

namespace caldera {

struct ScenarioOutcome {
  // Every decision over all sessions.
  std::vector<std::pair<std::string, std::string>> binds;  // in decision order
  std::vector<std::string> evictions;
  std::vector<std::string> pipelined;                      // left pipelined at the end
  std::map<std::string, std::string> podgroup_phases;      // at the end
  std::map<std::string, std::string> pending;              // task uid -> why, at the end
  std::map<std::string, std::string> job_pending;          // job uid -> job-level reasons
  std::vector<std::string> failures;  // expectation mismatches, empty when it passes
};

// Runs the scenario on an embedded cluster (sim_cluster.hpp) in the scenario's state:
// between sessions bound pods run on their node, evicted pods leave their node and return
// to Pending, PodGroup phases are written back. The scenario itself is not changed.
ScenarioOutcome run_scenario(const Scenario& scenario);

// One JSON object (one line) with every decision, as SCENARIOS.md section 2 shows.
std::string outcome_json(const Scenario& scenario, const ScenarioOutcome& outcome);

}  // namespace caldera
