// Scenario files (host/scenario/scenario_file.cpp) and their runner (runner.cpp): the
// defaults SCENARIOS.md documents, the runner's session loop and mismatch wording,
// and one precise error (file:line:column, object, what) for every kind of bad input.
#include "host/scenario/scenario_file.hpp"
#include "host/backend/sim/scenario_runner.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include "tests/unit/test_support.hpp"

namespace fs = std::filesystem;
using namespace caldera;

namespace {

// A fresh folder per test for the files it writes.
class ScenarioFileTest : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    return scratch_.write(name, text);
  }

  // `top` goes before the config: top-level keys written after [config] would belong to it.
  Scenario load(const std::string& body, const std::string& top = "") {
    return load_scenario(write("s.toml", top + kConfig + body), {dir_});
  }

  // The InputError text of loading `body`, or "" when it loads.
  std::string error_of(const std::string& body, const std::string& top = "") {
    try {
      load(body, top);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  static inline const std::string kConfig =
      "[config]\n[config.scheduler]\nactions = [\"allocate\"]\n"
      "[[config.tiers]]\n[[config.tiers.plugins]]\nname = \"gang\"\n";  // lines 1-6
  const caldera::testing::ScratchDir scratch_{"scenario-test"};
  const fs::path dir_ = scratch_.path();
};

}  // namespace

TEST_F(ScenarioFileTest, DefaultsAsDocumented) {
  Scenario sc = load(R"(
[[nodes]]
name = "n1"
allocatable = { cpu = "2", memory = "4Gi", pods = 10, "nvidia.com/gpu" = 2 }

[[podgroups]]
name = "pg1"

[[pods]]
name = "p1"
podgroup = "pg1"
requests = { cpu = "500m", memory = 1073741824 }
)");
  EXPECT_EQ(sc.name, "s");  // the file's stem when there is no name
  EXPECT_EQ(sc.sessions, 1);

  ASSERT_EQ(sc.cache.nodes().size(), 1u);
  const NodeSpec& n = *sc.cache.nodes().at("n1");
  EXPECT_EQ(n.allocatable.at("cpu"), 2000);
  EXPECT_EQ(n.allocatable.at("memory"), 4294967296.0);
  EXPECT_EQ(n.allocatable.at("nvidia.com/gpu"), 2000);
  EXPECT_EQ(n.allocatable.count("pods"), 0u);  // pods is max_pods, not a resource
  EXPECT_EQ(n.max_pods, 10);
  EXPECT_FALSE(n.unschedulable);
  EXPECT_TRUE(n.ready);

  const PodGroupSpec& pg = *sc.cache.podgroups().at("default/pg1");
  EXPECT_EQ(pg.ns, "default");
  EXPECT_EQ(pg.queue, "default");
  EXPECT_EQ(pg.min_member, 1);
  EXPECT_EQ(pg.phase, JobPhase::Pending);
  EXPECT_FALSE(pg.min_resources.has_value());
  EXPECT_EQ(pg.src.line, 12);

  // The default queue exists though nobody declared it, as in Volcano.
  ASSERT_EQ(sc.cache.queues().count("default"), 1u);
  const QueueSpec& q = *sc.cache.queues().at("default");
  EXPECT_EQ(q.weight, 1);
  EXPECT_TRUE(q.reclaimable);
  EXPECT_EQ(q.state, QueueState::Open);

  const PodSpec& p = *sc.cache.pods().at("default/p1");
  EXPECT_EQ(p.requests.at("cpu"), 500);
  EXPECT_EQ(p.requests.at("memory"), 1073741824.0);
  EXPECT_EQ(p.phase, PodPhase::Pending);
  EXPECT_FALSE(p.priority.has_value());  // the session resolves class value, else 1
  EXPECT_TRUE(p.init_requests.empty());
  EXPECT_FALSE(p.preempt_never);
  EXPECT_EQ(p.src.file, (dir_ / "s.toml").string());
  EXPECT_EQ(p.src.line, 15);
  EXPECT_EQ(p.src.column, 1);
  EXPECT_FALSE(sc.expect.binds.has_value());
  EXPECT_FALSE(sc.expect.bind_count.has_value());
}

TEST_F(ScenarioFileTest, EveryKeyRead) {
  Scenario sc = load(R"(

[[priority_classes]]
name = "high"
value = 100000

[[queues]]
name = "c1"
weight = 3
capability = { cpu = "4", memory = "4Gi" }
deserved = { cpu = 2 }
guarantee = { cpu = "1" }
reclaimable = false
priority = 7
state = "Closing"
parent = "root"

[[nodes]]
name = "n1"
allocatable = { cpu = "2", memory = "4Gi" }
labels = { nodeRole = "master" }
taints = [{ key = "k", value = "v", effect = "NoSchedule" }]
unschedulable = true

[[podgroups]]
name = "pg1"
namespace = "c1"
queue = "c1"
min_member = 0
min_task_member = { master = 1, worker = 2 }
min_resources = { cpu = "8", memory = "8Gi" }
phase = "Inqueue"
priority_class = "high"
created = 5

[[pods]]
name = "p1"
namespace = "c1"
podgroup = "pg1"
requests = { cpu = "1", memory = "1G" }
phase = "Running"
node = "n1"
priority = 100
priority_class = "high"
labels = { "volcano.sh/task-spec" = "master" }
annotations = { "volcano.sh/task-priority" = "5" }
node_selector = { nodeRole = "master" }
tolerations = [{ key = "k", operator = "Equal", value = "v", effect = "NoSchedule" }, { operator = "Exists" }]
preemption_policy = "Never"
created = 1.5

[[pods]]
name = "p2"
namespace = "c1"
podgroup = "pg1"
node = "n1"

[[pods]]
name = "lone"
namespace = "c1"

[expect]
binds = { "c1/p2" = "n1" }
bind_count = 1
evictions = ["c1/p1"]
evict_count = 1
pipelined = []
podgroup_phases = { "c1/pg1" = "Running" }
)",
                     "name = \"all keys\"\nsessions = 3\n");
  EXPECT_EQ(sc.name, "all keys");
  EXPECT_EQ(sc.sessions, 3);
  EXPECT_EQ(sc.cache.priority_classes().at("high")->value, 100000);

  const QueueSpec& q = *sc.cache.queues().at("c1");
  EXPECT_EQ(q.weight, 3);
  EXPECT_EQ(q.capability->at("cpu"), 4000);
  EXPECT_EQ(q.deserved->at("cpu"), 2000);
  EXPECT_EQ(q.guarantee->at("cpu"), 1000);
  EXPECT_FALSE(q.reclaimable);
  EXPECT_EQ(q.priority, 7);
  EXPECT_EQ(q.state, QueueState::Closing);
  EXPECT_EQ(q.parent, "root");
  EXPECT_EQ(sc.cache.queues().count("root"), 1u);  // implicit, as Volcano's root queue

  const NodeSpec& n = *sc.cache.nodes().at("n1");
  EXPECT_EQ(n.max_pods, 110);  // the kubelet default when allocatable has no pods
  EXPECT_EQ(n.labels.at("nodeRole"), "master");
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].effect, "NoSchedule");
  EXPECT_TRUE(n.unschedulable);

  const PodGroupSpec& pg = *sc.cache.podgroups().at("c1/pg1");
  EXPECT_EQ(pg.min_member, 0);
  EXPECT_EQ(pg.min_task_member.at("worker"), 2);
  EXPECT_EQ(pg.min_resources->at("memory"), 8589934592.0);
  EXPECT_EQ(pg.phase, JobPhase::Inqueue);
  EXPECT_EQ(pg.priority_class, "high");
  EXPECT_EQ(pg.created, 5);

  const PodSpec& p = *sc.cache.pods().at("c1/p1");
  EXPECT_EQ(p.requests.at("memory"), 1e9);
  EXPECT_EQ(p.phase, PodPhase::Running);
  EXPECT_EQ(p.node, "n1");
  EXPECT_EQ(p.priority, 100);
  EXPECT_EQ(p.priority_class, "high");
  EXPECT_EQ(p.labels.at("volcano.sh/task-spec"), "master");
  EXPECT_EQ(p.annotations.at("volcano.sh/task-priority"), "5");
  EXPECT_EQ(p.node_selector.at("nodeRole"), "master");
  ASSERT_EQ(p.tolerations.size(), 2u);
  EXPECT_EQ(p.tolerations[1].op, "Exists");
  EXPECT_EQ(p.tolerations[1].effect, "");
  EXPECT_TRUE(p.preempt_never);
  EXPECT_EQ(p.created, 1.5);

  // A Pending pod with a node is bound there; the session reads it as such.
  const PodSpec& p2 = *sc.cache.pods().at("c1/p2");
  EXPECT_EQ(p2.phase, PodPhase::Pending);
  EXPECT_EQ(p2.node, "n1");

  // A pod without PodGroup stays without one (a job of its own), in the default queue.
  EXPECT_EQ(sc.cache.pods().at("c1/lone")->podgroup, "");
  EXPECT_EQ(sc.cache.queues().count("default"), 1u);

  EXPECT_EQ(sc.expect.binds->at("c1/p2"), "n1");
  EXPECT_EQ(*sc.expect.bind_count, 1u);
  EXPECT_EQ(*sc.expect.evictions, std::vector<std::string>{"c1/p1"});
  EXPECT_EQ(*sc.expect.evict_count, 1u);
  EXPECT_TRUE(sc.expect.pipelined->empty());
  EXPECT_EQ(sc.expect.podgroup_phases->at("c1/pg1"), "Running");
}

TEST_F(ScenarioFileTest, NoDefaultQueueUnlessUsed) {
  Scenario sc = load("[[queues]]\nname = \"c1\"\n");
  EXPECT_EQ(sc.cache.queues().size(), 1u);
}

TEST_F(ScenarioFileTest, ConfigFileRelativeToScenario) {
  fs::create_directories(dir_ / "conf");
  write("conf/sched.toml", "[scheduler]\nactions = [\"enqueue\", \"allocate\"]\nperiod = \"2s\"\n");
  fs::path s = write("with-file.toml", "config_file = \"conf/sched.toml\"\n");
  Scenario sc = load_scenario(s, {dir_});
  EXPECT_EQ(sc.config.actions, (std::vector<std::string>{"enqueue", "allocate"}));
  EXPECT_EQ(sc.config.period_seconds, 2);
  EXPECT_EQ(sc.config.plugin_dirs, std::vector<fs::path>{dir_});  // the defaults given

  fs::path missing = write("missing.toml", "\nconfig_file = \"nope.toml\"\n");
  try {
    load_scenario(missing, {dir_});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              missing.string() + ":2:15: config_file: config file '" +
                  (dir_ / "nope.toml").string() +
                  "' not found; expected the path of a config file, relative to this file");
  }
}

TEST_F(ScenarioFileTest, UnreadableFile) {
  fs::path p = dir_ / "absent.toml";
  try {
    load_scenario(p, {dir_});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), p.string() + ": cannot read the scenario: no such file");
  }
}

// Errors not covered by tests/scenarios-bad, each with its exact position. The config takes
// lines 1-6, so the body starts on line 7.
TEST_F(ScenarioFileTest, MoreErrors) {
  std::string f = (dir_ / "s.toml").string() + ":";
  const std::string quantity =
      "expected a quantity such as \"2\", \"500m\", \"4Gi\", \"1G\" or \"1e3\" (a string or a "
      "number)";
  EXPECT_EQ(error_of("", "sessions = 0\n"),
            f + "1:12: sessions: 0 is out of range; expected an integer from 1 to 100000");
  EXPECT_EQ(error_of("[[pods]]\nnamespace = \"c1\"\n"),
            f + "7:1: pods[0]: missing key 'name'; expected a non-empty name without '/'");
  EXPECT_EQ(error_of("[[pods]]\nname = \"a/b\"\n"),
            f + "8:8: pods[0] (default/a/b).name: 'a/b' contains '/'; expected a non-empty name "
                "without '/'");
  EXPECT_EQ(error_of("[[queues]]\nname = \"q\"\nweight = 0\n"),
            f + "9:10: queues[0] (q).weight: 0 is out of range; expected a positive number");
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\nrequests = { cpu = true }\n"),
            f + "9:20: pods[0] (default/p).requests.cpu: got a boolean; " + quantity);
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\nrequests = { memory = \"\" }\n"),
            f + "9:23: pods[0] (default/p).requests.memory: '' is not a quantity; " + quantity);
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\nrequests = { cpu = \"m\" }\n"),
            f + "9:20: pods[0] (default/p).requests.cpu: 'm' is not a quantity; " + quantity);
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\nrequests = { \"nvidia.com/gpu\" = inf }\n"),
            f + "9:33: pods[0] (default/p).requests.\"nvidia.com/gpu\": inf is not finite; " +
                quantity);
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\npreemption_policy = \"Sometimes\"\n"),
            f + "9:21: pods[0] (default/p).preemption_policy: unknown preemption policy "
                "'Sometimes'; expected one of PreemptLowerPriority, Never");
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\ntolerations = [{ operator = \"Exists\", value = "
                     "\"v\" }]\n"),
            f + "9:47: pods[0] (default/p).tolerations[0].value: a value with operator Exists; "
                "expected no 'value' with operator Exists");
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\ntolerations = [{ value = \"v\" }]\n"),
            f + "9:16: pods[0] (default/p).tolerations[0]: a toleration without 'key' and with "
                "operator Equal; expected operator = \"Exists\" when 'key' is left out");
  EXPECT_EQ(error_of("[[queues]]\nname = \"a\"\nparent = \"b\"\n[[queues]]\nname = \"b\"\n"
                     "parent = \"a\"\n"),
            f + "9:10: queues[0] (a).parent: queue parents form a cycle through 'a'; expected "
                "parents that end at a queue without a parent");
  EXPECT_EQ(error_of("[[podgroups]]\nname = \"pg\"\nmin_task_member = { w = -1 }\n"),
            f + "9:25: podgroups[0] (default/pg).min_task_member.w: -1 is out of range; expected "
                "an integer of at least 0");
  EXPECT_EQ(error_of("[[nodes]]\nname = \"n\"\ntaints = [{ key = \"k\" }]\n"),
            f + "9:11: nodes[0] (n).taints[0]: missing key 'effect'; expected one of NoSchedule, "
                "PreferNoSchedule, NoExecute");
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\nreleasing = true\n"),
            f + "9:13: pods[0] (default/p).releasing: a releasing pod without a node; expected "
                "the node it leaves in 'node'");
  EXPECT_EQ(error_of("[[podgroups]]\nname = \"pg\"\n[expect]\npodgroup_phases = { "
                     "\"default/pg\" = \"Done\" }\n"),
            f + "10:36: expect.podgroup_phases.\"default/pg\": unknown phase 'Done'; expected "
                "one of Pending, Inqueue, Running, Unknown, Completed");
  EXPECT_EQ(error_of("[[pods]]\nname = \"p\"\nrequests = { pods = 1 }\n"),
            f + "9:21: pods[0] (default/p).requests.pods: a pod cannot request pods; expected "
                "resources other than pods (a node's pod count)");
  EXPECT_EQ(error_of("[expect]\nbind = {}\n"),
            f + "8:1: expect: unknown key 'bind' (did you mean 'binds'?); expected one of the "
                "allowed keys: binds, bind_count, evictions, evict_count, pipelined, "
                "podgroup_phases, pending");
  // A missing key points at the table that lacks it; a duplicate at the second object.
  EXPECT_EQ(error_of("[[priority_classes]]\nname = \"high\"\n"),
            f + "7:1: priority_classes[0] (high): missing key 'value'; expected the class's "
                "priority, an integer");
  EXPECT_EQ(error_of("[[nodes]]\nname = \"n\"\n[[nodes]]\nname = \"n\"\n"),
            f + "9:1: nodes[1] (n): duplicate node 'n', first at line 7; expected a name no other "
                "node has");
  // The scenario's [config] is read by the config layer with its place in the file.
  fs::path inline_config = write("c.toml", "[config]\n[config.scheduler]\nperiods = 1\n");
  try {
    load_scenario(inline_config, {dir_});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              inline_config.string() + ":3:1: config.scheduler: unknown key 'periods' (did you "
                                       "mean 'period'?); expected one of the allowed keys: "
                                       "period, actions, plugin_dirs, unload_retired_plugins, "
                                       "canary_timeout, reload_settle, "
                                       "percentage_of_nodes_to_find, minimum_feasible_nodes, "
                                       "minimum_percentage_of_nodes_to_find, threads, session_timeout, "
            "session_memory_limit, on_plugin_fault, isolation, count_csi_volumes, "
                "ignored_provisioners");
  }
}

// Every file in tests/scenarios-bad says on its second line, "# error: LINE:COL: ...",
// the exact error it must give; the loader must give exactly that, after the file name.
TEST(ScenarioBadFiles, EachNamesFileLineAndObject) {
  fs::path dir = fs::path(CALDERA_SOURCE_ROOT) / "tests" / "scenarios-bad";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 25u);
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    const std::string tag = "# error: ";
    ASSERT_EQ(second.rfind(tag, 0), 0u) << file << ": second line must be '# error: ...'";
    std::string expected = file.string() + ":" + second.substr(tag.size());
    try {
      load_scenario(file, {dir});
      ADD_FAILURE() << file << ": loaded without error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), expected);
      // Line and column are always there: "FILE:LINE:COLUMN: ".
      std::string rest = std::string(e.what()).substr(file.string().size());
      EXPECT_TRUE(rest.size() > 4 && rest[0] == ':' && std::isdigit(rest[1])) << rest;
    }
  }
}

// ---- the runner (host/backend/sim/scenario_runner.cpp) on the built-in plugins --------------------

namespace {

const char* kRunnerScenario = R"(
name = "two sessions on one node"
sessions = 2

[config]
[config.scheduler]
actions = ["enqueue", "allocate"]
[[config.tiers]]
[[config.tiers.plugins]]
name = "gang"
[[config.tiers.plugins]]
name = "predicates"
[[config.tiers.plugins]]
name = "proportion"

[[queues]]
name = "c1"

[[nodes]]
name = "n1"
allocatable = { cpu = "2", memory = "4Gi", pods = 10 }

[[podgroups]]
name = "pg1"
namespace = "c1"
queue = "c1"
phase = "Pending"

[[pods]]
name = "p-1"
namespace = "c1"
podgroup = "pg1"
requests = { cpu = "1", memory = "1Gi" }

[[pods]]
name = "p-2"
namespace = "c1"
podgroup = "pg1"
requests = { cpu = "1", memory = "1Gi" }

[[pods]]
name = "p-3"
namespace = "c1"
podgroup = "pg1"
requests = { cpu = "1", memory = "1Gi" }
)";

}  // namespace

TEST_F(ScenarioFileTest, RunnerAppliesEachSessionToTheCache) {
  fs::path file = write("run.toml", std::string(kRunnerScenario) + R"(
[expect]
binds = { "c1/p-1" = "n1", "c1/p-2" = "n1" }
bind_count = 2
evictions = []
podgroup_phases = { "c1/pg1" = "Running" }
)");
  Scenario sc = load_scenario(file, {fs::path(CALDERA_BUILTIN_PLUGIN_DIR)});
  ScenarioOutcome out = run_scenario(sc);
  // Session 1 enqueues and binds two pods; session 2 sees them running on n1 (the cache
  // was updated), so it binds nothing again: two binds in all, and p-3 still waits.
  EXPECT_EQ(out.binds, (std::vector<std::pair<std::string, std::string>>{{"c1/p-1", "n1"},
                                                                         {"c1/p-2", "n1"}}));
  EXPECT_TRUE(out.failures.empty()) << out.failures.front();
  // The phases are the embedded cluster's at the end; the scenario itself is left as read.
  EXPECT_EQ(out.podgroup_phases.at("c1/pg1"), "Running");
  EXPECT_EQ(sc.cache.pods().at("c1/p-1")->phase, PodPhase::Pending);
  EXPECT_EQ(sc.cache.pods().at("c1/p-1")->node, "");
  ASSERT_EQ(out.pending.count("c1/p-3"), 1u);
  EXPECT_FALSE(out.pending.at("c1/p-3").empty());  // the wording is the session's

  std::string json = outcome_json(sc, out);
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_EQ(json.rfind("{\"file\":\"" + file.string() +
                           "\",\"name\":\"two sessions on one node\",\"binds\":{\"c1/p-1\":\"n1\","
                           "\"c1/p-2\":\"n1\"},\"evictions\":[],\"pipelined\":[],"
                           "\"podgroup_phases\":{\"c1/pg1\":\"Running\"},\"pending\":{\"c1/p-3\":",
                       0),
            0u)
      << json;
  EXPECT_NE(json.find(",\"failures\":[]}"), std::string::npos) << json;
}

TEST_F(ScenarioFileTest, RunnerWordsEachMismatch) {
  fs::path file = write("run.toml", std::string(kRunnerScenario) + R"(
[[nodes]]
name = "n2"

[expect]
binds = { "c1/p-1" = "n2", "c1/p-3" = "n1" }
bind_count = 3
evictions = ["c1/p-1"]
evict_count = 1
pipelined = ["c1/p-3"]
podgroup_phases = { "c1/pg1" = "Inqueue" }
)");
  Scenario sc = load_scenario(file, {fs::path(CALDERA_BUILTIN_PLUGIN_DIR)});
  ScenarioOutcome out = run_scenario(sc);
  EXPECT_EQ(out.failures, (std::vector<std::string>{
                              "bind c1/p-1: expected n2, got n1",
                              "missing bind c1/p-3 -> n1",
                              "unexpected bind c1/p-2 -> n1",
                              "bind_count: expected 3, got 2",
                              "missing eviction c1/p-1",
                              "evict_count: expected 1, got 0",
                              "missing pipelined c1/p-3",
                              "podgroup_phases c1/pg1: expected Inqueue, got Running",
                          }));
}
