// The arithmetic of the numa-aware plugin, free of the ABI so that unit tests can call it.
//
// Follows Volcano's pkg/scheduler/plugins/numaaware: the topology-manager policies of
// policy/ (policy.go's filterProvidersHints / mergeFilteredHints / mergePermutation,
// policy_none.go, policy_best_effort.go, policy_restricted.go, policy_single_numa_node.go),
// the cpu hint provider of provider/cpumanager/cpu_mng.go (generateCPUTopologyHints,
// Allocate) with cpu_assignment.go's takeByTopology, getNodeNumaNumForTask, and
// plugins/util NormalizeScore.
//
// The model. Volcano reads each node's CPU topology (cpu ids with their core, socket and
// NUMA node) from its Numatopology resource. Caldera's node declares only what each NUMA
// node holds: cpus (whole cpus are what the static cpu manager hands out exclusively, so a
// NUMA node of "7500m" offers 7) and memory. A NUMA node is read as one socket of
// single-thread cores, so takeByTopology's "whole sockets, then cores from the socket with
// the fewest free ones" becomes: whole free NUMA nodes while the request needs at least a
// NUMA node's worth (lowest id first), then cpus from the NUMA nodes with the fewest free
// cpus first (ties: lowest id), which packs as the kubelet does.
//
// Memory. Next to Volcano's cpu provider there is a memory hint provider with the kubelet
// Memory Manager's Static-policy hints (masks whose free memory covers the request;
// preferred when no narrower mask could hold it), used when the node's NUMA layout lists
// memory. Under restricted and single-numa-node a guaranteed pod's cpus and memory must
// then come from the same NUMA nodes, as the kubelet with both managers enforces.
//
// Masks are bit sets of NUMA node ids (bit i = NUMA node i); at most kMaxNumaNodes nodes.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace caldera::numa {

inline constexpr size_t kMaxNumaNodes = 16;

using Mask = uint32_t;

inline int count(Mask m) { return std::popcount(m); }

// TopologyHint: an affinity (0 stands for Volcano's nil affinity, "any NUMA node") and
// whether it is preferred.
struct Hint {
  Mask affinity = 0;
  bool preferred = false;
  bool operator==(const Hint&) const = default;
};

// A provider's answer for one resource: no preference (nil), or a list (possibly empty:
// "no possible affinity").
using ProviderHints = std::optional<std::vector<Hint>>;

// bitmask.IterateBitMasks: every non-empty subset of the n NUMA nodes, by size, then in
// lexicographic order of the ids.
inline void iterate_masks(size_t n, const std::function<void(Mask)>& f) {
  std::function<void(size_t, Mask, size_t, size_t)> rec = [&](size_t from, Mask acc,
                                                                size_t have, size_t size) {
    if (have == size) {
      f(acc);
      return;
    }
    for (size_t i = from; i < n; ++i) rec(i + 1, acc | (Mask{1} << i), have + 1, size);
  };
  for (size_t size = 1; size <= n; ++size) rec(0, 0, 0, size);
}

inline double sum_in(const std::vector<double>& per_numa, Mask m) {
  double s = 0;
  for (size_t i = 0; i < per_numa.size(); ++i)
    if (m & (Mask{1} << i)) s += per_numa[i];
  return s;
}

// generateCPUTopologyHints (and the Memory Manager's hints, same shape): a hint for every
// mask whose free amount covers the request; preferred when the mask is as small as the
// smallest mask whose capacity could cover it.
inline std::vector<Hint> amount_hints(const std::vector<double>& capacity,
                                      const std::vector<double>& free, double request) {
  const size_t n = capacity.size();
  int min_size = static_cast<int>(n);
  std::vector<Hint> hints;
  iterate_masks(n, [&](Mask m) {
    if (sum_in(capacity, m) >= request && count(m) < min_size) min_size = count(m);
    if (sum_in(free, m) < request) return;
    hints.push_back(Hint{m, false});
  });
  for (Hint& h : hints) h.preferred = count(h.affinity) == min_size;
  return hints;
}

// filterProvidersHints: no preference becomes one preferred any-NUMA hint; an empty list
// becomes one non-preferred any-NUMA hint.
inline std::vector<std::vector<Hint>> filter_provider_hints(
    const std::vector<ProviderHints>& providers) {
  std::vector<std::vector<Hint>> out;
  for (const ProviderHints& p : providers) {
    if (!p)
      out.push_back({Hint{0, true}});
    else if (p->empty())
      out.push_back({Hint{0, false}});
    else
      out.push_back(*p);
  }
  return out;
}

// filterSingleNumaHints: keep preferred any-NUMA hints and preferred one-node hints.
inline std::vector<std::vector<Hint>> filter_single_numa(
    const std::vector<std::vector<Hint>>& all) {
  std::vector<std::vector<Hint>> out;
  for (const auto& hints : all) {
    std::vector<Hint> kept;
    for (const Hint& h : hints)
      if (h.preferred && (h.affinity == 0 || count(h.affinity) == 1)) kept.push_back(h);
    out.push_back(std::move(kept));
  }
  return out;
}

// BitMask.IsNarrowerThan: fewer NUMA nodes, or as many and a smaller number.
inline bool narrower(Mask a, Mask b) {
  if (count(a) == count(b)) return a < b;
  return count(a) < count(b);
}

// mergeFilteredHints: over every permutation (one hint per provider), AND the affinities
// (any-NUMA counts as all nodes); preferred only when every hint is. The best is a
// preferred merge over a non-preferred one, else the narrowest; it starts as the
// non-preferred all-nodes hint.
inline Hint merge_hints(size_t numa_nodes, const std::vector<std::vector<Hint>>& filtered) {
  const Mask all = numa_nodes >= 32 ? ~Mask{0} : ((Mask{1} << numa_nodes) - 1);
  Hint best{all, false};
  std::vector<size_t> idx(filtered.size(), 0);
  for (const auto& f : filtered)
    if (f.empty()) return best;  // no permutation at all
  for (;;) {
    Mask merged = all;
    bool preferred = true;
    for (size_t p = 0; p < filtered.size(); ++p) {
      const Hint& h = filtered[p][idx[p]];
      merged &= h.affinity == 0 ? all : h.affinity;
      preferred = preferred && h.preferred;
    }
    if (count(merged) != 0) {
      if (preferred && !best.preferred) {
        best = Hint{merged, preferred};
      } else if (preferred == best.preferred && narrower(merged, best.affinity)) {
        best = Hint{merged, preferred};
      }
    }
    // Next permutation, the last provider fastest (iterateAllProviderTopologyHints).
    size_t p = filtered.size();
    while (p > 0) {
      --p;
      if (++idx[p] < filtered[p].size()) break;
      idx[p] = 0;
      if (p == 0) return best;
    }
    if (filtered.empty()) return best;
  }
}

// The node's kubelet topology manager policy.
enum class Policy { None, BestEffort, Restricted, SingleNumaNode };

inline std::optional<Policy> policy_from(const std::string& s) {
  if (s == "none" || s.empty()) return Policy::None;
  if (s == "best-effort") return Policy::BestEffort;
  if (s == "restricted") return Policy::Restricted;
  if (s == "single-numa-node") return Policy::SingleNumaNode;
  return std::nullopt;
}

// Policy.Predicate: the best hint and whether the pod is admitted.
inline std::pair<Hint, bool> admit(Policy policy, size_t numa_nodes,
                                   const std::vector<ProviderHints>& providers) {
  switch (policy) {
    case Policy::None:
      return {Hint{0, false}, true};
    case Policy::BestEffort:
      return {merge_hints(numa_nodes, filter_provider_hints(providers)), true};
    case Policy::Restricted: {
      const Hint h = merge_hints(numa_nodes, filter_provider_hints(providers));
      return {h, h.preferred};
    }
    case Policy::SingleNumaNode: {
      const Hint h =
          merge_hints(numa_nodes, filter_single_numa(filter_provider_hints(providers)));
      return {h, h.preferred};
    }
  }
  return {Hint{0, false}, true};
}

// A node's NUMA state: capacity and what is free, per NUMA node. cpus are whole cpus.
struct NodeNuma {
  std::vector<double> cpu_capacity;
  std::vector<double> cpu_free;
  std::vector<double> mem_capacity;
  std::vector<double> mem_free;
  size_t size() const { return cpu_capacity.size(); }
  bool has_memory() const {
    for (double m : mem_capacity)
      if (m > 0) return true;
    return false;
  }
};

// What a pod takes from each NUMA node.
struct Assignment {
  std::vector<double> cpus;    // whole cpus per NUMA node
  std::vector<double> memory;  // bytes per NUMA node
  int numa_used() const {      // getNumaNodeCntForCPUID: NUMA nodes holding its cpus
    int c = 0;
    for (double x : cpus)
      if (x > 0) ++c;
    return c;
  }
  bool empty() const {
    for (double x : cpus)
      if (x > 0) return false;
    for (double x : memory)
      if (x > 0) return false;
    return true;
  }
};

// guaranteedCPUs: the cpu request in whole cpus, 0 when it is not a whole number.
inline int64_t guaranteed_cpus(double cpu_millis) {
  if (cpu_millis <= 0) return 0;
  const double whole = cpu_millis / 1000.0;
  if (whole != static_cast<double>(static_cast<int64_t>(whole))) return 0;
  return static_cast<int64_t>(whole);
}

// The hints of both providers for a pod on a node (cpu first, then memory when the node's
// layout lists memory). A provider without a request has no preference.
inline std::vector<ProviderHints> provider_hints(const NodeNuma& node, int64_t cpus,
                                                 double memory) {
  std::vector<ProviderHints> out;
  if (cpus > 0)
    out.emplace_back(amount_hints(node.cpu_capacity, node.cpu_free, static_cast<double>(cpus)));
  else
    out.emplace_back(std::nullopt);
  if (node.has_memory() && memory > 0)
    out.emplace_back(amount_hints(node.mem_capacity, node.mem_free, memory));
  return out;
}

// takeByTopology on the model above, restricted to the NUMA nodes in `allowed`: takes
// `need` cpus from `free` (which it lowers) into `taken`. Returns false, taking nothing,
// when they do not have enough.
inline bool take_cpus(std::vector<double>& free, const std::vector<double>& capacity,
                      Mask allowed, double need, std::vector<double>& taken) {
  const size_t n = free.size();
  double available = 0;
  for (size_t i = 0; i < n; ++i)
    if (allowed & (Mask{1} << i)) available += free[i];
  if (need <= 0) return true;
  if (need > available) return false;
  double total = 0;
  for (double c : capacity) total += c;
  const double per_socket = n ? std::floor(total / static_cast<double>(n)) : 0;
  // 1. Whole free NUMA nodes while the request needs at least one NUMA node's worth.
  if (per_socket > 0 && need >= per_socket) {
    for (size_t i = 0; i < n && need >= per_socket; ++i) {
      if (!(allowed & (Mask{1} << i))) continue;
      if (free[i] != capacity[i] || free[i] != per_socket) continue;
      taken[i] += free[i];
      need -= free[i];
      free[i] = 0;
    }
  }
  // 2. Then cpus from the NUMA nodes with the fewest free ones.
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i)
    if ((allowed & (Mask{1} << i)) && free[i] > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return free[a] < free[b]; });
  for (size_t i : order) {
    if (need <= 0) break;
    const double t = std::min(free[i], need);
    taken[i] += t;
    free[i] -= t;
    need -= t;
  }
  return true;
}

// Memory from the NUMA nodes in `allowed`, lowest id first; what they cannot hold is left
// in *need.
inline void take_memory(std::vector<double>& free, Mask allowed, double* need,
                        std::vector<double>& taken) {
  for (size_t i = 0; i < free.size() && *need > 0; ++i) {
    if (!(allowed & (Mask{1} << i)) || free[i] <= 0) continue;
    const double t = std::min(free[i], *need);
    taken[i] += t;
    free[i] -= t;
    *need -= t;
  }
}

// policy.Allocate with the cpu provider's Allocate (and the memory counterpart): the
// hint's NUMA nodes first, then whatever else is free. Volcano returns an empty cpu set
// when takeByTopology fails; so does this.
inline Assignment allocate(const NodeNuma& node, const Hint& hint, int64_t cpus, double memory) {
  const size_t n = node.size();
  const Mask all = n >= 32 ? ~Mask{0} : ((Mask{1} << n) - 1);
  Assignment a{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  std::vector<double> free = node.cpu_free;
  if (cpus > 0) {
    double need = static_cast<double>(cpus);
    if (hint.affinity != 0) {
      double aligned = 0;
      for (size_t i = 0; i < n; ++i)
        if (hint.affinity & (Mask{1} << i)) aligned += free[i];
      const double first = std::min(need, aligned);
      if (!take_cpus(free, node.cpu_capacity, hint.affinity, first, a.cpus))
        a.cpus.assign(n, 0.0);
      need -= first;
    }
    if (!take_cpus(free, node.cpu_capacity, all & ~Mask{0}, need, a.cpus)) a.cpus.assign(n, 0.0);
  }
  if (node.has_memory() && memory > 0) {
    std::vector<double> mfree = node.mem_free;
    double need = memory;
    if (hint.affinity != 0) take_memory(mfree, hint.affinity, &need, a.memory);
    take_memory(mfree, all, &need, a.memory);
  }
  return a;
}

// NormalizeScore(maxPriority, reverse = true) on integers, as Volcano computes it: each
// score becomes max - max * score / largest (integer division); all become max when the
// largest is 0.
inline std::vector<int64_t> normalize_reverse(const std::vector<int64_t>& scores,
                                              int64_t max_priority = 100) {
  int64_t largest = 0;
  for (int64_t s : scores) largest = std::max(largest, s);
  std::vector<int64_t> out(scores.size(), max_priority);
  if (largest == 0) return out;
  for (size_t i = 0; i < scores.size(); ++i)
    out[i] = max_priority - max_priority * scores[i] / largest;
  return out;
}

// A non-negative integer written as a string or a number; nullopt otherwise.
inline std::optional<double> whole_amount(const nlohmann::json& v) {
  if (v.is_number_unsigned() || v.is_number_integer()) {
    const auto x = v.get<int64_t>();
    if (x >= 0) return static_cast<double>(x);
    return std::nullopt;
  }
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t x = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    x = x * 10 + (c - '0');
  }
  return static_cast<double>(x);
}

// Reads a volcano.sh/topology-decision value (Volcano's PodResourceDecision JSON,
// {"numa":{"0":{"cpu":"4","memory":"8589934592"}}}: whole cpus and bytes per NUMA node),
// as write_decision writes it. nullopt when it does
// not parse or names a NUMA node the node lacks.
inline std::optional<Assignment> parse_decision(const char* text, size_t numa_nodes) {
  Assignment a{std::vector<double>(numa_nodes, 0.0), std::vector<double>(numa_nodes, 0.0)};
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  auto it = j.find("numa");
  if (it == j.end()) return a;
  if (!it->is_object()) return std::nullopt;
  for (const auto& [key, res] : it->items()) {
    auto id = whole_amount(nlohmann::json(key));
    if (!id || *id >= static_cast<double>(numa_nodes) || !res.is_object()) return std::nullopt;
    const size_t i = static_cast<size_t>(*id);
    for (const auto& [name, q] : res.items()) {
      auto amount = whole_amount(q);
      if (!amount) return std::nullopt;
      if (name == "cpu")
        a.cpus[i] += *amount;
      else if (name == "memory")
        a.memory[i] += *amount;
    }
  }
  return a;
}

inline std::string write_decision(const Assignment& a) {
  nlohmann::json numa = nlohmann::json::object();
  for (size_t i = 0; i < a.cpus.size(); ++i) {
    nlohmann::json res = nlohmann::json::object();
    if (a.cpus[i] > 0) res["cpu"] = std::to_string(static_cast<int64_t>(a.cpus[i]));
    if (a.memory[i] > 0) res["memory"] = std::to_string(static_cast<int64_t>(a.memory[i]));
    if (!res.empty()) numa[std::to_string(i)] = res;
  }
  return nlohmann::json{{"numa", numa}}.dump();
}

}  // namespace caldera::numa
