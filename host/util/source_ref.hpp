// A place in an input file, for error messages. Here, in the lowest layer, so the TOML
// layer (host/toml/) and the cluster objects (host/model/) share it.
#pragma once

#include <string>

namespace caldera {

// Where an object came from, for error messages: "conf/demo.toml:12:3".
struct SourceRef {
  std::string file;
  int line = 0;
  int column = 0;
  std::string str() const;  // "file:line:column", or "file", or "" when unknown
};

}  // namespace caldera
