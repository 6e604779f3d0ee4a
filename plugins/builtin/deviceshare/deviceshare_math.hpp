// The card arithmetic of the deviceshare plugin, free of the ABI so that unit tests can call
// it: what a pod asks of GPU cards, which cards of a node can hold it, which card(s) a
// policy picks, how a node scores, and the GPU fragmentation measure of FGD.
//
// Sources:
//   Volcano pkg/scheduler/api/devices/nvidia/gpushare/{share.go,device_info.go}: cards of a
//     node, whole cards (volcano.sh/gpu-number) need idle cards, shares need a card with
//     room, the chosen cards go in the pod's volcano.sh/gpu-index annotation.
//   FGD (Weng et al., "Beware of Fragmentation", USENIX ATC 2023) and its simulator
//     hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go (GetNodePodFrag,
//     NodeGpuShareFragAmount, CanNodeHostPodOnGpuMemory) and
//     pkg/simulator/plugin/fgd_score.go: the fragmentation of a node for a pod shape and
//     the score of a placement as the drop in fragmentation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/gpu_requests.hpp"

namespace caldera::deviceshare {

inline constexpr int64_t kMilliPerCard = gpu::kMilliPerCard;

enum class Policy { Binpack, Spread, Fragmentation };

// What a pod asks of GPU cards: the request as the shared rules read it
// (caldera/gpu_requests.hpp, which the host's load-time checks use too). Exactly one of:
// `whole` idle cards, or a share of one card (`milli` and/or `memory` MiB of one card).
using Request = gpu::Request;
using gpu::model_allowed;

// The cards of one node as the plugin tracks them.
struct NodeCards {
  std::string model;              // "" when the node has no model label
  std::vector<int64_t> used;      // milli-GPU in use, per card
  std::vector<double> used_mem;   // MiB in use, per card
  std::vector<int32_t> holders;   // pods on the card (a whole-card request needs 0)
  double mem_per_card = 0;        // 0: unknown (the node declares no volcano.sh/gpu-memory)
  double cpu_free = 0;            // the node's idle cpu (millicores), for fragmentation
  double mem_free = 0;            // the node's idle memory (bytes), for fragmentation

  size_t count() const { return used.size(); }
  int64_t free_milli(size_t i) const { return kMilliPerCard - used[i]; }
  int64_t total_free() const {
    int64_t f = 0;
    for (size_t i = 0; i < used.size(); ++i) f += free_milli(i);
    return f;
  }
  bool idle(size_t i) const { return used[i] == 0 && used_mem[i] <= 0 && holders[i] == 0; }
  void resize(size_t n) {
    used.assign(n, 0);
    used_mem.assign(n, 0);
    holders.assign(n, 0);
  }
};

// Card i can take a share of `milli` and `memory`.
inline bool card_fits_share(const NodeCards& n, size_t i, int64_t milli, double memory) {
  if (n.free_milli(i) < milli) return false;
  if (memory > 0) {
    if (n.mem_per_card <= 0) return false;  // card memory unknown: cannot promise any
    if (n.mem_per_card - n.used_mem[i] < memory) return false;
  }
  return true;
}

// Card i can hold the request: an idle card for whole cards, else room for the share.
inline bool card_fits(const NodeCards& n, const Request& r, size_t i) {
  return r.whole > 0 ? n.idle(i) : card_fits_share(n, i, r.milli, r.memory);
}

// The cards a request could use on the node (shares) or the idle cards (whole).
inline std::vector<size_t> candidate_cards(const NodeCards& n, const Request& r) {
  std::vector<size_t> out;
  for (size_t i = 0; i < n.count(); ++i)
    if (card_fits(n, r, i)) out.push_back(i);
  return out;
}

// Called for every node a pod is tried on: counts without building a list.
inline bool fits(const NodeCards& n, const Request& r) {
  if (!r.wants_gpu()) return true;
  if (!model_allowed(r.models, n.model)) return false;
  const size_t need = r.whole > 0 ? static_cast<size_t>(r.whole) : 1;
  size_t have = 0;
  for (size_t i = 0; i < n.count() && have < need; ++i)
    if (card_fits(n, r, i)) ++have;
  return have >= need;
}

// ---- FGD fragmentation --------------------------------------------------------------

// What a pod takes of the node besides GPU: cpu (millicores) and memory (bytes).
struct Take {
  double cpu = 0;
  double memory = 0;
  Take(double c = 0, double m = 0) : cpu(c), memory(m) {}  // NOLINT: a plain cpu converts
};

// A pod shape of the expected workload: cpu, and `count` cards of `milli` each (count 1 and
// milli < 1000 for a share), with the models it may use.
struct Shape {
  int64_t cpu = 0;
  double memory = 0;  // bytes; 0: the shape's memory is not weighed
  int32_t count = 1;
  int64_t milli = kMilliPerCard;
  std::vector<std::string> models;
  double weight = 0;  // frequency in the mix (the weights of a mix sum to 1)
};

// The GPU capacity (milli-GPU) on the node that pods of this shape could no longer use
// (FGD, frag.go NodeGpuShareFragAmount for one typical pod):
//   - the node's model is not allowed, or its idle cpu (or memory, when the shape weighs
//     memory) is below the shape's, or fewer than `count` cards have `milli` free: every
//     free milli-GPU of the node is fragmented;
//   - else the free milli-GPU of the cards that cannot hold `milli` (a card with 300 free
//     for a 500-milli shape; a partly used card for a whole-card shape).
inline int64_t shape_fragmentation(const NodeCards& n, const Shape& s) {
  const int64_t total = n.total_free();
  if (total == 0) return 0;
  if (!model_allowed(s.models, n.model)) return total;
  if (n.cpu_free < static_cast<double>(s.cpu) || n.mem_free < s.memory) return total;
  int32_t hosts = 0;
  int64_t frag = 0;
  for (size_t i = 0; i < n.count(); ++i) {
    const int64_t f = n.free_milli(i);
    if (f >= s.milli)
      ++hosts;
    else
      frag += f;
  }
  return hosts >= s.count ? frag : total;
}

// A small array on the stack, on the heap when larger (nodes of more than 64 cards, mixes of
// more than 64 per-card amounts): the scoring loop allocates nothing.
template <class T>
class SmallBuffer {
 public:
  explicit SmallBuffer(size_t n) {
    if (n > 64) heap_.resize(n);
  }
  T* data() { return heap_.empty() ? local_ : heap_.data(); }

 private:
  T local_[64];
  std::vector<T> heap_;
};

// The expected mix prepared for the scoring loop, which weighs it for every node and
// candidate card. A shape's fragmentation depends on the node's cards only through two
// numbers at the shape's per-card amount t: how many cards have t free, and how much free
// GPU the cards below t hold. So the distinct amounts of the mix are kept sorted, and one
// walk over the node's sorted free amounts gives both numbers for every amount; each shape
// then costs a few comparisons (instead of a pass over the cards per shape).
class Mix {
 public:
  Mix() = default;
  Mix(std::vector<Shape> shapes) : shapes_(std::move(shapes)) {  // NOLINT: a list converts
    for (const Shape& s : shapes_) {
      amounts_.push_back(s.milli);
      any_models_ = any_models_ || !s.models.empty();
    }
    std::sort(amounts_.begin(), amounts_.end());
    amounts_.erase(std::unique(amounts_.begin(), amounts_.end()), amounts_.end());
    for (const Shape& s : shapes_)
      at_.push_back(static_cast<uint32_t>(
          std::lower_bound(amounts_.begin(), amounts_.end(), s.milli) - amounts_.begin()));
  }
  const std::vector<Shape>& shapes() const { return shapes_; }
  bool empty() const { return shapes_.empty(); }

  // The fragmentation (sum of frequency x shape_fragmentation) of a node of `model` whose
  // cards have `free` milli-GPU free (count of them) and cpu_free / mem_free idle.
  double fragmentation(const int64_t* free, size_t count, const std::string& model,
                       double cpu_free, double mem_free) const {
    int64_t total = 0;
    for (size_t i = 0; i < count; ++i) total += free[i];
    if (total == 0 || shapes_.empty()) return 0;
    SmallBuffer<int64_t> sorted(count);
    std::copy(free, free + count, sorted.data());
    std::sort(sorted.data(), sorted.data() + count);
    // For each amount t: hosts[t] = cards with >= t free; below[t] = free on the others.
    const size_t m = amounts_.size();
    SmallBuffer<int64_t> below(m);
    SmallBuffer<size_t> hosts(m);
    size_t j = 0;
    int64_t sum = 0;
    for (size_t k = 0; k < m; ++k) {
      while (j < count && sorted.data()[j] < amounts_[k]) sum += sorted.data()[j++];
      below.data()[k] = sum;
      hosts.data()[k] = count - j;
    }
    double f = 0;
    for (size_t i = 0; i < shapes_.size(); ++i) {
      const Shape& s = shapes_[i];
      int64_t frag = total;
      if ((!any_models_ || model_allowed(s.models, model)) &&
          cpu_free >= static_cast<double>(s.cpu) && mem_free >= s.memory &&
          hosts.data()[at_[i]] >= static_cast<size_t>(s.count))
        frag = below.data()[at_[i]];
      f += s.weight * static_cast<double>(frag);
    }
    return f;
  }

 private:
  std::vector<Shape> shapes_;
  std::vector<int64_t> amounts_;  // the distinct per-card amounts of the shapes, ascending
  std::vector<uint32_t> at_;      // per shape: its amount's index in amounts_
  bool any_models_ = false;       // some shape is limited to GPU models
};

// The node's fragmentation against a mix of shapes: sum of frequency x fragmentation.
inline double node_fragmentation(const NodeCards& n, const Mix& mix) {
  double f = 0;
  for (const Shape& s : mix.shapes())
    f += s.weight * static_cast<double>(shape_fragmentation(n, s));
  return f;
}

// The same (by Mix::fragmentation), for the node after `extra` more milli-GPU on each of
// the k `cards` and `take` less idle cpu and memory, without copying the node (the scoring
// loop calls this for every node and candidate card).
inline double node_fragmentation_after(const NodeCards& n, const Mix& mix, const size_t* cards,
                                       size_t k, int64_t extra, Take take) {
  const size_t count = n.count();
  SmallBuffer<int64_t> buffer(count);
  int64_t* free = buffer.data();
  for (size_t i = 0; i < count; ++i) free[i] = n.free_milli(i);
  for (size_t j = 0; j < k; ++j) free[cards[j]] -= extra;
  return mix.fragmentation(free, count, n.model, n.cpu_free - take.cpu, n.mem_free - take.memory);
}

// ---- the expected mix: a decayed history of the pods seen ------------------------------

struct ShapeKey {
  int64_t cpu = 0;
  int32_t count = 1;
  int64_t milli = kMilliPerCard;
  std::string models;  // '|'-joined, as the pod wrote them (deduplicated)
  int64_t memory = 0;  // bytes; 0 when memory is not weighed
  bool operator<(const ShapeKey& o) const {
    if (cpu != o.cpu) return cpu < o.cpu;
    if (memory != o.memory) return memory < o.memory;
    if (count != o.count) return count < o.count;
    if (milli != o.milli) return milli < o.milli;
    return models < o.models;
  }
};

// A pod's name as the history remembers it: 64 bits (FNV-1a, then splitmix64's mixer), so
// that the names of a large backlog cost 8 bytes each in the saved state. Two names of one
// session's pending pods meet by chance with odds of about n^2 / 2^65.
inline uint64_t pod_id(std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001B3ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

// Pods seen, by shape, with exponentially decayed weights: the k-th new pod adds
// 1/decay^k, so relative to the newest pod one seen n pods earlier weighs decay^n. A pod is
// counted once however many sessions it stays pending: the history remembers the pods
// pending at the last session that learned (at most `remember` of them), and a pod counts
// when it was not among them. The plugin keeps the history from session to session as its
// state (save / load, through the host: caldera/plugin.h state_get / state_put).
//
// One session: begin_session(), add() for each pending pod, then mix() and save().
class ShapeHistory {
 public:
  // The pods pending now become those of the last session (looked up by add()).
  void begin_session() {
    before_ = std::move(now_);
    now_.clear();
    std::sort(before_.begin(), before_.end());
  }

  // Counts a pending pod of shape k unless it was pending at the last session; true when
  // counted. It is remembered for the next session while fewer than `remember` are.
  bool add(uint64_t pod, const ShapeKey& k, double decay, size_t remember) {
    if (now_.size() < std::max<size_t>(remember, 1)) now_.push_back(pod);
    if (std::binary_search(before_.begin(), before_.end(), pod)) return false;
    auto it = std::lower_bound(weights_.begin(), weights_.end(), k,
                               [](const Weighed& e, const ShapeKey& key) { return e.first < key; });
    if (it == weights_.end() || k < it->first) it = weights_.insert(it, Weighed(k, 0.0));
    it->second += inc_;
    if (decay > 0 && decay < 1) inc_ /= decay;
    if (inc_ > 1e12) rescale();
    return true;
  }

  // The history as values, for the next session: the increment, the shapes with their
  // weights, the pods pending now. W has u64 / i64 / f64 / str (caldera::sdk::StateWriter).
  template <class W>
  void save(W& w) const {
    w.f64(inc_);
    w.u64(weights_.size());
    for (const auto& [k, weight] : weights_) {
      w.i64(k.cpu);
      w.i64(k.count);
      w.i64(k.milli);
      w.i64(k.memory);
      w.str(k.models);
      w.f64(weight);
    }
    w.u64(now_.size());
    for (uint64_t id : now_) w.u64(id);
  }

  // The history save() wrote, else (broken or empty bytes) an empty history; false then.
  // R has u64 / i64 / f64 / str / count / ok / done (caldera::sdk::StateReader).
  template <class R>
  bool load(R& r) {
    *this = ShapeHistory();
    if (r.empty()) return true;
    ShapeHistory h;
    h.inc_ = r.f64();
    const uint64_t shapes = r.count(5 * 8 + 8);
    h.weights_.reserve(shapes);
    for (uint64_t i = 0; i < shapes && r.ok(); ++i) {
      ShapeKey k;
      k.cpu = r.i64();
      k.count = static_cast<int32_t>(r.i64());
      k.milli = r.i64();
      k.memory = r.i64();
      k.models = r.str();
      const double weight = r.f64();
      if (!h.weights_.empty() && !(h.weights_.back().first < k)) return false;  // not as saved
      h.weights_.emplace_back(std::move(k), weight);
    }
    const uint64_t pods = r.count(8);
    h.now_.reserve(pods);
    for (uint64_t i = 0; i < pods && r.ok(); ++i) h.now_.push_back(r.u64());
    if (!r.ok() || !r.done() || !(h.inc_ > 0)) return false;
    *this = std::move(h);
    return true;
  }

  // The mix: the heaviest shapes until they cover `coverage` of the weight or number
  // `max_shapes`, renormalised to sum to 1. Equal weights keep the shape key order.
  std::vector<Shape> mix(double coverage, size_t max_shapes) const {
    std::vector<const Weighed*> all;
    all.reserve(weights_.size());
    double total = 0;
    for (const Weighed& e : weights_) {
      all.push_back(&e);
      total += e.second;
    }
    std::vector<Shape> out;
    if (total <= 0) return out;
    std::stable_sort(all.begin(), all.end(),
                     [](const Weighed* a, const Weighed* b) { return a->second > b->second; });
    out.reserve(std::min(max_shapes, all.size()));
    double cum = 0;
    for (const Weighed* e : all) {
      if (out.size() >= max_shapes || cum >= coverage * total * (1 - 1e-12)) break;
      out.push_back(shape_of(e->first));
      out.back().weight = e->second;
      cum += e->second;
    }
    for (auto& s : out) s.weight /= cum;
    return out;
  }

  size_t shapes() const { return weights_.size(); }

 private:
  // A shape key's pod shape (the weight is set by mix()), its models split.
  static Shape shape_of(const ShapeKey& k) {
    Shape s;
    s.cpu = k.cpu;
    s.memory = static_cast<double>(k.memory);
    s.count = k.count;
    s.milli = k.milli;
    size_t pos = 0;
    while (!k.models.empty()) {
      size_t bar = k.models.find('|', pos);
      s.models.push_back(k.models.substr(pos, bar == std::string::npos ? bar : bar - pos));
      if (bar == std::string::npos) break;
      pos = bar + 1;
    }
    return s;
  }

  void rescale() {
    for (Weighed& e : weights_) e.second /= inc_;
    weights_.erase(std::remove_if(weights_.begin(), weights_.end(),
                                  [](const Weighed& e) { return e.second < 1e-9; }),
                   weights_.end());
    inc_ = 1;
  }

  using Weighed = std::pair<ShapeKey, double>;
  std::vector<Weighed> weights_;  // by key (the saved order too), each shape's weight
  double inc_ = 1;
  std::vector<uint64_t> before_;  // pods pending at the last session, sorted
  std::vector<uint64_t> now_;     // pods pending now
};

// ---- placement -----------------------------------------------------------------------

// FGD's node score for a growth of the node's fragmentation by `delta` milli-GPU
// (fgd_score.go: int64(sigmoid((frag_before - frag_after) / 1000) * MaxNodeScore)): 50 when
// nothing changes, towards 100 as fragmentation shrinks and 0 as it grows, whole numbers.
// The whole-number step makes placements within about 0.04 GPU of fragmentation score the
// same; among equal scores the host takes the first node by name, which keeps filling the
// same nodes (measured on the openb replay: docs/OPENB.md).
inline double fgd_score(double delta) { return std::floor(100.0 / (1.0 + std::exp(delta / 1000.0))); }

// The score of putting the request on the node with these cards, before the weight
// (higher is better):
//   binpack: 100 x (1 - node's free milli-GPU after / the largest node's capacity);
//   spread:  100 x node's free milli-GPU after / the largest node's capacity;
//   fragmentation: fgd_score(frag_after - frag_before).
// `max_capacity` is the largest node's card count x 1000 in the session; `cpu` what the
// pod takes of the node's cpu and memory (fragmentation counts a node whose cpu or memory
// runs out).
inline double placement_score(const NodeCards& n, const Request& r,
                              const std::vector<size_t>& cards, Policy policy,
                              int64_t max_capacity, const Mix& mix, Take take) {
  switch (policy) {
    case Policy::Binpack:
    case Policy::Spread: {
      if (max_capacity <= 0 || !r.wants_gpu()) return 0;
      const double free_after = static_cast<double>(n.total_free() - r.total_milli());
      const double share = free_after / static_cast<double>(max_capacity);
      return 100.0 * (policy == Policy::Binpack ? 1.0 - share : share);
    }
    case Policy::Fragmentation: {
      const double before = node_fragmentation_after(n, mix, nullptr, 0, 0, 0);
      const double after =
          node_fragmentation_after(n, mix, cards.data(), cards.size(), r.per_card_milli(), take);
      return fgd_score(after - before);
    }
  }
  return 0;
}

// A placement of a request on a node: the card(s) and the score.
struct Placement {
  bool ok = false;            // false: the node cannot hold the request
  std::vector<size_t> cards;  // empty for a pod without GPU
  double score = 0;
};

// Which card(s) the policy gives the request on this node, and the node's score:
//   whole cards: the lowest-numbered idle cards (idle cards are all alike);
//   a share, binpack: the card with the least free milli-GPU that holds it (best fit);
//   a share, spread: the card with the most free milli-GPU;
//   a share, fragmentation: the card after which the node's fragmentation is lowest
//     (fgd_score.go), ties to the best fit.
// Ties between cards go to the lowest index. Cards with the same free space give the same
// node state, so only the first of them is weighed.
inline Placement place(const NodeCards& n, const Request& r, Policy policy,
                       const Mix& mix = {}, Take take = {}, int64_t max_capacity = 0) {
  Placement p;
  if (!r.wants_gpu()) {
    p.ok = true;
    p.score = placement_score(n, r, {}, policy, max_capacity, mix, take);
    return p;
  }
  if (!model_allowed(r.models, n.model)) return p;
  if (r.whole > 0) {
    std::vector<size_t> c;
    for (size_t i = 0; i < n.count() && c.size() < static_cast<size_t>(r.whole); ++i)
      if (n.idle(i)) c.push_back(i);
    if (c.size() < static_cast<size_t>(r.whole)) return p;
    p.ok = true;
    p.score = placement_score(n, r, c, policy, max_capacity, mix, take);
    p.cards = std::move(c);
    return p;
  }
  // A share: one pass over the cards that hold it.
  constexpr size_t kNoCard = static_cast<size_t>(-1);
  size_t best = kNoCard;
  double before = 0, best_after = 0;
  int64_t weighed[64];  // free amounts already weighed (fragmentation); cards beyond 64 are
  size_t n_weighed = 0; // weighed again, which only costs time
  for (size_t i = 0; i < n.count(); ++i) {
    if (!card_fits_share(n, i, r.milli, r.memory)) continue;
    const int64_t fi = n.free_milli(i);
    if (best == kNoCard) {
      best = i;
      if (policy == Policy::Fragmentation) {
        before = node_fragmentation_after(n, mix, nullptr, 0, 0, 0);
        best_after = node_fragmentation_after(n, mix, &i, 1, r.milli, take);
        weighed[n_weighed++] = fi;
      }
      continue;
    }
    const int64_t fb = n.free_milli(best);
    switch (policy) {
      case Policy::Binpack:
        if (fi < fb) best = i;
        break;
      case Policy::Spread:
        if (fi > fb) best = i;
        break;
      case Policy::Fragmentation: {
        // Cards with the same free space give the same node state: weigh the first only.
        if (std::find(weighed, weighed + n_weighed, fi) != weighed + n_weighed) break;
        if (n_weighed < 64) weighed[n_weighed++] = fi;
        const double after = node_fragmentation_after(n, mix, &i, 1, r.milli, take);
        if (after < best_after - 1e-9 || (after <= best_after + 1e-9 && fi < fb)) {
          best_after = after;
          best = i;
        }
        break;
      }
    }
  }
  if (best == kNoCard) return p;
  p.ok = true;
  p.cards = {best};
  p.score = policy == Policy::Fragmentation
                ? fgd_score(best_after - before)
                : placement_score(n, r, p.cards, policy, max_capacity, mix, take);
  return p;
}

inline std::vector<size_t> choose_cards(const NodeCards& n, const Request& r, Policy policy,
                                        const Mix& mix = {}, Take take = {}) {
  return place(n, r, policy, mix, take).cards;
}

}  // namespace caldera::deviceshare
