// The TOML reading layer (host/toml/): one test per kind of error, each with its exact
// text in the format host/toml/reader.hpp documents,
//   FILE:LINE:COLUMN: OBJECT: PROBLEM; expected EXPECTED
// and the helpers the readers share (paths, spelling, quantities, durations).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "host/model/quantity.hpp"
#include "host/toml/duration.hpp"
#include "host/toml/quantity.hpp"
#include "host/toml/reader.hpp"
#include "host/util/spelling.hpp"
#include "tests/unit/test_support.hpp"

namespace caldera::input {
namespace {

namespace fs = std::filesystem;
using caldera::testing::input_error_of;

// Parses `text` as the file "f.toml" (not read from disk) and runs `f` on its top table.
std::string read_error(const std::string& text, const std::function<void(const Table&)>& f) {
  return input_error_of([&] {
    Document doc = parse_text(text, "f.toml");
    f(doc.table());
  });
}

class TomlFiles : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    return scratch_.write(name, text);
  }
  const caldera::testing::ScratchDir scratch_{"toml-test"};
  const fs::path dir_ = scratch_.path();
};

// --- the format itself -------------------------------------------------------------------

TEST(TomlErrorText, PartsAndTheirSeparators) {
  EXPECT_EQ(error_text(SourceRef{"a.toml", 3, 7}, "nodes[0] (n1).ready", "got a string",
                       "true or false"),
            "a.toml:3:7: nodes[0] (n1).ready: got a string; expected true or false");
  // No object (the top-level table), no expectation, no line: each left out with its separator.
  EXPECT_EQ(error_text(SourceRef{"a.toml", 1, 1}, "", "no scheduler config", "a [config] table"),
            "a.toml:1:1: no scheduler config; expected a [config] table");
  EXPECT_EQ(error_text(SourceRef{"a.toml", 2, 4}, "hypernodes[0] (s0)", "a cycle: a -> b -> a"),
            "a.toml:2:4: hypernodes[0] (s0): a cycle: a -> b -> a");
  EXPECT_EQ(error_text(SourceRef{"a.toml", 0, 0}, "", "cannot read the config: no such file"),
            "a.toml: cannot read the config: no such file");
}

TEST(TomlPaths, KeysIndexesAndNames) {
  EXPECT_EQ(child_path("", "nodes"), "nodes");
  EXPECT_EQ(child_path("nodes[2] (n3)", "allocatable"), "nodes[2] (n3).allocatable");
  EXPECT_EQ(child_path("pods[0]", "nvidia.com/gpu"), "pods[0].\"nvidia.com/gpu\"");
  EXPECT_EQ(child_path("a", "say \"hi\""), "a.\"say \\\"hi\\\"\"");
  EXPECT_EQ(child_path("a", ""), "a.\"\"");
  EXPECT_EQ(child_path("a", "min_member-2"), "a.min_member-2");
  EXPECT_EQ(index_path("tiers", 1), "tiers[1]");
  EXPECT_EQ(named_path("pods[0]", "c1/p1"), "pods[0] (c1/p1)");
}

// The paths the readers keep as steps write the text the functions above give.
TEST(TomlPaths, KeptAsSteps) {
  const ObjectPath top;
  EXPECT_TRUE(top.empty());
  EXPECT_EQ(top.str(), "");
  EXPECT_EQ(top.key("nodes").str(), "nodes");
  const ObjectPath pod = top.key("pods").index(0).named("c1/p1");
  EXPECT_FALSE(pod.empty());
  EXPECT_EQ(pod.str(), "pods[0] (c1/p1)");
  EXPECT_EQ(pod.key("requests").key("nvidia.com/gpu").str(),
            "pods[0] (c1/p1).requests.\"nvidia.com/gpu\"");
  EXPECT_EQ(pod.named("again").key("x").str(), "pods[0] (c1/p1) (again).x");
  EXPECT_EQ(top.key("").str(), "\"\"");
  const ObjectPath config("config");
  EXPECT_FALSE(config.empty());
  const ObjectPath plugin = config.key("tiers").index(1).key("plugins").index(0);
  EXPECT_EQ(plugin.named("binpack").key("arguments").str(),
            "config.tiers[1].plugins[0] (binpack).arguments");
  EXPECT_TRUE(ObjectPath("").empty());
  EXPECT_EQ(ObjectPath("").key("scheduler").str(), "scheduler");
}

TEST(TomlSpelling, CloseWordsOnly) {
  EXPECT_EQ(spelling_distance("nmae", "name"), 1u);  // a swap is one edit
  EXPECT_EQ(spelling_distance("wieght", "weight"), 1u);
  EXPECT_EQ(spelling_distance("", "abc"), 3u);
  EXPECT_EQ(spelling_distance("kitten", "sitting"), 3u);
  const std::vector<std::string> keys = {"name", "namespace", "queue", "arrival"};
  EXPECT_EQ(closest_word("nmae", keys), "name");
  EXPECT_EQ(closest_word("arival", keys), "arrival");
  EXPECT_EQ(closest_word("quxxe", keys), "");   // two edits in five letters: too far
  EXPECT_EQ(closest_word("name", keys), "");    // known: nothing to suggest
  EXPECT_EQ(closest_word("x", {"y", "z"}), "y");  // one letter may always differ; first wins
  EXPECT_EQ(did_you_mean("nmae", keys), " (did you mean 'name'?)");
  EXPECT_EQ(did_you_mean("zzzz", keys), "");
}

// --- files -------------------------------------------------------------------------------

TEST_F(TomlFiles, MissingFile) {
  fs::path p = dir_ / "none.toml";
  EXPECT_EQ(input_error_of([&] { parse_file(p, "scenario"); }),
            p.string() + ": cannot read the scenario: no such file");
}

TEST_F(TomlFiles, AFolderIsNotAFile) {
  EXPECT_EQ(input_error_of([&] { parse_file(dir_, "config"); }),
            dir_.string() + ": cannot read the config: it is a folder; expected a regular file");
}

TEST_F(TomlFiles, NotARegularFile) {
  fs::path fifo = dir_ / "fifo.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(input_error_of([&] { parse_file(fifo, "workload"); }),
            fifo.string() + ": cannot read the workload: it is not a regular file; expected a "
                            "regular file");
}

// A device is refused on its descriptor, never read: /dev/zero would never end. So is a
// link to a FIFO, which a check of the path's name alone would let through to a blocking
// open.
TEST_F(TomlFiles, DevicesAndLinksToFifosAreRefusedWithoutReading) {
  EXPECT_EQ(input_error_of([&] { read_text("/dev/zero", "config"); }),
            "/dev/zero: cannot read the config: it is not a regular file; expected a regular file");
  fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::path link = dir_ / "caldera.toml";
  fs::create_symlink(fifo, link);
  EXPECT_EQ(input_error_of([&] { read_text(link, "config"); }),
            link.string() + ": cannot read the config: it is not a regular file; expected a "
                            "regular file");
}

TEST_F(TomlFiles, SizeLimit) {
  fs::path p = write("big.toml", "name = \"0123456789\"\n");  // 20 bytes
  EXPECT_EQ(input_error_of([&] { parse_file(p, "cluster file", 19); }),
            p.string() + ": cannot read the cluster file: it is 20 bytes; expected at most 19 bytes");
  EXPECT_EQ(parse_file(p, "cluster file", 20).table().opt_string("name"), "0123456789");
  EXPECT_EQ(read_text(p, "x"), "name = \"0123456789\"\n");
}

TEST_F(TomlFiles, SyntaxErrorAtItsPosition) {
  fs::path p = write("bad.toml", "a = 1\nb = = 2\n");
  std::string e = input_error_of([&] { parse_file(p, "scenario"); });
  EXPECT_EQ(e.rfind(p.string() + ":2:5: TOML syntax error: ", 0), 0u) << e;
}

TEST_F(TomlFiles, ViewsKnowTheirFile) {
  fs::path p = write("ok.toml", "[[nodes]]\nname = \"n1\"\n");
  Document doc = parse_file(p, "cluster file");
  std::vector<Table> nodes = doc.table().tables("nodes");
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].path(), "nodes[0]");
  EXPECT_EQ(nodes[0].src().str(), p.string() + ":1:1");
  EXPECT_EQ(nodes[0].get("name")->src().str(), p.string() + ":2:8");
  EXPECT_EQ(nodes[0].named("n1").get("name")->path(), "nodes[0] (n1).name");
}

// --- values of the wrong type ------------------------------------------------------------

TEST(TomlTypes, EachGetterNamesTheTypeItGotAndWanted) {
  const std::string text =
      "s = 1\nb = \"yes\"\ni = 1.5\nn = \"2\"\nt = []\na = {}\nl = [\"x\", 2]\nd = 1979-05-27\n";
  auto get = [&](const std::string& key, const std::function<void(const Value&)>& f) {
    return read_error(text, [&](const Table& t) { f(*t.get(key)); });
  };
  EXPECT_EQ(get("s", [](const Value& v) { v.string(); }), "f.toml:1:5: s: got an integer; expected a string");
  EXPECT_EQ(get("s", [](const Value& v) { v.string("a node name"); }),
            "f.toml:1:5: s: got an integer; expected a node name");
  EXPECT_EQ(get("b", [](const Value& v) { v.boolean(); }),
            "f.toml:2:5: b: got a string; expected true or false");
  EXPECT_EQ(get("i", [](const Value& v) { v.integer(0, 10); }),
            "f.toml:3:5: i: got a float; expected an integer from 0 to 10");
  EXPECT_EQ(get("n", [](const Value& v) { v.number(); }), "f.toml:4:5: n: got a string; expected a number");
  EXPECT_EQ(get("t", [](const Value& v) { v.table(); }), "f.toml:5:5: t: got an array; expected a table");
  EXPECT_EQ(get("a", [](const Value& v) { v.array(); }), "f.toml:6:5: a: got a table; expected an array");
  EXPECT_EQ(get("l", [](const Value& v) { v.strings(); }),
            "f.toml:7:11: l[1]: got an integer; expected a string");
  EXPECT_EQ(get("d", [](const Value& v) { v.string(); }), "f.toml:8:5: d: got a date; expected a string");
}

TEST(TomlTypes, ArraysOfTables) {
  EXPECT_EQ(read_error("pods = \"p\"\n", [](const Table& t) { t.tables("pods"); }),
            "f.toml:1:8: pods: got a string; expected an array of tables ([[pods]])");
  EXPECT_EQ(read_error("pods = [{ name = \"a\" }, 3]\n", [](const Table& t) { t.tables("pods"); }),
            "f.toml:1:25: pods[1]: got an integer; expected a table");
  EXPECT_TRUE(read_error("", [](const Table& t) { EXPECT_TRUE(t.tables("pods").empty()); }).empty());
}

TEST(TomlTypes, TablesOfStrings) {
  EXPECT_EQ(read_error("[[pods]]\nlabels = { \"volcano.sh/x\" = true }\n",
                       [](const Table& t) { t.tables("pods")[0].string_map("labels"); }),
            "f.toml:2:29: pods[0].labels.\"volcano.sh/x\": got a boolean; expected a string (write "
            "it in quotes)");
  EXPECT_EQ(read_error("labels = [\"a\"]\n", [](const Table& t) { t.string_map("labels"); }),
            "f.toml:1:10: labels: got an array; expected a table of strings");
}

// --- values out of range -----------------------------------------------------------------

TEST(TomlRanges, IntegersAndNumbers) {
  auto at = [](const std::string& text, int64_t lo, int64_t hi) {
    return read_error(text, [&](const Table& t) { t.opt_int("n", lo, hi); });
  };
  EXPECT_EQ(at("n = 0\n", 1, 100000), "f.toml:1:5: n: 0 is out of range; expected an integer from 1 to 100000");
  // An upper bound of INT32_MAX says "fits in 32 bits" and is not spelt out.
  EXPECT_EQ(at("n = -1\n", 0, std::numeric_limits<int32_t>::max()),
            "f.toml:1:5: n: -1 is out of range; expected an integer of at least 0");
  EXPECT_EQ(at("n = 3000000000\n", std::numeric_limits<int32_t>::min(),
                std::numeric_limits<int32_t>::max()),
            "f.toml:1:5: n: 3000000000 is out of range; expected an integer from -2147483648 to "
            "2147483647");
  EXPECT_EQ(at("n = 9\n", std::numeric_limits<int64_t>::min(), 5),
            "f.toml:1:5: n: 9 is out of range; expected an integer of at most 5");
  EXPECT_EQ(read_error("n = inf\n", [](const Table& t) { t.opt_number("n"); }),
            "f.toml:1:5: n: inf is not finite; expected a number, finite");
  EXPECT_EQ(read_error("n = nan\n", [](const Table& t) { t.get("n")->number("a weight"); }),
            "f.toml:1:5: n: nan is not finite; expected a weight, finite");
}

// --- keys --------------------------------------------------------------------------------

TEST(TomlKeys, UnknownKeysListTheAllowedOnesAtTheKey) {
  EXPECT_EQ(read_error("[[nodes]]\nname = \"n1\"\nalocatable = {}\n",
                       [](const Table& t) {
                         t.tables("nodes")[0].named("n1").check_keys({"name", "allocatable", "labels"});
                       }),
            "f.toml:3:1: nodes[0] (n1): unknown key 'alocatable' (did you mean 'allocatable'?); "
            "expected one of the allowed keys: name, allocatable, labels");
  // No close spelling: no suggestion.
  EXPECT_EQ(read_error("[a]\nzzz = 1\n", [](const Table& t) { t.get("a")->table().check_keys({"x", "y"}); }),
            "f.toml:2:1: a: unknown key 'zzz'; expected one of the allowed keys: x, y");
  // At the top of the file the object is left out and the key called top-level.
  EXPECT_EQ(read_error("\nnmae = 1\n", [](const Table& t) { t.check_keys({"name", "pods"}); }),
            "f.toml:2:1: unknown top-level key 'nmae' (did you mean 'name'?); expected one of the "
            "allowed keys: name, pods");
  // A quoted key is quoted in the message as in the path.
  EXPECT_EQ(read_error("x = { \"a.b\" = 1 }\n",
                       [](const Table& t) { t.get("x")->table().check_keys({"cpu"}); }),
            "f.toml:1:7: x: unknown key 'a.b'; expected one of the allowed keys: cpu");
}

TEST(TomlKeys, MissingKeysPointAtTheTable) {
  EXPECT_EQ(read_error("[[pods]]\nnamespace = \"c1\"\n",
                       [](const Table& t) { t.tables("pods")[0].require("name", "a pod name"); }),
            "f.toml:1:1: pods[0]: missing key 'name'; expected a pod name");
  EXPECT_EQ(read_error("x = 1\nt = { a = 1 }\n",
                       [](const Table& t) { t.get("t")->table().require("b", "an integer"); }),
            "f.toml:2:5: t: missing key 'b'; expected an integer");
  EXPECT_EQ(read_error("# nothing\n", [](const Table& t) { t.require("config", "a [config] table"); }),
            "f.toml:1:1: missing top-level key 'config'; expected a [config] table");
}

// --- choices -----------------------------------------------------------------------------

TEST(TomlChoices, UnknownValuesListTheChoices) {
  const Choices<int> phases = {{"Pending", 0}, {"Running", 1}, {"Failed", 2}};
  auto phase = [&](const std::string& text) {
    return read_error(text, [&](const Table& t) { t.opt_choice("phase", phases, "phase"); });
  };
  EXPECT_EQ(phase("phase = \"Runing\"\n"),
            "f.toml:1:9: phase: unknown phase 'Runing' (did you mean 'Running'?); expected one of "
            "Pending, Running, Failed");
  EXPECT_EQ(phase("phase = \"Done\"\n"),
            "f.toml:1:9: phase: unknown phase 'Done'; expected one of Pending, Running, Failed");
  EXPECT_EQ(phase("phase = 1\n"), "f.toml:1:9: phase: got an integer; expected one of Pending, Running, Failed");
  Document doc = parse_text("phase = \"Failed\"\n", "f.toml");
  EXPECT_EQ(doc.table().opt_choice("phase", phases), 2);
  EXPECT_EQ(doc.table().opt_choice("other", phases), std::nullopt);
}

// --- quantities and durations -------------------------------------------------------------

TEST(TomlQuantities, EveryWayToBeWrong) {
  auto req = [](const std::string& text) {
    return read_error(text, [](const Table& t) { resource_list(*t.get("requests"), resource_amount); });
  };
  const std::string q = "expected a quantity such as \"2\", \"500m\", \"4Gi\", \"1G\" or \"1e3\" (a "
                        "string or a number)";
  EXPECT_EQ(req("requests = { memory = \"4GB\" }\n"),
            "f.toml:1:23: requests.memory: '4GB' is not a quantity; " + q);
  EXPECT_EQ(req("requests = { cpu = true }\n"), "f.toml:1:20: requests.cpu: got a boolean; " + q);
  EXPECT_EQ(req("requests = { cpu = -inf }\n"), "f.toml:1:20: requests.cpu: -inf is not finite; " + q);
  EXPECT_EQ(req("requests = { cpu = \"-1\" }\n"),
            "f.toml:1:20: requests.cpu: '-1' is negative; expected a quantity of zero or more");
  EXPECT_EQ(req("requests = { \"\" = 1 }\n"),
            "f.toml:1:14: requests: empty resource name; expected a resource name such as cpu, "
            "memory or nvidia.com/gpu");
  EXPECT_EQ(req("requests = \"2\"\n"),
            "f.toml:1:12: requests: got a string; expected a table of quantities by resource name");

  Document doc = parse_text(
      "requests = { cpu = \"500m\", memory = 1073741824, \"nvidia.com/gpu\" = 0.5 }\n", "f.toml");
  std::map<std::string, double> r = resource_list(*doc.table().get("requests"), resource_amount);
  EXPECT_EQ(r.at("cpu"), 500);
  EXPECT_EQ(r.at("memory"), 1073741824.0);
  EXPECT_EQ(r.at("nvidia.com/gpu"), 500);
}

TEST(TomlDurations, StringsOrSeconds) {
  auto secs = [](const std::string& text, DurationMin min) {
    return read_error(text, [&](const Table& t) { seconds(*t.get("d"), min); });
  };
  const std::string d = "expected a duration such as \"1s\", \"500ms\" or \"1m30s\", or a number of seconds";
  EXPECT_EQ(secs("d = \"soon\"\n", DurationMin::Positive), "f.toml:1:5: d: 'soon' is not a duration; " + d);
  EXPECT_EQ(secs("d = [1]\n", DurationMin::Positive), "f.toml:1:5: d: got an array; " + d);
  EXPECT_EQ(secs("d = \"0s\"\n", DurationMin::Positive),
            "f.toml:1:5: d: '0s' is out of range; expected a positive duration");
  EXPECT_EQ(secs("d = -1.5\n", DurationMin::ZeroOrMore),
            "f.toml:1:5: d: -1.5 is out of range; expected a duration of zero or more");
  EXPECT_EQ(secs("d = 0\n", DurationMin::ZeroOrMore), "");

  Document doc = parse_text("a = \"1m30s\"\nb = 2\nc = 0.25\n", "f.toml");
  EXPECT_EQ(seconds(*doc.table().get("a"), DurationMin::Positive), 90);
  EXPECT_EQ(seconds(*doc.table().get("b"), DurationMin::Positive), 2);
  EXPECT_EQ(seconds(*doc.table().get("c"), DurationMin::Positive), 0.25);
}

// A table parsed elsewhere (a scenario's [config]) keeps its place in the file in paths.
TEST(TomlTables, ATableHandedOnKeepsItsPath) {
  toml::table root = toml::parse(std::string_view("[config.scheduler]\nperiod = true\n"), std::string_view("s.toml"));
  Table cfg(*root["config"].as_table(), "s.toml", "config");
  EXPECT_EQ(input_error_of([&] { cfg.get("scheduler")->table().get("period")->string(); }),
            "s.toml:2:10: config.scheduler.period: got a boolean; expected a string");
  std::vector<Entry> entries = cfg.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].key, "scheduler");
  EXPECT_EQ(entries[0].value.path(), "config.scheduler");
}

}  // namespace
}  // namespace caldera::input
