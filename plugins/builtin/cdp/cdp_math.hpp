// The arithmetic of the cdp plugin, free of the ABI so that unit tests can call it.
#pragma once

#include "kube/go_duration.hpp"

namespace caldera::cdp {

// Volcano's scheduling v1beta1.CooldownTime: a pod label, else annotation.
inline constexpr const char* kCooldownTimeKey = "volcano.sh/cooldown-time";

// c.LastTransitionTime.Add(cooldown).After(now), in Go's whole nanoseconds: a pod scheduled
// at `scheduled` (session seconds) is still cooling down at `now` when scheduled + cooldown
// is strictly later.
inline bool in_cooldown(double scheduled, go::Nanos cooldown, double now) {
  return go::add_saturating(go::to_nanos(scheduled), cooldown) > go::to_nanos(now);
}

}  // namespace caldera::cdp
