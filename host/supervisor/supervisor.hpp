// What the supervisor does between sessions: choose the plugin set the next session runs
// with, and learn from how each session ended.
//
//   - A session that completes makes its plugin set "good": it is remembered, with the good
//     set before it, as where to go back to (a remembered set keeps its libraries loaded).
//   - A session whose worker faulted (session_worker.hpp) drops its decisions. The plugin
//     that was running is quarantined by its file's sha256, until a file with other bytes
//     takes its place (a rebuilt plugin is a new candidate). The next session runs with the
//     configured set if it holds no quarantined file, else with the newest good set that
//     holds none, else:
//       on_plugin_fault = "fallback" (the default): with nothing; every period says why,
//         and the scheduler reports itself unhealthy (a standby may take over). It never
//         runs a policy the operator did not configure.
//       on_plugin_fault = "disable": with the configured set less the quarantined plugins,
//         said loudly every session.
//   - Faults one after the other back off: after the n-th in a row, 2^(n-1) - 1 periods
//     (at most 31) pass without a session, so a fault the host cannot pin on a plugin (a
//     spoiled result, a host bug) does not spin.
// No plugin code runs here: a policy is only looked at (names, files), never called.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/session/policy.hpp"
#include "host/supervisor/session_worker.hpp"

namespace caldera {

class Supervisor {
 public:
  enum class OnFault { Fallback, Disable };

  struct Plan {
    std::shared_ptr<const Policy> policy;  // null: no session this period
    // "configured" | "fallback" | "without-quarantined" | "none" | "backoff"
    std::string mode;
    std::string why;  // for every mode but "configured": said in the log each period
    // Quarantines lifted by this plan: the file was replaced ("plugin X: file changed").
    std::vector<std::string> lifted;
  };

  struct Quarantined {
    std::string plugin;
    std::string file;
    std::string sha256;
    std::string fault;  // SessionFault::text()
    double since = 0;   // wall seconds
  };

  struct FaultRecord {
    double at = 0;  // wall seconds
    std::string kind;
    std::string text;
    std::string plugin, point, node;
  };

  explicit Supervisor(OnFault on_fault = OnFault::Fallback) : on_fault_(on_fault) {}
  void set_on_fault(OnFault f) { on_fault_ = f; }

  // The plan for the next period, given the configured policy (the reloader's active one).
  Plan plan(const std::shared_ptr<const Policy>& configured);
  // A session of `used` completed and its decisions were committed.
  void completed(const std::shared_ptr<const Policy>& used, double at);
  // A session failed. `fault` from the worker, naming the plugin (its file) to quarantine;
  // for a refused result (the decisions check), a fault with no plugin.
  void faulted(const SessionFault& fault, double at);

  // Healthy: the last plan could run a configured or fallback set, and no fault is being
  // backed off from at start-up (never completed anything).
  bool healthy() const { return healthy_; }
  double last_completed_at() const { return last_completed_at_; }
  size_t faults_total() const { return faults_total_; }
  size_t consecutive_faults() const { return consecutive_; }
  const std::map<std::string, Quarantined>& quarantine() const { return quarantine_; }
  const std::deque<FaultRecord>& recent_faults() const { return recent_; }
  const std::string& mode() const { return mode_; }

  // The sha256 of a ConfiguredPlugin::file_id ("<path>\n<sha256>"), and its path.
  static std::string sha_of(const std::string& file_id);
  static std::string path_of(const std::string& file_id);

 private:
  bool clean(const Policy& p, std::string* which = nullptr) const;
  std::shared_ptr<const Policy> without_quarantined(const std::shared_ptr<const Policy>& p) const;

  OnFault on_fault_;
  std::map<std::string, Quarantined> quarantine_;  // by sha256
  std::deque<std::shared_ptr<const Policy>> good_;  // newest first
  std::deque<FaultRecord> recent_;                  // newest last, the last 20
  size_t consecutive_ = 0, skip_ = 0, faults_total_ = 0;
  double last_completed_at_ = 0;
  bool healthy_ = true;
  std::string mode_ = "configured";
  // The configured policy less the quarantined plugins, kept while neither changes.
  mutable std::shared_ptr<const Policy> derived_from_, derived_;
  mutable size_t derived_generation_ = 0;
  size_t generation_ = 0;  // bumped whenever the quarantine changes
};

}  // namespace caldera
