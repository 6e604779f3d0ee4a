#include "host/scheduler/scheduler.hpp"

#include <spdlog/spdlog.h>
#include <uv.h>

#include <csignal>
#include <cmath>

namespace caldera {

namespace {
struct LoopState {
  bool realtime = false;
  SchedulerLoop::AsyncTick tick;
  std::function<void()> on_sighup;
  std::function<void()> on_stop;
  int exit_code = 0;
  bool stopping = false;
  uint64_t generation = 0;  // bumped per tick: a late `next` of an old tick is ignored
  uv_timer_t timer;
  // "Next tick now" goes through an idle handle, not a zero timer: libuv (1.44, Debian
  // 12) runs a timer re-armed with no delay from its own callback again in the same pass
  // and never polls, so back-to-back virtual-time sessions starved signal handling.
  uv_idle_t idle;
  uv_signal_t sigint, sigterm, sighup;
};

void close_all(LoopState* s) {
  if (s->stopping) return;
  s->stopping = true;
  if (s->on_stop) s->on_stop();
  uv_timer_stop(&s->timer);
  uv_idle_stop(&s->idle);
  uv_signal_stop(&s->sigint);
  uv_signal_stop(&s->sigterm);
  uv_signal_stop(&s->sighup);
  for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&s->timer),
                         reinterpret_cast<uv_handle_t*>(&s->idle),
                         reinterpret_cast<uv_handle_t*>(&s->sigint),
                         reinterpret_cast<uv_handle_t*>(&s->sigterm),
                         reinterpret_cast<uv_handle_t*>(&s->sighup)})
    if (!uv_is_closing(h)) uv_close(h, nullptr);
}

void run_tick(LoopState* s);

void on_timer(uv_timer_t* t) { run_tick(static_cast<LoopState*>(t->data)); }

void on_idle(uv_idle_t* i) {
  uv_idle_stop(i);
  run_tick(static_cast<LoopState*>(i->data));
}

void run_tick(LoopState* s) {
  if (s->stopping) return;
  const uint64_t gen = ++s->generation;
  s->tick([s, gen](double next) {
    if (s->stopping || gen != s->generation) return;
    if (next < 0) {
      close_all(s);
      return;
    }
    const uint64_t ms = s->realtime ? static_cast<uint64_t>(std::llround(next * 1000.0)) : 0;
    if (ms == 0)
      uv_idle_start(&s->idle, on_idle);
    else
      uv_timer_start(&s->timer, on_timer, ms, 0);
  });
}

void on_signal(uv_signal_t* h, int signum) {
  auto* s = static_cast<LoopState*>(h->data);
  if (signum == SIGHUP) {
    if (s->on_sighup) s->on_sighup();
    return;
  }
  // libuv runs callbacks one at a time: a session run in process has ended; one in a
  // worker is dropped whole by on_stop (its decisions were never committed).
  spdlog::info("signal {}: stopping", signum);
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
  return run_async(
      realtime, [tick = std::move(tick)](std::function<void(double)> next) { next(tick()); },
      std::move(on_sighup), std::move(on_stop));
}

int SchedulerLoop::run_async(bool realtime, AsyncTick tick, std::function<void()> on_sighup,
                             std::function<void()> on_stop) {
  LoopState s;
  s.realtime = realtime;
  s.tick = std::move(tick);
  s.on_sighup = std::move(on_sighup);
  s.on_stop = std::move(on_stop);
  uv_timer_init(&loop_, &s.timer);
  s.timer.data = &s;
  uv_idle_init(&loop_, &s.idle);
  s.idle.data = &s;
  for (auto [h, sig] : {std::pair{&s.sigint, SIGINT}, std::pair{&s.sigterm, SIGTERM},
                        std::pair{&s.sighup, SIGHUP}}) {
    uv_signal_init(&loop_, h);
    h->data = &s;
    uv_signal_start(h, on_signal, sig);
  }
  uv_idle_start(&s.idle, on_idle);
  uv_run(&loop_, UV_RUN_DEFAULT);
  return s.exit_code;
}

}  // namespace caldera
