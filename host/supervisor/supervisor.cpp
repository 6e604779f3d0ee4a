// The supervisor's choices between sessions (supervisor.hpp).
#include "host/supervisor/supervisor.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace caldera {

namespace {
// The set running and the one before it: what a fault falls back to. Each set holds its
// plugin libraries loaded, so no more are kept.
constexpr size_t kGoodSets = 2;
constexpr size_t kRecentFaults = 20;
constexpr size_t kMaxSkip = 31;
}  // namespace

std::string Supervisor::sha_of(const std::string& file_id) {
  const auto nl = file_id.rfind('\n');
  return nl == std::string::npos ? std::string() : file_id.substr(nl + 1);
}

std::string Supervisor::path_of(const std::string& file_id) {
  const auto nl = file_id.rfind('\n');
  return nl == std::string::npos ? file_id : file_id.substr(0, nl);
}

bool Supervisor::clean(const Policy& p, std::string* which) const {
  for (const auto& tier : p.tiers)
    for (const auto& cp : tier)
      if (quarantine_.count(sha_of(cp.file_id))) {
        if (which) *which = cp.name;
        return false;
      }
  return true;
}

std::shared_ptr<const Policy> Supervisor::without_quarantined(
    const std::shared_ptr<const Policy>& p) const {
  if (derived_ && derived_from_ == p && derived_generation_ == generation_) return derived_;
  auto out = std::make_shared<Policy>(*p);
  for (auto& tier : out->tiers)
    tier.erase(std::remove_if(tier.begin(), tier.end(),
                              [&](const ConfiguredPlugin& cp) {
                                return quarantine_.count(sha_of(cp.file_id)) > 0;
                              }),
               tier.end());
  derived_from_ = p;
  derived_ = out;
  derived_generation_ = generation_;
  return out;
}

Supervisor::Plan Supervisor::plan(const std::shared_ptr<const Policy>& configured) {
  Plan plan;
  // A quarantined file replaced by other bytes: the entry goes (the new file is a new
  // candidate; the old bytes stay refused should they come back).
  for (const auto& tier : configured->tiers)
    for (const auto& cp : tier) {
      const std::string sha = sha_of(cp.file_id), path = path_of(cp.file_id);
      if (quarantine_.count(sha)) continue;
      for (auto it = quarantine_.begin(); it != quarantine_.end();) {
        if (it->second.file == path) {
          plan.lifted.push_back(fmt::format("plugin {}: {} was replaced (sha256 {} -> {})",
                                            it->second.plugin, path, it->first.substr(0, 12),
                                            sha.substr(0, 12)));
          it = quarantine_.erase(it);
          ++generation_;
        } else {
          ++it;
        }
      }
    }
  if (skip_ > 0) {
    --skip_;
    plan.mode = "backoff";
    plan.why = fmt::format("backing off after {} faults in a row ({} more period(s) without a "
                           "session)",
                           consecutive_, skip_);
    mode_ = plan.mode;
    return plan;
  }
  std::string bad;
  if (clean(*configured, &bad)) {
    plan.policy = configured;
    plan.mode = "configured";
    healthy_ = true;
  } else {
    const Quarantined* q = nullptr;
    for (const auto& [sha, e] : quarantine_)
      if (e.plugin == bad) q = &e;
    const std::string reason =
        fmt::format("plugin {} is quarantined ({}{})", bad, q ? q->file : "",
                    q ? "; replace the file to lift it" : "");
    auto good = std::find_if(good_.begin(), good_.end(),
                             [&](const auto& p) { return clean(*p); });
    if (good != good_.end()) {
      plan.policy = *good;
      plan.mode = "fallback";
      plan.why = reason + "; running the last plugin set that completed a session";
      healthy_ = true;
    } else if (on_fault_ == OnFault::Disable) {
      plan.policy = without_quarantined(configured);
      plan.mode = "without-quarantined";
      plan.why = reason + "; on_plugin_fault = \"disable\": running WITHOUT the quarantined "
                          "plugin(s), a policy the config does not describe";
      healthy_ = true;
    } else {
      plan.mode = "none";
      plan.why = reason + "; no plugin set without it has completed a session, so nothing is "
                          "scheduled (on_plugin_fault = \"disable\" would go on without it)";
      healthy_ = false;
    }
  }
  mode_ = plan.mode;
  return plan;
}

void Supervisor::completed(const std::shared_ptr<const Policy>& used, double at) {
  consecutive_ = 0;
  skip_ = 0;
  last_completed_at_ = at;
  healthy_ = true;
  // A derived policy (configured less quarantined) is no set the operator configured: it
  // is never a set to go back to.
  if (mode_ == "without-quarantined") return;
  good_.erase(std::remove(good_.begin(), good_.end(), used), good_.end());
  good_.push_front(used);
  while (good_.size() > kGoodSets) good_.pop_back();
}

void Supervisor::faulted(const SessionFault& f, double at) {
  ++faults_total_;
  ++consecutive_;
  skip_ = std::min(kMaxSkip, (size_t{1} << std::min<size_t>(consecutive_ - 1, 5)) - 1);
  recent_.push_back(FaultRecord{at, f.kind_name(), f.text(), f.plugin, f.point, f.node});
  while (recent_.size() > kRecentFaults) recent_.pop_front();
  const std::string sha = sha_of(f.plugin_file_id);
  if (!f.plugin.empty() && !sha.empty() && !quarantine_.count(sha)) {
    quarantine_[sha] = Quarantined{f.plugin, path_of(f.plugin_file_id), sha, f.text(), at};
    ++generation_;
    // A plugin quarantined now gets its own chance once replaced: no need to wait.
    skip_ = 0;
  }
  if (last_completed_at_ == 0 && on_fault_ == OnFault::Fallback) healthy_ = false;
}

}  // namespace caldera
