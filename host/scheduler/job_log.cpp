#include "host/scheduler/job_log.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <vector>

#include "host/cache/cache.hpp"

namespace caldera {

namespace {

// The job a task belongs to: its PodGroup, or the pod itself.
std::string job_of(const std::string& task_uid, const Cache& cache) {
  if (const PodSpec* p = cache.pod(task_uid); p && !p->podgroup.empty())
    return p->ns + "/" + p->podgroup;
  return task_uid;
}

std::string nodes_text(std::vector<std::string> nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::string out;
  for (size_t i = 0; i < nodes.size() && i < 4; ++i) out += (i ? ", " : "") + nodes[i];
  if (nodes.size() > 4) out += fmt::format(", +{}", nodes.size() - 4);
  return out;
}

std::string clip(const std::string& s) {
  return s.size() <= 400 ? s : s.substr(0, 400) + "...";
}

}  // namespace

std::string JobLog::kind_of(const std::string& reason) {
  std::string out;
  out.reserve(reason.size());
  for (size_t i = 0; i < reason.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(reason[i]))) {
      while (i + 1 < reason.size() &&
             (std::isdigit(static_cast<unsigned char>(reason[i + 1])) || reason[i + 1] == '.'))
        ++i;
      out += '#';
    } else {
      out += reason[i];
    }
  }
  return out;
}

void JobLog::session(uint64_t index, const std::string& head, const SessionResult& r,
                     const Cache& cache, double now, double seconds) {
  const std::string at = head.empty() ? "" : head + " ";
  struct Change {
    int bound = 0, evicted = 0, pending = 0;
    std::vector<std::string> nodes;
    std::string first_reason;
  };
  std::map<std::string, Change> jobs;
  for (const auto& [uid, node] : r.binds) {
    Change& c = jobs[job_of(uid, cache)];
    ++c.bound;
    c.nodes.push_back(node);
  }
  for (const std::string& uid : r.evictions) ++jobs[job_of(uid, cache)].evicted;
  for (const auto& [uid, why] : r.pending) {
    Change& c = jobs[job_of(uid, cache)];
    if (c.pending++ == 0) c.first_reason = why;
  }
  spdlog::debug("{}session {}: bound {}, evicted {}, pipelined {}, {} task(s) of {} job(s) "
                "pending ({:.3f}s)",
                at, index, r.binds.size(), r.evictions.size(), r.pipelined.size(),
                r.pending.size(),
                std::count_if(jobs.begin(), jobs.end(), [](const auto& j) { return j.second.pending > 0; }),
                seconds);

  std::set<std::string> live;
  for (const auto& [job, phase] : r.podgroup_phases) live.insert(job);
  for (const auto& [job, c] : jobs) live.insert(job);
  for (const std::string& job : live) {
    Seen& seen = jobs_[job];
    const auto ch = jobs.find(job);
    const Change* c = ch == jobs.end() ? nullptr : &ch->second;
    const auto ph = r.podgroup_phases.find(job);
    const JobPhase phase = ph == r.podgroup_phases.end() ? seen.phase : ph->second;
    // Phase changes that follow from what was logged already (admitted; running once its
    // binds are seen) are at -v 3; the others (a job that stops running, completes) say so.
    const bool expected = (seen.phase == JobPhase::Pending && phase == JobPhase::Inqueue) ||
                          (phase == JobPhase::Running && seen.bound);
    if (c != nullptr && c->bound > 0) {
      spdlog::info("{}{}: bound {} task{} on {}", at, job, c->bound, c->bound == 1 ? "" : "s",
                   nodes_text(c->nodes));
      seen.bound = true;
    } else if (phase != seen.phase) {
      if (expected)
        spdlog::debug("{}{}: {} -> {}", at, job, to_string(seen.phase), to_string(phase));
      else
        spdlog::info("{}{}: {} -> {}", at, job, to_string(seen.phase), to_string(phase));
    }
    if (c != nullptr && c->evicted > 0)
      spdlog::info("{}{}: {} task{} evicted", at, job, c->evicted, c->evicted == 1 ? "" : "s");
    seen.phase = phase;

    // Why it waits: the job's own reason (gang, queue), else its first task's.
    std::string why;
    if (auto jp = r.job_pending.find(job); jp != r.job_pending.end())
      why = jp->second;
    else if (c != nullptr && c->pending > 0)
      why = fmt::format("{} task{} pending: {}", c->pending, c->pending == 1 ? "" : "s",
                        c->first_reason);
    if (why.empty()) {
      seen.wait_kind.clear();
      seen.wait_logged = -1;
      continue;
    }
    std::string kind = kind_of(why);
    const bool starts = seen.wait_kind.empty();
    if (starts || (kind != seen.wait_kind && now - seen.wait_logged >= kRelogSeconds)) {
      spdlog::info("{}{} waits: {}", at, job, clip(why));
      seen.wait_kind = std::move(kind);
      seen.wait_logged = now;
    } else {
      spdlog::debug("{}{} waits: {}", at, job, clip(why));
    }
  }
  // Jobs the session no longer names are gone (finished, deleted): forgotten.
  for (auto it = jobs_.begin(); it != jobs_.end();)
    it = live.count(it->first) ? std::next(it) : jobs_.erase(it);
}

}  // namespace caldera
