#include "host/metrics/registry.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace caldera::metrics {

std::vector<double> exponential_buckets_range(double min, double max, int count) {
  if (count < 1 || !(min > 0) || !(max > min))
    throw std::logic_error("exponential_buckets_range: needs 0 < min < max and count >= 1");
  const double growth = std::pow(max / min, 1.0 / static_cast<double>(count - 1));
  std::vector<double> out(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) out[static_cast<size_t>(i)] = min * std::pow(growth, i);
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  // The shortest digits that read back as v, then Go's %g choice: exponent form when the
  // decimal exponent is below -4 or at least 6 (the shortest form's precision rule).
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<size_t>(r.ptr - buf));  // [-]d[.ddd]e[+-]xx
  const size_t e = sci.find('e');
  const bool negative = sci[0] == '-';
  std::string digits;
  for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0)))
    if (c != '.') digits += c;
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);
  std::string out = negative ? "-" : "";
  if (exp < -4 || exp >= 6) {
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02}", exp < 0 ? '-' : '+', std::abs(exp));
  } else if (exp < 0) {
    out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  } else {
    const auto point = static_cast<size_t>(exp + 1);
    if (digits.size() <= point) {
      out += digits + std::string(point - digits.size(), '0');
    } else {
      out += digits.substr(0, point) + "." + digits.substr(point);
    }
  }
  return out;
}

namespace {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Counter: return "counter";
    case Kind::Gauge: return "gauge";
    case Kind::Histogram: return "histogram";
  }
  return "untyped";
}

std::string escape(std::string_view s, bool quotes) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (quotes && c == '"') out += "\\\"";
    else out += c;
  }
  return out;
}

// {a="x",b="y"}, with `extra` (le="...") last; "" for no labels at all.
std::string label_text(const std::vector<std::string>& names, const Registry::Labels& values,
                       std::string_view extra = {}) {
  if (names.empty() && extra.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    out += names[i] + "=\"" + escape(values[i], true) + "\"";
  }
  if (!extra.empty()) {
    if (!names.empty()) out += ',';
    out += extra;
  }
  return out + "}";
}

}  // namespace

void Registry::declare(const std::string& name, Kind kind, const std::string& help,
                       std::vector<std::string> label_names, std::vector<double> buckets) {
  std::lock_guard lock(mu_);
  if (kind == Kind::Histogram && buckets.empty())
    throw std::logic_error("metric " + name + ": a histogram needs buckets");
  Family f{kind, help, std::move(label_names), std::move(buckets), {}};
  if (!families_.emplace(name, std::move(f)).second)
    throw std::logic_error("metric " + name + " declared twice");
}

Registry::Family& Registry::family(std::string_view name, Kind kind, const Labels& labels) {
  auto it = families_.find(name);
  if (it == families_.end()) throw std::logic_error(fmt::format("metric {} not declared", name));
  Family& f = it->second;
  if (f.kind != kind)
    throw std::logic_error(fmt::format("metric {} is a {}, not a {}", name, kind_name(f.kind),
                                       kind_name(kind)));
  if (labels.size() != f.label_names.size())
    throw std::logic_error(fmt::format("metric {}: {} label values for {} labels", name,
                                       labels.size(), f.label_names.size()));
  return f;
}

void Registry::add(std::string_view name, const Labels& labels, double v) {
  std::lock_guard lock(mu_);
  Family& f = family(name, Kind::Counter, labels);
  if (v < 0) throw std::logic_error(fmt::format("counter {} decreased", name));
  f.series[labels].value += v;
}

void Registry::set(std::string_view name, const Labels& labels, double v) {
  std::lock_guard lock(mu_);
  family(name, Kind::Gauge, labels).series[labels].value = v;
}

void Registry::set_all(std::string_view name, std::map<Labels, double> values) {
  std::lock_guard lock(mu_);
  auto it = families_.find(name);
  if (it == families_.end()) throw std::logic_error(fmt::format("metric {} not declared", name));
  Family& f = it->second;
  f.series.clear();
  for (auto& [labels, v] : values) family(name, Kind::Gauge, labels).series[labels].value = v;
}

void Registry::observe(std::string_view name, const Labels& labels, double v) {
  std::lock_guard lock(mu_);
  Family& f = family(name, Kind::Histogram, labels);
  Series& s = f.series[labels];
  if (s.bucket.empty()) s.bucket.assign(f.buckets.size(), 0);
  s.value += v;
  ++s.count;
  for (size_t i = 0; i < f.buckets.size(); ++i)
    if (v <= f.buckets[i]) {
      ++s.bucket[i];
      break;
    }
}

void Registry::remove(std::string_view name, const Labels& labels) {
  std::lock_guard lock(mu_);
  if (auto it = families_.find(name); it != families_.end()) it->second.series.erase(labels);
}

void Registry::clear(std::string_view name) {
  std::lock_guard lock(mu_);
  if (auto it = families_.find(name); it != families_.end()) it->second.series.clear();
}

double Registry::value(std::string_view name, const Labels& labels) const {
  std::lock_guard lock(mu_);
  auto it = families_.find(name);
  if (it == families_.end()) return 0;
  auto s = it->second.series.find(labels);
  if (s == it->second.series.end()) return 0;
  return it->second.kind == Kind::Histogram ? static_cast<double>(s->second.count)
                                            : s->second.value;
}

std::string Registry::text() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, f] : families_) {
    // A labelled family without series has nothing to show (client_golang's vectors);
    // one without labels shows its zero.
    if (f.series.empty() && !f.label_names.empty()) continue;
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape(f.help, false), name,
                       kind_name(f.kind));
    auto write = [&](const Labels& labels, const Series& s) {
      if (f.kind != Kind::Histogram) {
        out += fmt::format("{}{} {}\n", name, label_text(f.label_names, labels),
                           format_value(s.value));
        return;
      }
      uint64_t cumulative = 0;
      for (size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += s.bucket.empty() ? 0 : s.bucket[i];
        out += fmt::format("{}_bucket{} {}\n", name,
                           label_text(f.label_names, labels,
                                      "le=\"" + format_value(f.buckets[i]) + "\""),
                           cumulative);
      }
      out += fmt::format("{}_bucket{} {}\n", name,
                         label_text(f.label_names, labels, "le=\"+Inf\""), s.count);
      out += fmt::format("{}_sum{} {}\n", name, label_text(f.label_names, labels),
                         format_value(s.value));
      out += fmt::format("{}_count{} {}\n", name, label_text(f.label_names, labels), s.count);
    };
    if (f.series.empty())
      write({}, Series{});
    else
      for (const auto& [labels, s] : f.series) write(labels, s);
  }
  return out;
}

}  // namespace caldera::metrics
