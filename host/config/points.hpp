// The extension points: one table, CALDERA_POINT_TABLE below, from which everything about a
// point is derived — its enum value and config name (point_name, point_from_name,
// all_point_names), the cal_plugin slots that implement it (implemented_points, SlotInfo),
// and the rule by which the session combines the answers of the plugins taking part
// (Combine; the dispatch in host/session/dispatch.hpp reads it at compile time).
//
// Volcano keeps one enable flag per session function (pkg/scheduler/conf/scheduler_conf.go:
// enableJobOrder, enablePredicate, enableNodeOrder, ...) and one hand-written loop per
// function (pkg/scheduler/framework/session_plugins.go); Caldera names the points, keeps
// the enabled ones in one bit set, and writes each combination rule once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "caldera/plugin.h"

namespace caldera {

// How the answers of the plugins taking part in a slot become one decision, in tier and
// plugin order. Each is Volcano's rule, written at the slot's typedef in caldera/plugin.h.
enum class Combine : uint8_t {
  FirstNonZero,     // orders: the first non-zero answer decides; all 0: the host's fallback
  AllPass,          // every plugin CAL_SUCCESS or CAL_SKIP; the first other code is the result
  Sum,              // the scores of every plugin are summed (a failure counts as 0)
  FirstIndex,       // the first plugin that returns an index decides; none: the host's choice
  VictimIntersect,  // victim sets intersect inside a tier; a plugin allowing none ends the
                    //   tier; the first tier that leaves victims decides
  VictimUnion,      // victim sets unite inside a tier; the first tier that marks any decides
  AnyTrue,          // yes when any plugin says 1
  AllTrue,          // yes only when every plugin says 1
  TierAllTrue,      // the first tier with a plugin decides: yes when all of it says 1; no
                    //   plugin at all: no
  Vote,             // any CAL_REJECT: no; else the first tier with a CAL_PERMIT: yes; all
                    //   abstain: yes
  Notify,           // no combination: every plugin with the slot is told
};

// The table. One POINT row per config point name, in the order of the enum (and of the
// PointSet bits), each followed by a SLOT row per cal_plugin slot that implements it, with
// the slot's rule; a point is implemented when any of its slots is. ALWAYS rows are the
// slots that run in every plugin that has them, with no config name and no enable list.
//
//   POINT(Enum, "config name")   SLOT(Enum, cal_plugin slot, Combine rule)   ALWAYS(slot, rule)
//
// A point with several slots: predicate runs pre_predicate once per task, then predicate
// (or predicate_many, its many-node form) per node; node_order sums node_order (or
// node_order_many) and batch_node_order; job_enqueueable votes, and job_enqueued tells the
// same plugins when a job was enqueued; preemptive asks preemptive_many (its many-task form,
// ABI 1.7) where a plugin sets it, else preemptive task by task.
// hyper_node_order asks sub_job_hyper_node_order (ABI 1.8, for the sub-job being placed)
// where a plugin sets it, else hyper_node_order with the sub-job's job.
// unified_evictable (ABI 1.7, the gang-aware evicting actions' victims) is an ALWAYS slot:
// Volcano has no enable switch for UnifiedEvictableFn, every plugin registering one takes
// part.
#define CALDERA_POINT_TABLE(POINT, SLOT, ALWAYS)                          \
  POINT(JobOrder, "job_order")                                            \
  SLOT(JobOrder, job_order, FirstNonZero)                                 \
  POINT(QueueOrder, "queue_order")                                        \
  SLOT(QueueOrder, queue_order, FirstNonZero)                             \
  POINT(TaskOrder, "task_order")                                          \
  SLOT(TaskOrder, task_order, FirstNonZero)                               \
  POINT(Predicate, "predicate")                                           \
  SLOT(Predicate, pre_predicate, AllPass)                                 \
  SLOT(Predicate, predicate, AllPass)                                     \
  SLOT(Predicate, predicate_many, AllPass)                                \
  POINT(NodeOrder, "node_order")                                          \
  SLOT(NodeOrder, node_order, Sum)                                        \
  SLOT(NodeOrder, batch_node_order, Sum)                                  \
  SLOT(NodeOrder, node_order_many, Sum)                                   \
  POINT(BestNode, "best_node")                                            \
  SLOT(BestNode, best_node, FirstIndex)                                   \
  POINT(Preemptable, "preemptable")                                       \
  SLOT(Preemptable, preemptable, VictimIntersect)                         \
  POINT(Reclaimable, "reclaimable")                                       \
  SLOT(Reclaimable, reclaimable, VictimIntersect)                         \
  POINT(Preemptive, "preemptive")                                         \
  SLOT(Preemptive, preemptive, AllTrue)                                   \
  SLOT(Preemptive, preemptive_many, AllTrue)                              \
  POINT(Overused, "overused")                                             \
  SLOT(Overused, overused, AnyTrue)                                       \
  POINT(Allocatable, "allocatable")                                       \
  SLOT(Allocatable, allocatable, AllTrue)                                 \
  POINT(JobReady, "job_ready")                                            \
  SLOT(JobReady, job_ready, AllTrue)                                      \
  POINT(JobPipelined, "job_pipelined")                                    \
  SLOT(JobPipelined, job_pipelined, Vote)                                 \
  POINT(JobEnqueueable, "job_enqueueable")                                \
  SLOT(JobEnqueueable, job_enqueueable, Vote)                             \
  SLOT(JobEnqueueable, job_enqueued, Notify)                              \
  POINT(JobStarving, "job_starving")                                      \
  SLOT(JobStarving, job_starving, TierAllTrue)                            \
  POINT(VictimTasks, "victim_tasks")                                      \
  SLOT(VictimTasks, victim_tasks, VictimUnion)                            \
  POINT(HyperNodeOrder, "hyper_node_order")                               \
  SLOT(HyperNodeOrder, hyper_node_order, Sum)                             \
  SLOT(HyperNodeOrder, sub_job_hyper_node_order, Sum)                     \
  POINT(SubJobOrder, "sub_job_order")                                     \
  SLOT(SubJobOrder, sub_job_order, FirstNonZero)                          \
  POINT(SubJobReady, "sub_job_ready")                                     \
  SLOT(SubJobReady, sub_job_ready, AllTrue)                               \
  POINT(SubJobPipelined, "sub_job_pipelined")                             \
  SLOT(SubJobPipelined, sub_job_pipelined, Vote)                          \
  ALWAYS(job_valid, AllPass)                                              \
  ALWAYS(on_allocate, Notify)                                             \
  ALWAYS(on_deallocate, Notify)                                           \
  ALWAYS(unified_evictable, VictimIntersect)

// For the columns an expansion does not use.
#define CALDERA_POINT_IGNORE(...)

enum class Point : uint8_t {
#define CALDERA_POINT_ENUM(e, name) e,
  CALDERA_POINT_TABLE(CALDERA_POINT_ENUM, CALDERA_POINT_IGNORE, CALDERA_POINT_IGNORE)
#undef CALDERA_POINT_ENUM
  Count
};
inline constexpr int kPointCount = static_cast<int>(Point::Count);

// Every slot of the table, named as cal_plugin names it, in table order.
enum class Slot : uint8_t {
#define CALDERA_SLOT_ENUM(p, slot, rule) slot,
#define CALDERA_ALWAYS_ENUM(slot, rule) slot,
  CALDERA_POINT_TABLE(CALDERA_POINT_IGNORE, CALDERA_SLOT_ENUM, CALDERA_ALWAYS_ENUM)
#undef CALDERA_SLOT_ENUM
#undef CALDERA_ALWAYS_ENUM
  Count
};
inline constexpr size_t kSlotCount = static_cast<size_t>(Slot::Count);

// What the table says of one slot, at compile time:
//   name    the slot's name ("predicate_many")
//   always  an ALWAYS slot: every plugin that has it takes part
//   point   the point it implements (Point::Count for an ALWAYS slot)
//   rule    how the answers combine
//   Fn      its function pointer type
//   get(d)  the descriptor's function, or NULL when the plugin does not set it or its
//           minor and struct_size do not both cover it (CAL_PLUGIN_HAS): the one place
//           the host reads a slot
template <Slot S>
struct SlotInfo;

#define CALDERA_SLOT_INFO(P_, S_, R_, ALWAYS_)                                           \
  template <>                                                                            \
  struct SlotInfo<Slot::S_> {                                                            \
    static constexpr std::string_view name = #S_;                                        \
    static constexpr bool always = ALWAYS_;                                              \
    static constexpr Point point = Point::P_;                                            \
    static constexpr Combine rule = Combine::R_;                                         \
    using Fn = decltype(cal_plugin::S_);                                                 \
    static Fn get(const cal_plugin* d) { return CAL_PLUGIN_HAS(d, S_) ? d->S_ : nullptr; } \
  };
#define CALDERA_SLOT_INFO_POINT(p, slot, rule) CALDERA_SLOT_INFO(p, slot, rule, false)
#define CALDERA_SLOT_INFO_ALWAYS(slot, rule) CALDERA_SLOT_INFO(Count, slot, rule, true)
CALDERA_POINT_TABLE(CALDERA_POINT_IGNORE, CALDERA_SLOT_INFO_POINT, CALDERA_SLOT_INFO_ALWAYS)
#undef CALDERA_SLOT_INFO_POINT
#undef CALDERA_SLOT_INFO_ALWAYS
#undef CALDERA_SLOT_INFO

std::string_view point_name(Point p);
std::optional<Point> point_from_name(std::string_view name);
// A slot's name ("predicate_many") and the point it implements (Point::Count for an
// ALWAYS slot), at run time; "?" and Point::Count for a value outside the table.
std::string_view slot_name(Slot s);
Point slot_point(Slot s);
// "job_order, queue_order, ..." for error messages.
std::string all_point_names();

class PointSet {
 public:
  static PointSet all() { return PointSet((1u << kPointCount) - 1); }
  static PointSet none() { return PointSet(0); }
  bool has(Point p) const { return bits_ & bit(p); }
  void add(Point p) { bits_ |= bit(p); }
  void remove(Point p) { bits_ &= ~bit(p); }
  bool operator==(const PointSet&) const = default;

 private:
  explicit PointSet(uint32_t b) : bits_(b) {}
  static uint32_t bit(Point p) { return 1u << static_cast<int>(p); }
  uint32_t bits_;
};

// The points a descriptor implements: those with at least one slot set (SlotInfo::get).
PointSet implemented_points(const cal_plugin* d);

}  // namespace caldera
