// What the point table (points.hpp) gives at run time: the points by their config names
// (SCENARIOS.md section 1), in the enum's order, and the points a descriptor implements.
#include "host/config/points.hpp"

#include <array>

namespace caldera {

namespace {

constexpr std::array<std::string_view, kPointCount> kNames = {
#define CALDERA_POINT_NAME(e, name) name,
    CALDERA_POINT_TABLE(CALDERA_POINT_NAME, CALDERA_POINT_IGNORE, CALDERA_POINT_IGNORE)
#undef CALDERA_POINT_NAME
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

std::string_view slot_name(Slot s) {
  static constexpr std::string_view kSlotNames[] = {
#define CALDERA_SLOT_NAME(p, slot, rule) #slot,
#define CALDERA_ALWAYS_NAME(slot, rule) #slot,
      CALDERA_POINT_TABLE(CALDERA_POINT_IGNORE, CALDERA_SLOT_NAME, CALDERA_ALWAYS_NAME)
#undef CALDERA_SLOT_NAME
#undef CALDERA_ALWAYS_NAME
  };
  const size_t i = static_cast<size_t>(s);
  return i < kSlotCount ? kSlotNames[i] : std::string_view("?");
}

Point slot_point(Slot s) {
  static constexpr Point kSlotPoints[] = {
#define CALDERA_SLOT_POINT(p, slot, rule) Point::p,
#define CALDERA_ALWAYS_POINT(slot, rule) Point::Count,
      CALDERA_POINT_TABLE(CALDERA_POINT_IGNORE, CALDERA_SLOT_POINT, CALDERA_ALWAYS_POINT)
#undef CALDERA_SLOT_POINT
#undef CALDERA_ALWAYS_POINT
  };
  const size_t i = static_cast<size_t>(s);
  return i < kSlotCount ? kSlotPoints[i] : Point::Count;
}

std::string all_point_names() {
  std::string out;
  for (int i = 0; i < kPointCount; ++i) {
    if (i) out += ", ";
    out += kNames[i];
  }
  return out;
}

PointSet implemented_points(const cal_plugin* d) {
  PointSet s = PointSet::none();
#define CALDERA_POINT_MARK(p, slot, rule) \
  if (SlotInfo<Slot::slot>::get(d)) s.add(Point::p);
  CALDERA_POINT_TABLE(CALDERA_POINT_IGNORE, CALDERA_POINT_MARK, CALDERA_POINT_IGNORE)
#undef CALDERA_POINT_MARK
  return s;
}

}  // namespace caldera
