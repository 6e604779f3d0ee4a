// Kubernetes quantities ("2", "500m", "4Gi", "1.5", "1e3") for plugins that read them from
// annotations, in Caldera's units (caldera/plugin.h convention (1)): cpu in millicores,
// memory in bytes, pods as a count, any other resource in milli-units, as Volcano's
// NewResource counts a ResourceList.
#pragma once

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace caldera::kube {

// resource.ParseQuantity's grammar: a signed decimal number, then a binary suffix (Ki Mi Gi
// Ti Pi Ei), a decimal one (m k M G T P E) or an exponent (e3, E-2). nullopt otherwise.
inline std::optional<double> parse_quantity(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const size_t digits_from = i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == digits_from) return std::nullopt;
  const std::string number(s.substr(0, i));
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) return std::nullopt;
  const std::string_view suffix = s.substr(i);
  struct Unit { std::string_view name; double factor; };
  static constexpr Unit kUnits[] = {
      {"", 1},         {"m", 1e-3},     {"k", 1e3},      {"M", 1e6},      {"G", 1e9},
      {"T", 1e12},     {"P", 1e15},     {"E", 1e18},     {"Ki", 1024.0},  {"Mi", 1048576.0},
      {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0},
      {"Ei", 1152921504606846976.0}};
  for (const Unit& u : kUnits)
    if (suffix == u.name) return v * u.factor;
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    const std::string exp(suffix.substr(1));
    char* e_end = nullptr;
    const long e = std::strtol(exp.c_str(), &e_end, 10);
    if (e_end == exp.c_str() + exp.size()) return v * std::pow(10.0, static_cast<double>(e));
  }
  return std::nullopt;
}

// The amount in the units of the named resource.
inline double in_units(std::string_view resource, double plain) {
  if (resource == "memory" || resource == "pods") return plain;
  return plain * 1000;  // cpu in millicores, scalars in milli-units
}

}  // namespace caldera::kube
