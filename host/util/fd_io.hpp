// Writing whole buffers to a descriptor (a pipe to a parent process), retrying short writes
// and EINTR: what a forked child uses to hand back its result.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace caldera {

// True when every byte was written; false when the descriptor failed (the reader is gone,
// the pipe broke): the caller decides whether that is worth saying.
bool write_all(int fd, std::string_view bytes);

// Replaces `path` with `bytes` so that a reader sees the old file or the new one, never
// half of one: written to "<path>.tmp<pid>" and renamed over. Safe in a folder others can
// write to: the temporary file is created anew (O_EXCL, O_NOFOLLOW: a link or a FIFO
// planted under its name is removed, never followed or opened), with `mode` (less the
// umask). False, with why in *error, when it cannot.
bool write_file_atomic(const std::filesystem::path& path, std::string_view bytes, mode_t mode,
                       std::string* error);

}  // namespace caldera
