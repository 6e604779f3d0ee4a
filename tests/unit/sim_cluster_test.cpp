// The embedded cluster on a small workload with a known outcome: counts, start and finish
// times, with the default config and the builtin plugins.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <map>

#include "host/backend/sim/sim_cluster.hpp"
#include "host/config/config.hpp"
#include "host/plugins/policy.hpp"
#include "host/results/collector.hpp"
#include "host/scheduler/run_session.hpp"
#include "tests/unit/session_helpers.hpp"

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
    SessionResult r = caldera::testing::run_one_session(sim.cache(), policy, now);
    sim.commit(r, now);
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
    EXPECT_NE(m.find("jobs[0] (default/a).tasks[0].requests.cpu"), std::string::npos) << m;
    EXPECT_NE(m.find("negative"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

// The workload's evicted_pods: a high-priority job preempts a low-priority one on a full
// node, and what the evicted pods become decides the low job's outcome.
struct EvictionRun {
  std::map<std::string, JobRecord> jobs;
  Summary summary;
  bool finished = false;
};

EvictionRun run_preemption(const std::string& evicted_pods, int low_replicas, int high_replicas) {
  fs::path dir = fs::temp_directory_path() /
                 fmt::format("caldera-sim-evict-{}-{}", ::getpid(), evicted_pods);
  fs::create_directories(dir);
  fs::path cluster = write(dir, "cluster.toml", R"(
[[priority_classes]]
name = "low"
value = 1
[[priority_classes]]
name = "high"
value = 100
[[queues]]
name = "q1"
[[nodes]]
name = "n1"
allocatable = { cpu = "4", memory = "8Gi", pods = 10 }
)");
  fs::path workload = write(dir, "workload.toml", fmt::format(R"(
evicted_pods = "{}"
[[jobs]]
name = "low"
queue = "q1"
priority_class = "low"
preemptable = true
arrival = 0
min_member = 1
[[jobs.tasks]]
replicas = {}
requests = {{ cpu = "2", memory = "1Gi" }}
duration = 20

[[jobs]]
name = "high"
queue = "q1"
priority_class = "high"
arrival = 1
[[jobs.tasks]]
replicas = {}
requests = {{ cpu = "2", memory = "1Gi" }}
duration = 5
)", evicted_pods, low_replicas, high_replicas));
  // The demo's config: Volcano's default with preempt.
  SchedulerConfig cfg = load_config(fs::path(CALDERA_SOURCE_ROOT) / "conf" / "demo.toml",
                                    {CALDERA_BUILTIN_PLUGIN_DIR});
  PluginCatalog catalog = PluginCatalog::scan(cfg.plugin_dirs);
  auto policy = build_policy(cfg, catalog, "test");

  SimCluster sim(cluster, workload);
  ResultsCollector collector(sim.cache());
  for (double now = 0; now <= 60 && !sim.finished(); now += 1) {
    sim.advance(now);
    SessionResult r = caldera::testing::run_one_session(sim.cache(), policy, now);
    sim.commit(r, now);
    collector.record_session(now, r, sim.cache());
  }
  collector.set_jobs(sim.job_records(), sim.total_jobs());
  EvictionRun out{sim.jobs(), summarize(collector.results()), sim.finished()};
  fs::remove_all(dir);
  return out;
}

TEST(SimClusterTest, EvictedPodsReturnToPendingAndRunAgain) {
  // low's 2 pods fill the node at 0; high (2 pods) preempts both at 1 and runs 2..7; low's
  // pods wait, run again from 7 and the job finishes at 27.
  EvictionRun r = run_preemption("pending", 2, 2);
  ASSERT_TRUE(r.finished);
  EXPECT_EQ(r.summary.evictions, 2u);
  EXPECT_EQ(r.summary.jobs_finished, 2u);
  EXPECT_EQ(r.summary.jobs_failed, 0u);
  const JobRecord& low = r.jobs.at("default/low");
  EXPECT_DOUBLE_EQ(low.started, 0);  // its first start, kept across the eviction
  EXPECT_DOUBLE_EQ(low.finished, 27);
  EXPECT_FALSE(low.has_failed());
  EXPECT_DOUBLE_EQ(r.jobs.at("default/high").started, 2);
  EXPECT_DOUBLE_EQ(r.jobs.at("default/high").finished, 7);
  EXPECT_EQ(r.summary.sessions, 28u);  // one a second, 0..27
}

TEST(SimClusterTest, EvictedPodsFailAndTheirJobFails) {
  // The same run with evicted_pods = "failed": both of low's pods fail at 1, no pod of it
  // succeeded (min_member 1), so the job fails at 1 and the run ends when high does.
  EvictionRun r = run_preemption("failed", 2, 2);
  ASSERT_TRUE(r.finished);
  EXPECT_EQ(r.summary.evictions, 2u);
  EXPECT_EQ(r.summary.jobs_finished, 1u);
  EXPECT_EQ(r.summary.jobs_failed, 1u);
  const JobRecord& low = r.jobs.at("default/low");
  EXPECT_DOUBLE_EQ(low.started, 0);
  EXPECT_DOUBLE_EQ(low.failed, 1);
  EXPECT_FALSE(low.has_finished());
  EXPECT_DOUBLE_EQ(r.jobs.at("default/high").finished, 7);
  EXPECT_EQ(r.summary.sessions, 8u);  // one a second, 0..7: the run ends when high does
}

TEST(SimClusterTest, AJobWithAFailedPodCompletesWhenMinMemberSucceeded) {
  // high takes one pod's room: one of low's two pods is evicted and fails at 1, the other
  // runs to 20. One pod succeeded = min_member: the job completed (Volcano's running.go).
  EvictionRun failed = run_preemption("failed", 2, 1);
  EXPECT_EQ(failed.summary.evictions, 1u);
  EXPECT_EQ(failed.summary.jobs_failed, 0u);
  EXPECT_DOUBLE_EQ(failed.jobs.at("default/low").finished, 20);
  // With "pending" the evicted pod runs again after high (2..7): the job ends at 27.
  EvictionRun pending = run_preemption("pending", 2, 1);
  EXPECT_EQ(pending.summary.evictions, 1u);
  EXPECT_DOUBLE_EQ(pending.jobs.at("default/low").finished, 27);
}

// Volcano's per-task rule (running.go): when min_member covers the tasks' minimums, a task
// with fewer pods succeeded than its `min` fails the job even if min_member pods succeeded.
// Decisions by hand: every pod bound at 0, one evicted (and failed) at 1, the rest succeed
// at 10.
JobRecord end_by_hand(int min_member, const std::string& evicted_pod) {
  fs::path dir = fs::temp_directory_path() / fmt::format("caldera-sim-task-min-{}-{}-{}",
                                                         ::getpid(), min_member, evicted_pod);
  fs::create_directories(dir);
  fs::path cluster = write(dir, "cluster.toml", R"(
[[queues]]
name = "q1"
[[nodes]]
name = "n1"
allocatable = { cpu = "8", memory = "8Gi", pods = 10 }
)");
  fs::path workload = write(dir, "workload.toml", fmt::format(R"(
evicted_pods = "failed"
[[jobs]]
name = "j"
queue = "q1"
arrival = 0
min_member = {}
[[jobs.tasks]]
role = "a"
replicas = 3
min = 1
requests = {{ cpu = "1" }}
duration = 10
[[jobs.tasks]]
role = "b"
replicas = 2
min = 2
requests = {{ cpu = "1" }}
duration = 10
)", min_member));
  SimCluster sim(cluster, workload);
  sim.advance(0);
  SessionResult bind;
  for (const char* pod : {"j-a-0", "j-a-1", "j-a-2", "j-b-0", "j-b-1"})
    bind.binds.emplace_back(std::string("default/") + pod, "n1");
  sim.commit(bind, 0);
  sim.advance(1);
  SessionResult evict;
  evict.evictions.push_back("default/" + evicted_pod);
  sim.commit(evict, 1);
  EXPECT_FALSE(sim.jobs().at("default/j").has_ended()) << "4 pods still run";
  sim.advance(10);
  EXPECT_TRUE(sim.finished());
  EXPECT_EQ(sim.cache().pods().size(), 0u);  // the ended job left the cluster
  JobRecord out = sim.jobs().at("default/j");
  fs::remove_all(dir);
  return out;
}

TEST(SimClusterTest, ATaskBelowItsMinFailsTheJob) {
  // min_member 3 = 1 (a) + 2 (b): b's minimum counts. b-0 failed, so b has 1 of 2: Failed,
  // though 4 >= 3 pods succeeded.
  JobRecord b_short = end_by_hand(3, "j-b-0");
  EXPECT_DOUBLE_EQ(b_short.failed, 10);
  EXPECT_FALSE(b_short.has_finished());
  // a-0 failed instead: a has 2 of 1, b 2 of 2, 4 >= 3 succeeded: Completed.
  JobRecord a_short = end_by_hand(3, "j-a-0");
  EXPECT_DOUBLE_EQ(a_short.finished, 10);
  EXPECT_FALSE(a_short.has_failed());
  // min_member 2 < 3: the task minimums do not count (Volcano checks them only when
  // minAvailable covers them); 4 >= 2 succeeded: Completed.
  JobRecord below = end_by_hand(2, "j-b-0");
  EXPECT_DOUBLE_EQ(below.finished, 10);
  EXPECT_FALSE(below.has_failed());
}


// The volume decisions of a bind: the PV chosen for a claim is bound to it (claimRef, then
// the PV controller completes the claim), a provisioned claim gets the selected node; a
// decision that no longer applies (the PV taken meanwhile) keeps the pod unbound.
TEST(SimClusterTest, BindsWriteTheirVolumeDecisions) {
  Cache cache;
  QueueSpec q;
  q.name = "default";
  cache.upsert_queue(q);
  NodeSpec n;
  n.name = "n1";
  cache.upsert_node(n);
  for (const char* name : {"p1", "p2", "p3"}) {
    PodSpec p;
    p.ns = "c1";
    p.name = name;
    cache.upsert_pod(p);
  }
  PersistentVolumeSpec pv;
  pv.meta.name = "pv-a";
  cache.upsert_persistent_volume(pv);
  for (const char* name : {"data-1", "data-2", "data-3"}) {
    PersistentVolumeClaimSpec c;
    c.meta.ns = "c1";
    c.meta.name = name;
    cache.upsert_claim(c);
  }
  SimCluster sim(std::move(cache));
  SessionResult r;
  r.binds = {{"c1/p1", "n1"}, {"c1/p2", "n1"}, {"c1/p3", "n1"}};
  r.volume_bindings["c1/p1"] = {{"c1/data-1", "pv-a"}, {"c1/data-2", ""}};
  r.volume_bindings["c1/p3"] = {{"c1/data-3", "pv-a"}};  // pv-a went to data-1 first
  const CommitReport rep = sim.commit(r, 0);
  EXPECT_EQ(rep.binds, 2u);
  EXPECT_EQ(rep.binds_skipped, 1u);
  EXPECT_EQ(sim.cache().pod("c1/p1")->node, "n1");
  EXPECT_EQ(sim.cache().pod("c1/p3")->node, "");

  const PersistentVolumeSpec& bound = sim.cache().persistent_volume("pv-a")->spec();
  EXPECT_TRUE(bound.has_claim_ref);
  EXPECT_EQ(bound.claim_namespace, "c1");
  EXPECT_EQ(bound.claim_name, "data-1");
  EXPECT_EQ(bound.phase, CAL_VOLUME_BOUND);
  ASSERT_NE(bound.meta.annotation(kAnnBoundByController), nullptr);
  const cal_persistent_volume_claim* c1 = sim.cache().claim("c1/data-1")->view();
  EXPECT_STREQ(c1->volume_name, "pv-a");
  EXPECT_EQ(c1->bind_completed, 1);
  EXPECT_EQ(c1->phase, CAL_CLAIM_BOUND);
  const cal_persistent_volume_claim* c2 = sim.cache().claim("c1/data-2")->view();
  ASSERT_NE(c2->selected_node, nullptr);
  EXPECT_STREQ(c2->selected_node, "n1");
  EXPECT_STREQ(c2->volume_name, "");  // no provisioner in the embedded cluster
  EXPECT_EQ(sim.cache().claim("c1/data-3")->view()->selected_node, nullptr);
}

}  // namespace
}  // namespace caldera
