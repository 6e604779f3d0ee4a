// The workload file's errors: every bad value is refused with file, line, column and the
// object path of the value, in the format host/toml/reader.hpp documents, and nothing
// missing silently becomes zero (host/backend/sim/workload.hpp).
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
     "jobs[0] (default/a): missing key 'arrival'; expected the job's arrival time in seconds"},
    {"arrival a string", "[[jobs]]\nname = \"a\"\narrival = \"5\"\n[[jobs.tasks]]\nduration = 1\n", 3,
     "jobs[0] (default/a).arrival: got a string; expected a number of seconds"},
    {"arrival negative", "[[jobs]]\nname = \"a\"\narrival = -1\n[[jobs.tasks]]\nduration = 1\n", 3,
     "jobs[0] (default/a).arrival: -1 is out of range; expected a number of seconds of zero or more"},
    {"arrival nan", "[[jobs]]\nname = \"a\"\narrival = nan\n[[jobs.tasks]]\nduration = 1\n", 3,
     "jobs[0] (default/a).arrival: nan is not finite"},
    {"duration inf", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = inf\n", 5,
     "jobs[0] (default/a).tasks[0].duration: inf is not finite"},
    {"duration missing", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 1\n", 4,
     "jobs[0] (default/a).tasks[0]: missing key 'duration'"},
    {"duration negative", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = -3\n", 5,
     "tasks[0].duration: -3 is out of range"},
    {"duration a table", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = {}\n", 5,
     "tasks[0].duration: got a table; expected a number of seconds"},
    {"replicas fractional",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 2.5\nduration = 1\n", 5,
     "tasks[0].replicas: 2.5 is not a whole number; expected a whole number from 1 to 1000000"},
    {"replicas zero", "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 0\nduration = 1\n", 5,
     "tasks[0].replicas: 0 is out of range; expected a whole number from 1 to 1000000"},
    {"replicas huge",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 1e12\nduration = 1\n", 5,
     "tasks[0].replicas: 1000000000000 is out of range"},
    {"min_member fractional",
     "[[jobs]]\nname = \"a\"\narrival = 0\nmin_member = 1.5\n[[jobs.tasks]]\nreplicas = 2\nduration = 1\n", 4,
     "jobs[0] (default/a).min_member: 1.5 is not a whole number"},
    {"min_member above the tasks",
     "[[jobs]]\nname = \"a\"\narrival = 0\nmin_member = 3\n[[jobs.tasks]]\nreplicas = 2\nduration = 1\n", 4,
     "jobs[0] (default/a).min_member: 3 is more than the job's 2 tasks"},
    {"min above replicas",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nreplicas = 2\nmin = 3\nduration = 1\n", 6,
     "tasks[0].min: 3 is more than the task's 2 replicas"},
    {"request not a quantity",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = { cpu = \"abc\" }\nduration = 1\n", 5,
     "tasks[0].requests.cpu: 'abc' is not a quantity"},
    {"request empty",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = { cpu = \"\" }\nduration = 1\n", 5,
     "tasks[0].requests.cpu: '' is not a quantity"},
    {"request a boolean",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = { cpu = true }\nduration = 1\n", 5,
     "tasks[0].requests.cpu: got a boolean; expected a quantity"},
    {"request negative",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = { memory = \"-1Gi\" }\nduration = 1\n", 5,
     "tasks[0].requests.memory: '-1Gi' is negative"},
    {"requests not a table",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrequests = \"2\"\nduration = 1\n", 5,
     "tasks[0].requests: got a string; expected a table of quantities"},
    {"unknown job key", "[[jobs]]\nname = \"a\"\narival = 3\n[[jobs.tasks]]\nduration = 1\n", 3,
     "jobs[0] (default/a): unknown key 'arival' (did you mean 'arrival'?)"},
    {"unknown task key",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduraton = 1\nduration = 1\n", 5,
     "tasks[0]: unknown key 'duraton' (did you mean 'duration'?)"},
    {"unknown top-level key", "job = 1\n", 1,
     "unknown top-level key 'job' (did you mean 'jobs'?)"},
    {"evicted_pods unknown", "evicted_pods = \"restart\"\n", 1,
     "evicted_pods: unknown value 'restart'; expected one of pending, failed"},
    {"evicted_pods not a string", "\nevicted_pods = true\n", 2,
     "evicted_pods: got a boolean; expected one of pending, failed"},
    {"name missing", "[[jobs]]\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 1,
     "jobs[0]: missing key 'name'"},
    {"name with a slash", "[[jobs]]\nname = \"a/b\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 2,
     "jobs[0] (default/a/b).name: 'a/b' contains '/'; expected a non-empty name without '/' or spaces"},
    {"name empty", "[[jobs]]\nname = \"\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 2,
     "jobs[0].name: empty name"},
    {"namespace not a string",
     "[[jobs]]\nname = \"a\"\nnamespace = 3\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 3,
     "jobs[0] (default/a).namespace: got an integer; expected a non-empty name"},
    {"role twice",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nrole = \"w\"\nduration = 1\n"
     "[[jobs.tasks]]\nrole = \"w\"\nduration = 2\n", 8,
     "tasks[1] (w).role: role 'w' appears twice in the job"},
    {"toleration effect",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n"
     "tolerations = [{ key = \"k\", operator = \"Exists\", effect = \"Sometimes\" }]\n", 6,
     "tolerations[0].effect: unknown effect 'Sometimes'"},
    {"toleration operator",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n"
     "tolerations = [{ key = \"k\", operator = \"In\" }]\n", 6,
     "tolerations[0].operator: unknown operator 'In'; expected one of Equal, Exists"},
    {"preemptable a string",
     "[[jobs]]\nname = \"a\"\narrival = 0\npreemptable = \"yes\"\n[[jobs.tasks]]\nduration = 1\n", 4,
     "jobs[0] (default/a).preemptable: got a string; expected true or false"},
    {"node_selector value",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\nnode_selector = { pool = 1 }\n", 6,
     "tasks[0].node_selector.pool: got an integer; expected a string"},
    {"no tasks", "[[jobs]]\nname = \"a\"\narrival = 0\n", 1,
     "jobs[0] (default/a): missing key 'tasks'"},
    {"same job twice",
     "[[jobs]]\nname = \"a\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n"
     "[[jobs]]\nname = \"a\"\narrival = 1\n[[jobs.tasks]]\nduration = 1\n", 6,
     "jobs[1] (default/a): duplicate job 'default/a'"},
    {"TOML syntax", "[[jobs]]\nname = \"a\nduration = 1\n", 2, "TOML syntax error"},
    {"jobs empty", "\njobs = []\n", 2, "jobs: no jobs; expected [[jobs]] tables"},
    {"tasks empty", "[[jobs]]\nname = \"a\"\narrival = 0\ntasks = []\n", 4,
     "jobs[0] (default/a).tasks: no tasks; expected at least one [[jobs.tasks]]"},
    {"name with a space", "[[jobs]]\nname = \"a b\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n", 2,
     "jobs[0] (default/a b).name: 'a b' contains a space"},
    {"jobs a table", "[jobs]\nname = \"a\"\n", 1, "jobs: got a table; expected an array of tables ([[jobs]])"},
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

// The whole message, in the format every reader shares (host/toml/reader.hpp):
// FILE:LINE:COLUMN: OBJECT: PROBLEM; expected WHAT.
TEST(WorkloadTest, ErrorsInTheSharedFormat) {
  fs::path dir = fs::temp_directory_path() / ("caldera-wl-fmt-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "w.toml";
  std::ofstream(file) << "[[jobs]]\nname = \"train\"\nnamespace = \"ml\"\narrival = 0\n"
                         "[[jobs.tasks]]\nrole = \"worker\"\nreplicas = 2\n"
                         "requests = { cpu = \"2\", \"nvidia.com/gpu\" = \"one\" }\nduration = 5\n";
  try {
    load_workload(file);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              file.string() + ":8:44: jobs[0] (ml/train).tasks[0] (worker).requests."
                              "\"nvidia.com/gpu\": 'one' is not a quantity; expected a quantity "
                              "such as \"2\", \"500m\", \"4Gi\", \"1G\" or \"1e3\" (a string or a "
                              "number)");
  }
  try {
    load_workload(dir / "none.toml");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "none.toml").string() +
                                         ": cannot read the workload: no such file");
  }
  fs::remove_all(dir);
}

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
       "w.toml:9:9: jobs[1] (default/b).queue: queue 'nope' is not in"},
      {"[[jobs]]\nname = \"b\"\npriority_class = \"gold\"\narrival = 0\n[[jobs.tasks]]\nduration = 1\n",
       "w.toml:3:18: jobs[0] (default/b).priority_class: priority class 'gold' is not in"},
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
