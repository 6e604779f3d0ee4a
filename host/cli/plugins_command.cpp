// `caldera plugins list` and `caldera plugins describe NAME`: what is in the plugin
// folders, which files failed to load and why, and each plugin's options; the list ends
// with the actions the host has (they are not plugins: they are linked into the host and
// named in [scheduler] actions), each with its arguments.
//
// Volcano has no counterpart (its plugins are compiled in; their arguments are documented
// only in the source, e.g. pkg/scheduler/plugins/binpack/binpack.go). Caldera's plugins
// declare their options in a typed table (cal_option), so the host can print them.
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "actions/action.hpp"
#include "host/cli/commands.hpp"
#include "host/cli/plugin_dirs.hpp"
#include "host/plugins/plugin_library.hpp"

namespace caldera::cli {

namespace {

std::string points_text(PointSet s) {
  std::string out;
  for (int i = 0; i < kPointCount; ++i) {
    auto p = static_cast<Point>(i);
    if (!s.has(p)) continue;
    if (!out.empty()) out += ",";
    out += point_name(p);
  }
  return out.empty() ? "-" : out;
}

const char* type_name(cal_option_type t) {
  switch (t) {
    case CAL_OPT_BOOL: return "bool";
    case CAL_OPT_INT: return "int";
    case CAL_OPT_DOUBLE: return "double";
    case CAL_OPT_STRING: return "string";
    case CAL_OPT_DURATION: return "duration";
  }
  return "?";
}

std::string abi_text(uint32_t v) {
  return fmt::format("{}.{}", CAL_ABI_MAJOR_OF(v), CAL_ABI_MINOR_OF(v));
}

}  // namespace

int plugins_list(const Common& c, const std::filesystem::path& config) {
  try {
    SchedulerConfig cfg = config_for_plugins(c, config);
    PluginCatalog cat = PluginCatalog::scan(cfg.plugin_dirs);

    // The host's ABI, from the same macros the plugins' are read with (caldera/plugin.h):
    // a plugin of major CAL_ABI_MAJOR and a minor up to CAL_ABI_MINOR loads.
    fmt::print("host ABI {}.{} (loads plugins built for ABI {}.0 to {}.{})\n\n", CAL_ABI_MAJOR,
               CAL_ABI_MINOR, CAL_ABI_MAJOR, CAL_ABI_MAJOR, CAL_ABI_MINOR);
    size_t wn = 4, wv = 7, wf = 4;
    for (const auto& lib : cat.plugins()) {
      wn = std::max(wn, lib->info().name.size());
      wv = std::max(wv, lib->info().version.size());
      wf = std::max(wf, lib->info().file.string().size());
    }
    fmt::print("{:<{}}  {:<{}}  {:<4}  {:<{}}  {}\n", "NAME", wn, "VERSION", wv, "ABI", "FILE", wf,
               "EXTENSION POINTS");
    for (const auto& lib : cat.plugins()) {
      const PluginInfo& i = lib->info();
      fmt::print("{:<{}}  {:<{}}  {:<4}  {:<{}}  {}\n", i.name, wn, i.version.empty() ? "-" : i.version,
                 wv, abi_text(i.abi_version), i.file.string(), wf, points_text(i.implemented));
    }
    if (cat.plugins().empty()) {
      std::string dirs;
      for (const auto& d : cfg.plugin_dirs) dirs += (dirs.empty() ? "" : ", ") + d.string();
      fmt::print("(no plugins in {})\n", dirs.empty() ? "no folder" : dirs);
    }
    if (!cat.failures().empty()) {
      fmt::print("\nfailed to load:\n");
      for (const auto& f : cat.failures()) fmt::print("  {}\n", f.error);
    }

    // The actions, in the host's order, with their [actions.NAME] arguments.
    size_t wa = 6;
    for (const ActionInfo& a : action_registry()) wa = std::max(wa, a.name.size());
    fmt::print("\n{:<{}}  {}\n", "ACTION", wa, "ARGUMENTS ([actions.NAME])");
    for (const ActionInfo& a : action_registry()) {
      std::string args;
      for (const cal_option& o : a.options)
        args += fmt::format("{}{} = {}", args.empty() ? "" : ", ", o.name,
                            o.default_value ? o.default_value : "-");
      fmt::print("{:<{}}  {}\n", a.name, wa, args.empty() ? "-" : args);
    }
    std::fflush(stdout);
    return 0;
  } catch (const InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
}

int plugins_describe(const Common& c, const std::filesystem::path& config, const std::string& name) {
  try {
    SchedulerConfig cfg = config_for_plugins(c, config);
    PluginCatalog cat = PluginCatalog::scan(cfg.plugin_dirs);
    std::shared_ptr<const PluginFile> lib = cat.find(name);
    if (!lib) {
      std::string known;
      for (const auto& l : cat.plugins()) known += (known.empty() ? "" : ", ") + l->info().name;
      std::string msg = fmt::format("unknown plugin '{}'; known: {}", name,
                                    known.empty() ? "none" : known);
      for (const auto& f : cat.failures()) msg += fmt::format("\n  failed to load: {}", f.error);
      throw InputError(msg);
    }
    const PluginInfo& i = lib->info();
    fmt::print("{} {}\n", i.name, i.version.empty() ? "(no version)" : i.version);
    if (!i.description.empty()) fmt::print("  {}\n", i.description);
    fmt::print("file:   {}\n", i.file.string());
    fmt::print("sha256: {}\n", i.sha256);
    fmt::print("ABI:    {} (host {})\n", abi_text(i.abi_version), abi_text(CAL_ABI_VERSION));
    fmt::print("points: {}\n", points_text(i.implemented));
    fmt::print("node callbacks may run in parallel: {}\n",
               (i.capabilities & CAL_CAP_NODE_PARALLEL) ? "yes" : "no");
    if (i.options.empty()) {
      fmt::print("options: none\n");
    } else {
      size_t wn = 4, wt = 4, wd = 7;
      for (const cal_option& o : i.options) {
        wn = std::max(wn, std::string_view(o.name).size());
        wt = std::max(wt, std::string_view(type_name(o.type)).size());
        wd = std::max(wd, std::string_view(o.default_value ? o.default_value : "-").size());
      }
      fmt::print("options:\n");
      fmt::print("  {:<{}}  {:<{}}  {:<{}}  {}\n", "NAME", wn, "TYPE", wt, "DEFAULT", wd,
                 "DESCRIPTION");
      for (const cal_option& o : i.options)
        fmt::print("  {:<{}}  {:<{}}  {:<{}}  {}\n", o.name, wn, type_name(o.type), wt,
                   o.default_value ? o.default_value : "-", wd, o.description ? o.description : "");
    }
    std::fflush(stdout);
    return 0;
  } catch (const InputError& e) {
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", e.what());
    return 1;
  }
}

}  // namespace caldera::cli
