#include "host/toml/duration.hpp"

#include <cmath>

#include <fmt/format.h>

#include "host/util/duration.hpp"

namespace caldera::input {

double seconds(const Value& v, DurationMin min) {
  constexpr const char* kDuration =
      "a duration such as \"1s\", \"500ms\" or \"1m30s\", or a number of seconds";
  std::optional<double> secs;
  const toml::node& n = v.node();
  if (const auto* s = n.as_string()) {
    secs = parse_duration(s->get());
    if (!secs) v.fail(fmt::format("'{}' is not a duration", s->get()), kDuration);
  } else if (const auto* i = n.as_integer()) {
    secs = static_cast<double>(i->get());
  } else if (const auto* f = n.as_floating_point()) {
    secs = f->get();
  } else {
    v.wrong_type(kDuration);
  }
  const bool zero_ok = min == DurationMin::ZeroOrMore;
  if (!std::isfinite(*secs) || *secs < 0 || (!zero_ok && *secs == 0))
    v.fail(fmt::format("{} is out of range", v.written()),
           zero_ok ? "a duration of zero or more" : "a positive duration");
  return *secs;
}

}  // namespace caldera::input
