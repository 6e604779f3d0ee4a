// The cache: the scheduler's always-current picture of the cluster, fed by a backend with
// add / update / delete events. Records are immutable once stored (shared_ptr<const T>):
// an update replaces the pointer, so a session that took a snapshot keeps reading the
// records it copied while the cache moves on, and a snapshot costs a pointer per object.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "host/model/objects.hpp"
#include "host/model/policy_objects.hpp"
#include "host/model/storage.hpp"

namespace caldera {

template <class T>
using RecordMap = std::map<std::string, std::shared_ptr<const T>>;

class Cache {
 public:
  // Add or replace by key (node name, pod "ns/name", PodGroup "ns/name", queue name,
  // priority class name, HyperNode name). Removing an absent key is a no-op. To change a
  // record, copy it, change the copy and upsert it.
  void upsert_node(NodeSpec n);
  void remove_node(const std::string& name);
  void upsert_pod(PodSpec p);
  void remove_pod(const std::string& key);
  void upsert_podgroup(PodGroupSpec pg);
  void remove_podgroup(const std::string& key);
  void upsert_queue(QueueSpec q);
  void remove_queue(const std::string& name);
  void upsert_priority_class(PriorityClassSpec pc);
  void remove_priority_class(const std::string& name);
  void upsert_hypernode(HyperNodeSpec hn);
  void remove_hypernode(const std::string& name);
  // Storage (host/model/storage.hpp): StorageClass and PersistentVolume by name, claims by
  // "ns/name".
  void upsert_storage_class(StorageClassSpec sc);
  void remove_storage_class(const std::string& name);
  void upsert_persistent_volume(PersistentVolumeSpec pv);
  void remove_persistent_volume(const std::string& name);
  void upsert_claim(PersistentVolumeClaimSpec c);
  void remove_claim(const std::string& key);
  // Namespace policies (host/model/policy_objects.hpp), by "ns/name".
  void upsert_disruption_budget(DisruptionBudgetSpec b);
  void remove_disruption_budget(const std::string& key);
  void upsert_resource_quota(ResourceQuotaSpec q);
  void remove_resource_quota(const std::string& key);
  // The same for a record already built (shared, not copied): a front end that keeps its
  // records can put them back without copying them (the openb replay's fast path). A pod
  // record should come from make_pod_record, which fills its digest; one that does not is
  // copied and digested here.
  void upsert_node_record(std::shared_ptr<const NodeSpec> n);
  void upsert_pod_record(std::shared_ptr<const PodSpec> p);
  // A pod record ready for the cache: p with its digest (objects.hpp PodDigest).
  static std::shared_ptr<const PodSpec> make_pod_record(PodSpec p);

  const RecordMap<NodeSpec>& nodes() const { return nodes_; }
  const RecordMap<PodSpec>& pods() const { return pods_; }
  const RecordMap<PodGroupSpec>& podgroups() const { return podgroups_; }
  const RecordMap<QueueSpec>& queues() const { return queues_; }
  const RecordMap<PriorityClassSpec>& priority_classes() const { return pcs_; }
  const RecordMap<HyperNodeSpec>& hypernodes() const { return hypernodes_; }
  const RecordMap<StorageClass>& storage_classes() const { return storage_classes_; }
  const RecordMap<PersistentVolume>& persistent_volumes() const { return volumes_; }
  const RecordMap<PersistentVolumeClaim>& claims() const { return claims_; }
  const RecordMap<DisruptionBudget>& disruption_budgets() const { return budgets_; }
  const RecordMap<ResourceQuota>& resource_quotas() const { return quotas_; }

  // nullptr when absent.
  const NodeSpec* node(const std::string& name) const { return find(nodes_, name); }
  const PodSpec* pod(const std::string& key) const { return find(pods_, key); }
  const PodGroupSpec* podgroup(const std::string& key) const { return find(podgroups_, key); }
  const QueueSpec* queue(const std::string& name) const { return find(queues_, name); }
  const StorageClass* storage_class(const std::string& name) const {
    return find(storage_classes_, name);
  }
  const PersistentVolume* persistent_volume(const std::string& name) const {
    return find(volumes_, name);
  }
  const PersistentVolumeClaim* claim(const std::string& key) const { return find(claims_, key); }
  // The keys of the pods whose record names `node` (status.nodeName), by key; nullptr when
  // none does. Kept with the pods, so that what one node holds is read without walking
  // every pod (the check of streamed binds, host/supervisor/decision_check.hpp).
  const std::set<std::string_view>* pods_on(std::string_view node) const;

  // Bumped by every change, so a caller can tell whether anything happened.
  uint64_t generation() const { return generation_; }

  // What changed since the last take_changes(), for the one consumer that keeps something
  // derived from the cache current (the session image, host/session/session_image.hpp):
  // the keys of the nodes, pods and PodGroups added, replaced or removed, and whether
  // anything of a kind that consumer rebuilds from scratch changed.
  struct Changes {
    std::set<std::string> nodes, pods, podgroups;
    // Queues, priority classes or storage changed (the image builds anew).
    bool rebuild = false;
    // Nothing is known: the first take, another consumer took the changes in between, or
    // more changed than is worth listing (the image builds anew).
    bool unknown = false;
    bool empty() const {
      return nodes.empty() && pods.empty() && podgroups.empty() && !rebuild && !unknown;
    }
  };
  // The changes since `consumer`'s last take; from now on they are kept for it. One
  // consumer per cache: a take by another one starts over, and the first one's next take
  // says `unknown`.
  Changes take_changes(const void* consumer) const;

 private:
  template <class T>
  static const T* find(const RecordMap<T>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? nullptr : it->second.get();
  }
  RecordMap<NodeSpec> nodes_;
  RecordMap<PodSpec> pods_;
  RecordMap<PodGroupSpec> podgroups_;
  RecordMap<QueueSpec> queues_;
  RecordMap<PriorityClassSpec> pcs_;
  RecordMap<HyperNodeSpec> hypernodes_;
  RecordMap<StorageClass> storage_classes_;
  RecordMap<PersistentVolume> volumes_;
  RecordMap<PersistentVolumeClaim> claims_;
  RecordMap<DisruptionBudget> budgets_;
  RecordMap<ResourceQuota> quotas_;
  uint64_t generation_ = 0;
  // Node name -> views of the keys in pods_ of the pods on it (a key lives as long as its
  // entry, which leaves the index first). A copied cache's views would point into the
  // source's keys: a copy starts without an index and makes its own on first use (moves
  // keep the map nodes, and so the views).
  struct PodIndex {
    std::map<std::string, std::set<std::string_view>, std::less<>> by_node;
    bool valid = true;
    PodIndex() = default;
    PodIndex(const PodIndex&) : valid(false) {}
    PodIndex& operator=(const PodIndex&) {
      by_node.clear();
      valid = false;
      return *this;
    }
    PodIndex(PodIndex&&) = default;
    PodIndex& operator=(PodIndex&&) = default;
  };
  mutable PodIndex pod_index_;
  void index_pod(const PodSpec* old_record, const std::string& key, const PodSpec* record);
  void make_pod_index() const;

  // take_changes: the consumer the changes are kept for, and what changed since its take.
  void changed(std::set<std::string> Changes::*kind, const std::string& key);
  void changed_rebuild() {
    if (tracker_) changes_.rebuild = true;
  }
  // Mutable: taking the changes is bookkeeping for a reader, not a change of the cluster.
  mutable const void* tracker_ = nullptr;
  mutable Changes changes_;
};

}  // namespace caldera
