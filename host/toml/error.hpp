// The one input error format (documented at the top of host/toml/reader.hpp): builds the
// message and throws it as an InputError.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "host/util/input_error.hpp"
#include "host/util/source_ref.hpp"

namespace caldera::input {

// "FILE:LINE:COLUMN: OBJECT: PROBLEM; expected EXPECTED". The position is what `at.str()`
// gives (just FILE when the line is unknown, nothing when the file is); an empty object
// or expectation is left out with its separator.
std::string error_text(const SourceRef& at, std::string_view object, std::string_view problem,
                       std::string_view expected = {});

[[noreturn]] void fail(const SourceRef& at, std::string_view object, std::string_view problem,
                       std::string_view expected = {});

// " (did you mean 'X'?)" when X of `known` is close to `word` (host/util/spelling.hpp),
// else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& known);

// "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

}  // namespace caldera::input
