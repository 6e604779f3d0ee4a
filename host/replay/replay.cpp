// The openb replay protocol (replay.hpp). Follows the FGD paper's simulator,
// hkust-adsl/kubernetes-scheduler-simulator: pkg/simulator/core.go (TunePodsByNodeTotalResource,
// tuneUpPods, tuneDownPods; one pod scheduled at a time, no departures) and
// experiments/analysis (allocation at arrived-request points). Each pod is scheduled by one
// Caldera session (host/scheduler/run_session.hpp) with Volcano's actions and the plugins of
// the config, on a cache the replay keeps like the embedded cluster keeps its own
// (host/backend/sim/sim_cluster.cpp): a bind runs the pod on its node with the bind's
// annotations, a pod that found no node has failed and leaves.
#include "host/replay/replay.hpp"

#include "caldera/gpu_requests.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "host/scheduler/commit.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/util/input_error.hpp"

namespace caldera::replay {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
// Scalar resources are held in milli-units (caldera/plugin.h, UNITS): nvidia.com/gpu 1 is
// 1000, caldera.sh/gpu-milli 220 is 220000.
constexpr double kMilliUnits = 1000.0;
// The trace gives no pod limit; this is far above what the largest node can hold.
constexpr int32_t kMaxPods = 1000000;

// Card indexes from "0;3" (the device plugin's annotation). Empty on any malformed text.
std::vector<int> parse_indexes(const std::string& s) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= s.size() && !s.empty()) {
    size_t semi = s.find(';', pos);
    std::string part = s.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
    if (part.empty() || part.size() > 6 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      return {};
    out.push_back(std::stoi(part));
    if (semi == std::string::npos) break;
    pos = semi + 1;
  }
  return out;
}
}  // namespace

uint64_t bounded_draw(std::mt19937_64& rng, uint64_t n) {
  // Accept raw values below the largest multiple of n, so each residue is equally likely.
  const uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n;
  while (true) {
    uint64_t r = rng();
    if (r <= limit) return r % n;
  }
}

int64_t gpu_capacity_milli(const std::vector<OpenbNode>& nodes) {
  int64_t total = 0;
  for (const auto& n : nodes) total += int64_t{n.gpus} * kMilliPerGpu;
  return total;
}

std::vector<OpenbPod> tune_and_shuffle(const std::vector<OpenbPod>& trace, int64_t capacity_milli,
                                       double tune, uint64_t seed) {
  if (!(tune > 0)) throw InputError(fmt::format("--tune {}: must be above 0", tune));
  std::mt19937_64 rng(seed);
  std::vector<OpenbPod> pods = trace;
  int64_t total = 0;
  for (const auto& p : pods) total += p.gpu_request_milli();
  const double target = tune * static_cast<double>(capacity_milli);

  if (static_cast<double>(total) < target) {
    // tuneUpPods: copies of random trace pods while the total stays within the target.
    bool any_gpu = std::any_of(trace.begin(), trace.end(),
                               [](const OpenbPod& p) { return p.gpu_request_milli() > 0; });
    if (!any_gpu)
      throw InputError(fmt::format("--tune {}: no pod of the trace asks for a GPU, so no copy "
                                   "can bring the GPU requests to {:.0f} milli-GPU",
                                   tune, target));
    std::unordered_map<std::string, int> copies;
    while (true) {
      const OpenbPod& src = trace[bounded_draw(rng, trace.size())];
      if (static_cast<double>(total + src.gpu_request_milli()) > target) break;
      OpenbPod copy = src;
      copy.name = fmt::format("{}-copy-{}", src.name, ++copies[src.name]);
      total += copy.gpu_request_milli();
      pods.push_back(std::move(copy));
    }
  } else {
    // tuneDownPods: drop random pods until the total is within the target.
    while (static_cast<double>(total) > target && !pods.empty()) {
      size_t i = bounded_draw(rng, pods.size());
      total -= pods[i].gpu_request_milli();
      pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  shuffle(pods, rng);
  return pods;
}

NodeSpec node_record(const OpenbNode& n) {
  NodeSpec s;
  s.name = n.name;
  s.allocatable[kCpu] = static_cast<double>(n.cpu_milli);
  s.allocatable[kMemory] = static_cast<double>(n.memory_mib) * kMiB;
  if (n.gpus > 0) {
    s.allocatable[gpu::kGpu] = n.gpus * kMilliUnits;
    s.allocatable[gpu::kGpuMilli] = static_cast<double>(n.gpus) * kMilliPerGpu * kMilliUnits;
    s.labels[gpu::kModelLabel] = n.model;
  }
  s.max_pods = kMaxPods;
  return s;
}

PodSpec pod_record(const OpenbPod& p, double created) {
  PodSpec s;
  s.name = p.name;
  s.requests[kCpu] = static_cast<double>(p.cpu_milli);
  s.requests[kMemory] = static_cast<double>(p.memory_mib) * kMiB;
  if (p.is_share()) {
    s.requests[gpu::kGpuMilli] = p.gpu_milli * kMilliUnits;
  } else if (p.num_gpu > 0) {
    s.requests[gpu::kGpu] = p.num_gpu * kMilliUnits;
    s.requests[gpu::kGpuMilli] = static_cast<double>(p.num_gpu) * kMilliPerGpu * kMilliUnits;
  }
  if (!p.models.empty()) s.annotations[gpu::kModelsAnnotation] = p.gpu_spec();
  s.created = created;
  s.src.file = p.file;
  s.src.line = p.line;
  return s;
}

namespace {
// Names of the merged records of the fast path (RunOptions::merge_placed).
constexpr const char* kPlacedNamespace = "openb-placed";
constexpr const char* kPlacedPodGroup = "placed";

// The replay as a Backend (host/scheduler/backend.hpp): the bind of the session's one pod is
// kept for the bookkeeping below; nothing else is real (the trace has no kubelets).
struct PodPlaced : Backend {
  std::optional<PodSpec> bound;
  void bind(const PodSpec&, const PodSpec& b) override { bound = b; }
  // The trace's pods have no volumes, so no session makes a volume decision.
  bool bind_volumes(const PodSpec&, const std::vector<ClaimDecision>&) override { return false; }
  void evict(const PodSpec&, const std::string&) override {}
  void update_status(const SessionResult&, double) override {}
};

std::string join_ints(const std::vector<int64_t>& v, const std::vector<size_t>& at) {
  std::string s;
  for (size_t i = 0; i < at.size(); ++i) s += (i ? ";" : "") + std::to_string(v[at[i]]);
  return s;
}
}  // namespace

ReplayResult run_replay(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                        std::shared_ptr<const Policy> policy, const RunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  ReplayResult res;
  res.pods = pods.size();
  res.nodes = nodes.size();
  res.gpu_capacity_milli = gpu_capacity_milli(nodes);
  const double cap = static_cast<double>(res.gpu_capacity_milli);
  const bool prefilter = o.merge_placed && o.prefilter;

  // Per node: the record, each card's milli-GPU in use (the replay's own check of the
  // device plugin), what is free by the host's arithmetic (for the prefilter), and the
  // records of the pods placed on it.
  struct NodeState {
    std::shared_ptr<const NodeSpec> spec;
    std::string model;
    std::vector<int64_t> cards;
    int64_t cpu_free = 0, memory_free_mib = 0, milli_free = 0, whole_free = 0;
    ResourceList merged;                               // summed requests of the merged pods
    std::shared_ptr<const PodSpec> merged_record;      // null until a pod is merged
    std::string merged_key;
    std::vector<std::shared_ptr<const PodSpec>> own;   // pods kept as records of their own
    bool in_cache = false;
    bool carded = false, uncarded = false;  // merged GPU pods with / without cards
    size_t kind = 0;  // nodes of the same kind have the same record but for the name
    uint64_t hash = 0;  // of the state, for RunOptions::one_node_per_state
  };
  // Hash of the state of a node for RunOptions::one_node_per_state (see below).
  auto state_hash = [](const NodeState& s) {
    uint64_t h = s.kind * 0x9E3779B97F4A7C15ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001B3ull + (h >> 29); };
    mix(static_cast<uint64_t>(s.cpu_free));
    mix(static_cast<uint64_t>(s.memory_free_mib));
    mix(static_cast<uint64_t>(s.milli_free));
    mix(static_cast<uint64_t>(s.whole_free));
    mix(s.merged_record ? 1 : 0);
    for (int64_t c : s.cards) mix(static_cast<uint64_t>(c));
    return h;
  };
  std::vector<NodeState> state(nodes.size());
  std::unordered_map<std::string, size_t> index;
  std::map<std::tuple<int64_t, int64_t, int32_t, std::string>, size_t> kinds;
  Cache cache;
  Runtime runtime;  // what the replay's sessions share (worker pool, memo tables)
  for (size_t i = 0; i < nodes.size(); ++i) {
    const OpenbNode& n = nodes[i];
    NodeState& s = state[i];
    s.spec = std::make_shared<const NodeSpec>(node_record(n));
    s.model = n.model;
    s.cards.assign(static_cast<size_t>(n.gpus), 0);
    s.cpu_free = n.cpu_milli;
    s.memory_free_mib = n.memory_mib;
    s.milli_free = int64_t{n.gpus} * kMilliPerGpu;
    s.whole_free = n.gpus;
    s.merged_key = std::string(kPlacedNamespace) + "/" + n.name;
    index[n.name] = i;
    s.kind = kinds.emplace(std::make_tuple(n.cpu_milli, n.memory_mib, n.gpus, n.model),
                           kinds.size())
                 .first->second;
    s.hash = state_hash(s);
    if (!prefilter) {
      cache.upsert_node_record(s.spec);
      s.in_cache = true;
    }
  }
  if (o.merge_placed) {
    // One running PodGroup holds every merged record: one job in the session instead of
    // one per node (a lone pod is a job of its own).
    PodGroupSpec pg;
    pg.ns = kPlacedNamespace;
    pg.name = kPlacedPodGroup;
    pg.phase = JobPhase::Running;
    pg.min_member = 1;
    cache.upsert_podgroup(std::move(pg));
  }
  size_t in_cache = prefilter ? 0 : state.size();
  auto put = [&](NodeState& s, bool in) {
    if (s.in_cache == in) return;
    s.in_cache = in;
    in_cache += in ? 1 : -1;
    if (in) {
      cache.upsert_node_record(s.spec);
      if (s.merged_record) cache.upsert_pod_record(s.merged_record);
      for (const auto& p : s.own) cache.upsert_pod_record(p);
    } else {
      cache.remove_node(s.spec->name);
      if (s.merged_record) cache.remove_pod(s.merged_key);
      for (const auto& p : s.own) cache.remove_pod(p->key());
    }
  };

  // RunOptions::one_node_per_state: two nodes are in the same state when they are of the
  // same kind and hold the same: resources in use (the merged record's requests follow from
  // these) and each card's use (its annotations follow from that). A node with records of
  // its own is in a state of its own.
  const bool one_per_state = prefilter && o.one_node_per_state;
  std::vector<size_t> by_name(state.size());
  for (size_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
  std::sort(by_name.begin(), by_name.end(),
            [&](size_t a, size_t b) { return nodes[a].name < nodes[b].name; });
  auto same_state = [](const NodeState& a, const NodeState& b) {
    return a.kind == b.kind && a.own.empty() && b.own.empty() && a.cpu_free == b.cpu_free &&
           a.memory_free_mib == b.memory_free_mib && a.milli_free == b.milli_free &&
           a.whole_free == b.whole_free &&
           (a.merged_record != nullptr) == (b.merged_record != nullptr) && a.cards == b.cards;
  };
  std::unordered_multimap<uint64_t, size_t> first_of_state;  // state hash -> node shown
  first_of_state.reserve(state.size());

  const int last_point = o.step > 0 ? static_cast<int>(std::floor(o.until / o.step + 1e-9)) : 0;
  int next_point = 1;
  res.points.push_back({0.0, 0.0});
  int64_t arrived = 0;

  res.placements.reserve(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) {
    const OpenbPod& p = pods[i];
    const int64_t gpu_request = p.gpu_request_milli();
    const int64_t whole = p.is_share() ? 0 : p.num_gpu;
    if (prefilter) {
      // The fast path's session holds only the nodes the pod fits by the host's own
      // resource arithmetic (the allocate action's first check), and of an allowed model:
      // every other node would be refused before any plugin is asked.
      first_of_state.clear();
      for (size_t k : by_name) {
        NodeState& s = state[k];
        bool fits = s.cpu_free >= p.cpu_milli && s.memory_free_mib >= p.memory_mib &&
                    s.milli_free >= gpu_request && s.whole_free >= whole;
        if (fits && gpu_request > 0 && !p.models.empty())
          fits = std::find(p.models.begin(), p.models.end(), s.model) != p.models.end();
        if (fits && one_per_state && s.own.empty()) {
          const uint64_t h = s.hash;
          auto [b, e] = first_of_state.equal_range(h);
          if (std::any_of(b, e, [&](const auto& kv) { return same_state(state[kv.second], s); }))
            fits = false;  // a node before it by name is in the same state
          else
            first_of_state.emplace(h, k);
        }
        put(s, fits);
      }
    }
    PodSpec rec = pod_record(p, static_cast<double>(i));
    const std::string uid = rec.key();
    cache.upsert_pod(rec);
    res.session_nodes += in_cache;
    SessionTimings timings;
    SessionResult r = run_session(cache, policy, static_cast<double>(i), runtime, &timings);
    res.open_seconds += timings.open_seconds;
    for (const auto& [action, secs] : timings.action_seconds) res.action_seconds += secs;
    res.close_seconds += timings.close_seconds;
    PodPlaced placed;
    commit_decisions(r, cache, placed, static_cast<double>(i));
    runtime.carry(std::move(r.plugin_states));  // deviceshare's history of pod shapes

    ReplayPlacement pl;
    pl.pod = p.name;
    auto at = placed.bound ? index.find(placed.bound->node) : index.end();
    if (at != index.end()) {
      rec = std::move(*placed.bound);  // on its node, with the device plugin's annotations
      rec.phase = PodPhase::Running;
      pl.node = rec.node;
      NodeState& ns = state[at->second];
      bool cards_known = true;
      if (gpu_request > 0) {
        pl.gpu_milli = p.is_share() ? p.gpu_milli : kMilliPerGpu;
        auto idx = rec.annotations.find(gpu::kIndexAnnotation);
        if (idx == rec.annotations.end()) {
          ++res.placed_without_cards;
          cards_known = false;
        } else {
          pl.gpus = parse_indexes(idx->second);
          std::vector<int64_t>& used = ns.cards;
          const size_t want = p.is_share() ? 1 : static_cast<size_t>(p.num_gpu);
          if (pl.gpus.size() != want)
            throw std::runtime_error(fmt::format(
                "pod {} on {}: the device plugin chose cards '{}', but the pod asks {} card(s)",
                p.name, pl.node, idx->second, want));
          for (int g : pl.gpus) {
            if (g < 0 || static_cast<size_t>(g) >= used.size() ||
                used[static_cast<size_t>(g)] + pl.gpu_milli > kMilliPerGpu)
              throw std::runtime_error(fmt::format(
                  "pod {} on {}: the device plugin chose card {}; the node has {} cards and the "
                  "card {} milli-GPU in use, so {} more does not fit",
                  p.name, pl.node, g, used.size(),
                  g >= 0 && static_cast<size_t>(g) < used.size() ? used[static_cast<size_t>(g)] : 0,
                  pl.gpu_milli));
            used[static_cast<size_t>(g)] += pl.gpu_milli;
          }
        }
      }
      ns.cpu_free -= p.cpu_milli;
      ns.memory_free_mib -= p.memory_mib;
      ns.milli_free -= gpu_request;
      ns.whole_free -= whole;
      cache.remove_pod(uid);
      // Pods with cards and pods without never share a merged record (RunOptions).
      const bool merge = o.merge_placed && (gpu_request == 0 || (cards_known ? !ns.uncarded
                                                                             : !ns.carded));
      if (gpu_request > 0 && merge) (cards_known ? ns.carded : ns.uncarded) = true;
      if (merge) {
        // The fast path: the pod joins its node's merged record.
        for (const auto& [k, v] : rec.requests) ns.merged[k] += v;
        auto merged = std::make_shared<PodSpec>();
        merged->ns = kPlacedNamespace;
        merged->name = pl.node;
        merged->podgroup = kPlacedPodGroup;
        merged->requests = ns.merged;
        merged->phase = PodPhase::Running;
        merged->node = pl.node;
        std::vector<size_t> in_use;
        for (size_t c = 0; c < ns.cards.size(); ++c)
          if (ns.cards[c] > 0) in_use.push_back(c);
        if (!in_use.empty()) {
          std::string cards;
          for (size_t k = 0; k < in_use.size(); ++k) cards += (k ? ";" : "") + std::to_string(in_use[k]);
          merged->annotations[gpu::kIndexAnnotation] = cards;
          merged->annotations[gpu::kMilliPerCardAnnotation] = join_ints(ns.cards, in_use);
        }
        ns.merged_record = std::move(merged);
        if (ns.in_cache) cache.upsert_pod_record(ns.merged_record);
      } else {
        ns.own.push_back(std::make_shared<const PodSpec>(std::move(rec)));
        if (ns.in_cache) cache.upsert_pod_record(ns.own.back());
      }
      ns.hash = state_hash(ns);
      res.gpu_allocated_milli += gpu_request;
      ++res.placed;
    } else {
      // Failed for good: the pod leaves, as in the simulator (no retries, no departures).
      cache.remove_pod(uid);
      auto why = r.pending.find(uid);
      pl.reason = why == r.pending.end() ? "not placed" : why->second;
      ++res.failed;
    }
    res.placements.push_back(std::move(pl));

    arrived += gpu_request;
    while (next_point <= last_point &&
           static_cast<double>(arrived) + 1e-6 >= next_point * o.step * cap) {
      res.points.push_back(
          {next_point * o.step, static_cast<double>(res.gpu_allocated_milli) / cap});
      ++next_point;
    }
    if (o.progress) o.progress(i + 1, pods.size());
  }
  // The end of the arrivals, when it falls between two points (tuning stops within one pod
  // of the target): the last state, at its true arrived share.
  const double arrived_share = cap > 0 ? static_cast<double>(arrived) / cap : 0;
  if (cap > 0 && arrived_share - res.points.back().arrived > 1e-9)
    res.points.push_back({arrived_share, static_cast<double>(res.gpu_allocated_milli) / cap});
  res.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

void write_placements_csv(const std::string& path, const ReplayResult& r) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(fmt::format("{}: cannot write the placements file", path));
  out << "seq,pod,node,gpus,gpu_milli\n";
  for (size_t i = 0; i < r.placements.size(); ++i) {
    const ReplayPlacement& p = r.placements[i];
    out << i << ',' << p.pod << ',' << p.node << ',' << fmt::format("{}", fmt::join(p.gpus, ";"))
        << ',';
    if (!p.node.empty() && p.gpu_milli > 0) out << p.gpu_milli;
    out << '\n';
  }
  if (!out) throw InputError(fmt::format("{}: writing the placements file failed", path));
}

namespace {
std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}
}  // namespace

std::string plot_svg(const ReplayResult& r, const std::string& title) {
  // Allocated share (y) against arrived share (x), with the line y = x (everything that
  // arrived is placed) for reference, as the FGD paper's Figure 7 draws it.
  const double W = 640, H = 420, L = 60, R = 20, T = 40, B = 50;
  double xmax = 0;
  for (const auto& p : r.points) xmax = std::max(xmax, p.arrived);
  xmax = std::max(0.05, std::ceil(xmax * 10 - 1e-9) / 10);
  const double ymax = 1.0;
  auto X = [&](double v) { return L + v / xmax * (W - L - R); };
  auto Y = [&](double v) { return H - B - v / ymax * (H - T - B); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">{3}</text>\n",
      W, H, W / 2, xml_escape(title));
  for (int i = 0; i <= 10; ++i) {  // y grid every 10%
    double v = i / 10.0;
    s += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}%</text>\n",
        L, Y(v), W - R, Y(v), L - 6, Y(v) + 4, i * 10);
  }
  for (int i = 0; i <= static_cast<int>(std::round(xmax * 10)); ++i) {  // x grid every 10%
    double v = i / 10.0;
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#ddd\"/>"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}%</text>\n",
        X(v), T, X(v), H - B, X(v), H - B + 16, i * 10);
  }
  s += fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#999\" "
      "stroke-dasharray=\"4 4\"/>\n",
      X(0), Y(0), X(std::min(xmax, ymax)), Y(std::min(xmax, ymax)));
  std::string pts;
  for (const auto& p : r.points) pts += fmt::format("{:.1f},{:.1f} ", X(p.arrived), Y(p.allocated));
  s += fmt::format("<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"{}\"/>\n",
                   pts);
  for (const auto& p : r.points)
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"#c0392b\"><title>"
                     "arrived {:.1f}%, allocated {:.1f}%</title></circle>\n",
                     X(p.arrived), Y(p.allocated), p.arrived * 100, p.allocated * 100);
  s += fmt::format(
      "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">GPU requests arrived (% of cluster GPU "
      "capacity)</text>\n"
      "<text transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">GPU "
      "allocated (% of capacity)</text>\n</svg>\n",
      (L + W - R) / 2, H - 12, (T + H - B) / 2);
  return s;
}

std::string plot_html(const ReplayResult& r, const std::string& title) {
  std::string rows;
  for (const auto& p : r.points)
    rows += fmt::format("<tr><td>{:.1f}%</td><td>{:.2f}%</td></tr>\n", p.arrived * 100,
                        p.allocated * 100);
  return fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0}</title>\n"
      "<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}"
      "td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}</style></head>\n"
      "<body><h1>{0}</h1>\n<p>{1} pods, {2} nodes, {3} GPUs; {4} placed, {5} failed; "
      "{6:.1f} s</p>\n{7}\n<table><tr><th>arrived</th><th>allocated</th></tr>\n{8}</table>\n"
      "</body></html>\n",
      xml_escape(title), r.pods, r.nodes, r.gpu_capacity_milli / kMilliPerGpu, r.placed, r.failed,
      r.seconds, plot_svg(r, title), rows);
}

}  // namespace caldera::replay
