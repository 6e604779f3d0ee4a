// Volcano's util.PriorityQueue: a heap ordered by a "less" function (the session's job,
// queue or task order), with Go's container/heap algorithm step for step.
//
// Why not std::push_heap / std::pop_heap: the orders read live session state (a queue's
// share, a job's ready count) that changes between a push and a pop, so the heap's
// invariant no longer holds and which item comes out depends on the exact sift steps.
// Go's heap and libstdc++'s differ there (libstdc++'s pop moves the hole to a leaf first),
// so only the same steps give Volcano's order.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace caldera {

template <class T>
class PriorityQueue {
 public:
  using Less = std::function<bool(const T&, const T&)>;
  explicit PriorityQueue(Less less) : less_(std::move(less)) {}

  // heap.Push: append, then sift up.
  void push(T v) {
    items_.push_back(std::move(v));
    up(items_.size() - 1);
  }
  // heap.Pop: swap the root with the last item, sift the new root down over the others,
  // remove the last. Precondition: !empty().
  T pop() {
    const size_t n = items_.size() - 1;
    std::swap(items_[0], items_[n]);
    down(0, n);
    T v = std::move(items_.back());
    items_.pop_back();
    return v;
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }

 private:
  bool less(size_t i, size_t j) const { return less_(items_[i], items_[j]); }
  void up(size_t j) {
    while (j > 0) {
      const size_t i = (j - 1) / 2;  // parent
      if (!less(j, i)) break;
      std::swap(items_[i], items_[j]);
      j = i;
    }
  }
  void down(size_t i, size_t n) {
    for (;;) {
      const size_t j1 = 2 * i + 1;
      if (j1 >= n) break;
      size_t j = j1;  // left child
      if (const size_t j2 = j1 + 1; j2 < n && less(j2, j1)) j = j2;  // right child
      if (!less(j, i)) break;
      std::swap(items_[i], items_[j]);
      i = j;
    }
  }

  Less less_;
  std::vector<T> items_;
};

}  // namespace caldera
