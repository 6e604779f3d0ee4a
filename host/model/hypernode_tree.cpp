// The HyperNode tree (see the header). Volcano: pkg/scheduler/api/hyper_node_info.go.
#include "host/model/hypernode_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <regex>
#include <set>

namespace caldera {

bool labels_match(const HyperNodeMember& m, const StringMap& labels) {
  // Volcano: an empty labelMatch selects nothing (GetMembers).
  if (m.match_labels.empty() && m.match_expressions.empty()) return false;
  for (const auto& [k, v] : m.match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return requirements_match(m.match_expressions, labels);
}

HyperNodeTree build_hypernode_tree(
    const std::map<std::string, std::shared_ptr<const HyperNodeSpec>>& hypernodes,
    const std::map<std::string, std::shared_ptr<const NodeSpec>>& nodes,
    std::vector<HyperNodeProblem>* problems) {
  HyperNodeTree tree;
  auto report = [&](bool fatal, const std::string& hn, int member, std::string msg) {
    if (fatal && tree.usable) {
      tree.usable = false;
      tree.problem = fmt::format("HyperNode {}: {}", hn, msg);
    }
    if (problems) problems->push_back({fatal, hn, member, std::move(msg)});
  };

  for (const auto& [name, spec] : hypernodes) {
    tree.index[name] = static_cast<int>(tree.entries.size());
    tree.entries.push_back({spec, -1, {}, {}});
  }

  // Members: node names selected directly, and the parent links.
  std::vector<std::vector<std::string>> direct(tree.entries.size());
  std::vector<std::vector<int>> edges(tree.entries.size());  // member HyperNodes, in order
  for (size_t i = 0; i < tree.entries.size(); ++i) {
    const HyperNodeSpec& hn = *tree.entries[i].spec;
    for (size_t j = 0; j < hn.members.size(); ++j) {
      const HyperNodeMember& m = hn.members[j];
      const int mj = static_cast<int>(j);
      if (m.type == MemberType::HyperNode) {
        if (m.exact.empty()) {
          report(false, hn.name, mj, "a HyperNode member needs exactMatch (regexMatch and "
                                     "labelMatch select nodes only)");
          continue;
        }
        auto it = tree.index.find(m.exact);
        if (it == tree.index.end()) {
          report(false, hn.name, mj, fmt::format("member HyperNode '{}' does not exist", m.exact));
          continue;
        }
        const int c = it->second;
        if (static_cast<size_t>(c) == i) {
          report(true, hn.name, mj, "a HyperNode cannot be its own member (cycle)");
          continue;
        }
        HyperNodeTree::Entry& child = tree.entries[static_cast<size_t>(c)];
        if (child.parent >= 0 && static_cast<size_t>(child.parent) != i) {
          report(true, hn.name, mj,
                 fmt::format("HyperNode '{}' is already a member of '{}'; a HyperNode has one "
                             "parent",
                             m.exact, tree.entries[static_cast<size_t>(child.parent)].spec->name));
          continue;
        }
        if (child.spec->tier >= hn.tier)
          report(false, hn.name, mj,
                 fmt::format("member HyperNode '{}' has tier {}, not below this HyperNode's "
                             "tier {}",
                             m.exact, child.spec->tier, hn.tier));
        if (child.parent < 0) {
          child.parent = static_cast<int>(i);
          tree.entries[i].children.push_back(c);
        }
        edges[i].push_back(c);
        continue;
      }
      // A Node member: every selector given adds its nodes (Volcano's GetMembers).
      if (!m.exact.empty()) {
        if (nodes.count(m.exact))
          direct[i].push_back(m.exact);
        else
          report(false, hn.name, mj, fmt::format("node '{}' does not exist", m.exact));
      }
      if (!m.regex.empty()) {
        std::optional<std::regex> re;
        try {
          re.emplace(m.regex, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
          report(false, hn.name, mj,
                 fmt::format("regexMatch '{}' is not a regular expression: {}", m.regex, e.what()));
        }
        if (re) {
          size_t found = 0;
          for (const auto& [node, _] : nodes)
            if (std::regex_search(node, *re)) direct[i].push_back(node), ++found;
          if (found == 0)
            report(false, hn.name, mj, fmt::format("regexMatch '{}' matches no node", m.regex));
        }
      }
      if (m.has_labels) {
        size_t found = 0;
        for (const auto& [node, spec] : nodes)
          if (labels_match(m, spec->labels)) direct[i].push_back(node), ++found;
        if (found == 0) report(false, hn.name, mj, "labelMatch matches no node");
      }
      if (m.exact.empty() && m.regex.empty() && !m.has_labels)
        report(false, hn.name, mj, "the member has no selector (exactMatch, regexMatch or "
                                   "labelMatch)");
    }
    std::sort(tree.entries[i].children.begin(), tree.entries[i].children.end(),
              [&](int a, int b) {
                return tree.entries[static_cast<size_t>(a)].spec->name <
                       tree.entries[static_cast<size_t>(b)].spec->name;
              });
  }

  // Cycles through member HyperNodes (longer than one: a self-member is reported above).
  {
    std::vector<int> color(tree.entries.size(), 0);  // 0 new, 1 on the path, 2 done
    std::vector<int> path;
    std::function<bool(int)> visit = [&](int v) -> bool {
      color[static_cast<size_t>(v)] = 1;
      path.push_back(v);
      for (int c : edges[static_cast<size_t>(v)]) {
        if (color[static_cast<size_t>(c)] == 1) {
          std::string text;
          auto from = std::find(path.begin(), path.end(), c);
          for (auto it = from; it != path.end(); ++it)
            text += tree.entries[static_cast<size_t>(*it)].spec->name + " -> ";
          text += tree.entries[static_cast<size_t>(c)].spec->name;
          const std::string& owner = tree.entries[static_cast<size_t>(v)].spec->name;
          int member = -1;
          const auto& ms = tree.entries[static_cast<size_t>(v)].spec->members;
          for (size_t j = 0; j < ms.size(); ++j)
            if (ms[j].type == MemberType::HyperNode &&
                ms[j].exact == tree.entries[static_cast<size_t>(c)].spec->name)
              member = static_cast<int>(j);
          report(true, owner, member, fmt::format("HyperNode members form a cycle: {}", text));
          return true;
        }
        if (color[static_cast<size_t>(c)] == 0 && visit(c)) return true;
      }
      path.pop_back();
      color[static_cast<size_t>(v)] = 2;
      return false;
    };
    for (size_t i = 0; i < tree.entries.size(); ++i)
      if (color[i] == 0 && visit(static_cast<int>(i))) break;  // one cycle is enough to say
  }

  // Real nodes: own node members and those of member HyperNodes (guarded against cycles).
  std::vector<int> state(tree.entries.size(), 0);  // 0 new, 1 in progress, 2 done
  std::function<void(int)> collect = [&](int v) {
    const size_t vi = static_cast<size_t>(v);
    if (state[vi] != 0) return;
    state[vi] = 1;
    std::set<std::string> all(direct[vi].begin(), direct[vi].end());
    for (int c : edges[vi]) {
      collect(c);
      all.insert(tree.entries[static_cast<size_t>(c)].nodes.begin(),
                 tree.entries[static_cast<size_t>(c)].nodes.end());
    }
    tree.entries[vi].nodes.assign(all.begin(), all.end());
    state[vi] = 2;
  };
  for (size_t i = 0; i < tree.entries.size(); ++i) collect(static_cast<int>(i));

  // A node sits behind one switch per tier: two HyperNodes of one tier holding it is a
  // topology that cannot be right (the first by name is the one that counts).
  std::map<std::pair<int32_t, std::string>, std::string> holder;
  for (const auto& e : tree.entries) {
    for (const std::string& node : e.nodes) {
      auto [it, fresh] = holder.emplace(std::make_pair(e.spec->tier, node), e.spec->name);
      if (!fresh)
        report(false, e.spec->name, -1,
               fmt::format("node '{}' is also in HyperNode '{}' of the same tier {}", node,
                           it->second, e.spec->tier));
    }
  }
  return tree;
}

}  // namespace caldera
