// Durations in TOML files: Go's syntax as a string ("1s", "500ms", "1m30s",
// host/util/duration.hpp) or a number of seconds.
#pragma once

#include "host/toml/reader.hpp"

namespace caldera::input {

enum class DurationMin { Positive, ZeroOrMore };

// The duration in seconds. Errors: "'soon' is not a duration; expected a duration such as
// ...", "got a boolean; expected ...", "'0s' is out of range; expected a positive
// duration".
double seconds(const Value& v, DurationMin min);

}  // namespace caldera::input
