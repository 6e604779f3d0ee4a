// Breadcrumbs: where a session is, written where a process that dies cannot take it along.
//
// Sessions run in a worker process (host/supervisor/session_worker.hpp). When the worker
// dies (a signal, exit(), the watchdog's SIGKILL), the supervisor must still say which
// plugin and which extension point were running, and on which node ("plugin evil-segv,
// point predicate, node n4: SIGSEGV"). So, before each plugin call, the dispatch writes
// the plugin, the slot and the node into a board of shared memory that the supervisor
// mapped before the fork, and clears it after the call; the supervisor reads the board
// once the worker is gone. Writing a crumb is a few plain stores: the node-level loops
// pay almost nothing for it.
//
// One crumb per thread (the node-level loops run on the worker pool's threads), indexed
// by WorkerPool::thread_index(). Only plain integers and fixed arrays live on the board:
// nothing in it points into the worker's memory. Node names are written once per session
// into the board's name table (in node index order) so the supervisor can name a node by
// its index after the worker died, whatever its own cache holds by then.
//
// The board is a property of the process that runs sessions (the signal handler that
// records a fault must find it), so it is reached through one process-wide pointer, set by
// the worker right after the fork and null everywhere else: a session run in process (the
// scenario runner's in-process mode, tests, benchmarks) writes no crumbs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>
#include <vector>

namespace caldera {

// Stages of a session, for crumbs that name no plugin.
enum class SessionStage : int32_t {
  None = 0,
  Opening,   // Session::open: the snapshot, then each plugin's open()
  Action,    // an action runs (CrumbBoard::action names it)
  Closing,   // Session::close: each plugin's close(), the job status
  Encoding,  // the result is being written back
  Done,
};

// The slot values of a crumb beyond the point table's slots (host/config/points.hpp).
inline constexpr int32_t kCrumbOpen = 1000;   // a plugin's open()
inline constexpr int32_t kCrumbClose = 1001;  // a plugin's close()
inline constexpr int32_t kCrumbLoad = 1002;   // loading a plugin's code (constructors, entry)

struct alignas(64) Crumb {
  std::atomic<int32_t> plugin{-1};  // index of the plugin in the policy (tiers in order), -1: none
  std::atomic<int32_t> slot{-1};    // Slot (points.hpp), kCrumbOpen / kCrumbClose / kCrumbLoad, -1: none
  std::atomic<int32_t> node{-1};    // NodeInfo::index of the node being looked at, -1: none
  std::atomic<int32_t> run{0};      // for a call over a run of nodes: how many from `node`
};

struct CrumbBoard {
  static constexpr uint32_t kMagic = 0x43524d42;  // "CRMB"
  static constexpr size_t kThreads = 64;          // threads beyond that share the last crumb
  static constexpr size_t kTaskBytes = 256;
  static constexpr size_t kNoteBytes = 512;

  uint32_t magic = kMagic;
  std::atomic<int32_t> stage{0};            // SessionStage
  std::atomic<int32_t> action{-1};          // index into the policy's actions
  std::atomic<int32_t> fault_signal{0};     // set by the worker's fatal signal handler
  std::atomic<int32_t> fault_thread{-1};    // the thread that took the signal
  std::atomic<int32_t> note_plugin{-1};     // the plugin a note blames (-1: none)
  std::atomic<int32_t> note_slot{-1};
  std::atomic<int32_t> note_node{-1};
  char task[kTaskBytes] = {};   // uid of the task being placed (NUL-terminated, may be cut)
  char note[kNoteBytes] = {};   // the worker's own account of a fault (invalid output, ...)
  Crumb threads[kThreads];

  // The node name table: `names_size` bytes after the board, written at open as
  // "name\0name\0..." in node index order; `names_used` bytes are valid, `names_count`
  // names are complete.
  size_t names_size = 0;
  std::atomic<size_t> names_used{0};
  std::atomic<int32_t> names_count{0};
  char* names() { return reinterpret_cast<char*>(this + 1); }
  const char* names() const { return reinterpret_cast<const char*>(this + 1); }
};

// The board of this process: set by a session worker right after its fork, else null.
CrumbBoard* crumb_board();
void set_crumb_board(CrumbBoard* board);

// This thread's crumb, or null when no board is set.
Crumb* my_crumb();

// Marks a plugin call on this thread for its lifetime: plugin, slot and (optionally) the
// node or run of nodes. Cheap enough for the per-node loops.
class CrumbScope {
 public:
  CrumbScope(Crumb* c, int32_t plugin, int32_t slot, int32_t node = -1, int32_t run = 0)
      : c_(c) {
    if (!c_) return;
    c_->node.store(node, std::memory_order_relaxed);
    c_->run.store(run, std::memory_order_relaxed);
    c_->slot.store(slot, std::memory_order_relaxed);
    c_->plugin.store(plugin, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  // Moves to another node inside the same call loop.
  void node(int32_t n) {
    if (c_) c_->node.store(n, std::memory_order_relaxed);
  }
  ~CrumbScope() {
    // An exception on its way out of the plugin leaves the crumb in place: the worker's
    // last catch names the plugin it came from.
    if (!c_ || std::uncaught_exceptions() > 0) return;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    c_->plugin.store(-1, std::memory_order_relaxed);
  }
  CrumbScope(const CrumbScope&) = delete;
  CrumbScope& operator=(const CrumbScope&) = delete;

 private:
  Crumb* c_;
};

// The stage and action of the session, on the board (no-ops without one).
void crumb_stage(SessionStage stage, int32_t action = -1);
// The task being placed.
void crumb_task(std::string_view uid);
// The names of the session's nodes, in node index order, into the board's name table
// (as many as fit), so that a crumb's node index can be named after the worker died.
void crumb_node_names(const std::vector<std::string_view>& names);

// A plugin broke the contract in a way the session cannot go on from (a NaN score, a code
// outside its enum, an index out of range, a reason without its terminating NUL): the
// worker writes `what` on the board, blaming `plugin` (its index in the policy), `slot`
// and `node`, and ends at once with kInvalidOutputExit. In process (no board) it throws
// std::runtime_error with the same text, and the session fails with it.
[[noreturn]] void plugin_broke_contract(int32_t plugin, int32_t slot, int32_t node,
                                        const char* what);
inline constexpr int kInvalidOutputExit = 86;

}  // namespace caldera
