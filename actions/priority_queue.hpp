// Volcano's util.PriorityQueue: a heap ordered by a "less" function (the session's job,
// queue or task order). The session's orders are total (they fall back to creation time
// and name), so the pop order does not depend on the heap's internals.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

namespace caldera {

template <class T>
class PriorityQueue {
 public:
  using Less = std::function<bool(const T&, const T&)>;
  explicit PriorityQueue(Less less) : less_(std::move(less)) {}

  void push(T v) {
    items_.push_back(std::move(v));
    std::push_heap(items_.begin(), items_.end(), greater());
  }
  // Removes and returns the first item by `less`. Precondition: !empty().
  T pop() {
    std::pop_heap(items_.begin(), items_.end(), greater());
    T v = std::move(items_.back());
    items_.pop_back();
    return v;
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }

 private:
  // std heaps put the largest first; invert so the least by less_ comes first.
  auto greater() const {
    return [this](const T& a, const T& b) { return less_(b, a); };
  }
  Less less_;
  std::vector<T> items_;
};

}  // namespace caldera
