// The largest value in each column of a table whose rows change one at a time: a tree of
// maxima over the rows (every tree node holds the column-wise maximum of its two
// children), so that a row's change costs log2(rows) per column and the maxima of the whole
// table are at the root. The session keeps one over the nodes' future idle rows: a task
// asking for more of some resource than the root holds fits no node, known without
// looking at any (actions/predicate_helper.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace caldera {

class RowMaxima {
 public:
  // `rows` rows of `columns` values, none set yet (every maximum -infinity).
  void reset(size_t rows, size_t columns) {
    columns_ = columns;
    leaves_ = 1;
    while (leaves_ < rows) leaves_ <<= 1;
    tree_.assign(2 * leaves_ * columns_, -std::numeric_limits<double>::infinity());
  }

  // Row `row` now holds values[0 .. columns).
  void set(size_t row, const double* values) {
    size_t i = leaves_ + row;
    std::copy(values, values + columns_, tree_.data() + i * columns_);
    for (i >>= 1; i >= 1; i >>= 1) {
      double* up = tree_.data() + i * columns_;
      const double* left = tree_.data() + 2 * i * columns_;
      const double* right = left + columns_;
      bool changed = false;
      for (size_t c = 0; c < columns_; ++c) {
        const double m = std::max(left[c], right[c]);
        if (m != up[c]) {
          up[c] = m;
          changed = true;
        }
      }
      if (!changed) break;  // the maxima above depend only on this one's
    }
  }

  // The largest value of column c over every row set (-infinity when none is).
  double max(size_t c) const {
    return tree_.empty() ? -std::numeric_limits<double>::infinity() : tree_[columns_ + c];
  }

 private:
  size_t columns_ = 0;
  size_t leaves_ = 0;
  std::vector<double> tree_;  // heap order: node i's children are 2i and 2i + 1; 1 the root
};

}  // namespace caldera
