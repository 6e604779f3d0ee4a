// Tests of the scheduler config parser (host/config/config.cpp): the format of
// SCENARIOS.md section 1, and one test per kind of error, each asserting the file, line,
// column and object the message names.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include "host/config/config.hpp"
#include "host/config/points.hpp"
#include "host/config/volcano_yaml.hpp"
#include "host/toml/tomlpp.hpp"
#include "tests/unit/test_support.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;
using caldera::testing::input_error_of;

class ConfigTest : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    return scratch_.write(name, text);
  }
  SchedulerConfig load(const std::string& text) {
    return load_config(write("caldera.toml", text), {"/default/plugins"});
  }
  // The message of the InputError that loading `text` throws ("" when none is thrown).
  std::string error_of(const std::string& text) {
    try {
      load(text);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  std::string file() const { return (dir_ / "caldera.toml").string(); }

  const caldera::testing::ScratchDir scratch_{"config-test"};
  const fs::path dir_ = scratch_.path();
};

const char* kExample = R"(
[scheduler]
period = "1s"
actions = ["enqueue", "allocate", "backfill"]
plugin_dirs = ["../plugins", "/abs/plugins", "more/"]

[[tiers]]
[[tiers.plugins]]
name = "priority"
[[tiers.plugins]]
name = "gang"
disable = ["preemptable"]
[[tiers.plugins]]
name = "conformance"

[[tiers]]
[[tiers.plugins]]
name = "drf"
enable = ["job_order", "preemptable"]
hierarchy = true
[[tiers.plugins]]
name = "binpack"
arguments = { "binpack.weight" = 1, "binpack.cpu" = 2.5, "binpack.mode" = "x", "binpack.on" = true }

[actions.preempt]
"enableTopologyAwarePreemption" = true
)";

// The supervised-session keys (docs/ISOLATION.md): read, defaulted, and each bad value
// refused with file, line, key and what is expected.
TEST_F(ConfigTest, SupervisionKeys) {
  SchedulerConfig d = load("[scheduler]\nperiod = \"2s\"\n");
  EXPECT_EQ(d.isolation, "process");
  EXPECT_EQ(d.on_plugin_fault, "fallback");
  EXPECT_EQ(d.session_timeout(), 60.0);  // the larger of 60 s and 10 periods
  SchedulerConfig c = load(
      "[scheduler]\nperiod = \"10s\"\nisolation = \"in-process\"\non_plugin_fault = "
      "\"disable\"\nsession_memory_limit = \"1Gi\"\n");
  EXPECT_EQ(c.isolation, "in-process");
  EXPECT_EQ(c.on_plugin_fault, "disable");
  EXPECT_EQ(c.session_timeout(), 100.0);
  EXPECT_EQ(c.session_memory_limit_bytes, 1024.0 * 1024 * 1024);
  EXPECT_EQ(load("[scheduler]\nsession_timeout = \"3s\"\n").session_timeout(), 3.0);

  const std::string f = file();
  EXPECT_EQ(error_of("[scheduler]\non_plugin_fault = \"ignore\"\n"),
            f + ":2:19: scheduler.on_plugin_fault: unknown value 'ignore'; expected "
                "\"fallback\" or \"disable\": run the last plugin set that completed a "
                "session, else nothing; or go on without the faulty plugin");
  EXPECT_NE(error_of("[scheduler]\nisolation = \"thread\"\n")
                .find(":2:13: scheduler.isolation: unknown value 'thread'; expected \"process\" "
                      "or \"in-process\""),
            std::string::npos);
  EXPECT_NE(error_of("[scheduler]\nsession_memory_limit = \"4GB\"\n")
                .find(":2:24: scheduler.session_memory_limit: '4GB' is not a quantity"),
            std::string::npos)
      << error_of("[scheduler]\nsession_memory_limit = \"4GB\"\n");
  EXPECT_NE(error_of("[scheduler]\nsession_timeout = \"0s\"\n").find("scheduler.session_timeout"),
            std::string::npos);
}

TEST_F(ConfigTest, AConfigOverOneMebibyteIsRefused) {
  const std::string big = "# " + std::string(1 << 20, 'x') + "\n";
  const fs::path p = write("caldera.toml", big);
  EXPECT_EQ(input_error_of([&] { load_config(p, {}); }),
            p.string() + ": cannot read the config: it is " + std::to_string(big.size()) +
                " bytes; expected at most 1048576 bytes");
}

TEST_F(ConfigTest, ParsesTheDocumentedExample) {
  SchedulerConfig c = load(kExample);
  EXPECT_EQ(c.file, dir_ / "caldera.toml");
  EXPECT_DOUBLE_EQ(c.period_seconds, 1.0);
  EXPECT_EQ(c.actions, (std::vector<std::string>{"enqueue", "allocate", "backfill"}));
  EXPECT_EQ(c.actions_src.line, 4);
  EXPECT_EQ(c.actions_src.column, 11);
  // Relative to the config file's folder, normalized, without a trailing separator.
  ASSERT_EQ(c.plugin_dirs.size(), 3u);
  EXPECT_EQ(c.plugin_dirs[0], dir_.parent_path() / "plugins");
  EXPECT_EQ(c.plugin_dirs[1], fs::path("/abs/plugins"));
  EXPECT_EQ(c.plugin_dirs[2], dir_ / "more");
  EXPECT_EQ(c.plugin_dirs_src.line, 5);

  ASSERT_EQ(c.tiers.size(), 2u);
  ASSERT_EQ(c.tiers[0].plugins.size(), 3u);
  ASSERT_EQ(c.tiers[1].plugins.size(), 2u);
  EXPECT_EQ(c.plugin_names(),
            (std::vector<std::string>{"priority", "gang", "conformance", "drf", "binpack"}));

  const PluginConfig& priority = c.tiers[0].plugins[0];
  EXPECT_EQ(priority.points, PointSet::all());
  EXPECT_EQ(priority.enabled_explicitly, PointSet::none());
  EXPECT_FALSE(priority.hierarchy);
  EXPECT_EQ(priority.src.line, 8);
  EXPECT_EQ(priority.src.file, file());

  const PluginConfig& gang = c.tiers[0].plugins[1];
  for (int i = 0; i < kPointCount; ++i) {
    auto p = static_cast<Point>(i);
    EXPECT_EQ(gang.points.has(p), p != Point::Preemptable) << point_name(p);
  }

  const PluginConfig& drf = c.tiers[1].plugins[0];
  for (int i = 0; i < kPointCount; ++i) {
    auto p = static_cast<Point>(i);
    bool want = p == Point::JobOrder || p == Point::Preemptable;
    EXPECT_EQ(drf.points.has(p), want) << point_name(p);
    EXPECT_EQ(drf.enabled_explicitly.has(p), want) << point_name(p);
  }
  EXPECT_TRUE(drf.hierarchy);

  const ArgMap& a = c.tiers[1].plugins[1].arguments;
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(std::get<int64_t>(a.at("binpack.weight").value), 1);
  EXPECT_DOUBLE_EQ(std::get<double>(a.at("binpack.cpu").value), 2.5);
  EXPECT_EQ(std::get<std::string>(a.at("binpack.mode").value), "x");
  EXPECT_EQ(std::get<bool>(a.at("binpack.on").value), true);
  EXPECT_EQ(a.at("binpack.weight").src.line, 23);
  EXPECT_EQ(a.at("binpack.weight").src.column, 34);

  ASSERT_EQ(c.action_arguments.count("preempt"), 1u);
  const ArgMap& pa = c.action_arguments.at("preempt");
  EXPECT_EQ(std::get<bool>(pa.at("enableTopologyAwarePreemption").value), true);
  EXPECT_EQ(pa.at("enableTopologyAwarePreemption").src.line, 26);
}

TEST_F(ConfigTest, DefaultsWhenTheFileSaysLittle) {
  SchedulerConfig c = load("");
  EXPECT_DOUBLE_EQ(c.period_seconds, 1.0);
  EXPECT_EQ(c.actions, (std::vector<std::string>{"enqueue", "allocate", "backfill"}));
  EXPECT_EQ(c.plugin_dirs, (std::vector<fs::path>{"/default/plugins"}));
  EXPECT_TRUE(c.tiers.empty());
  EXPECT_TRUE(c.action_arguments.empty());
  // An empty plugin_dirs list is "none named": the defaults apply.
  c = load("[scheduler]\nplugin_dirs = []\n");
  EXPECT_EQ(c.plugin_dirs, (std::vector<fs::path>{"/default/plugins"}));
}

TEST_F(ConfigTest, DottedArgumentKeysMeanTheFlatName) {
  SchedulerConfig c = load(R"(
[[tiers]]
[[tiers.plugins]]
name = "binpack"
arguments = { binpack.weight = 3, binpack.resources = { "nvidia.com/gpu" = 2 } }
)");
  const ArgMap& a = c.tiers[0].plugins[0].arguments;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(a.at("binpack.weight").value), 3);
  EXPECT_EQ(std::get<int64_t>(a.at("binpack.resources.nvidia.com/gpu").value), 2);
}

TEST_F(ConfigTest, Periods) {
  EXPECT_DOUBLE_EQ(load("[scheduler]\nperiod = \"500ms\"\n").period_seconds, 0.5);
  EXPECT_DOUBLE_EQ(load("[scheduler]\nperiod = \"1m30s\"\n").period_seconds, 90);
  EXPECT_DOUBLE_EQ(load("[scheduler]\nperiod = 2\n").period_seconds, 2);
  EXPECT_DOUBLE_EQ(load("[scheduler]\nperiod = 0.25\n").period_seconds, 0.25);
  EXPECT_EQ(error_of("[scheduler]\nperiod = \"soon\"\n"),
            file() + ":2:10: scheduler.period: 'soon' is not a duration; expected a duration "
                     "such as \"1s\", \"500ms\" or \"1m30s\", or a number of seconds");
  EXPECT_EQ(error_of("[scheduler]\nperiod = \"0s\"\n"),
            file() + ":2:10: scheduler.period: '0s' is out of range; expected a positive duration");
  EXPECT_EQ(error_of("[scheduler]\nperiod = true\n"),
            file() + ":2:10: scheduler.period: got a boolean; expected a duration such as "
                     "\"1s\", \"500ms\" or \"1m30s\", or a number of seconds");
}

TEST(ParseDuration, GoSyntaxAndBareSeconds) {
  EXPECT_EQ(parse_duration("1s"), 1.0);
  EXPECT_EQ(parse_duration("500ms"), 0.5);
  EXPECT_EQ(parse_duration("3m"), 180.0);
  EXPECT_EQ(parse_duration("1h30m"), 5400.0);
  EXPECT_EQ(parse_duration("1h2m3s"), 3723.0);
  EXPECT_EQ(parse_duration("1.5h"), 5400.0);
  EXPECT_EQ(parse_duration("250us"), 0.00025);
  EXPECT_EQ(parse_duration("2"), 2.0);
  EXPECT_EQ(parse_duration("0.5"), 0.5);
  EXPECT_EQ(parse_duration("0"), 0.0);
  EXPECT_EQ(parse_duration("+2s"), 2.0);
  for (const char* bad : {"", "s", "1x", "1d", "-1s", "1 s", "h1", "0x10", "1e3", ".", "1s2"})
    EXPECT_EQ(parse_duration(bad), std::nullopt) << bad;
}

TEST_F(ConfigTest, SyntaxErrorNamesFileLineAndColumn) {
  std::string e = error_of("[scheduler]\nactions = [\"allocate\"\n[[tiers]]\n");
  EXPECT_EQ(e.rfind(file() + ":3:", 0), 0u) << e;
  EXPECT_NE(e.find("TOML syntax error"), std::string::npos) << e;
  e = error_of("[scheduler]\nperiod = = 1\n");
  EXPECT_EQ(e.rfind(file() + ":2:", 0), 0u) << e;
}

TEST_F(ConfigTest, UnknownKeysListTheAllowedOnes) {
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"priority\"\n"
                     "[[tiers]]\n[[tiers.plugins]]\nname = \"gang\"\n"
                     "[[tiers.plugins]]\nname = \"binpack\"\nwieght = 2\n"),
            file() + ":9:1: tiers[1].plugins[1] (binpack): unknown key 'wieght'; expected one "
                     "of the allowed keys: name, enable, disable, arguments, hierarchy");
  EXPECT_EQ(error_of("[schedular]\n"),
            file() + ":1:2: unknown top-level key 'schedular' (did you mean 'scheduler'?); "
                     "expected one of the allowed keys: scheduler, tiers, actions");
  // [scheduler] grows keys (reload settings); the documented ones come first.
  std::string e = error_of("[scheduler]\nactons = []\n");
  EXPECT_EQ(e.rfind(file() + ":2:1: scheduler: unknown key 'actons' (did you mean 'actions'?); "
                             "expected one of the allowed keys: period, actions, plugin_dirs", 0),
            0u) << e;
  EXPECT_EQ(error_of("[[tiers]]\nplugin = []\n"),
            file() + ":2:1: tiers[0]: unknown key 'plugin' (did you mean 'plugins'?); expected "
                     "one of the allowed keys: plugins");
}

TEST_F(ConfigTest, WrongTypes) {
  EXPECT_EQ(error_of("[scheduler]\nactions = \"allocate\"\n"),
            file() + ":2:11: scheduler.actions: got a string; expected an array of action names");
  EXPECT_EQ(error_of("[scheduler]\nactions = [\"allocate\", 3]\n"),
            file() + ":2:24: scheduler.actions[1]: got an integer; expected an action name such "
                     "as \"allocate\"");
  EXPECT_EQ(error_of("[scheduler]\nplugin_dirs = \"p\"\n"),
            file() + ":2:15: scheduler.plugin_dirs: got a string; expected an array of folder names");
  EXPECT_EQ(error_of("scheduler = 1\n"), file() + ":1:13: scheduler: got an integer; expected a table");
  EXPECT_EQ(error_of("tiers = 1\n"),
            file() + ":1:9: tiers: got an integer; expected an array of tables ([[tiers]])");
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = 3\n"),
            file() + ":3:8: tiers[0].plugins[0].name: got an integer; expected a plugin name such "
                     "as \"gang\"");
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"drf\"\nhierarchy = \"yes\"\n"),
            file() + ":4:13: tiers[0].plugins[0] (drf).hierarchy: got a string; expected true or "
                     "false");
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"drf\"\nenable = \"job_order\"\n"),
            file() + ":4:10: tiers[0].plugins[0] (drf).enable: got a string; expected an array of "
                     "extension point names");
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"drf\"\narguments = 1\n"),
            file() + ":4:13: tiers[0].plugins[0] (drf).arguments: got an integer; expected a table "
                     "of arguments");
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"drf\"\narguments = { a = [1] }\n"),
            file() + ":4:19: tiers[0].plugins[0] (drf).arguments.a: got an array; expected an "
                     "argument: a boolean, an integer, a float or a string");
  EXPECT_EQ(error_of("[actions]\npreempt = 1\n"),
            file() + ":2:11: actions.preempt: got an integer; expected a table of the action's "
                     "arguments");
}

// Action names are the actions' business: the config layer keeps them with where each is
// written, and build_policy() refuses an unknown one there (plugin_loading_test.cpp,
// PolicyTest.UnknownActionNamesListTheKnownOnes).
TEST_F(ConfigTest, ActionNamesAreCheckedByThePolicyNotHere) {
  SchedulerConfig c = load("[scheduler]\nactions = [\"enqueue\", \"alocate\"]\n[actions.preemt]\nx = 1\n");
  EXPECT_EQ(c.actions, (std::vector<std::string>{"enqueue", "alocate"}));
  ASSERT_EQ(c.action_srcs.size(), 2u);
  EXPECT_EQ(c.action_srcs[1].str(), file() + ":2:23");
  EXPECT_EQ(c.action_arguments_src.at("preemt").str(), file() + ":3:1");
  EXPECT_EQ(c.object_path, "");
}

TEST_F(ConfigTest, UnknownPointNamesListTheKnownOnes) {
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"drf\"\n"
                     "disable = [\"preemptable\", \"job_ordr\"]\n"),
            file() + ":4:27: tiers[0].plugins[0] (drf).disable[1]: unknown extension point "
                     "'job_ordr' (did you mean 'job_order'?); expected one of " + all_point_names());
  EXPECT_EQ(all_point_names(),
            "job_order, queue_order, task_order, predicate, node_order, best_node, preemptable, "
            "reclaimable, preemptive, overused, allocatable, job_ready, job_pipelined, "
            "job_enqueueable, job_starving, victim_tasks, hyper_node_order, sub_job_order, "
            "sub_job_ready, sub_job_pipelined");
}

TEST_F(ConfigTest, EnableAndDisableTogetherIsAnError) {
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"drf\"\n"
                     "enable = [\"job_order\"]\ndisable = [\"preemptable\"]\n"),
            file() + ":5:11: tiers[0].plugins[0] (drf).disable: 'enable' and 'disable' together; "
                     "expected one of them: 'enable' lists the only points the plugin takes part "
                     "in, 'disable' the points it stays out of");
}

TEST_F(ConfigTest, PluginNeedsOneName) {
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nenable = []\n"),
            file() + ":2:1: tiers[0].plugins[0]: missing key 'name'; expected the plugin's name, "
                     "such as name = \"gang\"");
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"\"\n"),
            file() + ":3:8: tiers[0].plugins[0].name: empty plugin name; expected a plugin name "
                     "such as \"gang\"");
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"gang\"\n"
                     "[[tiers]]\n[[tiers.plugins]]\nname = \"gang\"\n"),
            file() + ":5:1: tiers[1].plugins[0] (gang): plugin 'gang' is already configured at " +
                file() + ":2:1 (tiers[0].plugins[0]); expected each plugin once in the tiers");
}

TEST_F(ConfigTest, EmptyEnableListMeansNoPoint) {
  SchedulerConfig c = load("[[tiers]]\n[[tiers.plugins]]\nname = \"gang\"\nenable = []\n");
  EXPECT_EQ(c.tiers[0].plugins[0].points, PointSet::none());
}

TEST_F(ConfigTest, PluginsBeforeAnyTier) {
  EXPECT_EQ(error_of("[[tiers.plugins]]\nname = \"gang\"\n"),
            file() + ":1:1: tiers: got a table; expected an array of tables (start each tier "
                     "with [[tiers]] before its [[tiers.plugins]])");
}

TEST_F(ConfigTest, AFolderIsNotAConfig) {
  try {
    load_config(dir_, {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              dir_.string() + ": cannot read the config: it is a folder; expected a regular file");
  }
}

TEST_F(ConfigTest, MissingFile) {
  try {
    load_config(dir_ / "nope.toml", {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir_ / "nope.toml").string() + ": cannot read the config: no such file");
  }
}

// A scenario's [config]: the enclosing file names the errors and anchors plugin_dirs.
TEST_F(ConfigTest, InlineConfigOfAScenario) {
  fs::path scenario = write("sc/a.toml", "");
  toml::table root = toml::parse(
      "name = \"x\"\n[config.scheduler]\nactions = [\"allocate\"]\nplugin_dirs = [\"p\"]\n"
      "[[config.tiers]]\n[[config.tiers.plugins]]\nname = \"gang\"\n",
      scenario.string());
  SchedulerConfig c = parse_config(*root["config"].as_table(), scenario, {"/d"}, "config");
  EXPECT_EQ(c.file, scenario);
  EXPECT_EQ(c.actions, (std::vector<std::string>{"allocate"}));
  EXPECT_EQ(c.plugin_dirs, (std::vector<fs::path>{dir_ / "sc" / "p"}));
  EXPECT_EQ(c.tiers[0].plugins[0].src.line, 6);
  EXPECT_EQ(c.tiers[0].plugins[0].src.file, scenario.string());

  toml::table bad = toml::parse("[config]\n[config.scheduler]\nperiods = 1\n", scenario.string());
  try {
    parse_config(*bad["config"].as_table(), scenario, {}, "config");
    FAIL() << "no error";
  } catch (const InputError& e) {
    // The object path is the table's place in the scenario file.
    EXPECT_EQ(std::string(e.what()).rfind(scenario.string() +
                                              ":3:1: config.scheduler: unknown key 'periods' (did "
                                              "you mean 'period'?); expected one of the allowed "
                                              "keys: period, actions, plugin_dirs", 0),
              0u) << e.what();
  }
}

TEST(Points, NamesRoundTrip) {
  for (int i = 0; i < kPointCount; ++i) {
    auto p = static_cast<Point>(i);
    EXPECT_EQ(point_from_name(point_name(p)), p);
  }
  EXPECT_EQ(point_from_name("predicates"), std::nullopt);
  EXPECT_EQ(point_name(Point::NodeOrder), "node_order");
  PointSet s = PointSet::none();
  s.add(Point::VictimTasks);
  EXPECT_TRUE(s.has(Point::VictimTasks));
  EXPECT_FALSE(s.has(Point::JobOrder));
  s.remove(Point::VictimTasks);
  EXPECT_EQ(s, PointSet::none());
}

// Volcano's own YAML (volcano-scheduler.conf) is read as is, by content: actions, tiers
// with the per-point switches (false turns a point off), arguments with YAML's types,
// configurations as action arguments; positions are the YAML's.
TEST_F(ConfigTest, VolcanoYamlConfig) {
  const fs::path f = write("volcano-scheduler.conf", R"(# Volcano's shape
actions: "enqueue, allocate,backfill, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
    enableJobStarving: true
- plugins:
  - name: drf
    enableHierarchy: true
    enablePreemptable: false
    enableJobOrder: false
  - name: binpack
    arguments:
      binpack.weight: 10
      binpack.cpu: 2.5
      binpack.resources: "nvidia.com/gpu"
      quoted: "10"
      nested:
        on: true
configurations:
- name: preempt
  arguments:
    enableTopologyAwarePreemption: true
)");
  SchedulerConfig c = load_config(f, {"/default/plugins"});
  EXPECT_EQ(c.actions, (std::vector<std::string>{"enqueue", "allocate", "backfill", "preempt"}));
  ASSERT_EQ(c.tiers.size(), 2u);
  ASSERT_EQ(c.tiers[0].plugins.size(), 2u);
  const PluginConfig& gang = c.tiers[0].plugins[1];
  EXPECT_EQ(gang.name, "gang");
  EXPECT_FALSE(gang.points.has(Point::Preemptable));
  EXPECT_TRUE(gang.points.has(Point::JobStarving));
  const PluginConfig& drf = c.tiers[1].plugins[0];
  EXPECT_TRUE(drf.hierarchy);
  EXPECT_FALSE(drf.points.has(Point::Preemptable));
  EXPECT_FALSE(drf.points.has(Point::JobOrder));
  EXPECT_TRUE(drf.points.has(Point::QueueOrder));
  const ArgMap& a = c.tiers[1].plugins[1].arguments;
  EXPECT_EQ(std::get<int64_t>(a.at("binpack.weight").value), 10);
  EXPECT_EQ(std::get<double>(a.at("binpack.cpu").value), 2.5);
  EXPECT_EQ(std::get<std::string>(a.at("binpack.resources").value), "nvidia.com/gpu");
  EXPECT_EQ(std::get<std::string>(a.at("quoted").value), "10");  // quoted stays a string
  EXPECT_EQ(std::get<bool>(a.at("nested.on").value), true);
  // Positions are the YAML file's: binpack.weight's value is on line 16, column 23.
  EXPECT_EQ(a.at("binpack.weight").src.str(), f.string() + ":16:23");
  EXPECT_EQ(c.tiers[1].plugins[1].src.line, 14);
  EXPECT_EQ(std::get<bool>(c.action_arguments.at("preempt").at("enableTopologyAwarePreemption").value),
            true);
}

// A YAML list of names as an argument (extender.managedResources) becomes one
// comma-separated string; a list of maps is refused at its line.
TEST_F(ConfigTest, VolcanoYamlListArgumentIsOneString) {
  const fs::path f = write("volcano.conf",
                           "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
                           "    arguments:\n      names:\n      - nvidia.com/gpu\n"
                           "      - nvidia.com/gpumem\n      none: []\n");
  std::ifstream in(f);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string toml = volcano_yaml_to_toml(text, f);
  EXPECT_NE(toml.find("\"names\" = \"nvidia.com/gpu,nvidia.com/gpumem\""), std::string::npos) << toml;
  EXPECT_NE(toml.find("\"none\" = \"\""), std::string::npos) << toml;
  const fs::path g = write("volcano2.conf",
                           "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
                           "    arguments:\n      names:\n      - a: 1\n");
  std::string e = input_error_of([&] { load_config(g, {"/p"}); });
  EXPECT_NE(e.find("volcano2.conf:7:7: tiers[0].plugins[0].arguments.names: a list of lists or "
                   "maps; expected a boolean, a number, a string, a list of strings or a map of "
                   "them"),
            std::string::npos)
      << e;
}

// YAML or TOML, by content: the first line that says something.
TEST(VolcanoYaml, RecognisedByContent) {
  EXPECT_TRUE(looks_like_volcano_yaml("# volcano\n\nactions: \"allocate\"\n"));
  EXPECT_TRUE(looks_like_volcano_yaml("---\ntiers:\n- plugins: []\n"));
  EXPECT_FALSE(looks_like_volcano_yaml("# caldera\n[scheduler]\nactions = []\n"));
  EXPECT_FALSE(looks_like_volcano_yaml("name = \"x\"\n"));
  EXPECT_FALSE(looks_like_volcano_yaml("\n# only comments\n"));
}

// An action twice would run twice per session: refused at the second, naming the first.
TEST_F(ConfigTest, AnActionTwiceIsRefused) {
  EXPECT_EQ(error_of("[scheduler]\nactions = [\"allocate\", \"backfill\", \"allocate\"]\n"),
            file() + ":2:36: scheduler.actions[2]: action 'allocate' is already in the list, at " +
                file() + ":2:12; expected each action once");
}

TEST_F(ConfigTest, VolcanoYamlErrorsNameTheYamlPosition) {
  auto err = [&](const std::string& text) {
    const fs::path f = write("volcano.conf", text);
    std::string e = input_error_of([&] { load_config(f, {"/p"}); });
    return e.substr(e.find("volcano.conf"));
  };
  EXPECT_EQ(err("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n    enableJobStarvng: false\n")
                .substr(0, 105),
            "volcano.conf:5:5: tiers[0].plugins[0]: unknown key 'enableJobStarvng' (did you mean "
            "'enableJobStarving'?)");
  EXPECT_EQ(err("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n    enableTargetJob: false\n"),
            "volcano.conf:5:5: tiers[0].plugins[0]: 'enableTargetJob: false' switches off an "
            "extension point Caldera does not have; expected the switch left out");
  EXPECT_EQ(err("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n    enablePredicate: maybe\n"),
            "volcano.conf:5:22: tiers[0].plugins[0].enablePredicate: not a boolean; expected true or false");
  EXPECT_EQ(err("actions: [a\n"), "volcano.conf:2:1: YAML syntax error: end of sequence flow not found");
  // A problem the TOML parser finds is reported at the YAML line it came from.
  EXPECT_EQ(err("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n  - name: gang\n")
                .substr(0, 30),
            "volcano.conf:5:5: tiers[0].plu");
}

}  // namespace
}  // namespace caldera
