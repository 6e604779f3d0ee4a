// A plugin's state across sessions (ABI 1.2, state_get / state_put; caldera/plugin.h): the
// host carries what a plugin saved to the next session of the same plugin file, and drops
// it when the file changes or the plugin leaves the config. The test plugin `counter`
// (tests/plugins/state/counter.c) counts its sessions in its state and tells every job
// "session N" at close.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "caldera/sdk.hpp"
#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/session/host_api.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/plugins/policy.hpp"
#include "host/scheduler/run_session.hpp"
#include "tests/unit/session_helpers.hpp"
#include "host/session/session.hpp"
#include "tests/unit/test_support.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;

const fs::path kStatePlugins = fs::path(CALDERA_TEST_PLUGIN_DIR) / "state";
const fs::path kBuiltinPlugins = CALDERA_BUILTIN_PLUGIN_DIR;

class PluginState : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "p");
    fs::copy_file(kStatePlugins / "counter.so", dir_ / "p" / "counter.so");
    catalog_ = std::make_unique<PluginCatalog>(PluginCatalog::scan({dir_ / "p", kBuiltinPlugins}));
    NodeSpec n;
    n.name = "n1";
    n.allocatable = {{"cpu", 4000}, {"memory", 8.0 * (1 << 30)}};
    cache_.upsert_node(n);
    for (const char* name : {"a", "b"}) {
      PodSpec p;
      p.name = name;
      p.requests = {{"cpu", 8000}};  // never fits: the pods stay pending, every session
      cache_.upsert_pod(p);
    }
  }

  // A policy of `plugins` (TOML entries of one tier) over the catalog.
  std::shared_ptr<const Policy> policy(const std::string& plugins) {
    SchedulerConfig c = load_config_text(
        "[scheduler]\nactions = [\"allocate\"]\n[[tiers]]\nplugins = [" + plugins + "]\n",
        dir_ / "c.toml", {dir_ / "p", kBuiltinPlugins});
    return build_policy(c, *catalog_, "");
  }

  // One session with the carried states; keeps the new ones; what counter told job a.
  std::string session(const std::shared_ptr<const Policy>& p) {
    SessionResult r = run_session(cache_, p, now_++, runtime_);
    runtime_.carry(std::move(r.plugin_states));
    auto it = r.job_pending.find("default/a");
    return it == r.job_pending.end() ? "" : it->second;
  }

  const caldera::testing::ScratchDir scratch_{"state-test"};
  const fs::path dir_ = scratch_.path();
  std::unique_ptr<PluginCatalog> catalog_;
  Cache cache_;
  Runtime runtime_;  // carries the states from session to session
  double now_ = 0;
};

TEST_F(PluginState, CarriedToTheNextSession) {
  auto p = policy("{ name = \"counter\" }");
  EXPECT_EQ(session(p), "session 1, put 0");
  EXPECT_EQ(session(p), "session 2, put 0");
  EXPECT_EQ(session(p), "session 3, put 0");
  ASSERT_EQ(runtime_.plugin_states().count("counter"), 1u);
  EXPECT_EQ(runtime_.plugin_states().at("counter").bytes->size(), sizeof(uint32_t));
  // A session on its own (no states handed in) starts from nothing and changes nothing.
  SessionResult alone = caldera::testing::run_one_session(cache_, p, 9);
  EXPECT_EQ(alone.job_pending["default/a"], "session 1, put 0");
  EXPECT_EQ(session(p), "session 4, put 0");
}

// A new policy (a reload) that keeps the plugin's file keeps its state, whatever else
// changed: its arguments, other plugins.
TEST_F(PluginState, KeptWhenTheConfigKeepsThePlugin) {
  EXPECT_EQ(session(policy("{ name = \"counter\" }")), "session 1, put 0");
  EXPECT_EQ(session(policy("{ name = \"counter\" }, { name = \"priority\" }")), "session 2, put 0");
  catalog_ = std::make_unique<PluginCatalog>(
      PluginCatalog::scan({dir_ / "p", kBuiltinPlugins}, catalog_.get()));  // nothing changed
  EXPECT_EQ(session(policy("{ name = \"counter\", arguments = { \"counter.late\" = true } }")),
            "session 3, put 0, late get null, late put refused");
}

// A session whose policy has no such plugin drops its state: it left the config.
TEST_F(PluginState, DroppedWhenThePluginLeavesTheConfig) {
  auto with = policy("{ name = \"counter\" }");
  EXPECT_EQ(session(with), "session 1, put 0");
  EXPECT_EQ(session(with), "session 2, put 0");
  EXPECT_EQ(session(policy("{ name = \"priority\" }")), "");
  EXPECT_EQ(runtime_.plugin_states().count("counter"), 0u);
  EXPECT_EQ(session(with), "session 1, put 0");
}

// Another file under the same name (a rebuilt plugin) starts with no state; so does the
// same file moved to another folder.
TEST_F(PluginState, DroppedWhenThePluginFileChanges) {
  EXPECT_EQ(session(policy("{ name = \"counter\" }")), "session 1, put 0");
  EXPECT_EQ(session(policy("{ name = \"counter\" }")), "session 2, put 0");
  {
    // Other bytes: a byte after the end of the shared object still loads.
    const fs::path tmp = dir_ / "counter.so.new";
    fs::copy_file(dir_ / "p" / "counter.so", tmp);
    std::ofstream(tmp, std::ios::app | std::ios::binary) << '\n';
    fs::rename(tmp, dir_ / "p" / "counter.so");
  }
  catalog_ = std::make_unique<PluginCatalog>(
      PluginCatalog::scan({dir_ / "p", kBuiltinPlugins}, catalog_.get()));
  auto changed = policy("{ name = \"counter\" }");
  EXPECT_EQ(session(changed), "session 1, put 0");
  EXPECT_EQ(session(changed), "session 2, put 0");

  fs::create_directories(dir_ / "q");
  fs::rename(dir_ / "p" / "counter.so", dir_ / "q" / "counter.so");
  catalog_ = std::make_unique<PluginCatalog>(
      PluginCatalog::scan({dir_ / "q", kBuiltinPlugins}, catalog_.get()));
  EXPECT_EQ(session(policy("{ name = \"counter\" }")), "session 1, put 0");
}

// What a failed open() saved goes with it; a refused put (too big) and a put outside open
// and close leave the saved state as it was; a put of no bytes clears it.
TEST_F(PluginState, RefusedAndFailedSavesKeepTheState) {
  auto p = policy("{ name = \"counter\" }");
  EXPECT_EQ(session(p), "session 1, put 0");
  EXPECT_EQ(session(policy("{ name = \"counter\", arguments = { \"counter.fail\" = true } }")),
            "");  // open failed: no session for it, its put is dropped
  EXPECT_EQ(session(p), "session 2, put 0");
  EXPECT_EQ(session(policy("{ name = \"counter\", arguments = { \"counter.big\" = true } }")),
            "session 3, big put -1");
  EXPECT_EQ(session(p), "session 3, put 0");
  EXPECT_EQ(session(policy("{ name = \"counter\", arguments = { \"counter.late\" = true } }")),
            "session 4, put 0, late get null, late put refused");
  EXPECT_EQ(session(p), "session 5, put 0");
  EXPECT_EQ(session(policy("{ name = \"counter\", arguments = { \"counter.clear\" = true } }")),
            "session 6, cleared 0");
  EXPECT_EQ(runtime_.plugin_states().count("counter"), 0u);
  EXPECT_EQ(session(p), "session 1, put 0");
}

// Outside any plugin's open() or close() (here: the test itself), the host functions refuse.
TEST_F(PluginState, OnlyInsideOpenAndClose) {
  auto p = policy("{ name = \"counter\" }");
  EXPECT_EQ(session(p), "session 1, put 0");
  auto ssn = Session::open(cache_, p, 5, runtime_);
  size_t size = 99;
  EXPECT_EQ(host_api()->state_get(to_handle(ssn.get()), &size), nullptr);
  EXPECT_EQ(size, 0u);
  uint32_t v = 1;
  EXPECT_EQ(host_api()->state_put(to_handle(ssn.get()), &v, sizeof v), -1);
  SessionResult r = ssn->close();
  EXPECT_EQ(r.job_pending["default/a"], "session 2, put 0");
  ASSERT_EQ(r.plugin_states.count("counter"), 1u);
}

// The SDK's reader never reads past its bytes: a count beyond them fails, and reads after
// a failure are zeros.
TEST(StateBytes, ReaderStopsAtTheEnd) {
  sdk::StateWriter w;
  w.u64(3);
  w.f64(2.5);
  w.str("abc");
  sdk::StateReader r(w.bytes());
  EXPECT_EQ(r.u64(), 3u);
  EXPECT_EQ(r.f64(), 2.5);
  EXPECT_EQ(r.str(), "abc");
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.done());
  EXPECT_EQ(r.u64(), 0u);
  EXPECT_FALSE(r.ok());
  sdk::StateWriter big;
  big.u64(uint64_t{1} << 40);  // a string "of 2^40 bytes"
  sdk::StateReader rb(big.bytes());
  EXPECT_EQ(rb.str(), "");
  EXPECT_FALSE(rb.ok());
  sdk::StateReader rc(big.bytes());
  EXPECT_EQ(rc.count(8), 0u);
  EXPECT_FALSE(rc.ok());
}

}  // namespace
}  // namespace caldera
