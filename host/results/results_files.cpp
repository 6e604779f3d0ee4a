#include "host/results/results_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "host/results/csv_writer.hpp"
#include "host/results/html_report.hpp"
#include "host/results/json_writer.hpp"
#include "host/util/input_error.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, const std::string& text) {
  fs::path tmp = path;
  tmp += fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out)
      throw InputError(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError(fmt::format("{}: cannot write: {}", path.string(), ec.message()));
  }
}

}  // namespace

void prepare_results_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("--results {}: cannot create the folder: {}", dir.string(), ec.message()));
  if (!fs::is_directory(dir)) throw InputError(fmt::format("--results {}: not a folder", dir.string()));
  fs::path probe = dir / fmt::format(".caldera-probe{}", ::getpid());
  {
    std::ofstream out(probe);
    if (!out)
      throw InputError(fmt::format("--results {}: cannot write in the folder: {}", dir.string(),
                                   std::strerror(errno)));
  }
  fs::remove(probe, ec);
}

void write_results(const fs::path& dir, const RunResults& r) {
  write_file(dir / "results.json", results_json(r));
  for (const auto& f : results_csv(r)) write_file(dir / f.name, f.text);
  write_file(dir / "report.html", html_report(r));
}

}  // namespace caldera
