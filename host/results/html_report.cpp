#include "host/results/html_report.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>

#include "host/model/objects.hpp"
#include "host/results/svg_charts.hpp"

namespace caldera {

namespace {

using svg::escape;

constexpr size_t kMaxJobRows = 1000;

// GPU resources the "gpu" cards series stands for in the plots (the CSV keeps them all).
bool counted_as_gpu_cards(const std::string& res) {
  return res == "nvidia.com/gpu" || res == "volcano.sh/gpu-number" || res == "caldera.sh/gpu-milli";
}

std::string secs(double v) {
  v = tidy(v);
  return std::abs(v - std::round(v)) < 1e-9 ? fmt::format("{:.0f}s", v) : fmt::format("{:.1f}s", v);
}

std::string file_name(const std::string& path) {
  return path.empty() ? "-" : std::filesystem::path(path).filename().string();
}

std::vector<double> times(const RunResults& r) {
  std::vector<double> t;
  for (const auto& s : r.sessions) t.push_back(s.time);
  return t;
}

std::string counts_table(const RunResults& r) {
  const Summary m = summarize(r);
  auto cell = [](const std::string& k, const std::string& v) {
    return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", escape(k), escape(v));
  };
  auto time = [&](bool known, double v) { return known ? secs(v) : std::string("-"); };
  std::string s = "<table id=\"table-counts\" class=\"counts\">\n";
  s += cell("sessions", std::to_string(m.sessions));
  s += cell("binds", std::to_string(m.binds));
  s += cell("evictions", std::to_string(m.evictions));
  s += cell("unschedulable attempts", std::to_string(m.unschedulable));
  s += cell("pipelined", std::to_string(m.pipelined));
  s += cell("jobs arrived / started / finished",
            fmt::format("{} / {} / {} of {}", m.jobs_arrived, m.jobs_started, m.jobs_finished,
                        m.jobs_total));
  if (m.jobs_failed) s += cell("jobs failed", std::to_string(m.jobs_failed));
  s += cell("mean / max wait", time(m.jobs_started > 0, m.mean_wait) + " / " +
                                   time(m.jobs_started > 0, m.max_wait));
  s += cell("mean / max completion", time(m.jobs_finished > 0, m.mean_completion) + " / " +
                                         time(m.jobs_finished > 0, m.max_completion));
  s += "</table>\n";
  return s;
}

// Each queue's allocated share, and beside it (dashed, the same colour) the share the
// fair-share plugin said it deserved, when one reported.
std::string queue_share_plot(const RunResults& r) {
  svg::LineChart c;
  c.id = "plot-queue-share";
  c.title = r.deserved_reported ? "Queue share: allocated and deserved (dominant resource)"
                                : "Queue allocated share (dominant resource)";
  c.x_label = "time (s)";
  c.y_label = "share of the cluster";
  c.percent = true;
  c.x_end = r.end_time;
  const auto t = times(r);
  int k = 0;
  for (const auto& [name, q] : r.queues) {
    svg::Series se{name, t, {}, k};
    for (size_t s = 0; s < t.size(); ++s) se.y.push_back(r.dominant_share(q, s));
    c.series.push_back(std::move(se));
    if (r.deserved_reported) {
      svg::Series de{name + " deserved", t, {}, k, true};
      for (size_t s = 0; s < t.size(); ++s) de.y.push_back(r.deserved_share(q, s));
      c.series.push_back(std::move(de));
    }
    ++k;
  }
  return svg::line_chart(c);
}

std::string cluster_utilisation_plot(const RunResults& r) {
  svg::LineChart c;
  c.id = "plot-cluster-utilisation";
  c.title = "Cluster utilisation";
  c.x_label = "time (s)";
  c.y_label = "used / allocatable";
  c.percent = true;
  c.x_end = r.end_time;
  const auto t = times(r);
  const bool gpu = r.cluster_gpu_cards() > 0;
  for (size_t k = 0; k < r.resources.size(); ++k) {
    if (gpu && counted_as_gpu_cards(r.resources[k])) continue;
    double total = r.cluster_allocatable(k);
    if (total <= 0) continue;
    svg::Series se{r.resources[k], t, {}};
    for (size_t s = 0; s < t.size(); ++s) se.y.push_back(r.cluster_used(s, k) / total);
    c.series.push_back(std::move(se));
  }
  if (gpu) {
    svg::Series se{"gpu (cards)", t, {}};
    for (size_t s = 0; s < t.size(); ++s) se.y.push_back(r.cluster_gpu_used(s) / r.cluster_gpu_cards());
    c.series.push_back(std::move(se));
  }
  return svg::line_chart(c);
}

// One count per session on a chart of its own, so that each has a scale it shows on (a
// few evictions beside hundreds of binds would lie flat on one shared axis).
std::string session_count_plot(const RunResults& r, const std::string& what,
                               const std::string& title, int color,
                               size_t SessionRecord::*field) {
  svg::LineChart c;
  c.id = "plot-" + what;
  c.title = title;
  c.x_label = "time (s)";
  c.y_label = "tasks";
  c.step = false;
  c.markers = true;
  const auto t = times(r);
  svg::Series se{what, t, {}, color};
  for (const auto& s : r.sessions) se.y.push_back(static_cast<double>(s.*field));
  c.series = {std::move(se)};
  return svg::line_chart(c);
}

std::string job_times_plot(const RunResults& r) {
  svg::Timeline t;
  t.id = "plot-job-times";
  t.title = "Jobs: wait and run time";
  t.x_label = "time (s)";
  t.x_end = r.end_time;
  for (const auto& j : r.jobs) {
    svg::Span sp{j.key, j.arrival, j.started, j.has_failed() ? j.failed : j.finished,
                 j.has_failed(), {}};
    for (const JobEviction& e : j.evictions)
      sp.marks.push_back({e.time, e.reason,
                          fmt::format("{}: pod {} evicted by {} at {}", j.key, e.pod, e.reason,
                                      secs(e.time))});
    t.rows.push_back(std::move(sp));
  }
  return svg::timeline(t);
}

// One heatmap per resource: the nodes that have it, their utilisation over time.
std::string node_heatmap(const RunResults& r, const std::string& res) {
  svg::Heatmap h;
  h.id = "plot-node-utilisation-" + (res == kGpuCards ? std::string("gpu") : res);
  for (char& ch : h.id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-') ch = '-';
  h.title = fmt::format("Node utilisation: {}", res == kGpuCards ? "gpu (cards)" : res);
  h.x_label = "time (s)";
  h.value_label = "used";
  h.x = times(r);
  h.x_end = r.end_time;
  const size_t R = r.resources.size();
  size_t k = 0;
  while (k < R && r.resources[k] != res) ++k;
  for (const auto& [name, n] : r.nodes) {
    svg::HeatRow row{name, {}};
    if (res == kGpuCards) {
      if (n.gpu_cards <= 0) continue;
      for (size_t s = 0; s < h.x.size(); ++s) row.v.push_back(n.gpu_used[s] / n.gpu_cards);
    } else {
      if (k == R || n.allocatable[k] <= 0) continue;
      for (size_t s = 0; s < h.x.size(); ++s) row.v.push_back(n.used[s * R + k] / n.allocatable[k]);
    }
    h.rows.push_back(std::move(row));
  }
  if (h.rows.empty()) return "";
  return svg::heatmap(h);
}

// Wait (arrival to start) percentiles per queue, over the jobs that started.
std::string wait_table(const RunResults& r) {
  std::string s =
      "<table id=\"table-wait\" class=\"wait\">\n<tr><th class=\"name\">queue</th><th>jobs "
      "started</th><th>p50</th><th>p95</th><th>p99</th><th>max</th></tr>\n";
  for (const auto& [queue, p] : wait_percentiles(r)) {
    auto cell = [&](double v) { return p.started ? secs(v) : std::string("-"); };
    s += fmt::format(
        "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        escape(queue), p.started, cell(p.p50), cell(p.p95), cell(p.p99), cell(p.max));
  }
  s += "</table>\n";
  return s;
}

std::string jobs_table(const RunResults& r) {
  auto t = [](bool known, double v) { return known ? secs(v) : std::string("-"); };
  std::string s =
      "<table id=\"table-jobs\" class=\"jobs\">\n<tr><th class=\"name\">job</th><th class=\"name\">queue</th><th>pods</th>"
      "<th>arrival</th><th>started</th><th>finished</th><th>wait</th><th>completion</th></tr>\n";
  size_t n = 0;
  for (const auto& j : r.jobs) {
    if (n++ == kMaxJobRows) break;
    s += fmt::format(
        "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
        escape(j.key), escape(j.queue), j.pods, secs(j.arrival), t(j.has_started(), j.started),
        j.has_failed() ? "failed " + secs(j.failed) : t(j.has_finished(), j.finished),
        t(j.has_started(), j.wait()),
        t(j.has_finished(), j.completion()));
  }
  s += "</table>\n";
  if (r.jobs.size() > kMaxJobRows)
    s += fmt::format("<p class=\"note\">{} more jobs are in jobs.csv.</p>\n", r.jobs.size() - kMaxJobRows);
  return s;
}

const char* kStyle = R"(
body { font-family: sans-serif; margin: 16px 24px; color: #222; background: #fafafa; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 18px 0 8px; }
p.meta, p.note, footer { color: #555; font-size: 13px; }
.grid { display: grid; grid-template-columns: repeat(2, minmax(0, 600px)); gap: 12px; }
figure { margin: 0; background: white; border: 1px solid #ddd; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { font-size: 12px; color: #555; padding: 4px 8px 8px; }
table { border-collapse: collapse; background: white; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f0f0f0; }
table.counts th { text-align: left; }
td.name, th.name { text-align: left; }
)";

}  // namespace

std::string html_report(const RunResults& r) {
  std::string plots;
  auto figure = [&](const std::string& svg, const std::string& caption) {
    if (svg.empty()) return;
    plots += "<figure>\n" + svg + "<figcaption>" + escape(caption) + "</figcaption>\n</figure>\n";
  };
  std::string dims;
  for (const auto& res : r.resources) dims += (dims.empty() ? "" : ", ") + res;
  figure(queue_share_plot(r),
         "Each queue's largest share of the cluster over the resources (" + dims +
             "): what its bound and running pods request / the cluster's allocatable." +
             (r.deserved_reported
                  ? " Dashed, in the queue's colour: the largest share of what the fair-share "
                    "plugin worked out it deserved in that session (0 while it has no jobs)."
                  : ""));
  figure(cluster_utilisation_plot(r),
         "What the pods on all nodes request / the nodes' allocatable; gpu counts whole cards "
         "and shares of cards.");
  figure(job_times_plot(r),
         "Per job: waiting from arrival until the gang became ready (min_member pods running), "
         "then running until every pod finished; a triangle where one of its pods was "
         "evicted, coloured by the action that evicted it.");
  figure(session_count_plot(r, "binds", "Binds per session", 0, &SessionRecord::binds),
         "Tasks bound in each session.");
  figure(session_count_plot(r, "evictions", "Evictions per session", 2, &SessionRecord::evictions),
         "Tasks evicted in each session (preempt, reclaim, shuffle).");
  figure(session_count_plot(r, "unschedulable", "Tasks left unschedulable per session", 1,
                            &SessionRecord::unschedulable),
         "Tasks each session left pending (unschedulable).");
  std::vector<std::string> heat = {kCpu, kMemory};
  if (r.cluster_gpu_cards() > 0) heat.push_back(kGpuCards);
  for (const auto& res : heat)
    figure(node_heatmap(r, res), "Each node's " + res + " requested by its pods / its allocatable.");

  const Summary m = summarize(r);
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>Caldera run: {0}</title>\n<style>{1}</style>\n</head>\n<body>\n"
      "<h1>Caldera run: {0}</h1>\n"
      "<p class=\"meta\">config {2} &middot; cluster {3} &middot; workload {0} &middot; period {4} "
      "&middot; {5} session{12} up to t={6} &middot; {7} nodes, {8} queues</p>\n"
      "<h2>Counts</h2>\n{9}"
      "<h2>Wait by queue</h2>\n{13}"
      "<h2>Plots</h2>\n<div class=\"grid\">\n{10}</div>\n"
      "<h2>Jobs</h2>\n{11}"
      "<footer><p>Samples are taken after each session and hold until the next. Wait = started "
      "- arrival, completion = finished - arrival. The same numbers are in results.json and the "
      "CSV files beside this page (docs/RESULTS.md).</p></footer>\n"
      "</body>\n</html>\n",
      escape(file_name(r.workload)), kStyle, escape(file_name(r.config)),
      escape(file_name(r.cluster)), secs(r.period), m.sessions, secs(r.end_time), r.nodes.size(),
      r.queues.size(), counts_table(r), plots, jobs_table(r), m.sessions == 1 ? "" : "s",
      wait_table(r));
}

}  // namespace caldera
