// Validated plugin (and action) arguments: the host side of the opaque cal_args handle.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "caldera/plugin.h"
#include "host/config/config.hpp"

namespace caldera {

class Args {
 public:
  using Value = std::variant<bool, int64_t, double, std::string>;
  struct Entry {
    cal_option_type type;
    Value value;
  };

  // Checks `given` against the option table: unknown names (error lists the declared
  // ones), wrong types, bad durations; fills defaults. `owner` names the plugin or action
  // in messages ("plugin binpack"). Throws InputError naming file, line and column.
  static Args validate(const std::string& owner, const std::vector<cal_option>& options,
                       const ArgMap& given);

  bool is_set(const std::string& name) const { return values_.count(name) != 0; }
  const Entry* find(const std::string& name) const;
  bool get_bool(const std::string& name, bool fallback = false) const;
  int64_t get_int(const std::string& name, int64_t fallback = 0) const;
  double get_double(const std::string& name, double fallback = 0) const;  // ints too
  std::string get_string(const std::string& name, const std::string& fallback = {}) const;
  const std::map<std::string, Entry>& values() const { return values_; }

  // The plugin entry's `hierarchy = true` (Volcano's enableHierarchy), carried with the
  // arguments so a plugin reads all of its configuration through one handle.
  bool hierarchy() const { return hierarchy_; }
  void set_hierarchy(bool h) { hierarchy_ = h; }

 private:
  std::map<std::string, Entry> values_;
  bool hierarchy_ = false;
};

}  // namespace caldera
