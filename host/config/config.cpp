// The scheduler config file (SCENARIOS.md section 1).
//
// Follows Volcano's scheduler configuration (pkg/scheduler/conf/scheduler_conf.go and
// unmarshalSchedulerConf in pkg/scheduler/util.go): an ordered action list, tiers of
// plugins with per-point switches and free-form arguments, and per-action arguments.
// Volcano reads YAML into Go structs and silently ignores unknown keys; Caldera checks every
// key and every type, and reports the file, line, column and object of the first problem
// (host/toml/reader.hpp has the format), because a silently ignored typo ("wieght") is a
// policy that quietly does something else.
#include "host/config/config.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "host/config/volcano_yaml.hpp"
#include "host/model/quantity.hpp"
#include "host/toml/duration.hpp"
#include "host/toml/quantity.hpp"
#include "host/toml/reader.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

using input::Array;
using input::Entry;
using input::Table;
using input::Value;

const std::vector<std::string>& point_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (int i = 0; i < kPointCount; ++i) v.emplace_back(point_name(static_cast<Point>(i)));
    return v;
  }();
  return names;
}

// Parses one config (a whole file or a scenario's [config] table).
class Parser {
 public:
  explicit Parser(fs::path base_dir) : base_(std::move(base_dir)) {}

  SchedulerConfig parse(const Table& root, const std::vector<fs::path>& default_plugin_dirs) {
    SchedulerConfig cfg;
    cfg.actions_src = SourceRef{root.file(), 0, 0};
    cfg.plugin_dirs_src = cfg.actions_src;
    cfg.object_path = root.path();
    root.check_keys({"scheduler", "tiers", "actions"});

    if (auto v = root.get("scheduler")) parse_scheduler(v->table(), cfg);
    if (auto v = root.get("tiers")) parse_tiers(*v, cfg);
    if (auto v = root.get("actions"))
      parse_action_arguments(v->table("a table of [actions.NAME] tables"), cfg);

    if (cfg.plugin_dirs.empty()) cfg.plugin_dirs = default_plugin_dirs;
    return cfg;
  }

 private:
  // --- [scheduler] -----------------------------------------------------------------------
  void parse_scheduler(const Table& t, SchedulerConfig& cfg) const {
    t.check_keys({"period", "actions", "plugin_dirs", "unload_retired_plugins", "canary_timeout",
                  "reload_settle", "percentage_of_nodes_to_find", "minimum_feasible_nodes",
                  "minimum_percentage_of_nodes_to_find", "threads", "session_timeout",
                  "session_memory_limit", "on_plugin_fault", "isolation",
                  "count_csi_volumes", "ignored_provisioners"});

    if (auto v = t.opt_int("percentage_of_nodes_to_find", 0, 100))
      cfg.node_search.percentage = static_cast<int32_t>(*v);
    if (auto v = t.opt_int("minimum_feasible_nodes", 1, 1 << 30))
      cfg.node_search.minimum_nodes = static_cast<int32_t>(*v);
    if (auto v = t.opt_int("minimum_percentage_of_nodes_to_find", 1, 100))
      cfg.node_search.minimum_percentage = static_cast<int32_t>(*v);
    if (auto v = t.opt_int("threads", 0, 256)) cfg.threads = static_cast<int32_t>(*v);
    if (auto v = t.opt_bool("count_csi_volumes")) cfg.count_csi_volumes = *v;
    if (auto v = t.get("ignored_provisioners")) cfg.ignored_provisioners = v->strings();

    if (auto v = t.opt_bool("unload_retired_plugins")) cfg.unload_retired_plugins = *v;
    if (auto v = t.get("canary_timeout"))
      cfg.canary_timeout_seconds = input::seconds(*v, input::DurationMin::Positive);
    if (auto v = t.get("reload_settle"))
      cfg.reload_settle_seconds = input::seconds(*v, input::DurationMin::ZeroOrMore);
    if (auto v = t.get("period")) cfg.period_seconds = input::seconds(*v, input::DurationMin::Positive);

    // Supervised sessions (docs/ISOLATION.md).
    if (auto v = t.get("session_timeout"))
      cfg.session_timeout_seconds = input::seconds(*v, input::DurationMin::Positive);
    if (auto v = t.get("session_memory_limit"))
      cfg.session_memory_limit_bytes = input::quantity(*v, "memory", resource_amount);
    // A word out of two, with what each means.
    auto one_of = [&](const char* key, const char* a, const char* b, const char* meaning,
                      std::string& out) {
      auto v = t.get(key);
      if (!v) return;
      const std::string expected = fmt::format("\"{}\" or \"{}\"", a, b);
      std::string s = v->string(expected);
      if (s != a && s != b) v->fail("unknown value '" + s + "'", expected + ": " + meaning);
      out = s;
    };
    one_of("on_plugin_fault", "fallback", "disable",
           "run the last plugin set that completed a session, else nothing; or go on without "
           "the faulty plugin",
           cfg.on_plugin_fault);
    one_of("isolation", "process", "in-process",
           "each session in a worker process (the default); or in the scheduler itself, for "
           "profilers and debuggers",
           cfg.isolation);

    // Action names are the actions' business: build_policy() checks them, pointing at
    // the name with action_srcs.
    if (auto v = t.get("actions")) {
      cfg.actions_src = v->src();
      Array a = v->array("an array of action names");
      cfg.actions.clear();
      for (size_t i = 0; i < a.size(); ++i) {
        std::string name = a[i].string("an action name such as \"allocate\"");
        // An action twice runs twice per session: never what a config means.
        auto first = std::find(cfg.actions.begin(), cfg.actions.end(), name);
        if (first != cfg.actions.end())
          a[i].fail(fmt::format("action '{}' is already in the list, at {}", name,
                                cfg.action_srcs[static_cast<size_t>(first - cfg.actions.begin())].str()),
                    "each action once");
        cfg.actions.push_back(std::move(name));
        cfg.action_srcs.push_back(a[i].src());
      }
    }

    if (auto v = t.get("plugin_dirs")) {
      Array a = v->array("an array of folder names");
      if (!a.empty()) cfg.plugin_dirs_src = v->src();  // an empty list means the defaults
      for (size_t i = 0; i < a.size(); ++i) {
        std::string dir = a[i].string("a folder name");
        if (dir.empty()) a[i].fail("empty folder name", "the name of a folder of plugins");
        cfg.plugin_dirs.push_back(resolve(dir));
      }
    }
  }

  fs::path resolve(const std::string& dir) const {
    fs::path p = fs::absolute(base_ / fs::path(dir)).lexically_normal();
    if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
    return p;
  }

  // --- [[tiers]] -------------------------------------------------------------------------
  void parse_tiers(const Value& v, SchedulerConfig& cfg) {
    if (v.node().is_table())
      v.fail("got a table",
             "an array of tables (start each tier with [[tiers]] before its [[tiers.plugins]])");
    std::map<std::string, std::pair<std::string, SourceRef>> seen;  // plugin -> where
    for (const Table& tt : v.array("an array of tables ([[tiers]])").tables()) {
      tt.check_keys({"plugins"});
      TierConfig tier;
      if (auto pn = tt.get("plugins")) {
        for (const Table& pt : pn->array("an array of tables ([[tiers.plugins]])").tables()) {
          PluginConfig pc = parse_plugin(pt);
          // A plugin twice in the policy would run twice per point and double its
          // votes and scores; Volcano keys plugin instances by name, so it is never meant.
          auto [it, fresh] = seen.emplace(pc.name, std::make_pair(pt.path(), pc.src));
          if (!fresh)
            pt.named(pc.name).fail(
                fmt::format("plugin '{}' is already configured at {} ({})", pc.name,
                            it->second.second.str(), it->second.first),
                "each plugin once in the tiers");
          tier.plugins.push_back(std::move(pc));
        }
      }
      cfg.tiers.push_back(std::move(tier));
    }
  }

  PluginConfig parse_plugin(const Table& t) const {
    PluginConfig pc;
    pc.src = t.src();
    // Name first, so every later message can say which plugin it is about.
    Value nv = t.require("name", "the plugin's name, such as name = \"gang\"");
    pc.name = nv.string("a plugin name such as \"gang\"");
    if (pc.name.empty()) nv.fail("empty plugin name", "a plugin name such as \"gang\"");
    const Table named = t.named(pc.name);
    named.check_keys({"name", "enable", "disable", "arguments", "hierarchy"});

    std::optional<Value> en = named.get("enable");
    std::optional<Value> dn = named.get("disable");
    if (en && dn)
      dn->fail("'enable' and 'disable' together",
               "one of them: 'enable' lists the only points the plugin takes part in, "
               "'disable' the points it stays out of");
    if (en) {
      pc.points = PointSet::none();
      for (Point p : points_of(*en)) {
        pc.points.add(p);
        pc.enabled_explicitly.add(p);
      }
    } else if (dn) {
      pc.points = PointSet::all();
      for (Point p : points_of(*dn)) pc.points.remove(p);
    }
    if (auto h = named.opt_bool("hierarchy")) pc.hierarchy = *h;
    if (auto an = named.get("arguments"))
      flatten_arguments(an->table("a table of arguments"), "", pc.arguments);
    return pc;
  }

  std::vector<Point> points_of(const Value& v) const {
    std::vector<Point> out;
    Array a = v.array("an array of extension point names");
    for (size_t i = 0; i < a.size(); ++i) {
      std::string name = a[i].string("an extension point name such as \"job_order\"");
      std::optional<Point> p = point_from_name(name);
      if (!p)
        a[i].fail(fmt::format("unknown extension point '{}'{}", name,
                              input::did_you_mean(name, point_names())),
                  "one of " + all_point_names());
      out.push_back(*p);
    }
    return out;
  }

  // Arguments keep Volcano's flat dotted names ("binpack.weight"). A TOML dotted key
  // written without quotes (binpack.weight = 1) makes nested tables; those are joined back
  // with '.', so both spellings mean the same argument.
  void flatten_arguments(const Table& t, const std::string& prefix, ArgMap& out) const {
    for (const Entry& e : t.entries()) {
      std::string name = prefix.empty() ? e.key : prefix + "." + e.key;
      const toml::node& n = e.value.node();
      if (n.is_table()) {
        flatten_arguments(e.value.table(), name, out);
        continue;
      }
      ArgValue av;
      av.src = e.value.src();
      if (const auto* b = n.as_boolean())
        av.value = b->get();
      else if (const auto* i = n.as_integer())
        av.value = i->get();
      else if (const auto* f = n.as_floating_point())
        av.value = f->get();
      else if (const auto* s = n.as_string())
        av.value = s->get();
      else
        e.value.wrong_type("an argument: a boolean, an integer, a float or a string");
      out[name] = std::move(av);
    }
  }

  // --- [actions.NAME] --------------------------------------------------------------------
  void parse_action_arguments(const Table& t, SchedulerConfig& cfg) const {
    for (const Entry& e : t.entries()) {
      ArgMap args;
      flatten_arguments(e.value.table("a table of the action's arguments"), "", args);
      cfg.action_arguments[e.key] = std::move(args);
      cfg.action_arguments_src[e.key] = e.value.src();
    }
  }

  fs::path base_;
};

SchedulerConfig parse_root(const Table& root, const fs::path& file,
                           const std::vector<fs::path>& default_plugin_dirs) {
  fs::path base = file.empty() ? fs::current_path() : fs::absolute(file).parent_path();
  SchedulerConfig cfg = Parser(base).parse(root, default_plugin_dirs);
  cfg.file = file;
  return cfg;
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

SchedulerConfig parse_config(const toml::table& tbl, const fs::path& file,
                             const std::vector<fs::path>& default_plugin_dirs,
                             const std::string& object_path) {
  return parse_root(Table(tbl, file, object_path), file, default_plugin_dirs);
}

SchedulerConfig load_config(const fs::path& file,
                            const std::vector<fs::path>& default_plugin_dirs) {
  return load_config_text(input::read_text(file, "config", input::kMaxConfigBytes), file,
                          default_plugin_dirs);
}

SchedulerConfig load_config_text(const std::string& text, const fs::path& file,
                                 const std::vector<fs::path>& default_plugin_dirs) {
  // Volcano's volcano-scheduler.conf, by content whatever the file's name.
  if (looks_like_volcano_yaml(text)) return load_volcano_yaml(text, file, default_plugin_dirs);
  input::Document doc = input::parse_text(text, file);
  return parse_root(doc.table(), file, default_plugin_dirs);
}

}  // namespace caldera
