// The session's HyperNodes: Volcano's ssn.HyperNodes, HyperNodesSetByTier, RealNodesList
// and the job's allocated HyperNode (pkg/scheduler/framework/session.go,
// pkg/scheduler/api/hyper_node_info.go), built at open from the cache's HyperNode tree
// (host/model/hypernode_tree.hpp) and the session's nodes.
//
// A HyperNode's nodes are the session's nodes among its real nodes (nodes that are not
// ready are not in the session). An unusable tree (a cycle, a HyperNode with two parents)
// gives an empty view and a problem() text: jobs with a hard network topology then wait,
// with that text as their reason, as Volcano's HyperNodesReadyToSchedule = false makes
// them wait.
//
// The job's allocated HyperNode is Volcano's volcano.sh/allocated-hyper-node PodGroup
// annotation, which Caldera does not write: at open it is derived from where the job's
// tasks are (the lowest common ancestor of the lowest HyperNode of each node holding one),
// and the allocate action moves it when it places the job in a HyperNode (as Volcano
// rewrites the annotation), so the next turn and the plugins see it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/model/objects.hpp"

namespace caldera {

class Cache;
class Session;
struct JobInfo;
struct NodeInfo;
struct TaskInfo;

struct HyperNodeInfo {
  std::string name;
  int32_t tier = 0;
  HyperNodeInfo* parent = nullptr;
  std::vector<HyperNodeInfo*> children;  // by name
  std::vector<NodeInfo*> nodes;          // its real nodes in this session, by name
};

struct HyperNodeTree;  // host/model/hypernode_tree.hpp

// Resolving selectors costs a regex search per node and member; the tree only changes when
// a HyperNode changes or a node comes, goes or changes its labels, while sessions come
// every second. So the last tree is kept (in the Runtime, host/session/runtime.hpp) with
// what it was built from and reused while that is the same (records are immutable: the
// same pointer is the same content).
struct HyperNodeTreeMemo {
  std::vector<std::shared_ptr<const HyperNodeSpec>> hypernodes;
  std::vector<std::shared_ptr<const NodeSpec>> nodes;
  std::shared_ptr<const HyperNodeTree> tree;
};

class HyperNodes {
 public:
  HyperNodes();
  ~HyperNodes();
  HyperNodes(const HyperNodes&) = delete;
  HyperNodes& operator=(const HyperNodes&) = delete;

  // `nodes`: the session's nodes, by name. `jobs`: every job, tasks on their nodes.
  // `memo`: the runtime's last tree, reused while the HyperNodes and nodes are unchanged.
  void build(const Cache& cache, const std::vector<NodeInfo*>& nodes,
             const std::vector<JobInfo*>& jobs, HyperNodeTreeMemo& memo);

  bool empty() const { return all_.empty(); }
  // "" when the cache's HyperNodes form a usable tree (or there are none).
  const std::string& problem() const { return problem_; }

  const std::vector<HyperNodeInfo*>& all() const { return all_; }  // by tier, then name
  const std::vector<int32_t>& tiers() const { return tiers_; }     // ascending, distinct
  const std::vector<HyperNodeInfo*>& at_tier(int32_t tier) const;  // by name
  HyperNodeInfo* find(const std::string& name) const;
  // The HyperNodes that hold the node, lowest tier first (then by name). The first is
  // Volcano's FindHyperNodeForNode.
  const std::vector<HyperNodeInfo*>& of_node(const NodeInfo* n) const;
  bool contains(const HyperNodeInfo* h, const NodeInfo* n) const;

  // Volcano's GetLCAHyperNode: the lowest HyperNode holding both; nullptr when none does
  // or either is null.
  static HyperNodeInfo* lca(HyperNodeInfo* a, HyperNodeInfo* b);

  // The job's allocated HyperNode (see above); nullptr when it has none.
  HyperNodeInfo* allocated(const JobInfo* j) const;
  void set_allocated(const JobInfo* j, HyperNodeInfo* h);
  // Volcano's recoverAllocatedHyperNode: the lowest HyperNode holding the node of each of
  // `tasks` that was in an allocated status (Allocated, Binding, Bound, Running) when the
  // session opened; nullptr when none was, or one of those nodes is in no HyperNode. Read
  // from the status at open, so that it is the same whenever it is asked (a job's at
  // build, a sub-job's when its sub-jobs are first built).
  HyperNodeInfo* lowest_holding(const std::vector<TaskInfo*>& tasks) const;

 private:
  std::vector<std::unique_ptr<HyperNodeInfo>> owned_;
  std::vector<HyperNodeInfo*> all_;
  std::vector<int32_t> tiers_;
  std::vector<std::vector<HyperNodeInfo*>> by_tier_;  // parallel to tiers_
  std::unordered_map<std::string, HyperNodeInfo*> by_name_;
  std::unordered_map<const NodeInfo*, std::vector<HyperNodeInfo*>> of_node_;
  std::unordered_map<const JobInfo*, HyperNodeInfo*> allocated_;
  std::string problem_;
};

// The job's network topology (its PodGroup's spec.networkTopology); nullptr when none.
const NetworkTopology* network_topology_of(const JobInfo* j);

// Sum of the HyperNode scores of every plugin that takes part, for each candidate
// (scores.size() == candidates.size()), for the sub-job being placed: its
// sub_job_hyper_node_order, or hyper_node_order with the sub-job's job for a plugin without
// the sub-job form (the rule is written in caldera/plugin.h).
struct SubJobInfo;
void hyper_node_scores(const Session& ssn, const SubJobInfo* sub_job,
                       const std::vector<HyperNodeInfo*>& candidates, std::vector<double>& scores);

}  // namespace caldera
