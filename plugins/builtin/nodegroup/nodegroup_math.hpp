// The rules of the nodegroup plugin, free of the ABI so that unit tests can call them.
//
// Follows Volcano's pkg/scheduler/plugins/nodegroup/nodegroup.go (ed72c7c): a queue's
// spec.affinity names node groups (the value of a node's volcano.sh/nodegroup-name label)
// its jobs must (required) or should (preferred) run in, and must not or should not
// (anti-affinity).
#pragma once

#include <cstddef>
#include <string_view>

#include "caldera/plugin.h"

namespace caldera::nodegroup {

// Volcano's scheduling v1beta1 NodeGroupNameKey and NodeGroupResourceLimitsAnnotationKey.
inline constexpr const char* kNodeGroupLabel = "volcano.sh/nodegroup-name";
inline constexpr const char* kResourceLimitsAnnotation = "volcano.sh/nodegroup-resource-limits";

// Volcano's BaseScore.
inline constexpr double kBaseScore = 100;

// The predicate's reasons (nodegroup/errors.go), each UnschedulableAndUnresolvable.
inline constexpr const char* kAffinityNotFound = "node group affinity not specified";
inline constexpr const char* kLabelNotFound = "node group label not found";
inline constexpr const char* kNodeUnsatisfied = "node does not satisfy the node group affinity";

inline int listed_at(const cal_string_list& l, std::string_view group) {
  for (size_t i = 0; i < l.count; ++i)
    if (l.items[i] != nullptr && group == l.items[i]) return static_cast<int>(i);
  return -1;
}
inline bool listed(const cal_string_list& l, std::string_view group) {
  return listed_at(l, group) >= 0;
}

// No rule at all: a queue without affinity, or with four empty lists.
inline bool unset(const cal_queue_affinity* a) {
  return a == nullptr || (a->required.count == 0 && a->preferred.count == 0 &&
                          a->anti_required.count == 0 && a->anti_preferred.count == 0);
}

// queueGroupAffinity.predicate: a group the queue requires or prefers passes, unless it
// is also required against; a group merely preferred against passes too (Volcano's order
// of checks makes anti-preferred win over anti-required).
inline bool group_allowed(const cal_queue_affinity& a, std::string_view group) {
  bool ok = listed(a.required, group) || listed(a.preferred, group);
  if (listed(a.anti_required, group)) ok = false;
  if (listed(a.anti_preferred, group)) ok = true;
  return ok;
}

// queueGroupAffinity.score: 100 for a required group; plus 50 for a preferred one (with
// preferred_order, 50 x (n - i) / n for the i-th of n preferred groups, so earlier is
// better); -1 for a group preferred against, whatever else.
inline double group_score(const cal_queue_affinity& a, std::string_view group,
                          bool preferred_order) {
  double score = 0;
  if (listed(a.required, group)) score += kBaseScore;
  if (preferred_order) {
    // Volcano keys its index map by group: a group listed twice keeps its last index, and
    // n counts distinct groups.
    int last = -1;
    size_t distinct = 0;
    for (size_t i = 0; i < a.preferred.count; ++i) {
      const std::string_view g = a.preferred.items[i] ? a.preferred.items[i] : "";
      if (g == group) last = static_cast<int>(i);
      bool seen_before = false;
      for (size_t j = 0; j < i && !seen_before; ++j)
        seen_before = a.preferred.items[j] && g == a.preferred.items[j];
      if (!seen_before) ++distinct;
    }
    if (last >= 0)
      score += 0.5 * kBaseScore * static_cast<double>(static_cast<int>(distinct) - last) /
               static_cast<double>(distinct);
  } else if (listed(a.preferred, group)) {
    score += 0.5 * kBaseScore;
  }
  if (listed(a.anti_preferred, group)) score = -1;
  return score;
}

}  // namespace caldera::nodegroup
