// The status file of a running scheduler (`caldera run --status-file PATH`): what policy
// runs (config hash, plugins with the sha256 of their files), how the reloads went (the
// last attempt, the last error) and how many sessions ran. Rewritten after every reload
// attempt and every session, atomically (write a temporary file, rename it over), so a
// reader never sees half a file. `caldera status PATH` prints it.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace caldera {

class Reloader;
class Supervisor;

struct SessionCounters {
  size_t sessions = 0;
  double last_at = 0;     // wall time (Unix seconds) of the last session's end
  double last_clock = 0;  // the session clock (virtual seconds) of the last session
  size_t binds = 0, evictions = 0;
  size_t last_binds = 0;
};

// The format's name and version, the first key of the file.
inline constexpr const char* kStatusFormat = "caldera-status/1";

// `supervisor` (null when sessions are not supervised) adds "supervisor": the plugin set
// the sessions run with (mode), health, the quarantine and the recent faults.
nlohmann::json status_json(const Reloader& reloader, const std::filesystem::path& config_file,
                           const SessionCounters& sessions,
                           const Supervisor* supervisor = nullptr);

// Writes atomically. Returns false (and says why in *error) when it cannot.
bool write_status_file(const std::filesystem::path& path, const nlohmann::json& status,
                       std::string* error);

}  // namespace caldera
