// Worked numbers for the deviceshare plugin's card arithmetic (deviceshare_math.hpp): which
// card each policy picks, the node scores, FGD's fragmentation of a node for a mix of pod
// shapes, and the decayed shape history. Each expectation is computed by hand above it.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "caldera/sdk.hpp"
#include "deviceshare/deviceshare_math.hpp"

namespace {

namespace ds = caldera::deviceshare;
namespace sdk = caldera::sdk;

// A node of cards with the given milli-GPU in use.
ds::NodeCards node(std::vector<int64_t> used, double cpu_free = 64000, std::string model = "T4") {
  ds::NodeCards n;
  n.resize(used.size());
  for (size_t i = 0; i < used.size(); ++i) {
    n.used[i] = used[i];
    if (used[i] > 0) n.holders[i] = 1;
  }
  n.cpu_free = cpu_free;
  n.model = std::move(model);
  return n;
}

ds::Request share(int64_t milli) {
  ds::Request r;
  r.milli = milli;
  return r;
}
ds::Request whole(int32_t cards) {
  ds::Request r;
  r.whole = cards;
  return r;
}

ds::Shape shape(int64_t cpu, int32_t count, int64_t milli, double weight,
                std::vector<std::string> models = {}) {
  ds::Shape s;
  s.cpu = cpu;
  s.count = count;
  s.milli = milli;
  s.weight = weight;
  s.models = std::move(models);
  return s;
}

// ---- card choice ---------------------------------------------------------------------

// Cards in use 700, 200, 0, 900 -> free 300, 800, 1000, 100. A 250 share fits cards 0, 1, 2
// (card 3 has 100). binpack takes the least free that holds it: card 0 (300); spread the
// most free: card 2 (1000).
TEST(DeviceShareMath, BinpackAndSpreadPickCards) {
  ds::NodeCards n = node({700, 200, 0, 900});
  EXPECT_EQ(ds::candidate_cards(n, share(250)), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(ds::choose_cards(n, share(250), ds::Policy::Binpack), (std::vector<size_t>{0}));
  EXPECT_EQ(ds::choose_cards(n, share(250), ds::Policy::Spread), (std::vector<size_t>{2}));
  // 900 fits only the idle card, whatever the policy.
  EXPECT_EQ(ds::choose_cards(n, share(900), ds::Policy::Binpack), (std::vector<size_t>{2}));
  // 1000 as a share needs a whole free card too; nothing holds 1000 twice.
  EXPECT_TRUE(ds::choose_cards(node({0, 1}), share(1000), ds::Policy::Binpack) ==
              (std::vector<size_t>{0}));
  EXPECT_TRUE(ds::choose_cards(node({1, 1}), share(1000), ds::Policy::Binpack).empty());
}

// Equal free space: the lowest index, for both policies.
TEST(DeviceShareMath, TiesGoToTheLowestCard) {
  ds::NodeCards n = node({500, 0, 500, 0});
  EXPECT_EQ(ds::choose_cards(n, share(400), ds::Policy::Binpack), (std::vector<size_t>{0}));
  EXPECT_EQ(ds::choose_cards(n, share(400), ds::Policy::Spread), (std::vector<size_t>{1}));
}

// Whole cards need idle cards: used 0, 500, 0, 0 -> idle 0, 2, 3; two cards -> {0, 2};
// four cards do not fit although 3500 milli-GPU are free.
TEST(DeviceShareMath, WholeCardsTakeIdleCards) {
  ds::NodeCards n = node({0, 500, 0, 0});
  EXPECT_EQ(ds::choose_cards(n, whole(2), ds::Policy::Binpack), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(ds::choose_cards(n, whole(3), ds::Policy::Spread), (std::vector<size_t>{0, 2, 3}));
  EXPECT_FALSE(ds::fits(n, whole(4)));
  EXPECT_EQ(n.total_free(), 3500);
  // Every card partly used: no whole card, though 1600 milli-GPU are free.
  EXPECT_FALSE(ds::fits(node({100, 300}), whole(1)));
  EXPECT_TRUE(ds::fits(node({100, 300}), share(700)));
}

TEST(DeviceShareMath, ModelsAndMemory) {
  ds::NodeCards n = node({0, 0}, 64000, "V100M32");
  ds::Request r = share(200);
  r.models = {"V100M16", "V100M32"};
  EXPECT_TRUE(ds::fits(n, r));
  r.models = {"T4"};
  EXPECT_FALSE(ds::fits(n, r));
  // Memory shares need the card's memory: unknown memory holds none; 16384 MiB per card
  // with 10000 in use on card 0 leaves 6384: 8000 goes to card 1.
  ds::Request m;
  m.memory = 8000;
  EXPECT_FALSE(ds::fits(n, m));
  n.mem_per_card = 16384;
  n.used_mem[0] = 10000;
  EXPECT_EQ(ds::choose_cards(n, m, ds::Policy::Binpack), (std::vector<size_t>{1}));
}

// ---- node scores ----------------------------------------------------------------------

// Free 300 + 800 + 1000 + 100 = 2200; a 250 share leaves 1950. The largest node of the
// session has 8 cards (8000). binpack: 100 x (1 - 1950 / 8000) = 75.625; spread: 24.375.
TEST(DeviceShareMath, BinpackAndSpreadScores) {
  ds::NodeCards n = node({700, 200, 0, 900});
  ds::Placement b = ds::place(n, share(250), ds::Policy::Binpack, {}, 0, 8000);
  ds::Placement s = ds::place(n, share(250), ds::Policy::Spread, {}, 0, 8000);
  ASSERT_TRUE(b.ok);
  EXPECT_DOUBLE_EQ(b.score, 75.625);
  EXPECT_DOUBLE_EQ(s.score, 24.375);
  // Whole cards: two cards leave 200 free -> 100 x (1 - 200 / 8000) = 97.5.
  ds::Placement w = ds::place(node({0, 0, 900, 900}), whole(2), ds::Policy::Binpack, {}, 0, 8000);
  EXPECT_DOUBLE_EQ(w.score, 97.5);
  EXPECT_FALSE(ds::place(node({1, 1}), whole(1), ds::Policy::Binpack, {}, 0, 8000).ok);
}

// ---- FGD fragmentation -----------------------------------------------------------------

// Node: 2 cards, used 700 and 0 -> free 300 and 1000 (total 1300), cpu free 8000.
// Mix: A = a 500 share (cpu 4000) 50%, B = one whole card (cpu 4000) 30%, C = two whole
// cards (cpu 4000) 20%.
//   A: card 1 holds 500 -> fragmented = free of the cards below 500 = 300.
//   B: card 1 is a whole free card -> fragmented = 300 (card 0).
//   C: only one whole free card -> everything, 1300.
//   node = 0.5 x 300 + 0.3 x 300 + 0.2 x 1300 = 150 + 90 + 260 = 500.
TEST(DeviceShareMath, FragmentationOfANodeForAMix) {
  ds::NodeCards n = node({700, 0}, 8000);
  std::vector<ds::Shape> mix = {shape(4000, 1, 500, 0.5), shape(4000, 1, 1000, 0.3),
                                shape(4000, 2, 1000, 0.2)};
  EXPECT_EQ(ds::shape_fragmentation(n, mix[0]), 300);
  EXPECT_EQ(ds::shape_fragmentation(n, mix[1]), 300);
  EXPECT_EQ(ds::shape_fragmentation(n, mix[2]), 1300);
  EXPECT_DOUBLE_EQ(ds::node_fragmentation(n, mix), 500);

  // A model the shape may not use, or too little cpu: all the free GPU is fragmented.
  EXPECT_EQ(ds::shape_fragmentation(n, shape(4000, 1, 500, 1, {"A100"})), 1300);
  EXPECT_EQ(ds::shape_fragmentation(n, shape(9000, 1, 500, 1)), 1300);
  // A full node has nothing to fragment.
  EXPECT_EQ(ds::shape_fragmentation(node({1000, 1000}), mix[2]), 0);
}

// FGD's score: floor(100 x sigmoid(-(frag_after - frag_before) / 1000)).
TEST(DeviceShareMath, FgdScoreIsTheSimulatorsSigmoid) {
  EXPECT_EQ(ds::fgd_score(0), 50);
  EXPECT_EQ(ds::fgd_score(-300), 57);   // 100 / (1 + e^-0.3) = 57.44
  EXPECT_EQ(ds::fgd_score(150), 46);    // 100 / (1 + e^0.15) = 46.26
  EXPECT_EQ(ds::fgd_score(20), 49);     // 49.5: within 0.04 GPU, one step below 50
  EXPECT_EQ(ds::fgd_score(-20), 50);    // 50.5
  EXPECT_EQ(ds::fgd_score(7900), 0);
}

// The same node and mix; a 300 share (cpu 2000) may go on card 0 or card 1.
//   card 0: free 0 and 1000, cpu 6000. A: 0, B: 0, C: 1000 -> 0.2 x 1000 = 200.
//           delta 200 - 500 = -300 -> score 57.
//   card 1: free 300 and 700. A: 300 (card 1 holds 500), B: 1000 (no whole card),
//           C: 1000 -> 150 + 300 + 200 = 650 -> delta +150 -> score 46.
// FGD takes card 0, although spread would take card 1.
TEST(DeviceShareMath, FragmentationPicksTheCardThatFragmentsLeast) {
  ds::NodeCards n = node({700, 0}, 8000);
  std::vector<ds::Shape> mix = {shape(4000, 1, 500, 0.5), shape(4000, 1, 1000, 0.3),
                                shape(4000, 2, 1000, 0.2)};
  EXPECT_DOUBLE_EQ(
      ds::placement_score(n, share(300), {0}, ds::Policy::Fragmentation, 0, mix, 2000), 57);
  EXPECT_DOUBLE_EQ(
      ds::placement_score(n, share(300), {1}, ds::Policy::Fragmentation, 0, mix, 2000), 46);
  ds::Placement p = ds::place(n, share(300), ds::Policy::Fragmentation, mix, 2000);
  EXPECT_EQ(p.cards, (std::vector<size_t>{0}));
  EXPECT_DOUBLE_EQ(p.score, 57);
  EXPECT_EQ(ds::choose_cards(n, share(300), ds::Policy::Spread), (std::vector<size_t>{1}));

  // cpu counts: a pod taking 5000 of the 8000 leaves 3000 < 4000 for every shape, so all
  // the GPU left is fragmented. Card 0 and card 1 both leave 1000 fragmented (delta +500,
  // score 37); the tie goes to the fuller card, 0.
  ds::Placement heavy = ds::place(n, share(300), ds::Policy::Fragmentation, mix, 5000);
  EXPECT_EQ(heavy.cards, (std::vector<size_t>{0}));
  EXPECT_DOUBLE_EQ(heavy.score, 37);

  // A pod without GPU is scored by the cpu it takes alone: 5000 cpu -> 1300 fragmented,
  // delta +800 -> 31; 1000 cpu changes nothing -> 50.
  EXPECT_DOUBLE_EQ(ds::place(n, ds::Request{}, ds::Policy::Fragmentation, mix, 5000).score, 31);
  EXPECT_DOUBLE_EQ(ds::place(n, ds::Request{}, ds::Policy::Fragmentation, mix, 1000).score, 50);
}

// An empty 8-card node for an 8-card shape: nothing fragmented. A 100 share anywhere leaves
// 7 whole cards: all 7900 free milli-GPU are fragmented for that shape (score 0).
TEST(DeviceShareMath, OneShareStrandsAnEightCardNode) {
  std::vector<ds::Shape> mix = {shape(0, 8, 1000, 1.0)};
  ds::NodeCards n = node({0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_DOUBLE_EQ(ds::node_fragmentation(n, mix), 0);
  ds::Placement p = ds::place(n, share(100), ds::Policy::Fragmentation, mix, 0);
  EXPECT_EQ(p.cards, (std::vector<size_t>{0}));
  EXPECT_DOUBLE_EQ(p.score, 0);
  EXPECT_DOUBLE_EQ(ds::node_fragmentation_after(n, mix, p.cards.data(), 1, 100, 0), 7900);
}

// Mix::fragmentation (one walk over the node's sorted free amounts for every per-card amount
// of the mix) against the definition (shape_fragmentation, a pass over the cards per shape),
// on nodes of 1 to 8 cards with random use, cpu and models, and random mixes of 1 to 12
// shapes (amounts repeat, some shapes limited to models). Fixed seed: the same cases each run.
TEST(DeviceShareMath, PreparedMixMatchesTheDefinition) {
  std::mt19937_64 rng(7);
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  const std::vector<int64_t> amounts = {100, 250, 500, 810, 1000};
  const std::vector<std::string> models = {"T4", "G2", "V100M32"};
  for (int c = 0; c < 500; ++c) {
    std::vector<int64_t> used;
    for (int64_t k = 0, cards = 1 + pick(8); k < cards; ++k)
      used.push_back(pick(3) == 0 ? 0 : pick(11) * 100);
    ds::NodeCards n = node(used, 1000.0 * pick(16), models[static_cast<size_t>(pick(3))]);
    std::vector<ds::Shape> shapes;
    for (int64_t k = 0, m = 1 + pick(12); k < m; ++k) {
      const bool whole = pick(3) == 0;
      ds::Shape s = shape(1000 * pick(12), whole ? static_cast<int32_t>(1 + pick(4)) : 1,
                          whole ? 1000 : amounts[static_cast<size_t>(pick(4))], 1.0 / m);
      if (pick(4) == 0) s.models = {models[static_cast<size_t>(pick(3))]};
      shapes.push_back(s);
    }
    double want = 0;
    for (const ds::Shape& s : shapes)
      want += s.weight * static_cast<double>(ds::shape_fragmentation(n, s));
    const ds::Mix mix(shapes);
    EXPECT_NEAR(ds::node_fragmentation_after(n, mix, nullptr, 0, 0, 0), want, 1e-9) << "case " << c;
    EXPECT_NEAR(ds::node_fragmentation(n, mix), want, 1e-9) << "case " << c;
  }
}

// ---- history ---------------------------------------------------------------------------

// decay 0.5: the second new pod weighs 2, the third 4. Shapes: X (pods 1 and 3) = 1 + 4 = 5,
// Y (pod 2) = 2 -> X 5/7, Y 2/7. A pod still pending in the next session adds nothing.
TEST(DeviceShareMath, HistoryDecaysAndCountsEachPodOnce) {
  ds::ShapeHistory h;
  ds::ShapeKey x{4000, 1, 500, ""}, y{8000, 2, 1000, "T4|G2"};
  const uint64_t p1 = ds::pod_id("ns/p1"), p2 = ds::pod_id("ns/p2"), p3 = ds::pod_id("ns/p3");
  h.begin_session();
  EXPECT_TRUE(h.add(p1, x, 0.5, 100));
  EXPECT_TRUE(h.add(p2, y, 0.5, 100));
  h.begin_session();
  EXPECT_FALSE(h.add(p1, x, 0.5, 100));  // pending since the last session
  EXPECT_TRUE(h.add(p3, x, 0.5, 100));
  std::vector<ds::Shape> mix = h.mix(1.0, 10);
  ASSERT_EQ(mix.size(), 2u);
  EXPECT_EQ(mix[0].milli, 500);
  EXPECT_NEAR(mix[0].weight, 5.0 / 7, 1e-12);
  EXPECT_EQ(mix[1].count, 2);
  EXPECT_EQ(mix[1].models, (std::vector<std::string>{"T4", "G2"}));
  EXPECT_NEAR(mix[1].weight, 2.0 / 7, 1e-12);
  // Coverage 0.5: X alone covers 5/7 -> a mix of one shape, renormalised to 1.
  std::vector<ds::Shape> top = h.mix(0.5, 10);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_DOUBLE_EQ(top[0].weight, 1.0);
  // At most `remember` pods are remembered: with 1, p1 (the first of the last session) is,
  // p3 is not, and is counted again.
  h.begin_session();
  EXPECT_FALSE(h.add(p1, x, 1.0, 1));
  EXPECT_FALSE(h.add(p3, x, 1.0, 1));
  h.begin_session();
  EXPECT_FALSE(h.add(p1, x, 1.0, 1));
  EXPECT_TRUE(h.add(p3, x, 1.0, 1));
  // A pod that left the pending pods and came back is counted again.
  h.begin_session();
  EXPECT_TRUE(h.add(p2, y, 1.0, 100));
}

// The history saved as bytes (the plugin's state across sessions) reads back the same: the
// same mix, the same pods remembered. Broken bytes read back as an empty history.
TEST(DeviceShareMath, HistorySavedAndLoadedIsTheSame) {
  ds::ShapeHistory h;
  ds::ShapeKey x{4000, 1, 500, ""}, y{8000, 2, 1000, "T4|G2", 1 << 30};
  h.begin_session();
  h.add(ds::pod_id("ns/p1"), x, 0.9, 100);
  h.add(ds::pod_id("ns/p2"), y, 0.9, 100);
  sdk::StateWriter w;
  h.save(w);
  ds::ShapeHistory back;
  sdk::StateReader r(w.bytes());
  ASSERT_TRUE(back.load(r));
  auto a = h.mix(1.0, 10), b = back.mix(1.0, 10);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].milli, b[i].milli);
    EXPECT_EQ(a[i].memory, b[i].memory);
    EXPECT_EQ(a[i].models, b[i].models);
    EXPECT_DOUBLE_EQ(a[i].weight, b[i].weight);
  }
  back.begin_session();
  EXPECT_FALSE(back.add(ds::pod_id("ns/p2"), y, 0.9, 100));
  EXPECT_TRUE(back.add(ds::pod_id("ns/p3"), x, 0.9, 100));
  h.begin_session();
  EXPECT_FALSE(h.add(ds::pod_id("ns/p2"), y, 0.9, 100));
  EXPECT_TRUE(h.add(ds::pod_id("ns/p3"), x, 0.9, 100));
  sdk::StateWriter w1, w2;
  h.save(w1);
  back.save(w2);
  EXPECT_EQ(w1.bytes(), w2.bytes());
  // Cut short, or with bytes after the end: an empty history, and false.
  for (const std::string& broken : {w.bytes().substr(0, w.size() - 3), w.bytes() + "x"}) {
    sdk::StateReader rb(broken);
    ds::ShapeHistory e;
    EXPECT_FALSE(e.load(rb));
    EXPECT_TRUE(e.mix(1.0, 10).empty());
  }
  // No bytes at all (the first session): an empty history, and true.
  sdk::StateReader none{std::string_view()};
  ds::ShapeHistory e;
  EXPECT_TRUE(e.load(none));
}

// ---- the request rules (caldera/gpu_requests.hpp), both wordings ---------------------------

namespace gpu = caldera::gpu;

gpu::Asked asked(double gpu_cards, double number, double milli, double memory) {
  gpu::Asked a;
  a.gpu = gpu_cards;
  a.number = number;
  a.milli = milli;
  a.memory = memory;
  return a;
}

// Every rule a request can break, with the pending reason a session gives and the input
// error a file's author reads.
TEST(GpuRequests, EachProblemInBothWordings) {
  struct Case {
    gpu::Asked a;
    const char* models;
    gpu::Problem problem;
    const char* reason;
    const char* input;
  };
  const Case cases[] = {
      {asked(1.5, 0, 0, 0), nullptr, gpu::Problem::CardsNotWhole,
       "nvidia.com/gpu 1.5: whole cards only; ask a share of one card with caldera.sh/gpu-milli",
       "requests.nvidia.com/gpu: 1.5 is not a whole number of cards; ask a share of one card "
       "with caldera.sh/gpu-milli"},
      {asked(0, 2.5, 0, 0), nullptr, gpu::Problem::NumberNotWhole,
       "volcano.sh/gpu-number 2.5: whole cards only; ask a share of one card with "
       "caldera.sh/gpu-milli",
       "requests.volcano.sh/gpu-number: 2.5 is not a whole number of cards"},
      {asked(2, 3, 0, 0), nullptr, gpu::Problem::CardsDisagree,
       "nvidia.com/gpu 2 and volcano.sh/gpu-number 3 disagree",
       "requests.nvidia.com/gpu 2 and requests.volcano.sh/gpu-number 3 disagree"},
      {asked(0, 0, 220.5, 0), nullptr, gpu::Problem::MilliNotWhole,
       "caldera.sh/gpu-milli 220.5: a whole number of milli-GPU is needed",
       "requests.caldera.sh/gpu-milli: 220.5 is not a whole number of milli-GPU"},
      {asked(2, 0, 500, 0), nullptr, gpu::Problem::MilliWithWholeCards,
       "asks 2 whole GPU card(s) and caldera.sh/gpu-milli 500; with whole cards it must be "
       "2000 or absent",
       "requests.caldera.sh/gpu-milli: 500 with 2 whole card(s); with whole cards it must be "
       "2000 or absent"},
      {asked(1, 0, 0, 1024), nullptr, gpu::Problem::WholeCardsAndMemory,
       "asks whole GPU cards and volcano.sh/gpu-memory: ask one or the other",
       "asks whole GPU cards and requests.volcano.sh/gpu-memory: ask one or the other"},
      {asked(0, 0, 1500, 0), nullptr, gpu::Problem::ShareAboveOneCard,
       "caldera.sh/gpu-milli 1500 is more than one card (1000); ask whole cards with "
       "nvidia.com/gpu",
       "requests.caldera.sh/gpu-milli: 1500 milli-GPU is more than one card (1000); ask whole "
       "cards with nvidia.com/gpu"},
      {asked(0, 0, 220, 0), "T4||G2", gpu::Problem::BadModels,
       "annotation caldera.sh/gpu-models 'T4||G2' is not a '|'-separated list of GPU models",
       "annotations.caldera.sh/gpu-models: 'T4||G2' is not a '|'-separated list of GPU "
       "models"},
  };
  for (const Case& c : cases) {
    const gpu::Request r = gpu::parse(c.a, c.models);
    EXPECT_EQ(r.problem, c.problem) << c.input;
    EXPECT_EQ(gpu::describe(r, gpu::Wording::Reason), c.reason);
    EXPECT_EQ(gpu::describe(r, gpu::Wording::Input), c.input);
  }
  // Good requests: whole cards (with cards x 1000 milli-GPU), a share, memory; models
  // trimmed, each once; a models annotation on a pod without GPU is not read.
  gpu::Request w = gpu::parse(asked(2, 2, 2000, 0), " T4 | G2|T4 ");
  EXPECT_TRUE(w.ok());
  EXPECT_EQ(w.whole, 2);
  EXPECT_EQ(w.models, (std::vector<std::string>{"T4", "G2"}));
  gpu::Request sh = gpu::parse(asked(0, 0, 220, 4096), nullptr);
  EXPECT_TRUE(sh.ok() && sh.is_share() && sh.milli == 220 && sh.memory == 4096);
  EXPECT_TRUE(gpu::parse(asked(0, 0, 0, 0), "||").ok());
}

// A request against nodes: what a node could never hold, and "no node can ever meet it".
TEST(GpuRequests, NodesThatCanNeverHoldARequest) {
  const gpu::NodeGpus t4x2 = gpu::node_gpus(2, 0, 2 * 16384, "T4");
  const gpu::NodeGpus bare = gpu::node_gpus(0, 4, 0, nullptr);  // volcano.sh/gpu-number only
  EXPECT_EQ(bare.cards, 4);
  EXPECT_EQ(t4x2.memory_per_card, 16384);
  EXPECT_EQ(gpu::can_ever_hold(gpu::parse(asked(3, 0, 0, 0), nullptr), t4x2),
            gpu::Fit::TooFewCards);
  EXPECT_EQ(gpu::can_ever_hold(gpu::parse(asked(1, 0, 0, 0), "A100"), t4x2),
            gpu::Fit::ModelNotAllowed);
  EXPECT_EQ(gpu::can_ever_hold(gpu::parse(asked(0, 0, 0, 20000), nullptr), t4x2),
            gpu::Fit::CardMemoryTooSmall);
  EXPECT_EQ(gpu::can_ever_hold(gpu::parse(asked(0, 0, 0, 1), nullptr), bare),
            gpu::Fit::NoCardMemory);
  EXPECT_EQ(gpu::can_ever_hold(gpu::parse(asked(1, 0, 0, 0), nullptr), gpu::NodeGpus{}),
            gpu::Fit::NoGpu);
  EXPECT_EQ(gpu::can_ever_hold(gpu::parse(asked(0, 0, 500, 0), "T4"), t4x2), gpu::Fit::Ok);

  auto never = [&](const gpu::Request& r, gpu::Wording w) {
    gpu::NeverMet n(r);
    for (const gpu::NodeGpus& g : {t4x2, bare})
      if (n.met_by(g)) return std::string();
    return n.describe(w);
  };
  const gpu::Request a100 = gpu::parse(asked(1, 0, 0, 0), "A100");
  EXPECT_EQ(never(a100, gpu::Wording::Reason),
            "GPU request can never be met: no node has a GPU of model A100");
  EXPECT_EQ(never(a100, gpu::Wording::Input),
            "no node has a GPU of model A100: the pod can never be placed");
  const gpu::Request eight = gpu::parse(asked(8, 0, 0, 0), nullptr);
  EXPECT_EQ(never(eight, gpu::Wording::Reason),
            "GPU request can never be met: no node has 8 GPU cards");
  EXPECT_EQ(never(eight, gpu::Wording::Input), "no node has 8 GPU cards: the pod can never be placed");
  const gpu::Request mem = gpu::parse(asked(0, 0, 0, 20000), "T4");
  EXPECT_EQ(never(mem, gpu::Wording::Reason),
            "GPU request can never be met: no GPU card of model T4 has 20000 MiB of memory");
  EXPECT_EQ(never(mem, gpu::Wording::Input),
            "no GPU card of model T4 has 20000 MiB of memory: the pod can never be placed");
  EXPECT_EQ(never(gpu::parse(asked(4, 0, 0, 0), nullptr), gpu::Wording::Reason), "");
}

}  // namespace
