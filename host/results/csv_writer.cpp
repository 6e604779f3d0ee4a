#include "host/results/csv_writer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace caldera {

namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string num(double v) {
  v = tidy(v);
  if (v == std::floor(v) && std::abs(v) < 1e18) return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);
}

std::string time_or_empty(bool known, double v) { return known ? num(v) : ""; }

std::string summary_csv(const RunResults& r) {
  const Summary m = summarize(r);
  std::string s = "metric,value\n";
  auto row = [&](const char* k, const std::string& v) { s += fmt::format("{},{}\n", k, v); };
  row("sessions", std::to_string(m.sessions));
  row("binds", std::to_string(m.binds));
  row("evictions", std::to_string(m.evictions));
  row("pipelined", std::to_string(m.pipelined));
  row("unschedulable_attempts", std::to_string(m.unschedulable));
  row("jobs_total", std::to_string(m.jobs_total));
  row("jobs_arrived", std::to_string(m.jobs_arrived));
  row("jobs_started", std::to_string(m.jobs_started));
  row("jobs_finished", std::to_string(m.jobs_finished));
  row("jobs_failed", std::to_string(m.jobs_failed));
  row("mean_wait", time_or_empty(m.jobs_started > 0, m.mean_wait));
  row("max_wait", time_or_empty(m.jobs_started > 0, m.max_wait));
  row("mean_completion", time_or_empty(m.jobs_finished > 0, m.mean_completion));
  row("max_completion", time_or_empty(m.jobs_finished > 0, m.max_completion));
  row("end_time", num(m.end_time));
  return s;
}

std::string jobs_csv(const RunResults& r) {
  // New columns go last (`failed`, then `evictions`) so that readers of the earlier
  // columns by position keep working.
  std::string s =
      "job,queue,pods,min_member,arrival,started,finished,wait,completion,run_time,failed,"
      "evictions\n";
  for (const auto& j : r.jobs)
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", field(j.key), field(j.queue), j.pods,
                     j.min_member, num(j.arrival), time_or_empty(j.has_started(), j.started),
                     time_or_empty(j.has_finished(), j.finished),
                     time_or_empty(j.has_started(), j.wait()),
                     time_or_empty(j.has_finished(), j.completion()),
                     time_or_empty(j.has_finished(), j.run_time()),
                     time_or_empty(j.has_failed(), j.failed), j.evictions.size());
  return s;
}

std::string sessions_csv(const RunResults& r) {
  std::string s =
      "session,time,binds,evictions,pipelined,unschedulable,running_pods,pending_pods\n";
  for (const auto& x : r.sessions)
    s += fmt::format("{},{},{},{},{},{},{},{}\n", x.session, num(x.time), x.binds, x.evictions,
                     x.pipelined, x.unschedulable, x.running_pods, x.pending_pods);
  return s;
}

std::string queue_shares_csv(const RunResults& r) {
  const size_t R = r.resources.size();
  std::vector<double> totals(R);
  for (size_t k = 0; k < R; ++k) totals[k] = r.cluster_allocatable(k);
  // deserved: what the fair-share plugin worked out (empty when none reported in the run).
  std::string s =
      "session,time,queue,resource,allocated,cluster_allocatable,share,dominant_share,deserved\n";
  for (size_t i = 0; i < r.sessions.size(); ++i)
    for (const auto& [name, q] : r.queues) {
      std::string dom = num(r.dominant_share(q, i));
      for (size_t k = 0; k < R; ++k) {
        const std::string& res = r.resources[k];
        double a = r.queue_allocated(q, i, k);
        s += fmt::format("{},{},{},{},{},{},{},{},{}\n", r.sessions[i].session,
                         num(r.sessions[i].time), field(name), field(res),
                         num(user_amount(res, a)), num(user_amount(res, totals[k])),
                         num(totals[k] > 0 ? a / totals[k] : 0), dom,
                         r.deserved_reported ? num(user_amount(res, q.deserved[i * R + k]))
                                             : std::string());
      }
    }
  return s;
}

std::string cluster_utilisation_csv(const RunResults& r) {
  const size_t R = r.resources.size();
  const double cards = r.cluster_gpu_cards();
  std::string s = "session,time,resource,used,allocatable,utilisation\n";
  for (size_t i = 0; i < r.sessions.size(); ++i) {
    std::string head = fmt::format("{},{}", r.sessions[i].session, num(r.sessions[i].time));
    for (size_t k = 0; k < R; ++k) {
      const std::string& res = r.resources[k];
      double total = r.cluster_allocatable(k), used = r.cluster_used(i, k);
      s += fmt::format("{},{},{},{},{}\n", head, field(res), num(user_amount(res, used)),
                       num(user_amount(res, total)), num(total > 0 ? used / total : 0));
    }
    if (cards > 0) {
      double used = r.cluster_gpu_used(i);
      s += fmt::format("{},{},{},{},{}\n", head, kGpuCards, num(used), num(cards), num(used / cards));
    }
  }
  return s;
}

std::string node_utilisation_csv(const RunResults& r) {
  const size_t R = r.resources.size();
  std::string s = "session,time,node,resource,used,allocatable,utilisation\n";
  for (size_t i = 0; i < r.sessions.size(); ++i) {
    std::string head = fmt::format("{},{}", r.sessions[i].session, num(r.sessions[i].time));
    for (const auto& [name, n] : r.nodes) {
      for (size_t k = 0; k < R; ++k) {
        if (n.allocatable[k] <= 0) continue;
        const std::string& res = r.resources[k];
        double used = n.used[i * R + k];
        s += fmt::format("{},{},{},{},{},{}\n", head, field(name), field(res),
                         num(user_amount(res, used)), num(user_amount(res, n.allocatable[k])),
                         num(used / n.allocatable[k]));
      }
      if (n.gpu_cards > 0)
        s += fmt::format("{},{},{},{},{},{}\n", head, field(name), kGpuCards, num(n.gpu_used[i]),
                         num(n.gpu_cards), num(n.gpu_used[i] / n.gpu_cards));
    }
  }
  return s;
}

}  // namespace

std::vector<CsvFile> results_csv(const RunResults& r) {
  return {{"summary.csv", summary_csv(r)},
          {"jobs.csv", jobs_csv(r)},
          {"sessions.csv", sessions_csv(r)},
          {"queue_shares.csv", queue_shares_csv(r)},
          {"cluster_utilisation.csv", cluster_utilisation_csv(r)},
          {"node_utilisation.csv", node_utilisation_csv(r)}};
}

}  // namespace caldera
