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

// A shared part of paths: a path given as text, a parent path, or a path with a name.
struct ObjectPath::Part {
  enum class Kind : uint8_t { kText, kPath, kNamed };
  Kind kind;
  ObjectPath path;   // kPath, kNamed
  std::string text;  // kText: the path; kNamed: the name

  std::string str() const {
    switch (kind) {
      case Kind::kText: return text;
      case Kind::kPath: return path.str();
      case Kind::kNamed: return named_path(path.str(), text);
    }
    return text;
  }
  bool empty() const { return kind == Kind::kText ? text.empty() : kind == Kind::kPath && path.empty(); }
};

ObjectPath::ObjectPath(std::string text) {
  if (text.empty()) return;
  up_ = std::make_shared<const Part>(Part{Part::Kind::kText, ObjectPath(), std::move(text)});
}

const std::shared_ptr<const ObjectPath::Part>& ObjectPath::as_parent() const {
  // A path that is only its part (a named one, one given as text) is its own parent part.
  if (step_ == Step::kNone && up_) return up_;
  if (!self_) self_ = std::make_shared<const Part>(Part{Part::Kind::kPath, *this, std::string()});
  return self_;
}

ObjectPath ObjectPath::key(std::string_view key) const {
  ObjectPath out;
  out.up_ = as_parent();
  out.step_ = Step::kKey;
  out.key_ = key;
  return out;
}

ObjectPath ObjectPath::index(size_t i) const {
  ObjectPath out;
  out.up_ = as_parent();
  out.step_ = Step::kIndex;
  out.index_ = i;
  return out;
}

ObjectPath ObjectPath::named(std::string_view name) const {
  ObjectPath out;
  out.up_ = std::make_shared<const Part>(Part{Part::Kind::kNamed, *this, std::string(name)});
  return out;
}

std::string ObjectPath::str() const {
  std::string out = up_ ? up_->str() : std::string();
  if (step_ == Step::kKey) return child_path(out, key_);
  if (step_ == Step::kIndex) return index_path(out, index_);
  return out;
}

bool ObjectPath::empty() const { return step_ == Step::kNone && (!up_ || up_->empty()); }

}  // namespace caldera::input
