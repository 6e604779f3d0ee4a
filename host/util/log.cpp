#include "host/util/log.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <iterator>
#include <mutex>
#include <string_view>

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

// One JSON object per line (Kubernetes' --logging-format=json): the time in unix seconds,
// the verbosity the line needs, the level and the message, escaped as JSON strings are.
class JsonFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    using namespace std::chrono;
    const double ts =
        duration_cast<microseconds>(msg.time.time_since_epoch()).count() / 1e6;
    int v = 0;
    if (msg.level == spdlog::level::debug) v = 3;
    if (msg.level == spdlog::level::trace) v = 5;
    fmt::format_to(std::back_inserter(dest), "{{\"ts\":{:.6f},\"v\":{},\"level\":\"{}\",\"msg\":\"",
                   ts, v, spdlog::level::to_string_view(msg.level));
    for (const char c : std::string_view(msg.payload.data(), msg.payload.size())) {
      switch (c) {
        case '"': dest.append(std::string_view("\\\"")); break;
        case '\\': dest.append(std::string_view("\\\\")); break;
        case '\n': dest.append(std::string_view("\\n")); break;
        case '\r': dest.append(std::string_view("\\r")); break;
        case '\t': dest.append(std::string_view("\\t")); break;
        default:
          if (static_cast<unsigned char>(c) < 0x20)
            fmt::format_to(std::back_inserter(dest), "\\u{:04x}", static_cast<int>(c));
          else
            dest.push_back(c);
      }
    }
    dest.append(std::string_view("\"}\n"));
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

int g_verbosity = 0;

}  // namespace

int log_verbosity() { return g_verbosity; }

void setup_logging(int verbosity, LogFormat format) {
  g_verbosity = verbosity;
  auto logger = std::make_shared<spdlog::logger>("caldera", std::make_shared<ProgressAwareSink>());
  switch (format) {
    case LogFormat::Caldera: logger->set_pattern("%H:%M:%S.%e %^%L%$ %v"); break;
    // klog's header: level letter, mmdd hh:mm:ss.uuuuuu, the process id, the source, "]".
    case LogFormat::Text: logger->set_pattern("%L%m%d %H:%M:%S.%f %7P caldera] %v"); break;
    case LogFormat::Json: logger->set_formatter(std::make_unique<JsonFormatter>()); break;
  }
  spdlog::set_default_logger(logger);
  if (verbosity >= 5)
    spdlog::set_level(spdlog::level::trace);
  else if (verbosity >= 3)
    spdlog::set_level(spdlog::level::debug);
  else
    spdlog::set_level(spdlog::level::info);
}

}  // namespace caldera
