// The one way Caldera reads TOML. The scheduler config (host/config/config.cpp), the
// scenario and cluster files (host/scenario/scenario_file.cpp, also the embedded cluster's
// cluster file) and the embedded cluster's workload (host/backend/sim/workload.cpp) read
// their files through this layer over toml++, so every input error looks the same and
// names file, line, column and object.
//
// Error format
// ------------
//
//   FILE:LINE:COLUMN: OBJECT: PROBLEM; expected EXPECTED
//
// FILE:LINE:COLUMN  where the offending node starts: the value for a bad value, the key
//                   for an unknown key; for a missing key, and for a problem of a whole
//                   object (a duplicate, a reference to something missing), the enclosing
//                   table: its [header] or [[header]], or the '{' of an inline table.
// OBJECT            the path of the node from the top of the file: keys joined by '.',
//                   array elements as [i] counting from 0, an element's name in
//                   parentheses once it is known, keys that are not bare TOML keys in
//                   double quotes:
//                     nodes[2] (n3).allocatable.cpu
//                     pods[0] (c1/p1).labels."volcano.sh/task-spec"
//                     config.tiers[1].plugins[0] (binpack).arguments
//                   A key of the top-level table is its own path (`sessions`); the
//                   top-level table itself has none, and its errors leave OBJECT out
//                   with its ": " ("unknown top-level key ...").
// PROBLEM           what is wrong, quoting the value as written:
//                     got a string                      (a value of the wrong type)
//                     '4GB' is not a quantity           (a value that does not parse)
//                     0 is out of range                 (a number outside its bounds)
//                     unknown value 'Runing' (did you mean 'Running'?)
//                     unknown key 'wieght' (did you mean 'weight'?)
//                     missing key 'name'
//                     duplicate node 'n1', first at line 11
// EXPECTED          what would have been right:
//                     an array of strings
//                     an integer from 1 to 100000
//                     one of Pending, Running, Succeeded, Failed
//                     one of the allowed keys: name, enable, disable, arguments, hierarchy
//                   Left out, with its "; expected ", only where the problem is a
//                   relation between objects that the problem itself spells out (a cycle
//                   of HyperNodes).
//
// "did you mean" appears when one allowed word is at most a third of the letters (and at
// least one letter) away from what was written (host/util/spelling.hpp).
//
// Two kinds of error have no node, and no object:
//
//   FILE: cannot read the WHAT: REASON[; expected EXPECTED]
//                   the file is missing, a folder or another non-regular file, larger
//                   than the limit, or unreadable (WHAT: config, scenario, workload, ...)
//   FILE:LINE:COLUMN: TOML syntax error: DESCRIPTION
//                   the file is not TOML; DESCRIPTION is toml++'s.
//
// Every error is an InputError (host/util/input_error.hpp) whose what() is the message.
//
// Reading
// -------
//
// A Document holds a parsed file; Table, Array and Value are views into it that know
// their file and object path, so each typed read can name what it reads when it fails.
// The path is kept as its steps (ObjectPath, host/toml/path.hpp) and written only for an
// error. Views are only valid while the Document (or the toml::table they were made from)
// is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/toml/error.hpp"
#include "host/toml/path.hpp"
#include "host/toml/tomlpp.hpp"

namespace caldera::input {

class Table;
class Array;

// A table of strings by key (labels, annotations, node selectors): the same type as the
// model's StringMap, which this layer, below the model, does not see.
using StringTable = std::map<std::string, std::string, std::less<>>;

// Named choices of a string value, in the order the error lists them.
template <typename T>
using Choices = std::vector<std::pair<std::string, T>>;

// "a string", "an integer", "a float", "a boolean", "a table", "an array", "a date", ...
std::string type_phrase(const toml::node& n);

// One value of a file: its node, its object path and its file.
class Value {
 public:
  Value(std::shared_ptr<const std::string> file, const toml::node* node, ObjectPath path)
      : file_(std::move(file)), node_(node), path_(std::move(path)) {}

  const toml::node& node() const { return *node_; }
  std::string path() const { return path_.str(); }
  const std::string& file() const { return *file_; }
  SourceRef src() const;

  // The same value named in errors as `path (name)`.
  Value named(std::string_view name) const;

  // Throws the InputError "FILE:LINE:COLUMN: PATH: PROBLEM; expected EXPECTED" at this value.
  [[noreturn]] void fail(std::string_view problem, std::string_view expected = {}) const;
  // "got TYPE; expected EXPECTED".
  [[noreturn]] void wrong_type(std::string_view expected) const;

  // The value as written, for messages: 'text' for a string, 12, 0.5, true.
  std::string written() const;

  // Typed reads: each fails with wrong_type(EXPECTED) when the value has another type.
  std::string string(std::string_view expected = "a string") const;
  bool boolean() const;  // expected "true or false"
  // A TOML integer in [min, max]: "N is out of range; expected an integer from MIN to MAX".
  int64_t integer(int64_t min = std::numeric_limits<int64_t>::min(),
                  int64_t max = std::numeric_limits<int64_t>::max()) const;
  // An integer or a float, finite.
  double number(std::string_view expected = "a number") const;
  Table table(std::string_view expected = "a table") const;
  Array array(std::string_view expected = "an array") const;
  // An array of strings; each element is named `path[i]`.
  std::vector<std::string> strings() const;
  // A string that must be one of `choices`: "unknown NOUN 'x' (did you mean 'y'?); expected
  // one of a, b, c".
  template <typename T>
  T choice(const Choices<T>& choices, std::string_view noun = "value") const {
    // The names are listed only for an error.
    if (const auto* s = node_->as_string())
      for (const auto& c : choices)
        if (c.first == s->get()) return c.second;
    std::vector<std::string> names;
    names.reserve(choices.size());
    for (const auto& c : choices) names.push_back(c.first);
    return choices[choice_index(names, noun)].second;
  }

 private:
  size_t choice_index(const std::vector<std::string>& names, std::string_view noun) const;

  std::shared_ptr<const std::string> file_;
  const toml::node* node_;
  ObjectPath path_;
};

// One key of a table with its value.
struct Entry {
  std::string key;
  SourceRef key_src;  // where the key is written
  Value value;
};

// A table of a file.
class Table {
 public:
  Table(std::shared_ptr<const std::string> file, const toml::table* table, ObjectPath path)
      : file_(std::move(file)), table_(table), path_(std::move(path)) {}
  // A table parsed elsewhere (a scenario's [config] handed to the config parser): `path`
  // is where it sits in `file`.
  Table(const toml::table& table, const std::filesystem::path& file, std::string path = {});

  const toml::table& raw() const { return *table_; }
  std::string path() const { return path_.str(); }
  const std::string& file() const { return *file_; }
  SourceRef src() const;
  Value value() const { return Value(file_, table_, path_); }

  // The same table named in errors as `path (name)`.
  Table named(std::string_view name) const;

  [[noreturn]] void fail(std::string_view problem, std::string_view expected = {}) const;

  // Every key must be one of `allowed`, else: "unknown key 'k' (did you mean 'x'?);
  // expected one of the allowed keys: a, b, c", at the key. A list of views, so that the
  // check of every object of a large file makes no strings.
  void check_keys(std::initializer_list<std::string_view> allowed) const;

  bool has(std::string_view key) const { return table_->get(key) != nullptr; }
  std::optional<Value> get(std::string_view key) const;
  // A key that must be there: "missing key 'k'; expected EXPECTED", at this table.
  Value require(std::string_view key, std::string_view expected) const;
  [[noreturn]] void missing(std::string_view key, std::string_view expected) const;

  // Absent keys give nullopt; present ones are read as Value's typed reads do.
  std::optional<std::string> opt_string(std::string_view key) const;
  std::optional<bool> opt_bool(std::string_view key) const;
  std::optional<int64_t> opt_int(std::string_view key,
                                 int64_t min = std::numeric_limits<int64_t>::min(),
                                 int64_t max = std::numeric_limits<int64_t>::max()) const;
  std::optional<double> opt_number(std::string_view key) const;
  std::optional<Table> opt_table(std::string_view key) const;
  template <typename T>
  std::optional<T> opt_choice(std::string_view key, const Choices<T>& choices,
                              std::string_view noun = "value") const {
    std::optional<Value> v = get(key);
    if (!v) return std::nullopt;
    return v->choice(choices, noun);
  }

  // A table of strings (labels, annotations, node selectors); empty when absent.
  StringTable string_map(std::string_view key) const;

  // An array of tables ([[key]]), each named `key[i]`; empty when absent.
  std::vector<Table> tables(std::string_view key) const;

  // The keys in file order.
  std::vector<Entry> entries() const;

  // f(key, value) for each key, in the order of entries(), without making an Entry's
  // strings; key_src(key) is where a key is written, for an error.
  template <typename F>
  void each(F&& f) const {
    for (auto&& [k, v] : *table_) f(k.str(), Value(file_, &v, path_.key(k.str())));
  }
  SourceRef key_src(std::string_view key) const;

 private:
  std::shared_ptr<const std::string> file_;
  const toml::table* table_;
  ObjectPath path_;
};

// An array of a file.
class Array {
 public:
  Array(std::shared_ptr<const std::string> file, const toml::array* array, ObjectPath path)
      : file_(std::move(file)), array_(array), path_(std::move(path)) {}

  const toml::array& raw() const { return *array_; }
  std::string path() const { return path_.str(); }
  size_t size() const { return array_->size(); }
  bool empty() const { return array_->empty(); }
  Value value() const { return Value(file_, array_, path_); }
  [[noreturn]] void fail(std::string_view problem, std::string_view expected = {}) const {
    value().fail(problem, expected);
  }

  // Element i, named `path[i]`.
  Value operator[](size_t i) const;
  std::vector<Value> values() const;
  // Every element must be a table: "got a string; expected EXPECTED".
  std::vector<Table> tables(std::string_view expected = "a table") const;

 private:
  std::shared_ptr<const std::string> file_;
  const toml::array* array_;
  ObjectPath path_;
};

// The largest file the readers take: no scheduler input comes near it (a 10,000-node
// cluster file is a few MB), and a mistaken path to a huge file fails at once.
inline constexpr uint64_t kMaxFileBytes = 64ull << 20;
// A scheduler config: nothing sane comes near it.
inline constexpr uint64_t kMaxConfigBytes = 1ull << 20;

// A parsed file. Its tables point into `root`: do not move a Document once a view is
// taken.
struct Document {
  std::shared_ptr<const std::string> file;
  toml::table root;

  Table table() const { return Table(file, &root, ObjectPath()); }

  // Empties `t`, a table of this document, once it has been read: a reader that goes
  // through a long list once gives each object's memory back as it goes, where it is
  // taken again for the next object's record. Freed all at the end instead, the millions
  // of small blocks of a large scenario cost a sixth of loading it (issue 17). Every view
  // into `t` is invalid afterwards.
  void release(const Table& t);
};

// Reads a whole file. `what` names it in errors ("config", "scenario", "workload",
// "cluster file"): "FILE: cannot read the WHAT: no such file", "...: it is a folder;
// expected a regular file", "...: it is N bytes; expected at most LIMIT bytes".
std::string read_text(const std::filesystem::path& file, std::string_view what,
                      uint64_t max_bytes = kMaxFileBytes);

// Parses TOML text as if read from `file` (which names it in errors; it is not read).
Document parse_text(std::string_view text, const std::filesystem::path& file);

// read_text, then parse_text.
Document parse_file(const std::filesystem::path& file, std::string_view what,
                    uint64_t max_bytes = kMaxFileBytes);

}  // namespace caldera::input
