// Volcano's YAML scheduler config as Caldera's config (volcano_yaml.hpp).
//
// The YAML is written out as TOML, one generated line per YAML node that can be wrong,
// each line remembering the YAML position it came from; the TOML goes through the one
// config parser, and every position it reports (in an error or in the parsed config) is
// mapped back from the generated line to the YAML's own line and column.
#include "host/config/volcano_yaml.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "host/toml/error.hpp"
#include "host/toml/reader.hpp"
#include "host/util/input_error.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

// Volcano's PluginOption switches (pkg/scheduler/conf/scheduler_conf.go) and the extension
// point each turns off when false; "" for switches of points Caldera does not have.
const std::vector<std::pair<std::string, std::string>>& switches() {
  static const std::vector<std::pair<std::string, std::string>> s = {
      {"enableJobOrder", "job_order"},
      {"enableJobReady", "job_ready"},
      {"enableJobPipelined", "job_pipelined"},
      {"enableTaskOrder", "task_order"},
      {"enablePreemptable", "preemptable"},
      {"enableReclaimable", "reclaimable"},
      {"enablePreemptive", "preemptive"},
      {"enableQueueOrder", "queue_order"},
      {"enabledClusterOrder", ""},
      {"enablePredicate", "predicate"},
      {"enableBestNode", "best_node"},
      {"enableNodeOrder", "node_order"},
      {"enableTargetJob", ""},
      {"enableReservedNodes", ""},
      {"enableJobEnqueued", "job_enqueueable"},
      {"enabledVictim", "victim_tasks"},
      {"enableJobStarving", "job_starving"},
      {"enabledOverused", "overused"},
      {"enabledAllocatable", "allocatable"},
      {"enabledHyperNodeOrder", "hyper_node_order"},
      {"enabledSubJobReady", "sub_job_ready"},
      {"enabledSubJobPipelined", "sub_job_pipelined"},
      {"enabledSubJobOrder", "sub_job_order"},
      {"enabledHyperNodeGradient", ""},
  };
  return s;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else
          out += c;
    }
  }
  return out + "\"";
}

// The generated TOML, each line with the YAML position it stands for.
class Writer {
 public:
  explicit Writer(fs::path file) : file_(std::move(file)) {}

  void line(std::string text, const YAML::Mark& at) {
    text_ += text;
    text_ += '\n';
    marks_.push_back({at.line + 1, at.column + 1});
  }

  [[noreturn]] void fail(const YAML::Mark& at, std::string_view object, std::string_view problem,
                         std::string_view expected) const {
    throw InputError(fmt::format("{}:{}:{}: {}{}{}; expected {}", file_.string(), at.line + 1,
                                 at.column + 1, object, object.empty() ? "" : ": ", problem,
                                 expected));
  }

  const std::string& text() const { return text_; }
  // The YAML line and column of generated line `line` (1-based), or {0, 0}.
  std::pair<int, int> yaml_position(int line) const {
    if (line < 1 || static_cast<size_t>(line) > marks_.size()) return {0, 0};
    return marks_[static_cast<size_t>(line - 1)];
  }
  const fs::path& file() const { return file_; }

 private:
  fs::path file_;
  std::string text_;
  std::vector<std::pair<int, int>> marks_;
};

// A YAML scalar as the TOML value Volcano's Go YAML decoding would give its argument map:
// plain true / false a boolean, plain integers and floats numbers, anything else (quoted
// included) a string.
std::string scalar_value(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() != "!") {  // plain, not quoted
    if (s == "true" || s == "True" || s == "TRUE") return "true";
    if (s == "false" || s == "False" || s == "FALSE") return "false";
    if (!s.empty()) {
      size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
      bool digits = i < s.size();
      for (size_t k = i; k < s.size(); ++k) digits = digits && std::isdigit(static_cast<unsigned char>(s[k]));
      if (digits) return s[0] == '+' ? s.substr(1) : s;
      char* end = nullptr;
      const double d = std::strtod(s.c_str(), &end);
      if (end && *end == '\0' && std::isfinite(d) && s.find_first_of(".eE") != std::string::npos)
        return fmt::format("{}", d);
    }
  }
  return toml_string(s);
}

class Translator {
 public:
  explicit Translator(Writer& w) : w_(w) {}

  void root(const YAML::Node& doc) {
    if (!doc.IsMap())
      w_.fail(doc.Mark(), "", "the document is not a map",
              "Volcano's scheduler config: actions, tiers, configurations");
    for (const auto& kv : doc) {
      const std::string key = kv.first.Scalar();
      if (key == "actions") actions(kv.second);
      else if (key == "tiers") tiers(kv.second);
      else if (key == "configurations") configurations(kv.second);
      else if (key == "metrics")
        spdlog::warn("{}:{}:{}: metrics: ignored (it configures the metrics source of "
                     "Volcano's usage-based plugins, which Caldera does not have)",
                     w_.file().string(), kv.first.Mark().line + 1, kv.first.Mark().column + 1);
      else
        w_.fail(kv.first.Mark(), "",
                fmt::format("unknown key '{}'{}", key,
                            input::did_you_mean(key, {"actions", "tiers", "configurations",
                                                      "metrics"})),
                "one of the keys of Volcano's scheduler config: actions, tiers, "
                "configurations, metrics");
    }
  }

 private:
  void actions(const YAML::Node& v) {
    if (!v.IsScalar())
      w_.fail(v.Mark(), "actions", "not a string", "a string such as \"enqueue, allocate, backfill\"");
    std::string list;
    std::string_view s = v.Scalar();
    while (!s.empty()) {
      const size_t comma = s.find(',');
      std::string_view item = s.substr(0, comma);
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
      if (!item.empty()) list += (list.empty() ? "" : ", ") + toml_string(item);
      s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    }
    w_.line("[scheduler]", v.Mark());
    w_.line("actions = [" + list + "]", v.Mark());
  }

  void tiers(const YAML::Node& v) {
    if (!v.IsSequence()) w_.fail(v.Mark(), "tiers", "not a list", "a list of tiers, each with plugins");
    for (size_t t = 0; t < v.size(); ++t) {
      const YAML::Node& tier = v[t];
      const std::string path = fmt::format("tiers[{}]", t);
      if (!tier.IsMap()) w_.fail(tier.Mark(), path, "not a map", "a map with the key plugins");
      w_.line("[[tiers]]", tier.Mark());
      for (const auto& kv : tier) {
        if (kv.first.Scalar() != "plugins")
          w_.fail(kv.first.Mark(), path, fmt::format("unknown key '{}'", kv.first.Scalar()),
                  "plugins");
        const YAML::Node& plugins = kv.second;
        if (!plugins.IsSequence())
          w_.fail(plugins.Mark(), path + ".plugins", "not a list", "a list of plugins");
        for (size_t p = 0; p < plugins.size(); ++p)
          plugin(plugins[p], fmt::format("{}.plugins[{}]", path, p));
      }
    }
  }

  void plugin(const YAML::Node& p, const std::string& path) {
    if (!p.IsMap()) w_.fail(p.Mark(), path, "not a map", "a plugin: name, its switches, arguments");
    w_.line("[[tiers.plugins]]", p.Mark());
    std::vector<std::pair<std::string, YAML::Mark>> off;  // points switched off
    // A handle of its own (a map iteration's pair does not outlive its step; a copy is a
    // handle, where assigning to a Node would write through it).
    std::optional<YAML::Node> arguments;
    for (const auto& kv : p) {
      const std::string key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      if (key == "name") {
        if (!v.IsScalar()) w_.fail(v.Mark(), path + ".name", "not a string", "a plugin name");
        w_.line("name = " + toml_string(v.Scalar()), v.Mark());
      } else if (key == "arguments") {
        arguments.emplace(kv.second);
      } else if (key == "enableHierarchy") {
        w_.line("hierarchy = " + boolean(v, path + "." + key), v.Mark());
      } else {
        auto it = std::find_if(switches().begin(), switches().end(),
                               [&](const auto& s) { return s.first == key; });
        if (it == switches().end()) {
          std::vector<std::string> known = {"name", "arguments", "enableHierarchy"};
          for (const auto& s : switches()) known.push_back(s.first);
          std::string all;
          for (const std::string& k : known) all += (all.empty() ? "" : ", ") + k;
          w_.fail(kv.first.Mark(), path,
                  fmt::format("unknown key '{}'{}", key, input::did_you_mean(key, known)),
                  "one of " + all);
        }
        const bool on = boolean(v, path + "." + key) == "true";
        if (it->second.empty()) {
          if (!on)
            w_.fail(kv.first.Mark(), path,
                    fmt::format("'{}: false' switches off an extension point Caldera does not "
                                "have", key),
                    "the switch left out");
          continue;  // on is the default: nothing to say
        }
        if (!on) off.emplace_back(it->second, v.Mark());
      }
    }
    if (!off.empty()) {
      std::string list;
      for (const auto& [point, _] : off) list += (list.empty() ? "" : ", ") + toml_string(point);
      w_.line("disable = [" + list + "]", off.front().second);
    }
    if (arguments) {
      if (!arguments->IsMap() && !arguments->IsNull())
        w_.fail(arguments->Mark(), path + ".arguments", "not a map", "a map of arguments");
      w_.line("[tiers.plugins.arguments]", arguments->Mark());
      if (arguments->IsMap()) leaves(*arguments, "", path + ".arguments");
    }
  }

  // Each leaf of an argument map as a dotted key on its own line.
  void leaves(const YAML::Node& m, const std::string& prefix, const std::string& path) {
    for (const auto& kv : m) {
      const std::string key = prefix + toml_string(kv.first.Scalar());
      const YAML::Node& v = kv.second;
      if (v.IsMap()) {
        leaves(v, key + ".", path + "." + kv.first.Scalar());
      } else if (v.IsScalar()) {
        w_.line(key + " = " + scalar_value(v), v.Mark());
      } else if (v.IsSequence() &&
                 std::all_of(v.begin(), v.end(), [](const YAML::Node& e) { return e.IsScalar(); })) {
        // A list of names (extender.managedResources): one comma-separated string, the form
        // Caldera's string arguments take lists in.
        std::string joined;
        for (const YAML::Node& e : v) joined += (joined.empty() ? "" : ",") + e.Scalar();
        w_.line(key + " = " + toml_string(joined), v.Mark());
      } else {
        w_.fail(v.Mark(), path + "." + kv.first.Scalar(),
                v.IsSequence() ? "a list of lists or maps" : "no value",
                "a boolean, a number, a string, a list of strings or a map of them");
      }
    }
  }

  void configurations(const YAML::Node& v) {
    if (!v.IsSequence())
      w_.fail(v.Mark(), "configurations", "not a list", "a list of {name, arguments} of actions");
    for (size_t i = 0; i < v.size(); ++i) {
      const YAML::Node& c = v[i];
      const std::string path = fmt::format("configurations[{}]", i);
      if (!c.IsMap() || !c["name"] || !c["name"].IsScalar())
        w_.fail(c.Mark(), path, "no action name", "name: ACTION with its arguments");
      for (const auto& kv : c)
        if (kv.first.Scalar() != "name" && kv.first.Scalar() != "arguments")
          w_.fail(kv.first.Mark(), path, fmt::format("unknown key '{}'", kv.first.Scalar()),
                  "name, arguments");
      w_.line("[actions." + toml_string(c["name"].Scalar()) + "]", c["name"].Mark());
      const YAML::Node args = c["arguments"];
      if (args && args.IsMap()) leaves(args, "", path + ".arguments");
      else if (args && !args.IsNull())
        w_.fail(args.Mark(), path + ".arguments", "not a map", "a map of the action's arguments");
    }
  }

  std::string boolean(const YAML::Node& v, const std::string& path) const {
    if (v.IsScalar() && v.Tag() != "!") {
      const std::string s = scalar_value(v);
      if (s == "true" || s == "false") return s;
    }
    w_.fail(v.Mark(), path, "not a boolean", "true or false");
  }

  Writer& w_;
};

Writer translate(const std::string& text, const fs::path& file) {
  Writer w(file);
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}:{}: YAML syntax error: {}", file.string(), e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  }
  Translator(w).root(doc);
  return w;
}

// "FILE:LINE:COLUMN: ..." at a generated line, as the YAML's position.
std::string remap_message(const std::string& what, const Writer& w) {
  const std::string head = w.file().string() + ":";
  if (what.rfind(head, 0) != 0) return what;
  size_t p = head.size();
  size_t q = what.find(':', p);
  if (q == std::string::npos) return what;
  int line = 0;
  try {
    line = std::stoi(what.substr(p, q - p));
  } catch (...) {
    return what;
  }
  size_t r = what.find(':', q + 1);  // the column ends here, when there is one
  std::string rest = what.substr(q);
  if (r != std::string::npos && r > q + 1 &&
      what.find_first_not_of("0123456789", q + 1) == r)
    rest = what.substr(r);
  const auto [yl, yc] = w.yaml_position(line);
  if (yl == 0) return what;
  return fmt::format("{}{}:{}{}", head, yl, yc, rest);
}

void remap(SourceRef& s, const Writer& w) {
  if (s.line <= 0) return;
  const auto [yl, yc] = w.yaml_position(s.line);
  if (yl == 0) return;
  s.line = yl;
  s.column = yc;
}

}  // namespace

bool looks_like_volcano_yaml(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line(text.data() + pos, (end == std::string::npos ? text.size() : end) - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    size_t i = line.find_first_not_of(" \t\r");
    if (i == std::string_view::npos || line[i] == '#') continue;
    line.remove_prefix(i);
    if (line.substr(0, 3) == "---") continue;  // a YAML document marker
    size_t k = 0;
    while (k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) ||
                               line[k] == '_' || line[k] == '-'))
      ++k;
    return k > 0 && k < line.size() && line[k] == ':';
  }
  return false;
}

std::string volcano_yaml_to_toml(const std::string& text, const fs::path& file) {
  return translate(text, file).text();
}

SchedulerConfig load_volcano_yaml(const std::string& text, const fs::path& file,
                                  const std::vector<fs::path>& default_plugin_dirs) {
  const Writer w = translate(text, file);
  SchedulerConfig cfg;
  try {
    cfg = load_config_text(w.text(), file, default_plugin_dirs);
  } catch (const InputError& e) {
    throw InputError(remap_message(e.what(), w));
  }
  remap(cfg.actions_src, w);
  for (SourceRef& s : cfg.action_srcs) remap(s, w);
  remap(cfg.plugin_dirs_src, w);
  for (TierConfig& t : cfg.tiers)
    for (PluginConfig& p : t.plugins) {
      remap(p.src, w);
      for (auto& [_, a] : p.arguments) remap(a.src, w);
    }
  for (auto& [_, args] : cfg.action_arguments)
    for (auto& [__, a] : args) remap(a.src, w);
  for (auto& [_, s] : cfg.action_arguments_src) remap(s, w);
  return cfg;
}

}  // namespace caldera
