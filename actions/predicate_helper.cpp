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

// Arrays of failure slots and bits, all zero, kept for the next helper of this thread.
struct SpareArrays {
  std::vector<uint64_t> slots, failed;
};
thread_local std::vector<SpareArrays> spare_arrays;
}  // namespace

PredicateHelper::~PredicateHelper() {
  for (auto& [key, g] : groups_) {
    for (uint32_t i : g.written) {
      g.slots[i] = 0;
      g.failed[i >> 6] = 0;
    }
    if (spare_arrays.size() < 16) spare_arrays.push_back({std::move(g.slots), std::move(g.failed)});
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
  if (!spare_arrays.empty()) {
    g.slots = std::move(spare_arrays.back().slots);
    g.failed = std::move(spare_arrays.back().failed);
    spare_arrays.pop_back();
  }
  const size_t n = ssn_.nodes().size();  // spare arrays are all zero already
  g.slots.resize(n, 0);
  g.failed.resize((n + 63) / 64, 0);
  return &groups_.emplace(std::move(key), std::move(g)).first->second;
}

size_t PredicateHelper::next_positions(size_t start, size_t from, size_t all, size_t batch,
                                      const Group* skip) {
  positions_.clear();
  walked_.clear();
  size_t w = from;
  if (skip == nullptr) {
    const size_t end = std::min(all, from + batch);
    size_t p = (start + from) % all;
    for (; w < end; ++w) {
      positions_.push_back(static_cast<uint32_t>(p));
      walked_.push_back(w + 1);
      if (++p == all) p = 0;
    }
    return w;
  }
  // A word of the group's bits at a time: its clear bits are the nodes still to ask.
  while (w < all) {
    const size_t p = (start + w) % all;
    // Up to the end of p's word, of the list (the walk wraps there) and of the walk.
    const size_t span = std::min({64 - (p & 63), all - p, all - w});
    uint64_t open = ~skip->failed[p >> 6] >> (p & 63);
    if (span < 64) open &= (uint64_t{1} << span) - 1;
    while (open != 0) {
      const auto b = static_cast<size_t>(__builtin_ctzll(open));
      positions_.push_back(static_cast<uint32_t>(p + b));
      walked_.push_back(w + b + 1);
      if (positions_.size() == batch) return w + b + 1;
      open &= open - 1;
    }
    w += span;
  }
  return w;
}

void PredicateHelper::evaluate(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                               const uint32_t* positions, size_t count, size_t at,
                               const NodeFilter& filter, const Group* cached, bool by_index) {
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
  for (size_t k = 0; k < count; ++k) {
    const uint32_t pos = positions[k];
    Verdict& v = verdicts_[at + k];
    v.ok = false;
    v.cached = false;
    v.host_failed = false;
    v.plugin = nullptr;
    v.reason = nullptr;
    // On the session's list the position is the index: the node's record is not read.
    const uint32_t node = by_index ? pos : nodes[pos]->index;
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
    // The plugins will read the node's record (its index, its pod count): the loads are
    // started now, for the whole run, instead of one miss at a time inside their calls.
    const NodeInfo* n = nodes[pos];
    __builtin_prefetch(n);  // the first line: NodeInfo puts what plugins read there
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

bool PredicateHelper::fits_no_node(const TaskInfo* t) const {
  const size_t dims = std::min(t->init_resreq.size(), ssn_.resource_count());
  for (size_t d = 0; d < dims; ++d)
    if ((d < placement::kFixedDims || t->init_resreq[d] > 0) &&
        !res::le(t->init_resreq[d], ssn_.max_future_idle(d)))
      return true;
  return false;
}

PredicateHelper::Failure PredicateHelper::failure_of(const TaskInfo* t, uint32_t node,
                                                     const NodeFilter& filter,
                                                     const Verdict& v) {
  if (v.host_failed) {
    const size_t R = ssn_.resource_count();
    const double* row = ssn_.node_table(CAL_NODE_FUTURE_IDLE) + static_cast<size_t>(node) * R;
    const size_t dims = filter.resources ? std::min(t->init_resreq.size(), R) : 0;
    // Volcano words only the first resource short (WrapInsufficientResourceReason: cpu,
    // memory, then the scalars; Caldera takes those by id). placement::dim_fits on the row.
    auto fits = [&](size_t d) {
      return (d >= placement::kFixedDims && !(t->init_resreq[d] > 0)) ||
             res::le(t->init_resreq[d], row[d]);
    };
    size_t d = 0;
    while (d < dims && fits(d)) ++d;
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

void PredicateHelper::record(Group*& group, const TaskInfo* t, uint32_t node, Failure f) {
  if (group == nullptr) group = group_of(t, true);
  Failure& slot = group->slots[node];
  if (slot == 0) group->written.push_back(node);
  slot = f;
  group->failed[node >> 6] |= uint64_t{1} << (node & 63);
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
  //
  // On the session's own list (the common case) the walk steps over the nodes the group
  // failed before a word of the group's bits at a time (next_positions), so a big job's
  // later tasks do not look again at every node its earlier ones were refused by; the
  // nodes stepped over still count as looked at, as Volcano counts a cache hit.
  const bool parallel = ssn_.predicates_parallel();
  const bool by_index = &nodes == &ssn_.nodes();
  const Group* skip = by_index ? cached : nullptr;
  size_t processed = 0;  // how far the walk has looked (Volcano's processedNodes)
  // A request above the largest future idle of some resource fails the host's check on
  // every node: the walk's outcome is known without asking any node. What the walk would
  // have written is written all the same, each node's reason from its row (a node the group
  // failed before keeps the reason it gave, as the walk would read it from the cache).
  if (filter.resources && by_index && fits_no_node(t)) {
    Verdict host_failed;
    host_failed.host_failed = true;
    for (uint32_t node = 0; node < all; ++node)
      if (cached == nullptr || cached->slots[node] == 0)
        record(group, t, node, failure_of(t, node, filter, host_failed));
    processed = all;
  }
  while (processed < all && found.size() < want) {
    const size_t needed = want - found.size();
    const size_t batch =
        parallel ? std::max(kMinParallelBatch, 2 * needed) : std::max<size_t>(needed, 8);
    const size_t looked = next_positions(start, processed, all, batch, skip);
    const size_t count = positions_.size();
    if (verdicts_.size() < count) {
      verdicts_.resize(count);
      statuses_.resize(count);
    }
    const Group* ask_cache = skip != nullptr ? nullptr : cached;
    if (parallel && count >= kMinParallelBatch) {
      ssn_.workers().run(count, kMinChunk, [&](size_t b, size_t e) {
        evaluate(t, nodes, positions_.data() + b, e - b, b, filter, ask_cache, by_index);
      });
    } else if (count > 0) {
      evaluate(t, nodes, positions_.data(), count, 0, filter, ask_cache, by_index);
    }
    size_t i = 0;
    for (; i < count && found.size() < want; ++i) {
      const Verdict& v = verdicts_[i];
      NodeInfo* n = nodes[positions_[i]];
      if (v.ok) {
        found.push_back(n);
      } else if (!v.cached) {
        const uint32_t node = by_index ? positions_[i] : n->index;
        record(group, t, node, failure_of(t, node, filter, v));
      }
    }
    // The walk stops at the node that completed the search, else it has looked as far as
    // this batch reached.
    processed = found.size() >= want && i > 0 ? walked_[i - 1] : looked;
  }
  // The next search starts after the last node this one looked at, counted on this list
  // (Volcano's lastProcessedNodeIndex = (last + processed) % len(nodes)).
  ssn_.set_node_search_start((start + processed) % all);

  // No node: the walk saw every node and each failed, fresh or from the cache, so the
  // group's slots hold every node's reasons.
  if (found.empty() && fe != nullptr && group != nullptr)
    for (size_t k = 0; k < all; ++k) {
      const uint32_t node = by_index ? static_cast<uint32_t>(k) : nodes[k]->index;
      const Failure f = group->slots[node];
      add_reasons(f, *fe);
      if (f & kUnresolvable) fe->add_unresolvable_node(node);
    }
  return found;
}

}  // namespace caldera
