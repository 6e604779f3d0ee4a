// The run's results (host/results/) on a small workload whose outcome is computed by hand:
// `caldera run --results DIR` in process (the real loop, with its skipping of idle periods),
// then the numbers in results.json and the CSV files against the hand computation. Plus
// the collector alone on a cluster with GPU shares, and the charts' thinning.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "host/cli/commands.hpp"
#include "host/results/collector.hpp"
#include "host/results/csv_writer.hpp"
#include "host/results/html_report.hpp"
#include "host/results/results_files.hpp"
#include "host/results/svg_charts.hpp"
#include "host/util/input_error.hpp"
#include "tests/unit/test_support.hpp"
#include "tests/unit/session_helpers.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
  fs::path p = dir / name;
  std::ofstream(p) << text;
  return p;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr double kGi = 1024.0 * 1024 * 1024;

// n1: 4 cpu, 8Gi, 4 GPUs (pool gpu); n2: 4 cpu, 8Gi (pool cpu). Cluster: 8 cpu, 16Gi, 4 GPUs.
// (Four GPUs, not two: with two, proportion's water-filling leaves qb a deserved 1999.94
// milli-GPU, a hair under the 2000 b and d need together, and d would wait for b, as in
// Volcano, whose LessEqualWithDimension has no tolerance.)
const char* kCluster = R"(
[[queues]]
name = "qa"
[[queues]]
name = "qb"
[[nodes]]
name = "n1"
allocatable = { cpu = "4", memory = "8Gi", pods = 10, "nvidia.com/gpu" = 4 }
labels = { pool = "gpu" }
[[nodes]]
name = "n2"
allocatable = { cpu = "4", memory = "8Gi", pods = 10 }
labels = { pool = "cpu" }
)";

// a (qa, t=0): 2 x (2 cpu, 2Gi) on n2 for 10s        -> runs 0..10
// b (qb, t=0): 1 x (2 cpu, 1Gi, 1 GPU) on n1 for 4s  -> runs 0..4
// c (qa, t=2): gang of 2 x (2 cpu, 1Gi) on n2, 5s    -> n2 is full until 10: runs 10..15
// d (qb, t=3): 1 x (1 cpu, 1Gi, 1 GPU) on n1, 3s     -> fits beside b: runs 3..6
// Sessions (period 1s; idle periods are skipped in virtual time): 0, 1, 2, 3, 4, 6, 10,
// 11, 15. c's 2 tasks stay unschedulable in the sessions at 2, 3, 4 and 6: 8 attempts.
const char* kWorkload = R"(
[[jobs]]
name = "a"
queue = "qa"
arrival = 0
[[jobs.tasks]]
replicas = 2
requests = { cpu = "2", memory = "2Gi" }
duration = 10
node_selector = { pool = "cpu" }

[[jobs]]
name = "b"
queue = "qb"
arrival = 0
[[jobs.tasks]]
requests = { cpu = "2", memory = "1Gi", "nvidia.com/gpu" = 1 }
duration = 4
node_selector = { pool = "gpu" }

[[jobs]]
name = "c"
queue = "qa"
arrival = 2
min_member = 2
[[jobs.tasks]]
replicas = 2
requests = { cpu = "2", memory = "1Gi" }
duration = 5
node_selector = { pool = "cpu" }

[[jobs]]
name = "d"
queue = "qb"
arrival = 3
[[jobs.tasks]]
requests = { cpu = "1", memory = "1Gi", "nvidia.com/gpu" = 1 }
duration = 3
node_selector = { pool = "gpu" }
)";

class RunResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    opts_.config = fs::path(CALDERA_SOURCE_ROOT) / "conf" / "caldera.toml";
    opts_.cluster = write(dir_, "cluster.toml", kCluster);
    opts_.workload = write(dir_, "workload.toml", kWorkload);
    opts_.results = dir_ / "out";
    common_.plugin_dirs = {CALDERA_BUILTIN_PLUGIN_DIR};
  }

  const caldera::testing::ScratchDir scratch_{"results-test"};
  const fs::path dir_ = scratch_.path();
  cli::Common common_;
  cli::RunOptions opts_;
};

TEST_F(RunResultsTest, NumbersMatchTheHandComputation) {
  ASSERT_EQ(cli::run(common_, opts_), 0);
  json j = json::parse(read(opts_.results / "results.json"));

  // Counts.
  EXPECT_EQ(j["counts"]["sessions"], 9);
  EXPECT_EQ(j["counts"]["binds"], 6);
  EXPECT_EQ(j["counts"]["evictions"], 0);
  EXPECT_EQ(j["counts"]["unschedulable_attempts"], 8);
  EXPECT_EQ(j["counts"]["jobs_total"], 4);
  EXPECT_EQ(j["counts"]["jobs_finished"], 4);
  EXPECT_EQ(j["counts"]["jobs_failed"], 0);
  EXPECT_EQ(j["sessions"]["time"], json({0, 1, 2, 3, 4, 6, 10, 11, 15}));
  EXPECT_EQ(j["sessions"]["binds"], json({3, 0, 0, 1, 0, 0, 2, 0, 0}));
  EXPECT_EQ(j["sessions"]["unschedulable"], json({0, 0, 2, 2, 2, 2, 0, 0, 0}));
  EXPECT_EQ(j["sessions"]["running_pods"], json({3, 3, 3, 4, 3, 2, 2, 2, 0}));
  EXPECT_EQ(j["sessions"]["pending_pods"], json({0, 0, 2, 2, 2, 2, 0, 0, 0}));

  // Jobs: wait = started - arrival, completion = finished - arrival.
  std::map<std::string, json> jobs;
  for (const auto& x : j["jobs"]) jobs[x["job"]] = x;
  EXPECT_EQ(jobs["default/a"]["wait"], 0);
  EXPECT_EQ(jobs["default/a"]["completion"], 10);
  EXPECT_EQ(jobs["default/b"]["completion"], 4);
  EXPECT_EQ(jobs["default/c"]["started"], 10);
  EXPECT_EQ(jobs["default/c"]["wait"], 8);
  EXPECT_EQ(jobs["default/c"]["completion"], 13);
  EXPECT_EQ(jobs["default/c"]["run_time"], 5);
  EXPECT_EQ(jobs["default/d"]["wait"], 0);
  EXPECT_EQ(jobs["default/d"]["completion"], 3);
  EXPECT_DOUBLE_EQ(j["times"]["mean_wait"].get<double>(), 2.0);           // (0+0+8+0)/4
  EXPECT_DOUBLE_EQ(j["times"]["mean_completion"].get<double>(), 7.5);     // (10+4+13+3)/4
  EXPECT_DOUBLE_EQ(j["times"]["max_wait"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(j["times"]["max_completion"].get<double>(), 13.0);

  // Queue shares of the cluster's 8 cpu, 16Gi, 4 GPUs.
  EXPECT_EQ(j["resources"]["cpu"]["allocatable"], 8);
  EXPECT_EQ(j["resources"]["memory"]["allocatable"], 16 * kGi);
  EXPECT_EQ(j["resources"]["nvidia.com/gpu"]["allocatable"], 4);
  const json& qa = j["queues"]["qa"];
  const json& qb = j["queues"]["qb"];
  EXPECT_EQ(qa["share"]["cpu"], json({0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0}));
  EXPECT_EQ(qa["share"]["memory"], json({0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.125, 0.125, 0}));
  EXPECT_EQ(qa["dominant_share"], json({0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0}));
  EXPECT_EQ(qa["dominant_resource"][0], "cpu");
  EXPECT_EQ(qa["allocated"]["cpu"], json({4, 4, 4, 4, 4, 4, 4, 4, 0}));
  EXPECT_EQ(qb["share"]["cpu"], json({0.25, 0.25, 0.25, 0.375, 0.125, 0, 0, 0, 0}));
  EXPECT_EQ(qb["share"]["nvidia.com/gpu"], json({0.25, 0.25, 0.25, 0.5, 0.25, 0, 0, 0, 0}));
  EXPECT_EQ(qb["share"]["memory"], json({0.0625, 0.0625, 0.0625, 0.125, 0.0625, 0, 0, 0, 0}));
  EXPECT_EQ(qb["dominant_share"], json({0.25, 0.25, 0.25, 0.5, 0.25, 0, 0, 0, 0}));
  EXPECT_EQ(qb["dominant_resource"][0], "cpu") << "a tie goes to the first resource by name";
  EXPECT_EQ(qb["dominant_resource"][3], "nvidia.com/gpu");
  EXPECT_TRUE(qb["dominant_resource"][5].is_null());
  // Deserved as proportion worked it out at t=0: each queue (weight 1 of 2) may have half
  // the cluster, capped at its request: qa a's 4 cpu and 4Gi, qb b's 2 cpu, 1Gi, 1 GPU.
  EXPECT_EQ(qa["deserved"]["cpu"][0], 4);
  EXPECT_EQ(qa["deserved"]["memory"][0], 4 * kGi);
  EXPECT_EQ(qa["deserved"]["nvidia.com/gpu"][0], 0);
  EXPECT_EQ(qb["deserved"]["cpu"][0], 2);
  EXPECT_EQ(qb["deserved"]["memory"][0], 1 * kGi);
  EXPECT_EQ(qb["deserved"]["nvidia.com/gpu"][0], 1);
  EXPECT_EQ(qa["deserved_share"][0], 0.5);   // 4 of 8 cpu
  EXPECT_EQ(qb["deserved_share"][0], 0.25);  // 2 of 8 cpu, 1 of 4 GPUs
  // Waits by queue: qa a 0 and c 8 (nearest rank: p50 the first, p95 and p99 the second).
  const json& wa = j["wait_by_queue"]["qa"];
  EXPECT_EQ(wa["started"], 2);
  EXPECT_EQ(wa["p50"], 0);
  EXPECT_EQ(wa["p95"], 8);
  EXPECT_EQ(wa["p99"], 8);
  EXPECT_EQ(wa["max"], 8);
  EXPECT_EQ(j["wait_by_queue"]["qb"]["p99"], 0);

  // Utilisation: n1 holds b (and d from 3 to 6), n2 holds a, then c.
  const json& n1 = j["nodes"]["n1"]["utilisation"];
  const json& n2 = j["nodes"]["n2"]["utilisation"];
  EXPECT_EQ(n1["cpu"], json({0.5, 0.5, 0.5, 0.75, 0.25, 0, 0, 0, 0}));
  EXPECT_EQ(n1["gpu"], json({0.25, 0.25, 0.25, 0.5, 0.25, 0, 0, 0, 0}));
  EXPECT_EQ(n1["memory"], json({0.125, 0.125, 0.125, 0.25, 0.125, 0, 0, 0, 0}));
  EXPECT_EQ(n2["cpu"], json({1, 1, 1, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(n2["memory"], json({0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0}));
  EXPECT_FALSE(n2.contains("gpu")) << "n2 has no GPU: no GPU utilisation";
  EXPECT_EQ(j["cluster_utilisation"]["cpu"],
            json({0.75, 0.75, 0.75, 0.875, 0.625, 0.5, 0.5, 0.5, 0}));
  EXPECT_EQ(j["cluster_utilisation"]["gpu"], json({0.25, 0.25, 0.25, 0.5, 0.25, 0, 0, 0, 0}));

  // The CSV files say the same.
  std::string jobs_csv = read(opts_.results / "jobs.csv");
  EXPECT_NE(jobs_csv.find("job,queue,pods,min_member,arrival,started,finished,wait,completion,"
                          "run_time,failed,evictions\n"),
            std::string::npos);
  EXPECT_NE(jobs_csv.find("\ndefault/c,qa,2,2,2,10,15,8,13,5,,0\n"), std::string::npos) << jobs_csv;
  std::string summary = read(opts_.results / "summary.csv");
  EXPECT_NE(summary.find("\nbinds,6\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\nunschedulable_attempts,8\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\nmean_completion,7.5\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\njobs_finished,4\njobs_failed,0\n"), std::string::npos) << summary;
  std::string shares = read(opts_.results / "queue_shares.csv");
  // The last column: what proportion said qb deserved in that session (its request: b and d,
  // 2 GPUs of 4 for a queue of weight 1 of 2).
  EXPECT_NE(shares.find("\n4,3,qb,nvidia.com/gpu,2,4,0.5,0.5,2\n"), std::string::npos) << shares;
  EXPECT_NE(shares.find("\n4,3,qb,memory,2147483648,17179869184,0.125,0.5,2147483648\n"),
            std::string::npos);
  std::string nodes = read(opts_.results / "node_utilisation.csv");
  EXPECT_NE(nodes.find("\n4,3,n1,gpu,2,4,0.5\n"), std::string::npos) << nodes;
  EXPECT_EQ(nodes.find(",n2,gpu,"), std::string::npos) << "no GPU rows for a node without GPUs";
  std::string cluster = read(opts_.results / "cluster_utilisation.csv");
  EXPECT_NE(cluster.find("\n5,4,cpu,5,8,0.625\n"), std::string::npos) << cluster;
  std::string sessions = read(opts_.results / "sessions.csv");
  EXPECT_NE(sessions.find("\n7,10,2,0,0,0,2,0\n"), std::string::npos) << sessions;

  // The report holds every plot, with one data path per queue and per resource.
  std::string html = read(opts_.results / "report.html");
  for (const char* id : {"plot-queue-share", "plot-cluster-utilisation", "plot-job-times",
                         "plot-binds", "plot-evictions", "plot-unschedulable",
                         "plot-node-utilisation-cpu", "plot-node-utilisation-memory",
                         "plot-node-utilisation-gpu", "table-counts", "table-wait", "table-jobs"})
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_NE(html.find("<path class=\"series\" data-name=\"qa\""), std::string::npos);
  EXPECT_NE(html.find("<path class=\"series\" data-name=\"qa deserved\""), std::string::npos);
  EXPECT_EQ(html.find("class=\"mark\""), std::string::npos) << "nothing evicted: no marks";
  EXPECT_NE(html.find("<path class=\"series\" data-name=\"gpu (cards)\""), std::string::npos);
  EXPECT_EQ(html.find(">failed<"), std::string::npos) << "no job failed: no failed legend";
  EXPECT_EQ(html.find("<script"), std::string::npos) << "no script";
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg")) << "nothing fetched";
  EXPECT_EQ(html.find("https://"), std::string::npos) << "nothing fetched";
}

TEST_F(RunResultsTest, ResultsEveryNeedsResultsAndTheFolderMustBeWritable) {
  opts_.results.clear();
  opts_.results_every = 2;
  EXPECT_EQ(cli::run(common_, opts_), 1);
  // A file where the folder should be.
  opts_.results = write(dir_, "not-a-folder", "x");
  EXPECT_THROW(prepare_results_dir(opts_.results), InputError);
  try {
    prepare_results_dir(opts_.results / "sub");
    FAIL() << "a folder inside a file cannot be made";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not-a-folder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cli::run(common_, opts_), 1);
}

TEST_F(RunResultsTest, ResultsEveryRewritesDuringTheRun) {
  // Stop at t=3 (the sessions at 0, 1, 2, 3), rewriting every 2 sessions: the files hold
  // the 4 sessions at the end, and the jobs that arrived by then.
  opts_.until = 3.5;
  opts_.results_every = 2;
  ASSERT_EQ(cli::run(common_, opts_), 0);
  json j = json::parse(read(opts_.results / "results.json"));
  EXPECT_EQ(j["counts"]["sessions"], 4);
  EXPECT_EQ(j["counts"]["jobs_arrived"], 4);
  EXPECT_EQ(j["counts"]["jobs_finished"], 0);
  EXPECT_EQ(j["counts"]["jobs_started"], 3);  // c still waits
  std::map<std::string, json> jobs;
  for (const auto& x : j["jobs"]) jobs[x["job"]] = x;
  EXPECT_TRUE(jobs["default/c"]["started"].is_null());
  EXPECT_TRUE(jobs["default/c"]["wait"].is_null());
  EXPECT_NE(read(opts_.results / "jobs.csv").find("\ndefault/c,qa,2,2,2,,,,,,,0\n"),
            std::string::npos);
}

// A job whose evicted pods fail (the workload's evicted_pods = "failed"), in every file:
// low (2 pods, min_member 1) fills n1 at 0; high preempts both at 1 and runs 2..7; low
// failed at 1, with no completion. Config: the demo's (Volcano's default with preempt).
TEST_F(RunResultsTest, AFailedJobInEveryFile) {
  opts_.config = fs::path(CALDERA_SOURCE_ROOT) / "conf" / "demo.toml";
  opts_.cluster = write(dir_, "cluster.toml", R"(
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
  opts_.workload = write(dir_, "workload.toml", R"(
evicted_pods = "failed"
[[jobs]]
name = "low"
queue = "q1"
priority_class = "low"
preemptable = true
arrival = 0
min_member = 1
[[jobs.tasks]]
replicas = 2
requests = { cpu = "2", memory = "1Gi" }
duration = 20
[[jobs]]
name = "high"
queue = "q1"
priority_class = "high"
arrival = 1
[[jobs.tasks]]
replicas = 2
requests = { cpu = "2", memory = "1Gi" }
duration = 5
)");
  ASSERT_EQ(cli::run(common_, opts_), 0);
  json j = json::parse(read(opts_.results / "results.json"));
  EXPECT_EQ(j["counts"]["evictions"], 2);
  EXPECT_EQ(j["counts"]["jobs_started"], 2);
  EXPECT_EQ(j["counts"]["jobs_finished"], 1);
  EXPECT_EQ(j["counts"]["jobs_failed"], 1);
  EXPECT_EQ(j["run"]["end_time"], 7);
  std::map<std::string, json> jobs;
  for (const auto& x : j["jobs"]) jobs[x["job"]] = x;
  EXPECT_EQ(jobs["default/low"]["started"], 0);
  EXPECT_EQ(jobs["default/low"]["failed"], 1);
  EXPECT_TRUE(jobs["default/low"]["finished"].is_null());
  EXPECT_TRUE(jobs["default/low"]["completion"].is_null());
  EXPECT_TRUE(jobs["default/low"]["run_time"].is_null());
  EXPECT_EQ(jobs["default/high"]["completion"], 6);
  EXPECT_TRUE(jobs["default/high"]["failed"].is_null());
  // Means are over the finished job alone.
  EXPECT_DOUBLE_EQ(j["times"]["mean_completion"].get<double>(), 6.0);

  // Both of low's pods evicted by preempt in the session at t=1.
  ASSERT_EQ(jobs["default/low"]["evictions"].size(), 2u);
  EXPECT_EQ(jobs["default/low"]["evictions"][0]["time"], 1);
  EXPECT_EQ(jobs["default/low"]["evictions"][0]["reason"], "preempt");
  EXPECT_EQ(jobs["default/high"]["evictions"].size(), 0u);

  std::string jobs_csv = read(opts_.results / "jobs.csv");
  EXPECT_NE(jobs_csv.find("\ndefault/low,q1,2,1,0,0,,0,,,1,2\n"), std::string::npos) << jobs_csv;
  EXPECT_NE(jobs_csv.find("\ndefault/high,q1,2,2,1,2,7,1,6,5,,0\n"), std::string::npos) << jobs_csv;
  // The report marks both evictions on low's row, as preemptions.
  std::string html = read(opts_.results / "report.html");
  size_t marks = 0;
  for (size_t at = html.find("class=\"mark\" data-kind=\"preempt\""); at != std::string::npos;
       at = html.find("class=\"mark\" data-kind=\"preempt\"", at + 1))
    ++marks;
  EXPECT_EQ(marks, 2u);
  EXPECT_NE(html.find(">evicted by preempt<"), std::string::npos);
  std::string summary = read(opts_.results / "summary.csv");
  EXPECT_NE(summary.find("\njobs_finished,1\njobs_failed,1\n"), std::string::npos) << summary;

  EXPECT_NE(html.find("<tr><th>jobs failed</th><td>1</td></tr>"), std::string::npos);
  EXPECT_NE(html.find(">failed</text>"), std::string::npos) << "the failed legend";
  EXPECT_NE(html.find("<td>failed 1s</td>"), std::string::npos) << "the jobs table";
  EXPECT_NE(html.find("fill=\"#e15759\"><title>default/low: arrived 0s, started 0s (waited 0s), "
                      "failed 1s</title>"),
            std::string::npos)
      << "low's bar, in the failed colour";
}

// GPU cards, whole and shared, counted by the collector on a hand-built cluster.
TEST(ResultsCollectorTest, GpuCardsWholeAndShared) {
  Cache cache;
  NodeSpec n;
  n.name = "g1";
  n.allocatable = {{"cpu", 8000}, {"memory", 8 * kGi}, {"nvidia.com/gpu", 4000},
                   {"caldera.sh/gpu-milli", 4000000}};
  cache.upsert_node(n);
  NodeSpec n2;  // cards declared the Volcano way
  n2.name = "g2";
  n2.allocatable = {{"cpu", 8000}, {"volcano.sh/gpu-number", 4000}};
  cache.upsert_node(n2);
  testing::add_queue(cache, "q");
  testing::add_podgroup(cache, "default", "j", "q");
  ResultsCollector c(cache);
  auto pod = [&](const std::string& name, ResourceList req, const std::string& node, PodPhase ph) {
    PodSpec p;
    p.name = name;
    p.podgroup = "j";
    p.requests = std::move(req);
    p.node = node;
    p.phase = ph;
    cache.upsert_pod(p);
  };
  pod("whole", {{"cpu", 1000}, {"nvidia.com/gpu", 2000}, {"caldera.sh/gpu-milli", 2000000}}, "g1",
      PodPhase::Running);
  pod("share", {{"cpu", 500}, {"caldera.sh/gpu-milli", 250000}}, "g1", PodPhase::Running);
  pod("done", {{"cpu", 4000}, {"nvidia.com/gpu", 1000}}, "g1", PodPhase::Succeeded);
  pod("waiting", {{"cpu", 1000}}, "", PodPhase::Pending);
  pod("number", {{"volcano.sh/gpu-number", 3000}}, "g2", PodPhase::Running);
  c.record_session(0, SessionResult{}, cache);
  const RunResults& r = c.results();
  ASSERT_EQ(r.sessions.size(), 1u);
  EXPECT_EQ(r.sessions[0].running_pods, 3u);
  EXPECT_EQ(r.sessions[0].pending_pods, 1u);
  EXPECT_DOUBLE_EQ(r.cluster_gpu_cards(), 8);
  EXPECT_DOUBLE_EQ(r.nodes.at("g1").gpu_used[0], 2.25);  // 2 whole cards + a quarter of one
  EXPECT_DOUBLE_EQ(r.nodes.at("g2").gpu_used[0], 3);
  EXPECT_DOUBLE_EQ(r.cluster_gpu_used(0), 5.25);
  // The raw resources: cpu 1.5 of 16; milli-GPU 2250 of 4000 (the whole-card pod asked it
  // too); volcano.sh/gpu-number 3 of 4.
  const QueueSeries& qs = r.queues.at("q");
  ASSERT_EQ(r.resources, (std::vector<std::string>{"caldera.sh/gpu-milli", "cpu", "memory",
                                                   "nvidia.com/gpu", "volcano.sh/gpu-number"}));
  EXPECT_DOUBLE_EQ(r.queue_share(qs, 0, 1), 1500.0 / 16000);
  EXPECT_DOUBLE_EQ(r.queue_share(qs, 0, 0), 2250000.0 / 4000000);
  EXPECT_DOUBLE_EQ(r.queue_share(qs, 0, 4), 0.75);
  int which = -1;
  EXPECT_DOUBLE_EQ(r.dominant_share(qs, 0, &which), 0.75);
  EXPECT_EQ(which, 4);
}

TEST(ResultsCollectorTest, AQueueFirstSeenLaterIsZeroBefore) {
  Cache cache;
  NodeSpec n;
  n.name = "n";
  n.allocatable = {{"cpu", 4000}};
  cache.upsert_node(n);
  ResultsCollector c(cache);
  c.record_session(0, SessionResult{}, cache);
  PodSpec p;
  p.name = "solo";  // no PodGroup: a job of its own in queue "default"
  p.requests = {{"cpu", 1000}};
  p.node = "n";
  p.phase = PodPhase::Running;
  cache.upsert_pod(p);
  c.record_session(1, SessionResult{}, cache);
  const RunResults& r = c.results();
  ASSERT_TRUE(r.queues.count("default"));
  EXPECT_DOUBLE_EQ(r.queue_share(r.queues.at("default"), 0, 0), 0);
  EXPECT_DOUBLE_EQ(r.queue_share(r.queues.at("default"), 1, 0), 0.25);
}

TEST(SvgChartsTest, TimelineDrawsFailedJobs) {
  svg::Timeline t;
  t.id = "t";
  t.title = "t";
  t.x_end = 10;
  t.rows = {{"ran", 0, 1, 5, false},
            {"ran-and-failed", 0, 2, 4, true},
            {"failed-waiting", 0, -1, 6, true},
            {"waits", 0, -1, -1, false}};
  std::string out = svg::timeline(t);
  EXPECT_NE(out.find(">failed</text>"), std::string::npos) << "the legend names failed";
  // One bar per job that started: finished in the run colour, failed in the failed colour.
  EXPECT_NE(out.find("fill=\"#4e79a7\"><title>ran:"), std::string::npos) << out;
  EXPECT_NE(out.find("fill=\"#e15759\"><title>ran-and-failed: arrived 0s, started 2s (waited "
                     "2s), failed 4s</title>"),
            std::string::npos)
      << out;
  // A job that failed before it started waited until it failed (a solid line); one still
  // waiting has a dashed line to the edge.
  size_t fw = out.find("<title>failed-waiting: arrived 0s, failed 6s</title>");
  ASSERT_NE(fw, std::string::npos) << out;
  size_t line = out.rfind("<line class=\"wait\"", fw);
  EXPECT_EQ(out.substr(line, fw - line).find("stroke-dasharray"), std::string::npos);
  size_t w = out.find("<title>waits: arrived 0s</title>");
  ASSERT_NE(w, std::string::npos);
  line = out.rfind("<line class=\"wait\"", w);
  EXPECT_NE(out.substr(line, w - line).find("stroke-dasharray"), std::string::npos);
}

TEST(SvgChartsTest, StepSeriesKeepOnlyChangesAndFitThePixels) {
  svg::LineChart c;
  c.id = "t";
  c.title = "t";
  svg::Series s{"a<b", {}, {}};
  for (int i = 0; i < 100000; ++i) {
    s.x.push_back(i);
    s.y.push_back((i / 1000) % 2);  // 100 changes
  }
  c.series.push_back(s);
  std::string out = svg::line_chart(c);
  EXPECT_NE(out.find("data-name=\"a&lt;b\""), std::string::npos);
  size_t from = out.find(" d=\"M"), to = out.find('"', from + 4);
  std::string d = out.substr(from, to - from);
  size_t points = std::count(d.begin(), d.end(), 'L') + 1;
  EXPECT_GE(points, 150u) << "every change drawn";
  EXPECT_LE(points, 2 * 100u + 10) << "no point where nothing changes";
  // A value that changes at every one of 100,000 points: at most 4 points per pixel column
  // (the plot is under 400 pixels wide), and the extremes (0 and 1) are still drawn.
  svg::LineChart busy = c;
  busy.series[0].y.clear();
  for (int i = 0; i < 100000; ++i) busy.series[0].y.push_back(i % 2);
  out = svg::line_chart(busy);
  from = out.find(" d=\"M");
  to = out.find('"', from + 4);
  d = out.substr(from, to - from);
  points = std::count(d.begin(), d.end(), 'L') + 1;
  EXPECT_LE(points, 4u * 400) << "thinned to the pixels";
  EXPECT_GE(points, 2u * 300) << "both values drawn in every column";

  EXPECT_EQ(svg::nice_ticks(0, 15), (std::vector<double>{0, 5, 10, 15}));
  EXPECT_EQ(svg::nice_ticks(0, 90), (std::vector<double>{0, 20, 40, 60, 80}));
  EXPECT_FALSE(std::signbit(svg::nice_ticks(0, 15)[0])) << "no -0 label";
  EXPECT_EQ(svg::nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1}));
}

}  // namespace
}  // namespace caldera
