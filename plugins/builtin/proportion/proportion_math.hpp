// The arithmetic of the proportion plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/proportion/proportion.go (OnSessionOpen's
// water-filling loop, updateShare, the reclaimable / overused / allocatable / preemptive /
// jobEnqueueable functions) and the Resource methods it calls in
// pkg/scheduler/api/resource_info.go (LessEqual, LessPartly, LessEqualWithDimension,
// MinDimensionResource, Diff, ExceededPart) and helpers.Share.
//
// Resource vectors are dense (index = session resource id: 0 cpu in millicores, 1 memory in
// bytes, then scalars in milli-units). A scalar that Volcano's map would not hold reads 0
// here, which is what Volcano's comparisons with the Zero default, and the `rr[name]` map
// lookups of LessEqualWithDimension, read for a missing key.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "caldera/resources.hpp"

namespace caldera::proportion {

// Volcano's per-queue attributes (queueAttr).
struct QueueAttr {
  std::string name;
  double weight = 1;
  int32_t priority = 0;
  bool open = true;        // QueueStateOpen
  bool has_jobs = false;   // Volcano builds attributes only for queues that hold jobs
  ResVec deserved;
  ResVec allocated;        // tasks in allocated statuses (+ this session's allocations)
  ResVec request;          // allocated + pending tasks
  ResVec elastic;          // sum over jobs of allocated beyond minResources
  ResVec inqueue;          // minResources reserved by Inqueue (and part-running) jobs
  ResVec guarantee;
  ResVec real_capability;  // min(total - all guarantees + own guarantee, capability)
  double share = 0;

  QueueAttr() = default;
  explicit QueueAttr(size_t n)
      : deserved(n), allocated(n), request(n), elastic(n), inqueue(n), guarantee(n),
        real_capability(n) {}
};

// ---- Volcano's resource comparisons, exactly as each call site uses them -------------------

// LessEqual(rr, Zero): every dimension l <= r within minResource.
inline bool less_equal(const ResVec& l, const ResVec& r) {
  return res::less_equal(l.data(), r.data(), l.size());
}


// LessEqualWithDimension(rr, req): only the dimensions req asks for (> 0) but pods, compared strictly
// (Volcano writes `req.X > 0 && r.X > rr.X` with no tolerance). Returns the ids of the
// dimensions that exceed, in id order; empty means "less or equal".
inline std::vector<size_t> exceeded_dims(const double* l, const double* r, const double* req,
                                         size_t n) {
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (i != kPodsId && req[i] > 0 && l[i] > r[i]) out.push_back(i);
  return out;
}

// helpers.Share.
inline double share(double l, double r) {
  if (r == 0) return l == 0 ? 0 : 1;
  return l / r;
}

// updateShare: the largest allocated/deserved over the dimensions deserved holds
// (Resource.ResourceNames keeps amounts >= minResource).
inline double share_of(const ResVec& allocated, const ResVec& deserved) {
  double res = 0;
  for (size_t i = 0; i < deserved.size(); ++i) {
    if (deserved[i] < kMinResource) continue;
    res = std::max(res, share(allocated[i], deserved[i]));
  }
  return res;
}

// realCapability = ExceededPart(total, totalGuarantee) + guarantee, then
// MinDimensionResource(capability, Infinity). `capability` is NULL when the queue sets none;
// an unset dimension is +inf, and Volcano also reads a cpu or memory capability <= 0 as
// unlimited (math.MaxFloat64).
inline ResVec real_capability(const ResVec& total, const ResVec& total_guarantee,
                              const ResVec& guarantee, const double* capability) {
  const size_t n = total.size();
  ResVec r(n);
  for (size_t i = 0; i < n; ++i)
    r[i] = std::max(0.0, total[i] - total_guarantee[i]) + guarantee[i];
  if (capability) {
    for (size_t i = 0; i < n; ++i) {
      double c = capability[i];
      if (i < 2 && c <= 0) c = kInf;
      r[i] = std::min(r[i], c);
    }
  }
  return r;
}

// OnSessionOpen's deserved loop. Each round shares what remains of the cluster among the
// queues whose request is not yet met, by weight; a queue's deserved is capped by its real
// capability and its request and floored by its guarantee. A queue is met when its request
// fits its deserved, or when a round left its deserved unchanged (a cap stopped it). The
// loop ends when nothing remains, no weight is left, or a round changed nothing.
//
// Every queue takes its share from the same `remaining` of the round (remaining is updated
// after the round), so the result does not depend on the order of `queues` even though
// Volcano iterates a Go map. Returns the number of rounds run. `max_rounds` only guards
// against a pathological non-converging input (Volcano has no bound); shares halve or
// better per round, so real inputs end in a few dozen rounds.
inline int water_fill(const std::vector<QueueAttr*>& queues, const ResVec& total,
                      int max_rounds = 10000) {
  const size_t n = total.size();
  ResVec remaining = total;
  std::vector<bool> meet(queues.size(), false);
  int rounds = 0;
  while (rounds < max_rounds) {
    double total_weight = 0;
    for (size_t k = 0; k < queues.size(); ++k)
      if (!meet[k]) total_weight += queues[k]->weight;
    if (total_weight == 0) break;
    ++rounds;

    const ResVec old_remaining = remaining;
    ResVec increased(n), decreased(n);
    for (size_t k = 0; k < queues.size(); ++k) {
      if (meet[k]) continue;
      QueueAttr& a = *queues[k];
      const ResVec old = a.deserved;
      const double ratio = a.weight / total_weight;
      for (size_t i = 0; i < n; ++i) a.deserved[i] += remaining[i] * ratio;
      for (size_t i = 0; i < n; ++i) a.deserved[i] = std::min(a.deserved[i], a.real_capability[i]);
      for (size_t i = 0; i < n; ++i) a.deserved[i] = std::min(a.deserved[i], a.request[i]);
      for (size_t i = 0; i < n; ++i) a.deserved[i] = std::max(a.deserved[i], a.guarantee[i]);

      if (less_equal(a.request, a.deserved))
        meet[k] = true;
      else if (a.deserved == old)
        meet[k] = true;  // capped: it cannot grow any further
      a.share = share_of(a.allocated, a.deserved);

      for (size_t i = 0; i < n; ++i) {  // Diff(oldDeserved, Zero)
        if (a.deserved[i] > old[i])
          increased[i] += a.deserved[i] - old[i];
        else
          decreased[i] += old[i] - a.deserved[i];
      }
    }
    // remaining = ExceededPart(remaining + decreased, increased)
    for (size_t i = 0; i < n; ++i)
      remaining[i] = std::max(0.0, (remaining[i] + decreased[i]) - increased[i]);
    if (remaining.is_empty() || remaining == old_remaining) break;
  }
  return rounds;
}

// overusedFn: deserved <= allocated in every dimension.
inline bool overused(const QueueAttr& a) { return less_equal(a.deserved, a.allocated); }

// queueAllocatable (allocatable and preemptive): allocated + request <= deserved in the
// dimensions the task requests. Returns the dimensions that would go over; empty = allowed.
// The queue-state check is the caller's.
inline std::vector<size_t> over_deserved(const QueueAttr& a, const double* request) {
  const size_t n = a.deserved.size();
  ResVec future = a.allocated;
  future.add(request);
  return exceeded_dims(future.data(), a.deserved.data(), request, n);
}

// jobEnqueueableFn: minResources + allocated + inqueue - elastic <= realCapability in the
// dimensions minResources asks for. Returns the dimensions that would go over.
inline std::vector<size_t> over_capability(const QueueAttr& a, const double* min_request) {
  const size_t n = a.real_capability.size();
  ResVec r(min_request, n);
  r.add(a.allocated).add(a.inqueue).sub(a.elastic);
  return exceeded_dims(r.data(), a.real_capability.data(), min_request, n);
}

// util.GetInqueueResource: what a running job still reserves of its minResources,
// max(0, min - allocated) per dimension.
inline ResVec inqueue_reserve(const double* min_request, const double* allocated, size_t n) {
  ResVec r(n);
  for (size_t i = 0; i < n; ++i) r[i] = std::max(0.0, min_request[i] - allocated[i]);
  return r;
}

// JobInfo.GetElasticResources: ExceededPart(allocated, minResources) (minResources NULL
// reads as empty, so the whole allocation is elastic).
inline ResVec elastic_of(const double* allocated, const double* min_request, size_t n) {
  ResVec r(n);
  for (size_t i = 0; i < n; ++i) {
    double m = min_request ? min_request[i] : 0.0;
    r[i] = allocated[i] > m ? allocated[i] - m : 0.0;
  }
  return r;
}

// One reclaim candidate: the queue its job belongs to and its request.
struct Reclaimee {
  const QueueAttr* queue;
  const double* request;
};

// reclaimableFn: walks the candidates in order; a candidate is a victim while its queue's
// allocated (reduced by the victims already chosen from it) is above deserved in some
// dimension (pods included). Returns one flag per candidate.
inline std::vector<uint8_t> reclaim_victims(const std::vector<Reclaimee>& candidates) {
  std::vector<uint8_t> out(candidates.size(), 0);
  std::unordered_map<const QueueAttr*, ResVec> allocations;
  for (size_t k = 0; k < candidates.size(); ++k) {
    const QueueAttr* q = candidates[k].queue;
    auto it = allocations.find(q);
    if (it == allocations.end()) it = allocations.emplace(q, q->allocated).first;
    ResVec& allocated = it->second;
    if (!less_equal(allocated, q->deserved)) {
      allocated.sub(candidates[k].request);
      out[k] = 1;
    }
  }
  return out;
}

// queueOrderFn: higher queue priority first, then the smaller share. Negative: l first.
inline int queue_order(const QueueAttr& l, const QueueAttr& r) {
  if (l.priority != r.priority) return l.priority > r.priority ? -1 : 1;
  if (l.share == r.share) return 0;
  return l.share < r.share ? -1 : 1;
}

}  // namespace caldera::proportion
