// `caldera scenario run [--json] [--explain] FILE...` (SCENARIOS.md section 2): runs each
// scenario file and prints one line per file, `PASS FILE` or `FAIL FILE: what differed`, or
// with --json one JSON object per line with every decision. --explain adds, under each
// file, why every task still pending stays pending and the job-level reasons (Volcano's
// FitErrors and PodGroup conditions, pkg/scheduler/api/unschedule_info.go).
// The exit code is non-zero when any file fails or cannot be read.
#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "host/backend/sim/scenario_runner.hpp"
#include "host/cli/commands.hpp"
#include "host/util/input_error.hpp"

namespace caldera::cli {

namespace {

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// Error texts may span lines (a config error lists choices); one line per file is the
// contract, so newlines become spaces.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

void print_explain(const ScenarioOutcome& out) {
  for (const auto& [task, why] : out.pending) fmt::print("  {}: {}\n", task, one_line(why));
  for (const auto& [job, why] : out.job_pending) fmt::print("  job {}: {}\n", job, one_line(why));
}

}  // namespace

int scenario_run(const Common& c, const std::vector<std::filesystem::path>& files, bool json,
                 bool explain) {
  const std::vector<std::filesystem::path> dirs =
      c.plugin_dirs.empty() ? default_plugin_dirs() : c.plugin_dirs;
  int failed = 0;
  for (const auto& file : files) {
    std::string error;
    try {
      Scenario sc = load_scenario(file, dirs);
      // --plugin-dir wins over the config's own plugin_dirs too, as for `caldera plugins`.
      if (!c.plugin_dirs.empty()) {
        sc.config.plugin_dirs.clear();
        for (const auto& d : c.plugin_dirs) sc.config.plugin_dirs.push_back(std::filesystem::absolute(d));
      }
      ScenarioOutcome out = run_scenario(sc);
      if (!out.failures.empty()) ++failed;
      if (json) {
        fmt::print("{}\n", outcome_json(sc, out));
      } else if (out.failures.empty()) {
        fmt::print("PASS {}\n", file.string());
      } else {
        fmt::print("FAIL {}: {}\n", file.string(), one_line(join(out.failures, "; ")));
      }
      // In --json the pending reasons are in the object; extra lines would break the
      // one-object-per-line output.
      if (explain && !json) print_explain(out);
      std::fflush(stdout);
      continue;
    } catch (const InputError& e) {
      error = e.what();
    } catch (const std::exception& e) {
      // Not the user's input (a plugin's fault, named by the session worker; an internal
      // error): still one line, and the other files still run.
      error = e.what();
    }
    ++failed;
    if (json) {
      nlohmann::ordered_json j;
      j["file"] = file.string();
      j["error"] = error;
      fmt::print("{}\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    } else {
      fmt::print("FAIL {}: {}\n", file.string(), one_line(error));
    }
    std::fflush(stdout);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace caldera::cli
