// Where the program finds its plugins and default config: next to itself in the build tree
// (build/host/caldera -> build/plugins, source conf/), else the installed locations
// (bin/caldera -> <libdir>/caldera/plugins, <sysconfdir>/caldera/caldera.toml).
#include <unistd.h>

#include <system_error>

#include "host/cli/commands.hpp"

#ifndef CALDERA_PLUGIN_RELDIR
#define CALDERA_PLUGIN_RELDIR "../lib/caldera/plugins"
#endif

namespace caldera::cli {

namespace fs = std::filesystem;

namespace {
fs::path exe_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}
}  // namespace

std::vector<fs::path> default_plugin_dirs() {
  if (const char* env = std::getenv("CALDERA_PLUGIN_PATH"); env && *env) {
    std::vector<fs::path> dirs;
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      size_t colon = s.find(':', start);
      std::string part = s.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!part.empty()) dirs.emplace_back(part);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    return dirs;
  }
  fs::path dir = exe_dir();
  std::error_code ec;
  fs::path build_tree = dir / ".." / "plugins";
  if (fs::is_directory(build_tree, ec)) return {fs::weakly_canonical(build_tree, ec)};
  return {fs::weakly_canonical(dir / CALDERA_PLUGIN_RELDIR, ec)};
}

fs::path default_config_path() {
  fs::path dir = exe_dir();
  std::error_code ec;
  // Build tree: build/host/caldera; the meson build dir sits in the source tree by default,
  // but not always, so look for the source's conf/ through the build's meson-info.
  for (fs::path p : {dir / ".." / ".." / "conf" / "caldera.toml",
                     dir / ".." / "etc" / "caldera" / "caldera.toml",
                     fs::path("/etc/caldera/caldera.toml")}) {
    if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec);
  }
  return "conf/caldera.toml";
}

}  // namespace caldera::cli
