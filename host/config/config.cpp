// The scheduler config file (SCENARIOS.md section 1).
//
// Follows Volcano's scheduler configuration (pkg/scheduler/conf/scheduler_conf.go and
// unmarshalSchedulerConf in pkg/scheduler/util.go): an ordered action list, tiers of
// plugins with per-point switches and free-form arguments, and per-action arguments.
// Volcano reads YAML into Go structs and silently ignores unknown keys; Caldera checks every
// key, every type and every name, and reports the file, line, column and object of the
// first problem, because a silently ignored typo ("wieght") is a policy that quietly does
// something else.
#include "host/config/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>  // Debian's package ships only the .h name
#endif

#include "actions/action.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------
// Error helpers
// ---------------------------------------------------------------------------------------

SourceRef ref(const std::string& file, const toml::source_region& r) {
  SourceRef s;
  s.file = file;
  s.line = static_cast<int>(r.begin.line);
  s.column = static_cast<int>(r.begin.column);
  return s;
}

// "FILE:LINE:COLUMN: OBJECT: MESSAGE" (OBJECT left out when empty).
[[noreturn]] void fail(const SourceRef& at, const std::string& object, const std::string& msg) {
  std::string where = at.str();
  std::string text;
  if (!where.empty()) text = where + ": ";
  if (!object.empty()) text += object + ": ";
  text += msg;
  throw InputError(text);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

const char* type_phrase(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

std::string child(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}
std::string index(const std::string& parent, size_t i) {
  return fmt::format("{}[{}]", parent, i);
}

// Parses one config (a whole file or a scenario's [config] table).
class Parser {
 public:
  Parser(std::string file, fs::path base_dir) : file_(std::move(file)), base_(std::move(base_dir)) {}

  SchedulerConfig parse(const toml::table& root,
                        const std::vector<fs::path>& default_plugin_dirs) {
    SchedulerConfig cfg;
    cfg.actions_src = file_only();
    cfg.plugin_dirs_src = file_only();
    check_keys(root, "", {"scheduler", "tiers", "actions"});

    if (const toml::node* n = root.get("scheduler")) parse_scheduler(table_of(*n, "scheduler"), cfg);
    if (const toml::node* n = root.get("tiers")) parse_tiers(*n, cfg);
    if (const toml::node* n = root.get("actions")) parse_action_arguments(table_of(*n, "actions"), cfg);

    if (cfg.plugin_dirs.empty()) cfg.plugin_dirs = default_plugin_dirs;
    return cfg;
  }

 private:
  SourceRef at(const toml::node& n) const { return ref(file_, n.source()); }
  SourceRef at(const toml::key& k) const { return ref(file_, k.source()); }
  SourceRef file_only() const { return SourceRef{file_, 0, 0}; }

  // Every key of `tbl` must be one of `allowed`.
  void check_keys(const toml::table& tbl, const std::string& object,
                  const std::vector<std::string>& allowed) const {
    for (auto&& [k, v] : tbl) {
      (void)v;
      if (std::find(allowed.begin(), allowed.end(), k.str()) != allowed.end()) continue;
      fail(at(k), object,
           fmt::format("unknown {}key '{}'; allowed: {}", object.empty() ? "top-level " : "",
                       k.str(), join(allowed)));
    }
  }

  const toml::table& table_of(const toml::node& n, const std::string& object) const {
    if (const toml::table* t = n.as_table()) return *t;
    fail(at(n), object, fmt::format("expected a table, got {}", type_phrase(n)));
  }
  const toml::array& array_of(const toml::node& n, const std::string& object) const {
    if (const toml::array* a = n.as_array()) return *a;
    fail(at(n), object, fmt::format("expected an array, got {}", type_phrase(n)));
  }
  std::string string_of(const toml::node& n, const std::string& object) const {
    if (const auto* s = n.as_string()) return s->get();
    fail(at(n), object, fmt::format("expected a string, got {}", type_phrase(n)));
  }
  bool bool_of(const toml::node& n, const std::string& object) const {
    if (const auto* b = n.as_boolean()) return b->get();
    fail(at(n), object, fmt::format("expected a boolean (true or false), got {}", type_phrase(n)));
  }
  std::vector<std::string> strings_of(const toml::node& n, const std::string& object) const {
    std::vector<std::string> out;
    const toml::array& a = array_of(n, object);
    for (size_t i = 0; i < a.size(); ++i) out.push_back(string_of(*a.get(i), index(object, i)));
    return out;
  }

  // --- [scheduler] -----------------------------------------------------------------------
  void parse_scheduler(const toml::table& t, SchedulerConfig& cfg) const {
    check_keys(t, "scheduler",
               {"period", "actions", "plugin_dirs", "unload_retired_plugins", "canary_timeout",
                "reload_settle", "percentage_of_nodes_to_find", "minimum_feasible_nodes",
                "minimum_percentage_of_nodes_to_find", "threads"});

    if (const toml::node* n = t.get("percentage_of_nodes_to_find"))
      cfg.node_search.percentage = int_in(*n, "scheduler.percentage_of_nodes_to_find", 0, 100);
    if (const toml::node* n = t.get("minimum_feasible_nodes"))
      cfg.node_search.minimum_nodes = int_in(*n, "scheduler.minimum_feasible_nodes", 1, 1 << 30);
    if (const toml::node* n = t.get("minimum_percentage_of_nodes_to_find"))
      cfg.node_search.minimum_percentage =
          int_in(*n, "scheduler.minimum_percentage_of_nodes_to_find", 1, 100);
    if (const toml::node* n = t.get("threads"))
      cfg.threads = int_in(*n, "scheduler.threads", 0, 256);

    if (const toml::node* n = t.get("unload_retired_plugins"))
      cfg.unload_retired_plugins = bool_of(*n, "scheduler.unload_retired_plugins");
    if (const toml::node* n = t.get("canary_timeout"))
      cfg.canary_timeout_seconds = duration_of(*n, "scheduler.canary_timeout", false);
    if (const toml::node* n = t.get("reload_settle"))
      cfg.reload_settle_seconds = duration_of(*n, "scheduler.reload_settle", true);

    if (const toml::node* n = t.get("period")) {
      std::optional<double> secs;
      if (const auto* s = n->as_string()) {
        secs = parse_duration(s->get());
        if (!secs)
          fail(at(*n), "scheduler.period",
               fmt::format("'{}' is not a duration (write e.g. \"1s\", \"500ms\", \"1m30s\")",
                           s->get()));
      } else if (const auto* i = n->as_integer()) {
        secs = static_cast<double>(i->get());
      } else if (const auto* f = n->as_floating_point()) {
        secs = f->get();
      } else {
        fail(at(*n), "scheduler.period",
             fmt::format("expected a duration string or a number of seconds, got {}",
                         type_phrase(*n)));
      }
      if (!std::isfinite(*secs) || *secs <= 0)
        fail(at(*n), "scheduler.period", "must be a positive duration");
      cfg.period_seconds = *secs;
    }

    if (const toml::node* n = t.get("actions")) {
      cfg.actions_src = at(*n);
      const toml::array& a = array_of(*n, "scheduler.actions");
      cfg.actions.clear();
      for (size_t i = 0; i < a.size(); ++i) {
        std::string obj = index("scheduler.actions", i);
        std::string name = string_of(*a.get(i), obj);
        check_action_name(name, *a.get(i), obj);
        cfg.actions.push_back(name);
      }
    }

    if (const toml::node* n = t.get("plugin_dirs")) {
      const toml::array& a = array_of(*n, "scheduler.plugin_dirs");
      if (!a.empty()) cfg.plugin_dirs_src = at(*n);  // an empty list means the defaults
      for (size_t i = 0; i < a.size(); ++i) {
        std::string obj = index("scheduler.plugin_dirs", i);
        std::string dir = string_of(*a.get(i), obj);
        if (dir.empty()) fail(at(*a.get(i)), obj, "empty folder name");
        cfg.plugin_dirs.push_back(resolve(dir));
      }
    }
  }

  // A TOML integer in [lo, hi].
  int32_t int_in(const toml::node& n, const std::string& object, int64_t lo, int64_t hi) const {
    const auto* i = n.as_integer();
    if (!i) fail(at(n), object, fmt::format("expected an integer, got {}", type_phrase(n)));
    if (i->get() < lo || i->get() > hi)
      fail(at(n), object, fmt::format("{} is out of range: must be {} to {}", i->get(), lo, hi));
    return static_cast<int32_t>(i->get());
  }

  // A duration written as a string ("300ms") or a number of seconds; positive, or also
  // zero when `zero_ok`.
  double duration_of(const toml::node& n, const std::string& object, bool zero_ok) const {
    std::optional<double> secs;
    if (const auto* s = n.as_string()) {
      secs = parse_duration(s->get());
      if (!secs)
        fail(at(n), object,
             fmt::format("'{}' is not a duration (write e.g. \"5s\", \"300ms\")", s->get()));
    } else if (const auto* i = n.as_integer()) {
      secs = static_cast<double>(i->get());
    } else if (const auto* f = n.as_floating_point()) {
      secs = f->get();
    } else {
      fail(at(n), object,
           fmt::format("expected a duration string or a number of seconds, got {}",
                       type_phrase(n)));
    }
    if (!std::isfinite(*secs) || *secs < 0 || (!zero_ok && *secs == 0))
      fail(at(n), object, zero_ok ? "must be a duration of zero or more"
                                  : "must be a positive duration");
    return *secs;
  }

  fs::path resolve(const std::string& dir) const {
    fs::path p = fs::absolute(base_ / fs::path(dir)).lexically_normal();
    if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
    return p;
  }

  void check_action_name(const std::string& name, const toml::node& n,
                         const std::string& object) const {
    const auto& known = known_actions();
    if (std::find(known.begin(), known.end(), name) != known.end()) return;
    std::vector<std::string> sorted = known;
    std::sort(sorted.begin(), sorted.end());
    fail(at(n), object, fmt::format("unknown action '{}'; known: {}", name, join(sorted)));
  }

  // --- [[tiers]] -------------------------------------------------------------------------
  void parse_tiers(const toml::node& n, SchedulerConfig& cfg) {
    if (n.is_table())
      fail(at(n), "tiers",
           "expected an array of tables, got a table; start each tier with [[tiers]] before "
           "its [[tiers.plugins]]");
    const toml::array& tiers = array_of(n, "tiers");
    std::map<std::string, std::pair<std::string, SourceRef>> seen;  // plugin -> where
    for (size_t ti = 0; ti < tiers.size(); ++ti) {
      std::string tobj = index("tiers", ti);
      const toml::table& tt = table_of(*tiers.get(ti), tobj);
      check_keys(tt, tobj, {"plugins"});
      TierConfig tier;
      if (const toml::node* pn = tt.get("plugins")) {
        std::string pobj = child(tobj, "plugins");
        const toml::array& plugins = array_of(*pn, pobj);
        for (size_t pi = 0; pi < plugins.size(); ++pi) {
          std::string obj = index(pobj, pi);
          PluginConfig pc = parse_plugin(table_of(*plugins.get(pi), obj), obj);
          // A plugin twice in the policy would run twice per point and double its
          // votes and scores; Volcano keys plugin instances by name, so it is never meant.
          auto [it, fresh] = seen.emplace(pc.name, std::make_pair(obj, pc.src));
          if (!fresh)
            fail(pc.src, fmt::format("{} ({})", obj, pc.name),
                 fmt::format("plugin '{}' is already configured at {} ({})", pc.name,
                             it->second.second.str(), it->second.first));
          tier.plugins.push_back(std::move(pc));
        }
      }
      cfg.tiers.push_back(std::move(tier));
    }
  }

  PluginConfig parse_plugin(const toml::table& t, const std::string& obj) const {
    PluginConfig pc;
    pc.src = at(t);
    // Name first, so every later message can say which plugin it is about.
    const toml::node* nn = t.get("name");
    if (!nn) fail(pc.src, obj, "missing key 'name'");
    pc.name = string_of(*nn, child(obj, "name"));
    if (pc.name.empty()) fail(at(*nn), child(obj, "name"), "empty plugin name");
    std::string named = fmt::format("{} ({})", obj, pc.name);
    check_keys(t, named, {"name", "enable", "disable", "arguments", "hierarchy"});

    const toml::node* en = t.get("enable");
    const toml::node* dn = t.get("disable");
    if (en && dn)
      fail(at(*dn), named,
           "'enable' and 'disable' together; use 'enable' to list the only points the plugin "
           "takes part in, or 'disable' to list the points it stays out of");
    if (en) {
      pc.points = PointSet::none();
      for (Point p : points_of(*en, named + ".enable")) {
        pc.points.add(p);
        pc.enabled_explicitly.add(p);
      }
    } else if (dn) {
      pc.points = PointSet::all();
      for (Point p : points_of(*dn, named + ".disable")) pc.points.remove(p);
    }
    if (const toml::node* hn = t.get("hierarchy")) pc.hierarchy = bool_of(*hn, named + ".hierarchy");
    if (const toml::node* an = t.get("arguments"))
      flatten_arguments(table_of(*an, named + ".arguments"), "", named + ".arguments",
                        pc.arguments);
    return pc;
  }

  std::vector<Point> points_of(const toml::node& n, const std::string& object) const {
    std::vector<Point> out;
    const toml::array& a = array_of(n, object);
    for (size_t i = 0; i < a.size(); ++i) {
      std::string obj = index(object, i);
      std::string name = string_of(*a.get(i), obj);
      std::optional<Point> p = point_from_name(name);
      if (!p)
        fail(at(*a.get(i)), obj,
             fmt::format("unknown extension point '{}'; known: {}", name, all_point_names()));
      out.push_back(*p);
    }
    return out;
  }

  // Arguments keep Volcano's flat dotted names ("binpack.weight"). A TOML dotted key
  // written without quotes (binpack.weight = 1) makes nested tables; those are joined back
  // with '.', so both spellings mean the same argument.
  void flatten_arguments(const toml::table& t, const std::string& prefix,
                         const std::string& object, ArgMap& out) const {
    for (auto&& [k, v] : t) {
      std::string name = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
      if (const toml::table* sub = v.as_table()) {
        flatten_arguments(*sub, name, object, out);
        continue;
      }
      ArgValue av;
      av.src = at(v);
      if (const auto* b = v.as_boolean())
        av.value = b->get();
      else if (const auto* i = v.as_integer())
        av.value = i->get();
      else if (const auto* f = v.as_floating_point())
        av.value = f->get();
      else if (const auto* s = v.as_string())
        av.value = s->get();
      else
        fail(at(v), object,
             fmt::format("argument '{}' is {}; an argument is a boolean, an integer, a float "
                         "or a string",
                         name, type_phrase(v)));
      out[name] = std::move(av);
    }
  }

  // --- [actions.NAME] --------------------------------------------------------------------
  void parse_action_arguments(const toml::table& t, SchedulerConfig& cfg) const {
    for (auto&& [k, v] : t) {
      std::string name(k.str());
      std::string obj = child("actions", name);
      check_action_name(name, v, obj);
      ArgMap args;
      flatten_arguments(table_of(v, obj), "", obj, args);
      cfg.action_arguments[name] = std::move(args);
    }
  }

  std::string file_;
  fs::path base_;
};

std::string read_file(const fs::path& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec))
    throw InputError(fmt::format("{}: cannot read config: it is a folder", file.string()));
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw InputError(fmt::format("{}: cannot read config: {}", file.string(), std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: read error", file.string()));
  return ss.str();
}

}  // namespace

size_t NodeSearchConfig::nodes_to_find(size_t all_nodes) const {
  // Volcano's util.CalculateNumOfFeasibleNodesToFind (baselinePercentageOfNodesToFind 50).
  const int64_t n = static_cast<int64_t>(all_nodes);
  if (n <= minimum_nodes || percentage >= 100) return all_nodes;
  int64_t pct = percentage;
  if (pct <= 0) pct = std::max<int64_t>(50 - n / 125, minimum_percentage);
  const int64_t found = std::max<int64_t>(n * pct / 100, minimum_nodes);
  return static_cast<size_t>(found);
}

std::vector<std::string> SchedulerConfig::plugin_names() const {
  std::vector<std::string> out;
  for (const TierConfig& t : tiers)
    for (const PluginConfig& p : t.plugins)
      if (std::find(out.begin(), out.end(), p.name) == out.end()) out.push_back(p.name);
  return out;
}

const std::vector<std::string>& known_actions() {
  // One source of truth: the action registry.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const ActionInfo& a : action_registry()) v.push_back(a.name);
    return v;
  }();
  return names;
}

SchedulerConfig parse_config(const toml::table& tbl, const fs::path& file,
                             const std::vector<fs::path>& default_plugin_dirs) {
  fs::path base = file.empty() ? fs::current_path() : fs::absolute(file).parent_path();
  Parser p(file.string(), base);
  SchedulerConfig cfg = p.parse(tbl, default_plugin_dirs);
  cfg.file = file;
  return cfg;
}

SchedulerConfig load_config(const fs::path& file,
                            const std::vector<fs::path>& default_plugin_dirs) {
  return load_config_text(read_file(file), file, default_plugin_dirs);
}

SchedulerConfig load_config_text(const std::string& text, const fs::path& file,
                                 const std::vector<fs::path>& default_plugin_dirs) {
  toml::table tbl;
  try {
    tbl = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    SourceRef at = ref(file.string(), e.source());
    throw InputError(fmt::format("{}: TOML syntax error: {}", at.str(), e.description()));
  }
  return parse_config(tbl, file, default_plugin_dirs);
}

}  // namespace caldera
