// `caldera replay openb`: the FGD paper's trace replay (host/replay/replay.hpp) with a
// scheduler config. Prints a table of GPU allocated against GPU requests arrived (or one
// JSON object with --json), writes the decisions (--placements, SCENARIOS.md section 3) and
// a plot (--plot FILE.svg or FILE.html). Progress goes to stderr, only when it is a
// terminal.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "host/cli/commands.hpp"
#include "host/config/config.hpp"
#include "host/plugins/policy.hpp"
#include "host/replay/openb_trace.hpp"
#include "host/replay/replay.hpp"
#include "host/util/progress.hpp"
#include "host/util/sha256.hpp"

namespace caldera::cli {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void report_skipped(const replay::LoadReport& rep) {
  if (rep.skipped == 0) return;
  spdlog::warn("skipped {} bad row(s) (--skip-bad-rows):", rep.skipped);
  const size_t shown = std::min<size_t>(rep.errors.size(), 20);
  for (size_t i = 0; i < shown; ++i) spdlog::warn("  {}", rep.errors[i]);
  if (rep.errors.size() > shown) spdlog::warn("  ... and {} more", rep.errors.size() - shown);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int replay_openb(const Common& c, const ReplayOptions& given) {
  ReplayOptions o = given;
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<const Policy> policy;
  std::vector<replay::OpenbNode> nodes;
  std::vector<replay::OpenbPod> trace;
  std::vector<replay::OpenbPod> pods;
  const fs::path nodes_file =
      o.nodes.empty() ? o.pods.parent_path() / "openb_node_list_gpu_node.csv" : o.nodes;
  try {
    if (!(o.tune > 0)) throw InputError(fmt::format("--tune {}: must be above 0", o.tune));
    if (!o.plot.empty() && !ends_with(o.plot.string(), ".svg") &&
        !ends_with(o.plot.string(), ".html") && !ends_with(o.plot.string(), ".htm"))
      throw InputError(fmt::format("--plot {}: the file name must end in .svg or .html",
                                   o.plot.string()));
    if (o.config.empty()) {
      // The paper's policy (FGD), shipped beside the default config.
      const fs::path fgd = default_config_path().parent_path() / "openb" / "fragmentation.toml";
      std::error_code ec;
      if (!fs::is_regular_file(fgd, ec))
        throw InputError(fmt::format("no --config given and no {} to default to; give --config",
                                     fgd.string()));
      o.config = fgd;
    }
    SchedulerConfig cfg = load_config(o.config, default_plugin_dirs());
    if (!c.plugin_dirs.empty()) {
      cfg.plugin_dirs.clear();
      for (const auto& d : c.plugin_dirs) cfg.plugin_dirs.push_back(fs::absolute(d));
    }
    PluginCatalog catalog = PluginCatalog::scan(cfg.plugin_dirs);
    policy = build_policy(cfg, catalog, sha256_hex(read_text(o.config)));

    replay::LoadReport rep;
    nodes = replay::load_openb_nodes(nodes_file, o.skip_bad_rows, rep);
    trace = replay::load_openb_pods(o.pods, o.skip_bad_rows, rep);
    replay::check_pods_against_nodes(trace, nodes, o.skip_bad_rows, rep);
    report_skipped(rep);
    if (nodes.empty()) throw InputError(fmt::format("{}: no node to replay on", nodes_file.string()));
    const int64_t cap = replay::gpu_capacity_milli(nodes);
    if (cap <= 0) throw InputError(fmt::format("{}: the nodes have no GPU", nodes_file.string()));
    if (trace.empty()) throw InputError(fmt::format("{}: no pod to replay", o.pods.string()));
    pods = replay::tune_and_shuffle(trace, cap, o.tune, o.seed);
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 1;
  }

  Progress progress("pods");
  replay::ReplayResult r;
  try {
    replay::RunOptions ro;
    ro.step = 0.05;
    ro.until = o.tune;
    ro.merge_placed = !o.keep_pods;
    ro.prefilter = !o.all_nodes;
    ro.progress = [&](size_t done, size_t total) { progress.update(done, total); };
    r = replay::run_replay(nodes, pods, policy, ro);
    progress.finish();
  } catch (const std::exception& e) {
    spdlog::error("replay stopped: {}", e.what());
    return 2;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const std::string title =
      fmt::format("openb {} | {} | seed {} | tune {}", o.pods.filename().string(),
                  o.config.filename().string(), o.seed, o.tune);
  try {
    if (!o.placements.empty()) replay::write_placements_csv(o.placements.string(), r);
    if (!o.plot.empty()) {
      std::ofstream out(o.plot, std::ios::binary | std::ios::trunc);
      if (!out) throw InputError(fmt::format("{}: cannot write the plot", o.plot.string()));
      out << (ends_with(o.plot.string(), ".svg") ? replay::plot_svg(r, title)
                                                 : replay::plot_html(r, title));
    }
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  if (r.placed_without_cards > 0)
    spdlog::warn("{} GPU pods were placed with no card chosen (the config has no device plugin "
                 "such as deviceshare): shares were checked against the node's total only",
                 r.placed_without_cards);

  if (o.json) {
    nlohmann::ordered_json j;
    j["pods"] = r.pods;
    j["gpu_capacity_milli"] = r.gpu_capacity_milli;
    j["seconds"] = std::round(r.seconds * 1000) / 1000;
    nlohmann::ordered_json pts = nlohmann::ordered_json::array();
    for (const auto& p : r.points)
      pts.push_back({{"arrived", std::round(p.arrived * 1e6) / 1e6},
                     {"allocated", std::round(p.allocated * 1e6) / 1e6}});
    j["points"] = std::move(pts);
    j["nodes"] = r.nodes;
    j["placed"] = r.placed;
    j["failed"] = r.failed;
    j["gpu_allocated_milli"] = r.gpu_allocated_milli;
    j["session_nodes_mean"] =
        r.pods > 0 ? std::round(static_cast<double>(r.session_nodes) / r.pods * 10) / 10 : 0.0;
    j["session_seconds"] = {{"open", std::round(r.open_seconds * 1000) / 1000},
                            {"actions", std::round(r.action_seconds * 1000) / 1000},
                            {"close", std::round(r.close_seconds * 1000) / 1000}};
    j["seed"] = o.seed;
    j["tune"] = o.tune;
    fmt::print("{}\n", j.dump());
    return 0;
  }

  fmt::print("openb replay: {} pods ({} in the trace, {} copies), {} nodes, {} GPUs; seed {}, "
             "tune {}\n",
             r.pods, trace.size(), r.pods >= trace.size() ? r.pods - trace.size() : 0, r.nodes,
             r.gpu_capacity_milli / replay::kMilliPerGpu, o.seed, o.tune);
  fmt::print("config {}: {} placed, {} failed, {:.1f} s\n", o.config.string(), r.placed,
             r.failed, r.seconds);
  fmt::print("sessions: {:.1f} nodes on average; open {:.1f} s, actions {:.1f} s, close {:.1f} "
             "s\n\n",
             r.pods > 0 ? static_cast<double>(r.session_nodes) / static_cast<double>(r.pods) : 0.0,
             r.open_seconds, r.action_seconds, r.close_seconds);
  fmt::print("  arrived  allocated\n");
  for (const auto& p : r.points)
    fmt::print("  {:6.1f}%  {:8.2f}%\n", p.arrived * 100, p.allocated * 100);
  return 0;
}

}  // namespace caldera::cli
