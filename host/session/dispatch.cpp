// The extension points as the session's methods: each is combine<slot> (dispatch.hpp) on the
// slot's chain, with the rule its row of the point table gives, and the host's own fallback
// where the rule leaves the answer open (the fallback orders, the best node by score). The
// chains are built here at open, from the point table; the node-level chains (predicate,
// node_order) are in node_dispatch.cpp.
// Follows Volcano's pkg/scheduler/framework/session_plugins.go.
#include "host/session/dispatch.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <utility>

#include "host/session/host_api.hpp"

namespace caldera {

PointStatus failed_status(cal_code code, const cal_status& st, const std::string& plugin) {
  PointStatus ps;
  ps.code = code;
  ps.reason = st.reason;
  ps.plugin = plugin;
  if (code == CAL_ERROR)
    spdlog::error("plugin {}: error: {}", plugin, ps.reason.empty() ? "no reason" : ps.reason);
  if (ps.reason.empty()) ps.reason = plugin + " refused";
  return ps;
}

namespace dispatch {

void broke_contract(int32_t plugin_index, const std::string& plugin, Slot s, int32_t node,
                    const std::string& what) {
  const std::string text =
      fmt::format("plugin {}, point {}: broke the ABI contract: {}", plugin, slot_name(s), what);
  plugin_broke_contract(plugin_index, static_cast<int32_t>(s), node, text.c_str());
}

bool valid_code(cal_code code) { return code >= CAL_SUCCESS && code <= CAL_SKIP; }

}  // namespace dispatch

// ---------------------------------------------------------------------------------------
// the chains
// ---------------------------------------------------------------------------------------

namespace {
template <Slot S>
void add_call(std::vector<PluginCall>& chain, const ConfiguredPlugin& plugin,
              const cal_plugin* desc, void* self, uint32_t tier, int32_t index) {
  using Info = SlotInfo<S>;
  typename Info::Fn fn = Info::get(desc);
  if (!fn) return;
  if constexpr (!Info::always)
    if (!plugin.points.has(Info::point)) return;
  chain.push_back(PluginCall{reinterpret_cast<void (*)()>(fn), self, &plugin.name, tier, index});
}
}  // namespace

void PluginChains::add(const ConfiguredPlugin& plugin, const cal_plugin* desc, void* self,
                       uint32_t tier, int32_t index) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (add_call<static_cast<Slot>(I)>(chains_[I], plugin, desc, self, tier, index), ...);
  }(std::make_index_sequence<kSlotCount>{});
}

void Session::flatten_chains() {
  for (size_t ti = 0; ti < tiers_.size(); ++ti)
    for (const auto& in : tiers_[ti])
      chains_.add(*in.plugin, in.desc, in.self, static_cast<uint32_t>(ti), in.index);
  flatten_node_chains();
}

bool Session::has_point(Point p) const {
  for (const auto& tier : tiers_)
    for (const auto& in : tier)
      if (in.plugin->points.has(p)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------
// orders
// ---------------------------------------------------------------------------------------

bool Session::job_order_less(const JobInfo* l, const JobInfo* r) const {
  if (int c = combine<Slot::job_order>(chains_, to_handle(l), to_handle(r))) return c < 0;
  // Volcano's JobOrderFn fallback: creation time, then the job id (namespace/name).
  if (l->created != r->created) return l->created < r->created;
  return l->uid < r->uid;
}

bool Session::queue_order_less(const QueueInfo* l, const QueueInfo* r) const {
  if (int c = combine<Slot::queue_order>(chains_, to_handle(l), to_handle(r))) return c < 0;
  if (l->created != r->created) return l->created < r->created;
  return l->name < r->name;
}

bool Session::task_order_less(const TaskInfo* l, const TaskInfo* r) const {
  if (int c = combine<Slot::task_order>(chains_, to_handle(l), to_handle(r))) return c < 0;
  return task_fallback_less(l, r);
}

// ---------------------------------------------------------------------------------------
// the best node
// ---------------------------------------------------------------------------------------

NodeInfo* Session::best_node(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                             const std::vector<double>& scores) const {
  if (nodes.empty()) return nullptr;
  const int64_t chosen =
      combine<Slot::best_node>(chains_, nodes.size(), to_handle(t),
                               reinterpret_cast<const cal_node* const*>(nodes.data()),
                               scores.data(), nodes.size());
  if (chosen >= 0) return nodes[static_cast<size_t>(chosen)];
  // Highest score; among equal scores the node first by name (Volcano picks at random;
  // Caldera must be deterministic).
  size_t best = 0;
  for (size_t i = 1; i < nodes.size(); ++i) {
    if (scores[i] > scores[best] ||
        (scores[i] == scores[best] && nodes[i]->name < nodes[best]->name))
      best = i;
  }
  return nodes[best];
}

// ---------------------------------------------------------------------------------------
// victims
// ---------------------------------------------------------------------------------------

namespace {
std::vector<const cal_task*> task_handles(const std::vector<TaskInfo*>& tasks) {
  std::vector<const cal_task*> handles(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) handles[i] = to_handle(tasks[i]);
  return handles;
}

std::vector<TaskInfo*> marked(const std::vector<TaskInfo*>& tasks,
                              const std::vector<uint8_t>& marks) {
  std::vector<TaskInfo*> out;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (marks[i]) out.push_back(tasks[i]);
  return out;
}
}  // namespace

std::vector<TaskInfo*> Session::preemptable(const TaskInfo* preemptor,
                                            const std::vector<TaskInfo*>& candidates) const {
  const std::vector<const cal_task*> handles = task_handles(candidates);
  std::vector<uint8_t> victims(candidates.size());
  combine<Slot::preemptable>(chains_, candidates.size(), victims.data(), to_handle(preemptor),
                             handles.data(), handles.size());
  return marked(candidates, victims);
}

std::vector<TaskInfo*> Session::reclaimable(const TaskInfo* reclaimer,
                                            const std::vector<TaskInfo*>& candidates) const {
  const std::vector<const cal_task*> handles = task_handles(candidates);
  std::vector<uint8_t> victims(candidates.size());
  combine<Slot::reclaimable>(chains_, candidates.size(), victims.data(), to_handle(reclaimer),
                             handles.data(), handles.size());
  return marked(candidates, victims);
}

std::vector<TaskInfo*> Session::unified_evictable(const EvictionContext& ctx,
                                                  const std::vector<TaskInfo*>& candidates) const {
  const std::vector<const cal_task*> handles = task_handles(candidates);
  const std::string hypernode(ctx.hypernode);
  cal_eviction_context c{};
  c.struct_size = sizeof c;
  c.kind = static_cast<uint32_t>(ctx.kind);
  c.job = ctx.job ? to_handle(ctx.job) : nullptr;
  c.task = ctx.task ? to_handle(ctx.task) : nullptr;
  c.hypernode = hypernode.c_str();
  c.hypernode_handle = ctx.hypernode_info ? to_handle(ctx.hypernode_info) : nullptr;
  std::vector<uint8_t> victims(candidates.size());
  combine<Slot::unified_evictable>(chains_, candidates.size(), victims.data(), &c,
                                   handles.data(), handles.size());
  return marked(candidates, victims);
}

std::vector<TaskInfo*> Session::victim_tasks(const std::vector<TaskInfo*>& tasks) const {
  const std::vector<const cal_task*> handles = task_handles(tasks);
  std::vector<uint8_t> victims(tasks.size());
  combine<Slot::victim_tasks>(chains_, tasks.size(), victims.data(), handles.data(),
                              handles.size());
  return marked(tasks, victims);
}

// ---------------------------------------------------------------------------------------
// queue and job checks, votes, job_valid, job_enqueued
// ---------------------------------------------------------------------------------------

bool Session::overused(const QueueInfo* q) const {
  return combine<Slot::overused>(chains_, to_handle(q));
}

bool Session::allocatable(const QueueInfo* q, const TaskInfo* t) const {
  return combine<Slot::allocatable>(chains_, to_handle(q), to_handle(t));
}

bool Session::preemptive(const QueueInfo* q, const TaskInfo* t) const {
  return preemptive(q, std::vector<TaskInfo*>{const_cast<TaskInfo*>(t)});
}

bool Session::preemptive(const QueueInfo* q, const std::vector<TaskInfo*>& tasks) const {
  const std::vector<const cal_task*> handles = task_handles(tasks);
  if (!combine<Slot::preemptive_many>(chains_, to_handle(q), handles.data(), handles.size()))
    return false;
  // A plugin without the many-task form answers for each task (plugin.h, preemptive_many);
  // one with both answered above.
  const auto& many = chains_[Slot::preemptive_many];
  for (const PluginCall& c : chains_[Slot::preemptive]) {
    const bool answered = std::any_of(many.begin(), many.end(),
                                      [&](const PluginCall& m) { return m.name == c.name; });
    if (answered) continue;
    for (const cal_task* t : handles)
      if (!dispatch::call<Slot::preemptive>(c, to_handle(q), t)) return false;
  }
  return true;
}

bool Session::job_ready(const JobInfo* j) const {
  return combine<Slot::job_ready>(chains_, to_handle(j));
}

bool Session::job_pipelined(const JobInfo* j) const {
  return combine<Slot::job_pipelined>(chains_, to_handle(j));
}

bool Session::job_enqueueable(const JobInfo* j) const {
  return combine<Slot::job_enqueueable>(chains_, to_handle(j));
}

bool Session::job_starving(const JobInfo* j) const {
  return combine<Slot::job_starving>(chains_, to_handle(j));
}

void Session::job_enqueued(JobInfo* j) { combine<Slot::job_enqueued>(chains_, to_handle(j)); }

PointStatus Session::job_valid(const JobInfo* j) const {
  return combine<Slot::job_valid>(chains_, to_handle(j));
}

// ---------------------------------------------------------------------------------------
// sub-jobs
// ---------------------------------------------------------------------------------------

const JobSubJobs& Session::sub_jobs(const JobInfo* j) const {
  std::lock_guard<std::mutex> lock(sub_jobs_mutex_);
  auto& slot = sub_jobs_[j];
  if (!slot) slot = build_sub_jobs(const_cast<JobInfo*>(j), hypernodes_, cluster_top_tier());
  return *slot;
}

SubJobInfo* Session::sub_job_of(const TaskInfo* t) const {
  const JobSubJobs& s = sub_jobs(t->job);
  auto it = s.of_task.find(t);
  return it == s.of_task.end() ? nullptr : it->second;
}

bool Session::sub_job_ready(const SubJobInfo* s) const {
  if (!sub_jobs(s->job).has_policy) return job_ready(s->job);
  return combine<Slot::sub_job_ready>(chains_, to_handle(s));
}

bool Session::sub_job_pipelined(const SubJobInfo* s) const {
  if (!sub_jobs(s->job).has_policy) return job_pipelined(s->job);
  return combine<Slot::sub_job_pipelined>(chains_, to_handle(s));
}

bool Session::sub_job_order_less(const SubJobInfo* l, const SubJobInfo* r) const {
  if (int c = combine<Slot::sub_job_order>(chains_, to_handle(l), to_handle(r))) return c < 0;
  if (l->match_index != r->match_index) return l->match_index < r->match_index;
  return l->uid < r->uid;
}

int32_t Session::cluster_top_tier() const {
  int32_t top = 1;
  for (int32_t t : hypernodes_.tiers())
    if (t >= top) top = t + 1;
  return top;
}

HyperNodeInfo* Session::task_allocated_hypernode(const TaskInfo* t) const {
  auto it = task_allocated_hypernode_.find(t);
  return it == task_allocated_hypernode_.end() ? nullptr : it->second;
}

void Session::set_task_allocated_hypernode(const TaskInfo* t, HyperNodeInfo* h) {
  task_allocated_hypernode_[t] = h;
}

}  // namespace caldera
