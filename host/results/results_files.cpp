#include "host/results/results_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "host/results/csv_writer.hpp"
#include "host/results/html_report.hpp"
#include "host/results/json_writer.hpp"
#include "host/util/fd_io.hpp"
#include "host/util/input_error.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

// 0644: results are for anyone to read (host/util/fd_io.hpp: created safely, renamed over).
void write_file(const fs::path& path, const std::string& text) {
  std::string why;
  if (!write_file_atomic(path, text, 0644, &why))
    throw InputError(fmt::format("{}: cannot write: {}", path.string(), why));
}

}  // namespace

void prepare_results_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("--results {}: cannot create the folder: {}", dir.string(), ec.message()));
  if (!fs::is_directory(dir)) throw InputError(fmt::format("--results {}: not a folder", dir.string()));
  fs::path probe = dir / fmt::format(".caldera-probe{}", ::getpid());
  std::string why;
  if (!write_file_atomic(probe, "", 0600, &why))
    throw InputError(fmt::format("--results {}: cannot write in the folder: {}", dir.string(), why));
  fs::remove(probe, ec);
}

void write_results(const fs::path& dir, const RunResults& r) {
  write_file(dir / "results.json", results_json(r));
  for (const auto& f : results_csv(r)) write_file(dir / f.name, f.text);
  write_file(dir / "report.html", html_report(r));
}

}  // namespace caldera
