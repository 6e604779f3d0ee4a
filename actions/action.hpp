// The scheduling stages. Each action is a C++ class linked into the host (DESIGN.md: the
// host runs actions; plugins decide through extension points). Actions follow Volcano's
// algorithms step by step; each file names the Volcano file it follows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "caldera/plugin.h"
#include "host/session/session.hpp"

namespace caldera {

class Action {
 public:
  virtual ~Action() = default;
  virtual std::string name() const = 0;
  // Runs the stage on the session. Arguments come from ssn.action_args(name()).
  virtual void execute(Session& ssn) = 0;
};

struct ActionInfo {
  std::string name;
  std::string description;
  std::vector<cal_option> options;  // arguments of [actions.NAME], Volcano's names
  std::unique_ptr<Action> (*make)();
};

// Every action the host knows, in a fixed order.
const std::vector<ActionInfo>& action_registry();
const ActionInfo* find_action(const std::string& name);

// Each action file defines one of these; action_registry() lists them.
ActionInfo enqueue_action_info();
ActionInfo allocate_action_info();
ActionInfo backfill_action_info();
ActionInfo preempt_action_info();
ActionInfo reclaim_action_info();
ActionInfo shuffle_action_info();
ActionInfo gangpreempt_action_info();
ActionInfo gangreclaim_action_info();

}  // namespace caldera
