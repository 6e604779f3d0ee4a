// Sessions in a forked worker (host/supervisor/session_worker.hpp) as the Kubernetes
// backend runs them: the binds handed over as each statement commits them, before the
// result, in the session's order; the same session on the kept snapshot.
#include <gtest/gtest.h>

#include <filesystem>

#include "host/config/config.hpp"
#include "host/plugins/policy.hpp"
#include "host/supervisor/session_worker.hpp"
#include "tests/unit/session_helpers.hpp"

namespace caldera {
namespace {

std::shared_ptr<const Policy> default_policy() {
  SchedulerConfig c = load_config(std::filesystem::path(CALDERA_SOURCE_ROOT) / "conf" / "caldera.toml",
                                  {CALDERA_BUILTIN_PLUGIN_DIR});
  return build_policy(c, PluginCatalog::scan(c.plugin_dirs), "");
}

// Two nodes, three gangs of two pods and one that cannot fit anywhere.
Cache gangs() {
  Cache c;
  for (const char* name : {"n1", "n2"}) {
    NodeSpec n;
    n.name = name;
    n.allocatable = {{"cpu", 4000}, {"memory", 16e9}};
    n.max_pods = 20;
    c.upsert_node(n);
  }
  testing::add_queue(c, "default");
  for (int g = 0; g < 4; ++g) {
    const std::string pg = "g" + std::to_string(g);
    testing::add_podgroup(c, "ns", pg, "default", 2, JobPhase::Inqueue);
    for (int i = 0; i < 2; ++i) {
      PodSpec p;
      p.ns = "ns";
      p.name = pg + "-" + std::to_string(i);
      p.podgroup = pg;
      p.requests = {{"cpu", g == 3 ? 8000.0 : 1000.0}, {"memory", 1e9}};
      p.created = g;
      c.upsert_pod(std::move(p));
    }
  }
  return c;
}

TEST(SessionWorker, BindsAreHandedOverAsEachStatementCommits) {
  const Cache c = gangs();
  Runtime runtime;
  std::vector<std::vector<std::pair<std::string, std::string>>> parts;
  bool result_seen = false;
  WorkerLimits limits;
  WorkerOutcome out = run_session_in_worker(c, default_policy(), 0, runtime, limits, nullptr,
                                            [&](SessionResult part) {
                                              EXPECT_FALSE(result_seen);
                                              parts.push_back(part.binds);
                                            });
  result_seen = true;
  ASSERT_TRUE(out.ok) << out.fault.text();
  // One statement per gang that fits (the fourth never does), a gang's two binds together;
  // what arrives together is handed over in one part.
  ASSERT_GE(parts.size(), 1u);
  std::vector<std::pair<std::string, std::string>> streamed;
  for (const auto& p : parts) {
    EXPECT_EQ(p.size() % 2, 0u);
    streamed.insert(streamed.end(), p.begin(), p.end());
  }
  EXPECT_EQ(out.bind_frames, 3u);  // the worker wrote each gang's binds as it committed them
  EXPECT_EQ(streamed, out.result.result.binds);  // the result still lists them, in order
  EXPECT_EQ(out.result.result.pending.count("ns/g3-0"), 1u);
}

TEST(SessionWorker, TheKeptSnapshotDecidesAsABuild) {
  Cache c = gangs();
  const auto policy = default_policy();
  Runtime r1, r2;
  SessionImage image;
  WorkerLimits limits;
  WorkerOutcome built = run_session_in_worker(c, policy, 0, r1, limits, &image);
  ASSERT_TRUE(built.ok) << built.fault.text();
  EXPECT_TRUE(built.refresh.built);
  // A new pod arrives: the image follows it, and decides as a worker that builds.
  PodSpec p;
  p.ns = "ns";
  p.name = "late";
  p.requests = {{"cpu", 500}, {"memory", 1e9}};
  c.upsert_pod(p);
  WorkerOutcome kept = run_session_in_worker(c, policy, 0, r1, limits, &image);
  WorkerOutcome fresh = run_session_in_worker(c, policy, 0, r2, limits);
  ASSERT_TRUE(kept.ok && fresh.ok);
  EXPECT_FALSE(kept.refresh.built) << kept.refresh.why;
  EXPECT_EQ(kept.refresh.pods, 1u);
  EXPECT_EQ(kept.result.result.binds, fresh.result.result.binds);
  EXPECT_EQ(kept.result.result.pending, fresh.result.result.pending);
}

}  // namespace
}  // namespace caldera
