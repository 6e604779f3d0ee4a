// The status file: see status.hpp. The layout is read by `caldera status`
// (host/cli/status_command.cpp) and by the reload tests and benchmark.
#include "host/reload/status.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "host/reload/reloader.hpp"
#include "host/supervisor/supervisor.hpp"
#include "host/util/fd_io.hpp"

namespace caldera {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json time_or_null(double t) { return t > 0 ? json(t) : json(nullptr); }

json record_json(const ReloadRecord& r) {
  return json{{"attempt", r.attempt},
              {"trigger", r.trigger},
              {"result", r.result},
              {"reason", r.reason},
              {"changes", r.changes},
              {"config_sha256", r.config_hash},
              {"noticed_at", time_or_null(r.noticed_at)},
              {"started_at", time_or_null(r.started_at)},
              {"finished_at", time_or_null(r.finished_at)},
              {"trial_seconds", r.trial_seconds},
              {"trial", r.trial}};
}

json supervisor_json(const Supervisor& sv) {
  json quarantine = json::array();
  for (const auto& [sha, q] : sv.quarantine())
    quarantine.push_back(json{{"plugin", q.plugin},
                              {"file", q.file},
                              {"sha256", sha},
                              {"fault", q.fault},
                              {"since", time_or_null(q.since)}});
  json faults = json::array();
  for (const auto& f : sv.recent_faults())
    faults.push_back(json{{"at", time_or_null(f.at)},
                          {"kind", f.kind},
                          {"plugin", f.plugin},
                          {"point", f.point},
                          {"node", f.node},
                          {"text", f.text}});
  return json{{"mode", sv.mode()},
              {"healthy", sv.healthy()},
              {"last_completed_at", time_or_null(sv.last_completed_at())},
              {"faults", sv.faults_total()},
              {"consecutive_faults", sv.consecutive_faults()},
              {"quarantine", quarantine},
              {"recent_faults", faults}};
}

}  // namespace

json status_json(const Reloader& reloader, const fs::path& config_file,
                 const SessionCounters& s, const Supervisor* supervisor) {
  const Policy& p = *reloader.active();
  const ReloadStats& st = reloader.stats();

  std::set<std::string> in_policy;
  json tiers = json::array();
  for (const auto& tier : p.tiers) {
    json names = json::array();
    for (const auto& cp : tier) {
      names.push_back(cp.name);
      in_policy.insert(cp.name);
    }
    tiers.push_back(names);
  }
  json plugins = json::array();
  for (const auto& lib : reloader.catalog().plugins()) {
    const PluginInfo& i = lib->info();
    plugins.push_back(json{{"name", i.name},
                           {"version", i.version},
                           {"abi", fmt::format("{}.{}", CAL_ABI_MAJOR_OF(i.abi_version),
                                               CAL_ABI_MINOR_OF(i.abi_version))},
                           {"file", i.file.string()},
                           {"sha256", i.sha256},
                           {"in_policy", in_policy.count(i.name) > 0}});
  }
  json failures = json::array();
  for (const auto& f : reloader.catalog().failures())
    failures.push_back(json{{"file", f.file.string()}, {"error", f.error}});
  json dirs = json::array(), watched = json::array();
  for (const auto& d : p.config.plugin_dirs) dirs.push_back(d.string());
  for (const auto& d : reloader.watched_dirs()) watched.push_back(d.string());

  double now = std::chrono::duration<double>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  return json{
      {"format", kStatusFormat},
      {"pid", static_cast<long>(::getpid())},
      {"written_at", now},
      {"config",
       {{"file", fs::absolute(config_file).lexically_normal().string()},
        {"sha256", p.config_hash},
        {"period_seconds", p.config.period_seconds},
        {"actions", p.config.actions},
        {"tiers", tiers},
        {"plugin_dirs", dirs},
        {"unload_retired_plugins", p.config.unload_retired_plugins},
        {"canary_timeout_seconds", p.config.canary_timeout_seconds},
        {"reload_settle_seconds", p.config.reload_settle_seconds}}},
      {"plugins", plugins},
      {"plugin_load_failures", failures},
      {"active_since", time_or_null(st.active_since)},
      {"first_session_at", time_or_null(st.first_session_at)},
      {"reloads",
       {{"attempts", st.attempts},
        {"accepted", st.accepted},
        {"refused", st.refused},
        {"unchanged", st.unchanged},
        {"trial_running", reloader.trial_running()},
        {"retired_policies_alive", reloader.retired_alive()},
        {"watched_dirs", watched}}},
      {"last_reload", st.last ? record_json(*st.last) : json(nullptr)},
      {"last_error", st.last_error ? record_json(*st.last_error) : json(nullptr)},
      {"sessions",
       {{"count", s.sessions},
        {"last_at", time_or_null(s.last_at)},
        {"last_clock", s.last_clock},
        {"last_binds", s.last_binds},
        {"binds", s.binds},
        {"evictions", s.evictions}}},
      {"supervisor", supervisor ? supervisor_json(*supervisor) : json(nullptr)},
  };
}

bool write_status_file(const fs::path& path, const json& status, std::string* error) {
  // 0644: the status names files and plugins, nothing secret; anyone may read it.
  return write_file_atomic(path, status.dump(2) + "\n", 0644, error);
}

}  // namespace caldera
