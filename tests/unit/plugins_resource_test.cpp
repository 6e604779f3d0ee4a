// Worked numbers for the resource plugins' arithmetic: proportion (water-filling, share,
// overused / allocatable / enqueue / reclaim decisions), nodeorder (Kubernetes' least /
// most allocated, balanced allocation, normalisation), binpack, and the predicates'
// checks. Each expectation is computed by hand in the comment above it.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "binpack/binpack_math.hpp"
#include "nodeorder/nodeorder_math.hpp"
#include "predicates/predicates_math.hpp"
#include "proportion/proportion_math.hpp"
#include "resource_strategy_fit/resource_strategy_fit_math.hpp"

namespace {

using caldera::kInf;
using caldera::ResVec;
namespace pm = caldera::proportion;
namespace no = caldera::nodeorder;
namespace bp = caldera::binpack;
namespace pr = caldera::predicates;

constexpr double kGi = 1024.0 * 1024 * 1024;

ResVec vec(std::initializer_list<double> v) {
  ResVec r(v.size());
  size_t i = 0;
  for (double x : v) r[i++] = x;
  return r;
}

pm::QueueAttr queue(const std::string& name, double weight, ResVec request, size_t n = 2) {
  pm::QueueAttr q(n);
  q.name = name;
  q.weight = weight;
  q.has_jobs = true;
  q.request = std::move(request);
  q.real_capability = ResVec(n, kInf);
  return q;
}

// ---- proportion: deserved by water-filling ---------------------------------------------

// Cluster 12 cpu / 12Gi; weights 1, 2, 3; every queue requests 10 cpu / 10Gi; q2's
// capability caps it at 2 cpu (memory unset: unlimited).
// Round 1 (total weight 6): q1 2000 / 2Gi, q2 4000 -> capped 2000 / 4Gi, q3 6000 / 6Gi.
//   remaining: cpu 12000 - 10000 = 2000, memory 0.
// Round 2 (weight 6): q1 +333.3 = 2333.3, q2 +666.7 capped back to 2000 (unchanged: met by
//   its capability), q3 +1000 = 7000. remaining 666.7.
// Round 3 (weight 4): q1 +166.7 = 2500, q3 +500 = 7500. remaining 0: done.
TEST(ProportionMath, WaterFillsByWeightWithCapabilityCap) {
  pm::QueueAttr q1 = queue("q1", 1, vec({10000, 10 * kGi}));
  pm::QueueAttr q2 = queue("q2", 2, vec({10000, 10 * kGi}));
  pm::QueueAttr q3 = queue("q3", 3, vec({10000, 10 * kGi}));
  const ResVec total = vec({12000, 12 * kGi});
  const double cap[] = {2000, kInf};
  q2.real_capability = pm::real_capability(total, ResVec(2), ResVec(2), cap);
  EXPECT_DOUBLE_EQ(q2.real_capability[0], 2000);
  EXPECT_DOUBLE_EQ(q2.real_capability[1], 12 * kGi);

  const int rounds = pm::water_fill({&q1, &q2, &q3}, total);
  EXPECT_EQ(rounds, 3);
  EXPECT_NEAR(q1.deserved[0], 2500, 1e-6);
  EXPECT_NEAR(q2.deserved[0], 2000, 1e-6);
  EXPECT_NEAR(q3.deserved[0], 7500, 1e-6);
  EXPECT_NEAR(q1.deserved[1], 2 * kGi, 1);
  EXPECT_NEAR(q2.deserved[1], 4 * kGi, 1);
  EXPECT_NEAR(q3.deserved[1], 6 * kGi, 1);
}

// A queue whose request is met leaves the rest to the others: 10 cpu, equal weights,
// q1 asks 1 cpu, q2 asks 20. Round 1: q1 5000 -> 1000 (met), q2 5000; remaining 4000.
// Round 2: q2 alone gets it all: 9000.
TEST(ProportionMath, MetQueueLeavesTheRestToOthers) {
  pm::QueueAttr q1 = queue("q1", 1, vec({1000}), 1);
  pm::QueueAttr q2 = queue("q2", 1, vec({20000}), 1);
  pm::water_fill({&q1, &q2}, vec({10000}));
  EXPECT_DOUBLE_EQ(q1.deserved[0], 1000);
  EXPECT_DOUBLE_EQ(q2.deserved[0], 9000);
}

// Guarantee is a floor, even above the request: deserved = max(min(5000, 1000), 3000).
TEST(ProportionMath, GuaranteeIsAFloor) {
  pm::QueueAttr q1 = queue("q1", 1, vec({1000}), 1);
  q1.guarantee = vec({3000});
  pm::QueueAttr q2 = queue("q2", 1, vec({20000}), 1);
  pm::water_fill({&q1, &q2}, vec({10000}));
  EXPECT_DOUBLE_EQ(q1.deserved[0], 3000);
  EXPECT_DOUBLE_EQ(q2.deserved[0], 7000);
}

// realCapability = min(total - all guarantees + own guarantee, capability); a cpu or
// memory capability <= 0 reads as unlimited.
TEST(ProportionMath, RealCapability) {
  const ResVec total = vec({10000, 10 * kGi});
  const ResVec all_guarantees = vec({4000, 0});
  const ResVec own = vec({1000, 0});
  const double cap[] = {5000, kInf};
  ResVec r = pm::real_capability(total, all_guarantees, own, cap);
  EXPECT_DOUBLE_EQ(r[0], 5000);
  EXPECT_DOUBLE_EQ(r[1], 10 * kGi);
  r = pm::real_capability(total, all_guarantees, own, nullptr);
  EXPECT_DOUBLE_EQ(r[0], 7000);
  const double zero_cap[] = {0, 2 * kGi};
  r = pm::real_capability(total, all_guarantees, own, zero_cap);
  EXPECT_DOUBLE_EQ(r[0], 7000);
  EXPECT_DOUBLE_EQ(r[1], 2 * kGi);
}

// Share is the largest allocated/deserved over the dimensions deserved holds.
TEST(ProportionMath, Share) {
  EXPECT_DOUBLE_EQ(pm::share_of(vec({1000, 3 * kGi}), vec({4000, 4 * kGi})), 0.75);
  // A dimension deserved does not hold (0) does not count.
  EXPECT_DOUBLE_EQ(pm::share_of(vec({1000, 3 * kGi}), vec({2000, 0})), 0.5);
  EXPECT_DOUBLE_EQ(pm::share(5, 0), 1);
  EXPECT_DOUBLE_EQ(pm::share(0, 0), 0);
}

// Volcano's TestEnqueueAndAllocable case0 (scenario proportion-01): q1 deserves 2 cpu /
// 2G and holds 1 cpu / 2G. Memory sits at deserved, cpu does not: not overused; a task
// asking 1 cpu and no memory fits deserved in the dimension it asks for, a task asking any
// memory does not.
TEST(ProportionMath, OverusedAndAllocatable) {
  pm::QueueAttr q = queue("q1", 1, vec({2000, 2e9}));
  q.deserved = vec({2000, 2e9});
  q.allocated = vec({1000, 2e9});
  EXPECT_FALSE(pm::overused(q));

  const double cpu_only[] = {1000, 0};
  EXPECT_TRUE(pm::over_deserved(q, cpu_only).empty());
  const double some_memory[] = {1000, 1};
  EXPECT_EQ(pm::over_deserved(q, some_memory), std::vector<size_t>{1});
  const double too_much_cpu[] = {1001, 0};
  EXPECT_EQ(pm::over_deserved(q, too_much_cpu), std::vector<size_t>{0});

  q.allocated = vec({2000, 2e9});  // deserved <= allocated everywhere
  EXPECT_TRUE(pm::overused(q));
  q.allocated = vec({1999.95, 2e9});  // within Volcano's 0.1 tolerance
  EXPECT_TRUE(pm::overused(q));
}

// jobEnqueueable: minResources + allocated + inqueue - elastic <= realCapability in the
// dimensions minResources asks for. Volcano's enqueue case "queue resources are less than
// podgroup MinResources": capability 1 cpu / 1G, no nodes, min 8 cpu / 8G: both over.
TEST(ProportionMath, EnqueueAgainstCapability) {
  pm::QueueAttr q = queue("c1", 1, vec({0, 0}));
  const double cap[] = {1000, 1e9};
  q.real_capability = pm::real_capability(vec({0, 0}), ResVec(2), ResVec(2), cap);
  const double min_big[] = {8000, 8e9};
  EXPECT_EQ(pm::over_capability(q, min_big), (std::vector<size_t>{0, 1}));

  // 4 cpu cap; 1 allocated of which 1 is elastic, 2 reserved by an Inqueue job:
  // 2 + 1 + 2 - 1 = 4 <= 4 fits; 2.001 cpu does not.
  q.real_capability = vec({4000, kInf});
  q.allocated = vec({1000, 0});
  q.elastic = vec({1000, 0});
  q.inqueue = vec({2000, 0});
  const double two[] = {2000, 0};
  EXPECT_TRUE(pm::over_capability(q, two).empty());
  const double over[] = {2001, 0};
  EXPECT_EQ(pm::over_capability(q, over), std::vector<size_t>{0});
}

TEST(ProportionMath, InqueueAndElasticOfAJob) {
  const double min[] = {4000, 4e9};
  const double allocated[] = {1000, 6e9};
  ResVec inq = pm::inqueue_reserve(min, allocated, 2);
  EXPECT_DOUBLE_EQ(inq[0], 3000);
  EXPECT_DOUBLE_EQ(inq[1], 0);
  ResVec el = pm::elastic_of(allocated, min, 2);
  EXPECT_DOUBLE_EQ(el[0], 0);
  EXPECT_DOUBLE_EQ(el[1], 2e9);
  el = pm::elastic_of(allocated, nullptr, 2);  // no minResources: all of it is elastic
  EXPECT_DOUBLE_EQ(el[0], 1000);
}

// Volcano's reclaim case "Two Queue with one Queue overusing resource" (scenario
// reclaim-01): 3 cpu / 3Gi, q1 runs three 1 cpu / 1G tasks, q2 waits with one.
// Round 1: q1 1500 / 1.5Gi, q2 1500 -> 1000 / 1e9 (met); remaining 500 / (3Gi - 2.5e9..).
// Round 2: q1 gets the rest: 2000 / (3Gi - 1e9). q1 holds 3000 / 3e9, so the first
// candidate is a victim; after it q1 holds 2000 / 2e9 <= deserved and the others are not.
TEST(ProportionMath, ReclaimFromTheOverusedQueueOnly) {
  pm::QueueAttr q1 = queue("q1", 1, vec({3000, 3e9}));
  pm::QueueAttr q2 = queue("q2", 1, vec({1000, 1e9}));
  q1.allocated = vec({3000, 3e9});
  pm::water_fill({&q1, &q2}, vec({3000, 3 * kGi}));
  EXPECT_DOUBLE_EQ(q1.deserved[0], 2000);
  EXPECT_DOUBLE_EQ(q1.deserved[1], 3 * kGi - 1e9);
  EXPECT_DOUBLE_EQ(q2.deserved[0], 1000);
  EXPECT_DOUBLE_EQ(q2.deserved[1], 1e9);
  EXPECT_TRUE(pm::over_deserved(q2, vec({1000, 1e9}).data()).empty());  // preemptive

  const double req[] = {1000, 1e9};
  std::vector<pm::Reclaimee> cands = {{&q1, req}, {&q1, req}, {&q1, req}};
  EXPECT_EQ(pm::reclaim_victims(cands), (std::vector<uint8_t>{1, 0, 0}));

  // A queue above its deserved gives victims even when it holds less than the reclaimer
  // asks for (Volcano ed72c7c has no such skip).
  pm::QueueAttr small = queue("small", 1, vec({500, 5e8}));
  small.allocated = vec({500, 5e8});
  small.deserved = vec({250, 5e8});
  std::vector<pm::Reclaimee> from_small = {{&small, req}};
  EXPECT_EQ(pm::reclaim_victims(from_small), (std::vector<uint8_t>{1}));
}

TEST(ProportionMath, QueueOrderByPriorityThenShare) {
  pm::QueueAttr a = queue("a", 1, vec({0, 0}));
  pm::QueueAttr b = queue("b", 1, vec({0, 0}));
  a.share = 0.2;
  b.share = 0.5;
  EXPECT_LT(pm::queue_order(a, b), 0);
  EXPECT_GT(pm::queue_order(b, a), 0);
  b.priority = 10;  // priority first
  EXPECT_GT(pm::queue_order(a, b), 0);
  a.priority = 10;
  a.share = 0.5;
  EXPECT_EQ(pm::queue_order(a, b), 0);
}

// ---- nodeorder ----------------------------------------------------------------------

// Volcano's nodeorder case "leastAllocated strategy" (scenario nodeorder-01): a 1 cpu / 1G
// pod on n1 (2 cpu / 4Gi) or n2 (4 cpu / 8Gi), nothing running.
// n1: cpu (2000-1000)*100/2000 = 50, memory (4Gi-1e9)*100/4Gi = 76 -> (50*50+76*50)/100 = 63
// n2: cpu 75, memory (8Gi-1e9)*100/8Gi = 88 -> (75*50+88*50)/100 = 81
TEST(NodeOrderMath, LeastAllocated) {
  const int64_t gi = 1024LL * 1024 * 1024;
  EXPECT_EQ(no::least_allocated({{2000, 1000, 50}, {4 * gi, 1000000000, 50}}), 63);
  EXPECT_EQ(no::least_allocated({{4000, 1000, 50}, {8 * gi, 1000000000, 50}}), 81);
  EXPECT_EQ(no::least_requested_score(3000, 2000), 0);  // over capacity
  EXPECT_EQ(no::least_allocated({{0, 10, 50}}), 0);      // no allocatable: skipped
}

// n1 again, most allocated with weights 1/1: cpu 50, memory 1e9*100/4Gi = 23 -> 73/2 = 36.
TEST(NodeOrderMath, MostAllocated) {
  const int64_t gi = 1024LL * 1024 * 1024;
  EXPECT_EQ(no::most_allocated({{2000, 1000, 1}, {4 * gi, 1000000000, 1}}), 36);
  EXPECT_EQ(no::most_requested_score(3000, 2000), 100);  // capped at capacity
}

// balancedResourceScore, the balance after the pod:
// Fractions 0.5 and 0.75: std = |0.5-0.75|/2 = 0.125 -> 87.5 -> 87.
// Fractions 0.5, 0.75, 0.25: mean 0.5, std = sqrt((0+0.0625+0.0625)/3) = 0.2041 -> 79.
// Fractions capped at 1: cpu 2000/1000 -> 1, memory 0 -> std 0.5 -> 50.
TEST(NodeOrderMath, BalancedResourceScore) {
  const int64_t gi = 1024LL * 1024 * 1024;
  EXPECT_EQ(no::balanced_resource_score({{4000, 2000, 1}, {8 * gi, 6 * gi, 1}}), 87);
  EXPECT_EQ(no::balanced_resource_score({{4000, 2000, 1}, {8 * gi, 6 * gi, 1}, {4000, 1000, 1}}),
            79);
  EXPECT_EQ(no::balanced_resource_score({{1000, 2000, 1}, {1000, 0, 1}}), 50);
  EXPECT_EQ(no::balanced_resource_score({{1000, 300, 1}}), 100);  // one resource: std 0
}

// Kubernetes 1.36's BalancedAllocation scores the change the pod brings:
// 50 + (50 + with - without) / 2.
//   A node at cpu 1/4, memory 6/8 (fractions 0.25, 0.75: std 0.25 -> 75); a pod of cpu 1
//   makes them 0.5, 0.75 (87): better by 12 -> 50 + (50 + 12) / 2 = 81.
//   From 0.5, 0.75 (87), a pod of memory 1 Gi makes memory 0.875 (81): worse by 6 -> 72.
//   No change (a pod of nothing): 50 + 50 / 2 = 75. Go's division truncates toward zero:
//   with 0, without 100 -> 50 + (50 - 100) / 2 = 50 - 25 = 25.
TEST(NodeOrderMath, BalancedAllocationRewardsTheImprovement) {
  const int64_t gi = 1024LL * 1024 * 1024;
  const no::Dim before[] = {{4000, 1000, 1}, {8 * gi, 6 * gi, 1}};
  const no::Dim after_cpu[] = {{4000, 2000, 1}, {8 * gi, 6 * gi, 1}};
  EXPECT_EQ(no::balanced_allocation(after_cpu, before, 2), 81);
  const no::Dim half[] = {{4000, 2000, 1}, {8 * gi, 6 * gi, 1}};
  const no::Dim more_mem[] = {{4000, 2000, 1}, {8 * gi, 7 * gi, 1}};
  EXPECT_EQ(no::balanced_allocation(more_mem, half, 2), 72);
  EXPECT_EQ(no::balanced_allocation(half, half, 2), 75);
  const no::Dim skewed[] = {{1000, 2000, 1}, {1000, 0, 1}};   // std 0.5 -> 50
  const no::Dim even[] = {{1000, 0, 1}, {1000, 0, 1}};        // std 0 -> 100
  EXPECT_EQ(no::balanced_allocation(skewed, even, 2), 50 + (50 + 50 - 100) / 2);
}

// TaintToleration's NormalizeScore (reverse): counts 0, 1, 2 -> 100, 50, 0; all 0 -> 100.
TEST(NodeOrderMath, NormalizeReverse) {
  std::vector<int64_t> s = {0, 1, 2};
  no::normalize(s, true);
  EXPECT_EQ(s, (std::vector<int64_t>{100, 50, 0}));
  s = {0, 0};
  no::normalize(s, true);
  EXPECT_EQ(s, (std::vector<int64_t>{100, 100}));
  s = {1, 3};
  no::normalize(s, false);
  EXPECT_EQ(s, (std::vector<int64_t>{33, 100}));
}

TEST(NodeOrderMath, NonZeroDefaults) {
  EXPECT_EQ(no::non_zero(0, no::kDefaultMilliCpuRequest), 100);
  EXPECT_EQ(no::non_zero(0, no::kDefaultMemoryRequest), 209715200);
  EXPECT_EQ(no::non_zero(250, no::kDefaultMilliCpuRequest), 250);
}

// ---- binpack ------------------------------------------------------------------------

// Node 4 cpu / 8Gi / 4 GPUs, using 2 cpu / 4Gi / 1 GPU; task asks 1 cpu / 2Gi / 1 GPU.
// cpu (1000+2000)/4000 = 0.75, memory (2+4)/8 = 0.75.
TEST(BinpackMath, ScoreOnAKnownNode) {
  const double alloc[] = {4000, 8 * kGi, 4000};
  const double used[] = {2000, 4 * kGi, 1000};
  const double req[] = {1000, 2 * kGi, 1000};
  // GPU not listed in binpack.resources: (0.75 + 0.75) / 2 * 100 = 75.
  std::vector<std::optional<int64_t>> w = {1, 1, std::nullopt};
  EXPECT_DOUBLE_EQ(bp::score(req, alloc, used, w, 1), 75);
  // GPU weight 2: (0.75 + 0.75 + 2000*2/4000) / (1+1+2) * 100 = 62.5; binpack.weight 10.
  w[2] = 2;
  EXPECT_DOUBLE_EQ(bp::score(req, alloc, used, w, 1), 62.5);
  EXPECT_DOUBLE_EQ(bp::score(req, alloc, used, w, 10), 625);
  // cpu weight 3: (0.75*3 + 0.75 + 1) / 6 * 100 = 66.67.
  w[0] = 3;
  EXPECT_NEAR(bp::score(req, alloc, used, w, 1), 400.0 / 6.0, 1e-9);
}

TEST(BinpackMath, OverCapacityAndUnrequested) {
  const double alloc[] = {4000, 8 * kGi};
  const double used[] = {2000, 4 * kGi};
  std::vector<std::optional<int64_t>> w = {1, 1};
  // cpu 3000 + 2000 > 4000: the whole node scores 0 (Volcano's BinPackingScore returns at
  // the first resource that would overflow), whatever memory would have scored.
  const double big[] = {3000, 2 * kGi};
  EXPECT_DOUBLE_EQ(bp::score(big, alloc, used, w, 1), 0);
  const double big_mem_first[] = {1000, 5 * kGi};
  EXPECT_DOUBLE_EQ(bp::score(big_mem_first, alloc, used, w, 1), 0);
  // No memory requested: only cpu counts, 0.75 * 100.
  const double cpu_only[] = {1000, 0};
  EXPECT_DOUBLE_EQ(bp::score(cpu_only, alloc, used, w, 1), 75);
  // Nothing requested: 0.
  const double none[] = {0, 0};
  EXPECT_DOUBLE_EQ(bp::score(none, alloc, used, w, 1), 0);
  EXPECT_DOUBLE_EQ(*bp::resource_score(1, 0, 0, 1), 0);  // node has none of it
  EXPECT_DOUBLE_EQ(*bp::resource_score(1, 4, 1, 0), 0);  // weight 0
  EXPECT_FALSE(bp::resource_score(4, 4, 1, 1).has_value());  // would not fit
}

// Volcano's binpack_test.go TestNode (ed72c7c), both cases, with its expected scores: a
// node where any scored resource would overflow scores 0. Resources:
// cpu, memory, nvidia.com/gpu, example.com/foo. n1 2 cpu / 4Gi running p1 (1 cpu / 1Gi);
// n2 4 cpu / 16Gi / 4 GPUs, empty; n3 2 cpu / 4Gi / 16 foo running p2 (1.5 cpu).
TEST(BinpackMath, VolcanoGoldenScores) {
  const double n1_alloc[] = {2000, 4 * kGi, 0, 0}, n1_used[] = {1000, 1 * kGi, 0, 0};
  const double n2_alloc[] = {4000, 16 * kGi, 4000, 0}, n2_used[] = {0, 0, 0, 0};
  const double n3_alloc[] = {2000, 4 * kGi, 0, 16000}, n3_used[] = {1500, 0, 0, 0};
  const double p1[] = {1000, 1 * kGi, 0, 0};
  const double p2[] = {1500, 0, 0, 0};
  const double p3[] = {2000, 10 * kGi, 2000, 0};
  const double p4[] = {3000, 4 * kGi, 0, 3000};
  struct Node {
    const double* alloc;
    const double* used;
  };
  const Node n1{n1_alloc, n1_used}, n2{n2_alloc, n2_used}, n3{n3_alloc, n3_used};

  // binpack.weight 10, cpu 2, memory 3, gpu 7, foo 8.
  std::vector<std::optional<int64_t>> w = {2, 3, 7, 8};
  auto s = [&](const double* pod, const Node& n, int64_t bw) {
    return bp::score(pod, n.alloc, n.used, w, bw);
  };
  EXPECT_NEAR(s(p1, n1, 10), 700, 1e-8);
  EXPECT_NEAR(s(p1, n2, 10), 137.5, 1e-8);
  EXPECT_NEAR(s(p1, n3, 10), 0, 1e-8);  // n3 has 0.5 cpu left
  EXPECT_NEAR(s(p2, n1, 10), 0, 1e-8);
  EXPECT_NEAR(s(p2, n2, 10), 375, 1e-8);
  EXPECT_NEAR(s(p2, n3, 10), 0, 1e-8);
  EXPECT_NEAR(s(p3, n1, 10), 0, 1e-8);
  EXPECT_NEAR(s(p3, n2, 10), 531.25, 1e-8);
  EXPECT_NEAR(s(p3, n3, 10), 0, 1e-8);
  EXPECT_NEAR(s(p4, n1, 10), 0, 1e-8);
  EXPECT_NEAR(s(p4, n2, 10), 173.076923076, 1e-8);
  EXPECT_NEAR(s(p4, n3, 10), 0, 1e-8);  // 3 cpu asked, n3 has 2

  // binpack.weight 1, cpu 1, memory 1, gpu 23; foo not listed.
  w = {1, 1, 23, std::nullopt};
  EXPECT_NEAR(s(p1, n1, 1), 75, 1e-8);
  EXPECT_NEAR(s(p1, n2, 1), 15.625, 1e-8);
  EXPECT_NEAR(s(p1, n3, 1), 0, 1e-8);
  EXPECT_NEAR(s(p2, n2, 1), 37.5, 1e-8);
  EXPECT_NEAR(s(p3, n2, 1), 50.5, 1e-8);
  EXPECT_NEAR(s(p4, n2, 1), 50, 1e-8);
  EXPECT_NEAR(s(p4, n3, 1), 0, 1e-8);
}

// ---- predicates ---------------------------------------------------------------------

TEST(PredicatesMath, Tolerations) {
  const pr::Taint gpu{"gpu", "true", "NoSchedule"};
  EXPECT_TRUE(pr::tolerates({"gpu", "Equal", "true", "NoSchedule"}, gpu));
  EXPECT_TRUE(pr::tolerates({"gpu", "", "true", ""}, gpu));  // empty op = Equal, any effect
  EXPECT_FALSE(pr::tolerates({"gpu", "Equal", "false", "NoSchedule"}, gpu));
  EXPECT_TRUE(pr::tolerates({"gpu", "Exists", "", "NoSchedule"}, gpu));
  EXPECT_TRUE(pr::tolerates({"", "Exists", "", ""}, gpu));  // tolerates everything
  EXPECT_FALSE(pr::tolerates({"gpu", "Exists", "", "NoExecute"}, gpu));
  EXPECT_FALSE(pr::tolerates({"other", "Exists", "", ""}, gpu));
}

TEST(PredicatesMath, UntoleratedTaint) {
  std::vector<pr::Taint> taints = {{"soft", "x", "PreferNoSchedule"}, {"k", "v", "NoSchedule"}};
  // PreferNoSchedule never filters; the NoSchedule one does.
  EXPECT_EQ(pr::first_untolerated(taints, {}), 1);
  EXPECT_EQ(pr::first_untolerated(taints, {{"k", "Equal", "v", "NoSchedule"}}), -1);
}

TEST(PredicatesMath, UnschedulableNode) {
  EXPECT_FALSE(pr::unschedulable_blocks(false, {}));
  EXPECT_TRUE(pr::unschedulable_blocks(true, {}));
  EXPECT_FALSE(pr::unschedulable_blocks(
      true, {{"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"}}));
}

TEST(PredicatesMath, NodeSelector) {
  auto labels = [](std::string_view k) -> const char* {
    return k == "nodeRole" ? "worker" : nullptr;
  };
  EXPECT_TRUE(pr::selector_matches({{"nodeRole", "worker"}}, labels));
  EXPECT_FALSE(pr::selector_matches({{"nodeRole", "master"}}, labels));
  EXPECT_FALSE(pr::selector_matches({{"zone", "a"}}, labels));
  EXPECT_TRUE(pr::selector_matches({}, labels));
}

// Volcano's resource_strategy_fit_test.go / sra_test.go arithmetic.
TEST(ResourceStrategyFitMath, ScoresPatternsSraAndProportion) {
  namespace rsf = caldera::resource_strategy_fit;
  using S = rsf::Strategy;
  // LeastAllocated cpu (8 cores, 2 used, asks 1) and MostAllocated GPU (4, 1 used, asks 1,
  // weight 2): (5/8 * 1 + 2/4 * 2) / 3 * 100 * 10.
  EXPECT_NEAR(rsf::score({{S::LeastAllocated, 1, 1000, 2000, 8000},
                          {S::MostAllocated, 2, 1000, 1000, 4000}}, 10),
              (0.625 + 1.0) / 3 * 1000, 1e-9);
  // A scored resource that would overflow makes the node's score 0.
  EXPECT_EQ(rsf::score({{S::LeastAllocated, 1, 1000, 2000, 8000},
                        {S::MostAllocated, 2, 4000, 1000, 4000}}, 10), 0);
  // A resource the node lacks, or weight 0, adds 0 to the sum and its weight to the count.
  EXPECT_NEAR(rsf::score({{S::MostAllocated, 1, 1000, 0, 0}, {S::MostAllocated, 1, 1000, 0, 2000}}, 1),
              0.25 * 100, 1e-9);
  // Patterns: exact first, else the longest prefix.
  std::map<std::string, rsf::ResourceConfig> c = {
      {"nvidia.com/gpu", {S::MostAllocated, 3}}, {"nvidia.com/*", {S::LeastAllocated, 2}},
      {"nvidia.*", {S::LeastAllocated, 5}}};
  EXPECT_EQ(rsf::find_config(c, "nvidia.com/gpu")->weight, 3);
  EXPECT_EQ(rsf::find_config(c, "nvidia.com/mig-1g")->weight, 2);
  EXPECT_EQ(rsf::find_config(c, "nvidia.dev/x")->weight, 5);
  EXPECT_EQ(rsf::find_config(c, "cpu"), nullptr);
  EXPECT_TRUE(rsf::valid_pattern("nvidia.com/*"));
  EXPECT_FALSE(rsf::valid_pattern("*"));
  EXPECT_FALSE(rsf::valid_pattern("nvidia.*/gpu"));
  EXPECT_FALSE(rsf::valid_pattern("a**"));
  // sra: a node with none of the scarce resources scores the full weight.
  EXPECT_EQ(rsf::sra_score(0, 2, 10), 1000);
  EXPECT_EQ(rsf::sra_score(1, 2, 10), 500);
  EXPECT_EQ(rsf::sra_score(2, 2, 10), 0);
  // Proportional: 3 idle GPUs (3000 milli) at 0.5 core and 1 GB each keep 1500m and 3e9.
  EXPECT_FALSE(rsf::proportional_ok(3000, 7e9, 3000, 2000, 1e9, 0.5, 1));
  EXPECT_TRUE(rsf::proportional_ok(3000, 7e9, 3000, 1000, 1e9, 0.5, 1));
  EXPECT_FALSE(rsf::proportional_ok(3000, 7e9, 3000, 1000, 4e9 + 1, 0.5, 1));
}

}  // namespace
