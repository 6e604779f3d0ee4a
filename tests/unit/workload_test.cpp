// The workload file's errors: every bad value is refused with file, line and the key, and
// nothing missing silently becomes zero (host/backend/sim/workload.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>

#include "host/backend/sim/sim_cluster.hpp"
#include "host/backend/sim/workload.hpp"
#include "host/util/input_error.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;

struct BadCase {
  const char* what;
  const char* text;
  int line;            // where the message must point
  const char* needle;  // what it must say (the key and the fault)
};

// A valid job, for reference:
//   [[jobs]] / name = "a" / arrival = 0 / [[jobs.tasks]] / replicas = 2 /
//   requests = { cpu = "1" } / duration = 10
const BadCase kCases[] = {
    {"arrival missing", "[[jobs]]\nname = \"a\"\n[[jobs.tasks]]\nduration = 1\n", 1,
     "a job needs an 'arrival'"},
    {"arrival a string", "[[jobs]]\nname = \"a\"\narrival = \"5\"\n[[jobs.tasks]]\nduration = 1\n", 3,
     "'arrival' must be a number"},
    {"arrival negative", "[[jobs]]\nname = \"a\"\narrival = -1\n[[jobs.tasks]]\nduration = 1\n", 3,
     "'arrival' must not be negative"},
    {"arrival nan", "[[jobs]]\nname = \"a\"\narrival = nan\n[[jobs.tasks]]\nduration = 1\n", 3,
     "'arrival' must be a finite number"},
    {"duration inf", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = inf\n", 5,
     "'duration' must be a finite number"},
    {"duration missing", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 1\n", 4,
     "a task needs a 'duration'"},
    {"duration negative", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = -3\n", 5,
     "'duration' must not be negative"},
    {"duration a table", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = {}\n", 5,
     "'duration' must be a number"},
    {"replicas fractional",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 2.5\nduration = 1\n", 5,
     "'replicas' must be a whole number"},
    {"replicas zero", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 0\nduration = 1\n",
     5, "'replicas' must be a whole number from 1"},
    {"replicas huge",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 1e12\nduration = 1\n", 5,
     "'replicas' must be a whole number"},
    {"min_member fractional",
     "[[jobs]]\nname = \"a\"\narrival = 0\nmin_member = 1.5\n[[jobs.tasks]]\nreplicas = 2\nduration = 1\n",
     4, "'min_member' must be a whole number"},
    {"min_member above the tasks",
     "[[jobs]]\nname = \"a\"\narrival = 0\nmin_member = 3\n[[jobs.tasks]]\nreplicas = 2\nduration = 1\n",
     4, "'min_member' exceeds the job's 2 tasks"},
    {"min above replicas",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 2\nmin = 3\nduration = 1\n", 6,
     "'min' exceeds 'replicas'"},
    {"request not a quantity",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = { cpu = \"abc\" }\nduration = 1\n",
     5, "request 'cpu': bad quantity 'abc'"},
    {"request empty",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = { cpu = \"\" }\nduration = 1\n",
     5, "request 'cpu': bad quantity ''"},
    {"request a boolean",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = { cpu = true }\nduration = 1\n",
     5, "request 'cpu' must be a quantity"},
    {"request negative",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = { memory = \"-1Gi\" }\nduration = 1\n",
     5, "request 'memory' must not be negative"},
    {"requests not a table",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = \"2\"\nduration = 1\n", 5,
     "'requests' must be a table"},
    {"unknown job key", "[[jobs]]\nname = \"a\"\narival = 3\n[[jobs.tasks]]\nduration = 1\n", 3,
     "unknown key 'arival'"},
    {"unknown task key",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduraton = 1\nduration = 1\n", 5,
     "unknown key 'duraton'"},
    {"unknown top-level key", "job = 1\n", 1, "unknown key 'job'"},
    {"evicted_pods unknown", "evicted_pods = \"restart\"\n", 1,
     "workload: 'evicted_pods' = 'restart': must be \"pending\" or \"failed\""},
    {"evicted_pods not a string", "\nevicted_pods = true\n", 2,
     "workload: 'evicted_pods' must be a string"},
    {"name missing", "[[jobs]]\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 1, "a job needs a 'name'"},
    {"name with a slash", "[[jobs]]\nname = \"a/b\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 2,
     "'name' = 'a/b': a name must be non-empty, without '/'"},
    {"name empty", "[[jobs]]\nname = \"\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 2,
     "'name' = ''"},
    {"namespace not a string",
     "[[jobs]]\nname = \"a\"\nnamespace = 3\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 3,
     "'namespace' must be a string"},
    {"role twice",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrole = \"w\"\nduration = 1\n"
     "[[jobs.tasks]]\nrole = \"w\"\nduration = 2\n",
     8, "role 'w' appears twice"},
    {"toleration effect",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n"
     "tolerations = [{ key = \"k\", operator = \"Exists\", effect = \"Sometimes\" }]\n",
     6, "toleration effect 'Sometimes'"},
    {"toleration operator",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n"
     "tolerations = [{ key = \"k\", operator = \"In\" }]\n",
     6, "toleration operator must be Equal or Exists"},
    {"preemptable a string",
     "[[jobs]]\nname = \"a\"\narrival = 0\npreemptable = \"yes\"\n[[jobs.tasks]]\nduration = 1\n", 4,
     "'preemptable' must be true or false"},
    {"node_selector value",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\nnode_selector = { pool = 1 }\n",
     6, "'node_selector.pool' must be a string"},
    {"no tasks", "[[jobs]]\nname = \"a\"\narrival = 0\n", 1, "a job needs [[jobs.tasks]]"},
    {"same job twice",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n"
     "[[jobs]]\nname = \"a\"\narrival = 1\n[[jobs.tasks]]\nduration = 1\n",
     6, "a job of this name exists already"},
    {"TOML syntax", "[[jobs]]\nname = \"a\nduration = 1\n", 2, ""},
};

class WorkloadErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(WorkloadErrors, NameFileLineAndKey) {
  const BadCase& c = GetParam();
  fs::path dir = fs::temp_directory_path() / ("caldera-wl-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "w.toml";
  std::ofstream(file) << c.text;
  try {
    load_workload(file);
    ADD_FAILURE() << c.what << ": accepted";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find(fmt::format("w.toml:{}:", c.line)), std::string::npos) << c.what << ": " << m;
    EXPECT_NE(m.find(c.needle), std::string::npos) << c.what << ": " << m;
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(EveryField, WorkloadErrors, ::testing::ValuesIn(kCases));

TEST(WorkloadTest, DefaultsAreTheDocumentedOnes) {
  fs::path dir = fs::temp_directory_path() / ("caldera-wl-ok-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "w.toml";
  std::ofstream(file) << "[[jobs]]\nname = \"late\"\narrival = 7.5\n[[jobs.tasks]]\nduration = 3\n"
                         "[[jobs]]\nname = \"early\"\nqueue = \"q\"\narrival = 1\n"
                         "[[jobs.tasks]]\nrole = \"w\"\nreplicas = 3\nmin = 2\n"
                         "requests = { cpu = \"500m\" }\nduration = 2\n";
  Workload w = load_workload(file);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_FALSE(w.evicted_pods_fail);  // evicted pods return to Pending
  EXPECT_EQ(w.jobs[0].podgroup.name, "early");  // sorted by arrival
  EXPECT_EQ(w.jobs[0].podgroup.min_member, 3);  // every task
  EXPECT_EQ(w.jobs[0].podgroup.min_task_member.at("w"), 2);
  ASSERT_EQ(w.jobs[0].tasks.size(), 3u);
  EXPECT_EQ(w.jobs[0].tasks[2].pod.name, "early-w-2");
  EXPECT_DOUBLE_EQ(w.jobs[0].tasks[0].pod.requests.at("cpu"), 500);
  EXPECT_EQ(w.jobs[0].tasks[0].pod.src.line, 10);  // its [[jobs.tasks]]
  const WorkloadJob& late = w.jobs[1];
  EXPECT_EQ(late.podgroup.ns, "default");
  EXPECT_EQ(late.podgroup.queue, "default");
  EXPECT_DOUBLE_EQ(late.arrival, 7.5);
  EXPECT_EQ(late.tasks.size(), 1u);
  EXPECT_EQ(late.tasks[0].pod.name, "late-task-0");
  EXPECT_TRUE(late.tasks[0].pod.requests.empty());  // no requests: a best-effort pod
  fs::remove_all(dir);
}

TEST(WorkloadTest, EvictedPodsTakesBothValues) {
  fs::path dir = fs::temp_directory_path() / ("caldera-wl-ev-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "w.toml";
  const std::string job = "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n";
  std::ofstream(file) << "evicted_pods = \"failed\"\n" << job;
  EXPECT_TRUE(load_workload(file).evicted_pods_fail);
  std::ofstream(file) << "evicted_pods = \"pending\"\n" << job;
  EXPECT_FALSE(load_workload(file).evicted_pods_fail);
  fs::remove_all(dir);
}

// What the workload names must exist in the cluster: the error points at the job's line.
TEST(WorkloadTest, QueueAndPriorityClassMustBeInTheCluster) {
  fs::path dir = fs::temp_directory_path() / ("caldera-wl-cl-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path cluster = dir / "c.toml";
  std::ofstream(cluster) << "[[queues]]\nname = \"q\"\n[[nodes]]\nname = \"n\"\n"
                            "allocatable = { cpu = \"4\", memory = \"4Gi\" }\n";
  struct {
    const char* text;
    const char* needle;
  } cases[] = {
      {"[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n\n"
       "[[jobs]]\nname = \"b\"\nqueue = \"nope\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n",
       "w.toml:7:1: job default/b: queue 'nope' is not in"},
      {"[[jobs]]\nname = \"b\"\npriority_class = \"gold\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n",
       "w.toml:1:1: job default/b: priority class 'gold' is not in"},
  };
  for (const auto& c : cases) {
    fs::path wl = dir / "w.toml";
    std::ofstream(wl) << c.text;
    try {
      SimCluster sim(cluster, wl);
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace caldera
