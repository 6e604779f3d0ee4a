// `caldera run --backend kubernetes`: Caldera as the cluster's batch scheduler, in place of
// volcano-scheduler. The loop (host/scheduler) ticks once per period; a tick takes a
// snapshot of the cache and runs the session on libuv's thread pool, so watch events keep
// flowing into the cache while a long session runs; its decisions are written back when it
// ends -- unless leadership was lost meanwhile, in which case they are dropped.
//
// Sessions run only on a synced cache (every informer listed and connected) and only on
// the leader. The config and the plugins are reloaded as in every run (host/reload/): on
// SIGHUP and when the file or a plugin folder changes (a ConfigMap mount swaps the file in
// place); a config that does not build or fails its trial is refused and the running one
// kept. A session holds the policy it started with.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <uv.h>

#include <map>
#include <unordered_set>

#include "host/backend/kubernetes/http_client.hpp"
#include "host/backend/kubernetes/kube_cluster.hpp"
#include "host/backend/kubernetes/kubeconfig.hpp"
#include "host/backend/kubernetes/leader.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/dump_signals.hpp"
#include "host/cli/endpoints.hpp"
#include "host/plugins/policy.hpp"
#include "host/reload/reloader.hpp"
#include "host/scheduler/job_log.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/supervisor/decision_check.hpp"
#include "host/reload/status.hpp"
#include "host/supervisor/session_worker.hpp"
#include "host/supervisor/supervisor.hpp"
#include "host/scheduler/scheduler.hpp"
#include "host/util/clock.hpp"
#include "host/util/input_error.hpp"

namespace caldera::cli {

namespace fs = std::filesystem;

namespace {

// One session in its worker: the policy it ran, what it decided.
struct SessionRun {
  std::shared_ptr<const Policy> policy;
  double now = 0;
  uint64_t epoch = 0;  // leadership epoch it was started in
  SessionResult result;
  SessionTimings timings;
};

}  // namespace

int run_kubernetes(const Common& c, const RunOptions& o) {
  fs::path config_path = o.config.empty() ? default_config_path() : o.config;
  k8s::ClusterAccess access;
  k8s::KubeOptions ko;
  std::unique_ptr<Endpoints> endpoints;
  try {
    access = k8s::resolve_access(o.kubeconfig, o.context);
    ko.node_selector = k8s::parse_node_selector(o.node_selector);
    endpoints = std::make_unique<Endpoints>(o);
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  if (o.leader_elect &&
      !(o.lease_duration > o.renew_deadline && o.renew_deadline > o.retry_period &&
        o.retry_period > 0)) {
    spdlog::error(
        "leader election needs lease duration > renew deadline > retry period > 0 (given {}s, "
        "{}s, {}s)",
        o.lease_duration, o.renew_deadline, o.retry_period);
    return 1;
  }

  ko.scheduler_names = o.scheduler_names.empty() ? std::vector<std::string>{"volcano"}
                                                 : o.scheduler_names;
  ko.evict_mode = o.evict_mode == "delete" ? k8s::EvictMode::Delete : k8s::EvictMode::Eviction;
  ko.identity = o.identity;
  ko.page_size = o.list_page_size;

  std::string names;
  for (const auto& n : ko.scheduler_names) names += (names.empty() ? "" : ", ") + n;
  spdlog::info("caldera: Kubernetes backend, {} ({}); scheduling pods of scheduler {}; config {}",
               access.server, access.origin, names, config_path.string());

  SchedulerLoop loop;
  Runtime runtime;  // what the sessions share (worker pool, memo tables)
  if (endpoints) runtime.set_explain_top(endpoints->explain_top());
  k8s::HttpClient http(loop.loop(), access);
  http.set_rate_limit(o.kube_api_qps, o.kube_api_burst);
  k8s::KubeCluster cluster(loop.loop(), http, ko);
  std::unique_ptr<Reloader> reloader;
  Supervisor supervisor;
  // The status file, when asked for (--status-file): as `caldera run` writes it, after
  // every reload attempt and every session.
  SessionCounters counters;
  bool status_failed = false;
  auto write_status = [&] {
    if (o.status_file.empty() || !reloader) return;
    std::string err;
    if (write_status_file(o.status_file,
                          status_json(*reloader, config_path, counters, &supervisor), &err)) {
      status_failed = false;
    } else if (!status_failed) {  // once per failure streak, not once per session
      spdlog::warn("cannot write the status file {}", err);
      status_failed = true;
    }
  };
  try {
    Reloader::Options ro;
    ro.config_file = config_path;
    ro.default_plugin_dirs = default_plugin_dirs();
    ro.override_plugin_dirs = c.plugin_dirs;
    ro.override_config = [flags = o.volcano](SchedulerConfig& cfg) { flags.apply(cfg); };
    ro.cache = [&]() -> const Cache& { return cluster.cache(); };
    ro.now = [] { return unix_seconds(); };
    ro.after_attempt = write_status;
    reloader = std::make_unique<Reloader>(loop.loop(), std::move(ro));
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  std::unique_ptr<k8s::LeaderElector> leader;
  bool leading = !o.leader_elect;
  uint64_t epoch = 0;  // bumped whenever leadership changes
  if (o.leader_elect) {
    k8s::LeaderOptions lo;
    lo.ns = o.lease_namespace;
    lo.name = o.lease_name;
    lo.identity = o.identity;
    lo.lease_duration = o.lease_duration;
    lo.renew_deadline = o.renew_deadline;
    lo.retry_period = o.retry_period;
    leader = std::make_unique<k8s::LeaderElector>(loop.loop(), http, lo, [&](bool now_leading) {
      leading = now_leading;
      ++epoch;
      if (!now_leading) cluster.leadership_lost();
    });
  }

  bool stopping = false;
  uint64_t sessions = 0;
  JobLog job_log;  // one line per change of a job, not per session
  double waiting_logged = 0;
  // Sessions run in worker processes (host/supervisor/, docs/ISOLATION.md): the loop goes
  // on with watches, writes and the Lease while one runs.
  SessionWorker worker(loop.loop());
  // Each session opens on a snapshot kept current with the watches' changes
  // (host/session/session_image.hpp): it costs what changed since the last one.
  SessionImage image;
  worker.use_image(&image);
  // Binds as they are decided (issue 17, item 4): each statement's binds reach the API
  // server while the session goes on, as Volcano binds during its session; evictions and the
  // status writes follow with the result. They are checked as the result is
  // (decision_check.hpp) against the cache, which already holds the binds sent before them,
  // and dropped when the session's would be (the cache out of sync, leadership changed).
  std::unordered_set<std::string> streamed;  // this session's binds already sent
  uint64_t streamed_epoch = 0;
  worker.stream_binds([&](SessionResult part) {
    if (stopping || !cluster.synced() || !leading || streamed_epoch != epoch) return;
    if (auto why = check_decisions(part, cluster.cache())) {
      spdlog::error("session {}: binds handed over during the session refused: {}", sessions, *why);
      return;
    }
    for (const auto& [key, node] : part.binds) streamed.insert(key);
    cluster.commit_binds(part);
  });
  double session_started = 0;  // monotonic seconds; 0: none running
  std::string last_plan_why;

  cluster.start();
  if (leader) {
    // The Lease follows progress: no renewal while a session has run past the renew
    // deadline, none while nothing may be scheduled (a faulty plugin with no good set to
    // fall back to), so that a standby takes over.
    leader->set_fit([&] {
      if (!supervisor.healthy()) return false;
      return session_started == 0 || monotonic_seconds() - session_started < o.renew_deadline;
    });
    leader->start();
  }
  reloader->start();
  std::unique_ptr<DumpSignals> dumps;
  if (o.cache_dumper)
    dumps = std::make_unique<DumpSignals>(
        loop.loop(), [&]() -> const Cache& { return cluster.cache(); }, o.cache_dump_dir,
        config_path);

  auto finish_session = [&](SessionRun run, WorkerOutcome out) {
    session_started = 0;
    refuse_unfit(out, cluster.cache());
    if (stopping) return;  // shutting down: nothing more is written
    endpoints->health.progressed(monotonic_seconds(), Endpoints::stall_after(
                                             run.policy->config.session_timeout(),
                                             run.policy->config.period_seconds));
    if (!out.ok) {
      endpoints->session_dropped(out.result.timings);
      spdlog::error("session {}: dropped: {}", sessions, out.fault.text());
      supervisor.faulted(out.fault, unix_seconds());
      // The pod it was placing hears of it (kubectl describe pod); the log has every fault.
      if (const auto slash = out.fault.task.find('/'); slash != std::string::npos)
        cluster.writer().pod_event(out.fault.task.substr(0, slash),
                                   out.fault.task.substr(slash + 1), "PluginFault",
                                   "scheduling session dropped: " + out.fault.text());
    } else if (!cluster.synced()) {
      // A watch went down while the session ran: the cache may miss a deleted node, and a
      // bind to it would be accepted by the API server. The next synced session decides again.
      spdlog::warn("session {}: the cache went out of sync while it ran ({}); its {} decision(s) "
                   "are dropped",
                   sessions, cluster.sync_state(),
                   out.result.result.binds.size() + out.result.result.evictions.size());
    } else if (!leading || run.epoch != epoch) {
      spdlog::warn("session {}: leadership changed while it ran; its {} decision(s) are dropped",
                   sessions, out.result.result.binds.size() + out.result.result.evictions.size());
    } else {
      run.result = std::move(out.result.result);
      run.timings = out.result.timings;
      job_log.session(sessions, "", run.result, cluster.cache(), run.now,
                      run.timings.total_seconds());
      // The binds sent during the session are not sent again; the result keeps them all
      // for the counts and metrics below.
      std::vector<std::pair<std::string, std::string>> binds;
      for (const auto& b : run.result.binds)
        if (!streamed.count(b.first)) binds.push_back(b);
      std::swap(binds, run.result.binds);
      cluster.commit(run.result, run.now);
      std::swap(binds, run.result.binds);
      endpoints->session(run.timings, run.result, cluster.cache(), unix_seconds());
      counters.last_binds = run.result.binds.size();
      counters.binds += run.result.binds.size();
      counters.evictions += run.result.evictions.size();
      out.result.result.plugin_states = std::move(run.result.plugin_states);
      absorb(runtime, out.result);  // only with results that are applied
      supervisor.completed(run.policy, unix_seconds());
    }
    counters.sessions = sessions;
    counters.last_at = counters.last_clock = unix_seconds();
    reloader->session_done(run.policy, counters.last_at);
    write_status();
  };

  int code = loop.run(
      true,
      [&]() -> double {
        std::shared_ptr<const Policy> configured = reloader->active();
        const SchedulerConfig& cfg = configured->config;
        const double period = cfg.period_seconds;
        // The loop is alive; a session is not progress while it runs (it is when it ends).
        if (!worker.running())
          endpoints->health.progressed(monotonic_seconds(),
                                       Endpoints::stall_after(cfg.session_timeout(), period));
        // Ready: it schedules, or (a standby) could take over at once.
        endpoints->health.set_ready(cluster.synced() && supervisor.healthy(),
                                    !cluster.synced()
                                        ? "the cache is not synced: " + cluster.sync_state()
                                        : std::string("no plugin set may run"));
        if (worker.running()) {
          // A session stuck past the renew deadline loses the Lease (set_fit): once no
          // longer leading, its decisions could not be committed anyway.
          if (!leading) worker.kill();
          return 0.05;  // the next session starts when this one ends
        }
        if (!cluster.synced()) {
          double t = unix_seconds();
          if (t - waiting_logged > 10) {
            spdlog::info("caldera: waiting for the cache to sync ({})", cluster.sync_state());
            waiting_logged = t;
          }
          return 0.2;
        }
        supervisor.set_on_fault(cfg.on_plugin_fault == "disable" ? Supervisor::OnFault::Disable
                                                                 : Supervisor::OnFault::Fallback);
        // A standby has nothing to plan, unless it gave its Lease up because nothing could
        // be scheduled: it plans each period too, so that a repaired plugin file (or a
        // config without it) makes it fit to lead again, and says why until then.
        if (!leading && supervisor.healthy()) return std::min(period, 0.5);
        Supervisor::Plan plan = supervisor.plan(configured);
        for (const std::string& l : plan.lifted) spdlog::info("quarantine lifted: {}", l);
        if (!plan.why.empty()) {
          if (plan.mode == "none")
            spdlog::error("no session: {}", plan.why);
          else
            spdlog::warn("{}: {}", plan.mode, plan.why);
        }
        if (!leading) {
          if (supervisor.healthy())
            spdlog::info("caldera: a plugin set may run again ({}); taking part in the election "
                         "again",
                         plan.mode);
          write_status();
          return period;
        }
        if (!plan.policy) {
          write_status();  // the health it reports changed, or stays bad
          return period;
        }
        SessionRun run;
        run.policy = plan.policy;
        run.now = unix_seconds();
        run.epoch = epoch;
        ++sessions;
        session_started = monotonic_seconds();
        if (cfg.isolation == "in-process") {
          WorkerOutcome out;
          out.ok = true;
          out.result.result =
              run_session(cluster.cache(), run.policy, run.now, runtime, &out.result.timings);
          finish_session(std::move(run), std::move(out));
          return period;
        }
        streamed.clear();
        streamed_epoch = epoch;
        worker.start(cluster.cache(), run.policy, run.now, runtime, WorkerLimits::of(cfg),
                     [&, run](WorkerOutcome out) mutable {
                       finish_session(std::move(run), std::move(out));
                     });
        return period;
      },
      [&]() { reloader->trigger("SIGHUP", unix_seconds()); },
      [&]() {
        stopping = true;
        worker.close();
        reloader->close();
        if (dumps) dumps->close();
        auto close_rest = [&]() {
          cluster.stop([&]() { http.close([]() {}); });
        };
        if (leader)
          leader->stop(close_rest);
        else
          close_rest();
      });

  const auto& ws = cluster.writer().stats();
  spdlog::info(
      "summary: {} sessions; binds {} ok, {} failed ({} conflicts); evictions {} ok, {} refused, "
      "{} failed; {} status writes ({} conflicts), {} pod conditions, {} events; {} retries",
      sessions, ws.binds_ok, ws.binds_failed, ws.binds_conflict, ws.evictions_ok,
      ws.evictions_refused, ws.evictions_failed, ws.status_writes, ws.status_conflicts,
      ws.conditions, ws.events, ws.retries);
  return code;
}

}  // namespace caldera::cli
