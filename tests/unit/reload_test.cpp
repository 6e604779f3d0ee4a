// Tests of the reload pieces (host/reload/): the config keys it adds, the
// file watcher (what counts as a change, settling), keeping retired libraries mapped, and
// the Reloader end to end on a small cache (accepted, refused, unchanged). The
// integration tests (tests/integration/reload/) drive the same through `caldera run`.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>

#include <fmt/format.h>

#include "host/config/config.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/reload/reloader.hpp"
#include "host/reload/watcher.hpp"
#include "tests/unit/test_support.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;

const fs::path kTestPlugins = CALDERA_TEST_PLUGIN_DIR;
const fs::path kBuiltinPlugins = CALDERA_BUILTIN_PLUGIN_DIR;

using caldera::testing::contains;

class TempDir : public ::testing::Test {
 protected:
  // Writes as editors do: a new file renamed over the old one.
  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    fs::path tmp = p;
    tmp += ".new";
    std::ofstream(tmp) << text;
    fs::rename(tmp, p);
    return p;
  }

  const caldera::testing::ScratchDir scratch_{"reload-test"};
  const fs::path dir_ = scratch_.path();
};

// Runs the loop until `done` or the time is up.
bool run_until(uv_loop_t* loop, const std::function<bool()>& done, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done() && std::chrono::steady_clock::now() < end) uv_run(loop, UV_RUN_NOWAIT), usleep(2000);
  return done();
}

struct Loop {
  uv_loop_t loop;
  Loop() { uv_loop_init(&loop); }
  ~Loop() {
    uv_walk(
        &loop, [](uv_handle_t* h, void*) { if (!uv_is_closing(h)) uv_close(h, nullptr); },
        nullptr);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
  }
};

// ---------------------------------------------------------------------------------------
// Config keys
// ---------------------------------------------------------------------------------------

using ReloadConfig = TempDir;

TEST_F(ReloadConfig, DefaultsAndValues) {
  SchedulerConfig d = load_config_text("", dir_ / "c.toml", {});
  EXPECT_TRUE(d.unload_retired_plugins);
  EXPECT_DOUBLE_EQ(d.canary_timeout_seconds, 5.0);
  EXPECT_DOUBLE_EQ(d.reload_settle_seconds, 0.3);

  SchedulerConfig c = load_config_text(
      "[scheduler]\nunload_retired_plugins = false\ncanary_timeout = \"250ms\"\n"
      "reload_settle = 0\n",
      dir_ / "c.toml", {});
  EXPECT_FALSE(c.unload_retired_plugins);
  EXPECT_DOUBLE_EQ(c.canary_timeout_seconds, 0.25);
  EXPECT_DOUBLE_EQ(c.reload_settle_seconds, 0.0);
}

TEST_F(ReloadConfig, ErrorsNameFileLineAndKey) {
  auto error = [&](const std::string& text) {
    try {
      load_config_text(text, dir_ / "c.toml", {});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = error("[scheduler]\ncanary_timeout = \"0s\"\n");
  EXPECT_TRUE(contains(e, "c.toml:2:18: scheduler.canary_timeout: '0s' is out of range; expected a positive duration")) << e;
  e = error("[scheduler]\nreload_settle = \"soon\"\n");
  EXPECT_TRUE(contains(e, "c.toml:2:17: scheduler.reload_settle: 'soon' is not a duration; expected a duration")) << e;
  e = error("[scheduler]\nunload_retired_plugins = \"no\"\n");
  EXPECT_TRUE(contains(e, "c.toml:2:26: scheduler.unload_retired_plugins: got a string; expected true or false")) << e;
  e = error("[scheduler]\ncanary_timeout = -1\n");
  EXPECT_TRUE(contains(e, "scheduler.canary_timeout: -1 is out of range; expected a positive duration")) << e;
}

// ---------------------------------------------------------------------------------------
// ReloadWatcher
// ---------------------------------------------------------------------------------------

using Watcher = TempDir;

TEST_F(Watcher, ConfigRenamesPluginFilesAndSettling) {
  Loop l;
  fs::path cfg = write("conf/c.toml", "# 1\n");
  fs::create_directories(dir_ / "plugins");
  std::vector<std::string> seen;
  ReloadWatcher w(&l.loop, cfg, 0.05, [&](const std::string& what, double at) {
    EXPECT_GT(at, 0);
    seen.push_back(what);
  });
  w.watch_plugin_dirs({dir_ / "plugins"});

  // A temp file next to the config (an editor's swap file) is not a change.
  std::ofstream(dir_ / "conf" / ".c.toml.swp") << "x";
  run_until(&l.loop, [] { return false; }, 0.2);
  EXPECT_TRUE(seen.empty());

  // A burst (the config twice, quickly) is one report.
  write("conf/c.toml", "# 2\n");
  write("conf/c.toml", "# 3\n");
  ASSERT_TRUE(run_until(&l.loop, [&] { return !seen.empty(); }, 3));
  run_until(&l.loop, [] { return false; }, 0.2);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], "config " + cfg.string());

  // Plugin folders: .so names count, others do not.
  seen.clear();
  std::ofstream(dir_ / "plugins" / "README") << "x";
  run_until(&l.loop, [] { return false; }, 0.2);
  EXPECT_TRUE(seen.empty());
  std::ofstream(dir_ / "plugins" / "x.so") << "x";
  ASSERT_TRUE(run_until(&l.loop, [&] { return !seen.empty(); }, 3));
  EXPECT_EQ(seen[0], "plugin " + (dir_ / "plugins" / "x.so").string());

  // A folder no longer named is no longer watched.
  w.watch_plugin_dirs({});
  seen.clear();
  std::ofstream(dir_ / "plugins" / "y.so") << "y";
  run_until(&l.loop, [] { return false; }, 0.2);
  EXPECT_TRUE(seen.empty());
  w.close();
}

// A plugin file that is a link: a new build written where it points is noticed, named by
// the target's path.
TEST_F(Watcher, PluginLinkTargetsAreWatched) {
  Loop l;
  fs::path cfg = write("conf/c.toml", "# 1\n");
  fs::create_directories(dir_ / "plugins");
  fs::path real = write("builds/v1/nodeprefer.so", "v1");
  fs::create_symlink(real, dir_ / "plugins" / "nodeprefer.so");
  std::vector<std::string> seen;
  ReloadWatcher w(&l.loop, cfg, 0.05, [&](const std::string& what, double) {
    seen.push_back(what);
  });
  w.watch_plugin_dirs({dir_ / "plugins"});
  // Another file in the target's folder is not a change.
  write("builds/v1/other.so", "x");
  run_until(&l.loop, [] { return false; }, 0.2);
  EXPECT_TRUE(seen.empty());
  write("builds/v1/nodeprefer.so", "v2");
  ASSERT_TRUE(run_until(&l.loop, [&] { return !seen.empty(); }, 3));
  EXPECT_EQ(seen[0], "plugin " + fs::canonical(real).string() + " (a link's target)");
  w.close();
}

TEST_F(Watcher, SymlinkSwapOfTheConfigFolder) {
  // A ConfigMap volume: c.toml -> ..data/c.toml, ..data -> ..v1; an update swaps ..data.
  Loop l;
  write("conf/..v1/c.toml", "# v1\n");
  fs::create_directory_symlink("..v1", dir_ / "conf" / "..data");
  fs::create_symlink("..data/c.toml", dir_ / "conf" / "c.toml");
  std::vector<std::string> seen;
  ReloadWatcher w(&l.loop, dir_ / "conf" / "c.toml", 0.05,
                  [&](const std::string& what, double) { seen.push_back(what); });
  write("conf/..v2/c.toml", "# v2\n");
  fs::create_directory_symlink("..v2", dir_ / "conf" / "..data_tmp");
  fs::rename(dir_ / "conf" / "..data_tmp", dir_ / "conf" / "..data");
  ASSERT_TRUE(run_until(&l.loop, [&] { return !seen.empty(); }, 3));
  EXPECT_TRUE(contains(seen[0], "config ")) << seen[0];
  // The watch follows the new target folder: writing there is seen too.
  seen.clear();
  std::ofstream(dir_ / "conf" / "..v2" / "c.toml") << "# v2 edited\n";
  ASSERT_TRUE(run_until(&l.loop, [&] { return !seen.empty(); }, 3));
  w.close();
}

// ---------------------------------------------------------------------------------------
// Keeping retired libraries mapped
// ---------------------------------------------------------------------------------------

// The distinct memfds of plugin file `name` mapped in this process (the inode tells two
// loads of the same file apart).
size_t mapped_copies_of(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> inodes;
  for (std::string line; std::getline(maps, line);)
    if (contains(line, "memfd:caldera-plugin:" + name)) {
      std::istringstream in(line);
      std::string range, perms, offset, dev, inode;
      in >> range >> perms >> offset >> dev >> inode;
      inodes.insert(inode);
    }
  return inodes.size();
}

TEST(UnloadOnRelease, FalseKeepsTheCodeMapped) {
  size_t before = mapped_copies_of("testc.so");
  {
    auto f = PluginFile::read(kTestPlugins / "testc.so");
    EXPECT_EQ(mapped_copies_of("testc.so"), before) << "inspected, not loaded here";
    ASSERT_NE(f->descriptor(), nullptr);
    EXPECT_EQ(mapped_copies_of("testc.so"), before + 1) << "loaded here by descriptor()";
  }
  EXPECT_EQ(mapped_copies_of("testc.so"), before) << "unloaded by default";
  PluginFile::set_unload_on_release(false);
  PluginFile::read(kTestPlugins / "testc.so")->descriptor();
  PluginFile::set_unload_on_release(true);
  EXPECT_EQ(mapped_copies_of("testc.so"), before + 1) << "kept mapped";
}

// ---------------------------------------------------------------------------------------
// Reloader, end to end on an empty cache
// ---------------------------------------------------------------------------------------

class ReloaderTest : public TempDir {
 protected:
  std::string config(const std::string& tiers, const std::string& extra = "") {
    return fmt::format(
        "[scheduler]\nperiod = \"1s\"\nactions = [\"enqueue\", \"allocate\"]\n"
        "plugin_dirs = [\"{}\", \"plugins\"]\nreload_settle = \"20ms\"\ncanary_timeout = "
        "\"5s\"\n{}\n{}",
        kBuiltinPlugins.string(), extra, tiers);
  }
  std::unique_ptr<Reloader> make(uv_loop_t* loop) {
    fs::create_directories(dir_ / "plugins");
    Reloader::Options o;
    o.config_file = dir_ / "c.toml";
    o.cache = [this]() -> const Cache& { return cache_; };
    o.now = [] { return 0.0; };
    o.after_attempt = [this] { ++attempts_; };
    return std::make_unique<Reloader>(loop, std::move(o));
  }
  Cache cache_;
  int attempts_ = 0;
};

TEST_F(ReloaderTest, AcceptRefuseUnchanged) {
  const std::string one = "[[tiers]]\n[[tiers.plugins]]\nname = \"priority\"\n";
  const std::string two = one + "[[tiers.plugins]]\nname = \"gang\"\n";
  write("c.toml", config(one));
  Loop l;
  auto r = make(&l.loop);
  r->start();
  auto first = r->active();
  ASSERT_EQ(first->tiers.at(0).size(), 1u);

  // A valid change: accepted, the new policy is active, the old one is retired and freed.
  write("c.toml", config(two));
  ASSERT_TRUE(run_until(&l.loop, [&] { return attempts_ == 1; }, 10));
  ASSERT_TRUE(r->stats().last.has_value());
  EXPECT_EQ(r->stats().last->result, "accepted") << r->stats().last->reason;
  EXPECT_TRUE(contains(r->stats().last->changes, "tiers [priority] -> [priority, gang]"))
      << r->stats().last->changes;
  EXPECT_EQ(r->active()->tiers.at(0).size(), 2u);
  std::weak_ptr<const Policy> old = first;
  EXPECT_EQ(r->retired_alive(), 1u);  // still held here, as a session would
  first.reset();
  EXPECT_TRUE(old.expired());
  EXPECT_EQ(r->retired_alive(), 0u);

  // An unknown plugin: refused, the running policy stays.
  auto running = r->active();
  write("c.toml", config(one + "[[tiers.plugins]]\nname = \"nope\"\n"));
  ASSERT_TRUE(run_until(&l.loop, [&] { return attempts_ == 2; }, 10));
  EXPECT_EQ(r->stats().last->result, "refused");
  EXPECT_TRUE(contains(r->stats().last->reason, "unknown plugin 'nope'"))
      << r->stats().last->reason;
  EXPECT_EQ(r->active(), running);
  ASSERT_TRUE(r->stats().last_error.has_value());

  // SIGHUP: the file still names 'nope', refused again.
  r->trigger("SIGHUP");
  ASSERT_TRUE(run_until(&l.loop, [&] { return attempts_ == 3; }, 10));
  EXPECT_EQ(r->stats().last->result, "refused");
  EXPECT_EQ(r->stats().last->trigger, "SIGHUP");
  // The running config back: nothing to do.
  write("c.toml", config(two));
  ASSERT_TRUE(run_until(&l.loop, [&] { return attempts_ == 4; }, 10));
  EXPECT_EQ(r->stats().last->result, "unchanged");
  EXPECT_EQ(r->active(), running);
  EXPECT_EQ(r->stats().accepted, 1u);
  EXPECT_EQ(r->stats().refused, 2u);
  EXPECT_EQ(r->stats().unchanged, 1u);
  r->close();
}

TEST_F(ReloaderTest, NewPluginFileInAWatchedFolder) {
  const std::string base = "[[tiers]]\n[[tiers.plugins]]\nname = \"priority\"\n";
  write("c.toml", config(base + "[[tiers.plugins]]\nname = \"testc\"\n"));
  Loop l;
  // testc is not there yet: the first build fails as a plain run would.
  EXPECT_THROW(make(&l.loop), InputError);
  fs::copy_file(kTestPlugins / "testc.so", dir_ / "plugins" / "testc.so");
  auto r = make(&l.loop);
  r->start();
  // The same file name replaced by a new file (a new inode): loaded as a new library.
  fs::copy_file(kTestPlugins / "testc.so", dir_ / "plugins" / "testc.so.new");
  fs::rename(dir_ / "plugins" / "testc.so.new", dir_ / "plugins" / "testc.so");
  ASSERT_TRUE(run_until(&l.loop, [&] { return attempts_ == 1; }, 10));
  EXPECT_EQ(r->stats().last->result, "accepted") << r->stats().last->reason;
  EXPECT_TRUE(contains(r->stats().last->changes, "plugins replaced: testc"))
      << r->stats().last->changes;
  r->close();
}

}  // namespace
}  // namespace caldera
