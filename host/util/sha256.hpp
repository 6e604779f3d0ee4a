// SHA-256 (FIPS 180-4), small and self-contained: used to fingerprint plugin files and
// config texts in status output, so a user can tell which build of a plugin is running.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace caldera {

// Incremental hasher, for data that arrives in pieces.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t len);
  // Lowercase hex digest; the hasher must not be updated afterwards.
  std::string hex_digest();

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

// Lowercase hex digest of the bytes.
std::string sha256_hex(std::string_view data);
// Lowercase hex digest of a file's bytes. Throws std::runtime_error when it cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace caldera
