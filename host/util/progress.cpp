#include "host/util/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>

namespace caldera {

namespace {

// The line on screen, shared with the log sink. One progress line at a time.
std::mutex g_mutex;
bool g_shown = false;
std::string g_text;

void draw_locked() {
  std::fprintf(stderr, "\r\033[K%s", g_text.c_str());
  std::fflush(stderr);
  g_shown = true;
}

void erase_locked() {
  if (!g_shown) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

}  // namespace

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

std::string Progress::format(size_t done, size_t total, const std::string& unit, double seconds,
                             const std::string& note) {
  double rate = seconds > 0 ? done / seconds : 0;
  std::string s = fmt::format("  {}/{} {}  {:.0f}/s", done, total, unit, rate);
  if (done < total && rate > 0) s += fmt::format("  {:.0f}s left", (total - done) / rate);
  if (!note.empty()) s += "  " + note;
  return s;
}

Progress::Progress(std::string unit, bool enabled) : unit_(std::move(unit)), enabled_(enabled) {}

Progress::~Progress() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  erase_locked();
  g_shown = false;
}

void Progress::update(size_t done, size_t total, const std::string& note) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  bool draw = !started_ || now - last_ >= std::chrono::milliseconds(125);
  if (!started_) started_ = true, t0_ = now;
  done_ = done, total_ = total, note_ = note;
  std::lock_guard<std::mutex> lock(g_mutex);
  // The text is kept current, so a log line redraws the latest figures; the terminal is
  // written at most 8 times a second.
  g_text = format(done, total, unit_, std::chrono::duration<double>(now - t0_).count(), note);
  if (draw) {
    last_ = now;
    draw_locked();
  }
}

void Progress::finish() {
  if (!enabled_ || !started_) return;
  auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_text = format(done_, total_, unit_, std::chrono::duration<double>(now - t0_).count(), note_);
  draw_locked();
  std::fputc('\n', stderr);
  std::fflush(stderr);
  g_shown = false;
  started_ = false;
}

void progress_before_log() {
  std::lock_guard<std::mutex> lock(g_mutex);
  erase_locked();
}

void progress_after_log() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_shown) draw_locked();
}

}  // namespace caldera
