// The arithmetic of the tdm (time-division multiplexing) plugin, free of the ABI so that
// unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/tdm/tdm.go: parseRevocableZone and
// availableRevocableZone (is a revocable zone's time window active now), getMaxPodEvictNum
// and parseIntStr (how many of a job's tasks one eviction round may take, from the job's
// disruption budget), maxVictims.
//
// Time of day. Volcano reads the wall clock in the scheduler's local time zone. Caldera
// reads Session::now(), seconds on the session clock (the scenario or simulated clock, or
// Unix time with the wall-clock backend), and takes the time of day as those seconds
// modulo 86400, truncated to whole seconds: seconds since midnight UTC of the clock value.
// A scenario therefore starts at 00:00:00 and its n-th session (counting from 0) runs at
// n * period.
//
// A window "HH:MM-HH:MM" is active from its start through its end inclusive, to the second
// (Volcano compares Unix seconds with `<` and `>`). A start later than the end wraps past
// midnight ("21:00-06:00" is active from 21:00 to 24:00 and from 00:00 to 06:00); equal
// start and end is active all day. (Volcano builds a wrapping window's end on the next day
// but always its start on the current one, so its window is in fact only active from the
// start to midnight; Caldera implements the window as written.)
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace caldera::tdm {

inline constexpr double kSecondsPerDay = 86400;

// A revocable zone's daily window, in minutes since midnight.
struct Window {
  int start = 0;
  int end = 0;
};

// Go's time.Parse with layout "15:04": an hour of one or two digits (0-23), ':', a minute
// of exactly two digits (00-59), nothing else. Returns minutes since midnight.
inline std::optional<int> parse_clock(std::string_view s) {
  const size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 2) return std::nullopt;
  if (s.size() != colon + 3) return std::nullopt;
  int h = 0;
  for (size_t i = 0; i < colon; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    h = h * 10 + (s[i] - '0');
  }
  const char m1 = s[colon + 1], m2 = s[colon + 2];
  if (m1 < '0' || m1 > '9' || m2 < '0' || m2 > '9') return std::nullopt;
  const int m = (m1 - '0') * 10 + (m2 - '0');
  if (h > 23 || m > 59) return std::nullopt;
  return h * 60 + m;
}

// parseRevocableZone: "HH:MM-HH:MM" after trimming surrounding blanks (Volcano trims the
// whole value, not the parts). On failure returns nothing and sets *why.
inline std::optional<Window> parse_window(std::string_view raw, std::string* why = nullptr) {
  const char* ws = " \t\r\n";
  const size_t b = raw.find_first_not_of(ws);
  const size_t e = raw.find_last_not_of(ws);
  const std::string_view s = b == std::string_view::npos ? std::string_view() : raw.substr(b, e - b + 1);
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos || s.find('-', dash + 1) != std::string_view::npos) {
    if (why) *why = "must be two times joined by '-', such as \"10:00-21:00\"";
    return std::nullopt;
  }
  auto start = parse_clock(s.substr(0, dash));
  auto end = parse_clock(s.substr(dash + 1));
  if (!start || !end) {
    if (why) *why = "times must be written HH:MM (00:00 to 23:59), such as \"10:00-21:00\"";
    return std::nullopt;
  }
  return Window{*start, *end};
}

// Seconds since midnight of a session-clock value (see the top of this file).
inline int64_t time_of_day(double now) {
  double t = std::fmod(std::floor(now), kSecondsPerDay);
  if (t < 0) t += kSecondsPerDay;
  return static_cast<int64_t>(t);
}

// availableRevocableZone for a parsed window.
inline bool window_active(const Window& w, double now) {
  const int64_t t = time_of_day(now);
  const int64_t start = int64_t{w.start} * 60, end = int64_t{w.end} * 60;
  if (w.start < w.end) return t >= start && t <= end;
  return t >= start || t <= end;  // wraps past midnight, or the whole day
}

// parseIntStr: an integer ("2"), or a percentage of the job's task count rounded up
// ("50%"); anything else reads as 0 (Volcano logs it and uses 0).
inline int parse_int_or_percent(std::string_view s, int task_num) {
  auto digits = [](std::string_view d, int* out) {
    if (d.empty() || d.size() > 9) return false;
    size_t i = 0;
    bool neg = false;
    if (d[0] == '-' || d[0] == '+') {
      neg = d[0] == '-';
      i = 1;
      if (d.size() == 1) return false;
    }
    int v = 0;
    for (; i < d.size(); ++i) {
      if (d[i] < '0' || d[i] > '9') return false;
      v = v * 10 + (d[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
  };
  int v = 0;
  if (digits(s, &v)) return v;  // intstr.Parse: an int when strconv.Atoi accepts it
  if (s.size() >= 2 && s.back() == '%' && digits(s.substr(0, s.size() - 1), &v))
    return static_cast<int>(std::ceil(static_cast<double>(v) * task_num / 100.0));
  return 0;
}

// A job's disruption budget (PodGroup annotations volcano.sh/jdb-min-available and
// volcano.sh/jdb-max-unavailable; min-available wins when both are set, as extractBudget
// reads it) and the counts getMaxPodEvictNum needs.
struct BudgetInput {
  std::optional<std::string> min_available;
  std::optional<std::string> max_unavailable;
  int tasks = 0;    // every task of the job
  int running = 0;  // tasks Running
  int final = 0;    // tasks Succeeded or Failed
};

// The default when the job sets no budget (Volcano's defaultPodEvictNum).
inline constexpr int kDefaultPodEvictNum = 1;

// getMaxPodEvictNum: with max-unavailable, what is left of it after the tasks that are
// already neither running nor finished; with min-available, the running tasks above it;
// otherwise one.
inline int max_pod_evict_num(const BudgetInput& b) {
  if (!b.min_available && b.max_unavailable && !b.max_unavailable->empty()) {
    const int max_unavailable = parse_int_or_percent(*b.max_unavailable, b.tasks);
    const int real_unavailable = b.tasks - b.final - b.running;
    if (real_unavailable >= max_unavailable) return 0;
    return max_unavailable - real_unavailable;
  }
  if (b.min_available && !b.min_available->empty()) {
    const int min_available = parse_int_or_percent(*b.min_available, b.tasks);
    if (b.running >= min_available) return b.running - min_available;
  }
  return kDefaultPodEvictNum;
}

}  // namespace caldera::tdm
