// volcano-scheduler's cache dumper, on the same signals: SIGUSR1 writes the cache to a
// file in --cache-dump-dir (Caldera writes a scenario file: host/scenario/scenario_writer),
// SIGUSR2 logs every node and job. Both run on the loop's thread, between its other work,
// so the cache they read is whole. Off with --cache-dumper=false.
#pragma once

#include <uv.h>

#include <filesystem>
#include <functional>

namespace caldera {
class Cache;
}

namespace caldera::cli {

class DumpSignals {
 public:
  // `cache` is read when a signal comes.
  DumpSignals(uv_loop_t* loop, std::function<const Cache&()> cache,
              std::filesystem::path dump_dir, std::filesystem::path config_file);
  ~DumpSignals();
  DumpSignals(const DumpSignals&) = delete;
  DumpSignals& operator=(const DumpSignals&) = delete;

  // Stops listening (the loop's stop path calls it, so that the loop can end).
  void close();

 private:
  static void on_signal(uv_signal_t* h, int signum);
  void dump_file();
  void dump_log();

  uv_signal_t usr1_{}, usr2_{};
  bool open_ = false;
  std::function<const Cache&()> cache_;
  std::filesystem::path dir_, config_;
};

}  // namespace caldera::cli
