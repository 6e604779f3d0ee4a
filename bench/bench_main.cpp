// caldera-bench: times whole scheduling sessions on generated clusters (issue 7).
// Measures only; decides nothing. See docs/PERFORMANCE.md for the figures and targets.
//
//   caldera-bench                     every case but the 130k ones, a table on stdout
//   caldera-bench --json              one JSON object on stdout
//   caldera-bench --case nodes-1k --case steady-10k --scale 0.1 --seed 7 --timeout 480
//
// Each case runs in a child process (see cases.hpp); --in-process runs them in this one,
// for profilers (valgrind --tool=callgrind), at the price of peak memory covering the
// whole run.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/cases.hpp"
#include "bench/report.hpp"
#include "host/cli/commands.hpp"
#include "host/config/config.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/plugins/policy.hpp"
#include "host/util/log.hpp"
#include "host/util/sha256.hpp"

#ifndef CALDERA_BENCH_SOURCE_DIR
#define CALDERA_BENCH_SOURCE_DIR "."
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw caldera::InputError(fmt::format("{}: cannot read the file", p.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A config file made into a policy, with the plugin folders of --plugin-dir when given.
// The catalog is kept by the caller: the policy's plugins live in its libraries.
std::shared_ptr<const caldera::Policy> load_policy(const fs::path& file,
                                                   const std::vector<fs::path>& plugin_dirs,
                                                   std::vector<caldera::PluginCatalog>& catalogs) {
  caldera::SchedulerConfig cfg = caldera::load_config(file, caldera::cli::default_plugin_dirs());
  if (!plugin_dirs.empty()) cfg.plugin_dirs = plugin_dirs;
  catalogs.push_back(caldera::PluginCatalog::scan(cfg.plugin_dirs));
  return caldera::build_policy(cfg, catalogs.back(), caldera::sha256_hex(read_text(file)));
}

// CLI11's own range checks print the whole double range; this says what is wanted.
CLI::Validator number_check(const std::string& option, bool allow_zero) {
  return CLI::Validator(
      [option, allow_zero](std::string& v) -> std::string {
        try {
          size_t used = 0;
          const double d = std::stod(v, &used);
          if (used == v.size() && (d > 0 || (allow_zero && d == 0))) return {};
        } catch (const std::exception&) {
        }
        return fmt::format("{} must be a number {} 0, got '{}'", option,
                           allow_zero ? "of at least" : "above", v);
      },
      allow_zero ? "NUMBER >= 0" : "NUMBER > 0");
}

fs::path source_file(const char* relative) {
  fs::path p = fs::path(CALDERA_BENCH_SOURCE_DIR) / relative;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace caldera::bench;
  CLI::App app{"caldera-bench: times whole scheduling sessions on generated clusters"};

  std::string config = source_file("conf/caldera.toml").string();
  std::string preempt_config = source_file("bench/preempt.toml").string();
  std::vector<std::string> plugin_dir_args;
  std::vector<std::string> case_names;
  bool as_json = false, in_process = false;
  uint64_t seed = 1;
  double scale = 1.0, timeout = 0, cpu_limit = 0;
  int verbosity = 0;
  app.add_option("-c,--config", config, "scheduler config for the allocation cases")
      ->capture_default_str();
  app.add_option("--preempt-config", preempt_config, "scheduler config for the preempt case")
      ->capture_default_str();
  app.add_option("--plugin-dir", plugin_dir_args,
                 "plugin folder (repeatable); default: the configs' own, else the build tree's");
  app.add_option("--case", case_names,
                 "run only this case (repeatable); nodes-130k and steady-130k run only when named");
  app.add_option("--seed", seed, "seed of the generated clusters")->capture_default_str();
  app.add_option("--scale", scale, "multiply every case's size by this (e.g. 0.1 for a quick run)")
      ->capture_default_str()
      ->check(number_check("--scale", /*allow_zero=*/false));
  app.add_option("--timeout", timeout, "stop a case after this many seconds (0: never)")
      ->capture_default_str()
      ->check(number_check("--timeout", /*allow_zero=*/true));
  app.add_option("--cpu-limit", cpu_limit,
                 "stop a case after this many seconds of CPU time (0: never); unlike --timeout "
                 "it does not depend on how busy the machine is")
      ->capture_default_str()
      ->check(number_check("--cpu-limit", /*allow_zero=*/true));
  app.add_flag("--json", as_json, "print one JSON object instead of the table");
  std::string scenario_dir;
  app.add_option("--write-scenarios", scenario_dir,
                 "keep each case's cluster as DIR/<case>.toml, a scenario file (SCENARIOS.md) "
                 "that caldera scenario run and the oracle read")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--in-process", in_process,
               "run the cases in this process (for profilers; no limits, shared peak memory)");
  app.add_option("-v,--v", verbosity, "log verbosity (0: warnings only; 1..2 info, 3+ debug)");
  CLI11_PARSE(app, argc, argv);

  caldera::setup_logging(verbosity >= 3 ? verbosity : 0);
  if (verbosity == 0) spdlog::set_level(spdlog::level::warn);

  // Which cases.
  std::vector<CaseDef> all = all_cases(scale, seed);
  std::vector<CaseDef> chosen;
  if (case_names.empty()) {
    for (const CaseDef& c : all)
      if (!c.on_request) chosen.push_back(c);
  } else {
    for (const std::string& name : case_names) {
      auto it = std::find_if(all.begin(), all.end(), [&](const CaseDef& c) { return c.name == name; });
      if (it == all.end()) {
        std::string known;
        for (const CaseDef& c : all) known += (known.empty() ? "" : ", ") + c.name;
        fmt::print(stderr, "caldera-bench: unknown case '{}'; the cases are: {}\n", name, known);
        return 2;
      }
      chosen.push_back(*it);
    }
  }
  if (!scenario_dir.empty())
    for (CaseDef& c : chosen) {
      c.scenario_dir = fs::absolute(scenario_dir);
      c.parse = true;
    }
  const bool need_preempt = std::any_of(chosen.begin(), chosen.end(), [](const CaseDef& c) { return c.preempt; });
  const bool need_alloc = std::any_of(chosen.begin(), chosen.end(), [](const CaseDef& c) { return !c.preempt; });

  // The policies, built once (plugins loaded once) before any case forks.
  std::vector<fs::path> plugin_dirs;
  for (const auto& d : plugin_dir_args) plugin_dirs.push_back(fs::absolute(d));
  std::vector<caldera::PluginCatalog> catalogs;
  catalogs.reserve(2);
  Policies policies;
  try {
    if (need_alloc) policies.allocation = load_policy(config, plugin_dirs, catalogs);
    if (need_preempt) policies.preempt = load_policy(preempt_config, plugin_dirs, catalogs);
    policies.allocation_file = fs::absolute(config);
    policies.preempt_file = fs::absolute(preempt_config);
  } catch (const caldera::InputError& e) {
    fmt::print(stderr, "caldera-bench: {}\n", e.what());
    return 1;
  }

  json results = {{"seed", seed}, {"scale", scale}, {"cases", json::array()}};
  bool failed = false;
  for (const CaseDef& def : chosen) {
    spdlog::info("case {}: {}", def.name, def.summary);
    json r;
    if (in_process) {
      r = {{"name", def.name}};
      try {
        run_case(def, policies, r);
      } catch (const std::exception& e) {
        r["error"] = e.what();
      }
    } else {
      r = run_case_forked(def, policies, Limits{timeout, cpu_limit});
    }
    r["summary"] = def.summary;
    if (r.contains("error")) {
      failed = true;
      fmt::print(stderr, "caldera-bench: case {}: {}\n", def.name, r["error"].get<std::string>());
    }
    results["cases"].push_back(std::move(r));
  }

  if (as_json)
    print_json(results, stdout);
  else
    print_table(results, stdout);
  return failed ? 1 : 0;
}
