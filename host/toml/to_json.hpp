// A TOML value as JSON, for the readers of Kubernetes API objects that scenario and cluster
// files embed (pod affinity, topology spread constraints, ports, node images: SCENARIOS.md
// writes them as the API's own fields, which host/model/pod_constraints.hpp reads from
// JSON, the form the Kubernetes backend receives them in).
//
// The reader names a bad field by its path inside the object; `Positions` turns that path
// back into where the field is written, so the error still names file, line and column.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "host/toml/reader.hpp"

namespace caldera::input {

// Where each value of a converted object is written, by its path inside the object
// ("podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"; "" is
// the object itself).
class Positions {
 public:
  explicit Positions(Value root) : root_(std::move(root)) {}

  // Throws the input error at the value `path` names, or at the nearest enclosing value
  // that is written (a missing field's table): OBJECT is the file's path of that value
  // followed by the rest of `path`.
  [[noreturn]] void fail(const std::string& path, std::string_view problem,
                         std::string_view expected) const;

 private:
  friend nlohmann::json to_json(const Value& v, Positions* positions);
  void record(const std::string& path, const Value& v) { at_.emplace(path, v); }

  Value root_;
  std::map<std::string, Value> at_;
};

// v as JSON: tables as objects, arrays as arrays, strings, integers, floats and booleans as
// themselves; dates and times as their TOML text. Records every value's position.
nlohmann::json to_json(const Value& v, Positions* positions);

}  // namespace caldera::input
