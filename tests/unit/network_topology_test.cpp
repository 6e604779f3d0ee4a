// Network topology (HyperNodes): the tree (host/model/hypernode_tree.hpp), the scenario
// format's [[hypernodes]] and PodGroup network_topology, the session's view
// (host/session/hypernodes.hpp), the allocate action's HyperNode path
// (actions/hypernode_allocate.hpp), the network-topology-aware plugin's arithmetic
// (network_topology_aware_math.hpp) and its slot in real sessions, and the Kubernetes
// objects. Each number is worked out in the comment above it.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "host/backend/kubernetes/api_objects.hpp"
#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/model/hypernode_tree.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/plugins/policy.hpp"
#include "host/backend/sim/scenario_runner.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/session/hypernodes.hpp"
#include "host/session/session.hpp"
#include "network_topology_aware/network_topology_aware_math.hpp"
#include "tests/unit/session_helpers.hpp"
#include "host/session/runtime.hpp"
#include "tests/unit/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using caldera::testing::input_error_of;
namespace nt = caldera::network_topology;
using namespace caldera;

Cache load(const std::string& text) {
  Cache cache;
  const toml::table t = toml::parse(std::string_view(text), std::string_view("topo.toml"));
  load_cluster_objects(t, "topo.toml", cache);
  return cache;
}

std::string load_error(const std::string& text) {
  return input_error_of([&] { load(text); });
}

// Four nodes n0..n3; the HyperNodes follow.
const char* kNodes = R"(
[[nodes]]
name = "n0"
allocatable = { cpu = "4", memory = "8Gi" }
labels = { rack = "r0" }
[[nodes]]
name = "n1"
allocatable = { cpu = "4", memory = "8Gi" }
labels = { rack = "r0" }
[[nodes]]
name = "n2"
allocatable = { cpu = "4", memory = "8Gi" }
labels = { rack = "r1", zone = "a" }
[[nodes]]
name = "n3"
allocatable = { cpu = "4", memory = "8Gi" }
labels = { rack = "r1" }
)";

// s0 = n0, n1 (exact), s1 = rack r1 (labels), s2 = s0 + s1.
const char* kTwoTiers = R"(
[[hypernodes]]
name = "s2"
tier = 2
members = [{ type = "HyperNode", exact_match = "s0" }, { type = "HyperNode", exact_match = "s1" }]
[[hypernodes]]
name = "s0"
tier = 1
members = [{ type = "Node", exact_match = "n0" }, { type = "Node", regex_match = "1$" }]
[[hypernodes]]
name = "s1"
tier = 1
members = [{ type = "Node", label_match = { match_labels = { rack = "r1" } } }]
)";

// ---- the tree ------------------------------------------------------------------------------

TEST(HyperNodeTree, RealNodesThroughEveryKindOfMember) {
  Cache c = load(std::string(kNodes) + kTwoTiers);
  std::vector<HyperNodeProblem> problems;
  HyperNodeTree t = build_hypernode_tree(c.hypernodes(), c.nodes(), &problems);
  EXPECT_TRUE(problems.empty()) << problems.front().message;
  ASSERT_TRUE(t.usable);
  EXPECT_EQ(t.find("s0")->nodes, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(t.find("s1")->nodes, (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(t.find("s2")->nodes, (std::vector<std::string>{"n0", "n1", "n2", "n3"}));
  EXPECT_EQ(t.entries[static_cast<size_t>(t.find("s0")->parent)].spec->name, "s2");
  EXPECT_EQ(t.find("s2")->parent, -1);
  EXPECT_EQ(t.find("s2")->children.size(), 2u);
}

TEST(HyperNodeTree, LabelExpressions) {
  HyperNodeMember m;
  m.has_labels = true;
  m.match_expressions = {{"rack", "In", {"r1", "r2"}}, {"zone", "DoesNotExist", {}}};
  EXPECT_TRUE(labels_match(m, {{"rack", "r1"}}));
  EXPECT_FALSE(labels_match(m, {{"rack", "r1"}, {"zone", "a"}}));
  EXPECT_FALSE(labels_match(m, {{"rack", "r0"}}));
  m.match_expressions = {{"rack", "NotIn", {"r0"}}, {"zone", "Exists", {}}};
  EXPECT_TRUE(labels_match(m, {{"rack", "r1"}, {"zone", "a"}}));
  EXPECT_FALSE(labels_match(m, {{"zone", "a"}, {"rack", "r0"}}));
  EXPECT_TRUE(labels_match(m, {{"zone", "a"}}));  // a missing label is "not in"
  m.match_expressions.clear();
  EXPECT_FALSE(labels_match(m, {{"rack", "r1"}}));  // an empty selector selects nothing
}

// A cycle and a second parent make the tree unusable; the rest only warn.
TEST(HyperNodeTree, ProblemsAndWhichAreFatal) {
  auto problems_of = [](const std::string& hypernodes) {
    Cache c;
    for (const char* n : {"n0", "n1"}) {
      NodeSpec s;
      s.name = n;
      c.upsert_node(s);
    }
    const toml::table t = toml::parse(std::string_view(hypernodes));
    // Read the records without the loader's checks: the tree is what is tested.
    for (auto&& el : *t["hypernodes"].as_array()) {
      const toml::table& h = *el.as_table();
      HyperNodeSpec hn;
      hn.name = h["name"].value_or(std::string());
      hn.tier = h["tier"].value_or(0);
      for (auto&& m : *h["members"].as_array()) {
        const toml::table& mt = *m.as_table();
        HyperNodeMember mem;
        mem.type = mt["type"].value_or(std::string()) == "HyperNode" ? MemberType::HyperNode
                                                                     : MemberType::Node;
        mem.exact = mt["exact"].value_or(std::string());
        mem.regex = mt["regex"].value_or(std::string());
        hn.members.push_back(mem);
      }
      c.upsert_hypernode(hn);
    }
    std::vector<HyperNodeProblem> out;
    HyperNodeTree tree = build_hypernode_tree(c.hypernodes(), c.nodes(), &out);
    return std::make_pair(tree.usable, out);
  };

  auto [usable, p] = problems_of(R"(
hypernodes = [
  { name = "a", tier = 2, members = [{ type = "HyperNode", exact = "b" }] },
  { name = "b", tier = 1, members = [{ type = "HyperNode", exact = "a" }] },
])");
  EXPECT_FALSE(usable);
  ASSERT_EQ(p.size(), 2u);  // the tier order of b's member, then the cycle
  EXPECT_EQ(p[0].message, "member HyperNode 'a' has tier 2, not below this HyperNode's tier 1");
  EXPECT_FALSE(p[0].fatal);
  EXPECT_TRUE(p[1].fatal);
  EXPECT_EQ(p[1].message, "HyperNode members form a cycle: a -> b -> a");
  EXPECT_EQ(p[1].hypernode, "b");
  EXPECT_EQ(p[1].member, 0);

  std::tie(usable, p) = problems_of(R"(
hypernodes = [
  { name = "leaf", tier = 1, members = [{ type = "Node", exact = "n0" }] },
  { name = "up1", tier = 2, members = [{ type = "HyperNode", exact = "leaf" }] },
  { name = "up2", tier = 2, members = [{ type = "HyperNode", exact = "leaf" }] },
])");
  EXPECT_FALSE(usable);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_TRUE(p[0].fatal);
  EXPECT_EQ(p[0].hypernode, "up2");
  EXPECT_EQ(p[0].message, "HyperNode 'leaf' is already a member of 'up1'; a HyperNode has one parent");

  std::tie(usable, p) = problems_of(R"(
hypernodes = [
  { name = "x", tier = 1, members = [{ type = "Node", exact = "n9" }, { type = "HyperNode", exact = "zz" },
                                     { type = "Node", regex = "^q" }, { type = "Node", regex = "(" },
                                     { type = "Node", exact = "n0" }] },
  { name = "y", tier = 1, members = [{ type = "Node", exact = "n0" }] },
])");
  EXPECT_TRUE(usable);
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].message, "node 'n9' does not exist");
  EXPECT_EQ(p[1].message, "member HyperNode 'zz' does not exist");
  EXPECT_EQ(p[2].message, "regexMatch '^q' matches no node");
  EXPECT_EQ(p[3].message.rfind("regexMatch '(' is not a regular expression", 0), 0u) << p[3].message;
  EXPECT_EQ(p[4].message, "node 'n0' is also in HyperNode 'x' of the same tier 1");
  EXPECT_EQ(p[4].hypernode, "y");
  for (const auto& q : p) EXPECT_FALSE(q.fatal);
}

// ---- the scenario format -------------------------------------------------------------------

TEST(ScenarioHyperNodes, ReadsMembersAndTopology) {
  Cache c = load(std::string(kNodes) + kTwoTiers + R"(
[[podgroups]]
name = "hard"
network_topology = { mode = "hard", highest_tier_allowed = 2 }
[[podgroups]]
name = "soft"
network_topology = { mode = "soft" }
[[podgroups]]
name = "default-mode"
network_topology = { highest_tier_allowed = 1 }
[[hypernodes]]
name = "s3"
tier = 3
members = [{ type = "HyperNode", exact_match = "s2" },
           { type = "Node", label_match = { match_expressions = [{ key = "zone", operator = "In", values = ["a"] }] } }]
)");
  ASSERT_EQ(c.hypernodes().size(), 4u);
  const HyperNodeSpec& s0 = *c.hypernodes().at("s0");
  EXPECT_EQ(s0.tier, 1);
  ASSERT_EQ(s0.members.size(), 2u);
  EXPECT_EQ(s0.members[0].exact, "n0");
  EXPECT_EQ(s0.members[1].regex, "1$");
  EXPECT_EQ(s0.members[1].src.str(), "topo.toml:26:51");
  const HyperNodeSpec& s3 = *c.hypernodes().at("s3");
  EXPECT_EQ(s3.members[1].match_expressions[0].op, "In");
  const auto& hard = *c.podgroups().at("default/hard")->network_topology;
  EXPECT_EQ(hard.mode, TopologyMode::Hard);
  EXPECT_EQ(hard.highest_tier_allowed, 2);
  EXPECT_EQ(c.podgroups().at("default/soft")->network_topology->mode, TopologyMode::Soft);
  EXPECT_EQ(c.podgroups().at("default/default-mode")->network_topology->mode, TopologyMode::Hard);
}

// Each defect names file, line, column, the HyperNode and the member.
TEST(ScenarioHyperNodes, DefectsAreErrorsAtTheMember) {
  const std::string hn = "[[hypernodes]]\nname = \"s0\"\ntier = 1\n";  // lines 1-3
  EXPECT_EQ(load_error(hn + "members = [{ type = \"Node\", exact_match = \"n9\" }]\n"),
            "topo.toml:4:12: hypernodes[0] (s0).members[0]: node 'n9' does not exist");
  EXPECT_EQ(load_error(hn + "members = [{ type = \"HyperNode\", exact_match = \"s0\" }]\n"),
            "topo.toml:4:12: hypernodes[0] (s0).members[0]: a HyperNode cannot be its own member "
            "(cycle)");
  EXPECT_EQ(load_error(hn + "members = [{ type = \"Node\" }]\n"),
            "topo.toml:4:12: hypernodes[0] (s0).members[0]: no selector; expected exactly one of "
            "exact_match, regex_match, label_match");
  EXPECT_EQ(load_error(hn + "members = [{ type = \"Node\", exact_match = \"a\", regex_match = \"b\" }]\n"),
            "topo.toml:4:12: hypernodes[0] (s0).members[0]: more than one selector; expected "
            "exactly one of exact_match, regex_match, label_match");
  EXPECT_EQ(load_error(hn + "members = [{ type = \"HyperNode\", regex_match = \"s\" }]\n"),
            "topo.toml:4:12: hypernodes[0] (s0).members[0]: a HyperNode member selected by "
            "regex_match or label_match; expected exact_match only (Volcano selects HyperNodes by "
            "name)");
  EXPECT_EQ(load_error(hn + "members = [{ type = \"Switch\", exact_match = \"n1\" }]\n"),
            "topo.toml:4:21: hypernodes[0] (s0).members[0].type: unknown member type 'Switch'; "
            "expected one of Node, HyperNode");
  EXPECT_EQ(load_error(hn + "members = [{ type = \"Node\", regex_match = \"[\" }]\n").rfind(
                "topo.toml:4:12: hypernodes[0] (s0).members[0]: regexMatch '[' is not a regular "
                "expression",
                0),
            0u);
  EXPECT_EQ(load_error("[[hypernodes]]\nname = \"s0\"\nmembers = []\n"),
            "topo.toml:1:1: hypernodes[0] (s0): missing key 'tier'; expected the HyperNode's tier, "
            "an integer of at least 0");
  EXPECT_EQ(load_error(hn + "members = []\nswitch = true\n"),
            "topo.toml:5:1: hypernodes[0] (s0): unknown key 'switch'; expected one of the allowed "
            "keys: name, tier, members");
  // A cycle through two HyperNodes points at the member that closes it.
  EXPECT_EQ(load_error(R"([[hypernodes]]
name = "a"
tier = 2
members = [{ type = "HyperNode", exact_match = "b" }]
[[hypernodes]]
name = "b"
tier = 3
members = [{ type = "HyperNode", exact_match = "a" }]
)"),
            "topo.toml:8:12: hypernodes[1] (b).members[0]: HyperNode members form a cycle: a -> b "
            "-> a");
}

TEST(ScenarioHyperNodes, TopologyDefectsAreErrors) {
  const std::string pg = "[[podgroups]]\nname = \"pg\"\n";  // lines 1-2
  EXPECT_EQ(load_error(pg + "network_topology = { mode = \"hard\" }\n"),
            "topo.toml:3:20: podgroups[0] (default/pg).network_topology: missing key "
            "'highest_tier_allowed'; expected the highest HyperNode tier the job may span (mode "
            "\"hard\" needs one)");
  EXPECT_EQ(load_error(pg + "network_topology = { mode = \"strict\", highest_tier_allowed = 1 }\n"),
            "topo.toml:3:29: podgroups[0] (default/pg).network_topology.mode: unknown mode "
            "'strict'; expected one of hard, soft");
  EXPECT_EQ(load_error(pg + "network_topology = { mode = \"soft\", tier = 1 }\n"),
            "topo.toml:3:37: podgroups[0] (default/pg).network_topology: unknown key 'tier'; "
            "expected one of the allowed keys: mode, highest_tier_allowed");
  EXPECT_EQ(load_error(pg + "network_topology = { highest_tier_allowed = -1 }\n"),
            "topo.toml:3:45: podgroups[0] (default/pg).network_topology.highest_tier_allowed: -1 "
            "is out of range; expected an integer of at least 0");
}

// ---- the session's view ------------------------------------------------------------------

std::shared_ptr<const Policy> policy_of(const std::string& config_toml) {
  return caldera::testing::policy_from_config(config_toml);
}

const char* kGangPredicates = R"(
[scheduler]
actions = ["allocate"]
[[tiers]]
[[tiers.plugins]]
name = "gang"
[[tiers]]
[[tiers.plugins]]
name = "predicates"
)";

TEST(SessionHyperNodes, TiersLcaAndAllocated) {
  Cache c = load(std::string(kNodes) + kTwoTiers + R"(
[[podgroups]]
name = "job"
min_member = 1
phase = "Running"
[[pods]]
name = "a"
podgroup = "job"
requests = { cpu = "1" }
phase = "Running"
node = "n0"
[[pods]]
name = "b"
podgroup = "job"
requests = { cpu = "1" }
phase = "Running"
node = "n1"
)");
  Runtime runtime;
  auto s = Session::open(c, policy_of(kGangPredicates), 0, runtime);
  const HyperNodes& h = s->hypernodes();
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h.problem(), "");
  EXPECT_EQ(h.tiers(), (std::vector<int32_t>{1, 2}));
  ASSERT_EQ(h.at_tier(1).size(), 2u);
  EXPECT_EQ(h.at_tier(1)[0]->name, "s0");
  EXPECT_TRUE(h.at_tier(3).empty());
  HyperNodeInfo* s0 = h.find("s0");
  HyperNodeInfo* s1 = h.find("s1");
  EXPECT_EQ(HyperNodes::lca(s0, s1)->name, "s2");
  EXPECT_EQ(HyperNodes::lca(s0, s0), s0);
  EXPECT_EQ(HyperNodes::lca(s0, nullptr), nullptr);
  NodeInfo* n2 = s->node("n2");
  ASSERT_EQ(h.of_node(n2).size(), 2u);
  EXPECT_EQ(h.of_node(n2)[0], s1);  // its own switch first
  EXPECT_TRUE(h.contains(h.find("s2"), n2));
  EXPECT_FALSE(h.contains(s0, n2));
  // Both tasks run behind s0: the job's allocated HyperNode is s0.
  EXPECT_EQ(h.allocated(s->job("default/job")), s0);
}

TEST(SessionHyperNodes, AnUnusableTreeIsEmptyWithItsProblem) {
  Cache c = load(kNodes);
  HyperNodeSpec a, b;
  a.name = "a";
  a.tier = 1;
  b.name = "b";
  b.tier = 2;
  HyperNodeMember to_b, to_a;
  to_b.type = to_a.type = MemberType::HyperNode;
  to_b.exact = "b";
  to_a.exact = "a";
  a.members = {to_b};
  b.members = {to_a};
  c.upsert_hypernode(a);
  c.upsert_hypernode(b);
  Runtime runtime;
  auto s = Session::open(c, policy_of(kGangPredicates), 0, runtime);
  EXPECT_TRUE(s->hypernodes().empty());
  EXPECT_EQ(s->hypernodes().problem(), "HyperNode b: HyperNode members form a cycle: a -> b -> a");
}

// ---- the allocate action's HyperNode path ---------------------------------------------------

fs::path scenario(const char* name) {
  return fs::path(CALDERA_SOURCE_ROOT) / "tests" / "scenarios" / name;
}

// A hard job no HyperNode of its tier can hold waits, every session, and does not keep the
// other job from running (topology-hard-02-tier-limit.toml). Neither tier-1 HyperNode has
// the idle cpu of its three pending pods (12 of 8), so the search tries none (Volcano's
// isEligibleHyperNode pre-filter for the sub-job): no task has fit errors and each says
// the job's FitError.
TEST(AllocateHyperNodes, AJobThatNeverFitsSaysWhyEverySession) {
  Scenario sc = load_scenario(scenario("topology-hard-02-tier-limit.toml"), {CALDERA_BUILTIN_PLUGIN_DIR});
  auto policy = build_policy(sc.config, PluginCatalog::scan(sc.config.plugin_dirs), "");
  const std::string why =
      "pod group is not ready, 3 Pending, 3 minAvailable; Pending: 3 Unschedulable";
  SessionResult r1 = caldera::testing::run_one_session(sc.cache, policy, 0);
  EXPECT_EQ(r1.binds.size(), 3u);
  for (const char* t : {"c1/near-0", "c1/near-1", "c1/near-2"}) EXPECT_EQ(r1.pending[t], why);
  // The next session (wide now bound, nothing changed for near) says it again.
  SessionResult r2 = caldera::testing::run_one_session(sc.cache, policy, 1);
  EXPECT_EQ(r2.pending["c1/near-2"], why);
}

const char* kWithTopologyPlugin = R"(
[scheduler]
actions = ["allocate"]
[[tiers]]
[[tiers.plugins]]
name = "gang"
[[tiers]]
[[tiers.plugins]]
name = "predicates"
[[tiers.plugins]]
name = "network-topology-aware"
)";

// Without HyperNodes the whole cluster is the one domain, of tier 1: a hard job of tier 1
// runs anywhere. With HyperNodes that do not form a tree every job with a topology waits,
// soft or hard (Volcano's HyperNodesReadyToSchedule), with the reason.
TEST(AllocateHyperNodes, WithoutHyperNodesOrWithAnUnusableTree) {
  Cache c = load(std::string(kNodes) + R"(
[[podgroups]]
name = "job"
phase = "Inqueue"
network_topology = { mode = "hard", highest_tier_allowed = 1 }
[[pods]]
name = "job-0"
podgroup = "job"
requests = { cpu = "1" }
[[podgroups]]
name = "soft"
phase = "Inqueue"
network_topology = { mode = "soft" }
[[pods]]
name = "soft-0"
podgroup = "soft"
requests = { cpu = "1" }
)");
  auto policy = policy_of(kWithTopologyPlugin);
  SessionResult r = caldera::testing::run_one_session(c, policy, 0);
  EXPECT_EQ(r.binds.size(), 2u);

  HyperNodeSpec a;
  a.name = "a";
  a.tier = 1;
  HyperNodeMember self;
  self.type = MemberType::HyperNode;
  self.exact = "a";
  a.members = {self};
  c.upsert_hypernode(a);
  r = caldera::testing::run_one_session(c, policy, 1);
  const std::string why =
      "network topology: the HyperNodes cannot be used (HyperNode a: a HyperNode cannot be its "
      "own member (cycle)); the job waits until they are fixed";
  EXPECT_EQ(r.pending["default/job-0"], why);
  EXPECT_EQ(r.pending["default/soft-0"], why);
  EXPECT_TRUE(r.binds.empty());
}

// No HyperNode is low enough, and the whole cluster is above the tier too: nothing is
// tried, and the job waits. Without the network-topology-aware plugin nothing limits the
// job (Volcano's gradients are that plugin's).
TEST(AllocateHyperNodes, NoHyperNodeLowEnough) {
  Cache c = load(std::string(kNodes) + R"(
[[hypernodes]]
name = "top"
tier = 3
members = [{ type = "Node", regex_match = "." }]
[[podgroups]]
name = "job"
phase = "Inqueue"
network_topology = { mode = "hard", highest_tier_allowed = 2 }
[[pods]]
name = "job-0"
podgroup = "job"
requests = { cpu = "1" }
)");
  SessionResult r = caldera::testing::run_one_session(c, policy_of(kWithTopologyPlugin), 0);
  EXPECT_TRUE(r.binds.empty());
  EXPECT_EQ(r.pending["default/job-0"],
            "pod group is not ready, 1 Pending, 1 minAvailable; Pending: 1 Unschedulable");
  r = caldera::testing::run_one_session(c, policy_of(kGangPredicates), 1);
  EXPECT_EQ(r.binds.size(), 1u);
}

// ---- the network-topology-aware arithmetic --------------------------------------------------

// cpu and memory weighted 1 each, a scalar with weight 3. HyperNode: 8 cpu, 16Gi, 4 GPUs
// (in milli-units 4000); used 2 cpu, 4Gi, 1 GPU. Request 2 cpu, 4Gi, 1 GPU:
//   cpu (2+2)/8 = 0.5, memory (4+4)/16 = 0.5, gpu (1+1)/4 = 0.5 -> (0.5 + 0.5 + 3*0.5)/5 = 0.5.
// Request 2 cpu, 0 memory, 3 GPUs: cpu 0.5, gpu (1+3)/4 = 1 -> (0.5 + 3)/4 = 0.875.
// Request 7 cpu: (2+7) > 8 -> 0 (cannot bin-pack).
TEST(NetworkTopologyMath, HyperNodeBinPacking) {
  const double gi = 1024.0 * 1024 * 1024;
  const std::vector<std::optional<int64_t>> w = {1, 1, 3};
  const double alloc[] = {8000, 16 * gi, 4000};
  const double used[] = {2000, 4 * gi, 1000};
  const double r1[] = {2000, 4 * gi, 1000};
  EXPECT_DOUBLE_EQ(nt::binpack_score(r1, alloc, used, w), 0.5);
  const double r2[] = {2000, 0, 3000};
  EXPECT_DOUBLE_EQ(nt::binpack_score(r2, alloc, used, w), 0.875);
  const double r3[] = {7000, 0, 0};
  EXPECT_DOUBLE_EQ(nt::binpack_score(r3, alloc, used, w), 0);
  // A resource the plugin does not pack is ignored, even when it would not fit.
  const std::vector<std::optional<int64_t>> no_gpu = {1, 1, std::nullopt};
  const double r4[] = {2000, 0, 9000};
  EXPECT_DOUBLE_EQ(nt::binpack_score(r4, alloc, used, no_gpu), 0.5);
  // Weights adding up to 0: 0.
  const std::vector<std::optional<int64_t>> zero = {0, 0, 0};
  EXPECT_DOUBLE_EQ(nt::binpack_score(r1, alloc, used, zero), 0);
}

// Tiers 1..3: the common HyperNode at tier 1 -> (3-1)/2 = 1, tier 2 -> 0.5, tier 3 -> 0;
// one tier only -> 1; outside the range -> 0.
TEST(NetworkTopologyMath, TierAndTaskShare) {
  EXPECT_DOUBLE_EQ(nt::tier_score(1, 1, 3), 1);
  EXPECT_DOUBLE_EQ(nt::tier_score(2, 1, 3), 0.5);
  EXPECT_DOUBLE_EQ(nt::tier_score(3, 1, 3), 0);
  EXPECT_DOUBLE_EQ(nt::tier_score(4, 1, 3), 0);
  EXPECT_DOUBLE_EQ(nt::tier_score(2, 2, 2), 1);
  EXPECT_DOUBLE_EQ(nt::task_num_score(1, 4), 0.25);
  EXPECT_DOUBLE_EQ(nt::task_num_score(0, 0), 1);
  EXPECT_DOUBLE_EQ(nt::scale(0.25, 2), 50);
}

// The numbers of topology-normal-pod-hypernode-binpack.toml: tiers 1 and 2, fading 0.8.
//   n0: (1 * 0.125 + 0.8 * 0.1875) / 1.8 = 0.275 / 1.8; n2: (0.375 + 0.15) / 1.8 = 0.525 / 1.8.
// A node behind no HyperNode of a tier scores 1 there: (1 * 1 + 0.8 * 0.1875) / 1.8.
// Fading 0: only tier 1 counts (0^0 = 1, 0^1 = 0).
TEST(NetworkTopologyMath, NormalPodTierWeights) {
  EXPECT_DOUBLE_EQ(nt::normal_pod_score({{1, 0.125}, {2, 0.1875}}, 0.8, 1, 2), 0.275 / 1.8);
  EXPECT_DOUBLE_EQ(nt::normal_pod_score({{1, 0.375}, {2, 0.1875}}, 0.8, 1, 2), 0.525 / 1.8);
  EXPECT_DOUBLE_EQ(nt::normal_pod_score({{2, 0.1875}}, 0.8, 1, 2), 1.15 / 1.8);
  EXPECT_DOUBLE_EQ(nt::normal_pod_score({{1, 0.25}, {2, 0.9}}, 0, 1, 2), 0.25);
  // The weights of many tiers add up as the geometric series: 0.5^0 + ... + 0.5^99 ~ 2.
  EXPECT_NEAR(nt::tier_weight_sum(0.5, 1, 100), 2, 1e-12);
  EXPECT_DOUBLE_EQ(nt::tier_weight_sum(0.5, 1, 3), 1.75);
  EXPECT_DOUBLE_EQ(nt::tier_weight_sum(1, 1, 1000), 1000);
}

// ---- the plugin's hyper_node_order in a real session ----------------------------------------

// The state of topology-hard-03: s0 = n0, n1 free; s1 = n2 (2 of 4 cpu used), n3. The job
// asks 2 x 1 cpu: s0 (0+2)/8 = 0.25 -> 25, s1 (2+2)/8 = 0.5 -> 50 (times weight 2: 50, 100).
TEST(NetworkTopologyPlugin, HyperNodeOrderPacksIntoTheBusierHyperNode) {
  Scenario sc = load_scenario(scenario("topology-hard-03-binpack-busier-hypernode.toml"),
                              {CALDERA_BUILTIN_PLUGIN_DIR});
  auto policy = policy_of(std::string(kGangPredicates) + R"(
[[tiers.plugins]]
name = "network-topology-aware"
arguments = { weight = 2 }
)");
  Runtime runtime;
  auto s = Session::open(sc.cache, policy, 0, runtime);
  ASSERT_TRUE(policy->tiers[1][1].points.has(Point::HyperNodeOrder));
  const HyperNodes& h = s->hypernodes();
  std::vector<double> scores;
  // The job has no subGroupPolicy: its one sub-job holds both tasks.
  const JobSubJobs& subs = s->sub_jobs(s->job("c1/train"));
  ASSERT_EQ(subs.list.size(), 1u);
  hyper_node_scores(*s, subs.list[0].get(), {h.find("s0"), h.find("s1")}, scores);
  EXPECT_EQ(scores, (std::vector<double>{50, 100}));
}

// Two HyperNodes pack alike: each that already holds some of the sub-job gets its share on
// top. Job of 4 tasks of 1 cpu, one running on n0 (s0), one on n2 (s1), two pending; n1 and
// n3 hold 1 cpu of another pod each, so s0 and s1 both use 2 of 8 cpu. The request is every
// task of the sub-job (Volcano counts the running ones again): 4 cpu.
//   s0: (2 + 4) / 8 = 0.75, s1 the same: a tie; each holds 1 of the 4 tasks: + 0.25 = 1 ->
//   100 each.
TEST(NetworkTopologyPlugin, TiesGoToTheShareOfTheJob) {
  Cache c = load(std::string(kNodes) + kTwoTiers + R"(
[[podgroups]]
name = "job"
min_member = 1
phase = "Running"
network_topology = { mode = "hard", highest_tier_allowed = 2 }
[[pods]]
name = "job-0"
podgroup = "job"
requests = { cpu = "1" }
phase = "Running"
node = "n0"
[[pods]]
name = "job-1"
podgroup = "job"
requests = { cpu = "1" }
phase = "Running"
node = "n2"
[[pods]]
name = "job-2"
podgroup = "job"
requests = { cpu = "1" }
[[pods]]
name = "job-3"
podgroup = "job"
requests = { cpu = "1" }
[[pods]]
name = "other-0"
namespace = "o"
requests = { cpu = "1" }
phase = "Running"
node = "n1"
[[pods]]
name = "other-1"
namespace = "o"
requests = { cpu = "1" }
phase = "Running"
node = "n3"
)");
  auto policy = policy_of(std::string(kGangPredicates) + R"(
[[tiers.plugins]]
name = "network-topology-aware"
)");
  Runtime runtime;
  auto s = Session::open(c, policy, 0, runtime);
  const HyperNodes& h = s->hypernodes();
  std::vector<double> scores;
  const JobSubJobs& subs = s->sub_jobs(s->job("default/job"));
  ASSERT_EQ(subs.list.size(), 1u);
  hyper_node_scores(*s, subs.list[0].get(), {h.find("s0"), h.find("s1")}, scores);
  EXPECT_EQ(scores, (std::vector<double>{100, 100}));
  // The plugin's job form is gone: a plugin with only hyper_node_order would be asked that
  // (with the sub-job's job) instead.
  // The job runs behind s0 and s1: its allocated HyperNode is s2.
  EXPECT_EQ(h.allocated(s->job("default/job"))->name, "s2");
}

// ---- Kubernetes objects ----------------------------------------------------------------------

TEST(KubeHyperNodes, ReadsVolcanoV1Alpha1) {
  k8s::Warnings w;
  auto hn = k8s::hypernode_from_json(k8s::json::parse(R"({
    "apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
    "metadata": {"name": "s0"},
    "spec": {"tier": 1, "members": [
      {"type": "Node", "selector": {"exactMatch": {"name": "n0"}}},
      {"type": "Node", "selector": {"regexMatch": {"pattern": "^gpu-"}}},
      {"type": "Node", "selector": {"labelMatch": {"matchLabels": {"rack": "r1"},
        "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}}},
      {"type": "HyperNode", "selector": {"exactMatch": {"name": "s9"}}},
      {"type": "Switch", "selector": {"exactMatch": {"name": "x"}}}
    ]}})"),
                                     w);
  ASSERT_TRUE(hn);
  EXPECT_EQ(hn->name, "s0");
  EXPECT_EQ(hn->tier, 1);
  ASSERT_EQ(hn->members.size(), 4u);
  EXPECT_EQ(hn->members[0].exact, "n0");
  EXPECT_EQ(hn->members[1].regex, "^gpu-");
  EXPECT_TRUE(hn->members[2].has_labels);
  EXPECT_EQ(hn->members[2].match_labels.at("rack"), "r1");
  EXPECT_EQ(hn->members[2].match_expressions[0].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(hn->members[3].type, MemberType::HyperNode);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "HyperNode s0: members[4]: type 'Switch' is not Node or HyperNode; ignored");

  w.clear();
  EXPECT_FALSE(k8s::hypernode_from_json(
      k8s::json::parse(R"({"metadata": {"name": "s1"}, "spec": {"members": []}})"), w));
  EXPECT_EQ(w.back(), "HyperNode s1: no usable spec.tier; skipped");
}

TEST(KubeHyperNodes, PodGroupNetworkTopology) {
  auto pg = [](const std::string& nt, k8s::Warnings& w) {
    return k8s::podgroup_from_json(
        k8s::json::parse(R"({"metadata": {"name": "pg", "namespace": "ns"}, "spec": {"minMember": 1,
          "networkTopology": )" + nt + "}}"),
        w);
  };
  k8s::Warnings w;
  auto hard = pg(R"({"mode": "hard", "highestTierAllowed": 2})", w);
  ASSERT_TRUE(hard && hard->network_topology);
  EXPECT_EQ(hard->network_topology->mode, TopologyMode::Hard);
  EXPECT_EQ(hard->network_topology->highest_tier_allowed, 2);
  auto soft = pg(R"({"mode": "soft"})", w);
  EXPECT_EQ(soft->network_topology->mode, TopologyMode::Soft);
  EXPECT_TRUE(w.empty());
  // Volcano drops a hard mode without a tier (IsHardTopologyMode); a bad mode is warned.
  EXPECT_FALSE(pg(R"({"mode": "hard"})", w)->network_topology);
  EXPECT_FALSE(pg(R"({"mode": "strict", "highestTierAllowed": 1})", w)->network_topology);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "PodGroup ns/pg: networkTopology: mode 'strict' is not hard or soft; no "
                  "constraint");
}

}  // namespace

namespace {

// The config's point lists know hyper_node_order; the plugin implements it (its slot sits
// in the descriptor's former reserved room), and disable takes it out.
TEST(NetworkTopologyConfig, HyperNodeOrderPoint) {
  auto with = policy_of(std::string(kGangPredicates) + R"(
[[tiers.plugins]]
name = "network-topology-aware"
enable = ["hyper_node_order"]
)");
  EXPECT_TRUE(with->tiers[1][1].points.has(Point::HyperNodeOrder));
  EXPECT_FALSE(with->tiers[1][1].points.has(Point::NodeOrder));
  auto without = policy_of(std::string(kGangPredicates) + R"(
[[tiers.plugins]]
name = "network-topology-aware"
disable = ["hyper_node_order"]
)");
  EXPECT_FALSE(without->tiers[1][1].points.has(Point::HyperNodeOrder));
  EXPECT_TRUE(without->tiers[1][1].points.has(Point::NodeOrder));
  EXPECT_TRUE(without->tiers[1][1].implemented.has(Point::HyperNodeOrder));
  // The descriptor keeps its size: the 1.0 slots end where hyper_node_order begins.
  EXPECT_EQ(CAL_PLUGIN_V1_0_SIZE, offsetof(cal_plugin, hyper_node_order));
  // ... and the descriptor is as large as in 1.0: check_args, then 16 pointer-sized slots.
  EXPECT_EQ(sizeof(cal_plugin), offsetof(cal_plugin, check_args) + 17 * sizeof(void*));
}

}  // namespace
