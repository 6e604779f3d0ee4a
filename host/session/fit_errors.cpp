// Interned reasons and the "why pending" wording, as Volcano's FitErrors.Error() builds it:
// each reason with the number of nodes that gave it, as strings sorted, after
// "0/N nodes are unavailable", and a final period.
#include <fmt/format.h>

#include <algorithm>

#include "host/session/reasons.hpp"

namespace caldera {

int32_t ReasonTable::intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  const auto id = static_cast<int32_t>(texts_.size());
  texts_.emplace_back(text);
  ids_.emplace(texts_.back(), id);
  return id;
}

std::string FitErrors::str() const {
  std::vector<std::string> parts;
  parts.reserve(distinct_);
  for (size_t id = 0; id < counts_.size(); ++id)
    if (counts_[id] != 0)
      parts.push_back(fmt::format("{} {}", counts_[id], table_->text(static_cast<int32_t>(id))));
  std::sort(parts.begin(), parts.end());
  std::string out = fmt::format("0/{} nodes are unavailable", nodes_);
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? ": " : ", ") + parts[i];
  if (!parts.empty()) out += '.';
  return out;
}

}  // namespace caldera
