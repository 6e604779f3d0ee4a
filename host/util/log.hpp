// Logging setup: spdlog to stderr, verbosity like Volcano's --v (0 info, 1..2 more detail,
// 3+ debug, and trace from 5).
#pragma once

namespace caldera {
void setup_logging(int verbosity);
}
