// "Did you mean": the closest of a list of known words to a misspelt one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace caldera {

// Edit distance counting an insertion, a deletion, a substitution or a swap of two
// neighbouring letters as one edit (optimal string alignment), so "nmae" is one edit
// from "name".
size_t spelling_distance(std::string_view a, std::string_view b);

// The known word closest to `word` when it is close enough to be a typo (at most a third
// of its letters, and at least one, differ); the first in `known`'s order among equals;
// "" when none is, or when `word` is itself known.
std::string closest_word(std::string_view word, const std::vector<std::string>& known);

}  // namespace caldera
