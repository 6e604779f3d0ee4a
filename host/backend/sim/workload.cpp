// The embedded cluster's workload file (workload.hpp has the format), read through
// host/toml/ so its errors read like every other input error (host/toml/reader.hpp).
#include "host/backend/sim/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "host/model/quantity.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/toml/quantity.hpp"
#include "host/toml/reader.hpp"

namespace caldera {

namespace {

using input::Table;
using input::Value;

constexpr const char* kName = "a non-empty name without '/' or spaces";

// Names become parts of pod names (NAME-ROLE-INDEX) and keys (NAMESPACE/NAME).
std::string checked_name(const Value& v) {
  std::string s = v.string(kName);
  if (s.empty()) v.fail("empty name", kName);
  for (char c : s)
    if (c == '/' || std::isspace(static_cast<unsigned char>(c)))
      v.fail(fmt::format("'{}' contains {}", s, c == '/' ? "'/'" : "a space"), kName);
  return s;
}

// A time or a duration in seconds: a finite number of zero or more.
double seconds(const Value& v) {
  const double x = v.number("a number of seconds");
  if (x < 0) v.fail(fmt::format("{} is out of range", v.written()), "a number of seconds of zero or more");
  return x;
}

// A count: a whole number (an integer, or a float without fraction) from `min` to
// kMaxCount.
constexpr double kMaxCount = 1000000;
int32_t count(const Value& v, double min) {
  const std::string expected = fmt::format("a whole number from {} to {:.0f}", min, kMaxCount);
  if (!v.node().is_number()) v.wrong_type(expected);
  const double x = v.number();
  if (x != std::floor(x)) v.fail(fmt::format("{} is not a whole number", v.written()), expected);
  if (x < min || x > kMaxCount) v.fail(fmt::format("{} is out of range", v.written()), expected);
  return static_cast<int32_t>(x);
}

std::string peek(const Table& t, const char* key) {
  const toml::node* n = t.raw().get(key);
  return n && n->is_string() ? n->as_string()->get() : std::string();
}


}  // namespace

Workload load_workload(const std::filesystem::path& file) {
  const input::Document doc = input::parse_file(file, "workload");
  const Table root = doc.table();
  root.check_keys({"evicted_pods", "jobs"});

  Workload w;
  // What an evicted pod becomes (SimCluster::apply): no default but the documented one.
  w.evicted_pods_fail =
      root.opt_choice<bool>("evicted_pods", {{"pending", false}, {"failed", true}}).value_or(false);
  std::optional<Value> jobs = root.get("jobs");
  if (!jobs) return w;
  if (jobs->node().is_array() && jobs->node().as_array()->empty())
    jobs->fail("no jobs", "[[jobs]] tables; leave 'jobs' out for a workload without jobs");
  std::set<std::string> seen;
  for (const Table& jt0 : root.tables("jobs")) {
    std::string peek_ns = peek(jt0, "namespace");
    const Table jt = peek(jt0, "name").empty()
                         ? jt0
                         : jt0.named((peek_ns.empty() ? "default" : peek_ns) + "/" + peek(jt0, "name"));
    jt.check_keys({"name", "namespace", "queue", "arrival", "min_member", "priority_class",
                   "preemptable", "tasks"});
    WorkloadJob job;
    job.object = jt.path();
    auto& pg = job.podgroup;
    pg.name = checked_name(jt.require("name", kName));
    if (auto ns = jt.get("namespace")) pg.ns = checked_name(*ns);
    pg.src = jt.src();
    if (!seen.insert(pg.key()).second)
      jt.fail(fmt::format("duplicate job '{}'", pg.key()), "a name no other job of the namespace has");
    if (auto q = jt.get("queue")) {
      pg.queue = q->string("the name of a queue of the cluster");
      job.queue_src = q->src();
    }
    if (auto pc = jt.get("priority_class")) {
      pg.priority_class = pc->string("the name of a priority class of the cluster");
      job.priority_class_src = pc->src();
    }
    // No default: a job whose arrival is missing must not silently arrive at 0.
    job.arrival = seconds(jt.require("arrival", "the job's arrival time in seconds"));
    pg.created = job.arrival;
    pg.phase_since = job.arrival;
    pg.phase = JobPhase::Pending;
    const bool preemptable = jt.opt_bool("preemptable").value_or(false);
    const Value tasks = jt.require("tasks", "[[jobs.tasks]]: the job's tasks");
    if (tasks.node().is_array() && tasks.node().as_array()->empty())
      tasks.fail("no tasks", "at least one [[jobs.tasks]]");
    std::set<std::string> roles;
    for (const Table& tt0 : jt.tables("tasks")) {
      const std::string peek_role = peek(tt0, "role");
      const Table tt = peek_role.empty() ? tt0 : tt0.named(peek_role);
      tt.check_keys({"role", "replicas", "min", "requests", "duration", "node_selector",
                     "tolerations", "labels"});
      const std::optional<Value> role_v = tt.get("role");
      const std::string role = role_v ? checked_name(*role_v) : "task";
      if (!roles.insert(role).second)
        (role_v ? *role_v : tt.value())
            .fail(fmt::format("role '{}' appears twice in the job", role),
                  "a role no other task of the job has (its pods would have the same names)");
      std::optional<Value> rv = tt.get("replicas");
      const int32_t replicas = rv ? count(*rv, 1) : 1;
      if (auto mv = tt.get("min")) {
        int32_t min = count(*mv, 0);
        if (min > replicas)
          mv->fail(fmt::format("{} is more than the task's {} replicas", min, replicas),
                   "at most 'replicas'");
        pg.min_task_member[role] = min;
      }
      ResourceList req;
      if (auto r = tt.get("requests")) req = input::resource_list(*r, resource_amount);
      const double duration = seconds(tt.require("duration", "the task's run time in seconds"));
      StringMap selector = tt.string_map("node_selector");
      StringMap labels = tt.string_map("labels");
      std::vector<Toleration> tols;
      if (auto tv = tt.get("tolerations")) tols = read_tolerations(*tv);
      const SourceRef task_src = tt.src();
      for (int32_t i = 0; i < replicas; ++i) {
        WorkloadTask task;
        PodSpec& pod = task.pod;
        pod.ns = pg.ns;
        pod.name = fmt::format("{}-{}-{}", pg.name, role, i);
        pod.podgroup = pg.name;
        pod.requests = req;
        pod.labels = labels;
        pod.labels["volcano.sh/task-spec"] = role;
        // Written either way: a pod without it is preemptable (Volcano's default), and
        // the workload format's default is not.
        pod.labels["volcano.sh/preemptable"] = preemptable ? "true" : "false";
        pod.node_selector = selector;
        pod.tolerations = tols;
        pod.priority_class = pg.priority_class;
        pod.created = job.arrival;
        pod.src = task_src;
        task.duration = duration;
        task.object = tt.path();
        job.tasks.push_back(std::move(task));
      }
    }
    int32_t total = static_cast<int32_t>(job.tasks.size());
    pg.min_member = total;
    if (auto mv = jt.get("min_member")) {
      int32_t mm = count(*mv, 0);
      if (mm > total)
        mv->fail(fmt::format("{} is more than the job's {} tasks", mm, total),
                 fmt::format("at most the job's number of pods ({})", total));
      pg.min_member = mm;
    }
    w.jobs.push_back(std::move(job));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const WorkloadJob& a, const WorkloadJob& b) {
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    return a.podgroup.key() < b.podgroup.key();
  });
  return w;
}

}  // namespace caldera
