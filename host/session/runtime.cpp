#include "host/session/runtime.hpp"

#include "host/session/hypernodes.hpp"
#include "host/util/worker_pool.hpp"

namespace caldera {

Runtime::Runtime() : memo_(std::make_unique<HyperNodeTreeMemo>()) {}
Runtime::~Runtime() = default;

WorkerPool& Runtime::workers(size_t threads) {
  const size_t want = WorkerPool::resolve(threads);
  if (!pool_ || pool_->threads() != want) {
    pool_.reset();
    pool_ = std::make_unique<WorkerPool>(want);
  }
  return *pool_;
}

void Runtime::forget_workers() {
  (void)pool_.release();  // deliberately leaked: see runtime.hpp
}

HyperNodeTreeMemo& Runtime::hypernode_memo() { return *memo_; }

bool Runtime::changed(const std::string& topic, const std::string& text) {
  auto [it, fresh] = said_.try_emplace(topic, text);
  if (fresh) return !text.empty();
  if (it->second == text) return false;
  it->second = text;
  return true;
}

}  // namespace caldera
