// What a kept snapshot (SessionImage, session_image.hpp) remembers beside the session's own
// objects, to bring them up to date object by object: the cache record each object was made
// from (kept alive: the session's objects point into it) and what each pod became.
// Private to host/session.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "host/model/objects.hpp"
#include "host/session/session_types.hpp"

namespace caldera {

// A pod's task status as the snapshot reads it, and whether the pod holds its node (bound
// or running there, not terminated). snapshot.cpp.
TaskStatus snapshot_status(const PodSpec& p);
bool snapshot_holds_node(const PodSpec& p);
// Whether the pod has volume claims (its CSI counts depend on storage). snapshot.cpp.
bool snapshot_has_claims(const PodSpec& p);

struct ImageBook {
  struct PodEntry {
    std::shared_ptr<const PodSpec> record;
    TaskInfo* task = nullptr;    // its task, or
    PodRef* foreign = nullptr;   // its handle on the node it holds without being a task,
                                 // or neither (a pending pod of no job)
  };
  std::unordered_map<std::string, PodEntry> pods;  // every pod of the cache, by key
  std::unordered_map<std::string, std::shared_ptr<const NodeSpec>> nodes;  // ready or not
  std::unordered_map<std::string, std::shared_ptr<const PodGroupSpec>> podgroups;
  // Pods whose PodGroup is not in the session (absent, or its queue is), by the PodGroup's
  // key: they become tasks when it comes.
  std::unordered_map<std::string, std::set<std::string>> orphans;
  // How many records name each resource other than cpu, memory and pods: the session's
  // resource table is the names in use, so a name coming or going means a new build.
  std::map<std::string, int64_t> scalar_uses;
};

}  // namespace caldera
