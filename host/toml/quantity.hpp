// Kubernetes quantities in TOML files (SCENARIOS.md: strings or numbers, cpu "500m",
// memory "4Gi", 1073741824, any other resource with the same syntax), shared by the
// scenario / cluster reader and the workload reader.
//
// This layer is below the model, so what a quantity means is the caller's: it hands in
// the model's resource_amount (host/model/quantity.hpp), and these read the value, check
// it and word the errors.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "host/toml/reader.hpp"

namespace caldera::input {

// A resource's amount from a quantity's text, nullopt when the text is not a quantity
// (host/model/quantity.hpp: resource_amount).
using AmountParser = std::optional<double> (*)(const std::string& resource,
                                               const std::string& text);

// One amount of `resource`, written as a string, an integer or a float; never negative.
// Errors: "got a boolean; expected a quantity ...", "'4GB' is not a quantity; expected a
// quantity such as ...", "'-1' is negative; expected a quantity of zero or more".
double quantity(const Value& v, std::string_view resource, AmountParser parse);

// A table of quantities by resource name ({ cpu = "2", memory = "4Gi" }): the model's
// ResourceList.
std::map<std::string, double> resource_list(const Value& v, AmountParser parse);

}  // namespace caldera::input
