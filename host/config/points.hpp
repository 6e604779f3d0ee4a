// The extension points as the config names them, and a set of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace caldera {

// One entry per config point name (SCENARIOS.md section 1). Some cover two ABI slots:
// predicate (pre_predicate + predicate), node_order (node_order + batch_node_order),
// job_enqueueable (job_enqueueable + job_enqueued). job_valid and the allocate /
// deallocate events always run and have no name.
enum class Point : uint8_t {
  JobOrder,
  QueueOrder,
  TaskOrder,
  Predicate,
  NodeOrder,
  BestNode,
  Preemptable,
  Reclaimable,
  Preemptive,
  Overused,
  Allocatable,
  JobReady,
  JobPipelined,
  JobEnqueueable,
  JobStarving,
  VictimTasks,
  HyperNodeOrder,
  Count
};
inline constexpr int kPointCount = static_cast<int>(Point::Count);

std::string_view point_name(Point p);
std::optional<Point> point_from_name(std::string_view name);
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

}  // namespace caldera
