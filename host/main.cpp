// The `caldera` program: one binary for the scheduler loop, the plugin tools, config checks
// and scenario runs. Parsing only; each subcommand lives in host/cli/.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "host/cli/cli_docs.hpp"
#include "host/cli/commands.hpp"
#include "host/util/duration.hpp"
#include "host/util/log.hpp"

#ifndef CALDERA_VERSION
#define CALDERA_VERSION "dev"
#endif

int main(int argc, char** argv) {
  using namespace caldera;
  CLI::App app{"Caldera: a batch scheduler for AI and HPC clusters (Volcano's model, plugins as .so)"};
  app.set_version_flag("--version", CALDERA_VERSION);
  app.require_subcommand(1);
  // Global options (-v, --plugin-dir) may also follow the subcommand:
  // `caldera plugins list --plugin-dir DIR`.
  app.fallthrough();

  cli::Common common;
  std::vector<std::string> plugin_dirs;
  app.add_option("-v,--v", common.verbosity, "log verbosity, like Volcano's --v (0..5)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // as Go's flags: the last wins
  std::string logging_format = "caldera";
  app.add_option("--logging-format", logging_format,
                 "log layout: caldera (\"22:48:18.123 I ...\"), text (klog's) or json (one "
                 "object a line, as Kubernetes components write)")
      ->check(CLI::IsMember({"caldera", "text", "json"}))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--plugin-dir", plugin_dirs,
                 "plugin folder to search (repeatable); overrides the config's plugin_dirs");

  // Run as `vc-scheduler` (the installed link, the image's entry point): volcano-scheduler
  // in place, `caldera run --backend kubernetes` with Volcano's defaults for what the two
  // differ in (leader election on, the Lease named after the scheduler in volcano-system),
  // so that Volcano's Deployment runs with only its image changed.
  const bool as_vc_scheduler =
      argc > 0 && std::filesystem::path(argv[0]).filename() == "vc-scheduler";

  // run
  cli::RunOptions run_opts;
  if (as_vc_scheduler) {
    run_opts.backend = "kubernetes";
    run_opts.leader_elect = true;
    run_opts.lease_namespace = "volcano-system";
  }
  auto* run = app.add_subcommand("run", "run the scheduler on the embedded cluster");
  run->add_option("-c,--config,--scheduler-conf", run_opts.config,
                  "scheduler config: Caldera's TOML or Volcano's volcano-scheduler.conf YAML");
  // volcano-scheduler's flags for what the config also says; given, they win over it.
  std::string schedule_period;
  run->add_option("--schedule-period", schedule_period,
                  "one session per this period (\"1s\", \"500ms\"), over the config's period");
  run->add_option("--percentage-nodes-to-find", run_opts.volcano.percentage_nodes_to_find,
                  "as Volcano's flag (over the config's percentage_of_nodes_to_find)")
      ->check(CLI::Range(0, 100));
  run->add_option("--minimum-feasible-nodes", run_opts.volcano.minimum_feasible_nodes,
                  "as Volcano's flag (over the config's minimum_feasible_nodes)")
      ->check(CLI::Range(1, 1 << 30));
  run->add_option("--minimum-percentage-nodes-to-find",
                  run_opts.volcano.minimum_percentage_nodes_to_find,
                  "as Volcano's flag (over the config's minimum_percentage_of_nodes_to_find)")
      ->check(CLI::Range(1, 100));
  run->add_option("--ignored-provisioners", run_opts.volcano.ignored_provisioners,
                  "as Volcano's flag: provisioners whose claims count as no CSI volume (added to "
                  "the config's ignored_provisioners)")
      ->delimiter(',');
  std::vector<std::string> plugins_dirs;
  run->add_option("--kube-api-qps", run_opts.kube_api_qps,
                  "requests per second to the API server (Volcano's flag and default, 2000; "
                  "negative: no limit)");
  run->add_option("--kube-api-burst", run_opts.kube_api_burst,
                  "requests above --kube-api-qps at once (Volcano's flag and default, 2000)")
      ->check(CLI::Range(0, 1 << 30));
  run->add_option("--plugins-dir", plugins_dirs,
                  "a folder of custom plugins, searched after the config's (repeatable; "
                  "Volcano's flag; --plugin-dir replaces them instead)");
  run->add_option("--cluster", run_opts.cluster, "cluster file (nodes, queues, priority classes)");
  run->add_option("--workload", run_opts.workload, "workload file (jobs arriving over time)");
  run->add_flag("--realtime", run_opts.realtime, "one session per period of wall time");
  run->add_option("--until", run_opts.until, "stop at this virtual time in seconds");
  run->add_option("--results", run_opts.results,
                  "write the results to this folder at the end: results.json, CSV files and "
                  "report.html (docs/RESULTS.md)");
  run->add_option("--results-every", run_opts.results_every,
                  "also rewrite the results every N sessions (needs --results)")
      ->check(CLI::PositiveNumber);
  run->add_option("--status-file", run_opts.status_file,
                  "write the scheduler's status (policy, plugins, reloads) as JSON to this file "
                  "after every session and reload; read it with `caldera status`");
  run->add_option("--backend", run_opts.backend, "cluster backend: sim (embedded) or kubernetes")
      ->check(CLI::IsMember({"sim", "kubernetes"}));
  run->add_option("--kubeconfig", run_opts.kubeconfig,
                  "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  run->add_option("--context", run_opts.context, "kubeconfig context (default: the current one)");
  run->add_option("--scheduler-name", run_opts.scheduler_names,
                  "schedule pods whose spec.schedulerName is this (repeatable; default: volcano)");
  run->add_option("--evict-mode", run_opts.evict_mode,
                  "how to evict: eviction (the Eviction API, honours PodDisruptionBudgets) or delete")
      ->check(CLI::IsMember({"eviction", "delete"}));
  run->add_flag("--leader-elect", run_opts.leader_elect,
                "take part in leader election; only the leader schedules");
  run->add_option("--leader-elect-resource-name", run_opts.lease_name, "the Lease's name");
  run->add_option("--leader-elect-resource-namespace", run_opts.lease_namespace,
                  "the Lease's namespace");
  run->add_option("--leader-elect-lease-duration", run_opts.lease_duration,
                  "seconds a standby waits before taking over a lease that is not renewed");
  run->add_option("--leader-elect-renew-deadline", run_opts.renew_deadline,
                  "seconds the leader keeps trying to renew before it stops leading");
  run->add_option("--leader-elect-retry-period", run_opts.retry_period,
                  "seconds between attempts to acquire or renew");
  run->add_option("--identity", run_opts.identity, "this replica's name (default: hostname_pid)");
  run->add_flag("--enable-metrics", run_opts.enable_metrics,
                "serve Prometheus metrics (Volcano's names) at /metrics on --listen-address "
                "(Volcano's flag; default false)");
  run->add_option("--listen-address", run_opts.listen_address,
                  "the address of /metrics (Volcano's flag and default, \":8080\")");
  run->add_flag("--enable-healthz", run_opts.enable_healthz,
                "serve /healthz and /readyz on --healthz-address (Volcano's flag; default "
                "false)");
  run->add_option("--healthz-address", run_opts.healthz_address,
                  "the address of /healthz and /readyz (Volcano's flag and default, "
                  "\":11251\")");
  run->add_option("--lock-object-namespace", run_opts.lease_namespace,
                  "the Lease's namespace (Volcano's deprecated name of "
                  "--leader-elect-resource-namespace)");
  bool logtostderr = true;
  run->add_flag("--logtostderr", logtostderr,
                "accepted for volcano-scheduler's Deployment: logs always go to stderr");
  run->add_option("--node-selector", run_opts.node_selector,
                  "only nodes with this label are scheduled (KEY:VALUE, repeatable or "
                  "comma-separated: a node with any of them is in; Volcano's flag)")
      ->delimiter(',');
  run->add_option("--cache-dumper", run_opts.cache_dumper,
                  "SIGUSR1 writes the cache as a scenario file into --cache-dump-dir, SIGUSR2 "
                  "logs every node and job (Volcano's flag; default true)");
  run->add_option("--cache-dump-dir", run_opts.cache_dump_dir,
                  "where SIGUSR1 writes snapshot-<unix seconds>.toml (Volcano's flag and "
                  "default, /tmp)");
  int node_worker_threads = 20;
  run->add_option("--node-worker-threads", node_worker_threads,
                  "accepted for volcano-scheduler's Deployment (the goroutines that sync its "
                  "node cache); Caldera's cache has no such workers, so it changes nothing")
      ->check(CLI::PositiveNumber);
  run->add_option("--list-page-size", run_opts.list_page_size,
                  "list in pages of this many objects read from etcd (limit/continue, "
                  "consistent reads). Not given: as client-go's reflector, the first list of "
                  "each kind is served from the API server's watch cache (resourceVersion=0), "
                  "a list after a watch ends from the last resourceVersion seen, and only a "
                  "list after that one is gone reads etcd, in pages of 500")
      ->check(CLI::Range(1, 100000));

  // plugins
  auto* plugins = app.add_subcommand("plugins", "inspect the plugins in the plugin dirs");
  plugins->require_subcommand(1);
  std::string plugins_config;
  auto* list = plugins->add_subcommand("list", "name, version, ABI, file and points of each plugin");
  list->add_option("-c,--config", plugins_config, "config whose plugin_dirs to scan");
  std::string describe_name;
  auto* describe = plugins->add_subcommand("describe", "a plugin's options");
  describe->add_option("name", describe_name, "plugin name")->required();
  describe->add_option("-c,--config", plugins_config, "config whose plugin_dirs to scan");

  // check-config
  std::string check_file;
  auto* check = app.add_subcommand("check-config", "validate a config without running it");
  check->add_option("file", check_file, "config file")->required();

  // convert-config
  std::string convert_file;
  auto* convert = app.add_subcommand(
      "convert-config", "print Volcano's YAML scheduler config (volcano-scheduler.conf) as TOML");
  convert->add_option("file", convert_file, "Volcano's config file")->required();

  // new-plugin
  std::string new_plugin_name, new_plugin_lang = "c", new_plugin_dir;
  auto* new_plugin = app.add_subcommand(
      "new-plugin", "write a plugin folder that builds against the installed SDK, with a scenario");
  new_plugin->add_option("name", new_plugin_name, "the plugin's name")->required();
  new_plugin->add_option("--lang", new_plugin_lang, "c (default) or cpp")
      ->check(CLI::IsMember({"c", "cpp"}));
  new_plugin->add_option("--dir", new_plugin_dir, "the folder to write (default: ./NAME)");

  // manpages, completion: written from this very definition (host/cli/cli_docs.hpp)
  std::string manpages_dir;
  auto* manpages = app.add_subcommand("manpages", "write a man page per command into a folder");
  manpages->add_option("dir", manpages_dir, "the folder (made when missing)")->required();
  std::string completion_shell;
  auto* completion = app.add_subcommand("completion", "print a shell completion script");
  completion->add_option("shell", completion_shell, "bash")
      ->required()
      ->check(CLI::IsMember({"bash"}));

  // status
  std::string status_path;
  auto* status = app.add_subcommand("status", "print a running scheduler's status file");
  status->add_option("file", status_path, "the file given to `caldera run --status-file`")
      ->required();

  // explain
  std::string explain_pod, explain_address = "127.0.0.1:8080";
  auto* explain_cmd = app.add_subcommand(
      "explain", "ask a running scheduler why a pod is pending or where it went, and the "
                 "best-scored nodes with each plugin's score (its last session)");
  explain_cmd->add_option("pod", explain_pod, "NAMESPACE/NAME")->required();
  explain_cmd->add_option("--address", explain_address,
                          "the scheduler's --listen-address, HOST:PORT (it runs with "
                          "--enable-metrics; default 127.0.0.1:8080)");

  // scenario
  auto* scenario = app.add_subcommand("scenario", "scenario files (SCENARIOS.md section 2)");
  scenario->require_subcommand(1);
  std::vector<std::string> scenario_files;
  bool json = false, explain = false;
  auto* srun = scenario->add_subcommand("run", "run scenario files and check their expectations");
  srun->add_option("files", scenario_files, "scenario files")->required();
  srun->add_flag("--json", json, "one JSON object per file with every decision");
  srun->add_flag("--explain", explain, "print why each pending task stays pending");

  // replay
  auto* replay = app.add_subcommand("replay", "trace replays");
  replay->require_subcommand(1);
  cli::ReplayOptions replay_opts;
  auto* openb = replay->add_subcommand(
      "openb", "replay the openb GPU trace as the FGD paper's simulator does (one pod per session)");
  openb->add_option("--pods", replay_opts.pods, "pod list: an openb_pod_list_*.csv")->required();
  openb->add_option("--nodes", replay_opts.nodes,
                    "node list (default: openb_node_list_gpu_node.csv beside the pods file)");
  openb->add_option("-c,--config", replay_opts.config,
                    "scheduler config (default: openb/fragmentation.toml beside the default config)");
  openb->add_option("--seed", replay_opts.seed, "seed of the tuning copies and the shuffle (default 42)");
  openb->add_option("--tune", replay_opts.tune,
                    "copy pods until GPU requests reach this multiple of GPU capacity (default 1.3)");
  openb->add_flag("--json", replay_opts.json, "print one JSON object and nothing else on stdout");
  openb->add_option("--placements", replay_opts.placements, "write every decision to this CSV");
  openb->add_option("--plot", replay_opts.plot, "write the curve to this .svg or .html file");
  openb->add_flag("--skip-bad-rows", replay_opts.skip_bad_rows,
                  "skip bad trace rows (each reported) instead of stopping");
  openb->add_flag("--keep-pods", replay_opts.keep_pods,
                  "keep every placed pod as its own cache record instead of one merged record "
                  "per node (same decisions, much slower; for checking)");
  openb->add_flag("--all-nodes", replay_opts.all_nodes,
                  "put every node in every session, not only those the pod fits by resources, "
                  "one per state (needed by plugins that weigh cluster totals: drf, proportion, "
                  "capacity, or that tell nodes apart by name)");

  // volcano-scheduler's Deployment (its Helm chart) writes two things Go's flag package
  // takes and CLI11 does not: "-v=3" (a short flag with "="), and a shell redirection
  // "2>&1" passed as an argument, which vc-scheduler ignores. Both are read as it reads them.
  std::vector<std::string> given(argv, argv + argc);
  if (as_vc_scheduler) given.insert(given.begin() + 1, "run");
  std::vector<char*> args;
  for (std::string& a : given) {
    if (a == "2>&1") continue;
    if (a.rfind("-v=", 0) == 0) a = "--v=" + a.substr(3);
    args.push_back(a.data());
  }
  CLI11_PARSE(app, static_cast<int>(args.size()), args.data());
  setup_logging(common.verbosity, logging_format == "json"   ? LogFormat::Json
                                  : logging_format == "text" ? LogFormat::Text
                                                             : LogFormat::Caldera);
  for (const auto& d : plugin_dirs) common.plugin_dirs.emplace_back(d);

  if (*run) {
    // Volcano names its Lease after the scheduler (GenerateComponentName).
    if (as_vc_scheduler && run->count("--leader-elect-resource-name") == 0)
      run_opts.lease_name =
          run_opts.scheduler_names.size() == 1 ? run_opts.scheduler_names[0] : "volcano";
    for (const auto& d : plugins_dirs)
      run_opts.volcano.plugins_dirs.push_back(std::filesystem::absolute(d).lexically_normal());
    if (!schedule_period.empty()) {
      std::optional<double> s = parse_duration(schedule_period);
      if (!s || !(*s > 0)) {
        std::fprintf(stderr, "--schedule-period %s: not a duration above 0 (e.g. \"1s\", \"500ms\")\n",
                     schedule_period.c_str());
        return 2;
      }
      run_opts.volcano.schedule_period = *s;
    }
    if (run_opts.backend == "kubernetes") {
      if (!run_opts.results.empty() || run_opts.results_every > 0) {
        std::fprintf(stderr, "--results: only with the embedded cluster (--backend sim)\n");
        return 2;
      }
#ifdef CALDERA_WITH_KUBERNETES
      return cli::run_kubernetes(common, run_opts);
#else
      std::fprintf(stderr,
                   "--backend kubernetes: this caldera was built without the Kubernetes backend "
                   "(meson -Dkubernetes=disabled); rebuild with -Dkubernetes=enabled\n");
      return 2;
#endif
    }
    return cli::run(common, run_opts);
  }
  if (*list) return cli::plugins_list(common, plugins_config);
  if (*new_plugin) return cli::new_plugin(new_plugin_name, new_plugin_lang, new_plugin_dir);
  if (*manpages) return cli::write_man_pages(app, manpages_dir, CALDERA_VERSION);
  if (*completion) {
    std::fputs(cli::bash_completion(app).c_str(), stdout);
    return 0;
  }
  if (*describe) return cli::plugins_describe(common, plugins_config, describe_name);
  if (*check) return cli::check_config(common, check_file);
  if (*convert) return cli::convert_config(convert_file);
  if (*status) return cli::status(status_path);
  if (*explain_cmd) return cli::explain(explain_pod, explain_address);
  if (*srun) {
    std::vector<std::filesystem::path> files(scenario_files.begin(), scenario_files.end());
    return cli::scenario_run(common, files, json, explain);
  }
  if (*openb) return cli::replay_openb(common, replay_opts);
  return 2;
}
