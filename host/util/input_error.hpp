// The one exception type for bad input. host/util is the lowest layer of the host: this
// header includes nothing of host/, so every layer can throw it without including the one
// that reads the files (host/toml/reader.hpp documents the message format).
#pragma once

#include <stdexcept>

namespace caldera {

// Any error in the user's input: config, scenario, workload, trace, plugin file. what() is
// the full message, always naming the file (with line and column where there are some)
// and the object.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace caldera
