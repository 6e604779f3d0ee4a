// Percent-encoding of a URL query value (RFC 3986: unreserved characters kept, every other
// byte as %XX): resourceVersions and continue tokens for the API server, a pod's
// "namespace/name" for /debug/explain.
#pragma once

#include <fmt/format.h>

#include <cctype>
#include <string>

namespace caldera {

inline std::string url_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

}  // namespace caldera
