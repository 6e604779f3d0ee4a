#include "host/model/objects.hpp"

#include <fmt/format.h>

namespace caldera {

std::string SourceRef::str() const {
  if (file.empty()) return "";
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

const char* to_string(PodPhase p) {
  switch (p) {
    case PodPhase::Pending: return "Pending";
    case PodPhase::Running: return "Running";
    case PodPhase::Succeeded: return "Succeeded";
    case PodPhase::Failed: return "Failed";
  }
  return "Unknown";
}

const char* to_string(JobPhase p) {
  switch (p) {
    case JobPhase::Pending: return "Pending";
    case JobPhase::Inqueue: return "Inqueue";
    case JobPhase::Running: return "Running";
    case JobPhase::Unknown: return "Unknown";
    case JobPhase::Completed: return "Completed";
  }
  return "Unknown";
}

std::optional<JobPhase> job_phase_from_string(const std::string& s) {
  if (s == "Pending") return JobPhase::Pending;
  if (s == "Inqueue") return JobPhase::Inqueue;
  if (s == "Running") return JobPhase::Running;
  if (s == "Unknown") return JobPhase::Unknown;
  if (s == "Completed") return JobPhase::Completed;
  return std::nullopt;
}

const char* to_string(QueueState s) {
  switch (s) {
    case QueueState::Open: return "Open";
    case QueueState::Closed: return "Closed";
    case QueueState::Closing: return "Closing";
  }
  return "Open";
}

}  // namespace caldera
