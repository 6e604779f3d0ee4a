// `caldera status PATH`: prints the status file a running scheduler writes
// (`caldera run --status-file PATH`, layout in host/reload/status.cpp): the policy that runs,
// its plugins with the sha256 of their files, and how the reloads went.
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "host/cli/commands.hpp"
#include "host/reload/status.hpp"

namespace caldera::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// "2024-05-01 12:00:01.234" in local time; "-" for null.
std::string when(const json& t) {
  if (!t.is_number()) return "-";
  double secs = t.get<double>();
  std::time_t whole = static_cast<std::time_t>(secs);
  int ms = static_cast<int>(std::lround((secs - static_cast<double>(whole)) * 1000)) % 1000;
  std::tm tm{};
  localtime_r(&whole, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return fmt::format("{}.{:03d}", buf, ms);
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

std::string period(double s) {
  if (s < 1) return fmt::format("{:g}ms", s * 1000);
  return fmt::format("{:g}s", s);
}

std::string record(const json& r) {
  std::string out = fmt::format("#{} at {}: {} ({})", r.value("attempt", 0),
                                when(r.value("finished_at", json())), str(r, "result"),
                                str(r, "trigger"));
  std::string reason = str(r, "reason"), changes = str(r, "changes");
  if (!reason.empty()) out += ": " + reason;
  if (!changes.empty() && changes != "nothing") out += ": " + changes;
  return out;
}

}  // namespace

int status(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << fmt::format("{}: cannot read the status file: {}\n", file.string(),
                             std::strerror(errno));
    return 1;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  json j;
  try {
    j = json::parse(ss.str());
  } catch (const json::parse_error& e) {
    std::cerr << fmt::format("{}: not a caldera status file (JSON error at byte {}: {})\n",
                             file.string(), e.byte, e.what());
    return 1;
  }
  if (!j.is_object() || j.value("format", "") != kStatusFormat) {
    std::cerr << fmt::format("{}: not a caldera status file (expected \"format\": \"{}\")\n",
                             file.string(), kStatusFormat);
    return 1;
  }

  try {
    long pid = j.value("pid", 0L);
    bool alive = pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
    double written = j.value("written_at", 0.0);
    double age = std::chrono::duration<double>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count() -
                 written;
    std::cout << fmt::format("{}: scheduler pid {} ({}), written {} ({:.1f}s ago)\n",
                             file.string(), pid, alive ? "running" : "not running", when(written),
                             age);

    const json& c = j.at("config");
    std::cout << fmt::format("config:    {}\n           sha256 {}\n", str(c, "file"),
                             str(c, "sha256"));
    std::vector<std::string> actions = c.value("actions", std::vector<std::string>{});
    std::string a;
    for (const auto& x : actions) a += (a.empty() ? "" : ", ") + x;
    std::cout << fmt::format("policy:    actions {}; period {}\n", a,
                             period(c.value("period_seconds", 0.0)));
    size_t ti = 0;
    for (const auto& tier : c.value("tiers", json::array())) {
      std::string names;
      for (const auto& n : tier) names += (names.empty() ? "" : ", ") + n.get<std::string>();
      std::cout << fmt::format("           tier {}: {}\n", ++ti, names);
    }
    std::string dirs;
    for (const auto& d : c.value("plugin_dirs", json::array()))
      dirs += (dirs.empty() ? "" : ", ") + d.get<std::string>();
    std::cout << fmt::format("           plugin dirs {}; unload retired plugins: {}; canary "
                             "timeout {}; settle {}\n",
                             dirs, c.value("unload_retired_plugins", true) ? "yes" : "no",
                             period(c.value("canary_timeout_seconds", 0.0)),
                             period(c.value("reload_settle_seconds", 0.0)));

    std::cout << "plugins:\n";
    size_t width = 0;
    for (const auto& p : j.value("plugins", json::array()))
      width = std::max(width, str(p, "name").size());
    for (const auto& p : j.value("plugins", json::array()))
      std::cout << fmt::format("  {:<{}} {:<8} ABI {:<4} sha256 {}  {}{}\n", str(p, "name"), width,
                               str(p, "version"), str(p, "abi"), str(p, "sha256").substr(0, 16),
                               str(p, "file"), p.value("in_policy", false) ? "" : "  (not in the policy)");
    for (const auto& f : j.value("plugin_load_failures", json::array()))
      std::cout << fmt::format("  failed to load: {}\n", str(f, "error"));

    std::cout << fmt::format("active:    since {}; first session with it {}\n",
                             when(j.value("active_since", json())),
                             when(j.value("first_session_at", json())));
    const json& r = j.at("reloads");
    std::cout << fmt::format(
        "reloads:   {} attempts: {} accepted, {} refused, {} unchanged{}\n",
        r.value("attempts", 0), r.value("accepted", 0), r.value("refused", 0),
        r.value("unchanged", 0), r.value("trial_running", false) ? "; a trial session is running" : "");
    std::string watched;
    for (const auto& d : r.value("watched_dirs", json::array()))
      watched += (watched.empty() ? "" : ", ") + d.get<std::string>();
    std::cout << fmt::format("           watching {}\n", watched.empty() ? "nothing" : watched);
    if (r.value("retired_policies_alive", 0) > 0)
      std::cout << fmt::format("           {} retired policies still held by sessions\n",
                               r.value("retired_policies_alive", 0));
    const json last = j.value("last_reload", json());
    std::cout << fmt::format("last:      {}\n", last.is_object() ? record(last) : "no reload yet");
    const json err = j.value("last_error", json());
    std::string err_text = "none";
    if (err.is_object())
      err_text = last.is_object() && last.value("attempt", 0) == err.value("attempt", 0)
                     ? fmt::format("#{} (the last attempt)", err.value("attempt", 0))
                     : record(err);
    std::cout << fmt::format("last error: {}\n", err_text);
    const json& s = j.at("sessions");
    std::cout << fmt::format("sessions:  {}, last at {} (clock {:.1f}s); {} binds, {} evictions\n",
                             s.value("count", 0), when(s.value("last_at", json())),
                             s.value("last_clock", 0.0), s.value("binds", 0),
                             s.value("evictions", 0));
  } catch (const json::exception& e) {
    std::cerr << fmt::format("{}: malformed caldera status file: {}\n", file.string(), e.what());
    return 1;
  }
  return 0;
}

}  // namespace caldera::cli
