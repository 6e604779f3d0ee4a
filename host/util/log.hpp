// Logging setup: spdlog to stderr, verbosity like Volcano's --v (0 info, 1..2 more detail,
// 3+ debug, and trace from 5), in one of three layouts:
//   caldera (the default)  "22:48:18.123 I message"
//   text                   klog's: "I1205 22:48:18.123456   12345 caldera] message"
//   json                   one JSON object a line, as Kubernetes components write with
//                          --logging-format=json: {"ts":1764974898.123456,"v":0,
//                          "level":"info","msg":"message"}
#pragma once

#include <string>

namespace caldera {
enum class LogFormat { Caldera, Text, Json };
void setup_logging(int verbosity, LogFormat format = LogFormat::Caldera);

// The -v level given (0 when none), for what kube-scheduler logs by level rather than by
// severity: every plugin's score of every node from 5 (kLogScores), every node's filter
// verdict from 10 (kLogVerdicts). Session workers inherit it.
int log_verbosity();
inline constexpr int kLogScores = 5;
inline constexpr int kLogVerdicts = 10;
}
