// A fork-join pool for node-level work: the predicate search and node scoring split a
// range of nodes into chunks that the workers and the calling thread take in turn.
//
// Why a pool of our own: a session asks for tens of thousands of small parallel loops
// (one or two per task placed, each a few microseconds of work), so threads must be kept
// and woken cheaply; workers spin briefly before they sleep on an atomic, so back-to-back
// loops do not pay for a futex wake-up each time.
//
// Determinism is the caller's part: chunks run in any order on any thread, so fn must
// write its results by index and never depend on which chunk ran first.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace caldera {

class WorkerPool {
 public:
  // A pool with `threads` threads in all, the caller of run() included (so threads - 1
  // workers are started); 0 means one per core.
  explicit WorkerPool(size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  size_t threads() const { return workers_.size() + 1; }

  // Calls fn(begin, end) over [0, n) in chunks of at least min_chunk indexes, on the
  // workers and on the calling thread, and returns when every chunk is done. The first
  // exception a chunk throws is rethrown here (the other chunks still run). Not reentrant:
  // one run at a time (the scheduling thread's).
  void run(size_t n, size_t min_chunk, const std::function<void(size_t, size_t)>& fn);

  // How many threads `threads` means: 0 is one per core.
  static size_t resolve(size_t threads);

  // The calling thread's index in its pool: 0 for any thread that is not a pool worker
  // (the scheduling thread), 1.. for the workers of the pool that started it. Breadcrumbs
  // (host/session/breadcrumb.hpp) keep one slot per index.
  static size_t thread_index();

 private:
  void work_loop(size_t index);
  void take_chunks();

  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};  // bumped by each run(); workers wait on it
  std::atomic<bool> stop_{false};
  // Bit 0: a run is open to workers; each worker inside adds 2. The caller closes the run
  // when the chunks are all taken and waits only for the workers inside, so a worker the
  // machine has not scheduled yet never holds a run up.
  std::atomic<uint64_t> open_{0};
  const std::function<void(size_t, size_t)>* fn_ = nullptr;
  size_t n_ = 0, chunk_ = 1;
  std::atomic<size_t> next_{0};
  std::mutex error_mu_;
  std::exception_ptr error_;
};

}  // namespace caldera
