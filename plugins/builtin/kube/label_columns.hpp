// Node label values by node index, for the label keys a plugin asks about (topology keys,
// node-affinity keys): read from the host once per key per session, since node labels do
// not change in a session. A filter or score that reads one key on many nodes for many
// tasks then reads an array where it looked the key up in each node's labels (a string
// map: most of the time of the affinity and spread plugins at 5,000 nodes, before).
//
// Values are interned per key: equal values share an id, so a topology domain (key, value)
// is two small integers (Domain), and counts by domain are integer maps.
//
// Columns are made on the scheduling thread (PreFilter, batch scores); the node-parallel
// filter calls only read columns made before them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "caldera/sdk.hpp"

namespace caldera::kube {

class LabelColumns {
 public:
  static constexpr uint32_t kNone = 0;  // value id of "the node has no such label"

  struct Column {
    uint32_t id = 0;                 // this column's number in its LabelColumns
    std::vector<uint32_t> value;     // by node index: the value's id, kNone without it
    std::vector<const char*> names;  // by value id (names[kNone] is null): host strings
    std::unordered_map<std::string_view, uint32_t> ids;

    const char* at(size_t node) const { return names[value[node]]; }
    // The id of value `v`, kNone when no node has it.
    uint32_t id_of(std::string_view v) const {
      auto it = ids.find(v);
      return it == ids.end() ? kNone : it->second;
    }
  };

  // A topology domain: a column (key) and a value id.
  using Domain = uint64_t;
  static Domain domain(const Column& c, uint32_t value) {
    return (static_cast<uint64_t>(c.id) << 32) | value;
  }
  const Column& column_of(Domain d) const { return *by_id_[static_cast<size_t>(d >> 32)]; }
  static uint32_t value_of(Domain d) { return static_cast<uint32_t>(d); }

  // The column of `key`, read from every node at its first use.
  const Column& column(sdk::Session s, std::string_view key) {
    auto it = by_key_.find(key);
    if (it != by_key_.end()) return *it->second;
    auto c = std::make_unique<Column>();
    c->id = static_cast<uint32_t>(by_id_.size());
    c->names.push_back(nullptr);
    const size_t n = s.node_count();
    c->value.resize(n, kNone);
    const std::string k(key);
    for (size_t i = 0; i < n; ++i) {
      const char* v = s.node(i).label(k.c_str());
      if (v == nullptr) continue;
      auto [at, added] = c->ids.try_emplace(std::string_view(v), static_cast<uint32_t>(c->names.size()));
      if (added) c->names.push_back(v);
      c->value[i] = at->second;
    }
    const Column* made = c.get();
    by_id_.push_back(made);
    by_key_.emplace(k, std::move(c));
    return *made;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view k) const { return std::hash<std::string_view>()(k); }
  };
  std::unordered_map<std::string, std::unique_ptr<Column>, Hash, std::equal_to<>> by_key_;
  std::vector<const Column*> by_id_;
};

// Label look-ups by key for one call that reads a few keys on many nodes (a task's
// scores): each key's column is found once, by the key's address, then read by node index.
// The addresses are those of host strings that stay put while the call runs.
class NodeLabels {
 public:
  NodeLabels(sdk::Session s, LabelColumns& columns) : s_(s), columns_(columns) {}

  const LabelColumns::Column& column(const char* key) {
    for (const auto& [k, c] : memo_)
      if (k == key) return *c;
    const LabelColumns::Column& c = columns_.column(s_, key);
    memo_.emplace_back(key, &c);
    return c;
  }
  const char* get(const char* key, size_t node) { return column(key).at(node); }

 private:
  sdk::Session s_;
  LabelColumns& columns_;
  std::vector<std::pair<const char*, const LabelColumns::Column*>> memo_;
};

}  // namespace caldera::kube
