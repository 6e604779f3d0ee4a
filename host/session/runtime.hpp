// What outlives one session but belongs to one scheduler rather than to the process: the
// worker pool of the node-level loops, the memo of the HyperNode tree, and which warnings
// were already said. Each front end (caldera run, scenario run, replay, the Kubernetes
// backend, the reload trial, a test) owns one Runtime and passes it to every session it
// runs, so two schedulers in one process (tests, benchmarks) never share or reset each
// other's state, and a forked session worker starts from its parent's.
//
// One session at a time uses a Runtime (the sessions of one scheduler follow each other).
// Nothing of a plugin lives here: plugins keep state across sessions only through the ABI.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

namespace caldera {

class WorkerPool;
struct HyperNodeTreeMemo;  // host/session/hypernodes.cpp

class Runtime {
 public:
  Runtime();
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The pool for `threads` threads in all (0: one per core). Built on first use and
  // rebuilt when a session asks for another number (a reloaded config's `threads`).
  WorkerPool& workers(size_t threads);

  // The last HyperNode tree and what it was built from (reused while unchanged).
  HyperNodeTreeMemo& hypernode_memo();

  // True when `text` differs from what was last said under `topic` (and records it):
  // a warning about the config is then said once per change, not once per session.
  bool changed(const std::string& topic, const std::string& text);

 private:
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<HyperNodeTreeMemo> memo_;
  std::unordered_map<std::string, std::string> said_;
};

}  // namespace caldera
