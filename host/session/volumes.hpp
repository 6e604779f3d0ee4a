// The session's view of storage: the StorageClasses, PersistentVolumes and claims of the
// snapshot (pointers into the cache's records, host/model/storage.hpp), and the volume
// decisions placements made in this session (Kubernetes' assume cache: a PV chosen for a
// claim, a node selected to provision a claim on), undone with the placement.
//
// The decisions are the plugins' (VolumeBinding's Reserve calls task_assume_volume from
// on_allocate); the host records them, answers what they change (volume_assumed_claim,
// claim_selected_node) and hands them to commit with the bind.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "caldera/plugin.h"
#include "host/cache/cache.hpp"
#include "host/config/config.hpp"
#include "host/session/session_types.hpp"

namespace caldera {

class SessionVolumes {
 public:
  // Lists `cache`'s records, which must outlive the session (see Session::open); the
  // Cache object itself need not.
  void open(const Cache& cache);

  const cal_storage_class* storage_class(const char* name) const;
  const cal_persistent_volume* volume(const char* name) const;
  const cal_persistent_volume_claim* claim(const char* ns, const char* name) const;
  const std::vector<const cal_persistent_volume*>& volumes() const { return volumes_; }

  // What this session's decisions say (see caldera/plugin.h).
  const cal_persistent_volume_claim* assumed_claim(const cal_persistent_volume* pv) const;
  const char* selected_node(const cal_persistent_volume_claim* c) const;

  // Records a decision of t's placement on `node`; false (nothing recorded) when pv is
  // taken by another claim.
  bool assume(TaskInfo* t, const cal_persistent_volume_claim* c, const cal_persistent_volume* pv,
              const std::string& node);
  // Drops every decision of t's placement.
  void unassume(TaskInfo* t);

  // Volcano's count of a pod's CSI volumes (config.hpp count_csi_volumes): resource name
  // -> claims, for each claim of the pod's whose driver is known and not ignored.
  static std::vector<std::pair<std::string, double>> csi_requests(
      const PodSpec& pod, const Cache& cache, const SchedulerConfig& config);

 private:
  // In name order; claims by namespace, then name.
  std::vector<const cal_storage_class*> classes_;
  std::vector<const cal_persistent_volume*> volumes_;
  std::vector<const cal_persistent_volume_claim*> claims_;
  std::unordered_map<const cal_persistent_volume*, const cal_persistent_volume_claim*> assumed_;
  std::unordered_map<const cal_persistent_volume_claim*, std::string> selected_;
};

}  // namespace caldera
