// The session core: snapshot accounting, statements, fallback orders, pending wording.
// These run with an empty policy (no plugins), so only the host's own rules are at work.
#include <gtest/gtest.h>

#include "host/cache/cache.hpp"
#include "host/session/session.hpp"
#include "host/session/statement.hpp"
#include "host/session/runtime.hpp"
#include "tests/unit/session_helpers.hpp"

namespace caldera {
namespace {

NodeSpec node(const std::string& name, double cpu, double mem) {
  NodeSpec n;
  n.name = name;
  n.allocatable = {{"cpu", cpu}, {"memory", mem}};
  n.max_pods = 10;
  return n;
}

PodSpec pod(const std::string& name, const std::string& pg, double cpu, PodPhase phase,
            const std::string& on = "") {
  PodSpec p;
  p.ns = "c1";
  p.name = name;
  p.podgroup = pg;
  p.requests = {{"cpu", cpu}, {"memory", 1e9}};
  p.phase = phase;
  p.node = on;
  return p;
}

Cache small_cluster() {
  Cache c;
  c.upsert_node(node("n1", 4000, 8e9));
  c.upsert_node(node("n2", 2000, 4e9));
  testing::add_queue(c, "q1");
  testing::add_podgroup(c, "c1", "pg1", "q1", 2, JobPhase::Inqueue);
  c.upsert_pod(pod("pg1-run-0", "pg1", 1000, PodPhase::Running, "n1"));
  c.upsert_pod(pod("pg1-p-2", "pg1", 1000, PodPhase::Pending));
  c.upsert_pod(pod("pg1-p-10", "pg1", 1000, PodPhase::Pending));
  return c;
}

std::shared_ptr<const Policy> empty_policy() { return std::make_shared<Policy>(); }

TEST(SessionTest, SnapshotAccountsRunningTasksOnTheirNodes) {
  Cache c = small_cluster();
  Runtime runtime;
  auto s = Session::open(c, empty_policy(), 0, runtime);
  NodeInfo* n1 = s->node("n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_DOUBLE_EQ(n1->used[0], 1000);
  EXPECT_DOUBLE_EQ(n1->idle[0], 3000);
  EXPECT_EQ(n1->pods, 1);
  EXPECT_DOUBLE_EQ(s->cluster_total()[0], 6000);
  JobInfo* j = s->job("c1/pg1");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->ready_num(), 1);
  EXPECT_EQ(j->count(CAL_TASK_PENDING), 2);
  EXPECT_DOUBLE_EQ(j->allocated[0], 1000);
  EXPECT_DOUBLE_EQ(j->total_request[0], 3000);
  // Fallback task order: the number after the last '-' (2 before 10), not the name, as
  // Volcano's CompareTask reads it from a name of three '-'-separated parts or more.
  ASSERT_EQ(j->tasks.size(), 3u);
  EXPECT_TRUE(s->task_order_less(j->tasks[1], j->tasks[2]));
  EXPECT_EQ(j->tasks[1]->name, "pg1-p-2");
}

TEST(SessionTest, StatementDiscardRestoresEveryCount) {
  Cache c = small_cluster();
  Runtime runtime;
  auto s = Session::open(c, empty_policy(), 0, runtime);
  JobInfo* j = s->job("c1/pg1");
  NodeInfo* n2 = s->node("n2");
  TaskInfo* t = j->tasks[1];
  TaskInfo* running = j->tasks[0];
  {
    Statement st(*s);
    st.allocate(t, n2);
    st.evict(running, "test");
    EXPECT_DOUBLE_EQ(n2->idle[0], 1000);
    EXPECT_EQ(running->status, CAL_TASK_RELEASING);
    EXPECT_DOUBLE_EQ(s->node("n1")->releasing[0], 1000);
    EXPECT_DOUBLE_EQ(s->node("n1")->future_idle[0], 4000);
    st.discard();
  }
  EXPECT_DOUBLE_EQ(n2->idle[0], 2000);
  EXPECT_EQ(t->status, CAL_TASK_PENDING);
  EXPECT_EQ(running->status, CAL_TASK_RUNNING);
  EXPECT_DOUBLE_EQ(s->node("n1")->releasing[0], 0);
  EXPECT_EQ(j->ready_num(), 1);
}

// Volcano's getPodGroupPhase: a task bound in this session (Binding) is not scheduled yet,
// so 1 running + 1 binding < minMember 2 leaves the PodGroup as it was (Inqueue).
TEST(SessionTest, CommitBindsAndTasksBoundNowAreNotYetScheduled) {
  Cache c = small_cluster();
  Runtime runtime;
  auto s = Session::open(c, empty_policy(), 0, runtime);
  JobInfo* j = s->job("c1/pg1");
  Statement st(*s);
  st.allocate(j->tasks[1], s->node("n2"));
  st.commit();
  SessionResult r = s->close();
  ASSERT_EQ(r.binds.size(), 1u);
  EXPECT_EQ(r.binds[0].first, "c1/pg1-p-2");
  EXPECT_EQ(r.binds[0].second, "n2");
  EXPECT_EQ(r.podgroup_phases.at("c1/pg1"), JobPhase::Inqueue);
  ASSERT_EQ(r.pending.count("c1/pg1-p-10"), 1u);
}

TEST(SessionTest, PipelineUsesFutureIdleNotIdle) {
  Cache c = small_cluster();
  Runtime runtime;
  auto s = Session::open(c, empty_policy(), 0, runtime);
  JobInfo* j = s->job("c1/pg1");
  NodeInfo* n2 = s->node("n2");
  Statement st(*s);
  st.pipeline(j->tasks[1], n2);
  EXPECT_DOUBLE_EQ(n2->idle[0], 2000);        // idle untouched
  EXPECT_DOUBLE_EQ(n2->future_idle[0], 1000); // future idle reserved
  EXPECT_EQ(j->waiting_num(), 1);
  st.commit();
  SessionResult r = s->close();
  EXPECT_TRUE(r.binds.empty());
  ASSERT_EQ(r.pipelined.size(), 1u);
  EXPECT_EQ(r.pipelined[0].second, "n2");
}

TEST(SessionTest, FitErrorsReadLikeKubeScheduler) {
  ReasonTable reasons;
  FitErrors fe(reasons);
  fe.set_nodes(3);
  fe.add("Insufficient cpu");
  fe.add("Insufficient cpu");
  fe.add("node(s) didn't match Pod's node affinity/selector");
  EXPECT_EQ(fe.str(),
            "0/3 nodes are unavailable: 1 node(s) didn't match Pod's node affinity/selector, "
            "2 Insufficient cpu.");
}

TEST(SessionTest, PodWithoutPodGroupIsAJobOfItsOwnInTheDefaultQueue) {
  Cache c;
  c.upsert_node(node("n1", 1000, 1e9));
  c.upsert_pod(pod("solo", "", 500, PodPhase::Pending));
  Runtime runtime;
  auto s = Session::open(c, empty_policy(), 0, runtime);
  JobInfo* j = s->job("c1/solo");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->queue->name, "default");
  EXPECT_EQ(j->min_available, 1);
  EXPECT_EQ(j->phase, JobPhase::Inqueue);
}

// A running pod whose PodGroup is gone, or whose PodGroup's queue is, is no task of the
// session, but it still fills its node (Volcano's cache adds every pod with a node name to
// that node); a pending one is simply left out.
TEST(SessionTest, PodsOfMissingPodGroupsOrQueuesStillFillTheirNodes) {
  Cache c;
  c.upsert_node(node("n1", 4000, 8e9));
  testing::add_podgroup(c, "c1", "lost-queue", "nope", 1, JobPhase::Running);
  c.upsert_pod(pod("orphan-0", "deleted-pg", 1500, PodPhase::Running, "n1"));
  c.upsert_pod(pod("lost-0", "lost-queue", 1000, PodPhase::Running, "n1"));
  c.upsert_pod(pod("orphan-1", "deleted-pg", 700, PodPhase::Pending));
  c.upsert_pod(pod("done-0", "deleted-pg", 300, PodPhase::Succeeded, "n1"));
  Runtime runtime;
  auto s = Session::open(c, empty_policy(), 0, runtime);
  NodeInfo* n1 = s->node("n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_DOUBLE_EQ(n1->used[0], 2500);
  EXPECT_DOUBLE_EQ(n1->idle[0], 1500);
  EXPECT_EQ(n1->pods, 2);
  EXPECT_EQ(s->job("c1/deleted-pg"), nullptr);
  EXPECT_EQ(s->job("c1/lost-queue"), nullptr);
  EXPECT_TRUE(n1->tasks.empty());  // nobody's tasks: nothing to preempt or reclaim
}

}  // namespace
}  // namespace caldera
