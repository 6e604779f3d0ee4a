#include "bench/cases.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "bench/fused_loop.hpp"
#include "bench/mem_stats.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/supervisor/session_worker.hpp"
#include "host/session/session_image.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/scenario/scenario_writer.hpp"
#include "host/util/fd_io.hpp"

namespace caldera::bench {

using nlohmann::json;

namespace {

size_t scaled(double base, double scale) {
  return std::max<size_t>(1, static_cast<size_t>(std::llround(base * scale)));
}

double per(int64_t bytes, size_t count) {
  return count == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(count);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the calling thread. The case's process runs the session on this one thread
// (the host starts none), so this is the time the work itself took, whatever else the
// machine's cores were doing (wall times on a shared 2-core machine stretch with the
// load). The thread clock, not the process clock: with RLIMIT_CPU armed (--cpu-limit) the
// kernel may serve the process clock from a per-tick sample, too coarse for short stages.
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// What `caldera scenario run FILE` took as a whole process: the program built beside this
// one (build-rel/host/caldera next to build-rel/bench/), its output thrown away.
struct ProgramRun {
  bool ran = false;
  int exit_code = -1;
  double seconds = 0, cpu_seconds = 0;
  std::string why;  // when it did not run
};

ProgramRun run_scenario_file(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  ProgramRun r;
  std::error_code ec;
  const fs::path program = fs::canonical("/proc/self/exe", ec).parent_path().parent_path() / "host" / "caldera";
  if (ec || !fs::exists(program)) {
    r.why = "no " + program.string() + " beside the bench";
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    r.why = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    const std::string p = program.string(), f = file.string();
    execl(p.c_str(), p.c_str(), "scenario", "run", f.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  r.seconds = since(t0);
  r.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  r.ran = true;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Threads of this process (/proc/self/status), 0 when unknown.
int thread_count() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  int n = 0;
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::sscanf(line, "Threads: %d", &n) == 1) break;
  std::fclose(f);
  return n;
}

// CPU time of the whole process: the session's node-level work runs on the worker pool's
// threads too (host/util/worker_pool.hpp), and their time is part of the session's cost.
double process_cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

using Emit = std::function<void(const json&)>;

// The three stages, each reported as soon as it is done.
void run_stages(const CaseDef& def, const Policies& policies, const Emit& emit) {
  std::shared_ptr<const Policy> policy = def.preempt ? policies.preempt : policies.allocation;
  if (!policy) throw std::runtime_error(fmt::format("case {}: no policy for it was built", def.name));

  // 1. The cluster and backlog, straight into the cache.
  Cache cache;
  const FillStats fs =
      def.preempt ? fill_preempt(cache, def.preempt_shape) : fill_backlog(cache, def.backlog);
  const int64_t cache_heap = fs.node_heap_bytes + fs.podgroup_heap_bytes + fs.pod_heap_bytes;
  emit({{"name", def.name},
        {"nodes", fs.nodes},
        {"pods", fs.pods},
        {"running_pods", fs.running_pods},
        {"pending_pods", fs.pending_pods},
        {"podgroups", fs.podgroups},
        {"queues", fs.queues},
        {"fill_seconds", fs.seconds},
        {"running_share", {{"cpu", fs.cpu_used}, {"memory", fs.memory_used}, {"gpu", fs.gpu_used}}},
        {"cache_heap_bytes", cache_heap},
        {"bytes_per_node", per(fs.node_heap_bytes, fs.nodes)},
        // Per pod, its PodGroup's share included: what the cache holds per pod.
        {"bytes_per_pod", per(fs.pod_heap_bytes + fs.podgroup_heap_bytes, fs.pods)},
        {"bytes_per_pod_record", per(fs.pod_heap_bytes, fs.pods)},
        {"bytes_per_podgroup", per(fs.podgroup_heap_bytes, fs.podgroups)},
        {"rss_growth_per_node", per(fs.node_rss_bytes, fs.nodes)},
        {"rss_growth_per_pod", per(fs.pod_rss_bytes, fs.pods)}});

  // 1b. The same cluster as a scenario file (host/scenario/scenario_writer.hpp), read back
  // as `caldera scenario run` reads it: what loading a big state costs (issue 17, item 5).
  if (def.parse) {
    const std::string text = scenario_text(
        cache, ScenarioDump{def.name, def.preempt ? policies.preempt_file : policies.allocation_file,
                            "caldera-bench " + def.name});
    namespace fs = std::filesystem;
    const fs::path file =
        def.scenario_dir.empty()
            ? fs::temp_directory_path() / fmt::format("caldera-bench-{}-{}.toml", def.name, ::getpid())
            : def.scenario_dir / (def.name + ".toml");
    {
      std::ofstream out(file, std::ios::binary);
      out << text;
    }
    const double p0 = cpu_now();
    const auto pt = std::chrono::steady_clock::now();
    Scenario loaded = load_scenario(file, {});
    const double parse_seconds = since(pt), parse_cpu = cpu_now() - p0;
    // The whole of `caldera scenario run` on it: read, a supervised session, the checks.
    const ProgramRun run = run_scenario_file(file);
    if (def.scenario_dir.empty()) fs::remove(file);
    if (run.ran)
      emit({{"scenario_run_seconds", run.seconds},
            {"scenario_run_cpu_seconds", run.cpu_seconds},
            {"scenario_run_exit", run.exit_code}});
    else
      emit({{"scenario_run_error", run.why}});
    const size_t objects = loaded.cache.nodes().size() + loaded.cache.pods().size() +
                           loaded.cache.podgroups().size() + loaded.cache.queues().size();
    emit({{"scenario_bytes", text.size()},
          {"scenario_objects", objects},
          {"scenario_parse_seconds", parse_seconds},
          {"scenario_parse_cpu_seconds", parse_cpu},
          {"scenario_same_objects", loaded.cache.pods().size() == cache.pods().size() &&
                                        loaded.cache.nodes().size() == cache.nodes().size()}});
  }

  // 2. The fused loop over the same cache (none for preemption: it has no fused form).
  double fused_seconds = 0, fused_cpu = 0;
  if (!def.preempt) {
    const double c0 = cpu_now();
    const FusedResult fr = run_fused(cache, policy->config.node_search);
    fused_cpu = cpu_now() - c0;
    fused_seconds = fr.seconds;
    emit({{"fused_seconds", fr.seconds},
          {"fused_cpu_seconds", fused_cpu},
          {"fused_snapshot_seconds", fr.snapshot_seconds},
          {"fused_loop_seconds", fr.loop_seconds},
          {"fused_pods", fr.pods},
          {"fused_bound", fr.bound}});
  }
  // Give the loop's arrays back, so the session's peak starts from the cache alone.
  malloc_trim(0);

  // 3. One session. First a snapshot alone, timed in CPU time (the session's own timings
  // are wall clock, which a busy machine stretches), twice: the first open also pays for
  // touching fresh memory, which a scheduler running session after session does not; the
  // second is reported. Then the session itself.
  Runtime runtime;  // the probes' and the session's: the pool is started once
  {
    double snapshot_cpu[2] = {0, 0};
    for (double& sc : snapshot_cpu) {
      const double s0 = cpu_now();
      std::unique_ptr<Session> probe = Session::open(cache, policy, fs.now, runtime);
      sc = cpu_now() - s0;
    }
    malloc_trim(0);
    emit({{"snapshot_cpu_seconds", snapshot_cpu[1]}, {"first_snapshot_cpu_seconds", snapshot_cpu[0]}});
  }
  const bool peak_reset = reset_rss_peak();
  const int64_t rss_before = rss_now();
  SessionTimings t;
  const double c0 = process_cpu_now();
  const auto t0 = std::chrono::steady_clock::now();
  SessionResult r = run_session(cache, policy, fs.now, runtime, &t);
  const double seconds = since(t0);
  const double cpu = process_cpu_now() - c0;  // every thread's, the pool's included
  const int threads = thread_count();

  json actions = json::object();
  for (const auto& [name, s] : t.action_seconds)
    actions[name] = actions.contains(name) ? actions[name].get<double>() + s : s;
  json out = {{"session_seconds", seconds},
              {"session_cpu_seconds", cpu},
              {"snapshot_seconds", t.open_seconds},
              {"close_seconds", t.close_seconds},
              {"actions", actions},
              {"bound", r.binds.size()},
              {"evicted", r.evictions.size()},
              {"pipelined", r.pipelined.size()},
              {"still_pending", r.pending.size()},
              {"pods_per_second", seconds > 0 ? static_cast<double>(r.binds.size()) / seconds : 0},
              {"rss_before_session_bytes", rss_before},
              {"peak_rss_bytes", peak_reset ? rss_peak() : maxrss_rusage()},
              {"peak_rss_is_session_only", peak_reset},
              {"maxrss_rusage_bytes", maxrss_rusage()},
              {"threads", threads}};
  out["fused_ratio"] = def.preempt || fused_seconds <= 0 ? json(nullptr) : json(seconds / fused_seconds);
  out["fused_ratio_cpu"] = def.preempt || fused_cpu <= 0 ? json(nullptr) : json(cpu / fused_cpu);
  emit(out);

  // 4. The same session supervised, as `caldera run` runs it (docs/ISOLATION.md): forked
  // into a worker over the same cache, its result encoded, piped back and decoded. The
  // overhead is the difference of the two wall times; the decisions must be the same.
  WorkerLimits limits;
  limits.timeout_seconds = 3600;
  // From the fork until the supervisor holds the decoded result (the worker's exit, which
  // overlaps the commit in `caldera run`, is not counted).
  WorkerOutcome iso = run_session_in_worker(cache, policy, fs.now, runtime, limits);
  const double iso_seconds = iso.seconds;
  if (!iso.ok) {
    emit({{"isolated_error", iso.fault.text()}});
    return;
  }
  const SessionResult& ir = iso.result.result;
  // Where the worker's time went, as it measured it: the rest of iso_seconds is the fork,
  // the worker's start, encoding, the pipe and decoding.
  const SessionTimings& it = iso.result.timings;
  double iso_inside = it.open_seconds + it.close_seconds;
  for (const auto& [name, s] : it.action_seconds) iso_inside += s;
  emit({{"isolated_snapshot_seconds", it.open_seconds},
        {"isolated_inside_seconds", iso_inside},
        {"isolated_outside_seconds", iso_seconds - iso_inside}});
  emit({{"isolated_session_seconds", iso_seconds},
        {"isolation_overhead_seconds", iso_seconds - seconds},
        {"isolation_overhead_ratio", seconds > 0 ? iso_seconds / seconds - 1 : 0},
        {"isolated_same_decisions",
         ir.binds == r.binds && ir.evictions == r.evictions && ir.pipelined == r.pipelined &&
             ir.pending == r.pending}});

  // 5. The same session on a kept snapshot (host/session/session_image.hpp), as `caldera
  // run` and the Kubernetes backend run it: the image was brought up to date for the last
  // session, before the pending pods arrived; they arrive (the cache lists them as
  // changed), the image follows them and a worker opens the session on it in place.
  std::vector<std::shared_ptr<const PodSpec>> arrived;
  for (const auto& [key, p] : cache.pods())
    if (p->node.empty() && p->phase == PodPhase::Pending) arrived.push_back(p);
  for (const auto& p : arrived) cache.remove_pod(p->digest.key);
  SessionImage image;
  malloc_trim(0);
  const int64_t rss_without_image = rss_now();
  image.refresh(cache, policy);
  const int64_t image_rss = rss_now() - rss_without_image;  // what the supervisor holds more
  for (const auto& p : arrived) cache.upsert_pod_record(p);
  WorkerOutcome inc = run_session_in_worker(cache, policy, fs.now, runtime, limits, &image);
  if (!inc.ok) {
    emit({{"incremental_error", inc.fault.text()}});
    return;
  }
  const SessionResult& xr = inc.result.result;
  emit({{"incremental_image_rss_bytes", image_rss},
        {"incremental_refresh_seconds", inc.refresh.seconds},
        {"incremental_refresh_built", inc.refresh.built},
        {"incremental_pod_changes", inc.refresh.pods},
        {"incremental_snapshot_seconds", inc.result.timings.open_seconds},
        // The refresh, then the worker from its fork to the decoded result.
        {"incremental_session_seconds", inc.refresh.seconds + inc.seconds},
        {"incremental_same_decisions",
         xr.binds == r.binds && xr.evictions == r.evictions && xr.pipelined == r.pipelined &&
             xr.pending == r.pending}});
}

}  // namespace

namespace {

// A generated cluster with `running` pods placed up front and `pending` ones to place.
CaseDef cluster_case(std::string name, size_t nodes, size_t running, size_t pending,
                     uint64_t seed) {
  CaseDef c;
  c.name = std::move(name);
  c.backlog.nodes = nodes;
  c.backlog.running_pods = running;
  c.backlog.pending_pods = pending;
  c.backlog.seed = seed;
  c.summary = running == 0 ? fmt::format("{} nodes, {} pending pods in gang jobs", nodes, pending)
                           : fmt::format("{} nodes, up to {} running pods placed up front, {} "
                                         "pending",
                                         nodes, running, pending);
  return c;
}

}  // namespace

std::vector<CaseDef> all_cases(double scale, uint64_t seed) {
  std::vector<CaseDef> cases;
  for (double n : {1000.0, 5000.0, 10000.0}) {
    const size_t nodes = scaled(n, scale);
    cases.push_back(cluster_case(fmt::format("nodes-{}k", static_cast<int>(n / 1000)), nodes, 0,
                                 10 * nodes, seed));
  }
  {
    const size_t nodes = scaled(5000, scale);
    CaseDef c = cluster_case("constraints-5k", nodes, 0, 10 * nodes, seed);
    c.backlog.constraints = true;
    c.summary = fmt::format(
        "{} nodes in 3 zones, {} pending pods: a third with one-per-node anti-affinity, a "
        "third with a zone spread, a third with preferred node affinity",
        c.backlog.nodes, c.backlog.pending_pods);
    cases.push_back(c);
  }
  {
    const size_t nodes = scaled(10000, scale);
    cases.push_back(cluster_case("steady-10k", nodes, 10 * nodes, scaled(1000, scale), seed));
  }
  // Beyond today's clusters (the largest run 65,000 nodes; 130,000 in experiments): a full
  // backlog of a million pods, and the steady state of such a cluster. On request only; no
  // scenario file (150 MB: the parse figure is nodes-10k's times 13).
  for (bool steady : {false, true}) {
    const size_t nodes = scaled(130000, scale);
    CaseDef c = steady ? cluster_case("steady-130k", nodes, 10 * nodes, scaled(1000, scale), seed)
                       : cluster_case("nodes-130k", nodes, 0, scaled(1000000, scale), seed);
    c.parse = false;
    c.on_request = true;
    cases.push_back(c);
  }
  {
    CaseDef c;
    c.name = "preempt";
    c.preempt = true;
    c.preempt_shape.nodes = scaled(1000, scale);
    c.preempt_shape.gang = 64;
    c.preempt_shape.seed = seed;
    c.summary = fmt::format(
        "{} nodes full of low-priority preemptable pods, a high-priority gang of {} pending",
        c.preempt_shape.nodes, c.preempt_shape.gang);
    cases.push_back(c);
  }
  return cases;
}

void run_case(const CaseDef& def, const Policies& policies, json& out) {
  run_stages(def, policies, [&out](const json& j) { out.update(j); });
}

json run_case_forked(const CaseDef& def, const Policies& policies, const Limits& limits) {
  const double timeout_seconds = limits.wall_seconds;
  json out = {{"name", def.name}};
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(fds[0]);
    ::signal(SIGPIPE, SIG_IGN);
    if (limits.cpu_seconds > 0) {
      // SIGXCPU at the soft limit ends the process (default action); the hard limit one
      // second later is the kernel's SIGKILL backstop.
      const auto secs = static_cast<rlim_t>(std::ceil(limits.cpu_seconds));
      rlimit rl{secs, secs + 1};
      ::setrlimit(RLIMIT_CPU, &rl);
    }
    int code = 0;
    const Emit emit = [fd = fds[1]](const json& j) { write_all(fd, j.dump() + "\n"); };
    try {
      run_stages(def, policies, emit);
    } catch (const std::exception& e) {
      emit({{"error", e.what()}});
      code = 1;
    }
    ::close(fds[1]);
    std::fflush(stderr);
    ::_exit(code);
  }

  ::close(fds[1]);
  const auto t0 = std::chrono::steady_clock::now();
  std::string buf;
  bool timed_out = false;
  char chunk[4096];
  for (;;) {
    int wait_ms = -1;
    if (timeout_seconds > 0) {
      const double left = timeout_seconds - since(t0);
      if (left <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::ceil(left * 1000));
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) continue;  // the deadline check above ends it
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child is done
    buf.append(chunk, static_cast<size_t>(n));
    for (size_t nl; (nl = buf.find('\n')) != std::string::npos;) {
      out.update(json::parse(buf.substr(0, nl)));
      buf.erase(0, nl + 1);
    }
  }
  ::close(fds[0]);
  if (timed_out) {
    ::kill(pid, SIGKILL);
    out["timed_out"] = true;
    out["error"] = fmt::format("stopped after {:.0f} s (--timeout)", timeout_seconds);
  }
  int status = 0;
  rusage ru{};
  while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  const double child_cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  out["process_cpu_seconds"] = child_cpu;
  // SIGXCPU is the soft CPU limit; a SIGKILL is the hard one only when the CPU time is there
  // (else it is something else, the OOM killer say).
  const bool cpu_stopped =
      WIFSIGNALED(status) && limits.cpu_seconds > 0 &&
      (WTERMSIG(status) == SIGXCPU ||
       (WTERMSIG(status) == SIGKILL && child_cpu >= std::ceil(limits.cpu_seconds)));
  if (!timed_out && cpu_stopped) {
    timed_out = true;
    out["timed_out"] = true;
    out["error"] = fmt::format("stopped after {:.0f} s of CPU time (--cpu-limit)",
                               std::ceil(limits.cpu_seconds));
  }
  if (!timed_out && !out.contains("error")) {
    if (WIFSIGNALED(status))
      out["error"] = fmt::format("the case's process died of signal {} ({})", WTERMSIG(status),
                                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
      out["error"] = fmt::format("the case's process exited with code {}", WEXITSTATUS(status));
  }
  out["wall_seconds"] = since(t0);
  return out;
}

}  // namespace caldera::bench
