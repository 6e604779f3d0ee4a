#include "host/backend/sim/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <toml++/toml.h>

#include "host/model/quantity.hpp"
#include "host/util/input_error.hpp"

namespace caldera {

namespace {

std::string where(const std::filesystem::path& file, const toml::node& n) {
  const auto& b = n.source().begin;
  return fmt::format("{}:{}:{}", file.string(), b.line, b.column);
}

[[noreturn]] void fail(const std::filesystem::path& file, const toml::node& n,
                       const std::string& object, const std::string& msg) {
  throw InputError(fmt::format("{}: {}: {}", where(file, n), object, msg));
}

void check_keys(const std::filesystem::path& file, const toml::table& t, const std::string& object,
                const std::set<std::string>& allowed) {
  for (const auto& [k, v] : t) {
    if (!allowed.count(std::string(k.str()))) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(file, v, object, fmt::format("unknown key '{}'; allowed: {}", k.str(), list));
    }
  }
}

std::string get_string(const std::filesystem::path& file, const toml::table& t, const char* key,
                       const std::string& object, const std::string& fallback) {
  const toml::node* n = t.get(key);
  if (!n) return fallback;
  if (!n->is_string()) fail(file, *n, object, fmt::format("'{}' must be a string", key));
  return n->as_string()->get();
}

double get_number(const std::filesystem::path& file, const toml::table& t, const char* key,
                  const std::string& object, double fallback) {
  const toml::node* n = t.get(key);
  if (!n) return fallback;
  double v;
  if (n->is_integer())
    v = static_cast<double>(n->as_integer()->get());
  else if (n->is_floating_point())
    v = n->as_floating_point()->get();
  else
    fail(file, *n, object, fmt::format("'{}' must be a number", key));
  if (!std::isfinite(v)) fail(file, *n, object, fmt::format("'{}' must be a finite number", key));
  if (v < 0) fail(file, *n, object, fmt::format("'{}' must not be negative", key));
  return v;
}

// A count: a whole number from `min` to kMaxCount. Absent: `fallback`.
constexpr double kMaxCount = 1000000;
int32_t get_count(const std::filesystem::path& file, const toml::table& t, const char* key,
                  const std::string& object, int32_t fallback, double min) {
  const toml::node* n = t.get(key);
  if (!n) return fallback;
  double v = get_number(file, t, key, object, 0);
  if (v != std::floor(v) || v < min || v > kMaxCount)
    fail(file, *n, object,
         fmt::format("'{}' must be a whole number from {} to {:.0f}", key, min, kMaxCount));
  return static_cast<int32_t>(v);
}

// Names become parts of pod names (NAME-ROLE-INDEX) and keys (NAMESPACE/NAME).
void check_name(const std::filesystem::path& file, const toml::table& t, const char* key,
                const std::string& object, const std::string& value) {
  bool ok = !value.empty();
  for (char c : value)
    if (c == '/' || std::isspace(static_cast<unsigned char>(c))) ok = false;
  if (!ok)
    fail(file, t.get(key) ? *t.get(key) : static_cast<const toml::node&>(t), object,
         fmt::format("'{}' = '{}': a name must be non-empty, without '/' or spaces", key, value));
}

StringMap get_string_map(const std::filesystem::path& file, const toml::table& t, const char* key,
                         const std::string& object) {
  StringMap out;
  const toml::node* n = t.get(key);
  if (!n) return out;
  if (!n->is_table()) fail(file, *n, object, fmt::format("'{}' must be a table", key));
  for (const auto& [k, v] : *n->as_table()) {
    if (!v.is_string())
      fail(file, v, object, fmt::format("'{}.{}' must be a string", key, k.str()));
    out[std::string(k.str())] = v.as_string()->get();
  }
  return out;
}

ResourceList get_requests(const std::filesystem::path& file, const toml::table& t,
                          const std::string& object) {
  ResourceList out;
  const toml::node* n = t.get("requests");
  if (!n) return out;
  if (!n->is_table()) fail(file, *n, object, "'requests' must be a table");
  for (const auto& [k, v] : *n->as_table()) {
    std::string name(k.str());
    std::string text;
    if (v.is_string())
      text = v.as_string()->get();
    else if (v.is_integer())
      text = std::to_string(v.as_integer()->get());
    else if (v.is_floating_point())
      text = fmt::format("{}", v.as_floating_point()->get());
    else
      fail(file, v, object, fmt::format("request '{}' must be a quantity", name));
    auto amount = resource_amount(name, text);
    if (!amount) fail(file, v, object, fmt::format("request '{}': bad quantity '{}'", name, text));
    if (*amount < 0) fail(file, v, object, fmt::format("request '{}' must not be negative", name));
    out[name] = *amount;
  }
  return out;
}

std::vector<Toleration> get_tolerations(const std::filesystem::path& file, const toml::table& t,
                                        const std::string& object) {
  std::vector<Toleration> out;
  const toml::node* n = t.get("tolerations");
  if (!n) return out;
  if (!n->is_array()) fail(file, *n, object, "'tolerations' must be an array of tables");
  for (const auto& e : *n->as_array()) {
    if (!e.is_table()) fail(file, e, object, "each toleration must be a table");
    const auto& tt = *e.as_table();
    check_keys(file, tt, object + " toleration", {"key", "operator", "value", "effect"});
    Toleration tol;
    tol.key = get_string(file, tt, "key", object, "");
    tol.op = get_string(file, tt, "operator", object, "Equal");
    tol.value = get_string(file, tt, "value", object, "");
    tol.effect = get_string(file, tt, "effect", object, "");
    if (tol.op != "Equal" && tol.op != "Exists")
      fail(file, e, object, "toleration operator must be Equal or Exists");
    if (tol.op == "Exists" && !tol.value.empty())
      fail(file, e, object, "a toleration with operator Exists takes no value");
    if (!tol.effect.empty() && tol.effect != "NoSchedule" && tol.effect != "PreferNoSchedule" &&
        tol.effect != "NoExecute")
      fail(file, e, object,
           fmt::format("toleration effect '{}': must be NoSchedule, PreferNoSchedule or NoExecute",
                       tol.effect));
    out.push_back(tol);
  }
  return out;
}

}  // namespace

Workload load_workload(const std::filesystem::path& file) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw InputError(fmt::format("{}:{}:{}: {}", file.string(), b.line, b.column, e.description()));
  }
  check_keys(file, root, "workload", {"evicted_pods", "jobs"});

  Workload w;
  // What an evicted pod becomes (SimCluster::apply): no default but the documented one.
  const std::string evicted = get_string(file, root, "evicted_pods", "workload", "pending");
  if (evicted != "pending" && evicted != "failed")
    fail(file, *root.get("evicted_pods"), "workload",
         fmt::format("'evicted_pods' = '{}': must be \"pending\" or \"failed\"", evicted));
  w.evicted_pods_fail = evicted == "failed";
  std::set<std::string> seen;
  const toml::node* jobs = root.get("jobs");
  if (!jobs) return w;
  if (!jobs->is_array_of_tables()) fail(file, *jobs, "workload", "'jobs' must be [[jobs]] tables");
  size_t ji = 0;
  for (const auto& jn : *jobs->as_array()) {
    const auto& jt = *jn.as_table();
    const SourceRef job_src{file.string(), static_cast<int>(jn.source().begin.line),
                            static_cast<int>(jn.source().begin.column)};
    std::string object = fmt::format("jobs[{}]", ji++);
    check_keys(file, jt, object,
               {"name", "namespace", "queue", "arrival", "min_member", "priority_class",
                "preemptable", "tasks"});
    WorkloadJob job;
    auto& pg = job.podgroup;
    pg.name = get_string(file, jt, "name", object, "");
    if (!jt.get("name")) fail(file, jn, object, "a job needs a 'name'");
    check_name(file, jt, "name", object, pg.name);
    pg.ns = get_string(file, jt, "namespace", object, "default");
    check_name(file, jt, "namespace", object, pg.ns);
    pg.src = job_src;
    object = fmt::format("{} ({}/{})", object, pg.ns, pg.name);
    if (!seen.insert(pg.key()).second) fail(file, jn, object, "a job of this name exists already");
    pg.queue = get_string(file, jt, "queue", object, "default");
    pg.priority_class = get_string(file, jt, "priority_class", object, "");
    // No default: a job whose arrival is missing must not silently arrive at 0.
    if (!jt.get("arrival")) fail(file, jn, object, "a job needs an 'arrival' time in seconds");
    job.arrival = get_number(file, jt, "arrival", object, 0);
    pg.created = job.arrival;
    pg.phase_since = job.arrival;
    pg.phase = JobPhase::Pending;
    bool preemptable = false;
    if (const toml::node* p = jt.get("preemptable")) {
      if (!p->is_boolean()) fail(file, *p, object, "'preemptable' must be true or false");
      preemptable = p->as_boolean()->get();
    }
    const toml::node* tasks = jt.get("tasks");
    if (!tasks || !tasks->is_array_of_tables() || tasks->as_array()->empty())
      fail(file, jn, object, "a job needs [[jobs.tasks]]");
    size_t ti = 0;
    std::set<std::string> roles;
    for (const auto& tn : *tasks->as_array()) {
      const auto& tt = *tn.as_table();
      std::string tobj = fmt::format("{} tasks[{}]", object, ti++);
      check_keys(file, tt, tobj,
                 {"role", "replicas", "min", "requests", "duration", "node_selector",
                  "tolerations", "labels"});
      std::string role = get_string(file, tt, "role", tobj, "task");
      check_name(file, tt, "role", tobj, role);
      if (!roles.insert(role).second)
        fail(file, tt.get("role") ? *tt.get("role") : tn, tobj,
             fmt::format("role '{}' appears twice in the job (its pods would have the same names)",
                         role));
      const int32_t replicas = get_count(file, tt, "replicas", tobj, 1, 1);
      if (const toml::node* m = tt.get("min")) {
        int32_t min = get_count(file, tt, "min", tobj, 0, 0);
        if (min > replicas) fail(file, *m, tobj, "'min' exceeds 'replicas'");
        pg.min_task_member[role] = min;
      }
      ResourceList req = get_requests(file, tt, tobj);
      double duration = get_number(file, tt, "duration", tobj, 0);
      if (!tt.get("duration")) fail(file, tn, tobj, "a task needs a 'duration' in seconds");
      StringMap selector = get_string_map(file, tt, "node_selector", tobj);
      StringMap labels = get_string_map(file, tt, "labels", tobj);
      std::vector<Toleration> tols = get_tolerations(file, tt, tobj);
      const SourceRef task_src{file.string(), static_cast<int>(tn.source().begin.line),
                               static_cast<int>(tn.source().begin.column)};
      for (int32_t i = 0; i < replicas; ++i) {
        WorkloadTask task;
        PodSpec& pod = task.pod;
        pod.ns = pg.ns;
        pod.name = fmt::format("{}-{}-{}", pg.name, role, i);
        pod.podgroup = pg.name;
        pod.requests = req;
        pod.labels = labels;
        pod.labels["volcano.sh/task-spec"] = role;
        if (preemptable) pod.labels["volcano.sh/preemptable"] = "true";
        pod.node_selector = selector;
        pod.tolerations = tols;
        pod.priority_class = pg.priority_class;
        pod.created = job.arrival;
        pod.src = task_src;
        task.duration = duration;
        job.tasks.push_back(std::move(task));
      }
    }
    int32_t total = static_cast<int32_t>(job.tasks.size());
    pg.min_member = total;
    if (const toml::node* m = jt.get("min_member")) {
      int32_t mm = get_count(file, jt, "min_member", object, 0, 0);
      if (mm > total) fail(file, *m, object, fmt::format("'min_member' exceeds the job's {} tasks", total));
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
