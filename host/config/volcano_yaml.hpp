// Volcano's own scheduler config (volcano-scheduler.conf: YAML, pkg/scheduler/conf at
// ed72c7c) read as Caldera's config: the YAML is translated to the TOML of SCENARIOS.md
// section 1 and parsed by the one config parser (config.cpp), so every check and message is
// the same; positions in messages and in the parsed config are the YAML file's own.
//
//   actions: "enqueue, allocate"          -> [scheduler] actions = ["enqueue", "allocate"]
//   tiers: - plugins: - name: drf          -> [[tiers]] [[tiers.plugins]] name = "drf"
//            enabledPreemptable: false     ->   disable = ["preemptable"]
//            enableHierarchy: true         ->   hierarchy = true
//            arguments: {a.b: 1, m: {k: v}} ->   arguments = { "a.b" = 1, m = { k = "v" } }
//   configurations: - name: preempt       -> [actions.preempt]
//                     arguments: {...}
//
// YAML scalars keep YAML's types where Volcano's Go structs would read them so (true /
// false, integers, floats; anything else a string). A key Volcano's config does not have,
// or one of its switches for an extension point Caldera does not have, is an error at its
// line and column; so is YAML Caldera cannot mean (anchors aside, a list where a map
// belongs, and the like).
#pragma once

#include <filesystem>
#include <string>

#include "host/config/config.hpp"

namespace caldera {

// Whether `text` is Volcano's YAML rather than TOML: its first line that is neither blank,
// a comment nor a `---` document marker is `key:` (TOML has `key = ...` or `[table]` there).
bool looks_like_volcano_yaml(const std::string& text);

// Volcano's YAML config in `text` (read from `file`) as a SchedulerConfig. Throws
// InputError "FILE:LINE:COLUMN: OBJECT: PROBLEM; expected ..." at the YAML's own position.
SchedulerConfig load_volcano_yaml(const std::string& text, const std::filesystem::path& file,
                                  const std::vector<std::filesystem::path>& default_plugin_dirs);

// The TOML equivalent of Volcano's YAML config (caldera convert-config).
std::string volcano_yaml_to_toml(const std::string& text, const std::filesystem::path& file);

}  // namespace caldera
