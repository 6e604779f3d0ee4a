// SHA-256 through OpenSSL's EVP interface. No Volcano counterpart: Volcano has no plugin
// files to fingerprint (its plugins are compiled in).
#include "host/util/sha256.hpp"

#include <openssl/evp.h>

#include <fstream>
#include <new>
#include <stdexcept>

namespace caldera {

struct Sha256::Context {
  EVP_MD_CTX* md = nullptr;
  ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  ctx_->md = EVP_MD_CTX_new();
  // Only allocation can fail here (SHA-256 is always built into libcrypto).
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
    throw std::bad_alloc();
}

Sha256::~Sha256() = default;

void Sha256::update(const void* data, size_t len) {
  if (len == 0) return;  // `data` may then be null
  if (EVP_DigestUpdate(ctx_->md, data, len) != 1) throw std::runtime_error("sha256: update failed");
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_->md, digest, &n) != 1)
    throw std::runtime_error("sha256: final failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (unsigned int i = 0; i < n; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xf];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 s;
  s.update(data.data(), data.size());
  return s.hex_digest();
}

std::string sha256_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open for reading");
  Sha256 s;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    s.update(buf, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw std::runtime_error(path.string() + ": read error");
  return s.hex_digest();
}

}  // namespace caldera
