// The HyperNode tree: which nodes each HyperNode holds and which HyperNode holds which,
// resolved from the HyperNode records and the nodes. Follows Volcano's
// pkg/scheduler/api/hyper_node_info.go (BuildHyperNodeCache, GetMembers, setParent):
//   - a Node member selects nodes by exact name, by a regular expression over node names
//     (searched, not anchored, as Go's regexp.MatchString) or by node labels (a
//     metav1.LabelSelector; an empty one selects nothing);
//   - a HyperNode member names a lower HyperNode exactly (Volcano takes no regex there);
//   - a HyperNode's real nodes are its own node members and every real node of its member
//     HyperNodes;
//   - a HyperNode listed by two parents, or a cycle of members, makes the whole tree
//     unusable (Volcano marks its HyperNode cache not ready and schedules no job with a
//     network topology until it is fixed).
// Other defects (a member naming nothing that exists, a selector matching no node, a bad
// regular expression, a member HyperNode whose tier is not below its parent's, a node in
// two HyperNodes of one tier) leave the tree usable: the member adds nothing, as in
// Volcano. A file loader refuses all of them (scenario_file.cpp); a live cluster logs them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/model/objects.hpp"

namespace caldera {

struct HyperNodeTree {
  struct Entry {
    std::shared_ptr<const HyperNodeSpec> spec;
    int parent = -1;                 // index into entries; -1: a root
    std::vector<int> children;       // indexes, by name
    std::vector<std::string> nodes;  // real nodes (of every descendant), sorted, unique
  };
  std::vector<Entry> entries;  // by name
  std::unordered_map<std::string, int> index;
  // False when a cycle or a HyperNode with two parents was found (see above); `problem`
  // then says which.
  bool usable = true;
  std::string problem;

  const Entry* find(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? nullptr : &entries[static_cast<size_t>(it->second)];
  }
};

struct HyperNodeProblem {
  bool fatal = false;   // the tree is unusable
  std::string hypernode;
  int member = -1;      // index into the HyperNode's members; -1: the HyperNode itself
  std::string message;  // "member HyperNode 's9' does not exist"
};

// Builds the tree; every defect found is appended to `problems` (may be null), in the
// order of HyperNode name, then member index. Deterministic.
HyperNodeTree build_hypernode_tree(
    const std::map<std::string, std::shared_ptr<const HyperNodeSpec>>& hypernodes,
    const std::map<std::string, std::shared_ptr<const NodeSpec>>& nodes,
    std::vector<HyperNodeProblem>* problems);

// True when the labels satisfy the selector of a member (matchLabels and every
// matchExpressions requirement; an unknown operator matches nothing).
bool labels_match(const HyperNodeMember& m, const StringMap& labels);

}  // namespace caldera
