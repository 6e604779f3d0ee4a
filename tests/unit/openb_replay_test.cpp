// The openb trace replay (host/replay/) on the hand-made trace in tests/data/openb-tiny/:
// reading the CSVs and their bad rows, tuning, the seeded shuffle, and whole replays with the
// deviceshare configs (no card ever holds more than 1000 milli-GPU).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "host/config/config.hpp"
#include "host/plugins/policy.hpp"
#include "host/replay/openb_trace.hpp"
#include "host/replay/replay.hpp"
#include "tests/unit/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using caldera::testing::contains;
using caldera::testing::input_error_of;
namespace rp = caldera::replay;
using caldera::InputError;

fs::path data() { return fs::path(CALDERA_SOURCE_ROOT) / "tests" / "data" / "openb-tiny"; }

// conf/openb/NAME.toml, or the config without a device plugin of the tiny data.
std::shared_ptr<const caldera::Policy> policy(const std::string& name) {
  const fs::path file = name == "no-device-plugin"
                            ? data() / "no-device-plugin.toml"
                            : fs::path(CALDERA_SOURCE_ROOT) / "conf" / "openb" / (name + ".toml");
  caldera::SchedulerConfig c = caldera::load_config(file, {CALDERA_BUILTIN_PLUGIN_DIR});
  return caldera::build_policy(c, caldera::PluginCatalog::scan(c.plugin_dirs), "");
}

rp::OpenbPod pod(const std::string& name, int32_t num_gpu, int32_t milli) {
  rp::OpenbPod p;
  p.name = name;
  p.cpu_milli = 1000;
  p.memory_mib = 1024;
  p.num_gpu = num_gpu;
  p.gpu_milli = milli;
  return p;
}

int64_t total_gpu(const std::vector<rp::OpenbPod>& pods) {
  int64_t t = 0;
  for (const auto& p : pods) t += p.gpu_request_milli();
  return t;
}

// ---- reading -----------------------------------------------------------------------------

TEST(OpenbTrace, ReadsNodesAndPods) {
  rp::LoadReport rep;
  auto nodes = rp::load_openb_nodes(data() / "openb_node_list_gpu_node.csv", false, rep);
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[1].name, "tiny-node-1");
  EXPECT_EQ(nodes[1].cpu_milli, 64000);
  EXPECT_EQ(nodes[1].memory_mib, 262144);
  EXPECT_EQ(nodes[1].gpus, 4);
  EXPECT_EQ(nodes[1].model, "V100M32");
  EXPECT_EQ(nodes[1].line, 3);
  EXPECT_EQ(rp::gpu_capacity_milli(nodes), 14000);

  // Extra columns (qos, phase, times) are read past.
  auto pods = rp::load_openb_pods(data() / "openb_pod_list_tiny.csv", false, rep);
  ASSERT_EQ(pods.size(), 8u);
  EXPECT_EQ(rep.skipped, 0u);
  EXPECT_TRUE(pods[0].is_share());
  EXPECT_EQ(pods[0].gpu_request_milli(), 500);
  EXPECT_FALSE(pods[1].is_share());
  EXPECT_EQ(pods[1].gpu_request_milli(), 1000);
  EXPECT_EQ(pods[2].gpu_request_milli(), 0);
  EXPECT_EQ(pods[3].gpu_request_milli(), 2000);
  EXPECT_EQ(pods[4].models, (std::vector<std::string>{"T4", "G2"}));
  EXPECT_EQ(pods[4].gpu_spec(), "T4|G2");
  EXPECT_EQ(pods[5].gpu_request_milli(), 8000);
  EXPECT_EQ(total_gpu(pods), 12990);
}

// The multigpu* variants of the trace stop at gpu_milli: no gpu_spec means no model
// constraint, as the paper's simulator reads them.
TEST(OpenbTrace, ReadsTheFiveColumnVariant) {
  rp::LoadReport rep;
  auto pods = rp::load_openb_pods(data() / "pods-five-columns.csv", false, rep);
  ASSERT_EQ(pods.size(), 4u);
  EXPECT_EQ(rep.skipped, 0u);
  EXPECT_EQ(pods[1].num_gpu, 8);
  EXPECT_EQ(pods[1].gpu_request_milli(), 8000);
  EXPECT_TRUE(pods[2].is_share());
  EXPECT_EQ(pods[3].gpu_request_milli(), 0);
  for (const auto& p : pods) EXPECT_TRUE(p.models.empty()) << p.name;
  EXPECT_EQ(total_gpu(pods), 9250);
}

// Each bad row is named by file, line and column; --skip-bad-rows skips and counts them.
TEST(OpenbTrace, BadRowsGiveFileLineAndColumn) {
  const std::string f = (data() / "pods-bad-rows.csv").string();
  rp::LoadReport strict;
  std::string first = input_error_of([&] { rp::load_openb_pods(f, false, strict); });
  EXPECT_EQ(first, f + ":3: pod bad-negative: column 'cpu_milli': '-4000' is negative");

  rp::LoadReport rep;
  auto pods = rp::load_openb_pods(f, true, rep);
  ASSERT_EQ(rep.errors.size(), 8u);
  EXPECT_EQ(rep.skipped, 8u);
  EXPECT_EQ(rep.errors[1], f + ":4: pod bad-nonnumeric: column 'memory_mib': 'lots' is not a "
                               "whole number");
  EXPECT_TRUE(contains(rep.errors[2], ":5: pod bad-share-on-two-cards: column 'gpu_milli': 500 "
                                      "with num_gpu 2"))
      << rep.errors[2];
  EXPECT_TRUE(contains(rep.errors[3], ":6: pod bad-above-one-card: column 'gpu_milli': 1500 is "
                                      "more than one card"))
      << rep.errors[3];
  EXPECT_TRUE(contains(rep.errors[4], ":7: pod bad-model-syntax: column 'gpu_spec': 'T4||G2' has "
                                      "an empty model name"))
      << rep.errors[4];
  EXPECT_TRUE(contains(rep.errors[5], ":8: pod bad-short-row: column 'gpu_spec': missing"))
      << rep.errors[5];
  EXPECT_TRUE(contains(rep.errors[6], ":9: pod bad-empty-num-gpu: column 'num_gpu': empty"))
      << rep.errors[6];
  EXPECT_EQ(rep.errors[7], f + ":13: pod good-pod-0: column 'name': a pod of this name is "
                               "listed before");
  ASSERT_EQ(pods.size(), 4u);  // good-pod-0, good-pod-1 and the two that never fit

  // Against the cluster: a model no node has, more cards than any node has.
  auto nodes = rp::load_openb_nodes(data() / "openb_node_list_gpu_node.csv", false, rep);
  std::vector<rp::OpenbPod> copy = pods;
  std::string never = input_error_of([&] { rp::check_pods_against_nodes(copy, nodes, false, rep); });
  EXPECT_EQ(never, f + ":11: pod bad-never-fits-model: column 'gpu_spec': no node has a GPU of "
                       "model A100 (the cluster has G2, T4, V100M32): it can never be placed");
  rp::LoadReport rep2;
  rp::check_pods_against_nodes(pods, nodes, true, rep2);
  ASSERT_EQ(rep2.skipped, 2u);
  EXPECT_EQ(rep2.errors[1], f + ":12: pod bad-never-fits-count: column 'num_gpu': 16 cards, but "
                                "no node has more than 8: it can never be placed");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[1].name, "good-pod-1");
}

TEST(OpenbTrace, MissingColumnAndBadNodeRows) {
  rp::LoadReport rep;
  const std::string f = (data() / "pods-missing-column.csv").string();
  EXPECT_EQ(input_error_of([&] { rp::load_openb_pods(f, true, rep); }),
            f + ":1: the header has no column 'gpu_milli' (needed: name, cpu_milli, memory_mib, "
                "num_gpu, gpu_milli)");
  const std::string n = (data() / "nodes-bad-gpu.csv").string();
  EXPECT_EQ(input_error_of([&] { rp::load_openb_nodes(n, false, rep); }),
            n + ":3: node tiny-node-1: column 'gpu': 'four' is not a whole number");
  const std::string d = (data() / "nodes-duplicate.csv").string();
  EXPECT_EQ(input_error_of([&] { rp::load_openb_nodes(d, false, rep); }),
            d + ":4: node tiny-node-0: column 'sn': a node of this name is listed before");
  EXPECT_EQ(input_error_of([&] { rp::load_openb_pods(data() / "no-such-file.csv", false, rep); }),
            (data() / "no-such-file.csv").string() + ": cannot open the file");
}

// ---- tuning and the shuffle ------------------------------------------------------------------

// One GPU pod shape of 1000: capacity 10000, tune 1.3 -> exactly 13 GPU pods; the CPU pod
// stays once (copies of it add nothing, and are added while the total allows).
TEST(OpenbTune, StopsAtTheRightTotal) {
  std::vector<rp::OpenbPod> trace = {pod("a-0", 1, 1000), pod("b-1", 1, 1000), pod("c-2", 0, 0)};
  auto pods = rp::tune_and_shuffle(trace, 10000, 1.3, 42);
  EXPECT_EQ(total_gpu(pods), 13000);
  // Mixed sizes: the total stops within one pod of the target, never above it.
  std::vector<rp::OpenbPod> mixed = {pod("a-0", 1, 300), pod("b-1", 2, 1000), pod("c-2", 8, 1000)};
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto t = rp::tune_and_shuffle(mixed, 100000, 1.3, seed);
    EXPECT_LE(total_gpu(t), 130000);
    EXPECT_GT(total_gpu(t), 130000 - 8000) << "seed " << seed;
  }
  // Copies are named after their pod, numbered per pod; the originals stay.
  std::set<std::string> names;
  for (const auto& p : pods) EXPECT_TRUE(names.insert(p.name).second) << p.name;
  EXPECT_TRUE(names.count("a-0") && names.count("b-1") && names.count("c-2"));
  EXPECT_TRUE(names.count("a-0-copy-1") || names.count("b-1-copy-1"));
  // A trace that already asks more is cut down (random pods removed) to the target.
  auto down = rp::tune_and_shuffle(mixed, 10000, 0.5, 7);
  EXPECT_LE(total_gpu(down), 5000);
}

// The order depends on the seed only: the same seed gives the same pods in the same order,
// on every platform (our own bounded draw and Fisher-Yates over std::mt19937_64, whose
// output the C++ standard fixes).
TEST(OpenbShuffle, DependsOnlyOnTheSeed) {
  rp::LoadReport rep;
  auto trace = rp::load_openb_pods(data() / "openb_pod_list_tiny.csv", false, rep);
  auto a = rp::tune_and_shuffle(trace, 14000, 1.3, 42);
  auto b = rp::tune_and_shuffle(trace, 14000, 1.3, 42);
  auto c = rp::tune_and_shuffle(trace, 14000, 1.3, 43);
  std::vector<std::string> na, nb, nc;
  for (const auto& p : a) na.push_back(p.name);
  for (const auto& p : b) nb.push_back(p.name);
  for (const auto& p : c) nc.push_back(p.name);
  EXPECT_EQ(na, nb);
  EXPECT_NE(na, nc);
  EXPECT_LE(total_gpu(a), 18200);

  // Fixed values: the standard's mt19937_64 with seed 42 and our draw.
  std::mt19937_64 rng(42);
  std::vector<uint64_t> draws;
  for (int i = 0; i < 5; ++i) draws.push_back(rp::bounded_draw(rng, 10));
  std::mt19937_64 again(42);
  std::vector<uint64_t> raw;
  for (int i = 0; i < 5; ++i) raw.push_back(again() % 10);
  EXPECT_EQ(draws, raw);  // 10 divides nothing near 2^64 badly: no draw is rejected here
  std::vector<int> v = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::mt19937_64 r2(42);
  rp::shuffle(v, r2);
  std::mt19937_64 r3(42);
  std::vector<int> w = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (size_t i = w.size(); i > 1; --i) std::swap(w[i - 1], w[r3() % i]);
  EXPECT_EQ(v, w);
}

// ---- whole replays -------------------------------------------------------------------------

struct Replayed {
  rp::ReplayResult result;
  std::vector<rp::OpenbPod> pods;
};

Replayed replay_tiny(const std::string& config, uint64_t seed, bool merge = true) {
  rp::LoadReport rep;
  auto nodes = rp::load_openb_nodes(data() / "openb_node_list_gpu_node.csv", false, rep);
  auto trace = rp::load_openb_pods(data() / "openb_pod_list_tiny.csv", false, rep);
  Replayed out;
  out.pods = rp::tune_and_shuffle(trace, rp::gpu_capacity_milli(nodes), 1.3, seed);
  rp::RunOptions o;
  o.merge_placed = merge;
  out.result = rp::run_replay(nodes, out.pods, policy(config), o);
  return out;
}

// Every card of every node: what the placements put on it never passes 1000 milli-GPU; each
// placed GPU pod got as many cards as it asks; the points run from (0, 0) in 5% steps.
void check_replay(const Replayed& r) {
  const rp::ReplayResult& res = r.result;
  ASSERT_EQ(res.placements.size(), r.pods.size());
  std::map<std::pair<std::string, int>, int64_t> card;
  int64_t allocated = 0;
  for (size_t i = 0; i < r.pods.size(); ++i) {
    const rp::OpenbPod& p = r.pods[i];
    const rp::ReplayPlacement& pl = res.placements[i];
    EXPECT_EQ(pl.pod, p.name);
    if (pl.node.empty()) continue;
    allocated += p.gpu_request_milli();
    if (p.gpu_request_milli() == 0) {
      EXPECT_TRUE(pl.gpus.empty());
      continue;
    }
    EXPECT_EQ(pl.gpus.size(), p.is_share() ? 1u : static_cast<size_t>(p.num_gpu)) << p.name;
    EXPECT_EQ(pl.gpu_milli, p.is_share() ? p.gpu_milli : 1000);
    for (int g : pl.gpus) {
      int64_t& used = card[{pl.node, g}];
      used += pl.gpu_milli;
      EXPECT_LE(used, 1000) << pl.node << " card " << g;
    }
  }
  EXPECT_EQ(allocated, res.gpu_allocated_milli);
  EXPECT_EQ(res.placed + res.failed, r.pods.size());
  EXPECT_EQ(res.placed_without_cards, 0u);
  ASSERT_GE(res.points.size(), 2u);
  EXPECT_EQ(res.points[0].arrived, 0);
  EXPECT_EQ(res.points[0].allocated, 0);
  for (size_t i = 1; i < res.points.size(); ++i) {
    EXPECT_GT(res.points[i].arrived, res.points[i - 1].arrived);
    EXPECT_GE(res.points[i].allocated, res.points[i - 1].allocated);
    EXPECT_LE(res.points[i].allocated, 1.0);
  }
  EXPECT_NEAR(res.points[1].arrived, 0.05, 1e-12);
}

TEST(OpenbReplay, BinpackSharesNeverExceedOneCard) {
  Replayed r = replay_tiny("binpack", 42);
  check_replay(r);
  EXPECT_GT(r.result.placed, 0u);
}

TEST(OpenbReplay, SpreadAndFragmentationSharesNeverExceedOneCard) {
  check_replay(replay_tiny("spread", 42));
  check_replay(replay_tiny("fragmentation", 42));
  check_replay(replay_tiny("fragmentation", 7));
}

// The fast path (one merged record per node) decides exactly as keeping every placed pod.
TEST(OpenbReplay, MergedRecordsDecideAsEveryPod) {
  for (const char* config : {"binpack", "fragmentation", "no-device-plugin"}) {
    for (uint64_t seed : {42u, 7u}) {
      Replayed merged = replay_tiny(config, seed, true);
      Replayed kept = replay_tiny(config, seed, false);
      ASSERT_EQ(merged.result.placements.size(), kept.result.placements.size());
      for (size_t i = 0; i < merged.result.placements.size(); ++i) {
        const rp::ReplayPlacement& a = merged.result.placements[i];
        const rp::ReplayPlacement& b = kept.result.placements[i];
        EXPECT_EQ(a.node, b.node) << config << " seed " << seed << " pod " << a.pod;
        EXPECT_EQ(a.gpus, b.gpus) << config << " seed " << seed << " pod " << a.pod;
      }
      EXPECT_EQ(merged.result.gpu_allocated_milli, kept.result.gpu_allocated_milli);
      EXPECT_EQ(merged.result.placed_without_cards, kept.result.placed_without_cards);
      if (std::string(config) == "no-device-plugin") {
        EXPECT_GT(merged.result.placed_without_cards, 0u) << "seed " << seed;
      }
    }
  }
}

// The same on a slice of the real trace (beside the project, when present): 60 nodes of the
// openb cluster and the default pod list tuned to them, about 350 sessions per mode.
TEST(OpenbReplay, MergedRecordsDecideAsEveryPodOnTheRealTrace) {
  const fs::path dir = fs::path(CALDERA_SOURCE_ROOT) / ".." / "shared" / "data" / "openb";
  if (!fs::exists(dir / "openb_pod_list_default.csv")) GTEST_SKIP() << "no " << dir;
  rp::LoadReport rep;
  auto nodes = rp::load_openb_nodes(dir / "openb_node_list_gpu_node.csv", false, rep);
  std::vector<rp::OpenbNode> slice;
  for (size_t i = 0; i < nodes.size(); i += nodes.size() / 60) slice.push_back(nodes[i]);
  auto trace = rp::load_openb_pods(dir / "openb_pod_list_default.csv", false, rep);
  rp::check_pods_against_nodes(trace, slice, true, rep);
  std::vector<rp::OpenbPod> pods =
      rp::tune_and_shuffle(trace, rp::gpu_capacity_milli(slice), 1.3, 42);
  // The tuning copies from the whole trace; keep the first pods up to 1.3 x the slice.
  int64_t total = 0;
  std::vector<rp::OpenbPod> head;
  for (const auto& p : pods) {
    if (total + p.gpu_request_milli() > rp::gpu_capacity_milli(slice) * 13 / 10) break;
    total += p.gpu_request_milli();
    head.push_back(p);
  }
  for (const char* config : {"binpack", "spread", "fragmentation", "no-device-plugin"}) {
    rp::RunOptions merged, kept, every_state;
    kept.merge_placed = false;
    every_state.one_node_per_state = false;
    rp::ReplayResult a = rp::run_replay(slice, head, policy(config), merged);
    rp::ReplayResult b = rp::run_replay(slice, head, policy(config), kept);
    rp::ReplayResult c = rp::run_replay(slice, head, policy(config), every_state);
    ASSERT_EQ(a.placements.size(), b.placements.size());
    ASSERT_EQ(a.placements.size(), c.placements.size());
    size_t differ = 0, differ_state = 0;
    for (size_t i = 0; i < a.placements.size(); ++i) {
      if (a.placements[i].node != b.placements[i].node || a.placements[i].gpus != b.placements[i].gpus)
        ++differ;
      if (a.placements[i].node != c.placements[i].node ||
          a.placements[i].gpus != c.placements[i].gpus)
        ++differ_state;
    }
    EXPECT_EQ(differ, 0u) << config;
    EXPECT_EQ(differ_state, 0u) << config;
    EXPECT_GT(a.placed, 100u) << config;
    EXPECT_GT(a.failed, 0u) << config;  // the slice fills up
    // Every session of the plain path holds all 60 nodes; the prefilter and one node per
    // state hold fewer (the slice has many idle nodes of the same kind for a long time).
    EXPECT_EQ(b.session_nodes, slice.size() * head.size()) << config;
    EXPECT_LT(c.session_nodes, b.session_nodes) << config;
    EXPECT_LT(a.session_nodes, c.session_nodes) << config;
  }
}

// One node per state: of two idle nodes of the same kind only the first by name is in a
// session, and the decisions are those of every node (the first by name wins a tie).
// Cluster: four 2-card T4 nodes (t-0..t-3) and two 8-card G2 nodes (g-0, g-1), all idle.
//   pod 1 (a 500 share) sees g-0 and t-0 only: 2 nodes. binpack puts it on t-0 (the node
//     left with least free GPU: 1500 < 7500).
//   pod 2 (one whole card) sees t-0 (now alone in its state), t-1 (first idle T4) and g-0:
//     3 nodes. binpack: t-0 keeps 500 free after it, t-1 1000, g-0 7000 -> t-0, card 1.
//   pod 3 (a 500 share) sees t-0 (500 left on card 0), t-1, g-0: t-0 again, card 0 full.
//   pod 4 (8 whole cards) fits the G2 nodes only: g-0 (g-1 is in g-0's state): 1 node.
TEST(OpenbReplay, OneNodePerStateShowsTheFirstOfEachState) {
  std::vector<rp::OpenbNode> nodes;
  for (const char* name : {"t-0", "t-1", "t-2", "t-3"})
    nodes.push_back({name, 32000, 131072, 2, "T4", 0});
  for (const char* name : {"g-1", "g-0"})  // out of name order on purpose
    nodes.push_back({name, 96000, 393216, 8, "G2", 0});
  std::vector<rp::OpenbPod> pods = {pod("p-1", 1, 500), pod("p-2", 1, 1000), pod("p-3", 1, 500),
                                    pod("p-4", 8, 1000)};
  rp::RunOptions one, every;
  every.one_node_per_state = false;
  rp::ReplayResult a = rp::run_replay(nodes, pods, policy("binpack"), one);
  rp::ReplayResult b = rp::run_replay(nodes, pods, policy("binpack"), every);
  ASSERT_EQ(a.placements.size(), 4u);
  EXPECT_EQ(a.placements[0].node, "t-0");
  EXPECT_EQ(a.placements[0].gpus, (std::vector<int>{0}));
  EXPECT_EQ(a.placements[1].node, "t-0");
  EXPECT_EQ(a.placements[1].gpus, (std::vector<int>{1}));
  EXPECT_EQ(a.placements[2].node, "t-0");
  EXPECT_EQ(a.placements[2].gpus, (std::vector<int>{0}));
  EXPECT_EQ(a.placements[3].node, "g-0");
  EXPECT_EQ(a.placements[3].gpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(a.placements[i].node, b.placements[i].node) << i;
    EXPECT_EQ(a.placements[i].gpus, b.placements[i].gpus) << i;
  }
  EXPECT_EQ(a.session_nodes, 2u + 3u + 3u + 1u);
  // Without it, each session holds every node the pod fits: 6, 6, 6 (t-0 still has the 500
  // milli-GPU pod 3 asks), then the two G2 nodes.
  EXPECT_EQ(b.session_nodes, 6u + 6u + 6u + 2u);
}

// SCENARIOS.md section 3: seq,pod,node,gpus,gpu_milli; empty fields for a pod not placed.
TEST(OpenbReplay, PlacementsCsv) {
  Replayed r = replay_tiny("binpack", 42);
  const fs::path out = fs::temp_directory_path() / "caldera-openb-placements-test.csv";
  rp::write_placements_csv(out.string(), r.result);
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "seq,pod,node,gpus,gpu_milli");
  size_t seq = 0, failed = 0;
  while (std::getline(in, line)) {
    const rp::ReplayPlacement& pl = r.result.placements[seq];
    std::string gpus;
    for (size_t i = 0; i < pl.gpus.size(); ++i) gpus += (i ? ";" : "") + std::to_string(pl.gpus[i]);
    std::string want = std::to_string(seq) + "," + pl.pod + "," + pl.node + "," + gpus + ",";
    if (!pl.node.empty() && pl.gpu_milli > 0) want += std::to_string(pl.gpu_milli);
    EXPECT_EQ(line, want);
    if (pl.node.empty()) {
      EXPECT_EQ(line, std::to_string(seq) + "," + pl.pod + ",,,");
      ++failed;
    }
    ++seq;
  }
  EXPECT_EQ(seq, r.pods.size());
  EXPECT_EQ(failed, r.result.failed);
  fs::remove(out);
}

}  // namespace
