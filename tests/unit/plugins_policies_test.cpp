// The namespace and queue policies of issue 20: nodegroup's affinity rules and scores, cdp's
// cooldown arithmetic, the quantities plugins read from annotations, and the model behind
// pdb and resourcequota (PodDisruptionBudget and ResourceQuota readers, and the statuses
// worked out from pods as Kubernetes' controllers would). Each expectation is worked out by
// hand in the comment above it; the plugins' decisions are in tests/scenarios/ (cdp-*,
// nodegroup-*, pdb-*, resourcequota-*).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cdp/cdp_math.hpp"
#include "host/model/policy_objects.hpp"
#include "kube/quantity.hpp"
#include "nodegroup/nodegroup_math.hpp"

namespace {

using namespace caldera;
namespace ng = caldera::nodegroup;
using json = nlohmann::json;

// A cal_queue_affinity over vectors the test keeps alive.
struct Affinity {
  std::vector<const char*> req, pref, anti_req, anti_pref;
  cal_queue_affinity view() const {
    cal_queue_affinity a{};
    a.struct_size = sizeof a;
    a.required = {req.data(), req.size()};
    a.preferred = {pref.data(), pref.size()};
    a.anti_required = {anti_req.data(), anti_req.size()};
    a.anti_preferred = {anti_pref.data(), anti_pref.size()};
    return a;
  }
};

// ---- nodegroup -----------------------------------------------------------------------------

// Volcano's queueGroupAffinity.predicate, case by case:
//   required or preferred -> allowed; anti-required -> refused even when also required;
//   anti-preferred -> allowed whatever else (its check comes last); listed nowhere -> refused.
TEST(NodeGroupMath, GroupAllowed) {
  Affinity a{{"a", "both"}, {"p"}, {"both", "x"}, {"soft", "x"}};
  const cal_queue_affinity v = a.view();
  EXPECT_TRUE(ng::group_allowed(v, "a"));
  EXPECT_TRUE(ng::group_allowed(v, "p"));
  EXPECT_FALSE(ng::group_allowed(v, "both"));
  EXPECT_TRUE(ng::group_allowed(v, "soft"));
  EXPECT_TRUE(ng::group_allowed(v, "x"));  // anti-required and anti-preferred: preferred wins
  EXPECT_FALSE(ng::group_allowed(v, "other"));
}

// Scores: required 100; preferred +50; both 150; anti-preferred -1 whatever else.
TEST(NodeGroupMath, ScoresWithoutPreferredOrder) {
  Affinity a{{"r", "rp"}, {"p", "rp", "pa"}, {}, {"pa"}};
  const cal_queue_affinity v = a.view();
  EXPECT_DOUBLE_EQ(ng::group_score(v, "r", false), 100);
  EXPECT_DOUBLE_EQ(ng::group_score(v, "p", false), 50);
  EXPECT_DOUBLE_EQ(ng::group_score(v, "rp", false), 150);
  EXPECT_DOUBLE_EQ(ng::group_score(v, "pa", false), -1);
  EXPECT_DOUBLE_EQ(ng::group_score(v, "none", false), 0);
}

// enablePreferredOrder: the i-th of n preferred groups adds 50 x (n - i) / n: with [a, b, c,
// d], a 50, b 37.5, c 25, d 12.5. A group listed twice keeps its last index and counts once
// (Volcano's map): [a, b, a] -> n = 2, a at index 2 -> 50 x (2 - 2) / 2 = 0, b 50 x 1/2 = 25.
TEST(NodeGroupMath, ScoresByPreferredOrder) {
  Affinity a{{}, {"a", "b", "c", "d"}, {}, {}};
  const cal_queue_affinity v = a.view();
  EXPECT_DOUBLE_EQ(ng::group_score(v, "a", true), 50);
  EXPECT_DOUBLE_EQ(ng::group_score(v, "b", true), 37.5);
  EXPECT_DOUBLE_EQ(ng::group_score(v, "c", true), 25);
  EXPECT_DOUBLE_EQ(ng::group_score(v, "d", true), 12.5);
  Affinity dup{{"a"}, {"a", "b", "a"}, {}, {}};
  const cal_queue_affinity w = dup.view();
  EXPECT_DOUBLE_EQ(ng::group_score(w, "a", true), 100);  // required 100 + 0
  EXPECT_DOUBLE_EQ(ng::group_score(w, "b", true), 25);
}

TEST(NodeGroupMath, UnsetMeansNoRuleAtAll) {
  EXPECT_TRUE(ng::unset(nullptr));
  Affinity empty;
  const cal_queue_affinity e = empty.view();
  EXPECT_TRUE(ng::unset(&e));
  Affinity only_anti{{}, {}, {}, {"a"}};
  const cal_queue_affinity o = only_anti.view();
  EXPECT_FALSE(ng::unset(&o));
}

// ---- cdp -----------------------------------------------------------------------------------

// Scheduled at 100 s with a 60 s cooldown: cooling down until 160, strictly (Go's After):
// at 159.999999999 yes, at 160 no. A negative cooldown protects nothing.
TEST(CdpMath, CooldownIsStrictlyAfterNow) {
  const go::Nanos minute = 60 * go::kNanosPerSecond;
  EXPECT_TRUE(cdp::in_cooldown(100, minute, 159.999999999));
  EXPECT_FALSE(cdp::in_cooldown(100, minute, 160));
  EXPECT_FALSE(cdp::in_cooldown(100, -minute, 100));
  EXPECT_TRUE(cdp::in_cooldown(100, go::parse_go_duration("1h30m").value.value(), 5499));
  EXPECT_FALSE(go::parse_go_duration("ten minutes").value.has_value());
}

// ---- quantities in annotations -------------------------------------------------------------

// "4" cpu -> 4000 millicores; "500m" -> 500; "8Gi" memory -> 8589934592 bytes; "1e3" -> 1000;
// "2k" -> 2000; nvidia.com/gpu "1" -> 1000 milli-units; pods "10" -> 10.
TEST(KubeQuantity, ParsesAndScales) {
  using kube::in_units;
  using kube::parse_quantity;
  EXPECT_DOUBLE_EQ(in_units("cpu", *parse_quantity("4")), 4000);
  EXPECT_DOUBLE_EQ(in_units("cpu", *parse_quantity("500m")), 500);
  EXPECT_DOUBLE_EQ(in_units("memory", *parse_quantity("8Gi")), 8589934592.0);
  EXPECT_DOUBLE_EQ(*parse_quantity("1e3"), 1000);
  EXPECT_DOUBLE_EQ(*parse_quantity("2k"), 2000);
  EXPECT_DOUBLE_EQ(in_units("nvidia.com/gpu", *parse_quantity("1")), 1000);
  EXPECT_DOUBLE_EQ(in_units("pods", *parse_quantity("10")), 10);
  for (const char* bad : {"", "Gi", "4x", "1.2.3", "four", "4 Gi"})
    EXPECT_FALSE(parse_quantity(bad).has_value()) << bad;
}

// ---- PodDisruptionBudget -------------------------------------------------------------------

json budget(json spec, json status = nullptr) {
  json j = {{"metadata", {{"name", "web"}, {"namespace", "c1"}}}, {"spec", std::move(spec)}};
  if (!status.is_null()) j["status"] = std::move(status);
  return j;
}

PodSpec pod(const std::string& name, const std::string& app, PodPhase phase,
            const std::string& ns = "c1") {
  PodSpec p;
  p.ns = ns;
  p.name = name;
  p.phase = phase;
  if (!app.empty()) p.labels["app"] = app;
  if (phase != PodPhase::Pending) p.node = "n1";
  return p;
}

// Five pods of app=web in c1: w0..w2 Running, w3 Pending, w4 Succeeded (not expected);
// w5 Running but being deleted (expected, not healthy); a Running web pod in c2 and a
// Running app=db pod in c1 match nothing. expected = 5 (w0..w3, w5), healthy = 3.
//   minAvailable 2     -> desired 2,          allowed 3 - 2 = 1
//   minAvailable "50%" -> desired ceil(2.5)=3, allowed 0
//   maxUnavailable 2   -> desired 5 - 2 = 3,  allowed 0
//   maxUnavailable "80%" -> ceil(4) = 4, desired 1, allowed 2
//   neither            -> desired 5,          allowed 0 (never below 0)
TEST(PolicyObjects, BudgetStatusFromPods) {
  std::vector<PodSpec> specs = {pod("w0", "web", PodPhase::Running), pod("w1", "web", PodPhase::Running),
                                pod("w2", "web", PodPhase::Running), pod("w3", "web", PodPhase::Pending),
                                pod("w4", "web", PodPhase::Succeeded), pod("w5", "web", PodPhase::Running),
                                pod("o", "web", PodPhase::Running, "c2"), pod("db", "db", PodPhase::Running)};
  specs[5].releasing = true;
  std::vector<const PodSpec*> pods;
  for (const PodSpec& p : specs) pods.push_back(&p);
  const json sel = {{"matchLabels", {{"app", "web"}}}};
  auto allowed = [&](json spec) {
    spec["selector"] = sel;
    DisruptionBudgetSpec b = read_disruption_budget(budget(spec), "", false);
    EXPECT_FALSE(b.has_status);
    return derive_status(std::move(b), pods).disruptions_allowed;
  };
  EXPECT_EQ(allowed({{"minAvailable", 2}}), 1);
  EXPECT_EQ(allowed({{"minAvailable", "50%"}}), 0);
  EXPECT_EQ(allowed({{"maxUnavailable", 2}}), 0);
  EXPECT_EQ(allowed({{"maxUnavailable", "80%"}}), 2);
  EXPECT_EQ(allowed(json::object()), 0);
}

// A written status is kept as it is, disrupted pods sorted by name; from the API server a
// missing status reads as zero (what Volcano sees before the controller writes one).
TEST(PolicyObjects, BudgetStatusAsWritten) {
  DisruptionBudgetSpec b = read_disruption_budget(
      budget({{"minAvailable", 1}}, {{"disruptionsAllowed", 3},
                                     {"disruptedPods", {{"w9", "t"}, {"w1", "t"}}}}),
      "", false);
  ASSERT_TRUE(b.has_status);
  EXPECT_EQ(b.disruptions_allowed, 3);
  EXPECT_EQ(b.disrupted_pods, (std::vector<std::string>{"w1", "w9"}));
  EXPECT_EQ(derive_status(b, {}).disruptions_allowed, 3);
  DisruptionBudgetSpec api = read_disruption_budget(budget({{"minAvailable", 1}}), "", true);
  EXPECT_TRUE(api.has_status);
  EXPECT_EQ(api.disruptions_allowed, 0);
}

TEST(PolicyObjects, BudgetRefusals) {
  auto error = [](json spec) {
    try {
      read_disruption_budget(budget(std::move(spec)), "", false);
    } catch (const ApiFieldError& e) {
      return e.path + ": " + e.problem;
    }
    return std::string("no error");
  };
  EXPECT_EQ(error({{"minAvailable", 1}, {"maxUnavailable", 1}}),
            "spec.maxUnavailable: both minAvailable and maxUnavailable");
  EXPECT_EQ(error({{"minAvailable", "101%"}}), "spec.minAvailable: '101%' is over 100%");
  EXPECT_EQ(error({{"minAvailable", "5"}}), "spec.minAvailable: '5' is not a percentage");
  EXPECT_EQ(error({{"minAvailable", -1}}).rfind("spec.minAvailable: ", 0), 0u);
  EXPECT_EQ(error({{"minAvailabel", 1}}).rfind("spec.minAvailabel: unknown field", 0), 0u);
}

// ---- ResourceQuota -------------------------------------------------------------------------

// hard { cpu 4, requests.memory 8Gi, pods 10, requests.nvidia.com/gpu 2 } in Caldera units:
// cpu 4000 (millicores), memory 8589934592 (bytes), pods 10, gpu 2000 (milli-units).
// Pods of c1: a Running (cpu 1, 1Gi, gpu 1), b Pending (cpu 500m with an init container of
// cpu 2: the effective request is 2), c Failed (not counted); one pod of c2.
//   used cpu 1000 + 2000 = 3000, memory 1Gi + 0, pods 2, gpu 1000.
TEST(PolicyObjects, QuotaUsedFromPods) {
  json j = {{"metadata", {{"name", "q"}, {"namespace", "c1"}}},
            {"spec", {{"hard", {{"cpu", "4"}, {"requests.memory", "8Gi"}, {"pods", 10},
                                {"requests.nvidia.com/gpu", "2"}}}}}};
  ResourceQuotaSpec q = read_resource_quota(j, "", false);
  ASSERT_EQ(q.resources.size(), 4u);
  EXPECT_FALSE(q.has_used);
  EXPECT_EQ(quota_status_needed(q), "");
  PodSpec a = pod("a", "", PodPhase::Running);
  a.requests = {{"cpu", 1000}, {"memory", 1073741824.0}, {"nvidia.com/gpu", 1000}};
  PodSpec b = pod("b", "", PodPhase::Pending);
  b.requests = {{"cpu", 500}};
  b.init_requests = {{"cpu", 2000}};
  PodSpec c = pod("c", "", PodPhase::Failed);
  c.requests = {{"cpu", 8000}};
  PodSpec other = pod("d", "", PodPhase::Running, "c2");
  other.requests = {{"cpu", 8000}};
  const ResourceQuotaSpec d = derive_status(q, {&a, &b, &c, &other});
  ASSERT_TRUE(d.has_used);
  std::map<std::string, std::pair<double, double>> got;
  for (const QuotaResource& r : d.resources) got[r.name] = {r.hard, r.used};
  EXPECT_EQ(got["cpu"], std::make_pair(4000.0, 3000.0));
  EXPECT_EQ(got["requests.memory"], std::make_pair(8589934592.0, 1073741824.0));
  EXPECT_EQ(got["pods"], std::make_pair(10.0, 2.0));
  EXPECT_EQ(got["requests.nvidia.com/gpu"], std::make_pair(2000.0, 1000.0));
}

// status.hard wins over spec.hard (the controller's copy); status.used is taken as written;
// limits.cpu without a used cannot be worked out; scopes are refused.
TEST(PolicyObjects, QuotaStatusAndRefusals) {
  json j = {{"metadata", {{"name", "q"}, {"namespace", "c1"}}},
            {"spec", {{"hard", {{"cpu", "4"}}}}},
            {"status", {{"hard", {{"cpu", "6"}}}, {"used", {{"cpu", "500m"}}}}}};
  ResourceQuotaSpec q = read_resource_quota(j, "", false);
  ASSERT_EQ(q.resources.size(), 1u);
  EXPECT_DOUBLE_EQ(q.resources[0].hard, 6000);
  EXPECT_DOUBLE_EQ(q.resources[0].used, 500);
  EXPECT_TRUE(q.has_used);
  json limits = {{"metadata", {{"name", "q"}, {"namespace", "c1"}}},
                 {"spec", {{"hard", {{"limits.cpu", "4"}}}}}};
  EXPECT_EQ(quota_status_needed(read_resource_quota(limits, "", false)), "limits.cpu");
  json scoped = {{"metadata", {{"name", "q"}, {"namespace", "c1"}}},
                 {"spec", {{"hard", {{"cpu", "4"}}}, {"scopes", {"BestEffort"}}}}};
  EXPECT_THROW(read_resource_quota(scoped, "", false), ApiFieldError);
}

// ---- label selectors on the host ----------------------------------------------------------

TEST(PolicyObjects, SelectorMatches) {
  const StringMap labels = {{"app", "web"}, {"tier", "front"}};
  auto sel = [](json j) { return api::label_selector(&j, "selector"); };
  EXPECT_FALSE(api::selector_matches(api::Selector{}, labels));  // absent: nothing
  EXPECT_TRUE(api::selector_matches(sel(json::object()), labels));  // empty: everything
  EXPECT_TRUE(api::selector_matches(sel({{"matchLabels", {{"app", "web"}}}}), labels));
  EXPECT_FALSE(api::selector_matches(sel({{"matchLabels", {{"app", "db"}}}}), labels));
  EXPECT_TRUE(api::selector_matches(
      sel({{"matchExpressions", {{{"key", "zone"}, {"operator", "DoesNotExist"}}}}}), labels));
  EXPECT_FALSE(api::selector_matches(
      sel({{"matchExpressions", {{{"key", "tier"}, {"operator", "NotIn"}, {"values", {"front"}}}}}}),
      labels));
}

}  // namespace
