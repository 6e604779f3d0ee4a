#include "host/results/svg_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace caldera::svg {

namespace {

// Plot area inside margins, and the data ranges it maps.
struct Box {
  double W, H, L, R, T, B;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  double X(double v) const { return L + (x1 > x0 ? (v - x0) / (x1 - x0) : 0) * (W - L - R); }
  double Y(double v) const { return H - B - (y1 > y0 ? (v - y0) / (y1 - y0) : 0) * (H - T - B); }
};

std::string label(double v, bool percent) {
  if (percent) v *= 100;
  if (std::abs(v) < 1e-12) v = 0;  // never "-0"
  double r = std::round(v);
  std::string s = std::abs(v - r) < 1e-9 ? fmt::format("{:.0f}", r) : fmt::format("{:.3g}", v);
  return percent ? s + "%" : s;
}

std::string open_svg(const std::string& id, const std::string& title, double W, double H) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{0}\" class=\"plot\" width=\"{1}\" "
      "height=\"{2}\" viewBox=\"0 0 {1} {2}\" role=\"img\" aria-labelledby=\"{0}-title\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<title id=\"{0}-title\">{3}</title>\n"
      "<rect width=\"{1}\" height=\"{2}\" fill=\"white\"/>\n"
      "<text class=\"plot-title\" x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{3}</text>\n",
      escape(id), W, H, escape(title));
}

void x_axis(std::string& s, const Box& b, const std::string& name) {
  for (double v : nice_ticks(b.x0, b.x1)) {
    double x = b.X(v);
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e4e4e4\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        x, b.T, b.H - b.B, b.H - b.B + 14, label(v, false));
  }
  s += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#555\"/>\n"
      "<text class=\"axis-label\" x=\"{3:.1f}\" y=\"{4}\" text-anchor=\"middle\">{5}</text>\n",
      b.L, b.H - b.B, b.W - b.R, (b.L + b.W - b.R) / 2, b.H - 12, escape(name));
}

void y_axis(std::string& s, const Box& b, const std::string& name, bool percent) {
  for (double v : nice_ticks(b.y0, b.y1, 5)) {
    double y = b.Y(v);
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        b.L, y, b.W - b.R, b.L - 6, y + 4, label(v, percent));
  }
  s += fmt::format(
      "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#555\"/>\n"
      "<text class=\"axis-label\" transform=\"translate(14 {3:.1f}) rotate(-90)\" "
      "text-anchor=\"middle\">{4}</text>\n",
      b.L, b.T, b.H - b.B, (b.T + b.H - b.B) / 2, escape(name));
}

struct Pt {
  double x, y;
};

// Keeps, of the points falling in one pixel column, the first, lowest, highest and last:
// the drawn line looks the same and the path stays as long as the plot is wide.
std::vector<Pt> thin(const std::vector<Pt>& in) {
  std::vector<Pt> out;
  size_t i = 0;
  while (i < in.size()) {
    size_t j = i, lo = i, hi = i;
    while (j + 1 < in.size() && in[j + 1].x - in[i].x < 1.0) {
      ++j;
      if (in[j].y < in[lo].y) lo = j;
      if (in[j].y > in[hi].y) hi = j;
    }
    out.push_back(in[i]);
    // The extremes only where they reach beyond the first and last, in their order.
    const double first = in[i].y, last = in[j].y;
    size_t a = std::min(lo, hi), b = std::max(lo, hi);
    for (size_t k : {a, b})
      if (k != i && k != j && (in[k].y < std::min(first, last) || in[k].y > std::max(first, last)))
        out.push_back({in[i].x, in[k].y});
    if (j > i && out.back().y != last) out.push_back({in[i].x, last});
    i = j + 1;
  }
  return out;
}

std::string path_d(const std::vector<Pt>& pts) {
  std::string d;
  for (size_t i = 0; i < pts.size(); ++i)
    d += fmt::format("{}{:.1f},{:.1f}", i == 0 ? "M" : " L", pts[i].x, pts[i].y);
  return d;
}

// Colour of a fraction 0..1 on a light-to-dark blue scale.
std::string heat_color(double v) {
  v = std::clamp(v, 0.0, 1.0);
  const double stops[3][3] = {{238, 243, 248}, {107, 174, 214}, {8, 48, 107}};
  int k = v < 0.5 ? 0 : 1;
  double t = (v - k * 0.5) / 0.5;
  int c[3];
  for (int i = 0; i < 3; ++i)
    c[i] = static_cast<int>(std::round(stops[k][i] + (stops[k + 1][i] - stops[k][i]) * t));
  return fmt::format("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
}

// Long names are cut for legends and row labels (the full name is in the tooltip).
std::string shorten(const std::string& name, size_t n) {
  return name.size() <= n ? name : name.substr(0, n - 1) + "\u2026";
}

std::string seconds(double t) { return fmt::format("{:g}s", std::round(t * 1000) / 1000); }

}  // namespace

std::string escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

const char* color(size_t i) {
  // Tableau 10: distinct in print and for the common colour-vision deficiencies.
  static const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                         "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kPalette[i % 10];
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  double raw = (hi - lo) / std::max(1, target);
  int exp = static_cast<int>(std::floor(std::log10(raw)));
  double mag = std::pow(10.0, exp);
  double m = 10;
  for (double c : {1.0, 2.0, 5.0, 10.0})
    if (c * mag >= raw * (1 - 1e-9)) {
      m = c;
      break;
    }
  // Tick i is i * m * 10^exp, computed as a division for negative exponents so that 0.6
  // prints as 0.6 and not 0.6000000000000001.
  auto tick = [&](double i) { return exp < 0 ? i * m / std::pow(10.0, -exp) : i * m * mag; };
  double step = m * mag;
  for (double i = std::ceil(lo / step - 1e-9) + 0.0; tick(i) <= hi + step * 1e-9; ++i)
    out.push_back(tick(i) + 0.0);  // + 0.0: never -0
  return out;
}

std::string line_chart(const LineChart& c) {
  const double legend_rows = static_cast<double>(c.series.size());
  Box b{600, std::max(300.0, 60 + 18 * legend_rows), 64, 150, 36, 46};
  double xmax = c.x_end, ymax = c.y_max, xmin = 0;
  bool any = false;
  for (const auto& s : c.series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!any) xmin = s.x[i];
      any = true;
      xmin = std::min(xmin, s.x[i]);
      xmax = std::max(xmax, s.x[i]);
      if (c.y_max <= 0) ymax = std::max(ymax, s.y[i]);
    }
  if (c.y_max <= 0) {
    if (c.percent)
      ymax = std::max(1.0, ymax);
    else {
      auto t = nice_ticks(0, std::max(1.0, ymax), 5);
      ymax = std::max(t.back(), ymax);
    }
  }
  b.x0 = std::min(0.0, xmin);
  b.x1 = xmax > b.x0 ? xmax : b.x0 + 1;
  b.y1 = ymax;
  std::string s = open_svg(c.id, c.title, b.W, b.H);
  x_axis(s, b, c.x_label);
  y_axis(s, b, c.y_label, c.percent);

  size_t points = 0;
  for (const auto& se : c.series) points += se.x.size();
  for (size_t k = 0; k < c.series.size(); ++k) {
    const Series& se = c.series[k];
    std::vector<Pt> pts;
    for (size_t i = 0; i < se.x.size(); ++i) {
      if (c.step && i > 0) {
        if (se.y[i] == se.y[i - 1]) continue;  // no change: the step goes on
        pts.push_back({b.X(se.x[i]), b.Y(se.y[i - 1])});
      }
      pts.push_back({b.X(se.x[i]), b.Y(se.y[i])});
    }
    if (c.step && !se.x.empty() && b.X(b.x1) > pts.back().x)
      pts.push_back({b.X(b.x1), pts.back().y});
    const char* col = color(se.color >= 0 ? static_cast<size_t>(se.color) : k);
    s += fmt::format(
        "<path class=\"series\" data-name=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "stroke-linejoin=\"round\"{} d=\"{}\"/>\n",
        escape(se.name), col, se.dashed ? " stroke-dasharray=\"6 4\"" : "", path_d(thin(pts)));
    if (c.markers && points <= 400)
      for (size_t i = 0; i < se.x.size(); ++i)
        s += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{} at {}: "
            "{}</title></circle>\n",
            b.X(se.x[i]), b.Y(se.y[i]), col, escape(se.name), seconds(se.x[i]),
            label(se.y[i], c.percent));
  }
  // Legend, right of the plot.
  for (size_t k = 0; k < c.series.size(); ++k) {
    double y = b.T + 8 + 18 * k;
    double x = b.W - b.R + 14;
    const Series& se = c.series[k];
    s += fmt::format(
        "<g class=\"legend-item\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
        "stroke=\"{3}\" stroke-width=\"3\"{7}/><text x=\"{4}\" y=\"{5}\">{6}</text></g>\n",
        x, y, x + 18, color(se.color >= 0 ? static_cast<size_t>(se.color) : k), x + 24, y + 4,
        escape(shorten(se.name, 20)), se.dashed ? " stroke-dasharray=\"5 3\"" : "");
  }
  s += "</svg>\n";
  return s;
}

std::string heatmap(const Heatmap& h) {
  const size_t shown = std::min(h.rows.size(), h.max_rows);
  const double plot_h = 300;
  const double rh = std::clamp(plot_h / std::max<size_t>(1, shown), 3.0, 18.0);
  const bool note = shown < h.rows.size();
  Box b{600, 36 + rh * shown + 46 + (note ? 14 : 0), 110, 70, 36, 46 + (note ? 14.0 : 0.0)};
  b.x0 = h.x.empty() ? 0 : std::min(0.0, h.x.front());
  b.x1 = std::max(h.x_end, h.x.empty() ? 1.0 : h.x.back());
  if (!(b.x1 > b.x0)) b.x1 = b.x0 + 1;
  std::string s = open_svg(h.id, h.title, b.W, b.H);
  x_axis(s, b, h.x_label);  // first: the cells cover the grid
  // Cells: one rect per run of samples whose colour is the same (values in steps of 5%).
  for (size_t r = 0; r < shown; ++r) {
    const auto& row = h.rows[r];
    for (size_t i = 0; i < row.v.size() && i < h.x.size();) {
      long level = std::lround(std::clamp(row.v[i], 0.0, 1.0) * 20);
      size_t j = i + 1;
      while (j < row.v.size() && j < h.x.size() &&
             std::lround(std::clamp(row.v[j], 0.0, 1.0) * 20) == level)
        ++j;
      double from = h.x[i], to = j < h.x.size() ? h.x[j] : b.x1;
      s += fmt::format(
          "<rect class=\"cell\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\"><title>{}: {:.0f}% from {} to {}</title></rect>\n",
          b.X(from), b.T + rh * r, std::max(0.5, b.X(to) - b.X(from)), rh,
          heat_color(level / 20.0), escape(row.name), row.v[i] * 100, seconds(from), seconds(to));
      i = j;
    }
    // Row labels: every row when they fit, else every k-th.
    size_t every = static_cast<size_t>(std::ceil(11.0 / rh));
    if (r % every == 0)
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"{:.0f}\">{}</text>\n",
                       b.L - 6, b.T + rh * r + rh / 2 + 4, std::min(11.0, std::max(rh, 9.0)),
                       escape(shorten(row.name, 16)));
  }
  // Colour scale, right of the cells.
  const double sx = b.W - b.R + 14, sy = b.T, sh = std::min(120.0, rh * shown);
  std::string gid = escape(h.id) + "-scale";
  s += fmt::format(
      "<defs><linearGradient id=\"{0}\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
      "<stop offset=\"0\" stop-color=\"{1}\"/><stop offset=\"0.5\" stop-color=\"{2}\"/>"
      "<stop offset=\"1\" stop-color=\"{3}\"/></linearGradient></defs>\n"
      "<g class=\"legend-item\"><rect x=\"{4}\" y=\"{5}\" width=\"12\" height=\"{6:.1f}\" "
      "fill=\"url(#{0})\" stroke=\"#999\"/>"
      "<text x=\"{7}\" y=\"{8}\">100%</text><text x=\"{7}\" y=\"{9:.1f}\">0%</text>"
      "<text x=\"{4}\" y=\"{10:.1f}\">{11}</text></g>\n",
      gid, heat_color(0), heat_color(0.5), heat_color(1), sx, sy, sh, sx + 16, sy + 9, sy + sh,
      sy + sh + 16, escape(h.value_label));
  if (note)
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" fill=\"#555\">{} more rows are in the CSV</text>\n",
                     b.L, b.H - 8, h.rows.size() - shown);
  s += "</svg>\n";
  return s;
}

std::string timeline(const Timeline& t) {
  const size_t shown = std::min(t.rows.size(), t.max_rows);
  const double rh = std::clamp(300.0 / std::max<size_t>(1, shown), 3.0, 16.0);
  const bool note = shown < t.rows.size();
  Box b{600, 56 + rh * shown + 46 + (note ? 14 : 0), 150, 20, 56, 46 + (note ? 14.0 : 0.0)};
  b.x0 = 0;
  b.x1 = t.x_end;
  for (size_t r = 0; r < shown; ++r) b.x1 = std::max({b.x1, t.rows[r].arrival, t.rows[r].end});
  if (!(b.x1 > b.x0)) b.x1 = b.x0 + 1;
  std::string s = open_svg(t.id, t.title, b.W, b.H);
  x_axis(s, b, t.x_label);
  const char* kWait = "#f28e2b";
  const char* kRun = "#4e79a7";
  const char* kRunning = "#a9c4e0";
  const char* kFailed = "#e15759";
  // Legend, under the title (and "failed" when some job did).
  s += fmt::format(
      "<g class=\"legend-item\"><line x1=\"150\" y1=\"34\" x2=\"168\" y2=\"34\" stroke=\"{0}\" "
      "stroke-width=\"3\"/><text x=\"172\" y=\"38\">waiting (arrival to start)</text></g>\n"
      "<g class=\"legend-item\"><rect x=\"320\" y=\"29\" width=\"18\" height=\"10\" fill=\"{1}\"/>"
      "<text x=\"342\" y=\"38\">running (start to finish)</text></g>\n"
      "<g class=\"legend-item\"><rect x=\"480\" y=\"29\" width=\"18\" height=\"10\" fill=\"{2}\"/>"
      "<text x=\"502\" y=\"38\">not finished</text></g>\n",
      kWait, kRun, kRunning);
  bool any_failed = false;
  for (size_t r = 0; r < shown; ++r) any_failed |= t.rows[r].failed;
  if (any_failed)
    s += fmt::format(
        "<g class=\"legend-item\"><rect x=\"480\" y=\"12\" width=\"18\" height=\"10\" "
        "fill=\"{}\"/><text x=\"502\" y=\"21\">failed</text></g>\n",
        kFailed);
  // Marks (evictions) by kind, each kind its colour, in a legend row of its own above the
  // others: a triangle pointing down at the moment on the job's row.
  std::vector<std::string> kinds;
  for (size_t r = 0; r < shown; ++r)
    for (const Mark& m : t.rows[r].marks)
      if (std::find(kinds.begin(), kinds.end(), m.kind) == kinds.end()) kinds.push_back(m.kind);
  std::sort(kinds.begin(), kinds.end());
  auto mark_color = [&](const std::string& kind) {
    // Preemption red, reclaim purple, anything else (shuffle) brown: fixed, so a reader
    // learns them once.
    if (kind == "preempt") return "#e15759";
    if (kind == "reclaim") return "#b07aa1";
    return "#9c755f";
  };
  auto triangle = [](double x, double y, double h) {
    return fmt::format("M{:.1f},{:.1f} l{:.1f},{:.1f} h{:.1f} z", x, y, -h * 0.6, -h, h * 1.2);
  };
  for (size_t k = 0; k < kinds.size(); ++k)
    s += fmt::format(
        "<g class=\"legend-item\"><path d=\"{}\" fill=\"{}\"/><text x=\"{:.0f}\" "
        "y=\"21\">evicted by {}</text></g>\n",
        triangle(256 + 115.0 * k, 21, 9), mark_color(kinds[k]), 266 + 115.0 * k, escape(kinds[k]));
  for (size_t r = 0; r < shown; ++r) {
    const Span& j = t.rows[r];
    double mid = b.T + rh * r + rh / 2;
    std::string tip = fmt::format("{}: arrived {}", j.name, seconds(j.arrival));
    if (j.start >= 0) tip += fmt::format(", started {} (waited {})", seconds(j.start), seconds(j.start - j.arrival));
    if (j.end >= 0 && j.failed)
      tip += fmt::format(", failed {}", seconds(j.end));
    else if (j.end >= 0)
      tip += fmt::format(", finished {} (completion {})", seconds(j.end),
                         seconds(j.end - j.arrival));
    // Waiting until the start, or until the failure of a job that never started; dashed to
    // the edge while it still waits.
    const bool still_waiting = j.start < 0 && j.end < 0;
    double wait_to = j.start >= 0 ? j.start : j.end >= 0 ? j.end : b.x1;
    s += fmt::format(
        "<line class=\"wait\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"{:.1f}\"{}><title>{}</title></line>\n",
        b.X(j.arrival), mid, std::max(b.X(wait_to), b.X(j.arrival) + 1), mid, kWait,
        std::max(1.0, rh * 0.3), still_waiting ? " stroke-dasharray=\"4 3\"" : "", escape(tip));
    if (j.start >= 0) {
      double to = j.end >= 0 ? j.end : b.x1;
      s += fmt::format(
          "<rect class=\"run\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\"><title>{}</title></rect>\n",
          b.X(j.start), b.T + rh * r + rh * 0.15, std::max(1.0, b.X(to) - b.X(j.start)), rh * 0.7,
          j.failed ? kFailed : j.end >= 0 ? kRun : kRunning, escape(tip));
    }
    for (const Mark& m : j.marks)
      s += fmt::format(
          "<path class=\"mark\" data-kind=\"{}\" d=\"{}\" fill=\"{}\" stroke=\"white\" "
          "stroke-width=\"0.5\"><title>{}</title></path>\n",
          escape(m.kind), triangle(b.X(m.t), mid, std::max(5.0, rh * 0.8)), mark_color(m.kind),
          escape(m.tip));
    size_t every = static_cast<size_t>(std::ceil(11.0 / rh));
    if (r % every == 0)
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", b.L - 6,
                       mid + 4, escape(shorten(j.name, 24)));
  }
  if (note)
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" fill=\"#555\">{} more jobs are in jobs.csv</text>\n",
                     b.L, b.H - 8, t.rows.size() - shown);
  s += "</svg>\n";
  return s;
}

}  // namespace caldera::svg
