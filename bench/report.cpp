#include "bench/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace caldera::bench {

using nlohmann::json;

namespace {

double num(const json& c, const char* key) {
  auto it = c.find(key);
  return it != c.end() && it->is_number() ? it->get<double>() : -1;
}

// 0.0123 -> "12.3ms", 4.5 -> "4.50s"; "-" when not measured.
std::string secs(double s) {
  if (s < 0) return "-";
  if (s < 1e-3) return fmt::format("{:.0f}us", s * 1e6);
  if (s < 1) return fmt::format("{:.1f}ms", s * 1e3);
  return fmt::format("{:.2f}s", s);
}

std::string count(double v) { return v < 0 ? "-" : fmt::format("{:.0f}", v); }

std::string mib(double b) { return b < 0 ? "-" : fmt::format("{:.0f}MiB", b / (1024.0 * 1024.0)); }

std::string ratio(double r) { return r < 0 ? "-" : fmt::format("{:.2f}x", r); }

}  // namespace

void print_table(const json& results, std::FILE* out) {
  // Wall-clock figures with the same figure in CPU time beside them, "(cpu)": on a busy
  // machine the wall clock stretches, the CPU time much less.
  fmt::print(out,
             "{:<11} {:>6} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} {:>7} {:>7} {:>9} {:>7} "
             "{:>7}\n",
             "case", "nodes", "pods", "snapshot", "(cpu)", "session", "(cpu)", "bound", "pods/s",
             "fused", "ratio", "(cpu)", "peak RSS", "B/pod", "B/node");
  for (const json& c : results.at("cases")) {
    fmt::print(out,
               "{:<11} {:>6} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} {:>7} {:>7} {:>9} "
               "{:>7} {:>7}\n",
               c.value("name", "?"), count(num(c, "nodes")), count(num(c, "pods")),
               secs(num(c, "snapshot_seconds")), secs(num(c, "snapshot_cpu_seconds")),
               secs(num(c, "session_seconds")),
               secs(num(c, "session_cpu_seconds")), count(num(c, "bound")),
               count(num(c, "pods_per_second")), secs(num(c, "fused_seconds")),
               ratio(num(c, "fused_ratio")), ratio(num(c, "fused_ratio_cpu")),
               mib(num(c, "peak_rss_bytes")), count(num(c, "bytes_per_pod")),
               count(num(c, "bytes_per_node")));
    std::vector<std::string> parts;
    std::string actions;
    if (auto a = c.find("actions"); a != c.end())
      for (const auto& [name, s] : a->items())
        actions += fmt::format("{}{} {}", actions.empty() ? "" : ", ", name, secs(s.get<double>()));
    if (c.contains("close_seconds"))
      actions += fmt::format("{}close {}", actions.empty() ? "" : ", ", secs(num(c, "close_seconds")));
    if (!actions.empty()) parts.push_back(actions);
    if (num(c, "evicted") > 0 || num(c, "pipelined") > 0)
      parts.push_back(fmt::format("evicted {}, pipelined {}", count(num(c, "evicted")),
                                  count(num(c, "pipelined"))));
    if (c.contains("isolated_session_seconds"))
      parts.push_back(fmt::format("supervised session {} ({:+.1f} ms, {:+.1f}%{})",
                                  secs(num(c, "isolated_session_seconds")),
                                  num(c, "isolation_overhead_seconds") * 1000,
                                  num(c, "isolation_overhead_ratio") * 100,
                                  c.value("isolated_same_decisions", false)
                                      ? ", same decisions"
                                      : ", DIFFERENT DECISIONS"));
    if (c.contains("isolated_error"))
      parts.push_back("supervised session failed: " + c["isolated_error"].get<std::string>());
    if (c.contains("incremental_session_seconds"))
      parts.push_back(fmt::format(
          "on the kept snapshot {} (refresh {} for {} pods{}, open in the worker {}{})",
          secs(num(c, "incremental_session_seconds")), secs(num(c, "incremental_refresh_seconds")),
          count(num(c, "incremental_pod_changes")),
          c.value("incremental_refresh_built", false) ? ", BUILT ANEW" : "",
          secs(num(c, "incremental_snapshot_seconds")),
          c.value("incremental_same_decisions", false) ? ", same decisions" : ", DIFFERENT DECISIONS"));
    if (c.contains("incremental_error"))
      parts.push_back("session on the kept snapshot failed: " +
                      c["incremental_error"].get<std::string>());
    if (c.contains("scenario_parse_seconds"))
      parts.push_back(fmt::format("as a scenario file {:.1f} MB, {} objects read in {} ({:.0f}/s{})",
                                  num(c, "scenario_bytes") / 1e6, count(num(c, "scenario_objects")),
                                  secs(num(c, "scenario_parse_seconds")),
                                  num(c, "scenario_objects") / std::max(1e-9, num(c, "scenario_parse_seconds")),
                                  c.value("scenario_same_objects", false) ? "" : ", OBJECTS LOST"));
    if (c.contains("scenario_run_seconds"))
      parts.push_back(fmt::format(
          "`caldera scenario run` of it {} ({} CPU{})", secs(num(c, "scenario_run_seconds")),
          secs(num(c, "scenario_run_cpu_seconds")),
          num(c, "scenario_run_exit") == 0
              ? ""
              : fmt::format(", EXIT {}", static_cast<int>(num(c, "scenario_run_exit")))));
    if (c.contains("scenario_run_error"))
      parts.push_back("no `caldera scenario run`: " + c["scenario_run_error"].get<std::string>());
    if (c.contains("still_pending"))
      parts.push_back(fmt::format("{} left pending", count(num(c, "still_pending"))));
    if (c.contains("fused_bound"))
      parts.push_back(fmt::format("fused loop bound {} (its snapshot {})",
                                  count(num(c, "fused_bound")),
                                  secs(num(c, "fused_snapshot_seconds"))));
    std::string detail;
    for (const std::string& p : parts) detail += (detail.empty() ? "" : "; ") + p;
    if (!detail.empty()) fmt::print(out, "{:<11}   {}\n", "", detail);
    if (c.contains("error")) fmt::print(out, "{:<11}   ERROR: {}\n", "", c["error"].get<std::string>());
  }
}

void print_json(const json& results, std::FILE* out) {
  fmt::print(out, "{}\n", results.dump(2));
}

}  // namespace caldera::bench
