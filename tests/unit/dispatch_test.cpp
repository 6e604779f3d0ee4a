// The point table (host/config/points.hpp) and the dispatch built from it
// (host/session/chains.hpp, dispatch.hpp): names, implemented points, chains, and each
// combination rule of caldera/plugin.h on hand-made chains of fake plugins, with the
// corners of Volcano's rules (a permit deciding its tier only after the rest of the tier
// voted, an empty victim intersection starting afresh as Volcano's nil slice does), and the
// ABI 1.7 slots: unified_evictable (the gang-aware actions' victims, Volcano's
// UnifiedEvictable; its cases are Volcano's session_plugins_test.go TestUnifiedEvictable_*)
// and preemptive_many, through a session with a resident plugin.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/config/points.hpp"
#include "host/session/chains.hpp"
#include "host/session/dispatch.hpp"
#include "host/session/host_api.hpp"
#include "host/session/runtime.hpp"
#include "tests/unit/session_helpers.hpp"

namespace caldera {
namespace {

// ---- the table ----------------------------------------------------------------------

static_assert(SlotInfo<Slot::job_order>::rule == Combine::FirstNonZero);
static_assert(SlotInfo<Slot::predicate_many>::point == Point::Predicate);
static_assert(SlotInfo<Slot::batch_node_order>::point == Point::NodeOrder);
static_assert(SlotInfo<Slot::job_enqueued>::point == Point::JobEnqueueable);
static_assert(SlotInfo<Slot::job_enqueued>::rule == Combine::Notify);
static_assert(SlotInfo<Slot::preemptable>::rule == Combine::VictimIntersect);
static_assert(SlotInfo<Slot::job_valid>::always && SlotInfo<Slot::on_allocate>::always);
static_assert(!SlotInfo<Slot::job_ready>::always);
// ABI 1.7: unified_evictable runs in every plugin that sets it (Volcano has no enable
// switch for UnifiedEvictableFn), with the rule of preemptable; preemptive_many is the
// many-task slot of the preemptive point.
static_assert(SlotInfo<Slot::unified_evictable>::always);
static_assert(SlotInfo<Slot::unified_evictable>::rule == Combine::VictimIntersect);
static_assert(SlotInfo<Slot::preemptive_many>::point == Point::Preemptive);
static_assert(SlotInfo<Slot::preemptive_many>::rule == Combine::AllTrue);
// ABI 1.8: the sub-job points, and the sub-job form of hyper_node_order.
static_assert(SlotInfo<Slot::sub_job_order>::rule == Combine::FirstNonZero);
static_assert(SlotInfo<Slot::sub_job_ready>::rule == Combine::AllTrue);
static_assert(SlotInfo<Slot::sub_job_pipelined>::rule == Combine::Vote);
static_assert(SlotInfo<Slot::sub_job_hyper_node_order>::point == Point::HyperNodeOrder);

TEST(PointTableTest, NamesRoundTripInEnumOrder) {
  EXPECT_EQ(kPointCount, 20);
  std::string joined;
  for (int i = 0; i < kPointCount; ++i) {
    const auto p = static_cast<Point>(i);
    ASSERT_EQ(point_from_name(point_name(p)), p) << point_name(p);
    if (i) joined += ", ";
    joined += point_name(p);
  }
  EXPECT_EQ(joined, all_point_names());
  EXPECT_EQ(point_name(Point::JobOrder), "job_order");
  EXPECT_EQ(point_name(Point::HyperNodeOrder), "hyper_node_order");
  EXPECT_FALSE(point_from_name("pre_predicate").has_value());  // a slot, not a point
  EXPECT_EQ(SlotInfo<Slot::node_order_many>::name, "node_order_many");
}

cal_code any_predicate(void*, const cal_task*, const cal_node*, cal_status*) {
  return CAL_SUCCESS;
}
void any_predicate_many(void*, const cal_task*, const cal_node* const*, size_t, cal_code*,
                        const char**) {}
void any_job_event(void*, const cal_job*) {}

TEST(PointTableTest, ImplementedPointsComeFromEverySlotOfAPoint) {
  cal_plugin d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.abi_version = CAL_ABI_VERSION;
  EXPECT_EQ(implemented_points(&d), PointSet::none());
  d.job_enqueued = any_job_event;  // the second slot of job_enqueueable
  PointSet want = PointSet::none();
  want.add(Point::JobEnqueueable);
  EXPECT_EQ(implemented_points(&d), want);

  d.job_enqueued = nullptr;
  d.predicate_many = any_predicate_many;
  want = PointSet::none();
  want.add(Point::Predicate);
  EXPECT_EQ(implemented_points(&d), want);
  // A descriptor too short to hold the 1.1 slot, or stamped 1.0: not read.
  d.struct_size = CAL_PLUGIN_V1_0_SIZE;
  EXPECT_EQ(implemented_points(&d), PointSet::none());
  d.struct_size = sizeof d;
  d.abi_version = (1u << 16) | 0u;  // 1.0
  EXPECT_EQ(implemented_points(&d), PointSet::none());
  d.predicate = any_predicate;
  EXPECT_EQ(implemented_points(&d), want);
}

TEST(PointTableTest, ChainsHoldThePluginsTakingPartInTierOrder) {
  cal_plugin d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.abi_version = CAL_ABI_VERSION;
  d.predicate = any_predicate;
  d.job_enqueued = any_job_event;
  d.job_valid = [](void*, const cal_job*, cal_status*) { return CAL_SUCCESS; };
  ConfiguredPlugin on, off;
  on.code = off.code = PluginCode::resident(&d);
  on.name = "on";
  off.name = "off";
  on.points = implemented_points(&d);
  off.points = PointSet::none();  // every point disabled
  PluginChains chains;
  int a = 0, b = 0;
  chains.add(off, &d, &a, 0, 0);
  chains.add(on, &d, &b, 1, 1);
  ASSERT_EQ(chains[Slot::predicate].size(), 1u);
  EXPECT_EQ(*chains[Slot::predicate][0].name, "on");
  EXPECT_EQ(chains[Slot::predicate][0].self, &b);
  EXPECT_EQ(chains[Slot::predicate][0].tier, 1u);
  EXPECT_EQ(chains[Slot::job_enqueued].size(), 1u);
  EXPECT_TRUE(chains[Slot::pre_predicate].empty());  // not set
  // job_valid runs in every plugin that has it, whatever its points.
  ASSERT_EQ(chains[Slot::job_valid].size(), 2u);
  EXPECT_EQ(*chains[Slot::job_valid][0].name, "off");
  EXPECT_EQ(*chains[Slot::job_valid][1].name, "on");
}

cal_vote allow_all(void*, const cal_eviction_context*, const cal_task* const*, size_t n,
                   uint8_t* victims) {
  for (size_t i = 0; i < n; ++i) victims[i] = 1;
  return CAL_PERMIT;
}
int preemptive_many_no(void*, const cal_queue*, const cal_task* const*, size_t) { return 0; }

TEST(PointTableTest, UnifiedEvictableTakesNoPointAndNeedsMinor7) {
  cal_plugin d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.abi_version = CAL_ABI_VERSION;
  d.unified_evictable = allow_all;
  // An ALWAYS slot: no config point, so nothing to enable or disable.
  EXPECT_EQ(implemented_points(&d), PointSet::none());
  ConfiguredPlugin off;
  off.code = PluginCode::resident(&d);
  off.name = "off";
  off.points = PointSet::none();
  PluginChains chains;
  chains.add(off, &d, nullptr, 0, 0);
  EXPECT_EQ(chains[Slot::unified_evictable].size(), 1u);
  // preemptive_many implements the preemptive point.
  d.preemptive_many = preemptive_many_no;
  PointSet want = PointSet::none();
  want.add(Point::Preemptive);
  EXPECT_EQ(implemented_points(&d), want);
  // A descriptor stamped 1.6 has neither slot read: they were reserved words then.
  d.abi_version = (1u << 16) | 6u;
  EXPECT_EQ(implemented_points(&d), PointSet::none());
  EXPECT_EQ(SlotInfo<Slot::unified_evictable>::get(&d), nullptr);
  d.abi_version = CAL_ABI_VERSION;
  d.struct_size = CAL_PLUGIN_V1_1_SIZE;  // stamped 1.7 but too short to hold them
  EXPECT_EQ(SlotInfo<Slot::unified_evictable>::get(&d), nullptr);
  EXPECT_EQ(SlotInfo<Slot::preemptive_many>::get(&d), nullptr);
}

// ---- the rules --------------------------------------------------------------------------

// A fake plugin's answers; `self` points to one.
struct Fake {
  explicit Fake(int a = 0, std::vector<uint8_t> m = {}) : answer(a), marks(std::move(m)) {}
  int answer;                  // orders, checks, votes, indexes, codes
  std::vector<uint8_t> marks;  // victims
  std::vector<double> scores;  // sums
  std::string reason;
  int* calls = nullptr;
};

int order_fn(void* self, const cal_job*, const cal_job*) {
  auto* f = static_cast<Fake*>(self);
  if (f->calls) ++*f->calls;
  return f->answer;
}
int job_check_fn(void* self, const cal_job*) {
  auto* f = static_cast<Fake*>(self);
  if (f->calls) ++*f->calls;
  return f->answer;
}
cal_vote vote_fn(void* self, const cal_job*) {
  auto* f = static_cast<Fake*>(self);
  if (f->calls) ++*f->calls;
  return static_cast<cal_vote>(f->answer);
}
cal_code valid_fn(void* self, const cal_job*, cal_status* st) {
  auto* f = static_cast<Fake*>(self);
  std::snprintf(st->reason, sizeof st->reason, "%s", f->reason.c_str());
  return static_cast<cal_code>(f->answer);
}
cal_vote victims_fn(void* self, const cal_task*, const cal_task* const*, size_t n,
                    uint8_t* victims) {
  auto* f = static_cast<Fake*>(self);
  if (f->answer == CAL_ABSTAIN) return CAL_ABSTAIN;
  for (size_t i = 0; i < n && i < f->marks.size(); ++i) victims[i] = f->marks[i];
  return CAL_PERMIT;
}
void victim_tasks_fn(void* self, const cal_task* const*, size_t n, uint8_t* victims) {
  auto* f = static_cast<Fake*>(self);
  for (size_t i = 0; i < n && i < f->marks.size(); ++i) victims[i] = f->marks[i];
}
cal_code hyper_fn(void* self, const cal_job*, const cal_hypernode* const*, size_t n,
                  double* scores, cal_status*) {
  auto* f = static_cast<Fake*>(self);
  for (size_t i = 0; i < n; ++i) scores[i] += f->scores[i];
  return static_cast<cal_code>(f->answer);
}
int64_t best_fn(void* self, const cal_task*, const cal_node* const*, const double*, size_t) {
  return static_cast<Fake*>(self)->answer;
}

const std::string kNames[] = {"p0", "p1", "p2", "p3", "p4"};

// A chain of fakes: (tier, fake) in call order.
template <class Fn>
std::vector<PluginCall> chain(Fn fn, std::vector<std::pair<uint32_t, Fake*>> plugins) {
  std::vector<PluginCall> out;
  for (size_t i = 0; i < plugins.size(); ++i)
    out.push_back(PluginCall{reinterpret_cast<void (*)()>(fn), plugins[i].second, &kNames[i],
                             plugins[i].first, static_cast<int32_t>(i)});
  return out;
}

TEST(DispatchRuleTest, FirstNonZeroStopsAtTheFirstOpinion) {
  int calls = 0;
  Fake zero{0}, later{1}, last{-1};
  zero.calls = later.calls = last.calls = &calls;
  EXPECT_EQ(dispatch::first_non_zero<Slot::job_order>(
                chain(order_fn, {{0, &zero}, {1, &later}, {1, &last}}), nullptr, nullptr),
            1);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(dispatch::first_non_zero<Slot::job_order>(chain(order_fn, {{0, &zero}}), nullptr,
                                                      nullptr),
            0);
}

TEST(DispatchRuleTest, ChecksAnyAllAndTierByTier) {
  Fake yes{1}, no{0};
  EXPECT_TRUE(dispatch::any_true<Slot::job_ready>(chain(job_check_fn, {{0, &no}, {1, &yes}}),
                                                  nullptr));
  EXPECT_FALSE(dispatch::any_true<Slot::job_ready>(chain(job_check_fn, {}), nullptr));
  EXPECT_FALSE(dispatch::all_true<Slot::job_ready>(chain(job_check_fn, {{0, &yes}, {1, &no}}),
                                                   nullptr));
  EXPECT_TRUE(dispatch::all_true<Slot::job_ready>(chain(job_check_fn, {}), nullptr));
  // job_starving: the first tier with a plugin decides; none at all: not starving.
  EXPECT_FALSE(dispatch::tier_all_true<Slot::job_starving>(chain(job_check_fn, {}), nullptr));
  EXPECT_TRUE(dispatch::tier_all_true<Slot::job_starving>(
      chain(job_check_fn, {{1, &yes}, {2, &no}}), nullptr));
  EXPECT_FALSE(dispatch::tier_all_true<Slot::job_starving>(
      chain(job_check_fn, {{1, &yes}, {1, &no}, {2, &yes}}), nullptr));
}

TEST(DispatchRuleTest, VoteRejectWinsAndAPermitDecidesItsTierAfterTheRestVoted) {
  Fake permit{CAL_PERMIT}, reject{CAL_REJECT}, abstain{CAL_ABSTAIN};
  auto vote = [](std::vector<std::pair<uint32_t, Fake*>> p) {
    return dispatch::vote<Slot::job_pipelined>(chain(vote_fn, std::move(p)), nullptr);
  };
  EXPECT_TRUE(vote({}));
  EXPECT_TRUE(vote({{0, &abstain}, {1, &abstain}}));
  EXPECT_TRUE(vote({{0, &abstain}, {0, &permit}, {1, &reject}}));  // tier 0 decided yes
  EXPECT_FALSE(vote({{0, &permit}, {0, &reject}}));                 // same tier: the reject
  EXPECT_FALSE(vote({{0, &abstain}, {1, &reject}}));
}

TEST(DispatchRuleTest, AllPassReturnsTheFirstFailureWithItsReasonAndPlugin) {
  Fake ok{CAL_SUCCESS}, skip{CAL_SKIP}, no{CAL_UNSCHEDULABLE}, err{CAL_ERROR};
  no.reason = "not this one";
  PointStatus st = dispatch::all_pass<Slot::job_valid>(
      chain(valid_fn, {{0, &ok}, {0, &skip}, {1, &no}, {1, &err}}), nullptr);
  EXPECT_EQ(st.code, CAL_UNSCHEDULABLE);
  EXPECT_EQ(st.reason, "not this one");
  EXPECT_EQ(st.plugin, "p2");
  EXPECT_TRUE(dispatch::all_pass<Slot::job_valid>(chain(valid_fn, {{0, &ok}, {0, &skip}}),
                                                  nullptr)
                  .ok());
  // No reason given: "<plugin> refused".
  EXPECT_EQ(dispatch::all_pass<Slot::job_valid>(chain(valid_fn, {{0, &err}}), nullptr).reason,
            "p0 refused");
}

std::vector<uint8_t> intersect(std::vector<std::pair<uint32_t, Fake*>> p, size_t n = 4) {
  std::vector<uint8_t> out(n, 7);
  std::vector<const cal_task*> handles(n, nullptr);
  dispatch::victim_intersect<Slot::preemptable>(chain(victims_fn, std::move(p)), n, out.data(),
                                                nullptr, handles.data(), n);
  return out;
}

TEST(DispatchRuleTest, VictimsIntersectInsideATierAndTheFirstTierWithVictimsDecides) {
  using V = std::vector<uint8_t>;
  Fake a{CAL_PERMIT, {1, 1, 1, 0}}, b{CAL_PERMIT, {0, 1, 1, 1}}, abstain{CAL_ABSTAIN},
      c{CAL_PERMIT, {0, 0, 0, 1}}, none{CAL_PERMIT, {0, 0, 0, 0}}, first{CAL_PERMIT, {1, 0, 0, 0}},
      second{CAL_PERMIT, {0, 1, 0, 0}}, both{CAL_PERMIT, {1, 1, 0, 0}};
  EXPECT_EQ(intersect({}), (V{0, 0, 0, 0}));
  EXPECT_EQ(intersect({{0, &a}, {0, &b}}), (V{0, 1, 1, 0}));
  EXPECT_EQ(intersect({{0, &a}, {1, &c}}), (V{1, 1, 1, 0}));       // tier 0 decided
  EXPECT_EQ(intersect({{0, &abstain}, {1, &c}}), (V{0, 0, 0, 1}));  // tier 0 abstained
  // A plugin allowing none ends its tier (b is not asked); a first set was not taken, so
  // tier 1 starts afresh.
  EXPECT_EQ(intersect({{0, &none}, {0, &b}, {1, &c}}), (V{0, 0, 0, 1}));
  // Tier 0 took a first set and intersected it to nothing: Volcano's intersection is then a
  // nil slice, which is "no set taken" again, so tier 1 starts afresh (checked against the
  // loop of session_plugins.go run in Go) ...
  EXPECT_EQ(intersect({{0, &first}, {0, &second}, {1, &both}}), (V{1, 1, 0, 0}));
  // ... and so does the next plugin of the same tier.
  EXPECT_EQ(intersect({{0, &first}, {0, &second}, {0, &c}}), (V{0, 0, 0, 1}));
  EXPECT_EQ(intersect({}, 0), V{});
}

// ---- unified_evictable: Volcano's session_plugins_test.go TestUnifiedEvictable_* --------

// A fake unified_evictable: marks its own set (by candidate index), or abstains; records
// the context it was given.
struct Evictor {
  Evictor(int a, std::vector<uint8_t> m) : answer(a), marks(std::move(m)) {}
  int answer;
  std::vector<uint8_t> marks;
  cal_eviction_context seen{};
  std::string seen_hypernode;
};
cal_vote evictor_fn(void* self, const cal_eviction_context* ctx, const cal_task* const*, size_t n,
                    uint8_t* victims) {
  auto* e = static_cast<Evictor*>(self);
  e->seen = *ctx;
  e->seen_hypernode = ctx->hypernode ? ctx->hypernode : "";
  if (e->answer == CAL_ABSTAIN) return CAL_ABSTAIN;
  for (size_t i = 0; i < n && i < e->marks.size(); ++i) victims[i] = e->marks[i];
  return static_cast<cal_vote>(e->answer);
}

std::vector<PluginCall> evictors(std::vector<std::pair<uint32_t, Evictor*>> plugins) {
  std::vector<PluginCall> out;
  for (size_t i = 0; i < plugins.size(); ++i)
    out.push_back(PluginCall{reinterpret_cast<void (*)()>(evictor_fn), plugins[i].second,
                             &kNames[i], plugins[i].first, static_cast<int32_t>(i)});
  return out;
}

std::vector<uint8_t> unified(std::vector<std::pair<uint32_t, Evictor*>> p, size_t n,
                             cal_eviction_kind kind = CAL_EVICTION_GANG_PREEMPT) {
  std::vector<uint8_t> out(n, 7);
  std::vector<const cal_task*> handles(n, nullptr);
  cal_eviction_context ctx{};
  ctx.struct_size = sizeof ctx;
  ctx.kind = kind;
  ctx.hypernode = "<cluster-top-hypernode>";
  dispatch::victim_intersect<Slot::unified_evictable>(evictors(std::move(p)), n, out.data(),
                                                      &ctx, handles.data(), n);
  return out;
}

TEST(UnifiedEvictableTest, TierWalkAndIntersection) {
  using V = std::vector<uint8_t>;
  // Candidates a, b, c; p1 allows a and b, p2 b and c: b.
  Evictor p1{CAL_PERMIT, {1, 1, 0}}, p2{CAL_PERMIT, {0, 1, 1}};
  EXPECT_EQ(unified({{0, &p1}, {0, &p2}}, 3), (V{0, 1, 0}));
}

TEST(UnifiedEvictableTest, AbstainSkipped) {
  using V = std::vector<uint8_t>;
  Evictor abstainer{CAL_ABSTAIN, {}}, permitter{CAL_PERMIT, {1}};
  EXPECT_EQ(unified({{0, &abstainer}, {0, &permitter}}, 1), (V{1}));
}

TEST(UnifiedEvictableTest, EmptyCandidatesBlocksTier) {
  using V = std::vector<uint8_t>;
  // The blocker allows none (and does not abstain): tier 0 ends with no victims before the
  // permitter is asked; tier 1's fallback decides.
  Evictor blocker{CAL_PERMIT, {0}}, permitter{CAL_PERMIT, {1}}, fallback{CAL_PERMIT, {1}};
  EXPECT_EQ(unified({{0, &blocker}, {0, &permitter}, {1, &fallback}}, 1,
                    CAL_EVICTION_GANG_RECLAIM),
            (V{1}));
  EXPECT_EQ(permitter.seen.struct_size, 0u);  // never called
  // Only an abstention takes no part: Volcano reads the victims a plugin returns whatever
  // its vote, so a reject is "none" only by marking none, as capacity's does.
  Evictor rejecter{CAL_REJECT, {0}}, marking_rejecter{CAL_REJECT, {1}};
  EXPECT_EQ(unified({{0, &rejecter}, {1, &fallback}}, 1), (V{1}));
  EXPECT_EQ(unified({{0, &marking_rejecter}}, 1), (V{1}));
}

TEST(UnifiedEvictableTest, NoPluginsReturnsNoVictims) {
  EXPECT_EQ(unified({}, 1), (std::vector<uint8_t>{0}));
}

TEST(UnifiedEvictableTest, ContextPassedThrough) {
  Evictor spy{CAL_PERMIT, {1}};
  unified({{0, &spy}}, 1, CAL_EVICTION_GANG_RECLAIM);
  EXPECT_EQ(spy.seen.struct_size, sizeof(cal_eviction_context));
  EXPECT_EQ(spy.seen.kind, static_cast<uint32_t>(CAL_EVICTION_GANG_RECLAIM));
  EXPECT_EQ(spy.seen_hypernode, "<cluster-top-hypernode>");
  EXPECT_EQ(spy.seen.task, nullptr);
}

// Through a session: a resident plugin with unified_evictable, preemptive and
// preemptive_many, and one with preemptive only.
struct Resident {
  std::string hypernode;
  const cal_job* job = nullptr;
  uint32_t kind = 0;
  size_t many_calls = 0, single_calls = 0;
  int many_answer = 1;
  double max_single_cpu = 1e18;  // preemptive: yes while the task asks at most this cpu
};
Resident* g_resident = nullptr;  // the instance state open() returns
cal_vote resident_evictable(void* self, const cal_eviction_context* ctx,
                            const cal_task* const* c, size_t n, uint8_t* victims) {
  auto* r = static_cast<Resident*>(self);
  r->hypernode = ctx->hypernode;
  r->job = ctx->job;
  r->kind = ctx->kind;
  for (size_t i = 0; i < n; ++i)
    victims[i] = from_handle(c[i])->name.back() != '0' ? 1 : 0;  // all but *-0
  return CAL_PERMIT;
}
int resident_preemptive(void* self, const cal_queue*, const cal_task* t) {
  auto* r = static_cast<Resident*>(self);
  ++r->single_calls;
  return from_handle(t)->resreq[0] <= r->max_single_cpu ? 1 : 0;
}
int resident_preemptive_many(void* self, const cal_queue*, const cal_task* const*, size_t n) {
  auto* r = static_cast<Resident*>(self);
  r->many_calls += n;
  return r->many_answer;
}
void* resident_open(cal_session*, const cal_args*, cal_code*, cal_status*) { return g_resident; }
void resident_close(void*) {}

TEST(UnifiedEvictableTest, SessionPassesTheContextAndKeepsTheCandidatesOrder) {
  Resident state;
  g_resident = &state;
  cal_plugin d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.abi_version = CAL_ABI_VERSION;
  d.name = "resident";
  d.open = resident_open;
  d.close = resident_close;
  d.unified_evictable = resident_evictable;
  d.preemptive = resident_preemptive;
  d.preemptive_many = resident_preemptive_many;
  auto policy = std::make_shared<Policy>();
  ConfiguredPlugin cp;
  cp.code = PluginCode::resident(&d);
  cp.name = "resident";
  cp.implemented = cp.points = implemented_points(&d);
  cp.args = std::make_shared<const Args>();
  policy->tiers.push_back({cp});

  Cache cache;
  NodeSpec n;
  n.name = "n1";
  n.allocatable = {{"cpu", 4000}, {"memory", 8e9}};
  cache.upsert_node(n);
  testing::add_queue(cache, "q1");
  testing::add_podgroup(cache, "c1", "pg", "q1", 1, JobPhase::Running);
  for (const char* name : {"t-0", "t-1", "t-2"}) {
    PodSpec p;
    p.ns = "c1";
    p.name = name;
    p.podgroup = "pg";
    p.requests = {{"cpu", 1000}};
    cache.upsert_pod(p);
  }
  Runtime runtime;
  auto s = Session::open(cache, policy, 0, runtime);
  JobInfo* job = s->job("c1/pg");
  ASSERT_NE(job, nullptr);
  std::vector<TaskInfo*> reversed(job->tasks.rbegin(), job->tasks.rend());
  EvictionContext ctx;
  ctx.kind = CAL_EVICTION_GANG_RECLAIM;
  ctx.job = job;
  ctx.hypernode = "s0";
  const std::vector<TaskInfo*> victims = s->unified_evictable(ctx, reversed);
  // Every candidate but t-0, in the order given.
  ASSERT_EQ(victims.size(), 2u);
  EXPECT_EQ(victims[0]->name, "t-2");
  EXPECT_EQ(victims[1]->name, "t-1");
  EXPECT_EQ(state.hypernode, "s0");
  EXPECT_EQ(state.job, to_handle(job));
  EXPECT_EQ(state.kind, static_cast<uint32_t>(CAL_EVICTION_GANG_RECLAIM));

  // preemptive over several tasks: the plugin's many-task form, once, not its one-task form.
  QueueInfo* q = s->queue("q1");
  EXPECT_TRUE(s->preemptive(q, job->tasks));
  EXPECT_EQ(state.many_calls, 3u);
  EXPECT_EQ(state.single_calls, 0u);
  state.many_answer = 0;
  EXPECT_FALSE(s->preemptive(q, job->tasks));
  EXPECT_FALSE(s->preemptive(q, job->tasks[0]));  // one task: the many-task form too
  s->close();
  g_resident = nullptr;
}

TEST(UnifiedEvictableTest, PreemptiveWithoutTheManyTaskFormAsksEachTask) {
  Resident state;
  state.max_single_cpu = 1500;
  g_resident = &state;
  cal_plugin d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.abi_version = (1u << 16) | 6u;  // a 1.6 plugin: preemptive only
  d.name = "old";
  d.open = resident_open;
  d.close = resident_close;
  d.preemptive = resident_preemptive;
  auto policy = std::make_shared<Policy>();
  ConfiguredPlugin cp;
  cp.code = PluginCode::resident(&d);
  cp.name = "old";
  cp.implemented = cp.points = implemented_points(&d);
  cp.args = std::make_shared<const Args>();
  policy->tiers.push_back({cp});

  Cache cache;
  NodeSpec n;
  n.name = "n1";
  n.allocatable = {{"cpu", 4000}, {"memory", 8e9}};
  cache.upsert_node(n);
  testing::add_queue(cache, "q1");
  testing::add_podgroup(cache, "c1", "pg", "q1", 1, JobPhase::Running);
  for (auto [name, cpu] : {std::pair{"t-0", 1000.0}, std::pair{"t-1", 2000.0}}) {
    PodSpec p;
    p.ns = "c1";
    p.name = name;
    p.podgroup = "pg";
    p.requests = {{"cpu", cpu}};
    cache.upsert_pod(p);
  }
  Runtime runtime;
  auto s = Session::open(cache, policy, 0, runtime);
  JobInfo* job = s->job("c1/pg");
  ASSERT_NE(job, nullptr);
  QueueInfo* q = s->queue("q1");
  // Each task in turn: t-0 (1 cpu) passes, t-1 (2 cpu) does not.
  EXPECT_FALSE(s->preemptive(q, job->tasks));
  EXPECT_EQ(state.single_calls, 2u);
  EXPECT_TRUE(s->preemptive(q, std::vector<TaskInfo*>{job->tasks[0]}));
  EXPECT_EQ(state.many_calls, 0u);
  // unified_evictable of a 1.6 plugin is never read: no plugin, no victims.
  EvictionContext ctx;
  ctx.kind = CAL_EVICTION_GANG_PREEMPT;
  ctx.job = job;
  EXPECT_TRUE(s->unified_evictable(ctx, job->tasks).empty());
  s->close();
  g_resident = nullptr;
}

TEST(DispatchRuleTest, VictimTasksUniteInsideTheFirstTierThatMarksAny) {
  using V = std::vector<uint8_t>;
  Fake none{0, {0, 0, 0}}, one{0, {0, 0, 1}}, other{0, {1, 0, 0}}, all{0, {1, 1, 1}};
  std::vector<const cal_task*> handles(3, nullptr);
  V out(3, 7);
  dispatch::victim_union<Slot::victim_tasks>(
      chain(victim_tasks_fn, {{0, &none}, {1, &one}, {1, &other}, {2, &all}}), 3, out.data(),
      handles.data(), size_t{3});
  EXPECT_EQ(out, (V{1, 0, 1}));
}

TEST(DispatchRuleTest, SumAddsEveryPluginAndAFailureCountsZero) {
  Fake a{CAL_SUCCESS}, failing{CAL_ERROR}, b{CAL_SUCCESS};
  a.scores = {1, 2};
  failing.scores = {100, 100};
  b.scores = {10, 20};
  std::vector<double> scores{0.5, 0.5};
  std::vector<const cal_hypernode*> handles(2, nullptr);
  dispatch::sum<Slot::hyper_node_order>(chain(hyper_fn, {{0, &a}, {0, &failing}, {1, &b}}), 2,
                                        scores.data(), nullptr, handles.data(), size_t{2});
  EXPECT_EQ(scores, (std::vector<double>{11.5, 22.5}));
}

TEST(DispatchRuleTest, FirstIndexTakesTheFirstChoice) {
  Fake none{-1}, two{2}, one{1};
  EXPECT_EQ(dispatch::first_index<Slot::best_node>(
                chain(best_fn, {{0, &none}, {1, &two}, {1, &one}}), 3, nullptr, nullptr,
                nullptr, size_t{3}),
            2);
  EXPECT_EQ(dispatch::first_index<Slot::best_node>(chain(best_fn, {{0, &none}}), 3, nullptr,
                                                   nullptr, nullptr, size_t{3}),
            -1);
}

// An index outside [-1, count) breaks the contract: in process (no breadcrumb board) the
// session ends with the plugin and the slot named; in a worker it is a fault.
TEST(DispatchRuleTest, FirstIndexOutOfRangeBreaksTheContract) {
  Fake none{-1}, out_of_range{3}, two{2};
  try {
    dispatch::first_index<Slot::best_node>(
        chain(best_fn, {{0, &none}, {0, &out_of_range}, {1, &two}}), 3, nullptr, nullptr,
        nullptr, size_t{3});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "plugin p1, point best_node: broke the ABI contract: chose index 3 of 3 objects "
              "(expected an index below that, or -1 for none)");
  }
}

TEST(DispatchRuleTest, CombinePicksTheRuleOfTheSlotsRow) {
  Fake permit{CAL_PERMIT}, reject{CAL_REJECT};
  cal_plugin d;
  std::memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.abi_version = CAL_ABI_VERSION;
  d.job_pipelined = vote_fn;
  ConfiguredPlugin cp;
  cp.code = PluginCode::resident(&d);
  cp.name = "v";
  cp.points = implemented_points(&d);
  PluginChains chains;
  chains.add(cp, &d, &permit, 0, 0);
  chains.add(cp, &d, &reject, 1, 1);
  // Vote: tier 0's permit decides before tier 1's reject is asked.
  EXPECT_TRUE(combine<Slot::job_pipelined>(chains, static_cast<const cal_job*>(nullptr)));
}

}  // namespace
}  // namespace caldera
