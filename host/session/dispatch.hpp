// The dispatch of the extension points: one combination per rule of the point table
// (host/config/points.hpp), each a template over the slot, run on the slot's chain of
// plugin calls (chains.hpp). combine<S>(chains, args...) picks the rule from the slot's row
// at compile time; the arguments are the slot's own after `self` (the rules that fill
// arrays take the array's length, then the output array, first).
// The node-level chains (predicate, node_order: node_dispatch.cpp) are not built from
// these: they keep their own loops over runs of nodes, tuned for the hot path.
// Follows Volcano's pkg/scheduler/framework/session_plugins.go, where each of these is a
// hand-written loop per session function.
#pragma once

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "host/session/breadcrumb.hpp"
#include "host/session/chains.hpp"
#include "host/session/session.hpp"

namespace caldera {

// A failed point's status: its code, the plugin's reason (or "<plugin> refused"), the
// plugin; a CAL_ERROR is logged.
PointStatus failed_status(cal_code code, const cal_status& st, const std::string& plugin);

namespace dispatch {

using Chain = std::vector<PluginCall>;

// The end of the run of chain[begin]'s tier.
inline size_t tier_end(const Chain& chain, size_t begin) {
  size_t end = begin;
  while (end < chain.size() && chain[end].tier == chain[begin].tier) ++end;
  return end;
}

// One plugin call, with its breadcrumb (breadcrumb.hpp) set for the call's duration.
template <Slot S, class... A>
auto call(const PluginCall& c, A... a) {
  CrumbScope in_plugin(my_crumb(), c.index, static_cast<int32_t>(S));
  return c.get<S>()(c.self, a...);
}

// What a plugin handed back, checked: a session cannot go on from an answer outside the
// contract (caldera/plugin.h), so each of these ends it (plugin_broke_contract in
// breadcrumb.hpp), naming the plugin, the slot and, when there is one, the node.
[[noreturn]] void broke_contract(int32_t plugin_index, const std::string& plugin, Slot s,
                                 int32_t node, const std::string& what);
// A status code outside cal_code.
bool valid_code(cal_code code);
// Ends the session unless `code` is a cal_code and the reason has its NUL in the buffer.
template <class Call>
void check_status(const Call& c, Slot s, cal_code code, const cal_status& st,
                  int32_t node = -1) {
  if (!valid_code(code))
    broke_contract(c.index, *c.name, s, node,
                   "returned status code " + std::to_string(static_cast<int>(code)) +
                       " (expected 0..5, cal_code)");
  if (std::memchr(st.reason, '\0', sizeof st.reason) == nullptr)
    broke_contract(c.index, *c.name, s, node,
                   "wrote a reason of CAL_REASON_MAX bytes or more without its NUL");
}
// Ends the session unless `vote` is a cal_vote.
template <class Call>
void check_vote(const Call& c, Slot s, int vote) {
  if (vote < CAL_REJECT || vote > CAL_PERMIT)
    broke_contract(c.index, *c.name, s, -1,
                   "voted " + std::to_string(vote) + " (expected -1, 0 or 1, cal_vote)");
}
// "NaN", "inf" or "-inf".
inline const char* finite_name(double v) {
  return std::isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf";
}
// Ends the session when a score is NaN or infinite; `node_of(i)` names the i-th object's
// node index for the message (-1 for none).
template <class Call, class NodeOf>
void check_scores(const Call& c, Slot s, const double* scores, size_t count, NodeOf node_of) {
  for (size_t i = 0; i < count; ++i)
    if (!std::isfinite(scores[i]))
      broke_contract(c.index, *c.name, s, node_of(i),
                     std::string("score ") + finite_name(scores[i]) + " (scores must be finite)");
}

// FirstNonZero: the first non-zero answer; 0 when every plugin has no opinion.
template <Slot S, class... A>
int first_non_zero(const Chain& chain, A... a) {
  for (const PluginCall& c : chain)
    if (int v = call<S>(c, a...); v != 0) return v;
  return 0;
}

// AllPass: every plugin CAL_SUCCESS or CAL_SKIP; else the first other code, with its reason.
template <Slot S, class... A>
PointStatus all_pass(const Chain& chain, A... a) {
  for (const PluginCall& c : chain) {
    cal_status st;
    st.struct_size = sizeof st;
    st.reason[0] = '\0';
    const cal_code code = call<S>(c, a..., &st);
    check_status(c, S, code, st);
    if (code != CAL_SUCCESS && code != CAL_SKIP) return failed_status(code, st, *c.name);
  }
  return {};
}

// Sum: each plugin ADDS its scores for `count` objects to a zeroed row; the rows are summed
// into scores (which this does not clear). A plugin's failure is logged and counts as 0.
template <Slot S, class... A>
void sum(const Chain& chain, size_t count, double* scores, A... a) {
  std::vector<double> part(count);
  for (const PluginCall& c : chain) {
    std::fill(part.begin(), part.end(), 0.0);
    cal_status st;
    st.struct_size = sizeof st;
    st.reason[0] = '\0';
    const cal_code code = call<S>(c, a..., part.data(), &st);
    check_status(c, S, code, st);
    if (code != CAL_SUCCESS) {
      spdlog::error("plugin {}: {} failed: {}", *c.name, SlotInfo<S>::name, st.reason);
      continue;
    }
    check_scores(c, S, part.data(), count, [](size_t) { return -1; });
    for (size_t i = 0; i < count; ++i) scores[i] += part[i];
  }
}

// FirstIndex: the first answer in [0, count); -1 when no plugin chose.
template <Slot S, class... A>
int64_t first_index(const Chain& chain, size_t count, A... a) {
  for (const PluginCall& c : chain) {
    const int64_t i = call<S>(c, a...);
    if (i >= 0 && static_cast<size_t>(i) < count) return i;
    if (i != -1)
      broke_contract(c.index, *c.name, S, -1,
                     "chose index " + std::to_string(i) + " of " + std::to_string(count) +
                         " objects (expected an index below that, or -1 for none)");
  }
  return -1;
}

// VictimIntersect, over `count` candidates: victims[i] = 1 for each victim. Inside a tier
// the sets of the plugins that did not abstain intersect; a plugin that allows none ends
// the tier with none; the first tier that leaves victims decides. As in Volcano
// (session_plugins.go Preemptable, Reclaimable, UnifiedEvictable), an intersection that
// comes out empty is Go's nil slice, which the next plugin's set replaces as if none had
// been taken (in the same tier or the next): `any` is Volcano's victims != nil.
template <Slot S, class... A>
void victim_intersect(const Chain& chain, size_t count, uint8_t* victims, A... a) {
  std::fill(victims, victims + count, 0);
  std::vector<uint8_t> marks(count);
  bool any = false;
  for (size_t begin = 0, end; begin < chain.size(); begin = end) {
    end = tier_end(chain, begin);
    for (size_t k = begin; k < end; ++k) {
      std::fill(marks.begin(), marks.end(), 0);
      const auto v = call<S>(chain[k], a..., marks.data());
      check_vote(chain[k], S, v);
      if (v == CAL_ABSTAIN) continue;
      if (std::none_of(marks.begin(), marks.end(), [](uint8_t m) { return m != 0; })) {
        std::fill(victims, victims + count, 0);
        any = false;
        break;
      }
      const bool had = any;
      any = false;
      for (size_t i = 0; i < count; ++i) {
        victims[i] = (had ? victims[i] != 0 : true) && marks[i] != 0;
        any = any || victims[i];
      }
    }
    if (any) return;
  }
}

// VictimUnion, over `count` tasks: victims[i] = 1 for each task marked by a plugin of the
// first tier that marks any.
template <Slot S, class... A>
void victim_union(const Chain& chain, size_t count, uint8_t* victims, A... a) {
  std::fill(victims, victims + count, 0);
  std::vector<uint8_t> marks(count);
  for (size_t begin = 0, end; begin < chain.size(); begin = end) {
    end = tier_end(chain, begin);
    bool any = false;
    for (size_t k = begin; k < end; ++k) {
      std::fill(marks.begin(), marks.end(), 0);
      call<S>(chain[k], a..., marks.data());
      for (size_t i = 0; i < count; ++i)
        if (marks[i]) victims[i] = 1, any = true;
    }
    if (any) return;
  }
}

// AnyTrue: yes when any plugin says 1.
template <Slot S, class... A>
bool any_true(const Chain& chain, A... a) {
  for (const PluginCall& c : chain)
    if (call<S>(c, a...)) return true;
  return false;
}

// AllTrue: yes only when every plugin says 1.
template <Slot S, class... A>
bool all_true(const Chain& chain, A... a) {
  for (const PluginCall& c : chain)
    if (!call<S>(c, a...)) return false;
  return true;
}

// TierAllTrue: the first tier with a plugin decides, yes when all of it says 1; no plugin
// at all: no.
template <Slot S, class... A>
bool tier_all_true(const Chain& chain, A... a) {
  if (chain.empty()) return false;
  for (size_t k = 0, end = tier_end(chain, 0); k < end; ++k)
    if (!call<S>(chain[k], a...)) return false;
  return true;
}

// Vote: any CAL_REJECT decides no; a tier with a CAL_PERMIT decides yes (after the rest of
// that tier has voted); when every plugin abstains, yes.
template <Slot S, class... A>
bool vote(const Chain& chain, A... a) {
  for (size_t begin = 0, end; begin < chain.size(); begin = end) {
    end = tier_end(chain, begin);
    bool permit = false;
    for (size_t k = begin; k < end; ++k) {
      const cal_vote v = call<S>(chain[k], a...);
      check_vote(chain[k], S, v);
      if (v == CAL_REJECT) return false;
      if (v == CAL_PERMIT) permit = true;
    }
    if (permit) return true;
  }
  return true;
}

// Notify: every plugin with the slot is told.
template <Slot S, class... A>
void notify(const Chain& chain, A... a) {
  for (const PluginCall& c : chain) call<S>(c, a...);
}

}  // namespace dispatch

// The dispatch of slot S: its chain, combined by the rule its row of the point table gives.
template <Slot S, class... A>
auto combine(const PluginChains& chains, A... a) {
  const dispatch::Chain& chain = chains[S];
  constexpr Combine rule = SlotInfo<S>::rule;
  if constexpr (rule == Combine::FirstNonZero) return dispatch::first_non_zero<S>(chain, a...);
  else if constexpr (rule == Combine::AllPass) return dispatch::all_pass<S>(chain, a...);
  else if constexpr (rule == Combine::Sum) return dispatch::sum<S>(chain, a...);
  else if constexpr (rule == Combine::FirstIndex) return dispatch::first_index<S>(chain, a...);
  else if constexpr (rule == Combine::VictimIntersect) return dispatch::victim_intersect<S>(chain, a...);
  else if constexpr (rule == Combine::VictimUnion) return dispatch::victim_union<S>(chain, a...);
  else if constexpr (rule == Combine::AnyTrue) return dispatch::any_true<S>(chain, a...);
  else if constexpr (rule == Combine::AllTrue) return dispatch::all_true<S>(chain, a...);
  else if constexpr (rule == Combine::TierAllTrue) return dispatch::tier_all_true<S>(chain, a...);
  else if constexpr (rule == Combine::Vote) return dispatch::vote<S>(chain, a...);
  else if constexpr (rule == Combine::Notify) return dispatch::notify<S>(chain, a...);
}

}  // namespace caldera
