// cdp (cooldown protection): a pod that asks for a cooldown is not evicted, by preempt or
// reclaim, until that long after it was scheduled, so that an elastic job's pods that were
// just started are not preempted again at once (Volcano issue 2075).
//
// Follows Volcano's pkg/scheduler/plugins/cdp/cdp.go (ed72c7c), which registers one filter
// as both AddPreemptableFn and AddReclaimableFn:
//   - a candidate's cooldown is the label volcano.sh/cooldown-time, else the annotation of
//     that name, read with Go's time.ParseDuration ("30s", "5m", "1h30m"); without one, or
//     with a value Go refuses (logged), it is a victim;
//   - a Running candidate whose PodScheduled condition is true is kept (not a victim) while
//     its lastTransitionTime + cooldown is after now; every other candidate is a victim.
// It always votes (Permit). "Now" is the session's clock (the wall clock on Kubernetes, the
// scenario or simulated clock elsewhere), where Volcano reads time.Now().
// No arguments.
#include <cstdint>
#include <string>
#include <vector>

#include "caldera/sdk.hpp"
#include "cdp/cdp_math.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace cm = caldera::cdp;

class Cdp {
 public:
  static constexpr const char* kName = "cdp";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "cooldown protection: a pod with volcano.sh/cooldown-time is not a victim until that "
      "long after it was scheduled (Volcano's cdp)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::preemptable,
      sdk::Hook::reclaimable);

  Cdp(sdk::Session s, const sdk::Args&) : now_(s.now()) {}

  cal_vote preemptable(sdk::Task, const std::vector<sdk::Task>& c, std::vector<uint8_t>& v) {
    return filter(c, v);
  }
  cal_vote reclaimable(sdk::Task, const std::vector<sdk::Task>& c, std::vector<uint8_t>& v) {
    return filter(c, v);
  }

 private:
  cal_vote filter(const std::vector<sdk::Task>& candidates, std::vector<uint8_t>& victims) {
    for (size_t i = 0; i < candidates.size(); ++i)
      victims[i] = protected_now(candidates[i]) ? 0 : 1;
    return CAL_PERMIT;
  }

  bool protected_now(const sdk::Task& t) const {
    const char* value = t.label(cm::kCooldownTimeKey);
    if (value == nullptr) value = t.annotation(cm::kCooldownTimeKey);
    if (value == nullptr) return false;
    const caldera::go::ParsedDuration cooldown = caldera::go::parse_go_duration(value);
    if (!cooldown.value) {
      sdk::log(CAL_LOG_WARN, kName,
               "invalid time duration " + std::string(cm::kCooldownTimeKey) + "=" + value +
                   " on " + std::string(t.name()) + ": " + cooldown.error);
      return false;
    }
    // Volcano's "pod.Status.Phase == Running" is the task's Running status here.
    if (t.status() != CAL_TASK_RUNNING) return false;
    const std::optional<double> scheduled = t.scheduled_time();
    return scheduled && cm::in_cooldown(*scheduled, *cooldown.value, now_);
  }

  double now_;
};

}  // namespace

CALDERA_PLUGIN(Cdp)
