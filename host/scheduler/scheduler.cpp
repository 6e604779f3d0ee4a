#include "host/scheduler/scheduler.hpp"

#include <spdlog/spdlog.h>
#include <uv.h>

#include <csignal>
#include <cmath>

namespace caldera {

namespace {
struct LoopState {
  bool realtime = false;
  SchedulerLoop::Tick tick;
  std::function<void()> on_sighup;
  std::function<void()> on_stop;
  int exit_code = 0;
  bool stopping = false;
  uv_timer_t timer;
  uv_signal_t sigint, sigterm, sighup;
};

void close_all(LoopState* s) {
  if (s->stopping) return;
  s->stopping = true;
  if (s->on_stop) s->on_stop();
  uv_timer_stop(&s->timer);
  uv_signal_stop(&s->sigint);
  uv_signal_stop(&s->sigterm);
  uv_signal_stop(&s->sighup);
  for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&s->timer),
                         reinterpret_cast<uv_handle_t*>(&s->sigint),
                         reinterpret_cast<uv_handle_t*>(&s->sigterm),
                         reinterpret_cast<uv_handle_t*>(&s->sighup)})
    if (!uv_is_closing(h)) uv_close(h, nullptr);
}

void on_timer(uv_timer_t* t) {
  auto* s = static_cast<LoopState*>(t->data);
  if (s->stopping) return;
  double next = s->tick();
  if (next < 0 || s->stopping) {
    close_all(s);
    return;
  }
  // Virtual time: the next tick at once (the loop still turns, so signals get through).
  uint64_t ms = s->realtime ? static_cast<uint64_t>(std::llround(next * 1000.0)) : 0;
  uv_timer_start(&s->timer, on_timer, ms, 0);
}

void on_signal(uv_signal_t* h, int signum) {
  auto* s = static_cast<LoopState*>(h->data);
  if (signum == SIGHUP) {
    if (s->on_sighup) s->on_sighup();
    return;
  }
  // The tick in progress (if any) has finished: libuv runs callbacks one at a time, so
  // stopping here is always at a session boundary.
  spdlog::info("signal {}: stopping after the current session", signum);
  s->exit_code = 128 + signum;
  close_all(s);
}
}  // namespace

SchedulerLoop::SchedulerLoop() { uv_loop_init(&loop_); }

SchedulerLoop::~SchedulerLoop() {
  // Close anything left (a handle whose owner forgot it) so the loop can be closed.
  uv_walk(
      &loop_,
      [](uv_handle_t* h, void*) {
        if (!uv_is_closing(h)) uv_close(h, nullptr);
      },
      nullptr);
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
}

int SchedulerLoop::run(bool realtime, Tick tick, std::function<void()> on_sighup,
                       std::function<void()> on_stop) {
  LoopState s;
  s.realtime = realtime;
  s.tick = std::move(tick);
  s.on_sighup = std::move(on_sighup);
  s.on_stop = std::move(on_stop);
  uv_timer_init(&loop_, &s.timer);
  s.timer.data = &s;
  for (auto [h, sig] : {std::pair{&s.sigint, SIGINT}, std::pair{&s.sigterm, SIGTERM},
                        std::pair{&s.sighup, SIGHUP}}) {
    uv_signal_init(&loop_, h);
    h->data = &s;
    uv_signal_start(h, on_signal, sig);
  }
  uv_timer_start(&s.timer, on_timer, 0, 0);
  uv_run(&loop_, UV_RUN_DEFAULT);
  return s.exit_code;
}

}  // namespace caldera
