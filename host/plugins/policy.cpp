// Building a Policy from a config and the plugins found on disk.
//
// Volcano does this at every session open (pkg/scheduler/framework/framework.go:
// OpenSession looks up each tier's plugin builder by name and calls it with the plugin's
// arguments; an unknown plugin is only logged). Caldera resolves and validates everything
// once, when the config or a plugin changes, so that a policy that would misbehave is
// refused as a whole before any session uses it, with the exact reason.
#include "host/plugins/policy.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "actions/action.hpp"
#include "host/util/child_run.hpp"
#include "host/util/fd_io.hpp"
#include "host/util/spelling.hpp"

namespace caldera {

namespace {

std::string where(const SourceRef& src) {
  std::string w = src.str();
  return w.empty() ? std::string() : w + ": ";
}

std::string dirs_text(const std::vector<std::filesystem::path>& dirs) {
  std::string out;
  for (const auto& d : dirs) {
    if (!out.empty()) out += ", ";
    out += d.string();
  }
  return out.empty() ? "no folder" : out;
}

// Levenshtein distance, for "did you mean" on a misspelt plugin name.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// Volcano's plugins and actions (ed72c7c) that Caldera does not have, with why: a config
// naming one is refused with the reason rather than a guess at a typo.
const char* volcano_only(std::string_view kind, std::string_view name) {
  struct Missing { std::string_view kind, name, why; };
  static constexpr Missing kMissing[] = {
      {"plugin", "usage",
       "it filters and scores nodes by their measured load, read from a metrics server "
       "(Prometheus, Elasticsearch or the metrics API), which Caldera does not read"},
      {"plugin", "rescheduling",
       "it evicts pods from nodes by their measured load, read from a metrics server, which "
       "Caldera does not read"},
  };
  for (const Missing& m : kMissing)
    if (m.kind == kind && m.name == name) return m.why.data();
  return nullptr;
}

// "unknown plugin" message: what was found, and which files could have been it.
std::string not_found(const SchedulerConfig& config, const PluginCatalog& catalog,
                      const std::string& object, const PluginConfig& pc) {
  std::string known;
  for (const auto& lib : catalog.plugins()) {
    if (!known.empty()) known += ", ";
    known += lib->info().name;
  }
  // The closest name found, when it is close enough to be a typo (at most a third of the
  // letters differ); the first in name order among equals, so the message is stable.
  std::string guess;
  size_t best = pc.name.size() / 3 + 1;
  for (const auto& lib : catalog.plugins()) {
    size_t d = edit_distance(pc.name, lib->info().name);
    if (d < best) {
      best = d;
      guess = lib->info().name;
    }
  }
  const char* why = volcano_only("plugin", pc.name);
  if (why != nullptr) guess.clear();
  std::string msg = fmt::format("{}{}: unknown plugin '{}'{}; plugins found in {}: {}",
                                where(pc.src), object, pc.name,
                                why != nullptr ? std::string(": Volcano's ") + pc.name +
                                                     " plugin is not in Caldera: " + why
                                : guess.empty() ? ""
                                                : " (did you mean '" + guess + "'?)",
                                dirs_text(config.plugin_dirs), known.empty() ? "none" : known);
  if (!catalog.failures().empty()) {
    msg += "; files that failed to load:";
    for (const auto& f : catalog.failures()) msg += fmt::format(" [{}]", f.error);
  }
  return msg;
}

// A plugin whose descriptor sets check_args: where it sits and how to name it.
struct ArgsCheck {
  size_t tier, index;
  std::string object;  // "file:line:col: tiers[0].plugins[1] (name)"
};

// The plugins' own argument checks (cal_plugin.check_args) are plugin code: they run in a
// child (host/util/child_run.hpp), which loads the plugins that have one and reports each
// answer; the first refusal, or a crash or hang, is an InputError naming the plugin.
void check_args_in_child(const Policy& policy, const std::vector<ArgsCheck>& checks) {
  if (checks.empty()) return;
  ChildRun run = run_in_child(
      [&](int fd) {
        for (size_t i = 0; i < checks.size(); ++i) {
          const ConfiguredPlugin& cp = policy.tiers[checks[i].tier][checks[i].index];
          if (!write_all(fd, fmt::format("check {}\n", i))) return 1;
          std::string answer;
          try {
            const cal_plugin* d = cp.code->descriptor();
            cal_status st{};
            st.struct_size = sizeof st;
            if (d->check_args && d->check_args(reinterpret_cast<const cal_args*>(cp.args.get()),
                                               &st) != CAL_SUCCESS) {
              st.reason[sizeof st.reason - 1] = '\0';
              std::string why = st.reason[0] ? st.reason : "arguments refused";
              for (char& c : why)
                if (c == '\n') c = ' ';
              answer = fmt::format("refused {}\n", why);
            } else {
              answer = "ok\n";
            }
          } catch (const std::exception& e) {
            std::string why = e.what();
            for (char& c : why)
              if (c == '\n') c = ' ';
            answer = fmt::format("refused {}\n", why);
          }
          if (!write_all(fd, answer)) return 1;
        }
        return 0;
      },
      10.0 + 1.0 * static_cast<double>(checks.size()));
  std::istringstream in(run.output);
  size_t on = 0;
  bool answered = false;
  for (std::string line; std::getline(in, line);) {
    if (in.eof()) break;
    if (line.rfind("check ", 0) == 0) {
      on = std::strtoull(line.c_str() + 6, nullptr, 10);
      answered = false;
      if (on >= checks.size()) break;
    } else if (line.rfind("refused ", 0) == 0) {
      throw InputError(fmt::format("{}: {}", checks[on].object, line.substr(8)));
    } else if (line == "ok") {
      answered = true;
    }
  }
  if (run.how == ChildRun::How::Exited && run.code == 0 && answered && on + 1 == checks.size())
    return;
  throw InputError(fmt::format("{}: checking its arguments {}", checks[on].object,
                               run.how == ChildRun::How::Signaled ? "crashed with " + run.ending()
                                                                  : run.ending()));
}

}  // namespace

std::shared_ptr<const Policy> build_policy(const SchedulerConfig& config,
                                           const PluginCatalog& catalog,
                                           const std::string& config_text_hash) {
  auto policy = std::make_shared<Policy>();

  // Actions: every name known, every argument declared by the action. The config layer
  // does not know the actions; this is where a misspelt name is caught, at its position.
  std::vector<std::string> known_actions;
  for (const ActionInfo& a : action_registry()) known_actions.push_back(a.name);
  std::sort(known_actions.begin(), known_actions.end());
  auto unknown_action = [&](const SourceRef& at, const std::string& object, const std::string& name) {
    std::string guess = closest_word(name, known_actions);
    std::string list;
    for (const auto& k : known_actions) list += (list.empty() ? "" : ", ") + k;
    const char* why = volcano_only("action", name);
    return InputError(fmt::format(
        "{}{}: unknown action '{}'{}; expected one of {}", where(at), object, name,
        why != nullptr ? std::string(": Volcano's ") + name + " action is not in Caldera: " + why
        : guess.empty() ? ""
                        : " (did you mean '" + guess + "'?)",
        list));
  };
  const std::string prefix = config.object_path.empty() ? "" : config.object_path + ".";
  for (size_t i = 0; i < config.actions.size(); ++i) {
    if (find_action(config.actions[i])) continue;
    SourceRef at = i < config.action_srcs.size() ? config.action_srcs[i] : config.actions_src;
    throw unknown_action(at, fmt::format("{}scheduler.actions[{}]", prefix, i), config.actions[i]);
  }
  for (const auto& [name, args] : config.action_arguments) {
    const ActionInfo* info = find_action(name);
    if (!info) {
      auto src = config.action_arguments_src.find(name);
      throw unknown_action(src != config.action_arguments_src.end()
                               ? src->second
                               : SourceRef{config.file.string(), 0, 0},
                           prefix + "actions." + name, name);
    }
    policy->action_args[name] =
        std::make_shared<const Args>(Args::validate("actions." + name, info->options, args));
    if (std::find(config.actions.begin(), config.actions.end(), name) == config.actions.end())
      spdlog::warn("{}: [actions.{}] has arguments, but '{}' is not in scheduler.actions",
                   config.file.string(), name, name);
  }

  // Actions without a table run with their declared defaults.
  for (const std::string& a : config.actions)
    if (!policy->action_args.count(a))
      policy->action_args[a] =
          std::make_shared<const Args>(Args::validate("actions." + a, find_action(a)->options, {}));

  // Tiers: every plugin found, its points and arguments resolved.
  std::vector<ArgsCheck> args_checks;
  for (size_t ti = 0; ti < config.tiers.size(); ++ti) {
    std::vector<ConfiguredPlugin> tier;
    for (size_t pi = 0; pi < config.tiers[ti].plugins.size(); ++pi) {
      const PluginConfig& pc = config.tiers[ti].plugins[pi];
      std::string object = fmt::format("tiers[{}].plugins[{}]", ti, pi);
      std::shared_ptr<const PluginFile> file = catalog.find(pc.name);
      if (!file) throw InputError(not_found(config, catalog, object, pc));
      const PluginInfo& info = file->info();

      ConfiguredPlugin cp;
      cp.code = file;
      cp.implemented = info.implemented;
      cp.file_id = info.file.string() + "\n" + info.sha256;
      cp.name = pc.name;
      cp.hierarchy = pc.hierarchy;
      cp.points = PointSet::none();
      std::string lacking;  // points the `enable` list names that the plugin does not extend
      bool takes_part = false;
      for (int i = 0; i < kPointCount; ++i) {
        auto p = static_cast<Point>(i);
        if (!pc.points.has(p)) continue;
        if (info.implemented.has(p)) {
          cp.points.add(p);
          takes_part = true;
        } else if (pc.enabled_explicitly.has(p)) {
          lacking += fmt::format("{}{}", lacking.empty() ? "" : ", ", point_name(p));
        }
      }
      // An `enable` list naming a point the plugin does not implement, in kube-scheduler's
      // words ("plugin %q does not extend %s plugin"). When the list names nothing the
      // plugin implements, the plugin would take part in nothing: a config error. When it
      // also names points the plugin implements, the rest is a no-op, as in Volcano (whose
      // shipped and test configs enable points on every plugin of a tier): a warning.
      // Points left to the default (no enable list) are never reported.
      if (!lacking.empty()) {
        std::string implemented;
        for (int i = 0; i < kPointCount; ++i)
          if (info.implemented.has(static_cast<Point>(i)))
            implemented += fmt::format("{}{}", implemented.empty() ? "" : ", ",
                                       point_name(static_cast<Point>(i)));
        std::string msg = fmt::format("{}{} ({}): plugin \"{}\" does not extend {}",
                                      where(pc.src), object, pc.name, pc.name, lacking);
        if (!takes_part)
          throw InputError(fmt::format(
              "{}: 'enable' names only points the plugin does not implement, so it would take "
              "part in nothing; it implements {} ({})",
              msg, implemented.empty() ? "none" : implemented, info.file.string()));
        spdlog::warn("{}; that part of 'enable' has no effect (the plugin implements {})", msg,
                     implemented);
      }
      Args args =
          Args::validate(fmt::format("{} ({})", object, pc.name), info.options, pc.arguments);
      args.set_hierarchy(pc.hierarchy);
      if (info.checks_args)
        args_checks.push_back({ti, tier.size(), fmt::format("{}{} ({})", where(pc.src), object, pc.name)});
      cp.args = std::make_shared<const Args>(std::move(args));
      tier.push_back(std::move(cp));
    }
    policy->tiers.push_back(std::move(tier));
  }

  check_args_in_child(*policy, args_checks);
  policy->config = config;
  policy->config_hash = config_text_hash;
  return policy;
}

}  // namespace caldera
