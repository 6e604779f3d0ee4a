// Unit tests of the priority, gang, conformance and drf plugins.
//
// Two layers:
//  1. The pure rules in the plugins' *_math.hpp headers, checked against worked numbers.
//  2. The built .so files, loaded with dlopen and driven through the C ABI with a small
//     fake host (FakeHost below), so that the slot wiring, the reading of host data and
//     the per-session state (drf shares, gang's close-time reasons) are checked without
//     the real session.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caldera/plugin.h"
#include "conformance/conformance_math.hpp"
#include "drf/drf_math.hpp"
#include "gang/gang_math.hpp"
#include "priority/priority_math.hpp"

namespace {

constexpr double kGi = 1024.0 * 1024.0 * 1024.0;

// ======================================================================================
// 1. Pure rules
// ======================================================================================

// ---- priority -----------------------------------------------------------------------

TEST(PriorityMath, HigherPriorityGoesFirst) {
  using caldera::priority::order_higher_first;
  EXPECT_LT(order_higher_first(100, 10), 0);
  EXPECT_GT(order_higher_first(10, 100), 0);
  EXPECT_EQ(order_higher_first(5, 5), 0);
  EXPECT_LT(order_higher_first(0, -1), 0);
}

TEST(PriorityMath, PreemptBetweenJobsByJobPriorityOnly) {
  using caldera::priority::may_preempt;
  // Different jobs: job priorities decide, task priorities are ignored.
  EXPECT_TRUE(may_preempt(false, 100, 10, /*tasks*/ 1, 1000));
  EXPECT_FALSE(may_preempt(false, 100, 100, 1000, 1));  // equal job priority: never
  EXPECT_FALSE(may_preempt(false, 10, 100, 1000, 1));
}

TEST(PriorityMath, PreemptInsideJobByTaskPriority) {
  using caldera::priority::may_preempt;
  EXPECT_TRUE(may_preempt(true, 0, 0, 5, 4));
  EXPECT_FALSE(may_preempt(true, 0, 0, 5, 5));
  EXPECT_FALSE(may_preempt(true, 0, 0, 4, 5));
}

TEST(PriorityMath, StarvingWhileSomeTaskIsNeitherReadyNorPipelined) {
  using caldera::priority::job_starving;
  EXPECT_TRUE(job_starving(2, 1, 4));
  EXPECT_FALSE(job_starving(3, 1, 4));
  EXPECT_FALSE(job_starving(0, 0, 0));
}

// ---- gang ---------------------------------------------------------------------------

using caldera::gang::JobCounts;
using caldera::gang::RoleCounts;

JobCounts counts(int32_t min, int32_t ready, int32_t waiting, int32_t valid) {
  JobCounts c;
  c.min_available = min;
  c.ready = ready;
  c.waiting = waiting;
  c.valid = valid;
  return c;
}

TEST(GangMath, OccupiedCountingKeepsMinMemberOfEachJob) {
  // Job A: minMember 3, 5 ready -> 2 of its candidates may go, the third may not.
  // Job B: minMember 2, 2 ready -> none.  Job C: minMember 1, 2 ready -> one.
  caldera::gang::OccupiedCounter<char> occ;
  std::vector<bool> got;
  const std::vector<std::tuple<char, int32_t, int32_t>> cand = {
      {'A', 5, 3}, {'B', 2, 2}, {'A', 5, 3}, {'C', 2, 1}, {'A', 5, 3}, {'C', 2, 1}, {'B', 2, 2}};
  for (auto [job, ready, min] : cand) got.push_back(occ.take(job, ready, min));
  EXPECT_EQ(got, (std::vector<bool>{true, false, true, true, false, false, false}));
}

TEST(GangMath, OccupiedCountingWithMinMemberZero) {
  // A job with minMember 0 (a plain pod group) may lose every ready task.
  caldera::gang::OccupiedCounter<int> occ;
  EXPECT_TRUE(occ.take(1, 2, 0));
  EXPECT_TRUE(occ.take(1, 2, 0));
  EXPECT_FALSE(occ.take(1, 2, 0));  // nothing left that is ready
}

TEST(GangMath, ReadyPipelinedStarving) {
  using namespace caldera::gang;
  EXPECT_TRUE(is_ready(counts(4, 4, 0, 4)));
  EXPECT_FALSE(is_ready(counts(4, 3, 1, 4)));
  EXPECT_TRUE(is_pipelined(counts(4, 3, 1, 4)));
  EXPECT_FALSE(is_pipelined(counts(4, 2, 1, 4)));
  EXPECT_TRUE(is_starving(counts(4, 2, 1, 4)));
  EXPECT_FALSE(is_starving(counts(4, 3, 1, 4)));
  // Pending best-effort tasks count as ready for IsReady / IsPipelined, not for starving.
  JobCounts be = counts(4, 3, 0, 4);
  be.pending_best_effort = 1;
  EXPECT_TRUE(is_ready(be));
  EXPECT_TRUE(is_starving(be));
}

JobCounts with_roles(JobCounts c, std::vector<RoleCounts> roles) {
  c.roles = std::move(roles);
  return c;
}

TEST(GangMath, RoleChecksApplyOnlyWhenMinMemberCoversRoleMins) {
  using namespace caldera::gang;
  // minMember 3 = master 1 + worker 2: role checks apply.
  JobCounts c = with_roles(counts(3, 3, 0, 3), {{"master", 1, 0, 0, 1, 0}, {"worker", 2, 3, 0, 3, 0}});
  EXPECT_TRUE(role_checks_apply(c));
  EXPECT_FALSE(check_task_ready(c));  // master: 0 ready of 1
  EXPECT_FALSE(job_ready(c));         // although 3 tasks are ready overall
  ASSERT_NE(first_unready_role(c), nullptr);
  EXPECT_EQ(first_unready_role(c)->name, "master");
  // The master pipelined: pipelined check passes, ready check still does not.
  c.roles[0].waiting = 1;
  EXPECT_TRUE(check_task_pipelined(c));
  EXPECT_FALSE(check_task_ready(c));
  // minMember 1 < 1 + 2: role minimums are skipped entirely (Volcano).
  JobCounts loose = with_roles(counts(1, 1, 0, 1), {{"master", 1, 0, 0, 0, 0}, {"worker", 2, 1, 0, 1, 0}});
  EXPECT_FALSE(role_checks_apply(loose));
  EXPECT_TRUE(check_task_valid(loose));
  EXPECT_TRUE(job_ready(loose));
}

TEST(GangMath, ValidMessages) {
  using namespace caldera::gang;
  EXPECT_EQ(job_valid_message(counts(2, 0, 0, 2)), "");
  EXPECT_EQ(job_valid_message(counts(4, 0, 0, 3)),
            "Not enough valid tasks for gang-scheduling, valid: 3, min: 4");
  JobCounts c = with_roles(counts(3, 0, 0, 3), {{"ps", 1, 0, 0, 0, 0}, {"worker", 2, 0, 0, 3, 0}});
  EXPECT_EQ(job_valid_message(c), "Not enough valid pods of each task for gang-scheduling");
}

// ---- conformance ----------------------------------------------------------------------

TEST(ConformanceMath, CriticalPods) {
  using namespace caldera::conformance;
  EXPECT_TRUE(is_critical("kube-system", ""));
  EXPECT_TRUE(is_critical("c1", "system-cluster-critical"));
  EXPECT_TRUE(is_critical("c1", "system-node-critical"));
  // Volcano tests the class name only: a high value under another class is no protection.
  EXPECT_FALSE(is_critical("c1", ""));
  EXPECT_FALSE(is_critical("kube-systemx", "high"));
  EXPECT_EQ(namespace_of("kube-system/coredns-1"), "kube-system");
  EXPECT_EQ(namespace_of("nameonly"), "");
}

// ---- drf ----------------------------------------------------------------------------

TEST(DrfMath, DominantShareOnKnownCluster) {
  // Cluster cpu 10000m, memory 10Gi; job holds 2000m and 1Gi: cpu share 0.2 dominates.
  const double total[] = {10000, 10 * kGi};
  const double alloc[] = {2000, 1 * kGi};
  const auto d = caldera::drf::dominant_share(alloc, total, 2);
  EXPECT_DOUBLE_EQ(d.share, 0.2);
  EXPECT_EQ(d.resource, 0);
  // 1000m and 4Gi: memory dominates with 0.4.
  const double alloc2[] = {1000, 4 * kGi};
  const auto d2 = caldera::drf::dominant_share(alloc2, total, 2);
  EXPECT_DOUBLE_EQ(d2.share, 0.4);
  EXPECT_EQ(d2.resource, 1);
}

TEST(DrfMath, ResourcesTheClusterLacksDoNotCount) {
  // A GPU dimension with no GPU in the cluster: the job's GPU request has no share.
  const double total[] = {10000, 10 * kGi, 0};
  const double alloc[] = {1000, 0, 2000};
  const auto d = caldera::drf::dominant_share(alloc, total, 3);
  EXPECT_DOUBLE_EQ(d.share, 0.1);
  EXPECT_EQ(d.resource, 0);
  const double none[] = {0, 0, 0};
  EXPECT_EQ(caldera::drf::dominant_share(none, total, 3).resource, -1);
  EXPECT_EQ(caldera::drf::dominant_share(none, total, 3).share, 0.0);
}

TEST(DrfMath, OrderAndVictimTest) {
  using namespace caldera::drf;
  EXPECT_LT(compare_shares(0.1, 0.2), 0);
  EXPECT_GT(compare_shares(0.3, 0.2), 0);
  EXPECT_EQ(compare_shares(0.25, 0.25), 0);
  // Preemptor job at 0.3 after allocation; a victim job left at 0.4 may lose the task,
  // one left at 0.2 may not; within shareDelta counts as equal.
  EXPECT_TRUE(may_preempt(0.3, 0.4));
  EXPECT_FALSE(may_preempt(0.3, 0.2));
  EXPECT_TRUE(may_preempt(0.3, 0.3 - 0.0000005));
  EXPECT_FALSE(may_preempt(0.3, 0.3 - 0.00001));
}

// ======================================================================================
// 2. The built plugins, driven through the C ABI by a fake host
// ======================================================================================

namespace fake {

struct Job;

struct Task {
  std::string name;  // "namespace/name"
  Job* job = nullptr;
  cal_task_status status = CAL_TASK_PENDING;
  std::vector<double> request;  // cpu (milli), memory (bytes)
  int32_t priority = 1;
  bool best_effort = false;
  std::string role;
  std::string priority_class;
  std::map<std::string, std::string> annotations;
};

struct Role {
  std::string name;
  int32_t min = 0;
};

struct Job {
  std::string name, ns;
  int32_t min_available = 1;
  int32_t priority = 0;
  std::vector<Task*> tasks;
  std::vector<Role> roles;
  std::map<std::string, std::string> pending_reasons;  // plugin -> text
  std::vector<double> allocated_buf;
};

struct Session {
  std::vector<double> total;
  std::vector<Job*> jobs;
};

bool ready_status(cal_task_status s) {
  return s == CAL_TASK_ALLOCATED || s == CAL_TASK_BINDING || s == CAL_TASK_BOUND ||
         s == CAL_TASK_RUNNING || s == CAL_TASK_SUCCEEDED;
}
bool allocated_status(cal_task_status s) {
  return s == CAL_TASK_ALLOCATED || s == CAL_TASK_BINDING || s == CAL_TASK_BOUND ||
         s == CAL_TASK_RUNNING;
}

const Job* J(const cal_job* j) { return reinterpret_cast<const Job*>(j); }
Job* Jm(cal_job* j) { return reinterpret_cast<Job*>(j); }
const Task* T(const cal_task* t) { return reinterpret_cast<const Task*>(t); }
const Session* S(const cal_session* s) { return reinterpret_cast<const Session*>(s); }

int32_t count_if(const Job* j, bool (*pred)(const Task*), const std::string* role) {
  int32_t n = 0;
  for (const Task* t : j->tasks)
    if ((!role || t->role == *role) && pred(t)) ++n;
  return n;
}
bool is_ready(const Task* t) { return ready_status(t->status); }
bool is_waiting(const Task* t) { return t->status == CAL_TASK_PIPELINED; }
bool is_valid(const Task* t) {
  return ready_status(t->status) || t->status == CAL_TASK_PIPELINED ||
         t->status == CAL_TASK_PENDING;
}

std::vector<std::string>& log_lines() {
  static std::vector<std::string> lines;
  return lines;
}

// The host table: only what these four plugins read is filled; a call to anything else
// would crash the test, which is the point (it would be a call the plugin should not make).
const cal_host_api* host_table() {
  static cal_host_api h = [] {
    cal_host_api a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof(cal_host_api);
    a.abi_version = CAL_ABI_VERSION;
    a.log = [](cal_log_level, const char* plugin, const char* msg) {
      log_lines().push_back(std::string(plugin) + ": " + msg);
    };
    a.status_set = [](cal_status* st, const char* reason) {
      std::strncpy(st->reason, reason, CAL_REASON_MAX - 1);
      st->reason[CAL_REASON_MAX - 1] = '\0';
    };
    a.arg_is_set = [](const cal_args*, const char*) { return 0; };
    a.arg_count = [](const cal_args*) -> size_t { return 0; };
    a.resource_count = [](const cal_session* s) { return S(s)->total.size(); };
    a.cluster_total = [](const cal_session* s) { return S(s)->total.data(); };
    a.job_count = [](const cal_session* s) { return S(s)->jobs.size(); };
    a.job_at = [](const cal_session* s, size_t i) {
      return reinterpret_cast<cal_job*>(S(s)->jobs[i]);
    };
    a.job_name = [](const cal_job* j) { return J(j)->name.c_str(); };
    a.job_namespace = [](const cal_job* j) { return J(j)->ns.c_str(); };
    a.job_min_available = [](const cal_job* j) { return J(j)->min_available; };
    a.job_priority = [](const cal_job* j) { return J(j)->priority; };
    a.job_task_count = [](const cal_job* j) { return J(j)->tasks.size(); };
    a.job_task_at = [](const cal_job* j, size_t i) {
      return reinterpret_cast<cal_task*>(J(j)->tasks[i]);
    };
    a.job_ready_num = [](const cal_job* j) { return count_if(J(j), is_ready, nullptr); };
    a.job_waiting_num = [](const cal_job* j) { return count_if(J(j), is_waiting, nullptr); };
    a.job_valid_num = [](const cal_job* j) { return count_if(J(j), is_valid, nullptr); };
    a.job_role_count = [](const cal_job* j) { return J(j)->roles.size(); };
    a.job_role_name = [](const cal_job* j, size_t i) { return J(j)->roles[i].name.c_str(); };
    a.job_role_min = [](const cal_job* j, size_t i) { return J(j)->roles[i].min; };
    a.job_role_ready = [](const cal_job* j, size_t i) {
      return count_if(J(j), is_ready, &J(j)->roles[i].name);
    };
    a.job_role_waiting = [](const cal_job* j, size_t i) {
      return count_if(J(j), is_waiting, &J(j)->roles[i].name);
    };
    a.job_role_valid = [](const cal_job* j, size_t i) {
      return count_if(J(j), is_valid, &J(j)->roles[i].name);
    };
    a.job_allocated = [](const cal_job* cj) -> const double* {
      Job* j = const_cast<Job*>(J(cj));
      j->allocated_buf.assign(2, 0.0);
      for (const Task* t : j->tasks)
        if (allocated_status(t->status))
          for (size_t i = 0; i < 2; ++i) j->allocated_buf[i] += t->request[i];
      return j->allocated_buf.data();
    };
    a.job_set_pending_reason = [](cal_job* j, const char* plugin, const char* reason) {
      Jm(j)->pending_reasons[plugin] = reason;
    };
    // The host's FitError() text and schedulable count: fixed stand-ins here, the real ones
    // are the session's (tests/scenarios, the Kubernetes comparison with volcano-scheduler).
    a.job_fit_error = [](const cal_job*) { return "FitError()"; };
    a.job_schedulable_num = [](const cal_job* cj) {
      int32_t n = 0;
      for (const Task* t : J(cj)->tasks) n += allocated_status(t->status) ? 1 : 0;
      return n;
    };
    a.job_set_unschedulable_condition = [](cal_job* j, const char* plugin, const char* msg) {
      Jm(j)->pending_reasons[plugin] = msg;
    };
    a.task_name = [](const cal_task* t) { return T(t)->name.c_str(); };
    a.task_job = [](const cal_task* t) { return reinterpret_cast<cal_job*>(T(t)->job); };
    a.task_status = [](const cal_task* t) { return T(t)->status; };
    a.task_request = [](const cal_task* t) { return T(t)->request.data(); };
    a.task_priority = [](const cal_task* t) { return T(t)->priority; };
    a.task_best_effort = [](const cal_task* t) { return T(t)->best_effort ? 1 : 0; };
    a.task_role = [](const cal_task* t) { return T(t)->role.c_str(); };
    a.task_priority_class = [](const cal_task* t) { return T(t)->priority_class.c_str(); };
    a.task_annotation = [](const cal_task* t, const char* key) -> const char* {
      auto it = T(t)->annotations.find(key);
      return it == T(t)->annotations.end() ? nullptr : it->second.c_str();
    };
    return a;
  }();
  return &h;
}

// A small cluster: jobs own their tasks.
struct Cluster {
  Session ssn;
  std::vector<std::unique_ptr<Job>> jobs;
  std::vector<std::unique_ptr<Task>> tasks;

  Job* job(const std::string& name, int32_t min, int32_t priority = 0,
           std::vector<Role> roles = {}) {
    auto j = std::make_unique<Job>();
    j->ns = "c1";
    j->name = "c1/" + name;
    j->min_available = min;
    j->priority = priority;
    j->roles = std::move(roles);
    ssn.jobs.push_back(j.get());
    jobs.push_back(std::move(j));
    return jobs.back().get();
  }
  Task* task(Job* j, const std::string& name, cal_task_status st, double cpu, double mem,
             int32_t priority = 1, std::string role = "") {
    auto t = std::make_unique<Task>();
    t->name = j->ns + "/" + name;
    t->job = j;
    t->status = st;
    t->request = {cpu, mem};
    t->best_effort = cpu == 0 && mem == 0;
    t->priority = priority;
    t->role = std::move(role);
    j->tasks.push_back(t.get());
    tasks.push_back(std::move(t));
    return tasks.back().get();
  }
  cal_session* handle() { return reinterpret_cast<cal_session*>(&ssn); }
};

}  // namespace fake

// One loaded plugin .so and one open instance of it.
class Loaded {
 public:
  explicit Loaded(const std::string& name) {
    const std::filesystem::path file =
        std::filesystem::path(CALDERA_BUILTIN_PLUGIN_DIR) / (name + ".so");
    lib_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      error_ = std::string("cannot load ") + file.string() + ": " + dlerror();
      return;
    }
    auto entry = reinterpret_cast<cal_entry_fn>(dlsym(lib_, CAL_ENTRY_SYMBOL));
    if (!entry) {
      error_ = "no entry symbol in " + file.string();
      return;
    }
    desc_ = entry(fake::host_table(), CAL_ABI_VERSION);
  }
  ~Loaded() {
    close();
    if (lib_) dlclose(lib_);
  }
  const std::string& error() const { return error_; }
  const cal_plugin* desc() const { return desc_; }

  void open(fake::Cluster& c) {
    cal_code code = CAL_SUCCESS;
    cal_status st{};
    st.struct_size = sizeof st;
    self_ = desc_->open(c.handle(), nullptr, &code, &st);
    ASSERT_EQ(code, CAL_SUCCESS) << st.reason;
    opened_ = true;
  }
  void close() {
    if (opened_) desc_->close(self_);
    opened_ = false;
  }
  void* self() const { return self_; }

  // Calls a victims slot; returns the names of the victims and the vote.
  std::pair<cal_vote, std::vector<std::string>> victims(cal_victims_fn fn, const fake::Task* who,
                                                        const std::vector<fake::Task*>& cands) {
    std::vector<const cal_task*> c;
    for (auto* t : cands) c.push_back(reinterpret_cast<const cal_task*>(t));
    std::vector<uint8_t> v(c.size(), 0);
    cal_vote vote = fn(self_, reinterpret_cast<const cal_task*>(who), c.data(), c.size(), v.data());
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i]) out.push_back(cands[i]->name);
    return {vote, out};
  }

 private:
  void* lib_ = nullptr;
  const cal_plugin* desc_ = nullptr;
  void* self_ = nullptr;
  bool opened_ = false;
  std::string error_;
};

#define LOAD_OR_SKIP(var, plugin_name)                  \
  Loaded var(plugin_name);                               \
  if (!var.desc()) GTEST_SKIP() << var.error();          \
  ASSERT_EQ(std::string(var.desc()->name), plugin_name)

const cal_job* H(const fake::Job* j) { return reinterpret_cast<const cal_job*>(j); }
const cal_task* H(const fake::Task* t) { return reinterpret_cast<const cal_task*>(t); }

TEST(PriorityPlugin, SlotsAndDecisions) {
  fake::Cluster c;  // before the plugin: closing reads it
  LOAD_OR_SKIP(p, "priority");
  const cal_plugin* d = p.desc();
  EXPECT_EQ(d->option_count, 0u);
  // Volcano's priority registers these, and no reclaimable / pipelined function.
  EXPECT_NE(d->task_order, nullptr);
  EXPECT_NE(d->job_order, nullptr);
  EXPECT_NE(d->preemptable, nullptr);
  EXPECT_NE(d->job_starving, nullptr);
  EXPECT_EQ(d->reclaimable, nullptr);
  EXPECT_EQ(d->job_pipelined, nullptr);

  auto* high = c.job("high", 1, 1000);
  auto* low = c.job("low", 1, 10);
  auto* preemptor = c.task(high, "p-0", CAL_TASK_PENDING, 1000, kGi, 5);
  auto* same_low = c.task(high, "p-1", CAL_TASK_RUNNING, 1000, kGi, 4);
  auto* same_eq = c.task(high, "p-2", CAL_TASK_RUNNING, 1000, kGi, 5);
  auto* other = c.task(low, "q-0", CAL_TASK_RUNNING, 1000, kGi, 100);
  p.open(c);

  EXPECT_LT(d->job_order(p.self(), H(high), H(low)), 0);
  EXPECT_GT(d->job_order(p.self(), H(low), H(high)), 0);
  EXPECT_LT(d->task_order(p.self(), H(preemptor), H(same_low)), 0);
  EXPECT_EQ(d->task_order(p.self(), H(preemptor), H(same_eq)), 0);

  auto [vote, v] = p.victims(d->preemptable, preemptor, {same_low, same_eq, other});
  EXPECT_EQ(vote, CAL_PERMIT);
  // Inside the job only the lower task priority goes; the other job goes on job priority
  // although its task priority (100) is higher than the preemptor's (5).
  EXPECT_EQ(v, (std::vector<std::string>{"c1/p-1", "c1/q-0"}));

  // high: 2 ready of 3 tasks -> starving; low: 1 of 1 -> not.
  EXPECT_EQ(d->job_starving(p.self(), H(high)), 1);
  EXPECT_EQ(d->job_starving(p.self(), H(low)), 0);
}

TEST(GangPlugin, ValidReadyPipelinedStarving) {
  fake::Cluster c;  // before the plugin: closing reads it
  LOAD_OR_SKIP(g, "gang");
  const cal_plugin* d = g.desc();
  EXPECT_EQ(d->option_count, 0u);
  auto* j = c.job("pg1", 3);
  auto* t0 = c.task(j, "w-0", CAL_TASK_PENDING, 1000, kGi);
  auto* t1 = c.task(j, "w-1", CAL_TASK_PENDING, 1000, kGi);
  auto* short_job = c.job("pg2", 3);
  c.task(short_job, "s-0", CAL_TASK_PENDING, 1000, kGi);
  c.task(short_job, "s-1", CAL_TASK_FAILED, 1000, kGi);
  c.task(j, "w-2", CAL_TASK_PENDING, 0, 0);  // best effort
  g.open(c);

  cal_status st{};
  st.struct_size = sizeof st;
  EXPECT_EQ(d->job_valid(g.self(), H(j), &st), CAL_SUCCESS);
  EXPECT_NE(d->job_valid(g.self(), H(short_job), &st), CAL_SUCCESS);
  EXPECT_STREQ(st.reason, "Not enough valid tasks for gang-scheduling, valid: 1, min: 3");

  EXPECT_EQ(d->job_ready(g.self(), H(j)), 0);
  EXPECT_EQ(d->job_pipelined(g.self(), H(j)), CAL_REJECT);
  EXPECT_EQ(d->job_starving(g.self(), H(j)), 1);
  t0->status = CAL_TASK_ALLOCATED;
  t1->status = CAL_TASK_PIPELINED;
  // 1 ready + 1 best effort < 3; with the pipelined task: 3 -> pipelined, not ready.
  EXPECT_EQ(d->job_ready(g.self(), H(j)), 0);
  EXPECT_EQ(d->job_pipelined(g.self(), H(j)), CAL_PERMIT);
  // Starving ignores best effort: 1 ready + 1 pipelined < 3.
  EXPECT_EQ(d->job_starving(g.self(), H(j)), 1);
  t1->status = CAL_TASK_ALLOCATED;
  EXPECT_EQ(d->job_ready(g.self(), H(j)), 1);  // 2 ready + 1 best effort
  // Still starving as Volcano's IsStarving sees it: 2 ready + 0 pipelined < 3.
  EXPECT_EQ(d->job_starving(g.self(), H(j)), 1);
  // Ready jobs go after unready ones.
  EXPECT_GT(d->job_order(g.self(), H(j), H(short_job)), 0);
  EXPECT_LT(d->job_order(g.self(), H(short_job), H(j)), 0);
}

TEST(GangPlugin, RoleMinimums) {
  fake::Cluster c;  // before the plugin: closing reads it
  LOAD_OR_SKIP(g, "gang");
  const cal_plugin* d = g.desc();
  auto* j = c.job("tf", 3, 0, {{"ps", 1}, {"worker", 2}});
  auto* ps = c.task(j, "ps-0", CAL_TASK_PENDING, 1000, kGi, 1, "ps");
  c.task(j, "worker-0", CAL_TASK_ALLOCATED, 1000, kGi, 1, "worker");
  c.task(j, "worker-1", CAL_TASK_ALLOCATED, 1000, kGi, 1, "worker");
  c.task(j, "worker-2", CAL_TASK_ALLOCATED, 1000, kGi, 1, "worker");
  g.open(c);
  // 3 ready >= minMember 3, but the ps role has 0 of 1: not ready, not pipelined.
  EXPECT_EQ(d->job_ready(g.self(), H(j)), 0);
  EXPECT_EQ(d->job_pipelined(g.self(), H(j)), CAL_REJECT);
  ps->status = CAL_TASK_FAILED;  // the only ps can no longer run
  cal_status st{};
  st.struct_size = sizeof st;
  EXPECT_NE(d->job_valid(g.self(), H(j), &st), CAL_SUCCESS);
  EXPECT_STREQ(st.reason, "Not enough valid pods of each task for gang-scheduling");
  ps->status = CAL_TASK_ALLOCATED;
  EXPECT_EQ(d->job_ready(g.self(), H(j)), 1);
}

TEST(GangPlugin, VictimsKeepMinMember) {
  fake::Cluster c;  // before the plugin: closing reads it
  LOAD_OR_SKIP(g, "gang");
  const cal_plugin* d = g.desc();
  auto* a = c.job("a", 2);
  auto* b = c.job("b", 1);
  auto* who = c.task(c.job("x", 1), "x-0", CAL_TASK_PENDING, 1000, kGi);
  auto* a0 = c.task(a, "a-0", CAL_TASK_RUNNING, 1000, kGi);
  auto* a1 = c.task(a, "a-1", CAL_TASK_RUNNING, 1000, kGi);
  auto* a2 = c.task(a, "a-2", CAL_TASK_RUNNING, 1000, kGi);
  auto* b0 = c.task(b, "b-0", CAL_TASK_RUNNING, 1000, kGi);
  g.open(c);
  for (cal_victims_fn fn : {d->preemptable, d->reclaimable}) {
    auto [vote, v] = g.victims(fn, who, {a0, b0, a1, a2});
    EXPECT_EQ(vote, CAL_PERMIT);
    // a: 3 ready, min 2 -> only one goes; b: 1 ready, min 1 -> none.
    EXPECT_EQ(v, (std::vector<std::string>{"c1/a-0"}));
  }
}

TEST(GangPlugin, PendingReasonAtClose) {
  fake::Cluster c;  // before the plugin: closing reads it
  LOAD_OR_SKIP(g, "gang");
  auto* j = c.job("pg1", 4);
  c.task(j, "t-0", CAL_TASK_ALLOCATED, 1000, kGi);
  c.task(j, "t-1", CAL_TASK_PIPELINED, 1000, kGi);
  c.task(j, "t-2", CAL_TASK_PENDING, 1000, kGi);
  c.task(j, "t-3", CAL_TASK_PENDING, 1000, kGi);
  c.task(j, "t-4", CAL_TASK_PENDING, 1000, kGi);
  auto* ok = c.job("pg2", 1);
  c.task(ok, "u-0", CAL_TASK_RUNNING, 1000, kGi);
  c.job("empty", 1);
  g.open(c);
  g.close();
  ASSERT_EQ(j->pending_reasons.count("gang"), 1u);
  // minMember 4, one task allocated: 3 unready of 5, then the job's FitError().
  EXPECT_EQ(j->pending_reasons["gang"], "3/5 tasks in gang unschedulable: FitError()");
  EXPECT_TRUE(ok->pending_reasons.empty());
  EXPECT_TRUE(c.jobs[2]->pending_reasons.empty());
}

TEST(ConformancePlugin, NeverEvictsCriticalPods) {
  fake::Cluster c;  // before the plugin: closing reads it
  LOAD_OR_SKIP(p, "conformance");
  const cal_plugin* d = p.desc();
  EXPECT_EQ(d->option_count, 0u);
  auto* j = c.job("j", 1);
  auto* who = c.task(j, "who", CAL_TASK_PENDING, 1000, kGi);
  auto* plain = c.task(j, "plain", CAL_TASK_RUNNING, 1000, kGi);
  auto* crit = c.task(j, "crit", CAL_TASK_RUNNING, 1000, kGi);
  crit->priority_class = "system-node-critical";
  // Neither a system-critical priority value nor the legacy annotation protects a pod in
  // Volcano: only the namespace and the class name do.
  auto* high = c.task(j, "high", CAL_TASK_RUNNING, 1000, kGi, 2000000000);
  auto* annotated = c.task(j, "annotated", CAL_TASK_RUNNING, 1000, kGi);
  annotated->annotations["scheduler.alpha.kubernetes.io/critical-pod"] = "";
  auto* sys = c.task(j, "sys", CAL_TASK_RUNNING, 1000, kGi);
  sys->name = "kube-system/coredns";
  p.open(c);
  for (cal_victims_fn fn : {d->preemptable, d->reclaimable}) {
    auto [vote, v] = p.victims(fn, who, {plain, crit, high, annotated, sys});
    EXPECT_EQ(vote, CAL_PERMIT);
    EXPECT_EQ(v, (std::vector<std::string>{"c1/plain", "c1/high", "c1/annotated"}));
  }
  // Only critical candidates: the plugin still votes, with no victims (ends the tier).
  auto [vote, v] = p.victims(d->preemptable, who, {crit, sys});
  EXPECT_EQ(vote, CAL_PERMIT);
  EXPECT_TRUE(v.empty());
}

TEST(DrfPlugin, SharesFollowAllocations) {
  fake::Cluster c;  // before the plugin: closing reads it
  LOAD_OR_SKIP(p, "drf");
  const cal_plugin* d = p.desc();
  EXPECT_EQ(d->option_count, 0u);
  EXPECT_EQ(d->queue_order, nullptr);  // hierarchical form not available (see drf.cpp)
  c.ssn.total = {10000, 10 * kGi};
  auto* a = c.job("a", 1);
  auto* b = c.job("b", 1);
  c.task(a, "a-0", CAL_TASK_RUNNING, 2000, 1 * kGi);  // share 0.2 (cpu)
  auto* b0 = c.task(b, "b-0", CAL_TASK_RUNNING, 1000, 1 * kGi);  // share 0.1 (cpu = mem)
  auto* b1 = c.task(b, "b-1", CAL_TASK_PENDING, 1000, 3 * kGi);
  p.open(c);
  EXPECT_GT(d->job_order(p.self(), H(a), H(b)), 0);  // b has the smaller share
  // b-1 pipelined: b's share becomes 0.4 (memory), as Volcano's AllocateFunc counts it.
  b1->status = CAL_TASK_PIPELINED;
  d->on_allocate(p.self(), H(b1));
  EXPECT_LT(d->job_order(p.self(), H(a), H(b)), 0);
  // And back.
  b1->status = CAL_TASK_PENDING;
  d->on_deallocate(p.self(), H(b1));
  EXPECT_GT(d->job_order(p.self(), H(a), H(b)), 0);
  (void)b0;
}

TEST(DrfPlugin, PreemptableComparesSharesAfterTheMove) {
  fake::Cluster c;  // before the plugin: closing reads it
  LOAD_OR_SKIP(p, "drf");
  const cal_plugin* d = p.desc();
  c.ssn.total = {10000, 10 * kGi};
  auto* rich = c.job("rich", 1);
  auto* poor = c.job("poor", 1);
  auto* mine = c.job("mine", 1);
  auto* r0 = c.task(rich, "r-0", CAL_TASK_RUNNING, 3000, kGi);
  auto* r1 = c.task(rich, "r-1", CAL_TASK_RUNNING, 3000, kGi);  // rich: 0.6
  auto* p0 = c.task(poor, "p-0", CAL_TASK_RUNNING, 2000, kGi);  // poor: 0.2
  auto* who = c.task(mine, "m-0", CAL_TASK_PENDING, 2000, kGi);  // mine after: 0.2
  p.open(c);
  // rich after losing r-0: 0.3 >= 0.2 -> victim; after also losing r-1: 0.0 < 0.2 -> not.
  // poor after losing p-0: 0.0 < 0.2 -> not.
  auto [vote, v] = p.victims(d->preemptable, who, {r0, p0, r1});
  EXPECT_EQ(vote, CAL_PERMIT);
  EXPECT_EQ(v, (std::vector<std::string>{"c1/r-0"}));
}

}  // namespace
