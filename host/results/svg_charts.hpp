// Plots as inline SVG, drawn by our own code so a report is one file that needs nothing
// from the network: step and line charts with axes, grid and legend; heatmaps (one row per
// node); and timelines (one row per job). Each chart is an <svg class="plot" id=...> whose
// data are <path class="series" data-name=...> (lines), <rect class="cell"> (heatmaps) and
// <rect class="run"> / <line class="wait"> / <path class="mark"> (timelines), so a test can
// find them.
//
// Long series are thinned to what the pixels can show: a step chart keeps only the
// changes, and within one pixel column only the first, lowest, highest and last values.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace caldera::svg {

std::string escape(const std::string& s);  // for text and attribute values
const char* color(size_t i);                // a palette of 10 distinct colours, cycling

struct Series {
  std::string name;
  std::vector<double> x, y;
  int color = -1;       // palette index; -1: the series' position
  bool dashed = false;  // a reference line (a queue's deserved share beside its allocated)
};

struct LineChart {
  std::string id, title, x_label, y_label;
  bool step = true;      // the value holds until the next x (state sampled after events)
  bool markers = false;  // a dot on each point (when there are few)
  bool percent = false;  // y is a fraction, labelled in %
  double y_max = 0;      // 0: from the data
  double x_end = 0;      // the last value holds until here (step charts); 0: last x
  std::vector<Series> series;
};
std::string line_chart(const LineChart& c);

struct HeatRow {
  std::string name;
  std::vector<double> v;  // per x, a fraction 0..1
};
struct Heatmap {
  std::string id, title, x_label, value_label;
  std::vector<double> x;  // sample times; sample i holds from x[i] to x[i+1] (x_end last)
  double x_end = 0;
  std::vector<HeatRow> rows;
  size_t max_rows = 120;  // further rows are left out, with a note saying how many
};
std::string heatmap(const Heatmap& h);

// An event on a job's row: a pod of it evicted, by `kind` (the evicting action).
struct Mark {
  double t = 0;
  std::string kind;  // "preempt", "reclaim", ...: the legend groups marks by kind
  std::string tip;   // the tooltip
};
struct Span {
  std::string name;
  double arrival = 0;
  double start = -1;    // -1: never started
  double end = -1;      // when it finished or failed; -1: neither yet
  bool failed = false;  // `end` is when it failed
  std::vector<Mark> marks;
};
struct Timeline {
  std::string id, title, x_label;
  double x_end = 0;
  std::vector<Span> rows;
  size_t max_rows = 150;
};
std::string timeline(const Timeline& t);

// Axis ticks at 1, 2 or 5 times a power of ten covering [lo, hi], about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

}  // namespace caldera::svg
