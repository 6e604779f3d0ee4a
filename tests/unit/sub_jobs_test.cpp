// Sub-jobs (host/session/sub_jobs.hpp): how a PodGroup's subGroupPolicy splits its tasks,
// the ids Volcano gives them, their sizes, topologies and readiness, the scenario key and
// its errors, the Kubernetes PodGroup field, and the gang plugin's sub-job checks in a
// session. Volcano ed72c7c: pkg/scheduler/api/sub_job_info.go, job_info.go, session.go.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "host/backend/kubernetes/api_objects.hpp"
#include "host/cache/cache.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/session/runtime.hpp"
#include "host/session/session.hpp"
#include "host/session/statement.hpp"
#include "host/session/sub_jobs.hpp"
#include "tests/unit/session_helpers.hpp"
#include "tests/unit/test_support.hpp"

namespace {

using namespace caldera;
using caldera::k8s::Warnings;
using caldera::testing::input_error_of;
std::shared_ptr<const Policy> policy_of(const std::string& config) {
  return caldera::testing::policy_from_config(config);
}

Cache load(const std::string& text) {
  Cache cache;
  const toml::table t = toml::parse(std::string_view(text), std::string_view("sub.toml"));
  load_cluster_objects(t, "sub.toml", cache);
  return cache;
}

TaskInfo* task(const JobInfo* job, std::string_view uid) {
  for (TaskInfo* t : job->tasks)
    if (t->uid == uid) return t;
  return nullptr;
}

std::string load_error(const std::string& text) {
  return input_error_of([&] { load(text); });
}

const char* kGang = R"(
[scheduler]
actions = ["allocate"]
[[tiers]]
[[tiers.plugins]]
name = "gang"
[[tiers.plugins]]
name = "priority"
[[tiers]]
[[tiers.plugins]]
name = "predicates"
)";

// A job of six pods: two sub-groups by role and index, a pod the policy does not select
// (no role label), one whose index is not a number.
const char* kJob = R"(
[[nodes]]
name = "n0"
allocatable = { cpu = "8", memory = "16Gi" }
[[podgroups]]
name = "pg"
namespace = "c1"
min_member = 4
phase = "Inqueue"
network_topology = { mode = "soft" }
[[podgroups.sub_group_policy]]
name = "rack"
match_label_keys = ["role", "idx"]
sub_group_size = 2
min_sub_groups = 2
label_selector = { matchExpressions = [{ key = "role", operator = "In", values = ["worker"] }] }
network_topology = { mode = "soft" }
[[pods]]
name = "w-0"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1" }
labels = { role = "worker", idx = "1" }
[[pods]]
name = "w-1"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1" }
labels = { role = "worker", idx = "1" }
priority = 5
[[pods]]
name = "w-2"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1" }
labels = { role = "worker", idx = "0" }
[[pods]]
name = "w-3"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1" }
labels = { role = "worker", idx = "a" }
[[pods]]
name = "m-0"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1" }
labels = { role = "master", idx = "0" }
[[pods]]
name = "x-0"
namespace = "c1"
podgroup = "pg"
requests = { cpu = "1" }
)";

TEST(SubJobs, PolicySplitsTasksByLabelValues) {
  Cache c = load(kJob);
  Runtime runtime;
  auto s = Session::open(c, policy_of(kGang), 0, runtime);
  const JobInfo* job = s->job("c1/pg");
  const JobSubJobs& subs = s->sub_jobs(job);
  ASSERT_TRUE(subs.has_policy);
  ASSERT_EQ(subs.min_sub_jobs.size(), 1u);
  EXPECT_EQ(subs.min_sub_jobs[0], std::make_pair(std::string("c1/pg/rack"), 2));
  // By uid: the default sub-job (the job's uid) holds m-0 (not selected) and x-0 (no
  // labels); "0", "1" and "a" sub-groups of the policy.
  ASSERT_EQ(subs.list.size(), 4u);
  const SubJobInfo& def = *subs.list[0];
  EXPECT_EQ(def.uid, "c1/pg");
  EXPECT_TRUE(def.is_default);
  EXPECT_EQ(def.min_available, 1);  // the job has a policy: the default sub-job's size is 1
  ASSERT_EQ(def.tasks.size(), 2u);
  EXPECT_EQ(s->sub_job_of(def.tasks[0]), &def);
  const SubJobInfo& g0 = *subs.list[1];
  EXPECT_EQ(g0.uid, "c1/pg/rack-worker-0");
  EXPECT_EQ(g0.gid, "c1/pg/rack");
  EXPECT_EQ(g0.min_available, 2);
  EXPECT_EQ(g0.match_index, 0);  // the first value is "worker": not a number
  const SubJobInfo& g1 = *subs.list[2];
  EXPECT_EQ(g1.uid, "c1/pg/rack-worker-1");
  EXPECT_EQ(g1.tasks.size(), 2u);
  EXPECT_EQ(g1.priority, 5);  // its tasks' highest
  EXPECT_EQ(subs.list[3]->uid, "c1/pg/rack-worker-a");
  // Soft topologies are read as hard: the job's with the cluster's tier (1: no HyperNode),
  // the sub-group's with the job's; the default sub-job carries the job's.
  ASSERT_TRUE(subs.job_topology);
  EXPECT_EQ(subs.job_topology->mode, TopologyMode::Hard);
  EXPECT_EQ(subs.job_topology->highest_tier_allowed, 1);
  ASSERT_TRUE(g1.topology);
  EXPECT_EQ(g1.topology->mode, TopologyMode::Hard);
  ASSERT_TRUE(def.topology);
  EXPECT_TRUE(subs.has_topology());
  // Two sub-groups of the policy exist, its minimum: valid; none ready yet.
  EXPECT_TRUE(subs.valid());
  EXPECT_FALSE(subs.ready());
  EXPECT_FALSE(g1.is_ready());
}

// Volcano's getSubJobMatchValues: a policy without matchLabelKeys takes no task; a key
// whose value is empty does not match; a job without a policy is one sub-job of the job's
// size.
TEST(SubJobs, PolicyWithoutKeysTakesNothing) {
  Cache c = load(R"(
[[nodes]]
name = "n0"
allocatable = { cpu = "8", memory = "16Gi" }
[[podgroups]]
name = "pg"
min_member = 2
phase = "Inqueue"
[[podgroups.sub_group_policy]]
name = "all"
[[podgroups.sub_group_policy]]
name = "role"
match_label_keys = ["role"]
[[podgroups]]
name = "plain"
min_member = 3
phase = "Inqueue"
[[pods]]
name = "a"
podgroup = "pg"
requests = { cpu = "1" }
labels = { role = "" }
[[pods]]
name = "b"
podgroup = "pg"
requests = { cpu = "1" }
labels = { role = "r" }
[[pods]]
name = "p"
podgroup = "plain"
requests = { cpu = "1" }
)");
  Runtime runtime;
  auto s = Session::open(c, policy_of(kGang), 0, runtime);
  const JobSubJobs& subs = s->sub_jobs(s->job("default/pg"));
  ASSERT_EQ(subs.list.size(), 2u);
  EXPECT_EQ(subs.list[0]->uid, "default/pg");  // a: empty value, so the default
  EXPECT_EQ(subs.list[1]->uid, "default/pg/role-r");
  EXPECT_EQ(subs.list[1]->min_available, 1);  // no sub_group_size: 1
  const JobSubJobs& plain = s->sub_jobs(s->job("default/plain"));
  EXPECT_FALSE(plain.has_policy);
  ASSERT_EQ(plain.list.size(), 1u);
  EXPECT_EQ(plain.list[0]->min_available, 3);
  EXPECT_FALSE(plain.has_topology());
}

// Label values longer than 128 characters in all are hashed (FNV-32a, then
// rand.SafeEncodeString), as Volcano's getSubJobID does.
TEST(SubJobs, LongIdsAreHashed) {
  const std::string v(130, 'v');
  Cache c = load(R"(
[[podgroups]]
name = "pg"
phase = "Inqueue"
[[podgroups.sub_group_policy]]
name = "p"
match_label_keys = ["k"]
[[pods]]
name = "a"
podgroup = "pg"
requests = { cpu = "1" }
labels = { k = ")" + v + R"(" }
)");
  Runtime runtime;
  auto s = Session::open(c, policy_of(kGang), 0, runtime);
  const JobSubJobs& subs = s->sub_jobs(s->job("default/pg"));
  ASSERT_EQ(subs.list.size(), 1u);
  // FNV-32a of 130 'v' is 21782189 (worked out apart, in Python); its digits mapped into
  // "bcdfghjklmnpqrstvwxz2456789" by byte value modulo 27: "65cd65df".
  const std::string encoded = "65cd65df";
  EXPECT_EQ(subs.list[0]->uid, "default/pg/p-" + encoded);
}

// The gang plugin: a job is ready only when each policy has min_sub_groups sub-jobs ready;
// a job with fewer sub-groups than the minimum is not valid.
TEST(SubJobs, GangChecksTheSubGroupMinimum) {
  Cache c = load(kJob);
  Runtime runtime;
  auto s = Session::open(c, policy_of(kGang), 0, runtime);
  JobInfo* job = s->job("c1/pg");
  EXPECT_TRUE(s->job_valid(job).ok());
  const JobSubJobs& subs = s->sub_jobs(job);
  NodeInfo* n0 = s->node("n0");
  Statement st(*s);
  // Four tasks placed (min_member 4), but only sub-group "1" complete: not ready.
  for (const char* t : {"c1/w-0", "c1/w-1", "c1/m-0", "c1/x-0"}) st.allocate(task(job, t), n0);
  EXPECT_TRUE(subs.list[2]->is_ready());
  EXPECT_TRUE(s->sub_job_ready(subs.list[2].get()));
  EXPECT_FALSE(s->sub_job_ready(subs.list[1].get()));
  EXPECT_FALSE(s->job_ready(job));
  // Sub-group "0" has one task and a size of 2: it can never be ready; "a" likewise. The
  // gang order puts ready sub-jobs last.
  EXPECT_TRUE(s->sub_job_order_less(subs.list[1].get(), subs.list[2].get()));
  st.discard();

  Cache few = load(std::string(kJob).replace(std::string(kJob).find("min_sub_groups = 2"),
                                             18, "min_sub_groups = 4"));
  auto s2 = Session::open(few, policy_of(kGang), 0, runtime);
  PointStatus v = s2->job_valid(s2->job("c1/pg"));
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.reason, "Not enough valid subGroups of each task for gang-scheduling");
}

TEST(SubJobs, ScenarioErrorsNameTheKey) {
  const std::string pg = "[[podgroups]]\nname = \"pg\"\n[[podgroups.sub_group_policy]]\n";
  EXPECT_EQ(load_error(pg + "match_label_keys = [\"k\"]\n"),
            "sub.toml:3:1: podgroups[0] (default/pg).sub_group_policy[0]: missing key 'name'; "
            "expected the policy's name, unique in the PodGroup");
  EXPECT_EQ(load_error(pg + "name = \"a\"\nsize = 2\n"),
            "sub.toml:5:1: podgroups[0] (default/pg).sub_group_policy[0]: unknown key "
            "'size'; expected one of the allowed keys: name, sub_group_size, min_sub_groups, "
            "match_label_keys, label_selector, network_topology");
  EXPECT_EQ(load_error(pg + "name = \"a\"\n[[podgroups.sub_group_policy]]\nname = \"a\"\n"),
            "sub.toml:6:8: podgroups[0] (default/pg).sub_group_policy[1].name: a second sub-group "
            "policy named 'a'; expected a name no other policy of the PodGroup has");
  EXPECT_EQ(load_error(pg + "name = \"a\"\nmatch_label_keys = [\"\"]\n"),
            "sub.toml:5:21: podgroups[0] (default/pg).sub_group_policy[0].match_label_keys[0]: "
            "an empty label key; expected a label key");
  EXPECT_EQ(load_error(pg + "name = \"a\"\nsub_group_size = -1\n"),
            "sub.toml:5:18: podgroups[0] (default/pg).sub_group_policy[0].sub_group_size: -1 is "
            "out of range; expected an integer of at least 0");
  EXPECT_EQ(load_error(pg + "name = \"a\"\nnetwork_topology = { mode = \"hard\" }\n"),
            "sub.toml:5:20: podgroups[0] (default/pg).sub_group_policy[0].network_topology: "
            "missing key 'highest_tier_allowed'; expected the highest HyperNode tier the job may "
            "span (mode \"hard\" needs one)");
  const std::string bad_selector =
      load_error(pg + "name = \"a\"\nlabel_selector = { matchLabel = { a = \"b\" } }\n");
  EXPECT_NE(bad_selector.find("sub.toml:5:"), std::string::npos) << bad_selector;
  EXPECT_NE(bad_selector.find("matchLabel"), std::string::npos) << bad_selector;
}

// The Kubernetes PodGroup's spec.subGroupPolicy.
TEST(SubJobs, KubernetesPodGroupField) {
  const nlohmann::json pg = nlohmann::json::parse(R"({
    "metadata": {"name": "pg", "namespace": "c1"},
    "spec": {"minMember": 2, "subGroupPolicy": [
      {"name": "rack", "subGroupSize": 2, "minSubGroups": 1, "matchLabelKeys": ["idx"],
       "labelSelector": {"matchLabels": {"role": "w"}},
       "networkTopology": {"mode": "hard", "highestTierAllowed": 1}},
      {"subGroupSize": 2}
    ]}})");
  Warnings w;
  auto spec = k8s::podgroup_from_json(pg, w);
  ASSERT_TRUE(spec);
  ASSERT_EQ(spec->sub_group_policy.size(), 1u);
  const SubGroupPolicy& p = spec->sub_group_policy[0];
  EXPECT_EQ(p.name, "rack");
  EXPECT_EQ(p.sub_group_size, 2);
  EXPECT_EQ(p.min_sub_groups, 1);
  EXPECT_EQ(p.match_label_keys, std::vector<std::string>{"idx"});
  ASSERT_TRUE(p.has_label_selector);
  ASSERT_EQ(p.label_selector.size(), 1u);
  EXPECT_EQ(p.label_selector[0].op, "In");
  ASSERT_TRUE(p.network_topology);
  EXPECT_EQ(p.network_topology->highest_tier_allowed, 1);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "PodGroup c1/pg: subGroupPolicy[1] has no name; ignored");
}

}  // namespace
