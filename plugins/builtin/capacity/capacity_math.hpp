// The arithmetic of the capacity plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/capacity/capacity.go (buildQueueAttrs,
// buildHierarchicalQueueAttrs, checkHierarchicalQueue, updateQueueAttrShare,
// compareShareWithDeserved, the reclaimable / preemptive / allocatable / jobEnqueueable
// functions and their ancestor-level helpers) and the Resource methods they call in
// pkg/scheduler/api/resource_info.go: LessEqual, LessEqualWithDimensionAndResourcesName,
// LessEqualPartlyWithDimensionZeroFiltered, GreaterPartlyWithRelevantDimensions,
// Intersection, ExceededPart, MinDimensionResource, helpers.Max, IsEmpty, ResourceNames.
//
// Resource vectors are dense (index = session resource id: 0 cpu in millicores, 1 memory in
// bytes, then scalars in milli-units). Volcano's maps tell "absent" from "present with 0";
// a dense vector cannot, so these rules hold throughout:
//   - a capability dimension the queue leaves out is +infinity (the host's convention),
//     which is what Volcano's MinDimensionResource(..., Infinity) does with a missing key;
//   - in deserved and guarantee an absent dimension is 0, and a dimension counts as
//     "present" (GreaterPartlyWithRelevantDimensions' scalar filter) when it holds at
//     least Volcano's minResource (0.1), the test Volcano applies to cpu and memory.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "caldera/resources.hpp"

namespace caldera::capacity {

// Volcano's queueAttr.
struct QueueAttr {
  std::string name;
  int32_t priority = 0;
  bool open = true;
  // Hierarchy (only with hierarchy = true): ancestors from the root down to the parent
  // (Volcano's attr.ancestors), children in name order.
  std::vector<QueueAttr*> ancestors;
  std::vector<QueueAttr*> children;

  ResVec deserved;
  ResVec allocated;  // tasks in allocated statuses, plus this session's allocations
  ResVec request;    // allocated + pending
  ResVec elastic;    // sum over jobs of allocated beyond minResources
  ResVec inqueue;    // minResources still reserved by Inqueue / running jobs
  ResVec capability;       // +inf where unset
  ResVec real_capability;  // what the queue may hold at most
  ResVec guarantee;
  double share = 0;

  QueueAttr() = default;
  explicit QueueAttr(size_t n)
      : deserved(n), allocated(n), request(n), elastic(n), inqueue(n), capability(n, kInf),
        real_capability(n, kInf), guarantee(n) {}

  bool leaf() const { return children.empty(); }
};

// ---- Volcano's resource methods on dense vectors ---------------------------------------

inline bool le_tol(double l, double r) { return l < r || std::fabs(l - r) < kMinResource; }

// Resource.IsEmpty: no dimension but pods holds minResource or more.
inline bool is_empty(const ResVec& v) { return res::is_empty(v.data(), v.size()); }

// Intersection(a, b) is not empty: some dimension holds at least minResource in both.
// IntersectionWithIgnoredScalarResources leaves pods out (`without_pods`).
inline bool intersects(const double* a, const double* b, size_t n, bool without_pods = false) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] >= kMinResource && b[i] >= kMinResource && !(without_pods && i == kPodsId))
      return true;
  return false;
}

// LessEqualWithDimensionAndResourcesName(r, rr, req): r > rr (strictly, no tolerance) in a (pods left out)
// dimension req asks for (> 0) makes it fail. Returns the failing dimensions; empty = fits.
inline std::vector<size_t> exceeded_in_dims(const double* r, const double* rr, const double* req,
                                            size_t n) {
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (i != kPodsId && req[i] > 0 && r[i] > rr[i]) out.push_back(i);
  return out;
}

// GreaterPartlyWithRelevantDimensions(r, rr, req): some dimension that req asks for and rr
// holds (>= minResource) has r > rr. Returns those dimensions.
inline std::vector<size_t> greater_in_relevant_dims(const double* r, const double* rr,
                                                    const double* req, size_t n) {
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (i != kPodsId && req[i] > 0 && rr[i] >= kMinResource && r[i] > rr[i]) out.push_back(i);
  return out;
}

// LessEqualPartlyWithDimensionZeroFiltered(r, rr, req): among the dimensions req asks for
// where r or rr is not (nearly) zero, some has r <= rr (with tolerance). Returns them.
inline std::vector<size_t> less_equal_partly_zero_filtered(const double* r, const double* rr,
                                                           const double* req, size_t n) {
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i) {
    if (i == kPodsId || !(req[i] > 0)) continue;
    if (r[i] < kMinResource && rr[i] < kMinResource) continue;
    if (le_tol(r[i], rr[i])) out.push_back(i);
  }
  return out;
}

// helpers.Share.
inline double share(double l, double r) {
  if (r == 0) return l == 0 ? 0 : 1;
  return l / r;
}

// updateQueueAttrShare: a queue without deserved is best-effort and always has share 1;
// otherwise the largest allocated/deserved over the dimensions deserved holds.
inline double share_of(const ResVec& allocated, const ResVec& deserved) {
  if (is_empty(deserved)) return 1;
  double s = 0;
  for (size_t i = 0; i < deserved.size(); ++i)
    if (deserved[i] >= kMinResource) s = std::max(s, share(allocated[i], deserved[i]));
  return s;
}

// ---- building the attributes -----------------------------------------------------------

// A queue's capability as Volcano reads it in the flat model: cpu or memory <= 0 means
// unlimited (math.MaxFloat64); `capability` NULL (none set) is unlimited everywhere.
inline ResVec flat_capability(const double* capability, size_t n) {
  ResVec c(n, kInf);
  if (!capability) return c;
  for (size_t i = 0; i < n; ++i) {
    c[i] = capability[i];
    if (i < 2 && c[i] <= 0) c[i] = kInf;
  }
  return c;
}

// buildQueueAttrs: realCapability = ExceededPart(total, totalGuarantee) + guarantee, then
// MinDimensionResource(capability, Infinity).
inline ResVec flat_real_capability(const ResVec& total, const ResVec& total_guarantee,
                                   const ResVec& guarantee, const ResVec& capability) {
  ResVec r(total.size());
  for (size_t i = 0; i < r.size(); ++i)
    r[i] = std::min(std::max(0.0, total[i] - total_guarantee[i]) + guarantee[i], capability[i]);
  return r;
}

// The end of buildQueueAttrs for one queue: deserved is capped by realCapability and
// floored by guarantee, then the share follows.
inline void finish_flat(QueueAttr& a) {
  for (size_t i = 0; i < a.deserved.size(); ++i) {
    a.deserved[i] = std::min(a.deserved[i], a.real_capability[i]);
    a.deserved[i] = std::max(a.deserved[i], a.guarantee[i]);
  }
  a.share = share_of(a.allocated, a.deserved);
}

// checkHierarchicalQueue, from the root down: each child's deserved is floored by its
// guarantee; a child's capability inherits its parent's where it sets none (cpu or memory
// <= 0 included); the root's guarantee and deserved become the sums over its children;
// each child's realCapability = ExceededPart(parent.realCapability, sum of the siblings'
// guarantees) + own guarantee, capped by its capability. The caller set the root's
// capability and realCapability first (see finish_hierarchy).
inline void check_hierarchical(QueueAttr& a, bool is_root) {
  const size_t n = a.capability.size();
  ResVec total_guarantee(n), total_deserved(n);
  for (QueueAttr* c : a.children) {
    for (size_t i = 0; i < n; ++i) c->deserved[i] = std::max(c->deserved[i], c->guarantee[i]);
    total_deserved.add(c->deserved);
    total_guarantee.add(c->guarantee);
    for (size_t i = 0; i < n; ++i) {
      const bool unset = std::isinf(c->capability[i]) || (i < 2 && c->capability[i] <= 0);
      if (unset) c->capability[i] = a.capability[i];
    }
  }
  if (is_root) {
    a.guarantee = total_guarantee;
    a.deserved = total_deserved;
  }
  for (QueueAttr* c : a.children)
    for (size_t i = 0; i < n; ++i)
      c->real_capability[i] =
          std::min(std::max(0.0, a.real_capability[i] - total_guarantee[i]) + c->guarantee[i],
                   c->capability[i]);
  for (QueueAttr* c : a.children) check_hierarchical(*c, false);
}

// The end of buildHierarchicalQueueAttrs: the root is unlimited where it sets no
// capability (Volcano: "root queue should not restrict by current total resources"), its
// realCapability is its capability, the tree is checked from it, and every share is
// computed.
inline void finish_hierarchy(QueueAttr& root, const std::vector<QueueAttr*>& all) {
  for (size_t i = 0; i < root.capability.size(); ++i)
    if (i < 2 && root.capability[i] <= 0) root.capability[i] = kInf;
  root.real_capability = root.capability;
  check_hierarchical(root, true);
  for (QueueAttr* a : all) a->share = share_of(a->allocated, a->deserved);
}

// util.GetInqueueResource: what a job still reserves of its minResources,
// max(0, min - allocated) per dimension.
inline ResVec inqueue_reserve(const double* min_request, const double* allocated, size_t n) {
  ResVec r(n);
  for (size_t i = 0; i < n; ++i) r[i] = std::max(0.0, min_request[i] - allocated[i]);
  return r;
}

// JobInfo.GetElasticResources: ExceededPart(allocated, minResources); no minResources
// reads as empty, so the whole allocation is elastic.
inline ResVec elastic_of(const double* allocated, const double* min_request, size_t n) {
  ResVec r(n);
  for (size_t i = 0; i < n; ++i) {
    const double m = min_request ? min_request[i] : 0.0;
    r[i] = allocated[i] > m ? allocated[i] - m : 0.0;
  }
  return r;
}

// ---- orders ----------------------------------------------------------------------------

// compareShareWithDeserved: the smaller share first; on equal shares a queue with
// deserved goes before a best-effort one. Negative: l first.
inline int compare_share(const QueueAttr& l, const QueueAttr& r) {
  if (l.share == r.share) {
    const bool ld = !is_empty(l.deserved), rd = !is_empty(r.deserved);
    if (ld == rd) return 0;
    return ld ? -1 : 1;
  }
  return l.share < r.share ? -1 : 1;
}

// getQueueLevel: the index of the last ancestor the two paths share, scanning the common
// prefix of their ancestor lists (0 when they differ right away).
inline size_t queue_level(const QueueAttr& l, const QueueAttr& r) {
  size_t level = 0;
  const size_t m = std::min(l.ancestors.size(), r.ancestors.size());
  for (size_t i = 0; i < m; ++i) {
    if (l.ancestors[i] != r.ancestors[i]) return level;
    level = i;
  }
  return level;
}

// The flat queueOrderFn: higher priority first, then compare_share.
inline int flat_queue_order(const QueueAttr& l, const QueueAttr& r) {
  if (l.priority != r.priority) return l.priority > r.priority ? -1 : 1;
  return compare_share(l, r);
}

// The hierarchical queueOrderFn: higher priority first; a leaf before a non-leaf; two
// non-leaves by their own shares; two leaves by the shares of their ancestors just below
// the deepest ancestor they share (a queue itself when its path ends there).
inline int hierarchical_queue_order(const QueueAttr& l, const QueueAttr& r) {
  if (l.priority != r.priority) return l.priority > r.priority ? -1 : 1;
  if (l.leaf() != r.leaf()) return l.leaf() ? -1 : 1;
  if (!l.leaf()) return compare_share(l, r);
  const size_t level = queue_level(l, r);
  const QueueAttr* lp = level + 1 < l.ancestors.size() ? l.ancestors[level + 1] : &l;
  const QueueAttr* rp = level + 1 < r.ancestors.size() ? r.ancestors[level + 1] : &r;
  return compare_share(*lp, *rp);
}

// ---- ancestor levels (ancestorReclaimLevel) ----------------------------------------------

// queueAncestorAtDepth: depth 1 is the parent, 2 the grandparent, ...; nullptr past the
// root.
inline const QueueAttr* ancestor_at_depth(const QueueAttr& a, int depth) {
  if (depth <= 0 || static_cast<size_t>(depth) > a.ancestors.size()) return nullptr;
  return a.ancestors[a.ancestors.size() - static_cast<size_t>(depth)];
}

// sharesAnyNonRootAncestorWithinLevel: some ancestor within `level` of both, other than
// the root.
inline bool shares_non_root_ancestor(const QueueAttr& a, const QueueAttr& b, int level,
                                     const QueueAttr* root) {
  for (int da = 1; da <= level; ++da) {
    const QueueAttr* x = ancestor_at_depth(a, da);
    if (!x || x == root) continue;
    for (int db = 1; db <= level; ++db)
      if (ancestor_at_depth(b, db) == x) return true;
  }
  return false;
}

// getReclaimeeAncestorToCheck: the reclaimee queue's ancestor at `level`, unless there is
// none, it is the root, or the reclaimer's queue has the same ancestor at that level.
inline const QueueAttr* reclaimee_ancestor_to_check(const QueueAttr& reclaimer,
                                                    const QueueAttr& reclaimee, int level,
                                                    const QueueAttr* root) {
  const QueueAttr* e = ancestor_at_depth(reclaimee, level);
  if (!e || e == root) return nullptr;
  if (ancestor_at_depth(reclaimer, level) == e) return nullptr;
  return e;
}

// ---- decisions -------------------------------------------------------------------------

// One reclaim candidate: the attributes of its job's queue and its request.
struct Reclaimee {
  const QueueAttr* queue;
  const double* request;
};

// What the reclaimable function needs to know besides the candidates.
struct ReclaimContext {
  const QueueAttr* reclaimer_queue = nullptr;
  const double* reclaimer_request = nullptr;       // Resreq
  const double* reclaimer_init_request = nullptr;  // InitResreq
  bool hierarchy = false;
  int ancestor_reclaim_level = 0;
  const QueueAttr* root = nullptr;
  size_t n = 0;
};

// The order in which reclaimableFn pops the candidates from Volcano's
// BuildVictimsPriorityQueue. The host passes them in that queue's order without plugin
// victim-queue orders (same job: reverse task order; different queues: reverse queue
// order; same queue: reverse job order). With hierarchy, capacity registers a
// VictimQueueOrderFn that first puts the queues sharing a deeper ancestor with the
// reclaimer's queue (getQueueLevel) before the others; since it compares queues only, a
// stable sort by that level keeps the host's order everywhere else. Returns positions in
// `candidates`.
inline std::vector<size_t> victim_walk_order(const ReclaimContext& ctx,
                                             const std::vector<Reclaimee>& candidates) {
  std::vector<size_t> order(candidates.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  if (!ctx.hierarchy || !ctx.reclaimer_queue) return order;
  std::vector<size_t> level(candidates.size());
  for (size_t k = 0; k < candidates.size(); ++k)
    level[k] = queue_level(*candidates[k].queue, *ctx.reclaimer_queue);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return level[a] > level[b]; });
  return order;
}

// reclaimableFn, candidate by candidate in victim_walk_order. A candidate is skipped when it
// shares no resource with the reclaimer, or when taking it would leave its queue below its
// guarantee. It is a victim when its request shares nothing with its queue's deserved (an
// "immediate victim"), or when its queue's allocated -- reduced by the victims already
// chosen from that queue -- exceeds deserved in a dimension the candidate requests and
// deserved holds. With hierarchy and ancestorReclaimLevel > 0, the ancestors up to that
// level that the reclaimer does not share must be over their deserved too, and an
// immediate victim is spared when both queues sit under a shared non-root ancestor and
// the reclaimer's own queue deserves none of what the reclaimer asks for.
inline std::vector<uint8_t> reclaim_victims(const ReclaimContext& ctx,
                                            const std::vector<Reclaimee>& candidates) {
  const size_t n = ctx.n;
  std::vector<uint8_t> out(candidates.size(), 0);
  std::map<const QueueAttr*, ResVec> allocations;
  auto allocation_of = [&](const QueueAttr* q) -> ResVec& {
    auto it = allocations.find(q);
    if (it == allocations.end()) it = allocations.emplace(q, q->allocated).first;
    return it->second;
  };
  const bool ancestors_apply = ctx.hierarchy && ctx.ancestor_reclaim_level > 0;

  for (size_t k : victim_walk_order(ctx, candidates)) {
    const QueueAttr* q = candidates[k].queue;
    const double* req = candidates[k].request;
    if (!intersects(req, ctx.reclaimer_init_request, n, /*without_pods=*/true))
      continue;  // shouldSkipReclaimee

    ResVec& allocated = allocation_of(q);
    ResVec except = allocated;
    except.sub(req);
    if (!res::less_equal(q->guarantee.data(), except.data(), n)) continue;  // guarantee

    bool eligible = false;
    if (!intersects(req, q->deserved.data(), n)) {  // isImmediateVictim
      if (ancestors_apply &&
          shares_non_root_ancestor(*ctx.reclaimer_queue, *q, ctx.ancestor_reclaim_level,
                                   ctx.root) &&
          !intersects(ctx.reclaimer_request, ctx.reclaimer_queue->deserved.data(), n))
        continue;
      eligible = true;
    } else if (!greater_in_relevant_dims(allocated.data(), q->deserved.data(), req, n).empty()) {
      eligible = true;
    }
    if (!eligible) continue;

    std::vector<const QueueAttr*> checked_ancestors;
    bool ancestor_ok = true;
    if (ancestors_apply) {
      for (int level = 1; level <= ctx.ancestor_reclaim_level; ++level) {
        const QueueAttr* anc =
            reclaimee_ancestor_to_check(*ctx.reclaimer_queue, *q, level, ctx.root);
        if (!anc) continue;
        ResVec& anc_alloc = allocation_of(anc);
        checked_ancestors.push_back(anc);
        if (!intersects(req, anc->deserved.data(), n)) continue;  // immediate for ancestor
        if (greater_in_relevant_dims(anc_alloc.data(), anc->deserved.data(), req, n).empty()) {
          ancestor_ok = false;
          break;
        }
      }
    }
    if (!ancestor_ok) continue;

    allocated.sub(req);
    for (const QueueAttr* anc : checked_ancestors) allocation_of(anc).sub(req);
    out[k] = 1;
  }
  return out;
}

// The UnifiedEvictableFn of gang-reclaim, candidate by candidate in the order given: one
// that would leave its queue below its guarantee is skipped; one whose request shares
// nothing with its queue's deserved is a victim; otherwise a victim when its queue's
// allocated -- less the victims already chosen from it -- exceeds deserved in a dimension
// the candidate requests and deserved holds. Each victim lowers its queue's allocation.
inline std::vector<uint8_t> gang_reclaim_victims(const std::vector<Reclaimee>& candidates,
                                                 size_t n) {
  std::vector<uint8_t> out(candidates.size(), 0);
  std::map<const QueueAttr*, ResVec> allocations;
  for (size_t k = 0; k < candidates.size(); ++k) {
    const QueueAttr* q = candidates[k].queue;
    const double* req = candidates[k].request;
    auto it = allocations.find(q);
    if (it == allocations.end()) it = allocations.emplace(q, q->allocated).first;
    ResVec& allocated = it->second;
    ResVec except = allocated;
    except.sub(req);
    if (!res::less_equal(q->guarantee.data(), except.data(), n)) continue;  // guarantee
    const bool immediate = !intersects(req, q->deserved.data(), n);         // isImmediateVictim
    if (immediate ||
        !greater_in_relevant_dims(allocated.data(), q->deserved.data(), req, n).empty()) {
      allocated.sub(req);
      out[k] = 1;
    }
  }
  return out;
}

// The capability part of preemptiveFn and of queueAllocatable: allocated + request must
// not exceed realCapability in a dimension the request asks for. Returns the dimensions
// that would.
inline std::vector<size_t> over_real_capability(const QueueAttr& a, const double* request) {
  ResVec future = a.allocated;
  future.add(request);
  return exceeded_in_dims(future.data(), a.real_capability.data(), request, future.size());
}

// preemptiveFn without the queue-state check (the caller's): within realCapability, and
// allocated + request <= deserved in some requested dimension; else, with hierarchy and
// ancestorReclaimLevel > 0, the same deserved test on a non-root ancestor within the level.
inline bool preemptive(const QueueAttr& a, const double* request, bool hierarchy,
                       int ancestor_reclaim_level, const QueueAttr* root) {
  const size_t n = a.allocated.size();
  if (!over_real_capability(a, request).empty()) return false;
  ResVec future = a.allocated;
  future.add(request);
  if (!less_equal_partly_zero_filtered(future.data(), a.deserved.data(), request, n).empty())
    return true;
  if (!hierarchy || ancestor_reclaim_level <= 0) return false;
  for (int level = 1; level <= ancestor_reclaim_level; ++level) {
    const QueueAttr* anc = ancestor_at_depth(a, level);
    if (!anc || anc == root) continue;
    ResVec f = anc->allocated;
    f.add(request);
    if (!less_equal_partly_zero_filtered(f.data(), anc->deserved.data(), request, n).empty())
      return true;
  }
  return false;
}

// checkQueueAllocatableHierarchically: the queue, then each ancestor from the parent up,
// must keep allocated + request within realCapability. Returns the first queue that would
// not (nullptr: allocatable) and the dimensions in *dims.
inline const QueueAttr* allocatable_chain(const QueueAttr& a, const double* request,
                                          std::vector<size_t>* dims) {
  std::vector<size_t> over = over_real_capability(a, request);
  if (!over.empty()) {
    if (dims) *dims = std::move(over);
    return &a;
  }
  for (auto it = a.ancestors.rbegin(); it != a.ancestors.rend(); ++it) {
    over = over_real_capability(**it, request);
    if (!over.empty()) {
      if (dims) *dims = std::move(over);
      return *it;
    }
  }
  return nullptr;
}

// jobEnqueueable for one queue: minResources + allocated + inqueue - elastic must stay
// within realCapability in the dimensions minResources asks for. Returns the dimensions
// that would go over.
inline std::vector<size_t> over_enqueue(const QueueAttr& a, const double* min_request) {
  const size_t n = a.real_capability.size();
  ResVec r(min_request, n);
  r.add(a.allocated).add(a.inqueue).sub(a.elastic);
  return exceeded_in_dims(r.data(), a.real_capability.data(), min_request, n);
}

// checkJobEnqueueableHierarchically: the queue, then its ancestors from the parent up.
inline const QueueAttr* enqueue_chain(const QueueAttr& a, const double* min_request,
                                      std::vector<size_t>* dims) {
  std::vector<size_t> over = over_enqueue(a, min_request);
  if (!over.empty()) {
    if (dims) *dims = std::move(over);
    return &a;
  }
  for (auto it = a.ancestors.rbegin(); it != a.ancestors.rend(); ++it) {
    over = over_enqueue(**it, min_request);
    if (!over.empty()) {
      if (dims) *dims = std::move(over);
      return *it;
    }
  }
  return nullptr;
}

}  // namespace caldera::capacity
