// Durations as Volcano writes them: Go's time.ParseDuration syntax, or a bare number of
// seconds.
#pragma once

#include <optional>
#include <string>

namespace caldera {

// Parses a duration: "1s", "500ms", "3m", "1h30m", or a number of seconds. nullopt when it
// is not one.
std::optional<double> parse_duration(const std::string& s);

}  // namespace caldera
