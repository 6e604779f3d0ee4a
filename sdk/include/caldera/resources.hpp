// caldera/resources.hpp -- resource vector arithmetic with Volcano's semantics.
//
// Header-only, used by the host and by plugins alike, so that both compare resources the
// same way. A resource vector is a dense array of doubles indexed by the session's resource
// ids (id 0 cpu in millicores, id 1 memory in bytes, the rest scalar resources in
// milli-units). A dimension a queue's capability leaves out is +infinity.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace caldera {

// Volcano's tolerance: two amounts closer than this are equal (resource_info.go).
inline constexpr double kMinResource = 0.1;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

namespace res {

inline bool le(double l, double r) { return l < r || std::fabs(l - r) < kMinResource; }

// Every dimension of l is <= r (Volcano's LessEqual).
inline bool less_equal(const double* l, const double* r, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!le(l[i], r[i])) return false;
  return true;
}
// Every dimension that req asks for (> 0) of l is <= r (Volcano's LessEqualWithDimension).
inline bool less_equal_in(const double* l, const double* r, const double* req, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (req[i] > kMinResource && !le(l[i], r[i])) return false;
  return true;
}
// Every dimension of l is strictly < r (Volcano's Less).
inline bool less(const double* l, const double* r, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!(l[i] < r[i])) return false;
  return true;
}
// Some dimension of l is < r (Volcano's LessPartly with Zero default).
inline bool less_partly(const double* l, const double* r, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (l[i] < r[i] && std::fabs(l[i] - r[i]) >= kMinResource) return true;
  return false;
}
// Every dimension is (nearly) zero.
inline bool is_empty(const double* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (v[i] >= kMinResource) return false;
  return true;
}
inline bool equal(const double* l, const double* r, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!(std::fabs(l[i] - r[i]) < kMinResource || l[i] == r[i])) return false;
  return true;
}

}  // namespace res

// An owning resource vector. Small and copyable; sized to the session's resource count.
class ResVec {
 public:
  ResVec() = default;
  explicit ResVec(size_t n, double fill = 0.0) : v_(n, fill) {}
  ResVec(const double* p, size_t n) : v_(p, p + n) {}

  size_t size() const { return v_.size(); }
  double* data() { return v_.data(); }
  const double* data() const { return v_.data(); }
  double& operator[](size_t i) { return v_[i]; }
  double operator[](size_t i) const { return v_[i]; }
  void resize(size_t n, double fill = 0.0) { v_.resize(n, fill); }

  ResVec& add(const double* o) {
    for (size_t i = 0; i < v_.size(); ++i) v_[i] += o[i];
    return *this;
  }
  ResVec& sub(const double* o) {
    for (size_t i = 0; i < v_.size(); ++i) v_[i] -= o[i];
    return *this;
  }
  ResVec& add(const ResVec& o) { return add(o.data()); }
  ResVec& sub(const ResVec& o) { return sub(o.data()); }
  ResVec& scale(double f) {
    for (double& x : v_) x *= f;
    return *this;
  }
  // Elementwise min / max.
  ResVec& min_with(const double* o) {
    for (size_t i = 0; i < v_.size(); ++i) v_[i] = std::min(v_[i], o[i]);
    return *this;
  }
  ResVec& max_with(const double* o) {
    for (size_t i = 0; i < v_.size(); ++i) v_[i] = std::max(v_[i], o[i]);
    return *this;
  }
  void clamp_non_negative() {
    for (double& x : v_)
      if (x < 0) x = 0;
  }
  void fill(double x) { std::fill(v_.begin(), v_.end(), x); }

  bool less_equal(const ResVec& o) const { return res::less_equal(data(), o.data(), size()); }
  bool is_empty() const { return res::is_empty(data(), size()); }
  bool operator==(const ResVec& o) const { return v_ == o.v_; }

 private:
  std::vector<double> v_;
};

}  // namespace caldera
