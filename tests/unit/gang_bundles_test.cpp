// The victim bundles of gangpreempt and gangreclaim (actions/gang_bundles.hpp), with the
// cases of Volcano ed72c7c's pkg/scheduler/actions/utils/bundle_test.go that do not need
// sub-jobs (Caldera's jobs are one sub-job each): TestCreateJobBundles_SafeAndWhole,
// _JobNotReadyShortCircuitsAllSafe (without its sub-job), _NoTaskMinAvailableTreatsAll-
// RolesAsUnconstrained, TestApplyAllowedTasks_WholeAtomicAndSafeShrink,
// TestSortBundlesForPreempt_TypePriorityAndROI, _UsesVictimJobOrder,
// TestSortBundlesForReclaim_UsesQueueOrderThenROI, _DeterministicTieBreaker. Volcano's
// SelectBundles is not ported: neither action calls it.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "actions/gang_bundles.hpp"

namespace caldera::gang {
namespace {

constexpr size_t kRes = 3;  // cpu, memory, pods

ResVec cpu(double milli) {
  ResVec r(kRes);
  r[0] = milli;
  return r;
}

// Tasks and jobs made by hand, kept alive for a test.
struct World {
  std::deque<TaskInfo> tasks;
  std::deque<std::string> uids;
  std::deque<JobInfo> jobs;
  std::deque<PodGroupSpec> podgroups;
  std::deque<QueueInfo> queues;

  TaskInfo* task(const std::string& uid, double milli, int32_t priority = 0,
                 std::string_view role = {}) {
    TaskInfo& t = tasks.emplace_back();
    t.uid = uids.emplace_back(uid);
    t.name = t.uid;
    t.resreq = t.init_resreq = cpu(milli);
    t.priority = priority;
    t.role = role;
    return &t;
  }
  JobInfo* job(const std::string& uid, int32_t min_available = 0, QueueInfo* q = nullptr) {
    JobInfo& j = jobs.emplace_back();
    j.uid = uid;
    j.min_available = min_available;
    j.queue = q;
    j.allocated = ResVec(kRes);
    j.total_request = ResVec(kRes);
    return &j;
  }
  // A running task of the job.
  TaskInfo* run(JobInfo* j, TaskInfo* t) {
    t->job = j;
    t->status = CAL_TASK_RUNNING;
    j->tasks.push_back(t);
    ++j->status_count[CAL_TASK_RUNNING];
    return t;
  }
  QueueInfo* queue(const std::string& name) {
    QueueInfo& q = queues.emplace_back();
    q.name = name;
    return &q;
  }
};

Bundle bundle(BundleType type, JobInfo* job, std::vector<TaskInfo*> tasks, double global_milli) {
  Bundle b;
  b.type = type;
  b.job = job;
  b.local = sum_resreq(tasks, kRes);
  b.global = cpu(global_milli);
  b.tasks = std::move(tasks);
  return b;
}

TEST(GangBundlesTest, CreateJobBundlesSafeAndWhole) {
  World w;
  JobInfo* job = w.job("job", 3);
  PodGroupSpec& pg = w.podgroups.emplace_back();
  pg.min_task_member = {{"worker", 3}};
  job->podgroup = &pg;
  std::vector<TaskInfo*> local;
  for (int i = 0; i < 5; ++i)
    local.push_back(w.run(job, w.task(std::string(1, char('a' + i)), 1000, i, "worker")));
  // Ready 5, minAvailable 3: two to spare, and the worker role has two above its 3.
  const std::vector<Bundle> b = create_job_bundles(job, local, kRes);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].type, BundleType::Safe);
  ASSERT_EQ(b[0].tasks.size(), 2u);
  EXPECT_EQ(b[0].tasks[0]->uid, "a");  // lowest priority first
  EXPECT_EQ(b[0].tasks[1]->uid, "b");
  EXPECT_EQ(b[1].type, BundleType::Whole);
  EXPECT_EQ(b[1].tasks.size(), 3u);
  EXPECT_DOUBLE_EQ(b[1].global[0], 5000);  // every task of the job
  EXPECT_DOUBLE_EQ(b[0].global[0], 0);

  // The role's minimum binds before the job's: with minTaskMember worker 4, one to spare.
  pg.min_task_member = {{"worker", 4}};
  job->min_available = 4;
  const std::vector<Bundle> tight = create_job_bundles(job, local, kRes);
  ASSERT_EQ(tight.size(), 2u);
  EXPECT_EQ(tight[0].tasks.size(), 1u);
  EXPECT_EQ(tight[1].tasks.size(), 4u);
}

TEST(GangBundlesTest, JobNotReadyShortCircuitsAllSafe) {
  World w;
  JobInfo* job = w.job("job", 10);
  std::vector<TaskInfo*> local = {w.run(job, w.task("a", 1000, 0, "worker")),
                                  w.run(job, w.task("b", 1000, 1, "worker"))};
  const std::vector<Bundle> b = create_job_bundles(job, local, kRes);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].type, BundleType::Safe);
  EXPECT_EQ(b[0].tasks.size(), 2u);
}

TEST(GangBundlesTest, NoTaskMinAvailableTreatsAllRolesAsUnconstrained) {
  World w;
  JobInfo* job = w.job("job", 2);
  std::vector<TaskInfo*> local;
  for (int i = 0; i < 4; ++i)
    local.push_back(w.run(job, w.task(std::string(1, char('a' + i)), 1000, i, "worker")));
  const std::vector<Bundle> b = create_job_bundles(job, local, kRes);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].type, BundleType::Safe);
  EXPECT_EQ(b[0].tasks.size(), 2u);
  EXPECT_EQ(b[1].type, BundleType::Whole);
  EXPECT_EQ(b[1].tasks.size(), 2u);
}

TEST(GangBundlesTest, ApplyAllowedTasksWholeAtomicAndSafeShrink) {
  World w;
  JobInfo* job = w.job("job");
  TaskInfo* t1 = w.task("t1", 1000);
  TaskInfo* t2 = w.task("t2", 1000);
  TaskInfo* t3 = w.task("t3", 1000);
  const std::vector<Bundle> bundles = {bundle(BundleType::Safe, job, {t1, t2}, 0),
                                       bundle(BundleType::Whole, job, {t3}, 3000)};
  const std::vector<Bundle> valid = apply_allowed_tasks(bundles, {t1});
  ASSERT_EQ(valid.size(), 1u);
  EXPECT_EQ(valid[0].type, BundleType::Safe);
  ASSERT_EQ(valid[0].tasks.size(), 1u);
  EXPECT_EQ(valid[0].tasks[0], t1);
  EXPECT_DOUBLE_EQ(valid[0].local[0], 1000);  // recomputed for what is left
  // A whole bundle stays only when all of it is allowed.
  EXPECT_EQ(apply_allowed_tasks(bundles, {t1, t3}).size(), 2u);
}

TEST(GangBundlesTest, SortForPreemptTypeThenVictimJobThenROI) {
  World w;
  JobInfo* low = w.job("low");
  low->priority = 1;
  JobInfo* high = w.job("high");
  high->priority = 10;
  std::vector<Bundle> b = {bundle(BundleType::Whole, low, {w.task("w1", 1000)}, 4000),
                           bundle(BundleType::Safe, high, {w.task("s1", 1000)}, 0),
                           bundle(BundleType::Whole, low, {w.task("w2", 1000)}, 2000)};
  sort_bundles_for_preempt(b, cpu(1000), [](const JobInfo* l, const JobInfo* r) {
    return l->priority < r->priority;
  });
  EXPECT_EQ(b[0].tasks[0]->uid, "s1");  // safe first
  EXPECT_EQ(b[1].tasks[0]->uid, "w2");  // same job: the higher ROI (1/2 over 1/4)
  EXPECT_EQ(b[2].tasks[0]->uid, "w1");

  // Different jobs: the victim job order decides before the ROI.
  JobInfo* ja = w.job("ja");
  JobInfo* jb = w.job("jb");
  std::vector<Bundle> c = {bundle(BundleType::Whole, ja, {w.task("a", 1000)}, 2000),
                           bundle(BundleType::Whole, jb, {w.task("b", 1000)}, 2000)};
  sort_bundles_for_preempt(c, cpu(1000), [](const JobInfo* l, const JobInfo* r) {
    return l->uid > r->uid;
  });
  EXPECT_EQ(c[0].tasks[0]->uid, "b");
}

TEST(GangBundlesTest, SortForReclaimQueueOrderThenROIThenUid) {
  World w;
  QueueInfo* qa = w.queue("qa");
  QueueInfo* qb = w.queue("qb");
  auto by_name = [](const QueueInfo* l, const QueueInfo* r) { return l->name < r->name; };
  std::vector<Bundle> b = {bundle(BundleType::Whole, w.job("jb", 0, qb), {w.task("b", 1000)}, 2000),
                           bundle(BundleType::Whole, w.job("ja", 0, qa), {w.task("a", 1000)}, 4000)};
  sort_bundles_for_reclaim(b, cpu(1000), by_name);
  EXPECT_EQ(b[0].tasks[0]->uid, "a");  // the queue order, though b's ROI is higher

  // No queue order: the ROI.
  QueueInfo* qc = w.queue("qc");
  QueueInfo* qd = w.queue("qd");
  std::vector<Bundle> c = {bundle(BundleType::Whole, w.job("jc", 0, qc), {w.task("c", 1000)}, 4000),
                           bundle(BundleType::Whole, w.job("jd", 0, qd), {w.task("d", 1000)}, 2000)};
  sort_bundles_for_reclaim(c, cpu(1000), nullptr);
  EXPECT_EQ(c[0].tasks[0]->uid, "d");

  // Same queue, same ROI: job uid, then the first task's uid.
  QueueInfo* q = w.queue("q");
  std::vector<Bundle> d = {bundle(BundleType::Whole, w.job("jb", 0, q), {w.task("b", 1000)}, 2000),
                           bundle(BundleType::Whole, w.job("ja", 0, q), {w.task("a", 1000)}, 2000)};
  sort_bundles_for_reclaim(d, cpu(1000), by_name);
  EXPECT_EQ(d[0].tasks[0]->uid, "a");
  EXPECT_EQ(d[1].tasks[0]->uid, "b");
}

TEST(GangBundlesTest, ROICapsTheFreedAtTheNeedAndIsInfiniteForSafeBundles) {
  World w;
  JobInfo* j = w.job("j");
  // Frees 3 cpu of a 1 cpu need: counts 1; costs the job's 4 cpu: 1/4.
  EXPECT_DOUBLE_EQ(bundle_roi(bundle(BundleType::Whole, j, {w.task("x", 3000)}, 4000), cpu(1000)),
                   0.25);
  EXPECT_TRUE(std::isinf(bundle_roi(bundle(BundleType::Safe, j, {w.task("y", 1000)}, 0), cpu(1000))));
}

}  // namespace
}  // namespace caldera::gang
