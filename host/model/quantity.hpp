// Kubernetes quantities ("2", "500m", "4Gi", "1G", "1e3", 1073741824) in Caldera units.
#pragma once

#include <optional>
#include <string>

namespace caldera {

// The quantity's value as a plain number (no unit scaling for the resource kind): "500m"
// -> 0.5, "4Gi" -> 4294967296, "1G" -> 1e9. nullopt when the text is not a quantity.
std::optional<double> parse_quantity(const std::string& text);

// A named resource's amount in Caldera units: cpu in millicores ("2" -> 2000), memory in
// bytes, pods as a count, any other resource in milli-units ("nvidia.com/gpu": 1 -> 1000),
// as Volcano's NewResource counts them. nullopt when the text is not a quantity.
std::optional<double> resource_amount(const std::string& resource, const std::string& text);

// Quota names that Volcano's NewResource does not count as resources: count/* (skipped,
// IsCountQuota) and requests.* / limits.* (not scalar resource names). Volcano's job and
// PodGroup controllers write them into a PodGroup's minResources beside cpu, memory and pods.
bool is_quota_name(const std::string& name);

// Renders an amount back for messages: cpu "1500m", memory "4Gi", scalars "2".
std::string format_amount(const std::string& resource, double amount);

}  // namespace caldera
