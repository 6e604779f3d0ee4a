// The chains of plugin calls of a session: for every slot of the point table
// (host/config/points.hpp), the plugin instances that take part, in tier and plugin order,
// each with the slot's function. Built once at open (Session::flatten_chains), so that a
// dispatch (dispatch.hpp) loops over the plugins taking part alone, with no enable-list
// or NULL checks. Volcano walks ssn.Tiers and each plugin's enabled flag in every session
// function (pkg/scheduler/framework/session_plugins.go); a chain is that walk, done once.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "host/config/points.hpp"
#include "host/session/policy.hpp"

namespace caldera {

// One plugin instance in a slot's chain.
struct PluginCall {
  void (*fn)();             // the slot's function, stored as one type (get<S>() restores it)
  void* self;               // what the instance's open() returned
  const std::string* name;  // the plugin's name, for reasons and logs
  uint32_t tier;            // index of its tier: the rules that go tier by tier need it
  int32_t index;            // the plugin's place in the policy (tiers in order), for breadcrumbs

  template <Slot S>
  typename SlotInfo<S>::Fn get() const {
    return reinterpret_cast<typename SlotInfo<S>::Fn>(fn);
  }
};

class PluginChains {
 public:
  // Appends an instance of `plugin` in tier `tier` to the chain of every slot it takes
  // part in: an ALWAYS slot when the descriptor sets it; another slot when it is set and
  // the plugin's points (enabled and implemented) have the slot's point.
  void add(const ConfiguredPlugin& plugin, const cal_plugin* desc, void* self, uint32_t tier,
           int32_t index);
  const std::vector<PluginCall>& operator[](Slot s) const {
    return chains_[static_cast<size_t>(s)];
  }

 private:
  std::array<std::vector<PluginCall>, kSlotCount> chains_;
};

}  // namespace caldera
