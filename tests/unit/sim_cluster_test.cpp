// The embedded cluster on a small workload with a known outcome: counts, start and finish
// times, with the default config and the builtin plugins.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "host/backend/sim/sim_cluster.hpp"
#include "host/config/config.hpp"
#include "host/plugins/policy.hpp"
#include "host/results/collector.hpp"
#include "host/scheduler/run_session.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
  fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

TEST(SimClusterTest, SecondGangWaitsForTheFirstToFinish) {
  fs::path dir = fs::temp_directory_path() / ("caldera-sim-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path cluster = write(dir, "cluster.toml", R"(
[[queues]]
name = "q1"
[[nodes]]
name = "n1"
allocatable = { cpu = "4", memory = "8Gi", pods = 10 }
)");
  fs::path workload = write(dir, "workload.toml", R"(
[[jobs]]
name = "a"
queue = "q1"
arrival = 0
[[jobs.tasks]]
replicas = 2
requests = { cpu = "2", memory = "1Gi" }
duration = 10

[[jobs]]
name = "b"
queue = "q1"
arrival = 1
[[jobs.tasks]]
replicas = 2
requests = { cpu = "2", memory = "1Gi" }
duration = 5
)");
  SchedulerConfig cfg = load_config(fs::path(CALDERA_SOURCE_ROOT) / "conf" / "caldera.toml",
                                    {CALDERA_BUILTIN_PLUGIN_DIR});
  PluginCatalog catalog = PluginCatalog::scan(cfg.plugin_dirs);
  auto policy = build_policy(cfg, catalog, "test");

  SimCluster sim(cluster, workload);
  ResultsCollector collector(sim.cache());
  for (double now = 0; now <= 20 && !sim.finished(); now += 1) {
    sim.advance(now);
    SessionResult r = run_session(sim.cache(), policy, now);
    sim.apply(r, now);
    collector.record_session(now, r, sim.cache());
  }
  EXPECT_TRUE(sim.finished());
  collector.set_jobs(sim.job_records(), sim.total_jobs());
  const Summary m = summarize(collector.results());
  EXPECT_EQ(m.sessions, 16u);  // 0..15: b finishes at 15
  EXPECT_EQ(m.binds, 4u);
  EXPECT_EQ(m.evictions, 0u);
  EXPECT_EQ(m.unschedulable, 2u * 9);  // b's 2 tasks pending in the sessions at 1..9
  EXPECT_EQ(m.jobs_finished, 2u);
  EXPECT_DOUBLE_EQ(m.mean_wait, (0 + 9) / 2.0);
  EXPECT_DOUBLE_EQ(m.mean_completion, (10 + 14) / 2.0);
  const auto& jobs = sim.jobs();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(jobs.at("default/a").started, 0);
  EXPECT_DOUBLE_EQ(jobs.at("default/a").finished, 10);
  // b arrives at 1 but the node is full until a finishes at 10; b runs 10..15.
  EXPECT_DOUBLE_EQ(jobs.at("default/b").started, 10);
  EXPECT_DOUBLE_EQ(jobs.at("default/b").finished, 15);
  fs::remove_all(dir);
}

TEST(SimClusterTest, WorkloadErrorsNameFileLineAndObject) {
  fs::path dir = fs::temp_directory_path() / ("caldera-simbad-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path workload = write(dir, "w.toml", R"([[jobs]]
name = "a"
arrival = 0
[[jobs.tasks]]
replicas = 2
requests = { cpu = "-2" }
duration = 10
)");
  try {
    load_workload(workload);
    FAIL() << "a negative request must be refused";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("w.toml:6:"), std::string::npos) << m;
    EXPECT_NE(m.find("jobs[0] (default/a) tasks[0]"), std::string::npos) << m;
    EXPECT_NE(m.find("negative"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace caldera
