// The node-level chains: pre_predicate, predicate and node_order over runs of nodes, the
// hot paths of every placement. The chains are flattened once at open
// (flatten_node_chains), in tier and plugin order, so the per-node loops make no lookups;
// they run on the session's worker pool when every plugin taking part allows it. Their
// rules are the point table's (AllPass for predicate, Sum for node_order), in loops of
// their own over runs of nodes; pre_predicate, once per task, is combine<pre_predicate>.
// Follows Volcano's pkg/scheduler/framework/session_plugins.go (PrePredicateFn,
// PredicateFn, NodeOrderFn, BatchNodeOrderFn).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "host/session/dispatch.hpp"
#include "host/session/host_api.hpp"
#include "host/session/runtime.hpp"
#include "host/util/log.hpp"
#include "host/util/worker_pool.hpp"

namespace caldera {

namespace {
// The longest reason a plugin may hand over by pointer (predicate_many): longer, or not
// terminated at all, is a broken contract.
constexpr size_t kMaxReason = 4096;
}  // namespace

void Session::flatten_node_chains() {
  bool parallel_predicates = true, parallel_scores = true;
  for (const auto& tier : tiers_)
    for (const auto& in : tier) {
      const cal_plugin* d = in.desc;
      const bool parallel = (d->capabilities & CAL_CAP_NODE_PARALLEL) != 0;
      NodeCall call{in.self,  &in.plugin->name, in.index, nullptr,
                    nullptr,  nullptr,          nullptr,  nullptr};
      if (in.plugin->points.has(SlotInfo<Slot::predicate>::point)) {
        call.predicate = SlotInfo<Slot::predicate>::get(d);
        call.predicate_many = SlotInfo<Slot::predicate_many>::get(d);
      }
      if (in.plugin->points.has(SlotInfo<Slot::node_order>::point)) {
        call.node_order = SlotInfo<Slot::node_order>::get(d);
        call.node_order_many = SlotInfo<Slot::node_order_many>::get(d);
        call.batch_node_order = SlotInfo<Slot::batch_node_order>::get(d);
      }
      if (call.predicate || call.predicate_many) {
        predicates_.push_back(call);
        parallel_predicates = parallel_predicates && parallel;
      }
      if (call.node_order || call.node_order_many || call.batch_node_order) {
        scorers_.push_back(call);
        if (call.node_order || call.node_order_many) parallel_scores = parallel_scores && parallel;
      }
    }
  workers_ = &runtime_->workers(static_cast<size_t>(std::max(0, policy_->config.threads)));
  const bool many = workers_->threads() > 1;
  predicates_parallel_ = many && parallel_predicates;
  scores_parallel_ = many && parallel_scores;
}

PointStatus Session::pre_predicate(const TaskInfo* t) const {
  t->pre_predicated = true;
  return combine<Slot::pre_predicate>(chains_, to_handle(t));
}

namespace {
const char* code_name(cal_code c) {
  switch (c) {
    case CAL_SUCCESS: return "Success";
    case CAL_ERROR: return "Error";
    case CAL_UNSCHEDULABLE: return "Unschedulable";
    case CAL_UNSCHEDULABLE_AND_UNRESOLVABLE: return "UnschedulableAndUnresolvable";
    case CAL_WAIT: return "Wait";
    case CAL_SKIP: return "Skip";
  }
  return "?";
}
}  // namespace

void Session::predicate_codes(const TaskInfo* t, const NodeInfo* const* nodes, size_t count,
                              cal_code* codes, const std::string** plugins, const char** reasons,
                              cal_status* statuses) const {
  for (size_t i = 0; i < count; ++i) {
    codes[i] = CAL_SUCCESS;
    plugins[i] = nullptr;
    reasons[i] = nullptr;
  }
  // The nodes still passing, in order; each plugin of the chain sees only those (the first
  // failure stops a node's chain).
  thread_local std::vector<const cal_node*> alive_buf;
  thread_local std::vector<size_t> where_buf;
  thread_local std::vector<cal_code> code_buf;
  thread_local std::vector<const char*> reason_buf;
  std::vector<const cal_node*>& alive = alive_buf;
  std::vector<size_t>& where = where_buf;
  alive.resize(count);
  where.resize(count);
  for (size_t i = 0; i < count; ++i) {
    alive[i] = to_handle(nodes[i]);
    where[i] = i;
  }
  size_t live = count;
  Crumb* crumb = my_crumb();
  auto node_index = [&](size_t k) { return static_cast<int32_t>(nodes[where[k]]->index); };
  for (const NodeCall& c : predicates_) {
    if (live == 0) break;
    if (c.predicate_many) {
      code_buf.resize(live);
      reason_buf.resize(live);
      std::vector<cal_code>& cs = code_buf;
      std::vector<const char*>& rs = reason_buf;
      // The crumb stays on the plugin while its answers are read: a wild reason pointer
      // faults here, and the plugin is named.
      CrumbScope in_plugin(crumb, c.index, static_cast<int32_t>(Slot::predicate_many),
                           node_index(0), static_cast<int32_t>(live));
      c.predicate_many(c.self, to_handle(t), alive.data(), live, cs.data(), rs.data());
      size_t kept = 0;
      for (size_t k = 0; k < live; ++k) {
        // Read as the int it is: a value outside the enum must not be loaded as one.
        int raw;
        std::memcpy(&raw, &cs[k], sizeof raw);
        if (raw < CAL_SUCCESS || raw > CAL_SKIP)
          dispatch::broke_contract(c.index, *c.name, Slot::predicate_many, node_index(k),
                                   fmt::format("returned status code {} (expected 0..5, cal_code)",
                                               raw));
        if (cs[k] == CAL_SUCCESS || cs[k] == CAL_SKIP) {
          alive[kept] = alive[k];
          where[kept++] = where[k];
          continue;
        }
        if (rs[k] && ::strnlen(rs[k], kMaxReason) == kMaxReason)
          dispatch::broke_contract(c.index, *c.name, Slot::predicate_many, node_index(k),
                                   fmt::format("gave a reason of {} bytes or more", kMaxReason));
        codes[where[k]] = cs[k];
        plugins[where[k]] = c.name;
        reasons[where[k]] = rs[k];
      }
      live = kept;
    } else {
      size_t kept = 0;
      CrumbScope in_plugin(crumb, c.index, static_cast<int32_t>(Slot::predicate));
      for (size_t k = 0; k < live; ++k) {
        cal_status& st = statuses[where[k]];
        st.struct_size = sizeof st;
        st.reason[0] = '\0';
        in_plugin.node(node_index(k));
        const cal_code code = c.predicate(c.self, to_handle(t), alive[k], &st);
        dispatch::check_status(c, Slot::predicate, code, st, node_index(k));
        if (code == CAL_SUCCESS || code == CAL_SKIP) {
          alive[kept] = alive[k];
          where[kept++] = where[k];
          continue;
        }
        codes[where[k]] = code;
        plugins[where[k]] = c.name;
        reasons[where[k]] = st.reason[0] != '\0' ? st.reason : nullptr;
      }
      live = kept;
    }
  }
  // kube-scheduler's verbosity: every node's filter verdict from -v 10.
  if (log_verbosity() >= kLogVerdicts && spdlog::should_log(spdlog::level::trace))
    for (size_t i = 0; i < count; ++i) {
      if (codes[i] == CAL_SUCCESS)
        spdlog::trace("filter: task {} fits node {}", t->uid, nodes[i]->name);
      else
        spdlog::trace("filter: task {} does not fit node {}: {} ({}): {}", t->uid,
                      nodes[i]->name, plugins[i] ? *plugins[i] : std::string("?"),
                      code_name(codes[i]),
                      reasons[i] ? reasons[i] : statuses[i].reason);
    }
}

PointStatus Session::predicate(const TaskInfo* t, const NodeInfo* n) const {
  cal_code code;
  const std::string* plugin = nullptr;
  const char* reason = nullptr;
  cal_status st;
  predicate_codes(t, &n, 1, &code, &plugin, &reason, &st);
  if (code == CAL_SUCCESS) return {};
  cal_status out;
  out.struct_size = sizeof out;
  std::snprintf(out.reason, sizeof out.reason, "%s", reason ? reason : "");
  return failed_status(code, out, *plugin);
}

void Session::node_scores(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                          std::vector<double>& scores) const {
  const size_t count = nodes.size();
  scores.assign(count, 0.0);
  if (count == 0 || scorers_.empty()) return;
  const auto* handles = reinterpret_cast<const cal_node* const*>(nodes.data());
  // One row of partial scores per slot call (a plugin with both slots has two), summed per
  // node in call order at the end, so that the sums are the same however the per-node
  // calls were spread over threads.
  const size_t rows = scorers_.size() * 2;
  // The scheduling thread's buffer, named by a reference: inside the lambda a thread_local
  // would mean each worker's own.
  thread_local std::vector<double> buffer;
  std::vector<double>& part = buffer;
  // Not cleared: a per-node row is written whole, a batch row is zeroed before its call,
  // and a row with no slot is never read (zeroing every row was a memset per task placed
  // as large as the rows).
  if (part.size() < rows * count) part.resize(rows * count);
  auto index_of = [&](size_t i) { return static_cast<int32_t>(nodes[i]->index); };
  auto per_node = [&](size_t begin, size_t end) {
    Crumb* crumb = my_crumb();  // this thread's
    for (size_t k = 0; k < scorers_.size(); ++k) {
      const NodeCall& c = scorers_[k];
      double* row = &part[(2 * k) * count];
      if (c.node_order_many) {
        cal_status st;
        st.struct_size = sizeof st;
        st.reason[0] = '\0';
        CrumbScope in_plugin(crumb, c.index, static_cast<int32_t>(Slot::node_order_many),
                             index_of(begin), static_cast<int32_t>(end - begin));
        const cal_code code =
            c.node_order_many(c.self, to_handle(t), handles + begin, end - begin, row + begin, &st);
        dispatch::check_status(c, Slot::node_order_many, code, st, index_of(begin));
        if (code != CAL_SUCCESS) {
          spdlog::error("plugin {}: node_order failed: {}", *c.name, st.reason);
          std::fill(row + begin, row + end, 0.0);
        }
        dispatch::check_scores(c, Slot::node_order_many, row + begin, end - begin,
                               [&](size_t i) { return index_of(begin + i); });
        continue;
      }
      if (!c.node_order) continue;
      CrumbScope in_plugin(crumb, c.index, static_cast<int32_t>(Slot::node_order));
      for (size_t i = begin; i < end; ++i) {
        cal_status st;
        st.struct_size = sizeof st;
        st.reason[0] = '\0';
        double s = 0;
        in_plugin.node(index_of(i));
        const cal_code code = c.node_order(c.self, to_handle(t), handles[i], &s, &st);
        dispatch::check_status(c, Slot::node_order, code, st, index_of(i));
        if (code != CAL_SUCCESS) {
          spdlog::error("plugin {}: node_order failed on {}: {}", *c.name, nodes[i]->name,
                        st.reason);
          s = 0;
        }
        if (!std::isfinite(s))
          dispatch::broke_contract(c.index, *c.name, Slot::node_order, index_of(i),
                                   fmt::format("score {} (scores must be finite)",
                                               dispatch::finite_name(s)));
        row[i] = s;
      }
    }
  };
  // Parallel only where the work pays for the hand-over (a few hundred calls).
  constexpr size_t kMinChunk = 64;
  if (scores_parallel_ && count >= 2 * kMinChunk)
    workers_->run(count, kMinChunk, per_node);
  else
    per_node(0, count);
  for (size_t k = 0; k < scorers_.size(); ++k) {
    const NodeCall& c = scorers_[k];
    if (!c.batch_node_order) continue;
    cal_status st;
    st.struct_size = sizeof st;
    st.reason[0] = '\0';
    double* row = &part[(2 * k + 1) * count];
    std::fill(row, row + count, 0.0);  // batch_node_order adds to its scores
    CrumbScope in_plugin(my_crumb(), c.index, static_cast<int32_t>(Slot::batch_node_order),
                         index_of(0), static_cast<int32_t>(count));
    const cal_code code = c.batch_node_order(c.self, to_handle(t), handles, count, row, &st);
    dispatch::check_status(c, Slot::batch_node_order, code, st, index_of(0));
    if (code != CAL_SUCCESS) {
      spdlog::error("plugin {}: batch_node_order failed: {}", *c.name, st.reason);
      std::fill(row, row + count, 0.0);
    }
    dispatch::check_scores(c, Slot::batch_node_order, row, count, index_of);
  }
  for (size_t r = 0; r < rows; ++r) {
    const NodeCall& c = scorers_[r / 2];
    if (r % 2 == 0 ? !(c.node_order || c.node_order_many) : !c.batch_node_order)
      continue;
    const double* row = &part[r * count];
    for (size_t i = 0; i < count; ++i) scores[i] += row[i];
    // kube-scheduler's verbosity: every plugin's score of every node from -v 5.
    if (log_verbosity() >= kLogScores && spdlog::should_log(spdlog::level::trace)) {
      std::string text;
      for (size_t i = 0; i < count; ++i)
        text += fmt::format("{}{} {}", i ? ", " : "", nodes[i]->name, row[i]);
      spdlog::trace("scores of {} for task {}: {}", *c.name, t->uid, text);
    }
  }
  if (const size_t top = runtime_->explain_top(); top > 0) keep_top_scores(t, nodes, scores, part, top);
}

void Session::keep_top_scores(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                              const std::vector<double>& scores, const std::vector<double>& part,
                              size_t top) const {
  const size_t count = nodes.size();
  // The best `top` (a handful) picked in one pass, no index of every node: best first,
  // equal totals in the order the search visited the nodes.
  std::vector<size_t> best;
  best.reserve(top + 1);
  for (size_t i = 0; i < count; ++i) {
    auto at = std::find_if(best.begin(), best.end(), [&](size_t b) { return scores[i] > scores[b]; });
    if (static_cast<size_t>(at - best.begin()) >= top) continue;
    best.insert(at, i);
    if (best.size() > top) best.pop_back();
  }
  std::vector<NodeScore>& out = top_scores_[std::string(t->uid)];
  out.clear();
  for (const size_t i : best) {
    NodeScore ns{nodes[i]->name, scores[i], {}};
    for (size_t p = 0; p < scorers_.size(); ++p) {
      const NodeCall& c = scorers_[p];
      double s = 0;
      if (c.node_order || c.node_order_many) s += part[(2 * p) * count + i];
      if (c.batch_node_order) s += part[(2 * p + 1) * count + i];
      ns.plugins.emplace_back(*c.name, s);
    }
    out.push_back(std::move(ns));
  }
}

}  // namespace caldera
