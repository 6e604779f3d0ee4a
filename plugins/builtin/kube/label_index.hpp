// The pods of Kubernetes' view of the nodes, by label: for each (key, value), the pods that
// carry it with the index of their node. Inter-pod affinity's PreFilter asks it for the
// pods a term can match (those with the value of one of the selector's single-value In
// requirements: matchLabels) instead of visiting every pod of every node for each task.
//
// Built at its first use in a session from the host's view (node_pod_at) and kept equal to
// it by the plugin's allocate / deallocate events, which are the only ways a pod joins or
// leaves the view during a session (the plugin passes them on when the host does: see
// Predicates::on_allocate). The lists keep no order that matters: users only count.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "caldera/sdk.hpp"

namespace caldera::kube {

class LabelIndex {
 public:
  struct Entry {
    const cal_pod* pod;
    size_t node;  // node index
  };

  bool built() const { return built_; }

  void build(sdk::Session s) {
    by_label_.clear();
    for (size_t i = 0; i < s.node_count(); ++i) {
      const sdk::Node n = s.node(i);
      for (size_t k = 0; k < n.pod_count(); ++k) add(n.pod(k), i);
    }
    built_ = true;
  }

  void add(sdk::Pod p, size_t node) {
    for (size_t i = 0; i < p.label_count(); ++i)
      by_label_[key(p.label_key(i), p.label_value(i))].push_back({p.handle(), node});
  }

  // A pod is in the view once, so it is found by itself.
  void remove(sdk::Pod p) {
    for (size_t i = 0; i < p.label_count(); ++i) {
      auto it = by_label_.find(key(p.label_key(i), p.label_value(i)));
      if (it == by_label_.end()) continue;
      std::vector<Entry>& v = it->second;
      for (size_t j = 0; j < v.size(); ++j)
        if (v[j].pod == p.handle()) {
          v[j] = v.back();
          v.pop_back();
          break;
        }
    }
  }

  // The pods carrying label key=value; null when none.
  const std::vector<Entry>* find(std::string_view k, std::string_view v) const {
    auto it = by_label_.find(key(k, v));
    return it == by_label_.end() ? nullptr : &it->second;
  }

  // The (key, value) of a selector's requirement that every pod it matches carries (the
  // first In requirement with one value), or false when it has none: such a selector can
  // only be answered by visiting every pod.
  static bool anchor(const cal_label_selector& s, std::string_view* k, std::string_view* v) {
    if (s.absent) return false;
    for (size_t i = 0; i < s.count; ++i) {
      const cal_requirement& r = s.requirements[i];
      if (r.op == CAL_SELECT_IN && r.values.count == 1) {
        *k = r.key;
        *v = r.values.items[0];
        return true;
      }
    }
    return false;
  }

 private:
  static std::string key(std::string_view k, std::string_view v) {
    std::string s;
    s.reserve(k.size() + v.size() + 1);
    s.append(k).append(1, '\0').append(v);
    return s;
  }
  bool built_ = false;
  std::unordered_map<std::string, std::vector<Entry>> by_label_;
};

}  // namespace caldera::kube
