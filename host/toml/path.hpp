// Object paths: how an error names the value it is about, from the top of its file
// (host/toml/reader.hpp, "Error format").
//
//   child_path("nodes[2] (n3)", "allocatable")  nodes[2] (n3).allocatable
//   child_path("pods[0]", "nvidia.com/gpu")     pods[0]."nvidia.com/gpu"
//   index_path("tiers", 1)                      tiers[1]
//   named_path("pods[0]", "c1/p1")              pods[0] (c1/p1)
#pragma once

#include <string>
#include <string_view>

namespace caldera::input {

// The key as TOML writes it: bare when it is only letters, digits, '_' and '-', else in
// double quotes.
std::string key_text(std::string_view key);

// `parent.key`; just the key at the top ("" parent).
std::string child_path(std::string_view parent, std::string_view key);

// `parent[i]`, counting from 0 as TOML paths do.
std::string index_path(std::string_view parent, size_t i);

// `path (name)`: an array element once its name is known.
std::string named_path(std::string_view path, std::string_view name);

}  // namespace caldera::input
