// Why-pending reasons, interned: the predicate search counts each node's failure by a small
// id and spells the reasons out only for the tasks that stay pending.
//
// FitErrors is Volcano's FitErrors wording, "0/3 nodes are unavailable: 1 node(s) didn't
// match Pod's node affinity/selector, 2 Insufficient cpu.": each reason with the number of
// nodes that gave it, sorted as strings.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace caldera {

class ReasonTable {
 public:
  // The id of `text`, added when new. Ids count from 0 in order of first use.
  int32_t intern(std::string_view text);
  const std::string& text(int32_t id) const { return texts_[static_cast<size_t>(id)]; }
  size_t size() const { return texts_.size(); }

 private:
  std::deque<std::string> texts_;  // a deque: ids_ keys point into it and must not move
  std::unordered_map<std::string_view, int32_t> ids_;
};

class FitErrors {
 public:
  explicit FitErrors(ReasonTable& table) : table_(&table) {}
  // Counts `times` more nodes that gave the reason.
  void add(int32_t reason_id, size_t times = 1) {
    const auto i = static_cast<size_t>(reason_id);
    if (i >= counts_.size()) counts_.resize(i + 1, 0);
    if (counts_[i] == 0 && times != 0) ++distinct_;
    counts_[i] += static_cast<uint32_t>(times);
  }
  void add(std::string_view reason, size_t times = 1) { add(table_->intern(reason), times); }
  void set_nodes(size_t n) { nodes_ = n; }
  // A node (by index) whose refusal was UnschedulableAndUnresolvable: evicting pods there
  // will not help (Volcano's GetUnschedulableAndUnresolvableNodes).
  void add_unresolvable_node(uint32_t node_index) { unresolvable_.push_back(node_index); }
  const std::vector<uint32_t>& unresolvable_nodes() const { return unresolvable_; }
  bool empty() const { return distinct_ == 0; }
  std::string str() const;

 private:
  ReasonTable* table_;
  std::vector<uint32_t> counts_;  // by reason id
  size_t distinct_ = 0;
  size_t nodes_ = 0;
  std::vector<uint32_t> unresolvable_;
};

}  // namespace caldera
