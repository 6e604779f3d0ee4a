// What outlives one session but belongs to one scheduler rather than to the process: the
// worker pool of the node-level loops, the memo of the HyperNode tree, and which warnings
// were already said. Each front end (caldera run, scenario run, replay, the Kubernetes
// backend, the reload trial, a test) owns one Runtime and passes it to every session it
// runs, so two schedulers in one process (tests, benchmarks) never share or reset each
// other's state, and a forked session worker starts from its parent's.
//
// One session at a time uses a Runtime (the sessions of one scheduler follow each other).
// Of plugins it holds only the bytes they saved through the ABI (state_put), never their
// objects: plugins keep state across sessions only that way.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

namespace caldera {

class WorkerPool;
struct SessionResult;

// What plugins save for the next session (host API state_get / state_put, caldera/plugin.h):
// by plugin name, the bytes and the identity of the plugin file that saved them, so that
// they only go back to the same bytes of the same file.
//
// Where it lives: in the Runtime of whoever runs the sessions one after the other (the run
// loop, the scenario runner, the replay, the Kubernetes loop), which hands it to the next
// session and takes the new states from SessionResult::plugin_states when it accepts that
// session's results (Runtime::carry). Not in the Policy: a policy is immutable, shared with reload trials, and
// replaced by a reload that may keep a plugin (and so its state). Not in the session's
// process either: once sessions run in a worker process, the worker's memory is gone after
// the session, so the states travel back as plain bytes with the decisions, and a session
// whose decisions are dropped leaves the states as they were.
struct PluginState {
  std::string file_id;                         // ConfiguredPlugin::file_id of the file that saved it
  std::shared_ptr<const std::string> bytes;    // never null; shared, so carrying is free
};
using PluginStates = std::map<std::string, PluginState>;

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
  // In a forked session worker: the pool's threads stayed behind in the parent, so the
  // copy's pool is let go without being destroyed (its destructor would join threads that
  // do not exist here) and the next workers() builds one of this process's own.
  void forget_workers();

  // The last HyperNode tree and what it was built from (reused while unchanged).
  HyperNodeTreeMemo& hypernode_memo();

  // True when `text` differs from what was last said under `topic` (and records it):
  // a warning about the config is then said once per change, not once per session.
  bool changed(const std::string& topic, const std::string& text);
  // What was said under each topic (a session worker hands its copy back with its
  // result), and taking such a copy in.
  const std::unordered_map<std::string, std::string>& said() const { return said_; }
  void set_said(std::string topic, std::string text) { said_[std::move(topic)] = std::move(text); }

  // The plugin states the last accepted session left, for the next session to read.
  const PluginStates& plugin_states() const { return states_; }
  // Accepts a session's states (its SessionResult::plugin_states) for the next session: a
  // front end calls it when it commits that session's decisions, and only then.
  void carry(PluginStates states) { states_ = std::move(states); }

  // When above 0, a session keeps, for each task it scores, the best `n` nodes of its last
  // scoring with each plugin's score (SessionResult::top_scores): what `caldera explain`
  // shows. 0 (the default) keeps nothing. A forked session worker inherits it.
  void set_explain_top(size_t n) { explain_top_ = n; }
  size_t explain_top() const { return explain_top_; }

  // Binds as they are decided: when set, a session calls it after each statement that
  // bound tasks, with its result so far and the index of the first bind not yet handed
  // over (a session worker writes them to the supervisor, which sends them while the
  // session goes on: SessionWorker::stream_binds). Unset: the binds go with the result.
  using BindStream = std::function<void(const SessionResult&, size_t first)>;
  void set_bind_stream(BindStream f) { bind_stream_ = std::move(f); }
  const BindStream& bind_stream() const { return bind_stream_; }

 private:
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<HyperNodeTreeMemo> memo_;
  std::unordered_map<std::string, std::string> said_;
  PluginStates states_;
  size_t explain_top_ = 0;
  BindStream bind_stream_;
};

}  // namespace caldera
