// The kept snapshot (host/session/session_image.hpp): the cache's change lists, and an image
// brought up to date after random changes against a build from scratch of the same cache,
// object by object and to the bit; a session on the image decides as one on the cache.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/plugins/policy.hpp"
#include "host/session/session_image.hpp"
#include "tests/unit/session_helpers.hpp"

namespace caldera {
namespace {

// What a build from scratch of `cache` describes (on a copy: taking its changes would make
// the image's next refresh a build).
std::string fresh(const Cache& cache, const std::shared_ptr<const Policy>& policy) {
  Cache copy = cache;
  SessionImage other;
  other.refresh(copy, policy);
  Runtime runtime;
  auto s = other.open(copy, 0, runtime);
  return SessionImage::describe(*s);
}

std::string kept(SessionImage& image, const Cache& cache) {
  Runtime runtime;
  auto s = image.open(cache, 0, runtime);
  return SessionImage::describe(*s);
}

TEST(CacheChanges, ListedForOneConsumer) {
  Cache c;
  int a = 0, b = 0;
  EXPECT_TRUE(c.take_changes(&a).unknown);  // the first take: nothing known yet
  NodeSpec n;
  n.name = "n1";
  c.upsert_node(n);
  PodSpec p;
  p.name = "p";
  c.upsert_pod(p);
  c.remove_pod("default/p");
  c.remove_pod("default/absent");  // no change: not listed
  Cache::Changes ch = c.take_changes(&a);
  EXPECT_FALSE(ch.unknown);
  EXPECT_FALSE(ch.rebuild);
  EXPECT_EQ(ch.nodes, std::set<std::string>{"n1"});
  EXPECT_EQ(ch.pods, std::set<std::string>{"default/p"});
  EXPECT_TRUE(c.take_changes(&a).empty());
  QueueSpec q;
  q.name = "q";
  c.upsert_queue(q);
  EXPECT_TRUE(c.take_changes(&a).rebuild);
  // Another consumer starts over; the first one then knows nothing.
  EXPECT_TRUE(c.take_changes(&b).unknown);
  c.upsert_node(n);
  EXPECT_TRUE(c.take_changes(&a).unknown);
}

TEST(CacheChanges, ListsGiveUpPastTheCacheSize) {
  Cache c;
  int a = 0;
  c.take_changes(&a);
  PodSpec p;
  for (int i = 0; i < 1100; ++i) {
    p.name = "p" + std::to_string(i);
    c.upsert_pod(p);
    c.remove_pod(p.ns + "/" + p.name);
  }
  EXPECT_TRUE(c.take_changes(&a).unknown);
}

// A random cluster and random changes to it, from a seed.
class World {
 public:
  explicit World(uint64_t seed) : rng_(seed) {}

  Cache cache;
  bool rebuilds = true;  // change() may change what the image builds anew for

  void populate() {
    for (int i = 0; i < 12; ++i) {
      NodeSpec n;
      n.name = "n" + std::to_string(i);
      n.allocatable = {{"cpu", 8000}, {"memory", 32e9}};
      if (i % 4 == 0) n.allocatable["nvidia.com/gpu"] = 4000;
      n.max_pods = 20;
      n.ready = i != 7;
      n.labels = {{"zone", "z" + std::to_string(i % 3)}};
      cache.upsert_node(n);
    }
    for (const char* q : {"default", "q1", "q2"}) testing::add_queue(cache, q);
    PriorityClassSpec pc;
    pc.name = "high";
    pc.value = 1000;
    cache.upsert_priority_class(pc);
    for (int i = 0; i < 10; ++i) add_podgroup();
    for (int i = 0; i < 80; ++i) add_pod();
    for (int i = 0; i < 40; ++i) bind_one();
  }

  // One random change of a kind the image follows object by object (mostly), or one it
  // builds anew for (rarely).
  void change() {
    switch (pick(14)) {
      case 0: case 1: case 2: add_pod(); break;
      case 3: case 4: bind_one(); break;
      case 5: end_one(); break;
      case 6: remove_one(); break;
      case 7: add_podgroup(); break;
      case 8: remove_podgroup(); break;
      case 9: update_podgroup(); break;
      case 10: relabel_node(); break;
      case 11: release_one(); break;
      case 12: foreign_pod(); break;
      case 13:
        if (rebuilds && pick(4) == 0) {  // a kind built anew
          QueueSpec q;
          q.name = "q" + std::to_string(3 + pick(2));
          q.weight = 1 + pick(3);
          cache.upsert_queue(q);
        } else {
          add_pod();
        }
        break;
    }
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }

  std::string some_pod() {
    if (cache.pods().empty()) return "";
    auto it = cache.pods().begin();
    std::advance(it, pick(static_cast<int>(cache.pods().size())));
    return it->first;
  }
  std::string some_node() { return "n" + std::to_string(pick(12)); }

  void add_podgroup() {
    PodGroupSpec pg;
    pg.ns = "ns";
    pg.name = "pg" + std::to_string(pick(16));  // some names come back after a removal
    const char* queues[] = {"q1", "q2", "default", "missing"};
    pg.queue = queues[pick(4)];
    pg.min_member = 1 + pick(3);
    pg.phase = pick(2) ? JobPhase::Inqueue : JobPhase::Pending;
    pg.created = pick(100);
    if (pick(3) == 0) pg.min_task_member = {{"worker", 1}, {"ps", 1}};
    if (pick(4) == 0) pg.priority_class = "high";
    cache.upsert_podgroup(std::move(pg));
  }

  void add_pod() {
    PodSpec p;
    p.ns = "ns";
    p.name = "p" + std::to_string(next_pod_++) + (pick(3) ? "-" + std::to_string(pick(5)) : "");
    const int kind = pick(10);
    if (kind < 7) p.podgroup = "pg" + std::to_string(pick(18));  // a few of no PodGroup
    p.requests = {{"cpu", 100.0 * (1 + pick(20))}, {"memory", 1e8 * (1 + pick(10))}};
    if (pick(8) == 0) p.requests["nvidia.com/gpu"] = 1000;
    if (pick(6) == 0) p.init_requests = {{"cpu", 3000}, {"memory", 1e8}};
    if (pick(5) == 0) p.annotations["volcano.sh/task-spec"] = pick(2) ? "worker" : "ps";
    if (pick(5) == 0) p.priority_class = "high";
    if (pick(7) == 0) p.priority = pick(50);
    p.created = pick(100);
    cache.upsert_pod(std::move(p));
  }

  PodSpec copy_of(const std::string& key) { return *cache.pod(key); }

  void bind_one() {
    const std::string k = some_pod();
    if (k.empty()) return;
    PodSpec p = copy_of(k);
    if (!p.node.empty() || p.phase != PodPhase::Pending) return;
    p.node = some_node();
    if (pick(2)) p.phase = PodPhase::Running;
    cache.upsert_pod(std::move(p));
  }
  void end_one() {
    const std::string k = some_pod();
    if (k.empty()) return;
    PodSpec p = copy_of(k);
    p.phase = pick(2) ? PodPhase::Succeeded : PodPhase::Failed;
    cache.upsert_pod(std::move(p));
  }
  void release_one() {
    const std::string k = some_pod();
    if (k.empty()) return;
    PodSpec p = copy_of(k);
    p.releasing = true;
    cache.upsert_pod(std::move(p));
  }
  void remove_one() {
    const std::string k = some_pod();
    if (!k.empty()) cache.remove_pod(k);
  }
  void foreign_pod() {
    PodSpec p;
    p.ns = "other";
    p.name = "f" + std::to_string(next_pod_++);
    p.schedulable = false;
    p.requests = {{"cpu", 500}, {"memory", 1e9}};
    p.phase = PodPhase::Running;
    p.node = some_node();
    cache.upsert_pod(std::move(p));
  }
  void remove_podgroup() { cache.remove_podgroup("ns/pg" + std::to_string(pick(16))); }
  void update_podgroup() {
    const PodGroupSpec* pg = cache.podgroup("ns/pg" + std::to_string(pick(16)));
    if (!pg) return;
    PodGroupSpec copy = *pg;
    copy.phase = pick(2) ? JobPhase::Running : JobPhase::Inqueue;
    copy.min_member = 1 + pick(4);
    cache.upsert_podgroup(std::move(copy));
  }
  void relabel_node() {
    NodeSpec n = *cache.node(some_node());
    n.labels["rack"] = std::to_string(pick(4));
    n.unschedulable = pick(5) == 0;
    cache.upsert_node(std::move(n));
  }

  std::mt19937_64 rng_;
  int next_pod_ = 0;
};

std::shared_ptr<const Policy> empty_policy() { return std::make_shared<Policy>(); }

TEST(SessionImage, FollowsRandomChangesToTheBit) {
  const auto policy = empty_policy();
  int followed = 0, built = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    World w(seed);
    w.populate();
    SessionImage image;
    ASSERT_TRUE(image.refresh(w.cache, policy).built);
    for (int round = 0; round < 25; ++round) {
      const int changes = 1 + static_cast<int>(seed + round) % 12;
      for (int i = 0; i < changes; ++i) w.change();
      SessionImage::Refresh r = image.refresh(w.cache, policy);
      (r.built ? built : followed)++;
      const std::string expected = fresh(w.cache, policy);
      const std::string got = kept(image, w.cache);
      ASSERT_EQ(got, expected) << "seed " << seed << ", round " << round << ", "
                               << (r.built ? "built: " + r.why : "followed");
      // The image was opened (and taken): the next refresh builds it again.
      ASSERT_TRUE(image.refresh(w.cache, policy).built);
    }
  }
  // Most refreshes follow the changes; the queue changes and resource names build anew.
  EXPECT_GT(followed, 3 * built) << followed << " followed, " << built << " built";
}

TEST(SessionImage, BuildsAnewForWhatItDoesNotFollow) {
  const auto policy = empty_policy();
  World w(7);
  w.populate();
  SessionImage image;
  image.refresh(w.cache, policy);
  NodeSpec n;
  n.name = "n99";
  n.allocatable = {{"cpu", 1000}, {"memory", 1e9}};
  w.cache.upsert_node(n);
  SessionImage::Refresh r = image.refresh(w.cache, policy);
  EXPECT_TRUE(r.built);
  EXPECT_EQ(r.why, "node n99 added");
  PodSpec p;
  p.ns = "ns";
  p.name = "fpga";
  p.requests = {{"cpu", 100}, {"example.com/fpga", 1000}};
  w.cache.upsert_pod(p);
  r = image.refresh(w.cache, policy);
  EXPECT_TRUE(r.built);
  EXPECT_EQ(r.why, "resource example.com/fpga came into use");
  const auto other = empty_policy();
  r = image.refresh(w.cache, other);
  EXPECT_TRUE(r.built);
  EXPECT_EQ(r.why, "another policy");
  EXPECT_FALSE(image.refresh(w.cache, other).built);  // nothing changed since
}

// The default policy's decisions on an image brought up to date, and on the cache.
TEST(SessionImage, SessionsDecideAsOnTheCache) {
  SchedulerConfig c = load_config(std::filesystem::path(CALDERA_SOURCE_ROOT) / "conf" / "caldera.toml",
                                  {CALDERA_BUILTIN_PLUGIN_DIR});
  const auto policy = build_policy(c, PluginCatalog::scan(c.plugin_dirs), "");
  size_t binds = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    World w(seed);
    w.populate();
    w.rebuilds = false;
    SessionImage image;
    image.refresh(w.cache, policy);
    for (int i = 0; i < 30; ++i) w.change();
    const SessionImage::Refresh r = image.refresh(w.cache, policy);
    ASSERT_FALSE(r.built) << r.why;
    Runtime r1, r2;
    SessionResult on_image = run_session(image, w.cache, 10, r1);
    SessionResult on_cache = run_session(w.cache, policy, 10, r2);
    EXPECT_EQ(on_image.binds, on_cache.binds) << "seed " << seed;
    EXPECT_EQ(on_image.evictions, on_cache.evictions) << "seed " << seed;
    EXPECT_EQ(on_image.pipelined, on_cache.pipelined) << "seed " << seed;
    EXPECT_EQ(on_image.pending, on_cache.pending) << "seed " << seed;
    EXPECT_EQ(on_image.podgroup_phases, on_cache.podgroup_phases) << "seed " << seed;
    binds += on_image.binds.size();
  }
  EXPECT_GT(binds, 0u);  // the sessions had something to decide
}

}  // namespace
}  // namespace caldera
