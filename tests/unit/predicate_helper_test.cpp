// The node search's two walks (actions/predicate_helper.hpp): over the session's own list
// it steps over the nodes a task group failed before a word of bits at a time; over any
// other list (a HyperNode's) it looks at each node and asks the group's cache. Both must be
// Volcano's walk: the same nodes found, the same place for the next search to start, the
// same reasons when nothing is found. Here the same tasks are searched both ways, on two
// sessions of one cluster, placing each where the other placed it.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "actions/predicate_helper.hpp"
#include "host/cache/cache.hpp"
#include "host/session/statement.hpp"
#include "tests/unit/session_helpers.hpp"

namespace {

using namespace caldera;

// 330 nodes of 1 to 5 cpu; every third tainted, every seventh unschedulable. One job of
// three roles: 150 pods of 3 cpu (the walk fills nodes and wraps round the list several
// times), 12 of 5 cpu (few nodes hold one), 3 of 100 cpu (none).
std::string cluster() {
  std::string s = caldera::testing::kQueueAndInqueueGroup;
  auto pods = [&](const char* role, int count, int cpu) {
    for (int i = 0; i < count; ++i)
      s += fmt::format(
          "[[pods]]\nname = \"{}-{}\"\nnamespace = \"c1\"\npodgroup = \"pg\"\n"
          "requests = {{ cpu = \"{}\" }}\nannotations = {{ \"volcano.sh/task-spec\" = \"{}\" }}\n",
          role, i, cpu, role);
  };
  pods("w", 150, 3);
  pods("big", 12, 5);
  pods("huge", 3, 100);
  for (int i = 0; i < 330; ++i) {
    s += fmt::format("[[nodes]]\nname = \"n{:03}\"\nallocatable = {{ cpu = \"{}\", memory = \"64Gi\" }}\n",
                     i, 1 + (i * 7) % 5);
    if (i % 3 == 0) s += "taints = [{ key = \"t\", value = \"x\", effect = \"NoSchedule\" }]\n";
    if (i % 7 == 3) s += "unschedulable = true\n";
  }
  return s;
}

Cache load() { return caldera::testing::cache_from_scenario_text(cluster(), "walks.toml"); }

struct Search {
  std::vector<std::string> found;
  size_t next_start = 0;
  std::string reasons;
};

// Searches both ways for every task, twice round the job; returns (placed, refused).
std::pair<size_t, size_t> walk_both_ways(const std::string& search_keys) {
  auto policy = caldera::testing::policy_from_config(fmt::format(R"(
[scheduler]
actions = ["allocate"]
threads = 1
{}
[[tiers]]
[[tiers.plugins]]
name = "predicates"
)", search_keys));
  const Cache cache_a = load(), cache_b = load();
  Runtime runtime_a, runtime_b;
  auto a = Session::open(cache_a, policy, 0, runtime_a);
  auto b = Session::open(cache_b, policy, 0, runtime_b);
  const std::vector<NodeInfo*> copy = b->nodes();  // not the session's list: node by node
  JobInfo* job_a = a->job("c1/pg");
  JobInfo* job_b = b->job("c1/pg");
  if (job_a == nullptr || job_a->tasks.size() != 165u) {
    ADD_FAILURE() << "the cluster did not load as written";
    return {};
  }

  PredicateHelper helper_a(*a, true), helper_b(*b, true);
  Statement stmt_a(*a), stmt_b(*b);
  size_t placed = 0, refused = 0, searches = 0;
  // Twice over the tasks: the second round meets a cluster the first filled.
  for (int round = 0; round < 2; ++round) {
    for (size_t k = 0; k < job_a->tasks.size(); ++k) {
      TaskInfo* ta = job_a->tasks[k];
      TaskInfo* tb = job_b->tasks[k];
      EXPECT_EQ(ta->uid, tb->uid);
      if (ta->status == CAL_TASK_ALLOCATED) continue;
      auto search = [&](Session& s, PredicateHelper& h, TaskInfo* t,
                        const std::vector<NodeInfo*>& list) {
        FitErrors fe(s.reasons());
        Search r;
        for (NodeInfo* n : h.predicate_nodes(t, list, kAllocateFilter, &fe)) r.found.push_back(n->name);
        r.next_start = s.node_search_start();
        if (r.found.empty()) r.reasons = fe.str();
        return r;
      };
      if (!a->pre_predicate(ta).ok() || !b->pre_predicate(tb).ok()) {
        ADD_FAILURE() << ta->uid << ": pre-predicate refused";
        return {};
      }
      const Search ra = search(*a, helper_a, ta, a->nodes());
      const Search rb = search(*b, helper_b, tb, copy);
      ++searches;
      if (ra.found != rb.found || ra.next_start != rb.next_start || ra.reasons != rb.reasons) {
        ADD_FAILURE() << ta->uid << " round " << round << ": found " << ra.found.size() << " and "
                      << rb.found.size() << ", next start " << ra.next_start << " and "
                      << rb.next_start << ", reasons '" << ra.reasons << "' and '" << rb.reasons << "'";
        return {};
      }
      if (ra.found.empty()) {
        ++refused;
        continue;
      }
      // Place it on a node the search found, the same one in both sessions.
      const std::string& on = ra.found[k % ra.found.size()];
      stmt_a.allocate(ta, a->node(on));
      stmt_b.allocate(tb, b->node(on));
      ++placed;
    }
  }
  EXPECT_EQ(searches, placed + refused);
  return {placed, refused};
}

// Volcano's default sizes: at 330 nodes a search wants 155 nodes, more than ever fit, so
// every walk goes round the whole list.
TEST(PredicateHelper, SteppingOverKnownFailuresWalksAsNodeByNode) {
  const auto [placed, refused] = walk_both_ways("");
  // The cluster holds fewer than the job asks: the searches that find nothing give reasons.
  EXPECT_EQ(placed, 114u);
  EXPECT_EQ(refused, 102u);
}

// A search that wants 5 nodes stops part way, often inside a word of the group's bits and
// in the middle of a batch (runs of 8 at least): the next search must start just after the
// node that completed it.
TEST(PredicateHelper, ASearchStoppingPartWayStartsTheNextAfterItsLastNode) {
  const auto [placed, refused] =
      walk_both_ways("percentage_of_nodes_to_find = 1\nminimum_feasible_nodes = 5");
  EXPECT_EQ(placed, 114u);
  EXPECT_EQ(refused, 102u);
}

}  // namespace
