// Option families (plugin.h, "Plugin options"): a declared name with one "*" segment stands
// for every argument name that has its prefix and its suffix with at least one character
// between them. "binpack.resources.*" takes "binpack.resources.nvidia.com/gpu";
// "resources.*.weight" (a "*" between two segments, hosts of ABI 1.2 on) takes
// "resources.nvidia.com/gpu.weight", whose member is "nvidia.com/gpu". The member may hold
// dots: resource names do.
//
// Header-only and free of the ABI: the host validates arguments with it and the C++ SDK
// reads members with it, so both sides agree on what a family matches.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace caldera::option_family {

// The parts of a family pattern around its "*" segment, or nullopt when `name` is not a
// family: "a.b.*" -> {"a.b.", ""}, "a.*.c" -> {"a.", ".c"}.
struct Parts {
  std::string_view prefix;
  std::string_view suffix;
};
inline std::optional<Parts> parts(std::string_view name) {
  if (name.size() >= 2 && name.substr(name.size() - 2) == ".*")
    return Parts{name.substr(0, name.size() - 1), {}};
  const size_t star = name.find(".*.");
  if (star == std::string_view::npos) return std::nullopt;
  return Parts{name.substr(0, star + 1), name.substr(star + 2)};
}

inline bool is_family(std::string_view name) { return parts(name).has_value(); }

// The member of `family` that `given` names ("nvidia.com/gpu"), or nullopt.
inline std::optional<std::string_view> member(std::string_view family, std::string_view given) {
  const std::optional<Parts> p = parts(family);
  if (!p) return std::nullopt;
  if (given.size() <= p->prefix.size() + p->suffix.size()) return std::nullopt;
  if (given.substr(0, p->prefix.size()) != p->prefix) return std::nullopt;
  if (given.substr(given.size() - p->suffix.size()) != p->suffix) return std::nullopt;
  return given.substr(p->prefix.size(), given.size() - p->prefix.size() - p->suffix.size());
}

// The argument name of `member` in `family`: prefix + member + suffix.
inline std::string key(std::string_view family, std::string_view member) {
  const std::optional<Parts> p = parts(family);
  if (!p) return std::string(family);
  return std::string(p->prefix) + std::string(member) + std::string(p->suffix);
}

}  // namespace caldera::option_family
