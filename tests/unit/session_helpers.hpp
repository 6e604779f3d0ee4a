// Shared by the unit tests that run sessions: one session with a Runtime of its own, as a
// front end runs it (host/scheduler/run_session.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <string_view>

#include <toml++/toml.h>

#include "host/config/config.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/plugins/policy.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/scheduler/run_session.hpp"

namespace caldera::testing {

// The policy of a scheduler config written as TOML, with the built-in plugins.
inline std::shared_ptr<const Policy> policy_from_config(const std::string& config_toml) {
  const toml::table t = toml::parse(std::string_view(config_toml));
  SchedulerConfig c = parse_config(t, "test-config.toml", {CALDERA_BUILTIN_PLUGIN_DIR});
  return build_policy(c, PluginCatalog::scan(c.plugin_dirs), "");
}

inline SessionResult run_one_session(const Cache& cache, std::shared_ptr<const Policy> policy,
                                     double now) {
  Runtime runtime;
  return run_session(cache, std::move(policy), now, runtime);
}

// A cache holding the cluster objects of a scenario text (`file` names it in errors).
inline Cache cache_from_scenario_text(const std::string& text, std::string_view file) {
  Cache cache;
  const toml::table t = toml::parse(std::string_view(text), file);
  load_cluster_objects(t, std::string(file), cache);
  return cache;
}

// Scenario text of queue "q" and the Inqueue PodGroup c1/pg of minMember 1 in it: the
// start of the node-search tests' clusters.
inline constexpr const char* kQueueAndInqueueGroup = R"(
[[queues]]
name = "q"
[[podgroups]]
name = "pg"
namespace = "c1"
queue = "q"
min_member = 1
phase = "Inqueue"
)";

// A queue of default settings, and a PodGroup: what most tests' clusters start with.
inline void add_queue(Cache& cache, std::string name) {
  QueueSpec q;
  q.name = std::move(name);
  cache.upsert_queue(std::move(q));
}
inline void add_podgroup(Cache& cache, std::string ns, std::string name, std::string queue,
                         int32_t min_member = 1, JobPhase phase = JobPhase::Pending) {
  PodGroupSpec pg;
  pg.ns = std::move(ns);
  pg.name = std::move(name);
  pg.queue = std::move(queue);
  pg.min_member = min_member;
  pg.phase = phase;
  cache.upsert_podgroup(std::move(pg));
}

}  // namespace caldera::testing
