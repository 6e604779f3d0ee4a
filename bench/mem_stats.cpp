#include "bench/mem_stats.hpp"

#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace caldera::bench {

namespace {
// A "Key:   1234 kB" line of /proc/self/status, in bytes.
uint64_t status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t klen = std::strlen(key);
  while (std::getline(in, line)) {
    if (line.compare(0, klen, key) != 0 || line.size() <= klen || line[klen] != ':') continue;
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str() + klen + 1, "%llu", &kib) == 1) return kib * 1024;
  }
  return 0;
}
}  // namespace

int64_t heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
}

int64_t rss_now() { return static_cast<int64_t>(status_kib("VmRSS")); }
uint64_t rss_peak() { return status_kib("VmHWM"); }

uint64_t maxrss_rusage() {
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

bool reset_rss_peak() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

}  // namespace caldera::bench
