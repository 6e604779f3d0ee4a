// Running a scenario: Volcano's scheduling loop (pkg/scheduler/scheduler.go runOnce: open a
// session, run each configured action in order, close the session) repeated `sessions`
// times on the scenario's cluster as the embedded cluster (sim_cluster.hpp) holds it, each
// session's decisions committed to it between sessions (binds run, evictions return to
// Pending, PodGroup phases are written back), and the check of the scenario's expectations.
#include "host/backend/sim/scenario_runner.hpp"

#include <cctype>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "host/backend/sim/sim_cluster.hpp"
#include "host/scenario/device_requests.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/plugins/policy.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/supervisor/decision_check.hpp"
#include "host/supervisor/session_worker.hpp"
#include "host/util/sha256.hpp"

namespace caldera {
namespace {

std::string config_hash(const Scenario& sc) {
  // An inline [config] has no text of its own: the scenario file's text stands for it.
  const std::filesystem::path& f = sc.config.file.empty() ? sc.file : sc.config.file;
  try {
    return sha256_file(f);
  } catch (const std::exception&) {
    return "";
  }
}

// Compares a list of task names as a set: "missing <what> X", "unexpected <what> Y".
void compare_sets(const std::string& what, const std::vector<std::string>& expected,
                  const std::vector<std::string>& actual, std::vector<std::string>& failures) {
  std::set<std::string> exp(expected.begin(), expected.end());
  std::set<std::string> act(actual.begin(), actual.end());
  for (const auto& e : exp)
    if (!act.count(e)) failures.push_back(fmt::format("missing {} {}", what, e));
  for (const auto& a : act)
    if (!exp.count(a)) failures.push_back(fmt::format("unexpected {} {}", what, a));
}

void check_expectations(const Scenario& sc, ScenarioOutcome& out) {
  const ScenarioExpect& e = sc.expect;
  std::vector<std::string>& f = out.failures;
  if (e.binds) {
    // The last bind of each task counts (a task evicted and placed again moves).
    std::map<std::string, std::string> got;
    for (const auto& [task, node] : out.binds) got[task] = node;
    for (const auto& [task, node] : *e.binds) {
      auto it = got.find(task);
      if (it == got.end())
        f.push_back(fmt::format("missing bind {} -> {}", task, node));
      else if (it->second != node)
        f.push_back(fmt::format("bind {}: expected {}, got {}", task, node, it->second));
    }
    for (const auto& [task, node] : got)
      if (!e.binds->count(task)) f.push_back(fmt::format("unexpected bind {} -> {}", task, node));
  }
  if (e.bind_count && *e.bind_count != out.binds.size())
    f.push_back(fmt::format("bind_count: expected {}, got {}", *e.bind_count, out.binds.size()));
  if (e.evictions) compare_sets("eviction", *e.evictions, out.evictions, f);
  if (e.evict_count && *e.evict_count != out.evictions.size())
    f.push_back(
        fmt::format("evict_count: expected {}, got {}", *e.evict_count, out.evictions.size()));
  if (e.pipelined) compare_sets("pipelined", *e.pipelined, out.pipelined, f);
  if (e.pending) {
    auto lower = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    for (const auto& [task, text] : *e.pending) {
      auto it = out.pending.find(task);
      if (it == out.pending.end())
        f.push_back(fmt::format("pending {}: expected pending with \"{}\", but it is not pending",
                                task, text));
      else if (lower(it->second).find(lower(text)) == std::string::npos)
        f.push_back(fmt::format("pending {}: expected a reason containing \"{}\", got \"{}\"",
                                task, text, it->second));
    }
  }
  if (e.podgroup_phases) {
    for (const auto& [pg, phase] : *e.podgroup_phases) {
      auto it = out.podgroup_phases.find(pg);
      std::string got = it == out.podgroup_phases.end() ? "nothing" : it->second;
      if (got != phase)
        f.push_back(fmt::format("podgroup_phases {}: expected {}, got {}", pg, phase, got));
    }
  }
}

}  // namespace

ScenarioOutcome run_scenario(const Scenario& sc) {
  ScenarioOutcome out;
  // Malformed GPU requests are input errors, named by file, line and pod, before any
  // session (host/scenario/device_requests.hpp).
  check_device_requests(sc.cache);
  // The policy is built once, as the scheduler builds it once per config.
  PluginCatalog catalog = PluginCatalog::scan(sc.config.plugin_dirs);
  std::shared_ptr<const Policy> policy = build_policy(sc.config, catalog, config_hash(sc));

  SimCluster cluster(sc.cache);
  Runtime runtime;
  // A file of several sessions runs them on a snapshot kept current with the commits, as
  // `caldera run` does (host/session/session_image.hpp); one session builds its own.
  SessionImage kept;
  SessionImage* image = sc.sessions > 1 ? &kept : nullptr;
  for (int i = 0; i < sc.sessions; ++i) {
    double now = i * sc.config.period_seconds;
    // The steps every front end shares: run a session (in a worker process, as `caldera
    // run` does, unless the config says isolation = "in-process"), check and commit its
    // decisions, carry the plugins' states to the next session. A fault ends the scenario
    // with the plugin, point and node named.
    SessionResult r;
    if (sc.config.isolation == "in-process") {
      r = run_session(cluster.cache(), policy, now, runtime);
    } else {
      WorkerOutcome w = run_session_in_worker(cluster.cache(), policy, now, runtime,
                                              WorkerLimits::of(sc.config), image);
      refuse_unfit(w, cluster.cache());
      if (!w.ok)
        throw std::runtime_error(fmt::format("session {}: {}", i + 1, w.fault.text()));
      absorb(runtime, w.result);  // the plugin states and the warnings said
      r = std::move(w.result.result);
    }
    cluster.commit(r, now);
    if (sc.config.isolation == "in-process") runtime.carry(std::move(r.plugin_states));

    out.binds.insert(out.binds.end(), r.binds.begin(), r.binds.end());
    out.evictions.insert(out.evictions.end(), r.evictions.begin(), r.evictions.end());
    if (i + 1 == sc.sessions) {
      out.pipelined.clear();
      for (const auto& [task, node] : r.pipelined) {
        (void)node;
        out.pipelined.push_back(task);
      }
      out.pending = r.pending;
      out.job_pending = r.job_pending;
      // Every PodGroup's phase at the end, plus any job of the session without a record.
      for (const auto& [key, pg] : cluster.cache().podgroups())
        out.podgroup_phases[key] = to_string(pg->phase);
      for (const auto& [key, phase] : r.podgroup_phases)
        out.podgroup_phases.emplace(key, to_string(phase));
    }
  }
  check_expectations(sc, out);
  return out;
}

std::string outcome_json(const Scenario& sc, const ScenarioOutcome& out) {
  // ordered_json keeps the keys in the order written here: deterministic output.
  nlohmann::ordered_json j;
  j["file"] = sc.file.string();
  j["name"] = sc.name;
  nlohmann::ordered_json binds = nlohmann::ordered_json::object();
  for (const auto& [task, node] : out.binds) binds[task] = node;  // last bind of a task wins
  j["binds"] = std::move(binds);
  j["evictions"] = out.evictions;
  j["pipelined"] = out.pipelined;
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (const auto& [pg, phase] : out.podgroup_phases) phases[pg] = phase;
  j["podgroup_phases"] = std::move(phases);
  nlohmann::ordered_json pending = nlohmann::ordered_json::object();
  for (const auto& [task, why] : out.pending) pending[task] = why;
  j["pending"] = std::move(pending);
  j["failures"] = out.failures;
  // Replace invalid UTF-8 instead of throwing: names come from user files.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace caldera
