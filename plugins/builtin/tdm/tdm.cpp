// tdm: time-division multiplexing of revocable nodes, as Volcano's
// pkg/scheduler/plugins/tdm/tdm.go does it (time windows and budgets in tdm_math.hpp).
//
// A node labelled volcano.sh/revocable-zone=<zone> is lent to preemptable work while the
// zone's window (argument tdm.revocable-zone.<zone> = "10:00-21:00") is active, and taken
// back when it closes:
//   predicate     a revocable node takes only tasks that may use revocable zones (the pod
//                 annotation volcano.sh/revocable-zone = "*", or volcano.sh/preemptable
//                 annotated true), and only while its zone is configured and active
//   node_order    100 for such a task on an active revocable node, else 0
//   preemptable   a preemptable task or one that may use revocable zones preempts nobody;
//                 others may evict Running preemptable tasks on non-revocable nodes, at most
//                 each job's budget (maxVictims)
//   victim_tasks  (the shuffle action) once per tdm.evict.period: the Running preemptable
//                 tasks on the nodes of every zone whose window is closed, at most each
//                 job's budget per zone
//   job_order     non-preemptable jobs first (the PodGroup's volcano.sh/preemptable)
//   job_pipelined permit when ready + waiting tasks reach minAvailable, else reject
//   job_starving  a non-preemptable job with pending tasks
// Time of day is the session clock modulo one day (see tdm_math.hpp).
//
// Arguments (Volcano's names): tdm.revocable-zone.<zone> (a window per zone) and
// tdm.evict.period (default 1m). Volcano has no eviction-count argument: how many tasks
// one round takes from a job is the job's disruption budget (PodGroup annotations
// volcano.sh/jdb-min-available / volcano.sh/jdb-max-unavailable, default 1). A window
// that does not parse, or a negative period, is refused when the config loads (Volcano
// treats a bad window as a closed zone and a bad period as 1m).
//
// Volcano keeps the time of the last eviction round in a package variable; here it is the
// plugin's state across sessions (ABI 1.2 state_get / state_put: eight bytes, the time on
// the session clock), so it lasts from session to session, whichever process runs each,
// and starts over when the plugin file changes or the plugin leaves the config. Where Volcano walks Go maps (jobs,
// zones, node tasks), this plugin walks jobs, zones and nodes by name and a node's tasks
// in the host's order, so the same input always gives the same victims.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "caldera/sdk.hpp"
#include "tdm/tdm_math.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace tm = caldera::tdm;

constexpr const char* kRevocableZoneKey = "volcano.sh/revocable-zone";
constexpr const char* kPreemptableKey = "volcano.sh/preemptable";
constexpr const char* kJdbMinAvailable = "volcano.sh/jdb-min-available";
constexpr const char* kJdbMaxUnavailable = "volcano.sh/jdb-max-unavailable";
constexpr double kMaxNodeScore = 100;

// strconv.ParseBool.
std::optional<bool> parse_bool(std::string_view v) {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return true;
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False")
    return false;
  return std::nullopt;
}

// GetPodRevocableZone: "*" when the pod may use revocable zones, else "".
bool task_revocable(const sdk::Task& t) {
  if (const char* v = t.annotation(kRevocableZoneKey)) return std::string_view(v) == "*";
  if (const char* v = t.annotation(kPreemptableKey)) return parse_bool(v).value_or(false);
  return false;
}

// JobInfo.Preemptable: the PodGroup's volcano.sh/preemptable annotation (the ABI has no
// PodGroup labels); a value that is not a bool reads as false.
bool job_preemptable(const sdk::Job& j) {
  const char* v = j.annotation(kPreemptableKey);
  return v && parse_bool(v).value_or(false);
}

std::string node_zone(const sdk::Node& n) {
  const char* z = n.label(kRevocableZoneKey);
  return z ? std::string(z) : std::string();
}

class Tdm {
 public:
  static constexpr const char* kName = "tdm";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "lends revocable nodes to preemptable tasks inside daily time windows and takes them "
      "back when the window closes (Volcano's tdm)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::job_order, sdk::Hook::predicate,
      sdk::Hook::node_order, sdk::Hook::preemptable, sdk::Hook::victim_tasks,
      sdk::Hook::job_starving, sdk::Hook::job_pipelined, sdk::Hook::on_close,
      sdk::Hook::check_args);

  static constexpr sdk::Family<sdk::String> kZones{
      "tdm.revocable-zone.*",
      "tdm.revocable-zone.<zone>: the daily window \"HH:MM-HH:MM\" in which nodes labelled "
      "volcano.sh/revocable-zone=<zone> take preemptable tasks (time of day: session clock "
      "modulo 24h)."};
  static constexpr sdk::Duration kEvictPeriod{
      "tdm.evict.period", "1m",
      "Least time between two rounds of victims on closed zones (shuffle)."};
  static constexpr auto kOptions = sdk::options(kZones, kEvictPeriod);

  static sdk::Status check_args(const sdk::Args& a) {
    for (const std::string& zone : a.members(kZones)) {
      std::string why;
      const std::string value = a.get(kZones, zone).value_or("");
      if (!tm::parse_window(value, &why))
        return sdk::Status::error(kZones.key(zone) + " = \"" + value + "\": " + why);
    }
    const double period = a.get(kEvictPeriod);
    if (!(period >= 0) || !std::isfinite(period))
      return sdk::Status::error({kEvictPeriod.name, " must be a duration >= 0"});
    return sdk::Status::ok();
  }

  Tdm(sdk::Session s, const sdk::Args& a)
      : ssn_(s), now_(s.now()), evict_period_(a.get(kEvictPeriod)) {
    sdk::StateReader saved(s.saved_state());
    if (!saved.empty()) {
      const double at = saved.f64();
      if (saved.ok() && saved.done()) last_evict_at_ = at;
    }
    for (const std::string& zone : a.members(kZones)) {
      const std::string name = kZones.key(zone);
      const std::string value = a.get(kZones, zone).value_or("");
      std::string why;
      if (auto w = tm::parse_window(value, &why)) {
        zones_[zone] = Zone{value, *w};
      } else {
        // Only reachable when the host skipped check_args: the zone stays closed.
        sdk::log(CAL_LOG_WARN, kName, name + " = \"" + value + "\": " + why);
        zones_[zone] = Zone{value, std::nullopt};
      }
    }
  }

  sdk::Status predicate(sdk::Task t, sdk::Node n) const {
    const std::string zone = node_zone(n);
    if (zone.empty()) return sdk::Status::ok();
    // Time cannot be evicted away: both refusals are unresolvable for preemption. The
    // reasons are Volcano's words.
    if (std::string why; !zone_active(zone, &why)) return sdk::Status::unresolvable(why);
    if (!task_revocable(t))
      return sdk::Status::unresolvable("not allow to dispatch to revocable node");
    return sdk::Status::ok();
  }

  double node_order(sdk::Task t, sdk::Node n) const {
    const std::string zone = node_zone(n);
    if (zone.empty() || !zone_active(zone, nullptr) || !task_revocable(t)) return 0;
    return kMaxNodeScore;
  }

  cal_vote preemptable(sdk::Task preemptor, const std::vector<sdk::Task>& candidates,
                       std::vector<uint8_t>& victims) {
    // Volcano's Reject: the plugin decides, and allows no victim.
    if (preemptor.preemptable() || task_revocable(preemptor)) return CAL_PERMIT;
    std::map<std::string, std::vector<size_t>> by_job;  // job name -> candidate indexes
    std::map<std::string, sdk::Job> jobs;
    for (size_t k = 0; k < candidates.size(); ++k) {
      const sdk::Task& c = candidates[k];
      if (!c.preemptable() || c.status() != CAL_TASK_RUNNING) continue;
      sdk::Node node = c.node();
      if (!node || !node_zone(node).empty()) continue;
      sdk::Job j = c.job();
      by_job[std::string(j.name())].push_back(k);
      jobs.emplace(std::string(j.name()), j);
    }
    for (const auto& [name, idx] : by_job) {
      const size_t take = max_victims(jobs.at(name), idx.size());
      for (size_t i = 0; i < take; ++i) victims[idx[i]] = 1;
    }
    return CAL_PERMIT;
  }

  void victim_tasks(const std::vector<sdk::Task>& tasks, std::vector<uint8_t>& victims) {
    if (last_evict_at_ + evict_period_ > now_) {
      sdk::log(CAL_LOG_DEBUG, kName,
               "next eviction round at " + std::to_string(last_evict_at_ + evict_period_));
      return;
    }
    std::unordered_map<const cal_task*, size_t> index;
    for (size_t k = 0; k < tasks.size(); ++k) index.emplace(tasks[k].handle(), k);

    for (const auto& [zone, z] : zones_) {  // by zone name
      if (zone_active(zone, nullptr)) continue;
      // revocableNodePreemptableTask: Running preemptable tasks on the zone's nodes, by job.
      std::map<std::string, std::vector<sdk::Task>> by_job;
      std::map<std::string, sdk::Job> jobs;
      for (const sdk::Node& n : nodes_by_name()) {
        if (node_zone(n) != zone) continue;
        for (size_t i = 0; i < n.task_count(); ++i) {
          sdk::Task t = n.task(i);
          if (!t.preemptable() || t.status() != CAL_TASK_RUNNING) continue;
          sdk::Job j = t.job();
          by_job[std::string(j.name())].push_back(t);
          jobs.emplace(std::string(j.name()), j);
        }
      }
      for (const auto& [name, list] : by_job) {
        const size_t take = max_victims(jobs.at(name), list.size());
        for (size_t i = 0; i < take; ++i)
          if (auto it = index.find(list[i].handle()); it != index.end()) victims[it->second] = 1;
      }
    }
    last_evict_at_ = now_;
    evicted_ = true;
  }

  // The time of the last round goes to the next session (only when this one ran a round:
  // otherwise the saved time stays as it is).
  void on_close() {
    if (!evicted_) return;
    sdk::StateWriter w;
    w.f64(last_evict_at_);
    ssn_.save_state(w.bytes());
  }

  int job_order(sdk::Job l, sdk::Job r) const {
    const bool lp = job_preemptable(l), rp = job_preemptable(r);
    if (lp == rp) return 0;
    return lp ? 1 : -1;
  }

  cal_vote job_pipelined(sdk::Job j) const {
    return j.waiting_num() + j.ready_num() >= j.min_available() ? CAL_PERMIT : CAL_REJECT;
  }

  bool job_starving(sdk::Job j) const {
    if (job_preemptable(j)) return false;
    return j.status_count(CAL_TASK_PENDING) > 0;
  }

 private:
  struct Zone {
    std::string raw;
    std::optional<tm::Window> window;  // none: did not parse
  };

  // availableRevocableZone.
  bool zone_active(const std::string& zone, std::string* why) const {
    auto it = zones_.find(zone);
    if (it == zones_.end()) {
      if (why) *why = "revocable zone " + zone + " not support";
      return false;
    }
    if (!it->second.window || !tm::window_active(*it->second.window, now_)) {
      if (why) *why = "current time beyond revocable zone " + zone + ":" + it->second.raw;
      return false;
    }
    return true;
  }

  // maxVictims: the first min(budget, n) of a job's candidates.
  size_t max_victims(const sdk::Job& j, size_t n) const {
    tm::BudgetInput b;
    if (const char* v = j.annotation(kJdbMinAvailable)) b.min_available = v;
    if (const char* v = j.annotation(kJdbMaxUnavailable)) b.max_unavailable = v;
    b.tasks = static_cast<int>(j.task_count());
    b.running = j.status_count(CAL_TASK_RUNNING);
    b.final = j.status_count(CAL_TASK_SUCCEEDED) + j.status_count(CAL_TASK_FAILED);
    const int budget = tm::max_pod_evict_num(b);
    if (budget <= 0) return 0;
    return std::min(n, static_cast<size_t>(budget));
  }

  std::vector<sdk::Node> nodes_by_name() const {
    std::vector<sdk::Node> out;
    for (size_t i = 0; i < ssn_.node_count(); ++i) out.push_back(ssn_.node(i));
    std::sort(out.begin(), out.end(),
              [](const sdk::Node& a, const sdk::Node& b) { return a.name() < b.name(); });
    return out;
  }

  sdk::Session ssn_;
  double now_;
  double evict_period_;
  // When the last victim round ran, on the session clock (Volcano's lastEvictAt): from the
  // saved state, and now_ once this session runs a round (evicted_).
  double last_evict_at_ = -std::numeric_limits<double>::infinity();
  bool evicted_ = false;
  std::map<std::string, Zone> zones_;  // by zone name
};

}  // namespace

CALDERA_PLUGIN(Tdm)
