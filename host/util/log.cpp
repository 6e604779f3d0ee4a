#include "host/util/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace caldera {

void setup_logging(int verbosity) {
  auto logger = spdlog::stderr_color_mt("caldera");
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
