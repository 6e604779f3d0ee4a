// Writing TOML by hand, for the files Caldera writes (the cache dump as a scenario file):
// keys, strings, numbers and inline tables as TOML 1.0 spells them. Reading stays with
// host/toml/reader.hpp.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace caldera::toml_out {

// A key: bare when it can be (A-Za-z0-9_-), else a quoted string.
std::string key(std::string_view k);
// A basic string, escaped ("\"", "\\", control characters as \uXXXX).
std::string string(std::string_view s);
// A number: an integer when it is one (within 2^53), else the shortest float that reads
// back the same ("0.5", "1e+300").
std::string number(double v);
inline std::string boolean(bool b) { return b ? "true" : "false"; }

// "{ a = 1, \"b.c\" = \"x\" }" from (key, value text) pairs; "{}" when empty.
std::string inline_table(const std::vector<std::pair<std::string, std::string>>& entries);
// "[v1, v2]" from value texts.
std::string array(const std::vector<std::string>& values);

}  // namespace caldera::toml_out
