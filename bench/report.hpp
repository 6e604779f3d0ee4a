// Printing the benchmark's results: a readable table, or one JSON object.
#pragma once

#include <cstdio>

#include <nlohmann/json.hpp>

namespace caldera::bench {

// `results` is {"cases": [...], ...} as main builds it.
void print_table(const nlohmann::json& results, std::FILE* out);
void print_json(const nlohmann::json& results, std::FILE* out);

}  // namespace caldera::bench
