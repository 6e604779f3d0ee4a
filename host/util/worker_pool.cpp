#include "host/util/worker_pool.hpp"

#include <algorithm>

namespace caldera {

namespace {
// How long a worker spins for the next run before it sleeps (iterations of a pause).
constexpr int kSpin = 20000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

thread_local size_t t_index = 0;

}  // namespace

size_t WorkerPool::thread_index() { return t_index; }

size_t WorkerPool::resolve(size_t threads) {
  if (threads != 0) return threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

WorkerPool::WorkerPool(size_t threads) {
  const size_t n = resolve(threads);
  for (size_t i = 1; i < n; ++i) workers_.emplace_back([this, i] { work_loop(i); });
}

WorkerPool::~WorkerPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (auto& t : workers_) t.join();
}

void WorkerPool::take_chunks() {
  for (;;) {
    const size_t begin = next_.fetch_add(chunk_);
    if (begin >= n_) return;
    const size_t end = std::min(n_, begin + chunk_);
    try {
      (*fn_)(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

void WorkerPool::work_loop(size_t index) {
  t_index = index;
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = generation_.load(std::memory_order_acquire);
    for (int i = 0; g == seen && i < kSpin; ++i) {
      cpu_relax();
      g = generation_.load(std::memory_order_acquire);
    }
    if (g == seen) {
      generation_.wait(seen);
      continue;
    }
    seen = g;
    if (stop_.load()) return;
    if (open_.fetch_add(2, std::memory_order_acq_rel) & 1) take_chunks();
    open_.fetch_sub(2, std::memory_order_acq_rel);
  }
}

void WorkerPool::run(size_t n, size_t min_chunk, const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  const size_t threads = this->threads();
  if (threads == 1 || n <= min_chunk) {
    fn(0, n);
    return;
  }
  // About four chunks per thread, so that a slow chunk (a thread descheduled on a shared
  // machine) does not hold the others up.
  chunk_ = std::max(min_chunk, (n + threads * 4 - 1) / (threads * 4));
  n_ = n;
  fn_ = &fn;
  error_ = nullptr;
  next_.store(0, std::memory_order_relaxed);
  open_.fetch_or(1, std::memory_order_acq_rel);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  take_chunks();
  open_.fetch_and(~uint64_t{1}, std::memory_order_acq_rel);
  while (open_.load(std::memory_order_acquire) != 0) cpu_relax();
  fn_ = nullptr;
  if (error_) std::rethrow_exception(error_);
}

}  // namespace caldera
