#include "host/cache/cache.hpp"

namespace caldera {

void Cache::upsert_node(NodeSpec n) {
  std::string k = n.name;
  changed(&Changes::nodes, k);
  nodes_[k] = std::make_shared<const NodeSpec>(std::move(n));
  ++generation_;
}
void Cache::remove_node(const std::string& name) {
  if (nodes_.erase(name) == 0) return;
  changed(&Changes::nodes, name);
  ++generation_;
}
void Cache::upsert_pod(PodSpec p) { upsert_pod_record(make_pod_record(std::move(p))); }

std::shared_ptr<const PodSpec> Cache::make_pod_record(PodSpec p) {
  digest_pod(p);
  return std::make_shared<const PodSpec>(std::move(p));
}
void Cache::remove_pod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  index_pod(it->second.get(), it->first, nullptr);
  pods_.erase(it);
  changed(&Changes::pods, key);
  ++generation_;
}
void Cache::upsert_podgroup(PodGroupSpec pg) {
  std::string k = pg.key();
  changed(&Changes::podgroups, k);
  podgroups_[k] = std::make_shared<const PodGroupSpec>(std::move(pg));
  ++generation_;
}
void Cache::remove_podgroup(const std::string& key) {
  if (podgroups_.erase(key) == 0) return;
  changed(&Changes::podgroups, key);
  ++generation_;
}
void Cache::upsert_queue(QueueSpec q) {
  std::string k = q.name;
  changed_rebuild();
  queues_[k] = std::make_shared<const QueueSpec>(std::move(q));
  ++generation_;
}
void Cache::remove_queue(const std::string& name) {
  if (queues_.erase(name) == 0) return;
  changed_rebuild();
  ++generation_;
}
void Cache::upsert_priority_class(PriorityClassSpec pc) {
  std::string k = pc.name;
  changed_rebuild();
  pcs_[k] = std::make_shared<const PriorityClassSpec>(std::move(pc));
  ++generation_;
}
void Cache::remove_priority_class(const std::string& name) {
  if (pcs_.erase(name) == 0) return;
  changed_rebuild();
  ++generation_;
}
void Cache::upsert_hypernode(HyperNodeSpec hn) {
  std::string k = hn.name;
  hypernodes_[k] = std::make_shared<const HyperNodeSpec>(std::move(hn));
  ++generation_;
}
void Cache::remove_hypernode(const std::string& name) { generation_ += hypernodes_.erase(name); }

void Cache::upsert_storage_class(StorageClassSpec sc) {
  changed_rebuild();
  ++generation_;
  std::string k = sc.meta.name;
  storage_classes_[k] = std::make_shared<const StorageClass>(std::move(sc));
}
void Cache::remove_storage_class(const std::string& name) {
  if (storage_classes_.erase(name) == 0) return;
  changed_rebuild();
  ++generation_;
}
void Cache::upsert_persistent_volume(PersistentVolumeSpec pv) {
  changed_rebuild();
  ++generation_;
  std::string k = pv.meta.name;
  volumes_[k] = std::make_shared<const PersistentVolume>(std::move(pv));
}
void Cache::remove_persistent_volume(const std::string& name) {
  if (volumes_.erase(name) == 0) return;
  changed_rebuild();
  ++generation_;
}
void Cache::upsert_claim(PersistentVolumeClaimSpec c) {
  changed_rebuild();
  ++generation_;
  std::string k = c.key();
  claims_[k] = std::make_shared<const PersistentVolumeClaim>(std::move(c));
}
void Cache::remove_claim(const std::string& key) {
  if (claims_.erase(key) == 0) return;
  changed_rebuild();
  ++generation_;
}
void Cache::upsert_disruption_budget(DisruptionBudgetSpec b) {
  ++generation_;
  std::string k = b.key();
  budgets_[k] = std::make_shared<const DisruptionBudget>(std::move(b));
}
void Cache::remove_disruption_budget(const std::string& key) { generation_ += budgets_.erase(key); }
void Cache::upsert_resource_quota(ResourceQuotaSpec q) {
  ++generation_;
  std::string k = q.key();
  quotas_[k] = std::make_shared<const ResourceQuota>(std::move(q));
}
void Cache::remove_resource_quota(const std::string& key) { generation_ += quotas_.erase(key); }
void Cache::upsert_node_record(std::shared_ptr<const NodeSpec> n) {
  std::string k = n->name;
  changed(&Changes::nodes, k);
  nodes_[k] = std::move(n);
  ++generation_;
}
void Cache::upsert_pod_record(std::shared_ptr<const PodSpec> p) {
  if (!p->digest.ready) p = make_pod_record(*p);  // built without make_pod_record: digest it
  std::string k = p->digest.key;
  changed(&Changes::pods, k);
  auto [it, fresh] = pods_.try_emplace(std::move(k));
  const PodSpec* old_record = fresh ? nullptr : it->second.get();
  std::shared_ptr<const PodSpec> keep_old = std::move(it->second);  // alive until indexed
  it->second = std::move(p);
  index_pod(old_record, it->first, it->second.get());
  ++generation_;
}

void Cache::index_pod(const PodSpec* old_record, const std::string& key, const PodSpec* record) {
  if (!pod_index_.valid) return;  // made whole on first use
  const std::string_view was = old_record ? std::string_view(old_record->node) : std::string_view();
  const std::string_view now = record ? std::string_view(record->node) : std::string_view();
  if (was == now) return;  // the same node, or none: indexed as it is
  auto& by_node = pod_index_.by_node;
  if (!was.empty()) {
    auto n = by_node.find(was);
    if (n != by_node.end()) {
      n->second.erase(key);
      if (n->second.empty()) by_node.erase(n);
    }
  }
  if (!now.empty()) by_node[std::string(now)].insert(key);
}

void Cache::make_pod_index() const {
  pod_index_.by_node.clear();
  for (const auto& [key, pod] : pods_)
    if (!pod->node.empty()) pod_index_.by_node[pod->node].insert(key);
  pod_index_.valid = true;
}

const std::set<std::string_view>* Cache::pods_on(std::string_view node) const {
  if (!pod_index_.valid) make_pod_index();
  auto it = pod_index_.by_node.find(node);
  return it == pod_index_.by_node.end() ? nullptr : &it->second;
}

void Cache::changed(std::set<std::string> Changes::*kind, const std::string& key) {
  if (!tracker_ || changes_.unknown) return;
  std::set<std::string>& keys = changes_.*kind;
  keys.insert(key);
  // Kept until the consumer takes them: a consumer that stops taking (a standby replica
  // with no session to run) must not make the list grow with every change of the cluster.
  // Past the size of the cache a list is worth less than starting over.
  const size_t listed = changes_.nodes.size() + changes_.pods.size() + changes_.podgroups.size();
  if (listed > 1024 + nodes_.size() + pods_.size() + podgroups_.size()) {
    changes_ = Changes{};
    changes_.unknown = true;
  }
}

Cache::Changes Cache::take_changes(const void* consumer) const {
  Changes out;
  if (consumer != tracker_) {
    tracker_ = consumer;
    out.unknown = true;
  } else {
    out = std::move(changes_);
  }
  changes_ = Changes{};
  return out;
}

}  // namespace caldera
