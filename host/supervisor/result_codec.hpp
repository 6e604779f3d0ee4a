// A session's result as plain bytes: how decisions travel from the session worker back to
// the supervisor (session_worker.hpp).
//
// The bytes are read by the process that commits them, and the worker that wrote them ran
// plugin code that may have scribbled over its memory; so the reader trusts nothing: every
// length is checked against what is left, every enum against its range, and the frame has
// a header, a declared length and a trailer. A spoiled result is refused whole with the
// byte offset and what was wrong there; nothing of it is committed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "host/scheduler/run_session.hpp"
#include "host/session/session.hpp"

namespace caldera {

// Everything a worker hands back: the decisions, the timings, and the warnings it said
// (Runtime::changed topics), so that a warning is still said once per change although
// each session runs in a new process.
struct WorkerResult {
  SessionResult result;
  SessionTimings timings;
  std::vector<std::pair<std::string, std::string>> said;
  // Error lines the session logged (a plugin's CAL_ERROR, a failed open()): how many, and
  // the first few. A reload trial with any is refused.
  uint64_t errors_logged = 0;
  std::vector<std::string> first_errors;
};

std::string encode_result(const WorkerResult& r);

// True when `bytes` starts with a whole frame (header, the body its length declares,
// trailer): the worker has said everything, whether or not it has exited yet.
bool frame_complete(std::string_view bytes);

// Throws ResultError (a std::runtime_error) naming the offset and the problem.
WorkerResult decode_result(std::string_view bytes);

// Binds handed over while the session still runs (SessionWorker::stream_binds): the binds
// of `r` from index `from` on, with their annotations and volume decisions, as a frame of
// their own that comes before the result's on the same pipe.
std::string encode_binds(const SessionResult& r, size_t from);
// The length of the binds frame `bytes` starts with once it is whole; 0 while it is not,
// or when `bytes` does not start with one (the result's frame follows the last).
size_t binds_frame_length(std::string_view bytes);
// The binds of one whole frame (binds, bind_annotations and volume_bindings of the
// SessionResult; nothing else set). Throws ResultError as decode_result does.
SessionResult decode_binds(std::string_view frame);

class ResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace caldera
