// The deviceshare plugin in real sessions (the built .so, the host's session and allocate
// action), and the load-time checks of GPU requests (host/scenario/device_requests.hpp):
// requests no card can ever meet are input errors when a scenario or cluster is loaded,
// and, when they reach a session anyway (a real cluster), the plugin refuses them every
// session with the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/scenario/device_requests.hpp"
#include "host/plugins/policy.hpp"
#include "host/backend/sim/scenario_runner.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/scheduler/run_session.hpp"
#include "tests/unit/session_helpers.hpp"
#include "tests/unit/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using caldera::testing::input_error_of;
using namespace caldera;

constexpr double kGi = 1024.0 * 1024 * 1024;

NodeSpec gpu_node(const std::string& name, int cards, const std::string& model) {
  NodeSpec n;
  n.name = name;
  n.allocatable = {{"cpu", 16000}, {"memory", 64 * kGi}, {"nvidia.com/gpu", cards * 1000.0},
                   {"caldera.sh/gpu-milli", cards * 1000.0 * 1000}};
  if (!model.empty()) n.labels["nvidia.com/gpu.product"] = model;
  return n;
}

PodSpec gpu_pod(const std::string& name, const std::string& resource, double amount,
                const std::string& models = "") {
  PodSpec p;
  p.name = name;
  p.requests = {{"cpu", 1000}, {"memory", kGi}, {resource, amount * 1000}};
  if (!models.empty()) p.annotations["caldera.sh/gpu-models"] = models;
  p.src.file = "cluster.toml";
  p.src.line = 7;
  p.src.column = 1;
  return p;
}

std::vector<const NodeSpec*> nodes_of(const Cache& c) {
  std::vector<const NodeSpec*> out;
  for (const auto& [_, n] : c.nodes()) out.push_back(n.get());
  return out;
}

Cache two_t4_cards() {
  Cache c;
  c.upsert_node(gpu_node("n1", 2, "T4"));
  return c;
}

// ---- load time ---------------------------------------------------------------------------

TEST(DeviceRequests, MalformedRequestsNameTheRule) {
  EXPECT_EQ(device_request_error(gpu_pod("a", "caldera.sh/gpu-milli", 1500)),
            "requests.caldera.sh/gpu-milli: 1500 milli-GPU is more than one card (1000); ask "
            "whole cards with nvidia.com/gpu");
  EXPECT_EQ(device_request_error(gpu_pod("b", "nvidia.com/gpu", 1.5)),
            "requests.nvidia.com/gpu: 1.5 is not a whole number of cards; ask a share of one card "
            "with caldera.sh/gpu-milli");
  PodSpec both = gpu_pod("c", "nvidia.com/gpu", 2);
  both.requests["caldera.sh/gpu-milli"] = 500 * 1000;
  EXPECT_EQ(device_request_error(both),
            "requests.caldera.sh/gpu-milli: 500 with 2 whole card(s); with whole cards it must be "
            "2000 or absent");
  both.requests["caldera.sh/gpu-milli"] = 2000 * 1000;  // cards x 1000: fine
  EXPECT_EQ(device_request_error(both), "");
  EXPECT_EQ(device_request_error(gpu_pod("d", "caldera.sh/gpu-milli", 220, "T4||G2")),
            "annotations.caldera.sh/gpu-models: 'T4||G2' is not a '|'-separated list of GPU models");
  EXPECT_EQ(device_request_error(gpu_pod("e", "caldera.sh/gpu-milli", 220, "T4|G2")), "");
}

// A request no node can meet is a valid state (Volcano keeps such a pod pending): the
// load says why, and goes on; a malformed request is an error.
TEST(DeviceRequests, RequestsNoNodeCanMeetAreSaidNotRefused) {
  Cache c = two_t4_cards();
  c.upsert_pod(gpu_pod("ok", "caldera.sh/gpu-milli", 1000, "T4"));
  EXPECT_EQ(input_error_of([&] { check_device_requests(c); }), "");
  EXPECT_EQ(device_request_never_met(*c.pod("default/ok"), nodes_of(c)), "");
  Cache m = two_t4_cards();
  m.upsert_pod(gpu_pod("a100", "nvidia.com/gpu", 1, "A100"));
  EXPECT_EQ(input_error_of([&] { check_device_requests(m); }), "");
  EXPECT_EQ(device_request_never_met(*m.pod("default/a100"), nodes_of(m)),
            "no node has a GPU of model A100: the pod can never be placed");
  Cache k = two_t4_cards();
  k.upsert_pod(gpu_pod("three", "nvidia.com/gpu", 3));
  EXPECT_EQ(input_error_of([&] { check_device_requests(k); }), "");
  EXPECT_EQ(device_request_never_met(*k.pod("default/three"), nodes_of(k)),
            "no node has 3 GPU cards: the pod can never be placed");
  Cache f = two_t4_cards();
  f.upsert_pod(gpu_pod("big", "caldera.sh/gpu-milli", 1500));
  EXPECT_EQ(input_error_of([&] { check_device_requests(f); }),
            "cluster.toml:7:1: pod default/big: requests.caldera.sh/gpu-milli: 1500 milli-GPU is "
            "more than one card (1000); ask whole cards with nvidia.com/gpu");
}

// A scenario file whose pod asks a GPU model no node has runs; the pod stays pending with
// deviceshare's reason.
TEST(DeviceRequests, ScenarioWithAModelNoNodeHasKeepsThePodPending) {
  const fs::path f = fs::temp_directory_path() / "caldera-deviceshare-bad-model.toml";
  {
    std::ofstream out(f);
    out << "name = \"a model no node has\"\n"                                 // 1
           "[config]\n[config.scheduler]\nactions = [\"allocate\"]\n"           // 2-4
           "[[config.tiers]]\n[[config.tiers.plugins]]\nname = \"deviceshare\"\n"  // 5-7
           "[[nodes]]\nname = \"n1\"\n"                                          // 8-9
           "allocatable = { cpu = \"8\", memory = \"8Gi\", \"nvidia.com/gpu\" = 1, "
           "\"caldera.sh/gpu-milli\" = 1000 }\n"                                 // 10
           "labels = { \"nvidia.com/gpu.product\" = \"T4\" }\n"                   // 11
           "[[pods]]\nname = \"p1\"\n"                                           // 12-13
           "requests = { cpu = \"1\", \"caldera.sh/gpu-milli\" = 500 }\n"
           "annotations = { \"caldera.sh/gpu-models\" = \"A100\" }\n";
  }
  Scenario sc = load_scenario(f, {CALDERA_BUILTIN_PLUGIN_DIR});
  ScenarioOutcome out;
  EXPECT_EQ(input_error_of([&] { out = run_scenario(sc); }), "");
  EXPECT_TRUE(out.binds.empty());
  EXPECT_NE(out.pending["default/p1"].find("no node has a GPU of model A100"), std::string::npos)
      << out.pending["default/p1"];
  fs::remove(f);
}

// A scenario file with such a pod fails to run, naming the file, line and pod.
TEST(DeviceRequests, ScenarioWithAShareAboveOneCardFails) {
  const fs::path f = fs::temp_directory_path() / "caldera-deviceshare-bad.toml";
  {
    std::ofstream out(f);
    out << "name = \"share above one card\"\n"
           "[config]\n[config.scheduler]\nactions = [\"allocate\"]\n"
           "[[config.tiers]]\n[[config.tiers.plugins]]\nname = \"deviceshare\"\n"
           "[[nodes]]\nname = \"n1\"\n"
           "allocatable = { cpu = \"8\", memory = \"8Gi\", \"nvidia.com/gpu\" = 1, "
           "\"caldera.sh/gpu-milli\" = 1000 }\n"
           "[[pods]]\nname = \"p1\"\n"
           "requests = { cpu = \"1\", \"caldera.sh/gpu-milli\" = 1500 }\n";
  }
  Scenario sc = load_scenario(f, {CALDERA_BUILTIN_PLUGIN_DIR});
  std::string err = input_error_of([&] { run_scenario(sc); });
  EXPECT_EQ(err.rfind(f.string() + ":1", 0), 0u) << err;  // the [[pods]] table, line 11 or 12
  EXPECT_NE(err.find("pod default/p1: requests.caldera.sh/gpu-milli: 1500 milli-GPU is more than "
                     "one card (1000)"),
            std::string::npos)
      << err;
  fs::remove(f);
}

// ---- the plugin in sessions ------------------------------------------------------------

std::shared_ptr<const Policy> binpack_policy() {
  SchedulerConfig c = load_config(fs::path(CALDERA_SOURCE_ROOT) / "conf" / "openb" / "binpack.toml",
                                  {CALDERA_BUILTIN_PLUGIN_DIR});
  return build_policy(c, PluginCatalog::scan(c.plugin_dirs), "");
}

// Reaching a session anyway (no load check, as from a real cluster), such pods are refused
// on every node, every session, with the reason.
TEST(DeviceSharePlugin, ImpossibleRequestsAreRefusedEverySession) {
  Cache c = two_t4_cards();
  c.upsert_pod(gpu_pod("big", "caldera.sh/gpu-milli", 1500));
  c.upsert_pod(gpu_pod("a100", "nvidia.com/gpu", 1, "A100"));
  c.upsert_pod(gpu_pod("three", "nvidia.com/gpu", 3));
  auto policy = binpack_policy();
  for (int session = 0; session < 2; ++session) {
    // A pod that fits, created after them, is still placed in the same session.
    PodSpec ok = gpu_pod("ok-" + std::to_string(session), "caldera.sh/gpu-milli", 300);
    ok.created = 10 + session;
    c.upsert_pod(ok);
    SessionResult r = caldera::testing::run_one_session(c, policy, session);
    ASSERT_EQ(r.binds.size(), 1u);
    EXPECT_EQ(r.binds[0].first, "default/" + ok.name);
    EXPECT_EQ(r.binds[0].second, "n1");
    c.remove_pod("default/" + ok.name);
    EXPECT_EQ(r.pending["default/big"],
              "0/1 nodes are unavailable: 1 caldera.sh/gpu-milli 1500 is more than one card "
              "(1000); ask whole cards with nvidia.com/gpu.");
    EXPECT_EQ(r.pending["default/a100"],
              "0/1 nodes are unavailable: 1 GPU request can never be met: no node has a GPU of "
              "model A100.");
    EXPECT_EQ(r.pending["default/three"],
              "0/1 nodes are unavailable: 1 GPU request can never be met: no node has 3 GPU "
              "cards.");
  }
}

// The bind carries the chosen cards; the next session reads them back from the pod.
TEST(DeviceSharePlugin, BindAnnotationsCarryTheCards) {
  Cache c = two_t4_cards();
  PodSpec a = gpu_pod("a-1", "caldera.sh/gpu-milli", 700);
  a.created = 1;
  PodSpec b = gpu_pod("b-2", "caldera.sh/gpu-milli", 600);
  b.created = 2;
  c.upsert_pod(a);
  c.upsert_pod(b);
  SessionResult r = caldera::testing::run_one_session(c, binpack_policy(), 0);
  ASSERT_EQ(r.binds.size(), 2u);
  // a-1: both cards free, tie -> card 0. b-2: card 0 has 300 left -> card 1.
  EXPECT_EQ(r.bind_annotations["default/a-1"]["volcano.sh/gpu-index"], "0");
  EXPECT_EQ(r.bind_annotations["default/a-1"]["caldera.sh/gpu-milli-per-card"], "700");
  EXPECT_EQ(r.bind_annotations["default/b-2"]["volcano.sh/gpu-index"], "1");
  // Applied to the pods, a 400 share no longer fits any card (300 and 400 free: card 1).
  for (const char* uid : {"default/a-1", "default/b-2"}) {
    PodSpec p = *c.pod(uid);
    p.node = "n1";
    p.phase = PodPhase::Running;
    for (const auto& [k, v] : r.bind_annotations[uid]) p.annotations[k] = v;
    c.upsert_pod(p);
  }
  // d-4 (500) goes first: 700 milli-GPU are free on the node, but 300 + 400 on two cards.
  PodSpec d = gpu_pod("d-4", "caldera.sh/gpu-milli", 500);
  d.created = 3;
  PodSpec e = gpu_pod("c-3", "caldera.sh/gpu-milli", 400);
  e.created = 4;
  c.upsert_pod(d);
  c.upsert_pod(e);
  SessionResult r2 = caldera::testing::run_one_session(c, binpack_policy(), 1);
  ASSERT_EQ(r2.binds.size(), 1u);
  EXPECT_EQ(r2.binds[0].first, "default/c-3");
  EXPECT_EQ(r2.bind_annotations["default/c-3"]["volcano.sh/gpu-index"], "1");
  EXPECT_EQ(r2.pending["default/d-4"],
            "0/1 nodes are unavailable: 1 no GPU card can hold 500 milli-GPU.");
}

}  // namespace
