// Prometheus metrics kept in the process and written in the text exposition format (0.0.4),
// the format volcano-scheduler's /metrics serves. Families are declared once with their
// label names; samples are set from the scheduling thread and read by the HTTP server's
// threads, so every call takes one lock (a few per session: nothing on a hot path).
//
// Why not a client library: prometheus-cpp is not in Debian 12, and what the scheduler
// needs (counters, gauges, histograms with fixed buckets, labels) is this file.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace caldera::metrics {

enum class Kind { Counter, Gauge, Histogram };

// client_golang's ExponentialBucketsRange: `count` bounds from `min` to `max`, each the last
// times a constant factor.
std::vector<double> exponential_buckets_range(double min, double max, int count);

// A number as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it, with "+Inf", "-Inf" and
// "NaN": what client_golang prints for values and bucket bounds.
std::string format_value(double v);

class Registry {
 public:
  using Labels = std::vector<std::string>;  // values, in the order of the label names

  // Declares a family; a second declaration of a name is a programming error (throws
  // std::logic_error), as is a histogram without buckets.
  void declare(const std::string& name, Kind kind, const std::string& help,
               std::vector<std::string> label_names = {}, std::vector<double> buckets = {});

  // Counter: adds `v` (>= 0). Gauge: sets. Histogram: records one observation. Calling
  // the wrong one for a family, an undeclared name or the wrong number of label values
  // throws std::logic_error.
  void add(std::string_view name, const Labels& labels, double v);
  void set(std::string_view name, const Labels& labels, double v);
  void observe(std::string_view name, const Labels& labels, double v);

  // Gauge: replaces every series of the family by `values` at once (a scrape sees the old
  // set or the new one, never a mix).
  void set_all(std::string_view name, std::map<Labels, double> values);

  // Drops one series (a job's gauges once the job is gone) or every series of a family.
  void remove(std::string_view name, const Labels& labels);
  void clear(std::string_view name);

  // A series' value (counter or gauge), or its count of observations (histogram); 0 when
  // the series does not exist. For tests and the status page.
  double value(std::string_view name, const Labels& labels) const;

  // Every family in name order, each with # HELP and # TYPE; a family without series and
  // without labels shows its zero value, as client_golang does.
  std::string text() const;

 private:
  struct Series {
    double value = 0;              // counter or gauge; histogram: sum
    uint64_t count = 0;            // histogram
    std::vector<uint64_t> bucket;  // histogram, per bound (not cumulative)
  };
  struct Family {
    Kind kind;
    std::string help;
    std::vector<std::string> label_names;
    std::vector<double> buckets;
    std::map<Labels, Series> series;
  };
  Family& family(std::string_view name, Kind kind, const Labels& labels);

  mutable std::mutex mu_;
  std::map<std::string, Family, std::less<>> families_;
};

}  // namespace caldera::metrics
