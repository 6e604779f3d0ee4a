#include "host/util/log.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>

#include "host/util/progress.hpp"

namespace caldera {

namespace {

// stderr with colours, around a progress line (host/util/progress.hpp): the line is erased
// before each log line and drawn again after it, so a long run's log scrolls above it.
class ProgressAwareSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  ProgressAwareSink() : inner_(std::make_shared<spdlog::sinks::stderr_color_sink_st>()) {}
  void set_pattern_(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter_(std::unique_ptr<spdlog::formatter> f) override {
    inner_->set_formatter(std::move(f));
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    progress_before_log();
    inner_->log(msg);
    progress_after_log();
  }
  void flush_() override { inner_->flush(); }

 private:
  std::shared_ptr<spdlog::sinks::stderr_color_sink_st> inner_;
};

}  // namespace

void setup_logging(int verbosity) {
  auto logger = std::make_shared<spdlog::logger>("caldera", std::make_shared<ProgressAwareSink>());
  logger->set_pattern("%H:%M:%S.%e %^%L%$ %v");
  spdlog::set_default_logger(logger);
  if (verbosity >= 5)
    spdlog::set_level(spdlog::level::trace);
  else if (verbosity >= 3)
    spdlog::set_level(spdlog::level::debug);
  else
    spdlog::set_level(spdlog::level::info);
}

}  // namespace caldera
