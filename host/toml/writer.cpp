#include "host/toml/writer.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace caldera::toml_out {

std::string key(std::string_view k) {
  bool bare = !k.empty();
  for (char c : k)
    bare = bare && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-');
  return bare ? std::string(k) : string(k);
}

std::string string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (u < 0x20 || u == 0x7f) out += fmt::format("\\u{:04X}", u);
    else out += c;
  }
  return out + "\"";
}

std::string number(double v) {
  if (std::isfinite(v) && std::fabs(v) < 9007199254740992.0 && v == std::floor(v))
    return fmt::format("{}", static_cast<long long>(v));
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // TOML floats need a fraction or an exponent; to_chars may give neither ("1e+20" has one).
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string inline_table(const std::vector<std::pair<std::string, std::string>>& entries) {
  if (entries.empty()) return "{}";
  std::string out = "{ ";
  for (size_t i = 0; i < entries.size(); ++i)
    out += (i ? ", " : "") + key(entries[i].first) + " = " + entries[i].second;
  return out + " }";
}

std::string array(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + values[i];
  return out + "]";
}

}  // namespace caldera::toml_out
