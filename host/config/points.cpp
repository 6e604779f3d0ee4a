// Extension point names as the config spells them (SCENARIOS.md section 1).
//
// Volcano keeps one enable flag per session function (pkg/scheduler/conf/scheduler_conf.go:
// enableJobOrder, enablePredicate, enableNodeOrder, ...); Caldera names the points instead
// and keeps them in one bit set. The order here is the enum's order.
#include "host/config/points.hpp"

#include <array>

namespace caldera {

namespace {

constexpr std::array<std::string_view, kPointCount> kNames = {
    "job_order",       "queue_order",  "task_order",   "predicate",     "node_order",
    "best_node",       "preemptable",  "reclaimable",  "preemptive",    "overused",
    "allocatable",     "job_ready",    "job_pipelined", "job_enqueueable", "job_starving",
    "victim_tasks",    "hyper_node_order",
};

}  // namespace

std::string_view point_name(Point p) {
  int i = static_cast<int>(p);
  return i >= 0 && i < kPointCount ? kNames[i] : std::string_view("?");
}

std::optional<Point> point_from_name(std::string_view name) {
  for (int i = 0; i < kPointCount; ++i)
    if (kNames[i] == name) return static_cast<Point>(i);
  return std::nullopt;
}

std::string all_point_names() {
  std::string out;
  for (int i = 0; i < kPointCount; ++i) {
    if (i) out += ", ";
    out += kNames[i];
  }
  return out;
}

}  // namespace caldera
