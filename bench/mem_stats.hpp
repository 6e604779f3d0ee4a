// Process memory readings for the benchmark: the heap in use (glibc mallinfo2), the
// resident set now and at its peak (/proc/self/status VmRSS, VmHWM), getrusage's
// ru_maxrss, and a reset of the peak so that each case measures its own.
#pragma once

#include <cstdint>

namespace caldera::bench {

// Bytes handed out by malloc and not freed, over every arena, mmapped chunks included
// (mallinfo2 uordblks + hblkhd). Chunk headers and alignment padding count: they are
// memory the records really cost.
int64_t heap_in_use();

// VmRSS and VmHWM from /proc/self/status, in bytes; 0 when the file cannot be read.
int64_t rss_now();
uint64_t rss_peak();

// getrusage(RUSAGE_SELF).ru_maxrss in bytes (Linux reports KiB).
uint64_t maxrss_rusage();

// Resets VmHWM to the current RSS (writes "5" to /proc/self/clear_refs, Linux >= 4.0).
// Returns false when the kernel refuses; the peak then covers the whole process life.
bool reset_rss_peak();

}  // namespace caldera::bench
