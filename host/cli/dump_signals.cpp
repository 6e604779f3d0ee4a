#include "host/cli/dump_signals.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <map>

#include "host/cache/cache.hpp"
#include "host/model/quantity.hpp"
#include "host/scenario/scenario_writer.hpp"
#include "host/util/clock.hpp"
#include "host/util/input_error.hpp"

namespace caldera::cli {

DumpSignals::DumpSignals(uv_loop_t* loop, std::function<const Cache&()> cache,
                         std::filesystem::path dump_dir, std::filesystem::path config_file)
    : cache_(std::move(cache)), dir_(std::move(dump_dir)), config_(std::move(config_file)) {
  uv_signal_init(loop, &usr1_);
  uv_signal_init(loop, &usr2_);
  usr1_.data = usr2_.data = this;
  uv_signal_start(&usr1_, on_signal, SIGUSR1);
  uv_signal_start(&usr2_, on_signal, SIGUSR2);
  open_ = true;
}

DumpSignals::~DumpSignals() { close(); }

void DumpSignals::close() {
  if (!open_) return;
  open_ = false;
  uv_close(reinterpret_cast<uv_handle_t*>(&usr1_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&usr2_), nullptr);
}

void DumpSignals::on_signal(uv_signal_t* h, int signum) {
  auto* self = static_cast<DumpSignals*>(h->data);
  if (signum == SIGUSR1) self->dump_file();
  else self->dump_log();
}

void DumpSignals::dump_file() {
  try {
    const auto file = write_cache_dump(cache_(), dir_, config_, unix_seconds());
    spdlog::info("cache dump: {} (run it: caldera scenario run --explain {})", file.string(),
                 file.string());
  } catch (const InputError& e) {
    spdlog::error("{}", e.what());
  }
}

void DumpSignals::dump_log() {
  const Cache& c = cache_();
  spdlog::info("cache dump: {} nodes, {} pods, {} PodGroups, {} queues", c.nodes().size(),
               c.pods().size(), c.podgroups().size(), c.queues().size());
  struct NodeUse {
    ResourceList used;
    int pods = 0;
  };
  std::map<std::string, NodeUse> on_node;
  std::map<std::string, std::map<std::string, int>> job_pods;  // job -> phase -> count
  for (const auto& [key, p] : c.pods()) {
    if (!p->node.empty() && (p->phase == PodPhase::Pending || p->phase == PodPhase::Running)) {
      NodeUse& u = on_node[p->node];
      ++u.pods;
      for (const auto& [r, v] : p->requests) u.used[r] += v;
    }
    if (!p->podgroup.empty()) ++job_pods[p->ns + "/" + p->podgroup][to_string(p->phase)];
  }
  for (const auto& [name, n] : c.nodes()) {
    const NodeUse& u = on_node[name];
    std::string res;
    for (const auto& [r, v] : n->allocatable) {
      auto it = u.used.find(r);
      res += fmt::format("{}{} {}/{}", res.empty() ? "" : ", ", r,
                         format_amount(r, it == u.used.end() ? 0 : it->second), format_amount(r, v));
    }
    spdlog::info("cache dump: node {}: {}; pods {}/{}{}", name, res, u.pods, n->max_pods,
                 n->unschedulable ? "; unschedulable" : "");
  }
  for (const auto& [key, pg] : c.podgroups()) {
    std::string pods;
    for (const auto& [phase, n] : job_pods[key]) pods += fmt::format("{}{} {}", pods.empty() ? "" : ", ", n, phase);
    spdlog::info("cache dump: job {} (queue {}): {}, minMember {}; pods: {}", key, pg->queue,
                 to_string(pg->phase), pg->min_member, pods.empty() ? "none" : pods);
  }
}

}  // namespace caldera::cli
