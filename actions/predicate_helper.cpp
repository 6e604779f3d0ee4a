// Volcano's util.PredicateHelper.PredicateNodes with a deterministic walk (see the header).
#include "actions/predicate_helper.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "actions/placement.hpp"
#include "host/session/breadcrumb.hpp"
#include "host/util/worker_pool.hpp"

namespace caldera {

namespace {
// Nodes per parallel batch at least: below this the hand-over to other threads costs more
// than it saves.
constexpr size_t kMinParallelBatch = 256;
constexpr size_t kMinChunk = 64;
}  // namespace

// Failure words: the top two bits say what the rest holds.
//   kHostMask   bit d (d < kMaskDims) for the first resource d the node lacks (Volcano words
//               one); none at all for "didn't pass the predicates".
//   kPluginId   a reason id of the session's table.
//   kPoolEntry  the offset of an entry of pool_ (host failures with resources past the mask).
// Bit 61 (kUnresolvable) marks a plugin refusal with code UnschedulableAndUnresolvable:
// preempt and reclaim leave such nodes out for the task (Volcano's
// FilterOutUnschedulableAndUnresolvableNodesForTask).
namespace {
constexpr uint64_t kKindShift = 62;
constexpr uint64_t kHostMask = uint64_t{1} << kKindShift;
constexpr uint64_t kPluginId = uint64_t{2} << kKindShift;
constexpr uint64_t kPoolEntry = uint64_t{3} << kKindShift;
constexpr uint64_t kUnresolvable = uint64_t{1} << 61;
constexpr uint64_t kPayload = kUnresolvable - 1;
constexpr size_t kMaskDims = 61;

// Arrays of failure slots, all zero, kept for the next helper of this thread.
thread_local std::vector<std::vector<uint64_t>> spare_slots;
}  // namespace

PredicateHelper::~PredicateHelper() {
  for (auto& [key, g] : groups_) {
    for (uint32_t i : g.written) g.slots[i] = 0;
    if (spare_slots.size() < 16) spare_slots.push_back(std::move(g.slots));
  }
}

PredicateHelper::Group* PredicateHelper::group_of(const TaskInfo* t, bool create) {
  // Volcano's taskGroupID: job and task spec; a pod without a task spec is its own group.
  std::string key;
  if (t->role.empty()) {
    key.append("pod:").append(t->uid);
  } else {
    if (t->job) key.append(t->job->uid);
    key.append("/").append(t->role);
  }
  auto it = groups_.find(key);
  if (it != groups_.end()) return &it->second;
  if (!create) return nullptr;
  Group g;
  if (!spare_slots.empty()) {
    g.slots = std::move(spare_slots.back());
    spare_slots.pop_back();
  }
  g.slots.resize(ssn_.nodes().size(), 0);  // a spare array is all zero already
  return &groups_.emplace(std::move(key), std::move(g)).first->second;
}

void PredicateHelper::evaluate(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                               size_t first, size_t count, size_t at, const NodeFilter& filter,
                               const Group* cached) {
  thread_local std::vector<const NodeInfo*> run_buf;
  thread_local std::vector<size_t> slot_buf;
  thread_local std::vector<cal_code> code_buf;
  thread_local std::vector<const std::string*> plugin_buf;
  thread_local std::vector<const char*> reason_buf;
  std::vector<const NodeInfo*>& run = run_buf;
  std::vector<size_t>& slot = slot_buf;
  run.clear();
  slot.clear();
  // The resource check reads the nodes' future idle from the session's table (rows by node
  // index, contiguous: a walk streams through it) and only the dimensions the task asks
  // for (placement::fits: cpu and memory always, a scalar when requested).
  thread_local std::vector<uint32_t> dims_buf;
  std::vector<uint32_t>& dims = dims_buf;
  dims.clear();
  const size_t R = ssn_.resource_count();
  const double* idle = ssn_.node_table(CAL_NODE_FUTURE_IDLE);
  for (size_t d = 0; d < std::min(t->init_resreq.size(), R); ++d)
    if (d < placement::kFixedDims || t->init_resreq[d] > 0) dims.push_back(static_cast<uint32_t>(d));
  const size_t all = nodes.size();
  size_t i = first % all;
  for (size_t k = 0; k < count; ++k) {
    const NodeInfo* n = nodes[i];
    if (++i == all) i = 0;
    Verdict& v = verdicts_[at + k];
    v.ok = false;
    v.cached = false;
    v.host_failed = false;
    v.plugin = nullptr;
    v.reason = nullptr;
    const uint32_t node = n->index;
    if (cached != nullptr && cached->slots[node] != 0) {
      v.cached = true;
      continue;
    }
    // The action's own checks come first and, when they fail, the plugins are not asked
    // (Volcano returns the insufficient-resource fit error at once).
    if (filter.resources) {
      const double* row = idle + static_cast<size_t>(node) * R;
      bool fits = true;
      for (uint32_t d : dims)
        if (!res::le(t->init_resreq[d], row[d])) {
          fits = false;
          break;
        }
      if (!fits) {
        v.host_failed = true;
        continue;
      }
    }
    run.push_back(n);
    slot.push_back(at + k);
  }
  if (run.empty()) return;
  code_buf.resize(run.size());
  plugin_buf.resize(run.size());
  reason_buf.resize(run.size());
  ssn_.predicate_codes(t, run.data(), run.size(), code_buf.data(), plugin_buf.data(),
                       reason_buf.data(), statuses_.data() + slot.front());
  for (size_t k = 0; k < run.size(); ++k) {
    Verdict& v = verdicts_[slot[k]];
    v.code = code_buf[k];
    if (v.code == CAL_SUCCESS || (filter.unschedulable_passes && v.code == CAL_UNSCHEDULABLE)) {
      v.ok = true;
    } else {
      v.plugin = plugin_buf[k];
      v.reason = reason_buf[k];
    }
  }
}

PredicateHelper::Failure PredicateHelper::failure_of(const TaskInfo* t, const NodeInfo* n,
                                                     const NodeFilter& filter,
                                                     const Verdict& v) {
  if (v.host_failed) {
    const size_t dims =
        filter.resources ? std::min(t->init_resreq.size(), n->future_idle.size()) : 0;
    // Volcano words only the first resource short (WrapInsufficientResourceReason: cpu,
    // memory, then the scalars; Caldera takes those by id).
    size_t d = 0;
    while (d < dims && placement::dim_fits(t->init_resreq, n->future_idle, d)) ++d;
    if (d == dims) return kHostMask;
    if (d < kMaskDims) return kHostMask | (uint64_t{1} << d);
    const auto at = static_cast<uint64_t>(pool_.size());
    pool_.push_back(1);
    pool_.push_back(ssn_.insufficient_reason(d));
    return kPoolEntry | at;
  }
  const uint64_t unresolvable = v.code == CAL_UNSCHEDULABLE_AND_UNRESOLVABLE ? kUnresolvable : 0;
  return plugin_failure(v) | unresolvable;
}

PredicateHelper::Failure PredicateHelper::plugin_failure(const Verdict& v) {
  const bool worded = v.reason != nullptr && v.reason[0] != '\0';
  if (v.code == CAL_ERROR)
    spdlog::error("plugin {}: error: {}", *v.plugin, worded ? v.reason : "no reason");
  int32_t id;
  if (!worded) {
    id = ssn_.reasons().intern(fmt::format("node(s) didn't pass the {} predicate", *v.plugin));
  } else if (std::strchr(v.reason, '\n') != nullptr) {
    // Several reasons at once, one per line (plugin.h, cal_status): each counts alone. The
    // same words as the last such refusal share its pool entry (no hashing, no growth).
    if (has_last_lines_ && last_lines_ == v.reason) return kPoolEntry | last_lines_at_;
    const auto at = static_cast<uint64_t>(pool_.size());
    last_lines_ = v.reason;
    last_lines_at_ = at;
    has_last_lines_ = true;
    pool_.push_back(0);
    for (std::string_view rest = v.reason; !rest.empty();) {
      const size_t nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl);
      if (!line.empty()) {
        pool_.push_back(ssn_.reasons().intern(line));
        ++pool_[at];
      }
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
    return kPoolEntry | at;
  } else if (last_reason_id_ >= 0 && last_reason_ == v.reason) {
    id = last_reason_id_;  // the same words as the last refusal: no hashing
  } else {
    id = ssn_.reasons().intern(v.reason);
    last_reason_ = v.reason;
    last_reason_id_ = id;
  }
  return kPluginId | static_cast<uint64_t>(id);
}

void PredicateHelper::record(Group*& group, const TaskInfo* t, const NodeInfo* n, Failure f) {
  if (group == nullptr) group = group_of(t, true);
  Failure& slot = group->slots[n->index];
  if (slot == 0) group->written.push_back(n->index);
  slot = f;
}

void PredicateHelper::add_reasons(Failure f, FitErrors& fe) const {
  const uint64_t payload = f & kPayload;
  switch (f & ~(kPayload | kUnresolvable)) {
    case kHostMask:
      if (payload == 0) {
        fe.add("node(s) didn't pass the predicates");
        return;
      }
      for (size_t d = 0; d < kMaskDims; ++d)
        if (payload & (uint64_t{1} << d)) fe.add(ssn_.insufficient_reason(d));
      return;
    case kPluginId:
      fe.add(static_cast<int32_t>(payload));
      return;
    case kPoolEntry: {
      const size_t at = static_cast<size_t>(payload);
      for (int32_t k = 0; k < pool_[at]; ++k) fe.add(pool_[at + 1 + static_cast<size_t>(k)]);
      return;
    }
    default:
      return;
  }
}

std::vector<NodeInfo*> PredicateHelper::predicate_nodes(const TaskInfo* t,
                                                        const std::vector<NodeInfo*>& nodes,
                                                        const NodeFilter& filter,
                                                        FitErrors* fe) {
  const size_t all = nodes.size();
  std::vector<NodeInfo*> found;
  crumb_task(t->uid);  // a supervised session: the task whose nodes are being searched
  if (fe != nullptr) fe->set_nodes(all);
  if (all == 0) return found;
  // Volcano sizes the search by the list it is given (a HyperNode's nodes, say).
  const size_t want = ssn_.policy().config.node_search.nodes_to_find(all);
  const size_t start = ssn_.node_search_start() % all;

  // Volcano reads whether the group failed before once, before it walks the nodes:
  // failures found in this walk only serve later calls. It writes every failure.
  Group* group = group_of(t, false);
  const Group* cached = error_cache_ ? group : nullptr;

  // Runs of nodes are answered at once (one plugin call per run, on every thread when the
  // plugins allow), then read in walk order: the nodes found and the failures recorded
  // are those a node-by-node walk would give. A run asks for no more nodes than are still
  // wanted, so a one-thread walk answers no node past the last one needed; a parallel
  // batch may answer a few more, whose answers are dropped.
  const bool parallel = ssn_.predicates_parallel();
  size_t processed = 0;
  while (processed < all && found.size() < want) {
    const size_t needed = want - found.size();
    const size_t batch = std::min(
        all - processed, parallel ? std::max(kMinParallelBatch, 2 * needed) : std::max<size_t>(needed, 8));
    if (verdicts_.size() < batch) {
      verdicts_.resize(batch);
      statuses_.resize(batch);
    }
    const size_t base = start + processed;
    if (parallel && batch >= kMinParallelBatch) {
      ssn_.workers().run(batch, kMinChunk, [&](size_t b, size_t e) {
        evaluate(t, nodes, base + b, e - b, b, filter, cached);
      });
    } else {
      evaluate(t, nodes, base, batch, 0, filter, cached);
    }
    size_t i = 0;
    for (size_t at = base % all; i < batch && found.size() < want; ++i) {
      NodeInfo* n = nodes[at];
      if (++at == all) at = 0;
      const Verdict& v = verdicts_[i];
      if (v.ok)
        found.push_back(n);
      else if (!v.cached)
        record(group, t, n, failure_of(t, n, filter, v));
    }
    processed += i;
  }
  // The next search starts after the last node this one looked at, counted on this list
  // (Volcano's lastProcessedNodeIndex = (last + processed) % len(nodes)).
  ssn_.set_node_search_start((start + processed) % all);

  // No node: the walk saw every node and each failed, fresh or from the cache, so the
  // group's slots hold every node's reasons.
  if (found.empty() && fe != nullptr && group != nullptr)
    for (const NodeInfo* n : nodes) {
      const Failure f = group->slots[n->index];
      add_reasons(f, *fe);
      if (f & kUnresolvable) fe->add_unresolvable_node(n->index);
    }
  return found;
}

}  // namespace caldera
