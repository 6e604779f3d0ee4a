#include "host/results/json_writer.hpp"

#include <nlohmann/json.hpp>

namespace caldera {

namespace {

using Json = nlohmann::ordered_json;

Json time_or_null(bool known, double v) { return known ? Json(tidy(v)) : Json(nullptr); }

}  // namespace

std::string results_json(const RunResults& r) {
  const Summary m = summarize(r);
  const size_t S = r.sessions.size(), R = r.resources.size();
  const bool gpu = r.cluster_gpu_cards() > 0;
  Json j;
  j["format"] = "caldera-results/1";
  j["run"] = {{"config", r.config},       {"cluster", r.cluster}, {"workload", r.workload},
              {"period", tidy(r.period)}, {"end_time", tidy(r.end_time)}};
  j["counts"] = {{"sessions", m.sessions},
                 {"binds", m.binds},
                 {"evictions", m.evictions},
                 {"pipelined", m.pipelined},
                 {"unschedulable_attempts", m.unschedulable},
                 {"jobs_total", m.jobs_total},
                 {"jobs_arrived", m.jobs_arrived},
                 {"jobs_started", m.jobs_started},
                 {"jobs_finished", m.jobs_finished},
                 {"jobs_failed", m.jobs_failed}};
  j["times"] = {{"mean_wait", time_or_null(m.jobs_started > 0, m.mean_wait)},
                {"max_wait", time_or_null(m.jobs_started > 0, m.max_wait)},
                {"mean_completion", time_or_null(m.jobs_finished > 0, m.mean_completion)},
                {"max_completion", time_or_null(m.jobs_finished > 0, m.max_completion)}};

  Json res = Json::object();
  for (size_t k = 0; k < R; ++k) {
    const std::string& name = r.resources[k];
    res[name] = {{"unit", user_unit(name)},
                 {"allocatable", tidy(user_amount(name, r.cluster_allocatable(k)))}};
  }
  if (gpu) res[kGpuCards] = {{"unit", "cards"}, {"allocatable", tidy(r.cluster_gpu_cards())}};
  j["resources"] = std::move(res);

  Json waits = Json::object();
  for (const auto& [queue, p] : wait_percentiles(r))
    waits[queue] = {{"started", p.started},
                    {"p50", time_or_null(p.started > 0, p.p50)},
                    {"p95", time_or_null(p.started > 0, p.p95)},
                    {"p99", time_or_null(p.started > 0, p.p99)},
                    {"max", time_or_null(p.started > 0, p.max)}};
  j["wait_by_queue"] = std::move(waits);

  Json jobs = Json::array();
  for (const auto& job : r.jobs) {
    Json evictions = Json::array();
    for (const JobEviction& e : job.evictions)
      evictions.push_back({{"time", tidy(e.time)}, {"pod", e.pod}, {"reason", e.reason}});
    jobs.push_back({{"job", job.key},
                    {"queue", job.queue},
                    {"pods", job.pods},
                    {"min_member", job.min_member},
                    {"arrival", tidy(job.arrival)},
                    {"started", time_or_null(job.has_started(), job.started)},
                    {"finished", time_or_null(job.has_finished(), job.finished)},
                    {"wait", time_or_null(job.has_started(), job.wait())},
                    {"completion", time_or_null(job.has_finished(), job.completion())},
                    {"run_time", time_or_null(job.has_finished(), job.run_time())},
                    {"failed", time_or_null(job.has_failed(), job.failed)},
                    {"evictions", std::move(evictions)}});
  }
  j["jobs"] = std::move(jobs);

  Json sessions = Json::object();
  auto column = [&](const char* name, auto get) {
    Json a = Json::array();
    for (const auto& s : r.sessions) a.push_back(get(s));
    sessions[name] = std::move(a);
  };
  column("session", [](const SessionRecord& s) { return s.session; });
  column("time", [](const SessionRecord& s) { return tidy(s.time); });
  column("binds", [](const SessionRecord& s) { return s.binds; });
  column("evictions", [](const SessionRecord& s) { return s.evictions; });
  column("pipelined", [](const SessionRecord& s) { return s.pipelined; });
  column("unschedulable", [](const SessionRecord& s) { return s.unschedulable; });
  column("running_pods", [](const SessionRecord& s) { return s.running_pods; });
  column("pending_pods", [](const SessionRecord& s) { return s.pending_pods; });
  j["sessions"] = std::move(sessions);

  Json queues = Json::object();
  for (const auto& [name, q] : r.queues) {
    Json dom = Json::array(), dom_res = Json::array();
    Json alloc = Json::object(), share = Json::object();
    for (size_t k = 0; k < R; ++k) {
      Json a = Json::array(), sh = Json::array();
      for (size_t s = 0; s < S; ++s) {
        a.push_back(tidy(user_amount(r.resources[k], r.queue_allocated(q, s, k))));
        sh.push_back(tidy(r.queue_share(q, s, k)));
      }
      alloc[r.resources[k]] = std::move(a);
      share[r.resources[k]] = std::move(sh);
    }
    for (size_t s = 0; s < S; ++s) {
      int which = -1;
      dom.push_back(tidy(r.dominant_share(q, s, &which)));
      dom_res.push_back(which < 0 ? Json(nullptr) : Json(r.resources[which]));
    }
    queues[name] = {{"dominant_share", std::move(dom)},
                    {"dominant_resource", std::move(dom_res)},
                    {"allocated", std::move(alloc)},
                    {"share", std::move(share)}};
    if (r.deserved_reported) {
      Json des = Json::object(), des_share = Json::array();
      for (size_t k = 0; k < R; ++k) {
        Json a = Json::array();
        for (size_t s = 0; s < S; ++s)
          a.push_back(tidy(user_amount(r.resources[k], q.deserved[s * R + k])));
        des[r.resources[k]] = std::move(a);
      }
      for (size_t s = 0; s < S; ++s) des_share.push_back(tidy(r.deserved_share(q, s)));
      queues[name]["deserved"] = std::move(des);
      queues[name]["deserved_share"] = std::move(des_share);
    }
  }
  j["queues"] = std::move(queues);

  Json cluster = Json::object();
  for (size_t k = 0; k < R; ++k) {
    double total = r.cluster_allocatable(k);
    Json u = Json::array();
    for (size_t s = 0; s < S; ++s) u.push_back(tidy(total > 0 ? r.cluster_used(s, k) / total : 0));
    cluster[r.resources[k]] = std::move(u);
  }
  if (gpu) {
    Json u = Json::array();
    for (size_t s = 0; s < S; ++s) u.push_back(tidy(r.cluster_gpu_used(s) / r.cluster_gpu_cards()));
    cluster[kGpuCards] = std::move(u);
  }
  j["cluster_utilisation"] = std::move(cluster);

  Json nodes = Json::object();
  for (const auto& [name, n] : r.nodes) {
    Json alloc = Json::object(), used = Json::object(), util = Json::object();
    for (size_t k = 0; k < R; ++k) {
      if (n.allocatable[k] <= 0) continue;  // the node has none: no utilisation
      const std::string& res = r.resources[k];
      alloc[res] = tidy(user_amount(res, n.allocatable[k]));
      Json a = Json::array(), u = Json::array();
      for (size_t s = 0; s < S; ++s) {
        a.push_back(tidy(user_amount(res, n.used[s * R + k])));
        u.push_back(tidy(n.used[s * R + k] / n.allocatable[k]));
      }
      used[res] = std::move(a);
      util[res] = std::move(u);
    }
    if (n.gpu_cards > 0) {
      alloc[kGpuCards] = tidy(n.gpu_cards);
      Json a = Json::array(), u = Json::array();
      for (size_t s = 0; s < S; ++s) {
        a.push_back(tidy(n.gpu_used[s]));
        u.push_back(tidy(n.gpu_used[s] / n.gpu_cards));
      }
      used[kGpuCards] = std::move(a);
      util[kGpuCards] = std::move(u);
    }
    nodes[name] = {{"allocatable", std::move(alloc)}, {"used", std::move(used)},
                   {"utilisation", std::move(util)}};
  }
  j["nodes"] = std::move(nodes);
  return j.dump() + "\n";  // compact: the per-session arrays are long; `jq .` prettifies
}

}  // namespace caldera
