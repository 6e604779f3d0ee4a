// caldera/resources.hpp -- resource vector arithmetic with Volcano's semantics.
//
// Header-only, used by the host and by plugins alike, so that both compare resources the
// same way. A resource vector is a dense array of doubles indexed by the session's resource
// ids (id 0 cpu in millicores, id 1 memory in bytes, id 2 pods in pods, the rest scalar
// resources in milli-units). A dimension a queue's capability leaves out is +infinity.
//
// Pods are a resource as in Volcano (ed72c7c): every task requests one, a node has its
// pod capacity, and queue shares count them; like Volcano, emptiness and the
// dimension-wise comparisons against a request leave them out (every task asks for one,
// so they say nothing there).
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
// The resource id of "pods" in every session.
inline constexpr size_t kPodsId = 2;

namespace res {

inline bool le(double l, double r) { return l < r || std::fabs(l - r) < kMinResource; }

// Every dimension of l is <= r (Volcano's LessEqual).
inline bool less_equal(const double* l, const double* r, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!le(l[i], r[i])) return false;
  return true;
}
// Every dimension that req asks for (> 0) of l is <= r, pods left out (Volcano's
// LessEqualWithDimension).
inline bool less_equal_in(const double* l, const double* r, const double* req, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (i != kPodsId && req[i] > kMinResource && !le(l[i], r[i])) return false;
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
// Every dimension but pods is (nearly) zero (Volcano's IsEmpty).
inline bool is_empty(const double* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (i != kPodsId && v[i] >= kMinResource) return false;
  return true;
}
inline bool equal(const double* l, const double* r, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!(std::fabs(l[i] - r[i]) < kMinResource || l[i] == r[i])) return false;
  return true;
}

}  // namespace res

// An owning resource vector, sized to the session's resource count. Up to kInline
// dimensions (cpu, memory and a few scalars: nearly every cluster) live inside the object,
// so making, copying and dropping one allocates nothing; a longer vector keeps its values
// on the heap. Copyable and movable like a value.
class ResVec {
 public:
  static constexpr size_t kInline = 6;

  ResVec() = default;
  explicit ResVec(size_t n, double fill = 0.0) { assign(n, fill); }
  ResVec(const double* p, size_t n) {
    reserve_exact(n);
    std::copy(p, p + n, ptr_);
  }
  ResVec(const ResVec& o) : ResVec(o.data(), o.size()) {}
  ResVec(ResVec&& o) noexcept { take(o); }
  ResVec& operator=(const ResVec& o) {
    if (this != &o) {
      if (o.n_ <= cap()) {
        n_ = o.n_;
      } else {
        release();
        reserve_exact(o.n_);
      }
      std::copy(o.data(), o.data() + o.n_, ptr_);
    }
    return *this;
  }
  ResVec& operator=(ResVec&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  ~ResVec() { release(); }

  size_t size() const { return n_; }
  double* data() { return ptr_; }
  const double* data() const { return ptr_; }
  double& operator[](size_t i) { return ptr_[i]; }
  double operator[](size_t i) const { return ptr_[i]; }
  void resize(size_t n, double fill = 0.0) {
    if (n > cap()) {
      ResVec bigger(n, fill);
      std::copy(ptr_, ptr_ + n_, bigger.ptr_);
      *this = std::move(bigger);
      return;
    }
    for (size_t i = n_; i < n; ++i) ptr_[i] = fill;
    n_ = n;
  }

  ResVec& add(const double* o) {
    for (size_t i = 0; i < n_; ++i) ptr_[i] += o[i];
    return *this;
  }
  ResVec& sub(const double* o) {
    for (size_t i = 0; i < n_; ++i) ptr_[i] -= o[i];
    return *this;
  }
  ResVec& add(const ResVec& o) { return add(o.data()); }
  ResVec& sub(const ResVec& o) { return sub(o.data()); }
  ResVec& scale(double f) {
    for (size_t i = 0; i < n_; ++i) ptr_[i] *= f;
    return *this;
  }
  // Elementwise min / max.
  ResVec& min_with(const double* o) {
    for (size_t i = 0; i < n_; ++i) ptr_[i] = std::min(ptr_[i], o[i]);
    return *this;
  }
  ResVec& max_with(const double* o) {
    for (size_t i = 0; i < n_; ++i) ptr_[i] = std::max(ptr_[i], o[i]);
    return *this;
  }
  void clamp_non_negative() {
    for (size_t i = 0; i < n_; ++i)
      if (ptr_[i] < 0) ptr_[i] = 0;
  }
  void fill(double x) { std::fill(ptr_, ptr_ + n_, x); }

  bool less_equal(const ResVec& o) const { return res::less_equal(data(), o.data(), size()); }
  bool is_empty() const { return res::is_empty(data(), size()); }
  bool operator==(const ResVec& o) const {
    return n_ == o.n_ && std::equal(ptr_, ptr_ + n_, o.ptr_);
  }

 private:
  size_t cap() const { return ptr_ == inline_ ? kInline : n_; }
  // Room for exactly n values (inline when they fit); the values are not set.
  void reserve_exact(size_t n) {
    ptr_ = n <= kInline ? inline_ : new double[n];
    n_ = n;
  }
  void assign(size_t n, double fill) {
    reserve_exact(n);
    std::fill(ptr_, ptr_ + n, fill);
  }
  void release() {
    if (ptr_ != inline_) delete[] ptr_;
    ptr_ = inline_;
    n_ = 0;
  }
  void take(ResVec& o) {
    n_ = o.n_;
    if (o.ptr_ == o.inline_) {
      ptr_ = inline_;
      std::copy(o.inline_, o.inline_ + o.n_, inline_);
    } else {
      ptr_ = o.ptr_;  // the heap block changes hands
    }
    o.ptr_ = o.inline_;
    o.n_ = 0;
  }

  double inline_[kInline] = {};
  double* ptr_ = inline_;
  size_t n_ = 0;
};

}  // namespace caldera
