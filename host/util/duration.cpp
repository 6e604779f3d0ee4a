#include "host/util/duration.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace caldera {

// Go's time.ParseDuration grammar (a sequence of decimal numbers, each with an optional
// fraction and a unit: ns, us, µs, ms, s, m, h), plus a bare number meaning seconds, as
// Volcano's durations are written ("sla-waiting-time": "1h2m3s"). Negative durations are
// refused: nothing in a scheduler config can mean one.
std::optional<double> parse_duration(const std::string& s) {
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  if (s[0] == '+') i = 1;
  // A bare number ("2", "0.5"): seconds.
  {
    std::string_view rest(s.c_str() + i);
    bool digit = false;
    int dots = 0;
    bool plain = !rest.empty();
    for (char c : rest) {
      if (std::isdigit(static_cast<unsigned char>(c)))
        digit = true;
      else if (c == '.')
        ++dots;
      else
        plain = false;
    }
    if (plain && digit && dots <= 1) return std::strtod(std::string(rest).c_str(), nullptr);
  }
  if (i >= s.size()) return std::nullopt;
  double total = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    bool int_digits = i > start;
    bool frac_digits = false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      size_t fs_ = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      frac_digits = i > fs_;
    }
    if (!int_digits && !frac_digits) return std::nullopt;
    double num = std::strtod(s.substr(start, i - start).c_str(), nullptr);
    size_t us = i;
    while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != '.') ++i;
    std::string unit = s.substr(us, i - us);
    double scale;
    if (unit == "ns")
      scale = 1e-9;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs")
      scale = 1e-6;
    else if (unit == "ms")
      scale = 1e-3;
    else if (unit == "s")
      scale = 1;
    else if (unit == "m")
      scale = 60;
    else if (unit == "h")
      scale = 3600;
    else
      return std::nullopt;  // missing or unknown unit
    total += num * scale;
  }
  if (!std::isfinite(total)) return std::nullopt;
  return total;
}

}  // namespace caldera
