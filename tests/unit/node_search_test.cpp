// The node search of a real session (actions/predicate_helper.hpp) over the plugins'
// many-node slots (predicate_many / node_order_many, which the SDK builds from per-node
// methods): the same decisions and the same per-node reasons on one thread and on two,
// and reason texts that stay readable after the calls that produced them.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/plugins/policy.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/scheduler/run_session.hpp"
#include "tests/unit/session_helpers.hpp"

namespace {

using namespace caldera;

// 400 nodes, n000..n399, four kinds in turn (i % 4), so that every node refuses the
// pod "blocked" for a reason of its kind:
//   0: a NoSchedule taint t=v0, v1 or v2 (by (i / 4) % 3): three distinct reason texts
//   1: unschedulable
//   2: zone=b, the pod asks zone=a
//   3: 1 cpu, the pod asks 2
// "tolerant" tolerates t=v1 and fits on every kind-0 node with that taint: n004, n016, ...
std::string cluster() {
  std::string s = std::string(caldera::testing::kQueueAndInqueueGroup) + R"(
[[pods]]
name = "blocked-0"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "2" }
node_selector = { zone = "a" }
[[pods]]
name = "tolerant-1"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "2" }
node_selector = { zone = "a" }
tolerations = [{ key = "t", operator = "Equal", value = "v1", effect = "NoSchedule" }]
)";
  for (int i = 0; i < 400; ++i) {
    const int kind = i % 4;
    s += fmt::format("[[nodes]]\nname = \"n{:03}\"\nallocatable = {{ cpu = \"{}\", memory = \"8Gi\" }}\n",
                     i, kind == 3 ? 1 : 4);
    s += fmt::format("labels = {{ zone = \"{}\" }}\n", kind == 2 ? "b" : "a");
    if (kind == 0)
      s += fmt::format("taints = [{{ key = \"t\", value = \"v{}\", effect = \"NoSchedule\" }}]\n",
                       (i / 4) % 3);
    if (kind == 1) s += "unschedulable = true\n";
  }
  return s;
}

std::shared_ptr<const Policy> policy(int threads) {
  const std::string text = fmt::format(R"(
[scheduler]
actions = ["allocate"]
threads = {}
[[tiers]]
[[tiers.plugins]]
name = "predicates"
[[tiers.plugins]]
name = "nodeorder"
)",
                                       threads);
  const toml::table t = toml::parse(std::string_view(text));
  SchedulerConfig c = parse_config(t, "search-config.toml", {CALDERA_BUILTIN_PLUGIN_DIR});
  return build_policy(c, PluginCatalog::scan(c.plugin_dirs), "");
}

Cache load() { return caldera::testing::cache_from_scenario_text(cluster(), "search.toml"); }

// 100 kind-0 nodes: taint values by (i / 4) % 3 for i / 4 = 0..99: 34 v0, 33 v1, 33 v2.
// Volcano's wording: the counts and reasons sorted as text.
const char* kBlocked =
    "0/400 nodes are unavailable: 100 Insufficient cpu, 100 node(s) didn't match Pod's node "
    "affinity/selector, 100 node(s) had untolerated taint(s), 100 node(s) were "
    "unschedulable.";

TEST(NodeSearch, ReasonsNodeByNodeOnOneThread) {
  Cache c = load();
  SessionResult r = caldera::testing::run_one_session(c, policy(1), 0);
  EXPECT_EQ(r.pending["c1/blocked-0"], kBlocked);
  ASSERT_EQ(r.binds.size(), 1u);
  // Every node left scores the same (empty nodes of one shape): the first by name.
  EXPECT_EQ(r.binds[0], (std::pair<std::string, std::string>{"c1/tolerant-1", "n004"}));
}

TEST(NodeSearch, TwoThreadsDecideAsOne) {
  Cache one = load();
  Cache two = load();
  SessionResult a = caldera::testing::run_one_session(one, policy(1), 0);
  SessionResult b = caldera::testing::run_one_session(two, policy(2), 0);
  EXPECT_EQ(a.binds, b.binds);
  EXPECT_EQ(a.pending, b.pending);
  EXPECT_EQ(b.pending["c1/blocked-0"], kBlocked);
}

// The predicates plugin keeps the answers of its static checks per node as one byte, with
// room for a node's first 251 taints; a taint past those still blocks and is named.
TEST(NodeSearch, ATaintPastTheFirstFewHundredIsNamed) {
  std::string text = std::string(caldera::testing::kQueueAndInqueueGroup) + R"(
[[pods]]
name = "p-0"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1" }
tolerations = [{ key = "ok", operator = "Exists" }]
[[pods]]
name = "p-1"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1" }
tolerations = [{ key = "ok", operator = "Exists" }]
[[nodes]]
name = "far"
allocatable = { cpu = "4", memory = "8Gi" }
taints = [)";
  // 300 taints: "ok" 0..299 tolerated by key, but taint 280 is keyed "far".
  for (int i = 0; i < 300; ++i)
    text += fmt::format("{}{{ key = \"{}\", value = \"v{}\", effect = \"NoSchedule\" }}",
                        i == 0 ? "" : ", ", i == 280 ? "far" : "ok", i);
  text += "]\n";
  Cache cache = caldera::testing::cache_from_scenario_text(text, "far.toml");
  SessionResult r = caldera::testing::run_one_session(cache, policy(1), 0);
  EXPECT_TRUE(r.binds.empty());
  // Both pods: the first from a fresh check, the second from the kept answer.
  const std::string why =
      "0/1 nodes are unavailable: 1 node(s) had untolerated taint(s).";
  EXPECT_EQ(r.pending["c1/p-0"], why);
  EXPECT_EQ(r.pending["c1/p-1"], why);
}

}  // namespace
