// SHA-256 fingerprints of plugin files and config texts in status output, so a user can tell
// which build of a plugin is running. The digest is OpenSSL's (libcrypto): it uses the CPU's
// SHA instructions, so fingerprinting every plugin at each load costs little even in an
// instrumented (sanitizer) build, where a hand-written loop was most of a session's time.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace caldera {

// Incremental hasher, for data that arrives in pieces.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t len);
  // Lowercase hex digest; the hasher must not be updated afterwards.
  std::string hex_digest();

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

// Lowercase hex digest of the bytes.
std::string sha256_hex(std::string_view data);
// Lowercase hex digest of a file's bytes. Throws std::runtime_error when it cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace caldera
