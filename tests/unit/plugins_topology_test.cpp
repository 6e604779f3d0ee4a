// Worked numbers for the arithmetic of the capacity, tdm, numa-aware and task-topology
// plugins (their *_math.hpp headers). Each expectation is computed by hand in the comment
// above it. cpu is in millicores, memory in bytes.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "capacity/capacity_math.hpp"
#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/scenario/scenario_file.hpp"
#include "numa_aware/numa_aware_math.hpp"
#include "task_topology/task_topology_math.hpp"
#include "tdm/tdm_math.hpp"

namespace {

using caldera::kInf;
using caldera::ResVec;
namespace cm = caldera::capacity;
namespace tm = caldera::tdm;
namespace nm = caldera::numa;
namespace tt = caldera::task_topology;

constexpr double kGi = 1024.0 * 1024 * 1024;

ResVec vec(std::initializer_list<double> v) {
  ResVec r(v.size());
  size_t i = 0;
  for (double x : v) r[i++] = x;
  return r;
}

cm::QueueAttr attr(const std::string& name, ResVec deserved, ResVec allocated) {
  cm::QueueAttr a(deserved.size());
  a.name = name;
  a.deserved = std::move(deserved);
  a.allocated = std::move(allocated);
  return a;
}

// ---- capacity: building the attributes ---------------------------------------------------

// Cluster 10 cpu / 20Gi; the queues' guarantees add up to 4 cpu; q1 guarantees 2 cpu and is
// capped at 6 cpu (memory unset: unlimited), deserves 7 cpu / 8Gi.
// realCapability = min(10 - 4 + 2, 6) = 6 cpu; memory 20Gi - 0 + 0 = 20Gi.
// deserved = max(min(7, 6), 2) = 6 cpu, min(8Gi, 20Gi) = 8Gi.
// share with 3 cpu / 2Gi allocated: max(3/6, 2/8) = 0.5.
TEST(CapacityMath, FlatRealCapabilityAndDeserved) {
  const double cap[] = {6000, kInf};
  cm::QueueAttr q = attr("q1", vec({7000, 8 * kGi}), vec({3000, 2 * kGi}));
  q.guarantee = vec({2000, 0});
  q.capability = cm::flat_capability(cap, 2);
  q.real_capability =
      cm::flat_real_capability(vec({10000, 20 * kGi}), vec({4000, 0}), q.guarantee, q.capability);
  EXPECT_DOUBLE_EQ(q.real_capability[0], 6000);
  EXPECT_DOUBLE_EQ(q.real_capability[1], 20 * kGi);
  cm::finish_flat(q);
  EXPECT_DOUBLE_EQ(q.deserved[0], 6000);
  EXPECT_DOUBLE_EQ(q.deserved[1], 8 * kGi);
  EXPECT_DOUBLE_EQ(q.share, 0.5);
}

// Volcano reads a cpu or memory capability <= 0 as unlimited.
TEST(CapacityMath, FlatCapabilityZeroCpuIsUnlimited) {
  const double cap[] = {0, 4 * kGi};
  const ResVec c = cm::flat_capability(cap, 2);
  EXPECT_TRUE(std::isinf(c[0]));
  EXPECT_DOUBLE_EQ(c[1], 4 * kGi);
  EXPECT_TRUE(std::isinf(cm::flat_capability(nullptr, 2)[1]));
}

// A queue without deserved is best-effort: share 1 whatever it holds; on equal shares the
// queue with deserved goes first.
TEST(CapacityMath, ShareAndBestEffortOrder) {
  EXPECT_DOUBLE_EQ(cm::share_of(vec({5000, 0}), vec({0, 0})), 1);
  cm::QueueAttr be = attr("be", vec({0, 0}), vec({0, 0}));
  cm::QueueAttr full = attr("full", vec({2000, 0}), vec({2000, 0}));
  be.share = cm::share_of(be.allocated, be.deserved);        // 1
  full.share = cm::share_of(full.allocated, full.deserved);  // 2000/2000 = 1
  EXPECT_EQ(cm::compare_share(full, be), -1);
  EXPECT_EQ(cm::compare_share(be, full), 1);
  full.priority = 0;
  be.priority = 5;  // priority first
  EXPECT_EQ(cm::flat_queue_order(be, full), -1);
}

// Tree: root -> a (cap 8 cpu, guarantee 2, deserved 4) and b (guarantee 1, deserved 6);
// a -> a1 (deserved 2, no cap) and a2 (cap 10 cpu). Memory is unset everywhere.
// Root: capability unlimited, realCapability unlimited; deserved = 4 + 6 = 10, guarantee
// = 2 + 1 = 3. a.real = min(inf - 3 + 2, 8) = 8; b inherits the root's unlimited cap.
// Under a (no guarantees): a1 inherits cap 8, real = min(8 - 0 + 0, 8) = 8; a2's cap 10 is
// above its parent's, and its real capability is still min(8, 10) = 8.
struct Tree {
  cm::QueueAttr root{2}, a{2}, b{2}, a1{2}, a2{2};
  std::vector<cm::QueueAttr*> all;
  Tree() {
    root.name = "root";
    a.name = "a";
    b.name = "b";
    a1.name = "a1";
    a2.name = "a2";
    a.capability = vec({8000, kInf});
    a.guarantee = vec({2000, 0});
    a.deserved = vec({4000, 0});
    b.guarantee = vec({1000, 0});
    b.deserved = vec({6000, 0});
    a1.deserved = vec({2000, 0});
    a2.capability = vec({10000, kInf});
    root.children = {&a, &b};
    a.children = {&a1, &a2};
    a.ancestors = {&root};
    b.ancestors = {&root};
    a1.ancestors = {&root, &a};
    a2.ancestors = {&root, &a};
    all = {&root, &a, &b, &a1, &a2};
  }
};

TEST(CapacityMath, HierarchyRealCapabilityFromTheParent) {
  Tree t;
  cm::finish_hierarchy(t.root, t.all);
  EXPECT_TRUE(std::isinf(t.root.real_capability[0]));
  EXPECT_DOUBLE_EQ(t.root.deserved[0], 10000);
  EXPECT_DOUBLE_EQ(t.root.guarantee[0], 3000);
  EXPECT_DOUBLE_EQ(t.a.real_capability[0], 8000);
  EXPECT_TRUE(std::isinf(t.b.real_capability[0]));
  EXPECT_DOUBLE_EQ(t.a1.capability[0], 8000);
  EXPECT_DOUBLE_EQ(t.a1.real_capability[0], 8000);
  EXPECT_DOUBLE_EQ(t.a2.real_capability[0], 8000);
  EXPECT_TRUE(std::isinf(t.a2.real_capability[1]));
}

// a1 holds 3 cpu, a2 4 cpu, so a holds 7 (usage counts in the ancestors). A 2-cpu task of
// a1: a1 5 <= 8 fits, a 9 > 8 does not: a refuses it, on cpu.
TEST(CapacityMath, HierarchyAllocatableCheckedUpTheTree) {
  Tree t;
  t.a1.allocated = vec({3000, 0});
  t.a2.allocated = vec({4000, 0});
  t.a.allocated = vec({7000, 0});
  t.root.allocated = vec({7000, 0});
  cm::finish_hierarchy(t.root, t.all);
  const double req[] = {2000, 0};
  std::vector<size_t> dims;
  const cm::QueueAttr* over = cm::allocatable_chain(t.a1, req, &dims);
  ASSERT_NE(over, nullptr);
  EXPECT_EQ(over->name, "a");
  EXPECT_EQ(dims, std::vector<size_t>{0});
  const double small[] = {1000, 0};  // a: 8 <= 8
  EXPECT_EQ(cm::allocatable_chain(t.a1, small, nullptr), nullptr);
}

// Leaves compare by the shares of their ancestors just below the deepest shared one: a1
// (under a) against b compares a with b. a: 6/4 = 1.5; b: 3/6 = 0.5: b's side first. A leaf
// goes before a non-leaf whatever the shares.
TEST(CapacityMath, HierarchicalQueueOrder) {
  Tree t;
  t.a.allocated = vec({6000, 0});
  t.b.allocated = vec({3000, 0});
  t.a1.allocated = vec({0, 0});  // a1 itself looks empty: share 0
  cm::finish_hierarchy(t.root, t.all);
  EXPECT_EQ(cm::queue_level(t.a1, t.b), 0u);
  EXPECT_EQ(cm::hierarchical_queue_order(t.a1, t.b), 1);
  EXPECT_EQ(cm::hierarchical_queue_order(t.b, t.a1), -1);
  EXPECT_EQ(cm::hierarchical_queue_order(t.a1, t.a), -1);  // leaf first
  // a1 vs a2: level 1 (both under a), compared by themselves.
  EXPECT_EQ(cm::queue_level(t.a1, t.a2), 1u);
}

// Reclaim. qA deserves 4 cpu and holds 6 (three 2-cpu tasks), qB deserves 4 and holds 4.
// Candidates A1, A2, B1 in that order for a 2-cpu reclaimer:
//   A1: 6 > 4 -> victim; qA now counts 4.  A2: 4 > 4 no.  B1: 4 > 4 no.
TEST(CapacityMath, ReclaimTakesDownToDeserved) {
  cm::QueueAttr qa = attr("qA", vec({4000, 0}), vec({6000, 0}));
  cm::QueueAttr qb = attr("qB", vec({4000, 0}), vec({4000, 0}));
  cm::QueueAttr qr = attr("qR", vec({4000, 0}), vec({0, 0}));
  const double two[] = {2000, 0};
  cm::ReclaimContext ctx;
  ctx.reclaimer_queue = &qr;
  ctx.reclaimer_request = two;
  ctx.reclaimer_init_request = two;
  ctx.n = 2;
  const auto v = cm::reclaim_victims(ctx, {{&qa, two}, {&qa, two}, {&qb, two}});
  EXPECT_EQ(v, (std::vector<uint8_t>{1, 0, 0}));
}

// Guarantee: with qA guaranteeing 5 cpu, taking A1 would leave 4 < 5: no victim.
// A queue without deserved is an "immediate victim" source: both of qE's tasks go.
// A candidate sharing no resource with the reclaimer (gpu-only reclaimer) is skipped.
TEST(CapacityMath, ReclaimGuaranteeImmediateAndSkip) {
  cm::QueueAttr qa = attr("qA", vec({4000, 0, 0}), vec({6000, 0, 0}));
  qa.guarantee = vec({5000, 0, 0});
  cm::QueueAttr qe = attr("qE", vec({0, 0, 0}), vec({4000, 0, 0}));
  cm::QueueAttr qr = attr("qR", vec({4000, 0, 1000}), vec({0, 0, 0}));
  const double two[] = {2000, 0, 0};
  const double gpu[] = {0, 0, 1000};
  cm::ReclaimContext ctx;
  ctx.reclaimer_queue = &qr;
  ctx.reclaimer_request = two;
  ctx.reclaimer_init_request = two;
  ctx.n = 3;
  EXPECT_EQ(cm::reclaim_victims(ctx, {{&qa, two}, {&qe, two}, {&qe, two}}),
            (std::vector<uint8_t>{0, 1, 1}));
  ctx.reclaimer_request = gpu;
  ctx.reclaimer_init_request = gpu;
  EXPECT_EQ(cm::reclaim_victims(ctx, {{&qe, two}}), (std::vector<uint8_t>{0}));
}

// ancestorReclaimLevel = 1. root -> a -> {a1 (reclaimer), a2}; root -> b -> b1.
// b1 deserves 2 cpu and holds 4: on its own a victim source. b deserves 4 and holds 4:
// the ancestor check at level 1 (b, which the reclaimer does not share) finds b not over
// its deserved, so B1 is spared. a2 (sibling under a, the shared ancestor is not checked)
// deserves 1 and holds 3: A2 is a victim.
TEST(CapacityMath, ReclaimAncestorLevel) {
  cm::QueueAttr root(2), a(2), b(2);
  root.name = "root";
  a.name = "a";
  b.name = "b";
  a.ancestors = {&root};
  b.ancestors = {&root};
  b.deserved = vec({4000, 0});
  b.allocated = vec({4000, 0});
  cm::QueueAttr a1 = attr("a1", vec({4000, 0}), vec({0, 0}));
  cm::QueueAttr a2 = attr("a2", vec({1000, 0}), vec({3000, 0}));
  cm::QueueAttr b1 = attr("b1", vec({2000, 0}), vec({4000, 0}));
  a1.ancestors = {&root, &a};
  a2.ancestors = {&root, &a};
  b1.ancestors = {&root, &b};
  const double two[] = {2000, 0};
  cm::ReclaimContext ctx;
  ctx.reclaimer_queue = &a1;
  ctx.reclaimer_request = two;
  ctx.reclaimer_init_request = two;
  ctx.hierarchy = true;
  ctx.root = &root;
  ctx.n = 2;
  EXPECT_EQ(cm::reclaim_victims(ctx, {{&b1, two}, {&a2, two}}), (std::vector<uint8_t>{1, 1}));
  ctx.ancestor_reclaim_level = 1;
  EXPECT_EQ(cm::reclaim_victims(ctx, {{&b1, two}, {&a2, two}}), (std::vector<uint8_t>{0, 1}));
}

// The walk order with hierarchy: root -> a -> {a1 (reclaimer), a2}; root -> b -> b1.
// getQueueLevel from a1: a2 shares [root, a] -> level 1; b1 shares [root] only -> 0. The
// host's order (b1, a2, b1, a2) becomes a2's candidates first, each queue's kept in the
// host's order: 1, 3, 0, 2. Flat, the host's order is kept.
TEST(CapacityMath, VictimWalkOrderPutsDeeperSharedQueuesFirst) {
  cm::QueueAttr root(2), a(2), b(2);
  a.ancestors = {&root};
  b.ancestors = {&root};
  cm::QueueAttr a1 = attr("a1", vec({4000, 0}), vec({0, 0}));
  cm::QueueAttr a2 = attr("a2", vec({1000, 0}), vec({3000, 0}));
  cm::QueueAttr b1 = attr("b1", vec({2000, 0}), vec({4000, 0}));
  a1.ancestors = {&root, &a};
  a2.ancestors = {&root, &a};
  b1.ancestors = {&root, &b};
  const double one[] = {1000, 0};
  cm::ReclaimContext ctx;
  ctx.reclaimer_queue = &a1;
  ctx.root = &root;
  ctx.n = 2;
  const std::vector<cm::Reclaimee> cands = {{&b1, one}, {&a2, one}, {&b1, one}, {&a2, one}};
  EXPECT_EQ(cm::victim_walk_order(ctx, cands), (std::vector<size_t>{0, 1, 2, 3}));
  ctx.hierarchy = true;
  EXPECT_EQ(cm::victim_walk_order(ctx, cands), (std::vector<size_t>{1, 3, 0, 2}));
}

// preemptive: deserved 4 cpu, allocated 3. A 1-cpu task: 4 <= 4 -> may reclaim; a 2-cpu
// task: 5 > 4 -> may not. With realCapability 4 the 2-cpu task fails the capability first.
TEST(CapacityMath, PreemptiveBelowDeserved) {
  cm::QueueAttr q = attr("q", vec({4000, 0}), vec({3000, 0}));
  const double one[] = {1000, 0};
  const double two[] = {2000, 0};
  EXPECT_TRUE(cm::preemptive(q, one, false, 0, nullptr));
  EXPECT_FALSE(cm::preemptive(q, two, false, 0, nullptr));
  q.real_capability = vec({4000, kInf});
  EXPECT_EQ(cm::over_real_capability(q, two), std::vector<size_t>{0});
}

// Enqueue: minResources 2 cpu + allocated 3 + inqueue 2 - elastic 1 = 6 > realCapability 5.
TEST(CapacityMath, EnqueueWithinRealCapability) {
  cm::QueueAttr q = attr("q", vec({4000, 0}), vec({3000, 0}));
  q.inqueue = vec({2000, 0});
  q.elastic = vec({1000, 0});
  q.real_capability = vec({5000, kInf});
  const double min2[] = {2000, 0};
  const double min1[] = {1000, 0};
  EXPECT_EQ(cm::over_enqueue(q, min2), std::vector<size_t>{0});
  EXPECT_TRUE(cm::over_enqueue(q, min1).empty());  // 5 <= 5
}

// GetInqueueResource and GetElasticResources: min 4 cpu / 4Gi, allocated 1 cpu / 6Gi:
// reserve 3 cpu / 0; elastic 0 cpu / 2Gi.
TEST(CapacityMath, InqueueAndElastic) {
  const double min[] = {4000, 4 * kGi};
  const double alloc[] = {1000, 6 * kGi};
  const ResVec in = cm::inqueue_reserve(min, alloc, 2);
  EXPECT_DOUBLE_EQ(in[0], 3000);
  EXPECT_DOUBLE_EQ(in[1], 0);
  const ResVec el = cm::elastic_of(alloc, min, 2);
  EXPECT_DOUBLE_EQ(el[0], 0);
  EXPECT_DOUBLE_EQ(el[1], 2 * kGi);
}

// ---- tdm ---------------------------------------------------------------------------------

TEST(TdmMath, ParsesWindows) {
  EXPECT_EQ(tm::parse_clock("9:05"), 545);
  EXPECT_EQ(tm::parse_clock("09:05"), 545);
  EXPECT_EQ(tm::parse_clock("23:59"), 1439);
  EXPECT_FALSE(tm::parse_clock("24:00"));
  EXPECT_FALSE(tm::parse_clock("9:5"));
  EXPECT_FALSE(tm::parse_clock("10:60"));
  auto w = tm::parse_window(" 10:00-21:00 ");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->start, 600);
  EXPECT_EQ(w->end, 1260);
  std::string why;
  EXPECT_FALSE(tm::parse_window("10:00 - 21:00", &why));  // parts are not trimmed
  EXPECT_FALSE(tm::parse_window("10:00", &why));
  EXPECT_NE(why.find("'-'"), std::string::npos);
}

// 10:00-21:00 is 36000..75600 seconds into the day, both ends included; day 3 at 10:00 is
// 3 * 86400 + 36000. "21:00-06:00" wraps: 23:00 and 03:00 in, 12:00 out. "08:00-08:00" is
// the whole day. -3600 is 23:00 of the day before.
TEST(TdmMath, WindowActive) {
  const tm::Window day{600, 1260};
  EXPECT_TRUE(tm::window_active(day, 36000));
  EXPECT_TRUE(tm::window_active(day, 75600));
  EXPECT_TRUE(tm::window_active(day, 75600.9));  // truncated to whole seconds
  EXPECT_FALSE(tm::window_active(day, 75601));
  EXPECT_FALSE(tm::window_active(day, 35999));
  EXPECT_TRUE(tm::window_active(day, 3 * 86400 + 36000));
  const tm::Window night{1260, 360};
  EXPECT_TRUE(tm::window_active(night, 23 * 3600));
  EXPECT_TRUE(tm::window_active(night, 3 * 3600));
  EXPECT_FALSE(tm::window_active(night, 12 * 3600));
  EXPECT_TRUE(tm::window_active(tm::Window{480, 480}, 0));
  EXPECT_EQ(tm::time_of_day(-3600), 82800);
  EXPECT_FALSE(tm::window_active(day, -3600));
}

// "50%" of 5 tasks rounds up to 3; "33%" of 3 is 0.99 -> 1.
TEST(TdmMath, IntOrPercent) {
  EXPECT_EQ(tm::parse_int_or_percent("2", 5), 2);
  EXPECT_EQ(tm::parse_int_or_percent("50%", 5), 3);
  EXPECT_EQ(tm::parse_int_or_percent("33%", 3), 1);
  EXPECT_EQ(tm::parse_int_or_percent("abc", 5), 0);
  EXPECT_EQ(tm::parse_int_or_percent("%", 5), 0);
}

// No budget: 1. min-available 2 with 5 running: 3 may go; min-available 6 with 5 running:
// the default 1. max-unavailable 2 with 5 tasks, 1 finished, 3 running: 1 is already
// unavailable, 1 more may go; max-unavailable 1: none. Both set: min-available wins.
TEST(TdmMath, MaxPodEvictNum) {
  tm::BudgetInput b;
  b.tasks = 5;
  b.running = 5;
  EXPECT_EQ(tm::max_pod_evict_num(b), 1);
  b.min_available = "2";
  EXPECT_EQ(tm::max_pod_evict_num(b), 3);
  b.min_available = "6";
  EXPECT_EQ(tm::max_pod_evict_num(b), 1);
  tm::BudgetInput m;
  m.tasks = 5;
  m.final = 1;
  m.running = 3;
  m.max_unavailable = "2";
  EXPECT_EQ(tm::max_pod_evict_num(m), 1);
  m.max_unavailable = "1";
  EXPECT_EQ(tm::max_pod_evict_num(m), 0);
  m.min_available = "1";  // 3 running - 1
  EXPECT_EQ(tm::max_pod_evict_num(m), 2);
}

// ---- numa-aware --------------------------------------------------------------------------

// Two NUMA nodes of 8 cpus, free 3 and 8, request 4: the smallest mask that could hold 4
// has one node. {0}: 3 free < 4, no hint; {1}: 8 -> hint, preferred; {0,1}: 11 -> hint,
// not preferred.
TEST(NumaMath, CpuHints) {
  const auto h = nm::amount_hints({8, 8}, {3, 8}, 4);
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0], (nm::Hint{0b10, true}));
  EXPECT_EQ(h[1], (nm::Hint{0b11, false}));
}

// Free 3 and 3, request 4: only {0,1} (6 free) has room, and it is not preferred (one node
// could hold 4). single-numa-node and restricted refuse; best-effort admits with {0,1}.
TEST(NumaMath, PoliciesOnAFragmentedNode) {
  nm::NodeNuma node{{8, 8}, {3, 3}, {0, 0}, {0, 0}};
  const auto hints = nm::provider_hints(node, 4, 0);
  EXPECT_FALSE(nm::admit(nm::Policy::SingleNumaNode, 2, hints).second);
  EXPECT_FALSE(nm::admit(nm::Policy::Restricted, 2, hints).second);
  const auto [best, ok] = nm::admit(nm::Policy::BestEffort, 2, hints);
  EXPECT_TRUE(ok);
  EXPECT_EQ(best, (nm::Hint{0b11, false}));
  EXPECT_TRUE(nm::admit(nm::Policy::None, 2, hints).second);
}

// Request 10 on 2 x 8: no single node can ever hold it, so {0,1} is the preferred (minimal)
// mask: restricted admits, single-numa-node refuses.
TEST(NumaMath, RestrictedAdmitsTheMinimalSpan) {
  nm::NodeNuma node{{8, 8}, {8, 8}, {0, 0}, {0, 0}};
  const auto hints = nm::provider_hints(node, 10, 0);
  const auto [best, ok] = nm::admit(nm::Policy::Restricted, 2, hints);
  EXPECT_TRUE(ok);
  EXPECT_EQ(best, (nm::Hint{0b11, true}));
  EXPECT_FALSE(nm::admit(nm::Policy::SingleNumaNode, 2, hints).second);
}

// cpu could go to either node (8 free each), memory 40Gi only fits node 1 (node 0 has 16Gi
// free of 32, node 1 48 of 48): the merged best hint is {1}, preferred.
TEST(NumaMath, MemoryHintsAlignWithCpu) {
  nm::NodeNuma node{{8, 8}, {8, 8}, {32 * kGi, 48 * kGi}, {16 * kGi, 48 * kGi}};
  const auto hints = nm::provider_hints(node, 4, 40 * kGi);
  ASSERT_EQ(hints.size(), 2u);
  const auto [best, ok] = nm::admit(nm::Policy::SingleNumaNode, 2, hints);
  EXPECT_TRUE(ok);
  EXPECT_EQ(best, (nm::Hint{0b10, true}));
  const nm::Assignment a = nm::allocate(node, best, 4, 40 * kGi);
  EXPECT_EQ(a.cpus, (std::vector<double>{0, 4}));
  EXPECT_EQ(a.memory, (std::vector<double>{0, 40 * kGi}));
  EXPECT_EQ(a.numa_used(), 1);
}

// Allocation. Free 3 and 8, 6 cpus: best-effort's best hint is {1} (one node holds 6):
// all 6 from node 1. Forced onto {0,1}: cpus from the node with the fewest free first
// (3 from node 0, then 3 from node 1). 12 cpus of 8 + 8 free: node 0 whole (a NUMA node's
// worth), then 4 from node 1.
TEST(NumaMath, AllocatePacksAsTakeByTopology) {
  nm::NodeNuma node{{8, 8}, {3, 8}, {0, 0}, {0, 0}};
  const auto [best, ok] = nm::admit(nm::Policy::BestEffort, 2, nm::provider_hints(node, 6, 0));
  ASSERT_TRUE(ok);
  EXPECT_EQ(best, (nm::Hint{0b10, true}));
  EXPECT_EQ(nm::allocate(node, best, 6, 0).cpus, (std::vector<double>{0, 6}));
  EXPECT_EQ(nm::allocate(node, nm::Hint{0b11, false}, 6, 0).cpus, (std::vector<double>{3, 3}));
  nm::NodeNuma idle{{8, 8}, {8, 8}, {0, 0}, {0, 0}};
  const nm::Assignment big = nm::allocate(idle, nm::Hint{0b11, true}, 12, 0);
  EXPECT_EQ(big.cpus, (std::vector<double>{8, 4}));
  EXPECT_EQ(big.numa_used(), 2);
}

// NormalizeScore(100, reverse): NUMA nodes used 1, 2, 0 -> largest 2 -> 100 - 50 = 50,
// 100 - 100 = 0, 100. Used 1 and 3: 100 - 100/3 = 100 - 33 = 67 (integer division), 0.
TEST(NumaMath, NormalizeReverse) {
  EXPECT_EQ(nm::normalize_reverse({1, 2, 0}), (std::vector<int64_t>{50, 0, 100}));
  EXPECT_EQ(nm::normalize_reverse({1, 3}), (std::vector<int64_t>{67, 0}));
  EXPECT_EQ(nm::normalize_reverse({0, 0}), (std::vector<int64_t>{100, 100}));
}

TEST(NumaMath, GuaranteedCpus) {
  EXPECT_EQ(nm::guaranteed_cpus(4000), 4);
  EXPECT_EQ(nm::guaranteed_cpus(1500), 0);
  EXPECT_EQ(nm::guaranteed_cpus(0), 0);
}

// The decision written on a pod and read back at the next session's open: whole cpus and
// bytes per NUMA node, NUMA nodes without anything left out.
TEST(NumaMath, DecisionRoundTrip) {
  const nm::Assignment a{{0, 6}, {0, 12 * kGi}};
  const std::string text = nm::write_decision(a);
  EXPECT_EQ(text, R"({"numa":{"1":{"cpu":"6","memory":"12884901888"}}})");
  const auto back = nm::parse_decision(text.c_str(), 2);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cpus, a.cpus);
  EXPECT_EQ(back->memory, a.memory);
  EXPECT_FALSE(nm::parse_decision(text.c_str(), 1));  // NUMA node 1 on a one-node layout
  EXPECT_FALSE(nm::parse_decision("{\"numa\":{\"0\":{\"cpu\":\"1.5\"}}}", 2));
  EXPECT_FALSE(nm::parse_decision("not json", 2));
}

// ---- task-topology -----------------------------------------------------------------------

TEST(TaskTopologyMath, ReadsAnnotations) {
  const std::set<std::string> roles{"ps", "worker", "chief"};
  std::string why;
  bool present = false;
  auto t = tt::read_topology("ps,worker;chief", "ps", nullptr, roles, &why, &present);
  ASSERT_TRUE(t);
  EXPECT_TRUE(present);
  ASSERT_EQ(t->affinity.size(), 2u);
  EXPECT_EQ(t->affinity[0], (std::vector<std::string>{"ps", "worker"}));
  EXPECT_EQ(t->anti_affinity[0], (std::vector<std::string>{"ps"}));
  EXPECT_FALSE(tt::read_topology("ps,evaluator", nullptr, nullptr, roles, &why, &present));
  EXPECT_NE(why.find("evaluator"), std::string::npos);
  EXPECT_FALSE(tt::read_topology(nullptr, nullptr, "ps,ps", roles, &why, &present));
  EXPECT_NE(why.find("duplicated"), std::string::npos);
  EXPECT_FALSE(tt::read_topology(nullptr, nullptr, nullptr, roles, &why, &present));
  EXPECT_FALSE(present);
}

tt::TaskRec task(const std::string& name, const std::string& role, double cpu,
                 const std::string& node = "") {
  return tt::TaskRec{"ns/" + name, role, node, vec({cpu, 0})};
}

// The TensorFlow case: ps and worker together, ps apart from each other. ps has priority 4
// (self anti-affinity), worker 3 (inter affinity), so the ps tasks are sorted first.
//   ps-0 -> new bucket 0.  ps-1: bucket 0 scores -1 (self anti) -> new bucket 1.
//   worker-0: both buckets +1 (ps); equal request score -> bucket 0 (first).
//   worker-1: +1 each; bucket 1 has the smaller request (1000 < 2000) -> bucket 1.
//   worker-2: +1 each, 2000 each -> bucket 0.  worker-3 -> bucket 1.
// Buckets {ps-0, worker-0, worker-2} and {ps-1, worker-1, worker-3}; the largest has 3.
TEST(TaskTopologyMath, BuildsBuckets) {
  tt::JobManager m(2);
  std::string why;
  bool present = false;
  m.apply(*tt::read_topology("ps,worker", "ps", nullptr, {"ps", "worker"}, &why, &present));
  m.construct({task("w-worker-0", "worker", 1000), task("w-worker-1", "worker", 1000),
               task("w-ps-0", "ps", 1000), task("w-worker-2", "worker", 1000),
               task("w-ps-1", "ps", 1000), task("w-worker-3", "worker", 1000)});
  ASSERT_EQ(m.buckets().size(), 2u);
  EXPECT_EQ(m.bucket_index("ns/w-ps-0"), 0);
  EXPECT_EQ(m.bucket_index("ns/w-ps-1"), 1);
  EXPECT_EQ(m.bucket_index("ns/w-worker-0"), 0);
  EXPECT_EQ(m.bucket_index("ns/w-worker-1"), 1);
  EXPECT_EQ(m.bucket_index("ns/w-worker-2"), 0);
  EXPECT_EQ(m.bucket_index("ns/w-worker-3"), 1);
  EXPECT_EQ(m.bucket_max_size(), 3);
  // Task order: equal sizes, older bucket first; in one bucket, ps (priority 4) first.
  EXPECT_EQ(m.task_order("ns/w-ps-0", "ns/w-ps-1"), -1);
  EXPECT_EQ(m.task_order("ns/w-worker-0", "ns/w-ps-0"), 1);
}

// Scores on that job. ps-0 on an empty n1: 0 placed + 3 pending = 3 -> 3 * 100 / 3 = 100.
// After ps-0 lands on n1: worker-0 there: 1 placed + 2 pending = 3 -> 100; ps-1 there: its
// bucket has nothing on n1, minus 1 for the ps already there (self anti-affinity), plus 3
// pending = 2 -> 66.67. With only 1 cpu free on n1, bucket 0 (2 cpu pending) must drop
// worker-2 for worker-0 to fit: 1 + 2 - 1 = 2.
TEST(TaskTopologyMath, BucketScores) {
  tt::JobManager m(2);
  std::string why;
  bool present = false;
  m.apply(*tt::read_topology("ps,worker", "ps", nullptr, {"ps", "worker"}, &why, &present));
  m.construct({task("w-ps-0", "ps", 1000), task("w-ps-1", "ps", 1000),
               task("w-worker-0", "worker", 1000), task("w-worker-1", "worker", 1000),
               task("w-worker-2", "worker", 1000), task("w-worker-3", "worker", 1000)});
  const ResVec big = vec({16000, 64 * kGi});
  EXPECT_EQ(m.bucket_score("ns/w-ps-0", "n1", big), 3);
  EXPECT_DOUBLE_EQ(m.node_score(3, 1), 100);
  m.task_bound("ns/w-ps-0", "n1");
  EXPECT_EQ(m.bucket_score("ns/w-worker-0", "n1", big), 3);
  EXPECT_EQ(m.bucket_score("ns/w-ps-1", "n1", big), 2);
  EXPECT_NEAR(m.node_score(2, 1), 66.6667, 1e-3);
  EXPECT_EQ(m.bucket_score("ns/w-worker-0", "n1", vec({1000, 64 * kGi})), 2);
  // Undo: ps-0 back to pending; ps-1 on n1 no longer loses a point.
  m.task_unbound("ns/w-ps-0", "n1");
  EXPECT_EQ(m.bucket_score("ns/w-ps-1", "n1", big), 3);
}

// Placed tasks build buckets by node; a task order annotation puts "chief" before
// "worker" within a bucket even though both have the same topology priority.
TEST(TaskTopologyMath, PlacedTasksAndTaskOrder) {
  tt::JobManager m(2);
  std::string why;
  bool present = false;
  m.apply(*tt::read_topology("chief,worker", nullptr, "chief,worker", {"chief", "worker"},
                             &why, &present));
  m.construct({task("j-worker-0", "worker", 1000, "n2"), task("j-worker-1", "worker", 1000),
               task("j-chief-0", "chief", 1000)});
  // worker-0 (placed on n2) opens bucket 0; chief-0 and worker-1 join it (+1 affinity).
  EXPECT_EQ(m.buckets().size(), 1u);
  EXPECT_EQ(m.buckets()[0].node.at("n2"), 1);
  EXPECT_EQ(m.task_order("ns/j-chief-0", "ns/j-worker-1"), -1);
  // n2 scores its placed task: 1 + 2 pending = 3 (of a largest bucket of 3).
  EXPECT_EQ(m.bucket_score("ns/j-worker-1", "n2", vec({8000, 0})), 3);
  EXPECT_EQ(m.bucket_score("ns/j-worker-1", "n1", vec({8000, 0})), 2);
}

// ---- the scenario format's NUMA layout ------------------------------------------------------

caldera::Cache load_nodes(const std::string& text) {
  caldera::Cache cache;
  const toml::table t = toml::parse(std::string_view(text), std::string_view("numa.toml"));
  caldera::load_cluster_objects(t, "numa.toml", cache);
  return cache;
}

std::string load_error(const std::string& text) {
  try {
    load_nodes(text);
  } catch (const caldera::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioNuma, ReadsLayoutPolicyAndAnnotations) {
  const caldera::Cache c = load_nodes(R"(
[[nodes]]
name = "n1"
allocatable = { cpu = "16", memory = "64Gi" }
numa = [{ cpu = "8", memory = "32Gi" }, { cpu = "8", memory = "32Gi" }]
topology_policy = "single-numa-node"
annotations = { "a" = "b" }
)");
  const auto& n = *c.nodes().at("n1");
  ASSERT_EQ(n.numa.size(), 2u);
  EXPECT_DOUBLE_EQ(n.numa[1].cpu, 8000);
  EXPECT_DOUBLE_EQ(n.numa[1].memory, 32 * kGi);
  EXPECT_EQ(n.topology_policy, "single-numa-node");
  EXPECT_EQ(n.annotations.at("a"), "b");
  EXPECT_EQ(load_nodes("[[nodes]]\nname = \"n2\"\n").nodes().at("n2")->topology_policy, "none");
}

// 9 + 8 = 17 cpu > 16: an error naming the file, the line of `numa`, the node and the sums.
TEST(ScenarioNuma, LayoutLargerThanTheNodeIsAnError) {
  const std::string e = load_error(R"(
[[nodes]]
name = "n1"
allocatable = { cpu = "16", memory = "64Gi" }
numa = [{ cpu = "9", memory = "32Gi" }, { cpu = "8", memory = "32Gi" }]
)");
  EXPECT_NE(e.find("numa.toml:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("nodes[0] (n1)"), std::string::npos) << e;
  EXPECT_NE(e.find("17000m cpu"), std::string::npos) << e;
  const std::string m = load_error(R"(
[[nodes]]
name = "n1"
allocatable = { cpu = "16", memory = "64Gi" }
numa = [{ cpu = "8", memory = "40Gi" }, { cpu = "8", memory = "32Gi" }]
)");
  EXPECT_NE(m.find("memory"), std::string::npos) << m;
  EXPECT_NE(m.find("numa.toml:5:"), std::string::npos) << m;
}

TEST(ScenarioNuma, BadEntriesAreErrors) {
  const std::string base = "[[nodes]]\nname = \"n1\"\nallocatable = { cpu = \"16\" }\n";
  EXPECT_NE(load_error(base + "topology_policy = \"strict\"\n").find("topology_policy: unknown topology policy 'strict'"),
            std::string::npos);
  EXPECT_NE(load_error(base + "numa = [{ memory = \"1Gi\" }]\n").find("nodes[0] (n1).numa[0]: missing key 'cpu'"),
            std::string::npos);
  EXPECT_NE(load_error(base + "numa = [{ cpu = \"2\", gpu = 1 }]\n").find("unknown key 'gpu'"),
            std::string::npos);
  EXPECT_NE(load_error(base + "numa = { cpu = \"2\" }\n").find("nodes[0] (n1).numa: got a table; expected an array of tables"),
            std::string::npos);
}

}  // namespace
