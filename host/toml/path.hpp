// Object paths: how an error names the value it is about, from the top of its file
// (host/toml/reader.hpp, "Error format").
//
//   child_path("nodes[2] (n3)", "allocatable")  nodes[2] (n3).allocatable
//   child_path("pods[0]", "nvidia.com/gpu")     pods[0]."nvidia.com/gpu"
//   index_path("tiers", 1)                      tiers[1]
//   named_path("pods[0]", "c1/p1")              pods[0] (c1/p1)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
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

// An object path kept as its steps and written out only when an error names it: writing
// every value's path as it was read was a tenth of loading a large scenario (issue 17).
// A path is a shared parent part and a last step, a key, an index or neither; a name
// (`path (name)`) closes a part, so that the children of a named table share it. str()
// writes the path with child_path, index_path and named_path: the text is the one those
// give.
//
// A key is held as a view: it must outlive the path (the readers hand in the key as the
// parsed document holds it, or a literal).
class ObjectPath {
 public:
  ObjectPath() = default;  // the top of a file: ""
  // A path given as text (a table parsed elsewhere and named where it sits).
  explicit ObjectPath(std::string text);

  ObjectPath key(std::string_view key) const;     // `this.key`
  ObjectPath index(size_t i) const;               // `this[i]`
  ObjectPath named(std::string_view name) const;  // `this (name)`

  std::string str() const;
  // The top of a file, whose errors leave the object out.
  bool empty() const;

 private:
  struct Part;
  enum class Step : uint8_t { kNone, kKey, kIndex };

  // This path as the parent part of another, made once for all its children.
  const std::shared_ptr<const Part>& as_parent() const;

  std::shared_ptr<const Part> up_;  // none at the top
  Step step_ = Step::kNone;
  size_t index_ = 0;
  std::string_view key_;
  mutable std::shared_ptr<const Part> self_;
};

}  // namespace caldera::input
