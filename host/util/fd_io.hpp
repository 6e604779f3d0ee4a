// Writing whole buffers to a descriptor (a pipe to a parent process), retrying short writes
// and EINTR: what a forked child uses to hand back its result.
#pragma once

#include <string_view>

namespace caldera {

// True when every byte was written; false when the descriptor failed (the reader is gone,
// the pipe broke): the caller decides whether that is worth saying.
bool write_all(int fd, std::string_view bytes);

}  // namespace caldera
