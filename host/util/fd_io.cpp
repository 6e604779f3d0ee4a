#include "host/util/fd_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace caldera {

bool write_all(int fd, std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

bool write_file_atomic(const std::filesystem::path& path, std::string_view bytes, mode_t mode,
                       std::string* error) {
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp{}", ::getpid());
  auto fail = [&](const std::filesystem::path& at) {
    if (error) *error = fmt::format("{}: {}", at.string(), std::strerror(errno));
    return false;
  };
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
  int fd = ::open(tmp.c_str(), flags, mode);
  if (fd < 0 && errno == EEXIST) {
    // Left by a run that died, or planted: whatever it is (a link, a FIFO), it goes.
    if (::unlink(tmp.c_str()) != 0) return fail(tmp);
    fd = ::open(tmp.c_str(), flags, mode);
  }
  if (fd < 0) return fail(tmp);
  const bool ok = write_all(fd, bytes);
  const int write_errno = errno;
  if (::close(fd) != 0 || !ok) {
    errno = ok ? errno : write_errno;
    fail(tmp);
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    fail(path);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace caldera
