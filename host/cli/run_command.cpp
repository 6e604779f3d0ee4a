// `caldera run`: the scheduler loop on the embedded cluster. Each session is logged in a
// few readable lines (what was bound, evicted, left pending and why) and a summary closes
// the run. The config and the plugins are reloaded while it runs (host/reload/): on a
// change of the config file or of a plugin folder, and on SIGHUP; with --status-file the
// state of the policy and of the reloads is written after every session and attempt.
// The run's results (per-job times, queue shares, utilisation, counts) are collected after
// every session (host/results/); the summary is made of them, and with --results DIR they
// are written as JSON, CSV and an HTML report, at the end and every --results-every N
// sessions. In virtual time a progress line shows on stderr when it is a terminal.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "host/backend/sim/sim_cluster.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/dump_signals.hpp"
#include "host/cli/endpoints.hpp"
#include "host/plugins/policy.hpp"
#include "host/reload/reloader.hpp"
#include "host/reload/status.hpp"
#include "host/results/collector.hpp"
#include "host/results/results_files.hpp"
#include "host/scheduler/job_log.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/scheduler/scheduler.hpp"
#include "host/supervisor/decision_check.hpp"
#include "host/supervisor/session_worker.hpp"
#include "host/supervisor/supervisor.hpp"
#include "host/util/clock.hpp"
#include "host/util/input_error.hpp"
#include "host/util/progress.hpp"

namespace caldera::cli {

void VolcanoFlags::apply(SchedulerConfig& cfg) const {
  if (schedule_period) cfg.period_seconds = *schedule_period;
  if (percentage_nodes_to_find) cfg.node_search.percentage = *percentage_nodes_to_find;
  if (minimum_feasible_nodes) cfg.node_search.minimum_nodes = *minimum_feasible_nodes;
  if (minimum_percentage_nodes_to_find)
    cfg.node_search.minimum_percentage = *minimum_percentage_nodes_to_find;
  for (const std::string& p : ignored_provisioners)
    if (std::find(cfg.ignored_provisioners.begin(), cfg.ignored_provisioners.end(), p) ==
        cfg.ignored_provisioners.end())
      cfg.ignored_provisioners.push_back(p);
  // Volcano's --plugins-dir adds a folder of custom plugins to the built-in ones.
  for (const auto& d : plugins_dirs)
    if (std::find(cfg.plugin_dirs.begin(), cfg.plugin_dirs.end(), d) == cfg.plugin_dirs.end())
      cfg.plugin_dirs.push_back(d);
}

namespace fs = std::filesystem;

namespace {

}  // namespace

int run(const Common& c, const RunOptions& o) {
  fs::path config_path = o.config.empty() ? default_config_path() : o.config;
  // The demo's cluster and workload: beside the config when it has them there, else the
  // bundled ones (a Volcano config from elsewhere runs on the demo too).
  auto demo_file = [&](const char* name) {
    std::error_code ec;
    fs::path beside = config_path.parent_path() / name;
    return fs::exists(beside, ec) ? beside : default_config_path().parent_path() / name;
  };
  fs::path cluster = o.cluster.empty() ? demo_file("demo-cluster.toml") : o.cluster;
  fs::path workload = o.workload.empty() ? demo_file("demo-workload.toml") : o.workload;

  // The loop before the reloader: the reloader's handles live on it and are closed first.
  SchedulerLoop loop;
  double now = 0;
  SessionCounters counters;
  std::unique_ptr<SimCluster> sim;
  std::unique_ptr<Reloader> reloader;
  std::unique_ptr<Endpoints> endpoints;
  std::unique_ptr<Supervisor> supervisor = std::make_unique<Supervisor>();
  // The status file, when asked for: after every reload attempt and every session.
  bool status_failed = false;
  auto write_status = [&] {
    if (o.status_file.empty() || !reloader) return;
    std::string err;
    if (write_status_file(o.status_file,
                          status_json(*reloader, config_path, counters, supervisor.get()), &err)) {
      status_failed = false;
    } else if (!status_failed) {  // once per failure streak, not once per session
      spdlog::warn("cannot write the status file {}", err);
      status_failed = true;
    }
  };
  try {
    // The policy: built now, then rebuilt by the reloader whenever the config or a plugin
    // changes (host/reload/reloader.hpp), validated and tried before it replaces this one.
    Reloader::Options ro;
    ro.config_file = config_path;
    ro.default_plugin_dirs = default_plugin_dirs();
    ro.override_plugin_dirs = c.plugin_dirs;
    ro.override_config = [flags = o.volcano](SchedulerConfig& cfg) { flags.apply(cfg); };
    ro.cache = [&]() -> const Cache& { return sim->cache(); };
    ro.now = [&] { return now; };
    ro.after_attempt = write_status;
    reloader = std::make_unique<Reloader>(loop.loop(), std::move(ro));
    sim = std::make_unique<SimCluster>(cluster, workload);
    endpoints = std::make_unique<Endpoints>(o);
    if (o.results_every > 0 && o.results.empty())
      throw InputError("--results-every needs --results DIR");
    if (!o.results.empty()) prepare_results_dir(o.results);
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  std::shared_ptr<const Policy> policy = reloader->active();

  double period = policy->config.period_seconds;
  spdlog::info("caldera: config {}, cluster {}, workload {}, period {}s, {}", config_path.string(),
               cluster.string(), workload.string(), period,
               o.realtime ? "real time" : "virtual time");
  std::string actions;
  for (const auto& a : policy->config.actions) actions += (actions.empty() ? "" : ", ") + a;
  spdlog::info("caldera: actions {}; {} plugin tiers", actions, policy->tiers.size());

  ResultsCollector collector(sim->cache());
  collector.results().config = config_path.string();
  collector.results().cluster = cluster.string();
  collector.results().workload = workload.string();
  collector.results().period = period;
  // The run's results as of now: the series so far and the jobs as the cluster recorded them.
  auto snapshot = [&]() -> const RunResults& {
    collector.set_jobs(sim->job_records(), sim->total_jobs());
    const auto& sessions = collector.results().sessions;
    collector.results().end_time = sessions.empty() ? 0 : sessions.back().time;
    return collector.results();
  };
  bool results_failed = false;
  auto write_results_now = [&](bool last) {
    try {
      write_results(o.results, snapshot());
      results_failed = false;
    } catch (const InputError& e) {
      if (last || !results_failed) spdlog::warn("{}", e.what());  // once per failure streak
      results_failed = true;
    }
  };
  Progress progress("jobs ended", !o.realtime && stderr_is_terminal());

  Runtime runtime;  // what the sessions of this run share (worker pool, memo tables)
  if (endpoints) runtime.set_explain_top(endpoints->explain_top());
  // Sessions run in worker processes (host/supervisor/): the supervisor picks the plugin
  // set, a worker runs the session, the result is checked before it is committed.
  SessionWorker worker(loop.loop());
  // Each session opens on a snapshot kept current with the cluster's changes
  // (host/session/session_image.hpp): it costs what changed since the last one.
  SessionImage image;
  worker.use_image(&image);
  size_t index = 0;
  JobLog job_log;  // one line per change of a job, not per session
  size_t idle_sessions = 0;
  std::string last_plan_why;
  policy.reset();  // from here on, each session takes the policy that is active then
  reloader->start();
  std::unique_ptr<DumpSignals> dumps;
  if (o.cache_dumper)
    dumps = std::make_unique<DumpSignals>(
        loop.loop(), [&]() -> const Cache& { return sim->cache(); }, o.cache_dump_dir,
        config_path);
  write_status();

  // After a period (a session committed, a session dropped, or no session at all): when
  // the next one comes, or -1 to stop.
  auto next_step = [&](bool changed, const std::string& stuck_why) -> double {
    idle_sessions = changed ? 0 : idle_sessions + 1;
    if (sim->finished()) return -1;
    if (o.until > 0 && now + period > o.until) return -1;
    const double next = sim->next_event();
    if (!changed && next < 0 && idle_sessions >= 3 && o.until <= 0) {
      if (stuck_why.empty())
        spdlog::warn("stopping: {} job(s) can never be scheduled on this cluster",
                     sim->live_jobs());
      else
        spdlog::error("stopping: {} job(s) wait and nothing can be scheduled: {}",
                      sim->live_jobs(), stuck_why);
      return -1;
    }
    double step = period;
    if (!o.realtime && !changed && next > now + period && stuck_why.empty()) {
      // Nothing happens until the next arrival or completion: skip to the period in which
      // it falls (virtual time only).
      step = std::ceil((next - now) / period) * period;
    }
    now += step;
    return step;
  };
  auto tick = [&](std::function<void(double)> next) {
    // The configured policy at this session boundary; a reload publishes between ticks.
    std::shared_ptr<const Policy> configured = reloader->active();
    const SchedulerConfig& cfg = configured->config;
    period = cfg.period_seconds;
    supervisor->set_on_fault(cfg.on_plugin_fault == "disable" ? Supervisor::OnFault::Disable
                                                             : Supervisor::OnFault::Fallback);
    sim->advance(now);
    endpoints->health.progressed(monotonic_seconds(), Endpoints::stall_after(cfg.session_timeout(), period));
    endpoints->health.set_ready(supervisor->healthy(), "no plugin set may run");
    Supervisor::Plan plan = supervisor->plan(configured);
    for (const std::string& l : plan.lifted) spdlog::info("quarantine lifted: {}", l);
    if (!plan.why.empty()) {
      if (plan.mode == "none")
        spdlog::error("t={:.0f}s: no session: {}", now, plan.why);
      else
        spdlog::warn("t={:.0f}s: {}: {}", now, plan.mode, plan.why);
    }
    if (!plan.policy) {
      write_status();
      next(next_step(false, plan.why));
      return;
    }
    auto after = [&, used = plan.policy, next](WorkerOutcome out) {
      refuse_unfit(out, sim->cache());
      if (!out.ok) {
        endpoints->session_dropped(out.result.timings);
        spdlog::error("t={:.0f}s session {}: dropped: {}", now, index + 1, out.fault.text());
        supervisor->faulted(out.fault, unix_seconds());
        reloader->session_done(used, unix_seconds());
        write_status();
        next(next_step(false, ""));
        return;
      }
      SessionResult& r = out.result.result;
      job_log.session(++index, fmt::format("t={:>5.0f}s", now), r, sim->cache(), now,
                      out.result.timings.total_seconds());
      sim->commit(r, now);
      endpoints->session(out.result.timings, r, sim->cache(), now);
      absorb(runtime, out.result);
      supervisor->completed(used, unix_seconds());
      collector.record_session(now, r, sim->cache());
      if (o.results_every > 0 && index % o.results_every == 0) write_results_now(false);
      if (progress.enabled())
        progress.update(sim->ended_jobs(), sim->total_jobs(), fmt::format("t={:.0f}s", now));
      counters.sessions = index;
      counters.last_at = unix_seconds();
      counters.last_clock = now;
      counters.last_binds = r.binds.size();
      counters.binds += r.binds.size();
      counters.evictions += r.evictions.size();
      reloader->session_done(used, counters.last_at);
      write_status();
      next(next_step(!r.binds.empty() || !r.evictions.empty() || !r.pipelined.empty(), ""));
    };
    if (cfg.isolation == "in-process") {
      WorkerOutcome out;
      out.result.result = run_session(sim->cache(), plan.policy, now, runtime, &out.result.timings);
      out.ok = true;
      after(std::move(out));
      return;
    }
    worker.start(sim->cache(), plan.policy, now, runtime, WorkerLimits::of(cfg), after);
  };
  int code = loop.run_async(
      o.realtime, tick, [&] { reloader->trigger("SIGHUP"); },
      [&] {
        worker.close();
        reloader->close();
        if (dumps) dumps->close();
      });

  progress.finish();

  // Summary: the same numbers the results files hold.
  const Summary m = summarize(snapshot());
  spdlog::info("summary: {} sessions up to t={:.0f}s; {} jobs arrived, {} started, {} finished{}",
               m.sessions, m.end_time, m.jobs_arrived, m.jobs_started, m.jobs_finished,
               m.jobs_failed ? fmt::format(", {} failed", m.jobs_failed) : "");
  spdlog::info("summary: {} binds, {} evictions, {} unschedulable task-sessions", m.binds,
               m.evictions, m.unschedulable);
  if (m.jobs_started)
    spdlog::info("summary: mean wait {:.1f}s, mean completion {:.1f}s", m.mean_wait,
                 m.mean_completion);
  if (!o.results.empty()) {
    write_results_now(true);
    if (results_failed) return code ? code : 1;
    spdlog::info("results: {}", (o.results / "report.html").string());
  }
  return code;
}

}  // namespace caldera::cli
