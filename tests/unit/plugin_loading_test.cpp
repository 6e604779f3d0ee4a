// Tests of plugin loading (host/plugins/plugin_library.cpp), the catalog of plugin folders,
// building a policy (host/plugins/policy.cpp) and the plugin commands of the CLI. The test
// plugins are in tests/plugins/ (built into CALDERA_TEST_PLUGIN_DIR).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "host/cache/cache.hpp"
#include "host/cli/commands.hpp"
#include "host/config/config.hpp"
#include "host/config/volcano_yaml.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/plugins/policy.hpp"
#include "host/session/session.hpp"
#include "host/toml/tomlpp.hpp"
#include "host/util/sha256.hpp"
#include "host/session/runtime.hpp"

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include "tests/unit/test_support.hpp"
#include "tests/unit/session_helpers.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;

const fs::path kTestPlugins = CALDERA_TEST_PLUGIN_DIR;

fs::path plugin(const std::string& name) { return kTestPlugins / (name + ".so"); }

using caldera::testing::contains;

class PluginLoading : public ::testing::Test {
 protected:
  // Copies test plugin `name` into `folder` (under the temp dir) as `as` (default: same).
  fs::path put(const std::string& name, const std::string& folder = "p", std::string as = "") {
    fs::path to = dir_ / folder / (as.empty() ? name + ".so" : as);
    fs::create_directories(to.parent_path());
    fs::copy_file(plugin(name), to, fs::copy_options::overwrite_existing);
    return to;
  }
  std::string load_error(const fs::path& file) {
    try {
      PluginFile::read(file);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  const caldera::testing::ScratchDir scratch_{"plugin-test"};
  const fs::path dir_ = scratch_.path();
};

PointSet points(std::initializer_list<Point> ps) {
  PointSet s = PointSet::none();
  for (Point p : ps) s.add(p);
  return s;
}

TEST_F(PluginLoading, CPluginDescriptorIsRead) {
  auto lib = PluginFile::read(plugin("testc"));
  const PluginInfo& i = lib->info();
  EXPECT_EQ(i.name, "testc");
  EXPECT_EQ(i.version, "1.2.3");
  EXPECT_EQ(i.description, "test plugin written in C");
  EXPECT_EQ(i.abi_version, CAL_ABI_VERSION);
  EXPECT_EQ(i.file, plugin("testc"));
  // pre_predicate alone is the predicate point; job_enqueued alone is job_enqueueable.
  EXPECT_EQ(i.implemented, points({Point::JobOrder, Point::Predicate, Point::NodeOrder,
                                   Point::JobEnqueueable}));
  EXPECT_EQ(i.sha256, sha256_file(plugin("testc")));
  struct stat st;
  ASSERT_EQ(::stat(plugin("testc").c_str(), &st), 0);
  EXPECT_EQ(i.stamp.inode, static_cast<uint64_t>(st.st_ino));
  EXPECT_EQ(i.stamp.size, static_cast<uint64_t>(st.st_size));
  ASSERT_EQ(i.options.size(), 7u);
  EXPECT_STREQ(i.options[0].name, "testc.weight");
  EXPECT_EQ(i.options[0].type, CAL_OPT_INT);
  EXPECT_STREQ(i.options[0].default_value, "2");
  EXPECT_STREQ(i.options[6].name, "testc.resources.*");
  EXPECT_EQ(i.options[6].default_value, nullptr);
  ASSERT_NE(lib->descriptor(), nullptr);
  EXPECT_EQ(lib->descriptor()->capabilities, CAL_CAP_NODE_PARALLEL);
  EXPECT_NE(lib->descriptor()->open, nullptr);
}

// sshd's StrictModes for plugin code: a file or folder writable by its group or others,
// or reached through a link to one, is refused with why; the other files of the folder
// still load.
TEST_F(PluginLoading, WritableByOthersIsRefused) {
  const fs::path good = put("testc");
  const fs::path loose = put("testcpp");
  fs::permissions(loose, static_cast<fs::perms>(0646), fs::perm_options::replace);
  PluginCatalog cat = PluginCatalog::scan({dir_ / "p"});
  EXPECT_NE(cat.find("testc"), nullptr);
  EXPECT_EQ(cat.find("testcpp"), nullptr);
  ASSERT_EQ(cat.failures().size(), 1u);
  EXPECT_EQ(cat.failures()[0].error,
            loose.string() + ": refused: " + loose.string() +
                " is writable by others (mode 0646); plugins and their folders must be "
                "writable by their owner only");

  // A link to a group-writable file, from a folder of its own.
  const fs::path target = put("testcpp", "elsewhere");
  fs::permissions(target, fs::perms::group_write, fs::perm_options::add);
  fs::create_directories(dir_ / "q");
  fs::create_symlink(target, dir_ / "q" / "linked.so");
  cat = PluginCatalog::scan({dir_ / "q"});
  ASSERT_EQ(cat.failures().size(), 1u);
  EXPECT_NE(cat.failures()[0].error.find(": refused: its link target " + target.string() +
                                          " is writable by its group"),
            std::string::npos)
      << cat.failures()[0].error;

  // A folder anyone may write to.
  fs::permissions(dir_ / "p", fs::perms::others_write | fs::perms::others_exec,
                  fs::perm_options::add);
  try {
    PluginCatalog::scan({dir_ / "p"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(": plugin folder refused: " + (dir_ / "p").string() +
                                         " is writable by others"),
              std::string::npos)
        << e.what();
  }
  (void)good;
}

TEST_F(PluginLoading, CAndCppPluginsSideBySide) {
  auto c = PluginFile::read(plugin("testc"));
  auto cpp = PluginFile::read(plugin("testcpp"));
  EXPECT_EQ(c->info().name, "testc");
  EXPECT_EQ(cpp->info().name, "testcpp");
  EXPECT_EQ(cpp->info().version, "0.9.0");
  // batch_node_order alone is the node_order point.
  EXPECT_EQ(cpp->info().implemented, points({Point::TaskOrder, Point::NodeOrder, Point::Preemptable}));
  ASSERT_EQ(cpp->info().options.size(), 2u);
  EXPECT_STREQ(cpp->info().options[0].name, "testcpp.factor");
  EXPECT_EQ(cpp->info().options[0].type, CAL_OPT_DOUBLE);
  EXPECT_NE(cpp->descriptor()->batch_node_order, nullptr);
  EXPECT_EQ(cpp->descriptor()->node_order, nullptr);
  EXPECT_NE(c->descriptor(), static_cast<const cal_plugin*>(cpp->descriptor()));
}

// Each read is a library of its own (its own sealed memfd), so a replaced file loads anew
// while the old library stays valid for whoever still holds it.
TEST_F(PluginLoading, ReplacedFileLoadsAsANewLibrary) {
  fs::path f = put("testc", "p", "x.so");
  auto first = PluginFile::read(f);
  auto again = PluginFile::read(f);
  EXPECT_NE(first->descriptor(), again->descriptor());

  // Replace the file with another build (different version) at the same path.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs::remove(f);
  fs::copy_file(kTestPlugins / "dup" / "dup_testc.so", f);
  auto replaced = PluginFile::read(f);
  EXPECT_EQ(replaced->info().version, "9.9.9");
  EXPECT_NE(replaced->info().stamp, first->info().stamp);
  EXPECT_NE(replaced->info().sha256, first->info().sha256);
  // The old library is untouched: its descriptor still reads.
  EXPECT_STREQ(first->descriptor()->version, "1.2.3");
  EXPECT_EQ(first->info().version, "1.2.3");
}

// Mappings of plugin code in this process (the memfds' names in /proc/self/maps).
size_t plugin_code_mapped() {
  std::ifstream maps("/proc/self/maps");
  size_t n = 0;
  for (std::string line; std::getline(maps, line);)
    if (contains(line, "memfd:caldera-plugin:")) ++n;
  return n;
}

// Reading and scanning run no plugin code in the calling process: the inspection is done
// in a child, so a constructor that crashes or an entry point that exits fails that file
// alone, with what happened; the code is mapped here only once descriptor() asks for it.
TEST_F(PluginLoading, InspectionRunsNoPluginCodeHere) {
  put("testc");
  put("ctor_crash");
  put("entry_exit");
  const size_t before = plugin_code_mapped();
  PluginCatalog cat = PluginCatalog::scan({dir_ / "p"});
  ASSERT_EQ(cat.plugins().size(), 1u);
  ASSERT_EQ(cat.failures().size(), 2u);
  EXPECT_EQ(cat.failures()[0].error,
            (dir_ / "p" / "ctor_crash.so").string() +
                ": not a caldera plugin (loading it crashed with SIGSEGV, in its constructors or "
                "entry point)");
  // (The status is 0, or LeakSanitizer's 23 under scripts/test --sanitize: exit() runs its
  // leak check in the child.)
  EXPECT_EQ(cat.failures()[1].error.rfind(
                (dir_ / "p" / "entry_exit.so").string() +
                    ": not a caldera plugin (loading it ended the process: exited with status ",
                0),
            0u)
      << cat.failures()[1].error;
  EXPECT_TRUE(contains(cat.failures()[1].error, ", in its constructors or entry point)"))
      << cat.failures()[1].error;
  const auto testc = cat.find("testc");
  EXPECT_EQ(testc->info().version, "1.2.3");
  EXPECT_FALSE(testc->loaded_here());
  EXPECT_EQ(plugin_code_mapped(), before);
  ASSERT_NE(testc->descriptor(), nullptr);
  EXPECT_TRUE(testc->loaded_here());
  EXPECT_GT(plugin_code_mapped(), before);
  EXPECT_STREQ(testc->descriptor()->name, "testc");
}

TEST_F(PluginLoading, OneZeroDescriptorsLoad) {
  // A descriptor as the 1.0 header built it: stamped 1.0, sizeof(cal_plugin) (384 bytes at
  // 1.0 too). The host keeps the bytes 1.0 defines.
  auto lib = PluginFile::read(plugin("v1_0"));
  EXPECT_EQ(lib->info().name, "v1_0");
  EXPECT_EQ(lib->info().abi_version, 1u << 16);
  EXPECT_EQ(lib->descriptor()->struct_size, CAL_PLUGIN_V1_0_SIZE);
  EXPECT_EQ(lib->info().implemented, points({Point::JobOrder}));
  // One that ends at its last 1.0 slot, the smallest descriptor accepted.
  auto short_lib = PluginFile::read(plugin("v1_0_short"));
  EXPECT_EQ(short_lib->descriptor()->struct_size, CAL_PLUGIN_V1_0_SIZE);
  EXPECT_EQ(short_lib->info().implemented, points({Point::JobOrder}));
}

// A plugin stamped 1.0 whose descriptor also sets the 1.1 slots (its struct_size reaches
// them): the host ignores them, as a 1.0 host did. The same descriptor stamped 1.1 has them.
TEST_F(PluginLoading, OneOneSlotsOfAOneZeroPluginAreIgnored) {
  auto old_lib = PluginFile::read(plugin("v1_0_sets_1_1"));
  EXPECT_EQ(old_lib->info().implemented,
            points({Point::JobOrder, Point::Predicate, Point::NodeOrder}));
  const cal_plugin* d = old_lib->descriptor();
  EXPECT_NE(d->predicate, nullptr);
  EXPECT_NE(d->node_order, nullptr);
  EXPECT_EQ(d->predicate_many, nullptr);
  EXPECT_EQ(d->node_order_many, nullptr);
  EXPECT_EQ(d->hyper_node_order, nullptr);
  EXPECT_FALSE(CAL_PLUGIN_HAS(d, predicate_many));

  auto new_lib = PluginFile::read(plugin("v1_1_sets_1_1"));
  EXPECT_EQ(new_lib->info().implemented, points({Point::JobOrder, Point::Predicate,
                                                 Point::NodeOrder, Point::HyperNodeOrder}));
  EXPECT_NE(new_lib->descriptor()->predicate_many, nullptr);
  EXPECT_EQ(new_lib->descriptor()->struct_size, CAL_PLUGIN_V1_1_SIZE);
}

TEST_F(PluginLoading, NonZeroReservedWordIsRefused) {
  std::string f = plugin("reserved").string();
  EXPECT_EQ(load_error(plugin("reserved")),
            f + ": plugin 'reserved' (ABI 1.1) has reserved word 2 of its descriptor set "
                "(cal_plugin.reserved[2], byte 344 of 384); reserved words must be zero: "
                "rebuild it against caldera-sdk " + std::to_string(CAL_ABI_MAJOR) + "." +
                std::to_string(CAL_ABI_MINOR) + " from an unmodified caldera/plugin.h, with "
                "the descriptor zeroed (memset or = {0}) and no slot newer than ABI 1.1");
  // A word past the descriptor's struct_size is not the plugin's: never read.
  EXPECT_EQ(load_error(plugin("reserved_past")), "");
}

TEST_F(PluginLoading, OpenAndCloseAreRequired) {
  EXPECT_EQ(load_error(plugin("no_open")),
            plugin("no_open").string() +
                ": plugin 'no_open' has no open or close function: a descriptor must set both "
                "open and close (caldera/plugin.h); rebuild it with them");
}

// "1.5": the host's ABI, as its messages write it.
const std::string kHostAbi = std::to_string(CAL_ABI_MAJOR) + "." + std::to_string(CAL_ABI_MINOR);

TEST_F(PluginLoading, NewerMinorIsRefused) {
  std::string f = plugin("newer_minor").string();
  EXPECT_EQ(load_error(plugin("newer_minor")),
            f + ": plugin 'newer_minor' was built for ABI 1.9 but this host speaks " + kHostAbi +
                ": rebuild it against caldera-sdk " + kHostAbi +
                " (or upgrade caldera to a release that speaks ABI 1.9)");
}

TEST_F(PluginLoading, OtherMajorIsRefused) {
  std::string f = plugin("other_major").string();
  EXPECT_EQ(load_error(plugin("other_major")),
            f + ": plugin 'other_major' was built for ABI 2.0 but this host speaks " + kHostAbi +
                ": rebuild "
                "it against caldera-sdk 1.x");
}

TEST_F(PluginLoading, NoEntrySymbol) {
  EXPECT_EQ(load_error(plugin("no_entry")),
            plugin("no_entry").string() + ": not a caldera plugin (no symbol caldera_plugin_entry)");
}

// dlopen maps a truncated file's missing pages and dies of SIGBUS on touching them; the
// loader must refuse such a file from its headers instead.
TEST_F(PluginLoading, TruncatedFiles) {
  const std::string prefix = ": not a caldera plugin (cannot load it as a shared object: file is truncated: ";
  fs::path f = put("testc", "p", "trunc.so");
  fs::resize_file(f, 1000);  // program headers intact, segments cut
  std::string e = load_error(f);
  EXPECT_EQ(e.rfind(f.string() + prefix + "segment ", 0), 0u) << e;
  EXPECT_TRUE(contains(e, ", the file has 1000)")) << e;
  // The message names the user's file, never the memfd.
  EXPECT_FALSE(contains(e, "/proc/self/fd")) << e;

  fs::path g = put("testc", "p", "tail.so");
  fs::resize_file(g, fs::file_size(g) - 64);  // only the section headers cut
  e = load_error(g);
  EXPECT_EQ(e, g.string() + prefix + "its section headers end past its " +
                   std::to_string(fs::file_size(g)) + " bytes)");

  fs::path h = put("testc", "p", "head.so");
  fs::resize_file(h, 40);
  EXPECT_EQ(load_error(h), h.string() + prefix + "40 bytes, less than an ELF header)");
}

TEST_F(PluginLoading, NotAnElfFile) {
  fs::create_directories(dir_ / "p");
  fs::path f = dir_ / "p" / "text.so";
  std::ofstream(f) << "not a shared object\n";
  EXPECT_EQ(load_error(f),
            f.string() + ": not a caldera plugin (cannot load it as a shared object: not an ELF file)");
}

// A shared object that needs a symbol nobody provides fails at load (RTLD_NOW), with
// dlopen's reason, instead of in the middle of a session.
TEST_F(PluginLoading, UnresolvedSymbolFailsAtLoad) {
  std::string e = load_error(plugin("unresolved"));
  EXPECT_EQ(e.rfind(plugin("unresolved").string() +
                        ": not a caldera plugin (cannot load it as a shared object: ", 0),
            0u) << e;
  EXPECT_TRUE(contains(e, "undefined symbol: caldera_test_missing_symbol")) << e;
  EXPECT_FALSE(contains(e, "/proc/self/fd")) << e;
}

TEST_F(PluginLoading, MissingFileOrFolder) {
  EXPECT_EQ(load_error(dir_ / "none.so"),
            (dir_ / "none.so").string() + ": cannot read: No such file or directory");
  fs::create_directories(dir_ / "d.so");
  EXPECT_EQ(load_error(dir_ / "d.so"),
            (dir_ / "d.so").string() + ": not a caldera plugin (not a regular file)");
}

TEST_F(PluginLoading, BadDescriptors) {
  EXPECT_EQ(load_error(plugin("null_entry")),
            plugin("null_entry").string() +
                ": the plugin refused to load (its entry point returned NULL)");
  EXPECT_EQ(load_error(plugin("no_name")),
            plugin("no_name").string() +
                ": the plugin's name '' is empty or not made of letters, digits, '-', '_' and '.'");
  EXPECT_EQ(load_error(plugin("bad_options")),
            plugin("bad_options").string() +
                ": plugin 'bad_options' has a malformed option table: option family 'x.*' "
                "declares a default; families have none");
  EXPECT_EQ(load_error(plugin("bad_default")),
            plugin("bad_default").string() +
                ": plugin 'bad_default' has a malformed option table: plugin 'bad_default': "
                "option 'x.count' declares the default 'ten', which is not an integer");
  EXPECT_EQ(load_error(plugin("small_desc")),
            plugin("small_desc").string() + ": the plugin descriptor is 16 bytes, less than the " +
                std::to_string(CAL_PLUGIN_V1_0_SIZE) +
                " of ABI 1.0: it was not built from caldera/plugin.h");
}

TEST_F(PluginLoading, CatalogScanSortsAndKeepsFailures) {
  put("testcpp");
  put("testc");
  put("no_entry");
  put("newer_minor");
  fs::create_directories(dir_ / "p" / "sub");  // folders are skipped
  std::ofstream(dir_ / "p" / "README") << "not a plugin";
  PluginCatalog cat = PluginCatalog::scan({dir_ / "p"});
  ASSERT_EQ(cat.plugins().size(), 2u);
  EXPECT_EQ(cat.plugins()[0]->info().name, "testc");
  EXPECT_EQ(cat.plugins()[1]->info().name, "testcpp");
  ASSERT_EQ(cat.failures().size(), 2u);
  EXPECT_EQ(cat.failures()[0].file, dir_ / "p" / "newer_minor.so");
  EXPECT_EQ(cat.failures()[1].file, dir_ / "p" / "no_entry.so");
  EXPECT_TRUE(contains(cat.failures()[1].error, "no symbol caldera_plugin_entry"));
  EXPECT_EQ(cat.find("testcpp"), cat.plugins()[1]);
  EXPECT_EQ(cat.find("nope"), nullptr);
}

TEST_F(PluginLoading, CatalogOfTheTestPluginFolder) {
  PluginCatalog cat = PluginCatalog::scan({kTestPlugins});
  std::vector<std::string> names;
  for (const auto& l : cat.plugins()) names.push_back(l->info().name);
  EXPECT_EQ(names, (std::vector<std::string>{"check_crash", "reserved_past", "testc", "testcpp",
                                              "testcpp_undeclared", "v1_0", "v1_0_sets_1_1",
                                              "v1_0_short", "v1_1_sets_1_1"}));
  std::vector<std::string> failed;
  for (const auto& f : cat.failures()) failed.push_back(f.file.filename().string());
  EXPECT_EQ(failed, (std::vector<std::string>{"bad_default.so", "bad_options.so", "ctor_crash.so",
                                              "entry_exit.so", "newer_minor.so",
                                              "no_entry.so", "no_name.so", "no_open.so",
                                              "null_entry.so", "other_major.so", "reserved.so",
                                              "small_desc.so", "unresolved.so"}));
}

TEST_F(PluginLoading, DuplicateNamesAreAnErrorNamingBothFiles) {
  try {
    PluginCatalog::scan({kTestPlugins, kTestPlugins / "dup"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "plugin 'testc' is provided by two files, " +
                                         plugin("testc").string() + " and " +
                                         (kTestPlugins / "dup" / "dup_testc.so").string() +
                                         ": remove one of them");
  }
  // One folder named twice is scanned once, not a duplicate.
  put("testc");
  EXPECT_EQ(PluginCatalog::scan({dir_ / "p", dir_ / "p" / "."}).plugins().size(), 1u);
}

TEST_F(PluginLoading, MissingFolderIsAnError) {
  try {
    PluginCatalog::scan({dir_ / "nowhere"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "nowhere").string() + ": plugin folder does not exist");
  }
}

TEST_F(PluginLoading, RescanReusesUnchangedLibraries) {
  fs::path c = put("testc");
  put("testcpp");
  PluginCatalog first = PluginCatalog::scan({dir_ / "p"});
  PluginCatalog second = PluginCatalog::scan({dir_ / "p"}, &first);
  EXPECT_EQ(second.find("testc"), first.find("testc"));
  EXPECT_EQ(second.find("testcpp"), first.find("testcpp"));
  // A changed file (new mtime) is loaded again.
  fs::last_write_time(c, fs::last_write_time(c) + std::chrono::seconds(5));
  PluginCatalog third = PluginCatalog::scan({dir_ / "p"}, &second);
  EXPECT_NE(third.find("testc"), second.find("testc"));
  EXPECT_EQ(third.find("testcpp"), second.find("testcpp"));
}

// ---------------------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------------------

class PolicyTest : public PluginLoading {
 protected:
  void SetUp() override {
    PluginLoading::SetUp();
    put("testc");
    put("testcpp");
    put("no_entry");
  }
  SchedulerConfig config(const std::string& text) {
    fs::path f = dir_ / "caldera.toml";
    std::ofstream(f) << "[scheduler]\nactions = [\"allocate\"]\nplugin_dirs = [\"p\"]\n" << text;
    return load_config(f, {});
  }
  std::string error_of(const std::string& text) {
    try {
      SchedulerConfig c = config(text);
      build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  std::string file() const { return (dir_ / "caldera.toml").string(); }
};

// A plugin's own argument check (check_args) is plugin code too: it runs in a child, and a
// crash there refuses the policy with the plugin named.
TEST_F(PolicyTest, ArgumentCheckRunsInAChild) {
  put("check_crash");
  SchedulerConfig c = config("[[tiers]]\n[[tiers.plugins]]\nname = \"check_crash\"\n");
  try {
    build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "tiers[0].plugins[0] (check_crash): checking its arguments "
                                   "crashed with SIGSEGV"))
        << e.what();
  }
}

TEST_F(PolicyTest, ResolvesPluginsPointsAndArguments) {
  SchedulerConfig c = config(R"(
[[tiers]]
[[tiers.plugins]]
name = "testc"
enable = ["job_order", "best_node"]
arguments = { "testc.weight" = 5, "testc.resources.nvidia.com/gpu" = 3 }
[[tiers]]
[[tiers.plugins]]
name = "testcpp"
disable = ["preemptable"]
hierarchy = true
)");
  PluginCatalog cat = PluginCatalog::scan(c.plugin_dirs);
  auto policy = build_policy(c, cat, "abc");
  EXPECT_EQ(policy->config_hash, "abc");
  EXPECT_EQ(policy->config.actions, (std::vector<std::string>{"allocate"}));
  ASSERT_EQ(policy->tiers.size(), 2u);
  ASSERT_EQ(policy->tiers[0].size(), 1u);
  const ConfiguredPlugin& tc = policy->tiers[0][0];
  EXPECT_EQ(tc.name, "testc");
  EXPECT_EQ(tc.code, cat.find("testc"));
  // Enabled AND implemented: best_node is enabled but not implemented (a warning only, as
  // the plugin takes part in job_order).
  EXPECT_EQ(tc.points, points({Point::JobOrder}));
  EXPECT_FALSE(tc.hierarchy);
  EXPECT_EQ(tc.args->get_int("testc.weight"), 5);
  EXPECT_EQ(tc.args->get_int("testc.resources.nvidia.com/gpu"), 3);
  EXPECT_DOUBLE_EQ(tc.args->get_double("testc.wait"), 90.0);  // default "1m30s"
  EXPECT_EQ(tc.args->get_string("testc.mode"), "fast");
  const ConfiguredPlugin& tp = policy->tiers[1][0];
  EXPECT_EQ(tp.points, points({Point::TaskOrder, Point::NodeOrder}));
  EXPECT_TRUE(tp.hierarchy);
  EXPECT_DOUBLE_EQ(tp.args->get_double("testcpp.factor"), 1.5);
}

TEST_F(PolicyTest, UnknownPluginListsWhatWasFound) {
  std::string e = error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"testc\"\n"
                           "[[tiers.plugins]]\nname = \"tsetcpp\"\n");
  EXPECT_EQ(e, file() + ":7:1: tiers[0].plugins[1]: unknown plugin 'tsetcpp' (did you mean "
                       "'testcpp'?); plugins found in " +
                   (dir_ / "p").string() +
                   ": testc, testcpp; files that failed to load: [" +
                   (dir_ / "p" / "no_entry.so").string() +
                   ": not a caldera plugin (no symbol caldera_plugin_entry)]");
}

TEST_F(PolicyTest, UnknownPluginWithoutACloseName) {
  std::string e = error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"gang\"\n");
  EXPECT_EQ(e.rfind(file() + ":5:1: tiers[0].plugins[0]: unknown plugin 'gang'; plugins found in ", 0), 0u) << e;
}

TEST_F(PolicyTest, UndeclaredArgumentListsTheDeclaredOnes) {
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"testcpp\"\n"
                     "arguments = { \"testcpp.factr\" = 2 }\n"),
            file() + ":7:33: tiers[0].plugins[0] (testcpp): unknown argument 'testcpp.factr'; "
                     "declared: testcpp.factor, testcpp.name");
}

TEST_F(PolicyTest, WrongArgumentType) {
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers]]\n[[tiers.plugins]]\nname = \"testc\"\n"
                     "arguments = { \"testc.enabled\" = 1 }\n"),
            file() + ":8:33: tiers[1].plugins[0] (testc): argument 'testc.enabled' expects a "
                     "boolean, got the integer 1");
}

// What the log says while `f` runs (the default logger, swapped for one into a string).
template <class F>
std::string logged(F&& f) {
  std::ostringstream out;
  auto old = spdlog::default_logger();
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_pattern("%l %v");
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
  try {
    f();
  } catch (...) {
    spdlog::set_default_logger(old);
    throw;
  }
  spdlog::set_default_logger(old);
  return out.str();
}

// One node, one queue, one pending pod c1/p-1 of PodGroup c1/pg1.
Cache one_pod_cluster() {
  Cache cache;
  NodeSpec n;
  n.name = "n1";
  n.allocatable = {{"cpu", 4000}, {"memory", 8e9}};
  n.max_pods = 10;
  cache.upsert_node(n);
  testing::add_queue(cache, "q1");
  testing::add_podgroup(cache, "c1", "pg1", "q1", 1, JobPhase::Inqueue);
  PodSpec p;
  p.ns = "c1";
  p.name = "p-1";
  p.podgroup = "pg1";
  p.requests = {{"cpu", 1000}, {"memory", 1e9}};
  p.phase = PodPhase::Pending;
  cache.upsert_pod(p);
  return cache;
}

// The C++ SDK's one-line options: the table built from the declarations (names, types,
// defaults as text), and the plugin reading the value the config gives.
TEST_F(PolicyTest, SdkOptionDeclarationsBuildTheTableAndReadTheValue) {
  PluginCatalog cat = PluginCatalog::scan({dir_ / "p"});  // keeps the library (its strings)
  const PluginInfo& info = cat.find("testcpp")->info();
  ASSERT_EQ(info.options.size(), 2u);
  EXPECT_STREQ(info.options[0].name, "testcpp.factor");
  EXPECT_EQ(info.options[0].type, CAL_OPT_DOUBLE);
  EXPECT_STREQ(info.options[0].default_value, "1.5");
  EXPECT_STREQ(info.options[0].description, "score factor");
  EXPECT_STREQ(info.options[1].name, "testcpp.name");
  EXPECT_EQ(info.options[1].type, CAL_OPT_STRING);
  EXPECT_EQ(info.options[1].default_value, nullptr);

  for (auto [args, score] : {std::pair<std::string, double>{"", 1.0},
                             {"arguments = { \"testcpp.factor\" = 3.0 }\n", 2.0}}) {
    SchedulerConfig c = config("[[tiers]]\n[[tiers.plugins]]\nname = \"testcpp\"\n" + args);
    auto policy = build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
    Cache cache = one_pod_cluster();
    Runtime runtime;
    auto s = Session::open(cache, policy, 0, runtime);
    std::vector<double> scores;
    s->node_scores(s->job("c1/pg1")->tasks.at(0), {s->node("n1")}, scores);
    EXPECT_EQ(scores.at(0), score) << args;
  }
}

// A plugin reading an option it did not declare in kOptions: its open() fails, naming the
// option, and the session runs without it.
TEST_F(PolicyTest, SdkReadingAnUndeclaredOptionFailsOpen) {
  put("testcpp_undeclared");
  SchedulerConfig c = config("[[tiers]]\n[[tiers.plugins]]\nname = \"testcpp_undeclared\"\n");
  auto policy = build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
  Cache cache = one_pod_cluster();
  std::string log = logged([&] {
    Runtime runtime;
    auto s = Session::open(cache, policy, 0, runtime);
    EXPECT_FALSE(s->has_point(Point::NodeOrder));
  });
  EXPECT_EQ(log, "error plugin testcpp_undeclared: open failed (option 'testcpp.forgotten' is "
                 "read but not declared in the plugin's kOptions); this session runs without "
                 "it\n");
}

// The 1.1 slots of a plugin stamped 1.0 are never called in a session: its 1.0 predicate
// (every node passes) and node_order (1) answer, not predicate_many (every node fails) and
// node_order_many (1000). The same descriptor stamped 1.1 shows the slots are otherwise used.
TEST_F(PolicyTest, OneOneSlotsOfAOneZeroPluginAreNotCalled) {
  put("v1_0_sets_1_1");
  put("v1_1_sets_1_1");
  struct Answer {
    cal_code code;
    std::string reason;
    double score;
  };
  auto run = [&](const std::string& name) {
    SchedulerConfig c = config("[[tiers]]\n[[tiers.plugins]]\nname = \"" + name + "\"\n");
    auto policy = build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
    Cache cache = one_pod_cluster();
    Runtime runtime;
    auto s = Session::open(cache, policy, 0, runtime);
    const TaskInfo* t = s->job("c1/pg1")->tasks.at(0);
    NodeInfo* node = s->node("n1");
    const NodeInfo* nodes[1] = {node};
    cal_code codes[1];
    const std::string* plugins[1];
    const char* reasons[1];
    cal_status statuses[1];
    s->predicate_codes(t, nodes, 1, codes, plugins, reasons, statuses);
    std::vector<double> scores;
    s->node_scores(t, {node}, scores);
    return Answer{codes[0], reasons[0] ? reasons[0] : "", scores.at(0)};
  };
  Answer old_answer = run("v1_0_sets_1_1");
  EXPECT_EQ(old_answer.code, CAL_SUCCESS) << old_answer.reason;
  EXPECT_EQ(old_answer.score, 1);
  Answer new_answer = run("v1_1_sets_1_1");
  EXPECT_EQ(new_answer.code, CAL_UNSCHEDULABLE);
  EXPECT_EQ(new_answer.reason, "the 1.1 slot predicate_many was called");
  EXPECT_EQ(new_answer.score, 1000);
}

// An `enable` list naming only points the plugin does not implement: kube-scheduler's
// "plugin X does not extend <point>", a config error.
TEST_F(PolicyTest, EnablingOnlyPointsThePluginLacksIsAnError) {
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"testcpp\"\n"
                     "enable = [\"predicate\", \"job_ready\"]\n"),
            file() + ":5:1: tiers[0].plugins[0] (testcpp): plugin \"testcpp\" does not extend "
                     "predicate, job_ready: 'enable' names only points the plugin does not "
                     "implement, so it would take part in nothing; it implements task_order, "
                     "node_order, preemptable (" +
                (dir_ / "p" / "testcpp.so").string() + ")");
  // The same point it does implement is fine.
  EXPECT_EQ(error_of("[[tiers]]\n[[tiers.plugins]]\nname = \"testcpp\"\n"
                     "enable = [\"node_order\"]\n"),
            "");
}

// Mixed with points it implements, the rest is a no-op as in Volcano, with a warning; no
// enable list (or a disable list) says nothing about points the plugin lacks.
TEST_F(PolicyTest, EnablingSomePointsThePluginLacksWarns) {
  std::string log = logged([&] {
    SchedulerConfig c = config("[[tiers]]\n[[tiers.plugins]]\nname = \"testcpp\"\n"
                               "enable = [\"task_order\", \"predicate\"]\n");
    auto policy = build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
    EXPECT_EQ(policy->tiers[0][0].points, points({Point::TaskOrder}));
  });
  EXPECT_EQ(log, "warning " + file() + ":5:1: tiers[0].plugins[0] (testcpp): plugin \"testcpp\" "
                 "does not extend predicate; that part of 'enable' has no effect (the plugin "
                 "implements task_order, node_order, preemptable)\n");
  log = logged([&] {
    SchedulerConfig c = config("[[tiers]]\n[[tiers.plugins]]\nname = \"testcpp\"\n"
                               "[[tiers.plugins]]\nname = \"testc\"\n"
                               "disable = [\"preemptable\", \"job_ready\"]\n");
    build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
  });
  EXPECT_EQ(log, "");
}

// The config layer does not know the actions; the policy checks their names, at the
// name in scheduler.actions or at the [actions.NAME] table.
TEST_F(PolicyTest, UnknownActionNamesListTheKnownOnes) {
  const std::string known =
      "allocate, backfill, enqueue, gangpreempt, gangreclaim, preempt, reclaim, shuffle";
  auto build = [&](const std::string& text) -> std::string {
    fs::path f = dir_ / "actions.toml";
    std::ofstream(f) << text;
    try {
      SchedulerConfig c = load_config(f, {dir_ / "p"});
      build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string f = (dir_ / "actions.toml").string();
  EXPECT_EQ(build("[scheduler]\nactions = [\"enqueue\", \"alocate\"]\n"),
            f + ":2:23: scheduler.actions[1]: unknown action 'alocate' (did you mean "
                "'allocate'?); expected one of " + known);
  EXPECT_EQ(build("[actions.preemt]\nx = 1\n"),
            f + ":1:1: actions.preemt: unknown action 'preemt' (did you mean 'preempt'?); "
                "expected one of " + known);
  EXPECT_EQ(build("[scheduler]\nactions = [\"dance\"]\n"),
            f + ":2:12: scheduler.actions[0]: unknown action 'dance'; expected one of " + known);
  // Volcano's gang-aware evicting actions load, with their arguments checked by name and
  // type (they were refused by name before Caldera had them).
  EXPECT_EQ(build("[scheduler]\nactions = [\"gangpreempt\", \"gangreclaim\"]\n"
                  "[actions.gangreclaim]\nmaxDomains = 3\nallowWholeBundle = false\n"),
            "");
  EXPECT_NE(build("[scheduler]\nactions = [\"gangpreempt\"]\n[actions.gangpreempt]\n"
                  "maxDomain = 3\n")
                .find("maxDomain"),
            std::string::npos);
  EXPECT_NE(build("[scheduler]\nactions = [\"gangpreempt\"]\n[actions.gangpreempt]\n"
                  "allowWholeBundle = 3\n")
                .find("allowWholeBundle"),
            std::string::npos);
  // And its plugins: rescheduling would otherwise be no one's typo.
  const std::string plugin_error =
      build("[scheduler]\nactions = [\"allocate\"]\n[[tiers]]\n[[tiers.plugins]]\n"
            "name = \"rescheduling\"\n");
  EXPECT_NE(plugin_error.find("tiers[0].plugins[0]: unknown plugin 'rescheduling': Volcano's "
                              "rescheduling plugin is not in Caldera: it evicts pods from nodes "
                              "by their measured load"),
            std::string::npos)
      << plugin_error;

  // In a scenario's [config] the path says where the config sits.
  toml::table root = toml::parse("[config.scheduler]\nactions = [\"alocate\"]\n", f);
  SchedulerConfig c = parse_config(*root["config"].as_table(), f, {dir_ / "p"}, "config");
  try {
    build_policy(c, PluginCatalog::scan(c.plugin_dirs), "h");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), f + ":2:12: config.scheduler.actions[0]: unknown action "
                                         "'alocate' (did you mean 'allocate'?); expected one of " +
                                         known);
  }
}

TEST_F(PolicyTest, ActionArgumentsAreCheckedAgainstTheAction) {
  std::string e = error_of("[actions.allocate]\n\"bogus.key\" = 1\n");
  EXPECT_EQ(e.rfind(file() + ":5:15: actions.allocate: unknown argument 'bogus.key'; ", 0), 0u) << e;
}

// ---------------------------------------------------------------------------------------
// The commands
// ---------------------------------------------------------------------------------------

TEST_F(PolicyTest, CheckConfigCommand) {
  fs::path f = dir_ / "good.toml";
  std::ofstream(f) << "[scheduler]\nactions = [\"enqueue\", \"allocate\"]\nplugin_dirs = [\"p\"]\n"
                      "[[tiers]]\n[[tiers.plugins]]\nname = \"testc\"\n"
                      "[[tiers]]\n[[tiers.plugins]]\nname = \"testcpp\"\n";
  ::testing::internal::CaptureStdout();
  int rc = cli::check_config(cli::Common{}, f);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, f.string() + ": ok (2 actions, 2 plugins in 2 tiers)\n");

  fs::path bad = dir_ / "bad.toml";
  std::ofstream(bad) << "[scheduler]\nplugin_dirs = [\"p\"]\n[[tiers]]\n[[tiers.plugins]]\n"
                        "name = \"testc\"\nwieght = 1\n";
  ::testing::internal::CaptureStderr();
  rc = cli::check_config(cli::Common{}, bad);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(err, bad.string() + ":6:1: tiers[0].plugins[0] (testc): unknown key 'wieght'; "
                                "expected one of the allowed keys: name, enable, disable, "
                                "arguments, hierarchy\n");

  // An unknown action is refused, at its place in the list.
  fs::path action = dir_ / "action.toml";
  std::ofstream(action) << "[scheduler]\nplugin_dirs = [\"p\"]\nactions = [\"enqueue\", \"alocate\"]\n";
  ::testing::internal::CaptureStderr();
  rc = cli::check_config(cli::Common{}, action);
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(err, action.string() + ":3:23: scheduler.actions[1]: unknown action 'alocate' (did "
                                   "you mean 'allocate'?); expected one of allocate, backfill, "
                                   "enqueue, gangpreempt, gangreclaim, preempt, reclaim, "
                                   "shuffle\n");

  // A configured folder that does not exist is reported where the config names it.
  fs::path nodir = dir_ / "nodir.toml";
  std::ofstream(nodir) << "[scheduler]\nplugin_dirs = [\"missing\"]\n";
  ::testing::internal::CaptureStderr();
  rc = cli::check_config(cli::Common{}, nodir);
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(err, nodir.string() + ":2:15: scheduler.plugin_dirs: plugin folder " +
                     (dir_ / "missing").string() + " does not exist\n");

  // --plugin-dir overrides the config's folders.
  cli::Common over;
  over.plugin_dirs = {dir_ / "p"};
  ::testing::internal::CaptureStdout();
  rc = cli::check_config(over, nodir);
  out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, nodir.string() + ": ok (3 actions, 0 plugins in 0 tiers)\n");
}

TEST_F(PolicyTest, PluginsListAndDescribe) {
  cli::Common c;
  c.plugin_dirs = {dir_ / "p"};
  ::testing::internal::CaptureStdout();
  int rc = cli::plugins_list(c, {});
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  const std::string host_abi = std::to_string(CAL_ABI_MAJOR) + "." + std::to_string(CAL_ABI_MINOR);
  EXPECT_EQ(out.rfind("host ABI " + host_abi + " (loads plugins built for ABI " +
                          std::to_string(CAL_ABI_MAJOR) + ".0 to " + host_abi + ")\n\n",
                      0),
            0u)
      << out;
  EXPECT_TRUE(contains(out, "testc    1.2.3    " + host_abi + "   " + (dir_ / "p" / "testc.so").string()))
      << out;
  EXPECT_TRUE(contains(out, "job_order,predicate,node_order,job_enqueueable")) << out;
  EXPECT_TRUE(contains(out, "testcpp  0.9.0    " + host_abi + "   ")) << out;
  EXPECT_TRUE(contains(out, "task_order,node_order,preemptable")) << out;
  EXPECT_TRUE(contains(out, "failed to load:\n  " + (dir_ / "p" / "no_entry.so").string() +
                                ": not a caldera plugin (no symbol caldera_plugin_entry)\n"))
      << out;
  // Then the host's actions, with their arguments and defaults.
  EXPECT_TRUE(contains(out, "\nACTION       ARGUMENTS ([actions.NAME])\n")) << out;
  EXPECT_TRUE(contains(out, "\nshuffle      -\n")) << out;
  EXPECT_TRUE(contains(out, "\ngangpreempt  maxDomains = 8, allowWholeBundle = true\n")) << out;
  EXPECT_TRUE(contains(out, "\ngangreclaim  maxDomains = 8, allowWholeBundle = true\n")) << out;
  EXPECT_TRUE(contains(out, "\nallocate     predicateErrorCacheEnable = true\n")) << out;

  ::testing::internal::CaptureStdout();
  rc = cli::plugins_describe(c, {}, "testc");
  out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(contains(out, "testc 1.2.3\n  test plugin written in C\n")) << out;
  EXPECT_TRUE(contains(out, "sha256: " + sha256_file(dir_ / "p" / "testc.so"))) << out;
  EXPECT_TRUE(contains(out, "ABI:    " + host_abi + " (host " + host_abi + ")\n")) << out;
  EXPECT_TRUE(contains(out, "  testc.weight       int       2        an integer weight\n")) << out;
  EXPECT_TRUE(contains(out, "  testc.wait         duration  1m30s    a waiting time\n")) << out;
  EXPECT_TRUE(contains(out, "  testc.resources.*  int       -        one weight per resource\n"))
      << out;

  ::testing::internal::CaptureStderr();
  rc = cli::plugins_describe(c, {}, "nope");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(contains(err, "unknown plugin 'nope'; known: testc, testcpp")) << err;
}

// ---------------------------------------------------------------------------------------
// The shipped config against the shipped plugins.
// ---------------------------------------------------------------------------------------

TEST(ShippedConfig, DefaultConfigBuildsWithTheBuiltinPlugins) {
  SchedulerConfig c = load_config(fs::path(CALDERA_SOURCE_ROOT) / "conf" / "caldera.toml",
                                  {CALDERA_BUILTIN_PLUGIN_DIR});
  PluginCatalog cat = PluginCatalog::scan(c.plugin_dirs);
  for (const auto& f : cat.failures()) ADD_FAILURE() << f.error;
  auto policy = build_policy(c, cat, "");
  ASSERT_EQ(policy->tiers.size(), c.tiers.size());
  for (size_t t = 0; t < c.tiers.size(); ++t) {
    ASSERT_EQ(policy->tiers[t].size(), c.tiers[t].plugins.size());
    for (size_t p = 0; p < c.tiers[t].plugins.size(); ++p) {
      const ConfiguredPlugin& cp = policy->tiers[t][p];
      EXPECT_EQ(cp.name, c.tiers[t].plugins[p].name);
      // Every point left is both enabled and implemented.
      for (int i = 0; i < kPointCount; ++i) {
        auto pt = static_cast<Point>(i);
        if (cp.points.has(pt)) {
          EXPECT_TRUE(c.tiers[t].plugins[p].points.has(pt)) << cp.name << " " << point_name(pt);
          EXPECT_TRUE(cp.implemented.has(pt)) << cp.name << " " << point_name(pt);
        }
      }
    }
  }
  // gang: disable = ["preemptable"]
  ASSERT_EQ(policy->tiers[0][1].name, "gang");
  EXPECT_FALSE(policy->tiers[0][1].points.has(Point::Preemptable));
  EXPECT_TRUE(policy->tiers[0][1].implemented.has(Point::Preemptable));
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  EXPECT_EQ(sha256_hex(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Incremental updates in odd pieces give the same digest.
  Sha256 s;
  for (size_t i = 0; i < million.size(); i += 997) s.update(million.data() + i, std::min<size_t>(997, million.size() - i));
  EXPECT_EQ(s.hex_digest(), sha256_hex(million));
}

}  // namespace
}  // namespace caldera

namespace caldera {
namespace {

// Volcano's shipped scheduler configs (../shared/volcano/configs/, as Volcano ships them):
// each loads as is and builds a policy from the built-in plugins, with no plugin, action or
// argument refused; and `convert-config`'s TOML loads to the same config (actions, tiers,
// plugins, points, hierarchy, every argument and action argument with its value).
TEST(VolcanoShippedConfigs, LoadAndConvertRoundTrip) {
  const fs::path dir = fs::path(CALDERA_SOURCE_ROOT) / ".." / "shared" / "volcano" / "configs";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent (../shared/volcano)";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".conf") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 5u);
  const std::vector<fs::path> plugin_dirs{CALDERA_BUILTIN_PLUGIN_DIR};
  const fs::path tmp = fs::temp_directory_path() / "caldera-volcano-configs-test";
  fs::create_directories(tmp);
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.filename().string());
    const SchedulerConfig yaml = load_config(f, plugin_dirs);
    EXPECT_NO_THROW(build_policy(yaml, PluginCatalog::scan(yaml.plugin_dirs), "h"));
    std::ifstream in(f);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const fs::path converted = tmp / (f.stem().string() + ".toml");
    std::ofstream(converted) << volcano_yaml_to_toml(text, f);
    const SchedulerConfig toml = load_config(converted, plugin_dirs);
    EXPECT_EQ(toml.actions, yaml.actions);
    ASSERT_EQ(toml.tiers.size(), yaml.tiers.size());
    for (size_t t = 0; t < yaml.tiers.size(); ++t) {
      ASSERT_EQ(toml.tiers[t].plugins.size(), yaml.tiers[t].plugins.size());
      for (size_t p = 0; p < yaml.tiers[t].plugins.size(); ++p) {
        const PluginConfig& a = yaml.tiers[t].plugins[p];
        const PluginConfig& b = toml.tiers[t].plugins[p];
        EXPECT_EQ(b.name, a.name);
        EXPECT_TRUE(b.points == a.points) << a.name;
        EXPECT_EQ(b.hierarchy, a.hierarchy) << a.name;
        ASSERT_EQ(b.arguments.size(), a.arguments.size()) << a.name;
        for (const auto& [k, v] : a.arguments) {
          ASSERT_EQ(b.arguments.count(k), 1u) << a.name << " " << k;
          EXPECT_TRUE(b.arguments.at(k).value == v.value) << a.name << " " << k;
        }
      }
    }
    ASSERT_EQ(toml.action_arguments.size(), yaml.action_arguments.size());
    for (const auto& [action, args] : yaml.action_arguments)
      for (const auto& [k, v] : args)
        EXPECT_TRUE(toml.action_arguments.at(action).at(k).value == v.value) << action << " " << k;
  }
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace caldera
