// host/session/row_maxima.hpp: the column maxima of a table whose rows change, against the
// maxima worked out from the whole table after every change.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "host/session/row_maxima.hpp"

namespace {

using caldera::RowMaxima;

TEST(RowMaxima, FollowsEveryChangeOfAnyRow) {
  for (size_t rows : {1u, 2u, 3u, 7u, 64u, 100u}) {
    const size_t columns = 3;
    RowMaxima m;
    m.reset(rows, columns);
    EXPECT_TRUE(std::isinf(m.max(0)) && m.max(0) < 0) << "nothing set yet";
    std::vector<double> table(rows * columns);
    std::mt19937 rng(static_cast<unsigned>(rows));
    std::uniform_int_distribution<int> value(-5, 50), pick(0, static_cast<int>(rows) - 1);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < columns; ++c) table[r * columns + c] = value(rng);
      m.set(r, &table[r * columns]);
    }
    // Rows go up and down, the largest among them too (a maximum that falls must be found
    // again among the others).
    for (int step = 0; step < 500; ++step) {
      const auto r = static_cast<size_t>(pick(rng));
      for (size_t c = 0; c < columns; ++c) table[r * columns + c] = value(rng);
      m.set(r, &table[r * columns]);
      for (size_t c = 0; c < columns; ++c) {
        double want = table[c];
        for (size_t k = 1; k < rows; ++k) want = std::max(want, table[k * columns + c]);
        ASSERT_EQ(m.max(c), want) << rows << " rows, step " << step << ", column " << c;
      }
    }
  }
}

}  // namespace
