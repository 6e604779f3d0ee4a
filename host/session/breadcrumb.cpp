// Breadcrumbs (breadcrumb.hpp): the process's board and the writes to it.
#include "host/session/breadcrumb.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "host/util/worker_pool.hpp"

namespace caldera {

namespace {
CrumbBoard* g_board = nullptr;  // see breadcrumb.hpp: one board per session process

void copy_text(char* to, size_t cap, const char* from, size_t size) {
  const size_t n = std::min(size, cap - 1);
  std::memcpy(to, from, n);
  to[n] = '\0';
}
}  // namespace

CrumbBoard* crumb_board() { return g_board; }
void set_crumb_board(CrumbBoard* board) { g_board = board; }

Crumb* my_crumb() {
  if (!g_board) return nullptr;
  const size_t i = std::min(WorkerPool::thread_index(), CrumbBoard::kThreads - 1);
  return &g_board->threads[i];
}

void crumb_stage(SessionStage stage, int32_t action) {
  if (!g_board) return;
  g_board->action.store(action, std::memory_order_relaxed);
  g_board->stage.store(static_cast<int32_t>(stage), std::memory_order_relaxed);
}

void crumb_task(std::string_view uid) {
  if (g_board) copy_text(g_board->task, CrumbBoard::kTaskBytes, uid.data(), uid.size());
}

void crumb_node_names(const std::vector<std::string_view>& names) {
  if (!g_board) return;
  size_t used = 0;
  int32_t count = 0;
  for (std::string_view n : names) {
    if (used + n.size() + 1 > g_board->names_size) break;
    std::memcpy(g_board->names() + used, n.data(), n.size());
    g_board->names()[used + n.size()] = '\0';
    used += n.size() + 1;
    ++count;
  }
  g_board->names_used.store(used);
  g_board->names_count.store(count);
}

void plugin_broke_contract(int32_t plugin, int32_t slot, int32_t node, const char* what) {
  if (!g_board) throw std::runtime_error(what);
  copy_text(g_board->note, CrumbBoard::kNoteBytes, what, std::strlen(what));
  g_board->note_plugin.store(plugin);
  g_board->note_slot.store(slot);
  g_board->note_node.store(node);
  ::_exit(kInvalidOutputExit);
}

}  // namespace caldera
