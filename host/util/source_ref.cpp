#include "host/util/source_ref.hpp"

#include <fmt/format.h>

namespace caldera {

std::string SourceRef::str() const {
  if (file.empty()) return "";
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

}  // namespace caldera
