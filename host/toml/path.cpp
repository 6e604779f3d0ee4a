#include "host/toml/path.hpp"

#include <cctype>

#include <fmt/format.h>

namespace caldera::input {

std::string key_text(std::string_view key) {
  bool bare = !key.empty();
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') bare = false;
  if (bare) return std::string(key);
  std::string out = "\"";
  for (char c : key) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string child_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return key_text(key);
  return fmt::format("{}.{}", parent, key_text(key));
}

std::string index_path(std::string_view parent, size_t i) {
  return fmt::format("{}[{}]", parent, i);
}

std::string named_path(std::string_view path, std::string_view name) {
  return fmt::format("{} ({})", path, name);
}

}  // namespace caldera::input
