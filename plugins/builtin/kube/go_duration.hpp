// Go's time.Duration for the plugins that read durations Volcano parses with
// time.ParseDuration (sla's waiting time, cdp's cooldown time): whole nanoseconds, as Go
// counts them, so that times equal on paper compare equal with no floating error.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace caldera::go {

using Nanos = int64_t;

inline constexpr Nanos kNanosPerSecond = 1000000000;
inline constexpr Nanos kMaxNanos = std::numeric_limits<Nanos>::max();
inline constexpr Nanos kMinNanos = std::numeric_limits<Nanos>::min();

// Seconds on the session clock to nanoseconds, rounded to the nearest; saturates at the
// int64 range (Go's time arithmetic saturates the same way) and maps NaN to 0.
inline Nanos to_nanos(double seconds) {
  if (std::isnan(seconds)) return 0;
  const double ns = seconds * 1e9;
  if (ns >= 9.2e18) return kMaxNanos;
  if (ns <= -9.2e18) return kMinNanos;
  return static_cast<Nanos>(std::llround(ns));
}

// a + b without overflow (a deadline far in the future stays "far in the future").
inline Nanos add_saturating(Nanos a, Nanos b) {
  if (b > 0 && a > kMaxNanos - b) return kMaxNanos;
  if (b < 0 && a < kMinNanos - b) return kMinNanos;
  return a + b;
}

// The result of parse_go_duration: a value, or Go's error text.
struct ParsedDuration {
  std::optional<Nanos> value;
  std::string error;  // set when value is empty: "time: invalid duration \"3x\"", ...
};

// Go's time.ParseDuration, exactly: a possibly signed sequence of decimal numbers, each
// with an optional fraction and a unit ("ns", "us", "µs", "μs", "ms", "s", "m", "h"), such
// as "300ms", "-1.5h" or "2h45m"; "0" alone needs no unit. Volcano reads durations in
// annotations with it (sla's waiting time, cdp's cooldown), so a value Volcano refuses is
// refused here too.
inline ParsedDuration parse_go_duration(std::string_view orig) {
  const std::string quoted = "\"" + std::string(orig) + "\"";
  auto fail = [&](const std::string& what) {
    return ParsedDuration{std::nullopt, "time: " + what + " " + quoted};
  };
  std::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return ParsedDuration{Nanos{0}, {}};
  if (s.empty()) return fail("invalid duration");

  constexpr uint64_t kLimit = uint64_t{1} << 63;  // |d| may reach 2^63 only when negative
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  uint64_t d = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0]))) return fail("invalid duration");
    // Integer part (Go's leadingInt: overflow is an error).
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (v > kLimit / 10) return fail("invalid duration");
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      if (v > kLimit) return fail("invalid duration");
    }
    const bool pre = i > 0;
    s.remove_prefix(i);
    // Fraction (Go's leadingFraction: digits past what fits are read and dropped).
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      size_t k = 0;
      for (; k < s.size() && is_digit(s[k]); ++k) {
        if (overflow) continue;
        if (f > (kLimit - 1) / 10) {
          overflow = true;
          continue;
        }
        const uint64_t y = f * 10 + static_cast<uint64_t>(s[k] - '0');
        if (y > kLimit) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = k > 0;
      s.remove_prefix(k);
    }
    if (!pre && !post) return fail("invalid duration");  // "." or ".s"
    // Unit: everything up to the next digit or dot.
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !is_digit(s[u])) ++u;
    if (u == 0) return fail("missing unit in duration");
    const std::string_view unit_name = s.substr(0, u);
    s.remove_prefix(u);
    uint64_t unit = 0;
    if (unit_name == "ns")
      unit = 1;
    else if (unit_name == "us" || unit_name == "\xC2\xB5s" || unit_name == "\xCE\xBCs")
      unit = 1000;  // "µs" as U+00B5 (micro sign) or U+03BC (Greek mu)
    else if (unit_name == "ms")
      unit = 1000000;
    else if (unit_name == "s")
      unit = 1000000000ull;
    else if (unit_name == "m")
      unit = 60ull * 1000000000ull;
    else if (unit_name == "h")
      unit = 3600ull * 1000000000ull;
    else
      return ParsedDuration{std::nullopt, "time: unknown unit \"" + std::string(unit_name) +
                                              "\" in duration " + quoted};
    if (v > kLimit / unit) return fail("invalid duration");
    v *= unit;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) *
                                 (static_cast<double>(unit) / scale));
      if (v > kLimit) return fail("invalid duration");
    }
    d += v;
    if (d > kLimit) return fail("invalid duration");
  }
  if (neg) return ParsedDuration{d == kLimit ? kMinNanos : -static_cast<Nanos>(d), {}};
  if (d > kLimit - 1) return fail("invalid duration");
  return ParsedDuration{static_cast<Nanos>(d), {}};
}

}  // namespace caldera::go
