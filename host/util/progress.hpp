// A one-line progress display on stderr for long runs (simulations, trace replays):
// "  1234/10300 pods  850/s  12s left", redrawn in place at most 8 times a second, and only
// when stderr is a terminal (quiet in pipes, files and CI). Log lines written meanwhile
// through the program's logger (host/util/log.cpp) erase the line first and it is drawn
// again below them, so the two never mix on one line.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace caldera {

bool stderr_is_terminal();

class Progress {
 public:
  // `unit` names what is counted ("pods", "jobs finished").
  explicit Progress(std::string unit, bool enabled = stderr_is_terminal());
  ~Progress();  // erases a line still shown
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of `total`; the rate is done per second of wall time since the first update,
  // the time left what remains at that rate. `note` is appended ("t=340s").
  void update(size_t done, size_t total, const std::string& note = "");
  // The last figures drawn once more, then a newline: the line stays as the run's record.
  void finish();

  bool enabled() const { return enabled_; }
  // The text of the line ("  1234/10300 pods  850/s  12s left"), for tests.
  static std::string format(size_t done, size_t total, const std::string& unit, double seconds,
                            const std::string& note);

 private:
  std::string unit_;
  bool enabled_;
  bool started_ = false;
  std::chrono::steady_clock::time_point t0_{}, last_{};
  size_t done_ = 0, total_ = 0;
  std::string note_;
};

// For the logger's sink: erase the progress line before a log line, draw it again after.
// Both are no-ops when no line is shown. Called with the logger's lock held.
void progress_before_log();
void progress_after_log();

}  // namespace caldera
