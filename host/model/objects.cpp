#include "host/model/objects.hpp"

#include <algorithm>

namespace caldera {

const char* to_string(PodPhase p) {
  switch (p) {
    case PodPhase::Pending: return "Pending";
    case PodPhase::Running: return "Running";
    case PodPhase::Succeeded: return "Succeeded";
    case PodPhase::Failed: return "Failed";
  }
  return "Unknown";
}

namespace {

// Volcano reads the preemptable flag from the annotation first, then the label; anything
// that does not parse as a bool reads as false, and a pod with neither is preemptable
// (GetPodPreemptable, pkg/scheduler/api/pod_info.go).
bool parse_bool_or_false(const std::string& v) {
  return v == "true" || v == "True" || v == "TRUE" || v == "1" || v == "t" || v == "T";
}

const std::string* annotation_or_label(const PodSpec& p, std::string_view key) {
  if (auto it = p.annotations.find(key); it != p.annotations.end()) return &it->second;
  if (auto it = p.labels.find(key); it != p.labels.end()) return &it->second;
  return nullptr;
}

// The pod's index as Volcano's GetPodIndexUnderTask and strconv.Atoi read it: the name
// split at '-' must have three parts or more, and the last one must be a number (an
// optional '+' sign allowed); else -1 (SCENARIOS.md: task order fallback).
int64_t name_index(const std::string& name) {
  size_t dashes = 0;
  for (char c : name) dashes += c == '-';
  if (dashes < 2) return -1;
  size_t i = name.rfind('-') + 1;
  if (i < name.size() && name[i] == '+') ++i;
  if (i >= name.size()) return -1;
  int64_t v = 0;
  for (; i < name.size(); ++i) {
    char c = name[i];
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
    if (v > (int64_t{1} << 50)) return -1;
  }
  return v;
}

}  // namespace

void digest_pod(PodSpec& p) {
  PodDigest& d = p.digest;
  d.key = p.ns + "/" + p.name;
  d.job_key = p.podgroup.empty() ? std::string() : p.ns + "/" + p.podgroup;
  // Volcano's task role is the volcano.sh/task-spec annotation; scenario files often write
  // it as a label, so the label is read too.
  const std::string* role = annotation_or_label(p, "volcano.sh/task-spec");
  d.role = role ? *role : std::string();
  const std::string* preemptable = annotation_or_label(p, "volcano.sh/preemptable");
  // Absent: preemptable (Volcano's GetPodPreemptable returns true when neither the
  // annotation nor the label is there).
  d.preemptable = preemptable ? parse_bool_or_false(*preemptable) : true;
  d.name_index = name_index(p.name);
  d.ready = true;
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

bool requirements_match(const std::vector<LabelRequirement>& reqs, const StringMap& labels) {
  for (const LabelRequirement& r : reqs) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool in =
        has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    if (r.op == "In") {
      if (!in) return false;
    } else if (r.op == "NotIn") {
      if (in) return false;  // a missing label satisfies NotIn, as in Kubernetes
    } else if (r.op == "Exists") {
      if (!has) return false;
    } else if (r.op == "DoesNotExist") {
      if (has) return false;
    } else {
      return false;
    }
  }
  return true;
}

std::vector<LabelRequirement> label_requirements(const api::Selector& s) {
  std::vector<LabelRequirement> out;
  for (const api::Requirement& r : s.requirements) {
    const char* op = r.op == CAL_SELECT_IN              ? "In"
                     : r.op == CAL_SELECT_NOT_IN        ? "NotIn"
                     : r.op == CAL_SELECT_EXISTS        ? "Exists"
                     : r.op == CAL_SELECT_DOES_NOT_EXIST ? "DoesNotExist"
                                                        : "";  // Gt / Lt: never in a label selector
    out.push_back({r.key, op, r.values});
  }
  return out;
}

}  // namespace caldera
