// Building a Policy: a config whose plugins are all found, loaded and whose arguments are
// validated. Either the whole policy builds, or an InputError says exactly what is wrong;
// nothing half-built is ever returned (reload relies on this).
#pragma once

#include <memory>

#include "host/config/config.hpp"
#include "host/plugins/plugin_library.hpp"
#include "host/session/policy.hpp"

namespace caldera {

// Resolves each configured plugin in `catalog`, computes its points (enabled in the
// config and implemented by the plugin; an enabled point the plugin does not implement is
// logged as a warning), validates plugin and action arguments. Errors: unknown plugin
// (listing the known names and any files that failed to load), unknown action, arguments
// a plugin or action does not declare (listing the declared ones), wrong types.
std::shared_ptr<const Policy> build_policy(const SchedulerConfig& config,
                                           const PluginCatalog& catalog,
                                           const std::string& config_text_hash);

}  // namespace caldera
