// "Why pending" wording, as kube-scheduler's FitError.Error() builds it: each reason with
// the number of nodes that gave it, as strings sorted, after "0/N nodes are available".
#include <algorithm>
#include <fmt/format.h>

#include "host/session/session.hpp"

namespace caldera {

std::string FitErrors::str() const {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : counts_) parts.push_back(fmt::format("{} {}", count, reason));
  std::sort(parts.begin(), parts.end());
  std::string out = fmt::format("0/{} nodes are available", nodes_);
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? ": " : ", ") + parts[i];
  return out;
}

}  // namespace caldera
