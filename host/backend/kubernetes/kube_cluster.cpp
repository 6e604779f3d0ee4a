// The Kubernetes backend. Follows Volcano's pkg/scheduler/cache/{cache.go,event_handlers.go}:
// which pods enter the cache (ours to schedule, anyone's that hold a node), the assumed
// state of binds in flight, and what closeSession writes back (PodGroup status and
// conditions, the queue's status, unschedulable pods' condition and event).
#include "host/backend/kubernetes/kube_cluster.hpp"
#include "host/util/input_error.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <chrono>

namespace caldera::k8s {

namespace {

constexpr const char* kPods = "pods";
constexpr const char* kNodes = "nodes";
constexpr const char* kPodGroups = "podgroups";
constexpr const char* kQueues = "queues";
constexpr const char* kPriorityClasses = "priorityclasses";
constexpr const char* kHyperNodes = "hypernodes";
constexpr const char* kStorageClasses = "storageclasses";
constexpr const char* kPersistentVolumes = "persistentvolumes";
constexpr const char* kClaims = "persistentvolumeclaims";
constexpr const char* kDisruptionBudgets = "poddisruptionbudgets";
constexpr const char* kResourceQuotas = "resourcequotas";
constexpr const char* kCsiNodes = "csinodes";
constexpr size_t kMaxMessage = 1024;  // as the writer truncates

double mono_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

uint64_t now_ms() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

std::string truncate(const std::string& s) {
  if (s.size() <= kMaxMessage) return s;
  return s.substr(0, kMaxMessage - 3) + "...";
}

// The PodScheduled=False message of a pod object ("" when there is none).
std::string scheduled_message(const json& pod) {
  auto st = pod.find("status");
  if (st == pod.end() || !st->is_object()) return "";
  auto conds = st->find("conditions");
  if (conds == st->end() || !conds->is_array()) return "";
  for (const json& c : *conds) {
    if (!c.is_object() || json_string(c, "type") != "PodScheduled") continue;
    if (json_string(c, "status") != "False") return "";
    auto m = c.find("message");
    return m != c.end() && m->is_string() ? m->get<std::string>() : "";
  }
  return "";
}

}  // namespace

KubeCluster::KubeCluster(uv_loop_t* loop, HttpClient& http, KubeOptions opts)
    : loop_(loop), http_(http), opts_(std::move(opts)) {
  WriterOptions wo;
  wo.evict_mode = opts_.evict_mode;
  wo.component = opts_.scheduler_names.empty() ? "caldera" : opts_.scheduler_names.front();
  wo.instance = opts_.identity;
  Writer::Hooks hooks;
  hooks.bound = [this](const std::string& k, const std::string& n) { on_bound(k, n); };
  hooks.bind_failed = [this](const std::string& k, const std::string& n, const std::string& why) {
    on_bind_failed(k, n, why);
  };
  hooks.pod_read = [this](const json& pod) { upsert_pod(pod); };
  hooks.evict_failed = [this](const std::string& k, const std::string& why) {
    on_evict_failed(k, why);
  };
  hooks.status_failed = [this](const std::string& kind, const std::string& key) {
    // Forget what was assumed written, so the next session writes it again.
    if (kind == "podgroup") {
      if (auto it = pg_meta_.find(key); it != pg_meta_.end()) {
        it->second.phase.clear();
        it->second.running = it->second.succeeded = it->second.failed = -1;
        it->second.condition.clear();
      }
    } else if (kind == "queue") {
      if (auto it = queue_meta_.find(key); it != queue_meta_.end()) it->second.status = json::object();
    } else if (kind == "pod") {
      if (auto it = pod_meta_.find(key); it != pod_meta_.end()) it->second.scheduled_message.clear();
    }
  };
  writer_ = std::make_unique<Writer>(loop_, http_, wo, std::move(hooks));

  auto add = [&](const char* name, const char* path, bool optional = false) {
    InformerOptions io;
    io.name = name;
    io.path = path;
    io.optional = optional;
    io.page_size = opts_.page_size;
    io.max_backoff = 30;  // client-go's reflector cap
    informers_.push_back(std::make_unique<Informer>(loop_, http_, io, *this));
  };
  // Queues and PodGroups first, so a pod's group and a group's queue are usually known
  // by the time the pod arrives (nothing depends on it: sessions wait for all of them).
  add(kPriorityClasses, "/apis/scheduling.k8s.io/v1/priorityclasses");
  add(kQueues, "/apis/scheduling.volcano.sh/v1beta1/queues");
  add(kPodGroups, "/apis/scheduling.volcano.sh/v1beta1/podgroups");
  add(kNodes, "/api/v1/nodes");
  add(kPods, "/api/v1/pods");
  // HyperNodes when the cluster serves them (Volcano's topology CRD is optional: without it
  // a 404 counts as "none", and the list is tried again every minute).
  add(kHyperNodes, "/apis/topology.volcano.sh/v1alpha1/hypernodes", true);
  // Storage, for the volume filters and volume binding.
  add(kStorageClasses, "/apis/storage.k8s.io/v1/storageclasses");
  add(kPersistentVolumes, "/api/v1/persistentvolumes");
  add(kClaims, "/api/v1/persistentvolumeclaims");
  add(kCsiNodes, "/apis/storage.k8s.io/v1/csinodes");
  // Namespace policies, for the pdb and resourcequota plugins.
  add(kDisruptionBudgets, "/apis/policy/v1/poddisruptionbudgets");
  add(kResourceQuotas, "/api/v1/resourcequotas");
}

KubeCluster::~KubeCluster() = default;

void KubeCluster::start() {
  started_ms_ = now_ms();
  for (auto& inf : informers_) inf->start();
}

void KubeCluster::stop(std::function<void()> closed) {
  closed_ = std::move(closed);
  closing_ = static_cast<int>(informers_.size()) + 1;
  auto one_closed = [this]() {
    if (--closing_ == 0 && closed_) {
      auto cb = std::move(closed_);
      closed_ = nullptr;
      cb();
    }
  };
  for (auto& inf : informers_) inf->stop(one_closed);
  writer_->stop(one_closed);
}

bool KubeCluster::synced() const {
  for (const auto& inf : informers_)
    if (!inf->synced()) return false;
  return true;
}

std::string KubeCluster::sync_state() const {
  std::string out;
  for (const auto& inf : informers_) {
    if (inf->synced()) continue;
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", inf->name(),
                       inf->listed_once() ? "reconnecting" : "listing");
  }
  return out.empty() ? "synced" : out;
}

// ---- informer events ------------------------------------------------------------------

void KubeCluster::warn(Warnings& w) {
  for (auto& line : w) {
    // The same problem comes back with every update of the object: say it once.
    if (warned_.size() > 100000) warned_.clear();
    if (warned_.insert(line).second)
      spdlog::warn("kubernetes: {}", line);
    else
      spdlog::debug("kubernetes: {}", line);
  }
  w.clear();
}

void KubeCluster::list_begin(const std::string& resource) { seen_[resource].clear(); }

void KubeCluster::list_item(const std::string& resource, const json& obj) {
  std::string key = upsert(resource, obj);
  if (!key.empty()) seen_[resource].insert(key);
}

void KubeCluster::list_end(const std::string& resource) {
  // Whatever the cache holds that the complete list did not name is gone (deleted while
  // the watch was down, or compacted out of the watch's history).
  auto& seen = seen_[resource];
  std::vector<std::string> gone;
  auto collect = [&](const auto& records) {
    for (const auto& [key, _] : records)
      if (!seen.count(key)) gone.push_back(key);
  };
  if (resource == kPods) collect(cache_.pods());
  if (resource == kNodes) collect(cache_.nodes());
  if (resource == kPodGroups) collect(cache_.podgroups());
  if (resource == kQueues) collect(cache_.queues());
  if (resource == kPriorityClasses) collect(cache_.priority_classes());
  if (resource == kHyperNodes) collect(cache_.hypernodes());
  if (resource == kStorageClasses) collect(cache_.storage_classes());
  if (resource == kPersistentVolumes) collect(cache_.persistent_volumes());
  if (resource == kClaims) collect(cache_.claims());
  if (resource == kDisruptionBudgets) collect(cache_.disruption_budgets());
  if (resource == kResourceQuotas) collect(cache_.resource_quotas());
  if (resource == kCsiNodes) collect(csi_nodes_);
  if (!gone.empty())
    spdlog::info("kubernetes: {}: {} object(s) vanished while not watched; removed", resource,
                 gone.size());
  for (const auto& key : gone) remove(resource, key);
  seen.clear();
  if (stats_.first_sync_seconds < 0) {
    bool all = true;
    for (const auto& inf : informers_) all = all && (inf->listed_once() || inf->name() == resource);
    if (all) {
      stats_.first_sync_seconds = static_cast<double>(now_ms() - started_ms_) / 1000.0;
      spdlog::info(
          "kubernetes: initial sync done in {:.2f}s: {} nodes, {} pods, {} PodGroups, {} queues, "
          "{} priority classes, {} HyperNodes",
          stats_.first_sync_seconds, cache_.nodes().size(), cache_.pods().size(),
          cache_.podgroups().size(), cache_.queues().size(), cache_.priority_classes().size(),
          cache_.hypernodes().size());
    }
  }
}

void KubeCluster::event(const std::string& resource, const std::string& type, const json& obj) {
  if (type == "DELETED") {
    remove(resource, read_meta(obj).key());
    return;
  }
  upsert(resource, obj);
}

std::string KubeCluster::upsert(const std::string& resource, const json& obj) {
  Warnings w;
  ObjectMeta m = read_meta(obj);
  std::string key = m.key();
  if (resource == kPods) {
    upsert_pod(obj);
  } else if (resource == kNodes) {
    if (auto n = node_from_json(obj, w); n && !node_selected(*n)) {
      // Another scheduler's node (--node-selector): out of the cache, also when it was in
      // before its labels changed (Volcano keeps such a node as it last was).
      if (cache_.node(key) != nullptr) {
        spdlog::info("kubernetes: node {} no longer matches --node-selector; left out", key);
        cache_.remove_node(key);
      }
    } else if (n) {
      if (auto c = csi_nodes_.find(key); c != csi_nodes_.end())
        for (const auto& [name, count] : *c->second) n->allocatable[name] = count;
      cache_.upsert_node(std::move(*n));
    } else if (!key.empty()) {
      cache_.remove_node(key);
    }
  } else if (resource == kDisruptionBudgets) {
    if (auto b = disruption_budget_from_json(obj, w)) cache_.upsert_disruption_budget(std::move(*b));
    else if (!key.empty()) cache_.remove_disruption_budget(key);
  } else if (resource == kResourceQuotas) {
    if (auto q = resource_quota_from_json(obj, w)) cache_.upsert_resource_quota(std::move(*q));
    else if (!key.empty()) cache_.remove_resource_quota(key);
  } else if (resource == kStorageClasses) {
    if (auto sc = storage_class_from_json(obj, w)) cache_.upsert_storage_class(std::move(*sc));
    else if (!key.empty()) cache_.remove_storage_class(key);
  } else if (resource == kPersistentVolumes) {
    if (auto pv = persistent_volume_from_json(obj, w)) {
      cache_.upsert_persistent_volume(std::move(*pv));
      watched_volumes_[key] = cache_.persistent_volumes().at(key);
    } else if (!key.empty()) {
      remove(resource, key);
    }
  } else if (resource == kClaims) {
    if (auto c = claim_from_json(obj, w)) {
      cache_.upsert_claim(std::move(*c));
      watched_claims_[key] = cache_.claims().at(key);
    } else if (!key.empty()) {
      remove(resource, key);
    }
  } else if (resource == kCsiNodes) {
    if (!key.empty()) {
      auto resources = std::make_shared<const ResourceList>(csi_node_resources(obj, w));
      auto& slot = csi_nodes_[key];
      const auto before = slot;
      slot = resources;
      set_csi_resources(key, before.get(), *resources);
    }
  } else if (resource == kPodGroups) {
    auto pg = podgroup_from_json(obj, w);
    if (!pg) {
      if (!key.empty()) {
        remove(resource, key);
        // Its pods are told why they wait (write_pending): the converter's last word.
        refused_podgroups_[key] = w.empty() ? "it cannot be read" : w.back();
      }
    } else {
      refused_podgroups_.erase(key);
      PodGroupMeta& meta = pg_meta_[key];
      meta.uid = m.uid;
      const json& st = obj.contains("status") && obj["status"].is_object() ? obj["status"] : json();
      // The phase as written in the object: a PodGroup nobody has given a phase yet (no
      // Volcano controller) reads as Pending, and gets "Pending" written, as Volcano's
      // closeSession writes any status that differs from the object's.
      meta.phase = st.is_object() ? json_string(st, "phase") : "";
      auto count = [&](const char* f) {
        return st.is_object() && st.contains(f) && st[f].is_number_integer() ? st[f].get<int64_t>()
                                                                               : int64_t{0};
      };
      meta.running = count("running");
      meta.succeeded = count("succeeded");
      meta.failed = count("failed");
      meta.condition.clear();
      meta.condition_message.clear();
      if (st.is_object() && st.contains("conditions") && st["conditions"].is_array()) {
        for (const json& c : st["conditions"]) {
          if (!c.is_object() || json_string(c, "status") != "True") continue;
          std::string type = json_string(c, "type");
          if (type != "Unschedulable" && type != "Scheduled") continue;
          meta.condition = type;
          auto msg = c.find("message");
          meta.condition_message = msg != c.end() && msg->is_string() ? msg->get<std::string>() : "";
        }
      }
      cache_.upsert_podgroup(std::move(*pg));
    }
  } else if (resource == kQueues) {
    auto q = queue_from_json(obj, w);
    if (!q) {
      if (!key.empty()) remove(resource, key);
    } else {
      QueueMeta& meta = queue_meta_[key];
      meta.status = obj.contains("status") && obj["status"].is_object() ? obj["status"] : json::object();
      cache_.upsert_queue(std::move(*q));
    }
  } else if (resource == kPriorityClasses) {
    if (auto pc = priority_class_from_json(obj, w))
      cache_.upsert_priority_class(std::move(*pc));
    else if (!key.empty())
      cache_.remove_priority_class(key);
  } else if (resource == kHyperNodes) {
    if (auto hn = hypernode_from_json(obj, w))
      cache_.upsert_hypernode(std::move(*hn));
    else if (!key.empty())
      cache_.remove_hypernode(key);
  }
  warn(w);
  return key;
}

void KubeCluster::upsert_pod(const json& obj) {
  Warnings w;
  ObjectMeta m = read_meta(obj);
  std::string key = m.key();
  std::optional<PodSpec> p = pod_from_json(obj, opts_.scheduler_names, w);
  warn(w);
  if (!p) {
    if (!m.name.empty()) remove(kPods, key);
    return;
  }
  PodMeta& meta = pod_meta_[key];
  bool replaced = !meta.uid.empty() && meta.uid != m.uid;  // deleted and created again
  meta.uid = m.uid;
  meta.scheduled_message = scheduled_message(obj);
  meta.nominated_node = p->nominated_node;

  if (auto a = assumed_.find(key); a != assumed_.end()) {
    if (replaced) {
      assumed_.erase(a);
    } else if (!p->node.empty()) {
      // The watch confirms a bind (ours, or someone else's if the names differ).
      if (p->node != a->second.node)
        spdlog::warn("kubernetes: pod {} was bound to {}, not to {} as decided", key, p->node,
                     a->second.node);
      assumed_.erase(a);
    } else {
      a->second.observed = *p;
      p->node = a->second.node;  // still in flight: keep showing it on its node
    }
  }
  if (auto e = evicting_.find(key); e != evicting_.end()) {
    if (replaced || p->releasing || p->node.empty()) {
      evicting_.erase(e);
    } else {
      e->second = *p;
      p->releasing = true;
    }
  }
  cache_.upsert_pod(std::move(*p));
}

void KubeCluster::remove(const std::string& resource, const std::string& key) {
  if (resource == kPods) {
    cache_.remove_pod(key);
    pod_meta_.erase(key);
    assumed_.erase(key);
    evicting_.erase(key);
  } else if (resource == kNodes) {
    cache_.remove_node(key);
  } else if (resource == kPodGroups) {
    cache_.remove_podgroup(key);
    pg_meta_.erase(key);
    queue_missing_warned_.erase(key);
    refused_podgroups_.erase(key);
    missing_podgroup_warned_.erase(key);
  } else if (resource == kQueues) {
    cache_.remove_queue(key);
    queue_meta_.erase(key);
  } else if (resource == kPriorityClasses) {
    cache_.remove_priority_class(key);
  } else if (resource == kHyperNodes) {
    cache_.remove_hypernode(key);
  } else if (resource == kDisruptionBudgets) {
    cache_.remove_disruption_budget(key);
  } else if (resource == kResourceQuotas) {
    cache_.remove_resource_quota(key);
  } else if (resource == kStorageClasses) {
    cache_.remove_storage_class(key);
  } else if (resource == kPersistentVolumes) {
    cache_.remove_persistent_volume(key);
    watched_volumes_.erase(key);
  } else if (resource == kClaims) {
    cache_.remove_claim(key);
    watched_claims_.erase(key);
  } else if (resource == kCsiNodes) {
    if (auto it = csi_nodes_.find(key); it != csi_nodes_.end()) {
      const auto before = it->second;
      csi_nodes_.erase(it);
      set_csi_resources(key, before.get(), {});
    }
  }
}

// Volcano's setCSIResourceOnNode: the node offers what its CSINode's drivers allow, in place
// of what the CSINode gave it before (a driver gone takes its resource with it).
std::vector<std::pair<std::string, std::string>> parse_node_selector(
    const std::vector<std::string>& entries) {
  auto trim = [](const std::string& s) {
    const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& entry : entries) {
    const size_t colon = entry.find(':');
    const std::string key = colon == std::string::npos ? "" : trim(entry.substr(0, colon));
    const std::string value = colon == std::string::npos ? "" : trim(entry.substr(colon + 1));
    if (key.empty() || value.empty())
      throw InputError(fmt::format("--node-selector {}: not KEY:VALUE (e.g. volcano.sh/role:train)",
                                   entry));
    out.emplace_back(key, value);
  }
  return out;
}

bool KubeCluster::node_selected(const NodeSpec& n) const {
  if (opts_.node_selector.empty()) return true;
  for (const auto& [k, v] : opts_.node_selector)
    if (auto it = n.labels.find(k); it != n.labels.end() && it->second == v) return true;
  return false;
}

void KubeCluster::set_csi_resources(const std::string& node, const ResourceList* before,
                                    const ResourceList& resources) {
  const NodeSpec* n = cache_.node(node);
  if (n == nullptr) return;  // set when the node arrives
  NodeSpec next = *n;
  if (before != nullptr)
    for (const auto& [name, _] : *before) next.allocatable.erase(name);
  for (const auto& [name, count] : resources) next.allocatable[name] = count;
  if (next.allocatable != n->allocatable) cache_.upsert_node(std::move(next));
}

// ---- writer hooks ---------------------------------------------------------------------

void KubeCluster::bind_answered() {
  if (binds_outstanding_ == 0) return;
  if (--binds_outstanding_ > 0) return;
  double secs = mono_now() - burst_start_;
  if (burst_binds_ >= 100 && secs > 0) {
    stats_.last_burst_binds_per_second = static_cast<double>(burst_binds_) / secs;
    spdlog::info("kubernetes: {} binds written in {:.2f}s ({:.0f} binds/s)", burst_binds_, secs,
                 stats_.last_burst_binds_per_second);
  }
  burst_binds_ = 0;
}

void KubeCluster::on_bound(const std::string& key, const std::string& node) {
  bind_answered();
  pending_volumes_.erase(key);
  auto a = assumed_.find(key);
  if (a == assumed_.end() || a->second.node != node) return;  // the watch was first
  a->second.confirmed_by_server = true;
  a->second.deadline = mono_now() + opts_.assume_ttl;
}

void KubeCluster::on_bind_failed(const std::string& key, const std::string& node,
                                 const std::string&) {
  bind_answered();
  // The volume decisions the cache took as written go back to what the watch last showed,
  // unless the watch has shown something newer since.
  if (auto pv = pending_volumes_.find(key); pv != pending_volumes_.end()) {
    for (const std::string& name : pv->second.volumes)
      if (auto w = watched_volumes_.find(name); w != watched_volumes_.end()) {
        auto now = cache_.persistent_volumes().find(name);
        if (now != cache_.persistent_volumes().end() && now->second != w->second) {
          cache_.upsert_persistent_volume(w->second->spec());
          w->second = cache_.persistent_volumes().at(name);
        }
      }
    for (const std::string& claim : pv->second.claims)
      if (auto w = watched_claims_.find(claim); w != watched_claims_.end()) {
        auto now = cache_.claims().find(claim);
        if (now != cache_.claims().end() && now->second != w->second) {
          cache_.upsert_claim(w->second->spec());
          w->second = cache_.claims().at(claim);
        }
      }
    pending_volumes_.erase(pv);
  }
  auto a = assumed_.find(key);
  if (a == assumed_.end() || a->second.node != node) return;
  PodSpec observed = std::move(a->second.observed);
  assumed_.erase(a);
  // Back to what the watch last showed: pending, so a later session can place it again.
  if (cache_.pod(key)) cache_.upsert_pod(std::move(observed));
}

void KubeCluster::on_evict_failed(const std::string& key, const std::string&) {
  auto e = evicting_.find(key);
  if (e == evicting_.end()) return;
  PodSpec observed = std::move(e->second);
  evicting_.erase(e);
  if (cache_.pod(key)) cache_.upsert_pod(std::move(observed));
}

void KubeCluster::expire_assumptions() {
  double now = mono_now();
  std::vector<std::string> expired;
  for (const auto& [key, a] : assumed_)
    if (a.confirmed_by_server && now > a.deadline) expired.push_back(key);
  for (const auto& key : expired) {
    // Bound by the server but never seen on the watch: trust the watch again. If the
    // bind did happen, a second one is answered 409 and the pod is read afresh.
    spdlog::warn("kubernetes: bind of {} not seen on the watch after {}s; assumption dropped",
                 key, opts_.assume_ttl);
    auto a = assumed_.find(key);
    PodSpec observed = std::move(a->second.observed);
    assumed_.erase(a);
    if (cache_.pod(key)) cache_.upsert_pod(std::move(observed));
  }
}

void KubeCluster::leadership_lost() { writer_->drop_queued(); }

// ---- decisions out --------------------------------------------------------------------

CommitReport KubeCluster::commit(const SessionResult& r, double now) {
  expire_assumptions();
  CommitReport rep = commit_decisions(r, cache_, *this, now);
  stats_.binds_skipped += rep.binds_skipped;
  return rep;
}

CommitReport KubeCluster::commit_binds(const SessionResult& r) {
  expire_assumptions();
  CommitReport rep = caldera::commit_binds(r, cache_, *this);
  stats_.binds_skipped += rep.binds_skipped;
  return rep;
}

// kube-scheduler's volume binder (bindAPIUpdate): the PV chosen for a claim gets its
// claimRef (and bound-by-controller), a claim to provision gets the selected node; each
// write is conditional on the resourceVersion the session read. They go out with the bind
// (bind() below), before it. Unlike Volcano's PreBind, the bind does not wait for the PV
// controller to complete the binding: the kubelet waits for the claim instead.
bool KubeCluster::bind_volumes(const PodSpec& pod, const std::vector<ClaimDecision>& decisions) {
  PendingVolumes& pending = pending_volumes_[pod.key()];
  pending = PendingVolumes{};
  for (const ClaimDecision& d : decisions) {
    VolumeWrite& v = pending.writes.emplace_back();
    json metadata = json::object();
    if (d.volume) {
      const PersistentVolumeSpec& pv = *d.volume;
      v.name = pv.meta.name;
      json claim_ref = {{"kind", "PersistentVolumeClaim"},
                        {"apiVersion", "v1"},
                        {"namespace", pv.claim_namespace},
                        {"name", pv.claim_name}};
      if (!pv.claim_uid.empty()) claim_ref["uid"] = pv.claim_uid;
      if (const std::string* a = pv.meta.annotation(kAnnBoundByController))
        metadata["annotations"] = {{kAnnBoundByController, *a}};
      if (!pv.meta.resource_version.empty()) metadata["resourceVersion"] = pv.meta.resource_version;
      v.patch = {{"metadata", metadata}, {"spec", {{"claimRef", claim_ref}}}};
      pending.volumes.push_back(pv.meta.name);
    } else {
      v.claim = true;
      v.ns = d.claim.meta.ns;
      v.name = d.claim.meta.name;
      const std::string* node = d.claim.meta.annotation(kAnnSelectedNode);
      metadata["annotations"] = {{kAnnSelectedNode, node ? *node : std::string()}};
      if (!d.claim.meta.resource_version.empty())
        metadata["resourceVersion"] = d.claim.meta.resource_version;
      v.patch = {{"metadata", metadata}};
      pending.claims.push_back(d.claim.key());
    }
  }
  return true;
}

void KubeCluster::bind(const PodSpec& observed, const PodSpec& bound) {
  const std::string key = observed.key();
  Assumed a;
  a.node = bound.node;
  a.observed = observed;
  const PodMeta& meta = pod_meta_[key];
  if (binds_outstanding_ == 0) burst_start_ = mono_now();
  ++binds_outstanding_;
  ++burst_binds_;
  assumed_.emplace(key, std::move(a));  // before the write: a failure answered at once undoes it
  std::vector<VolumeWrite> volumes;
  if (auto pv = pending_volumes_.find(key); pv != pending_volumes_.end())
    volumes = std::move(pv->second.writes);
  writer_->bind(observed.ns, observed.name, meta.uid, bound.node, std::move(volumes));
  ++stats_.binds_sent;
}

void KubeCluster::evict(const PodSpec& observed, const std::string& reason) {
  const std::string key = observed.key();
  evicting_.emplace(key, observed);  // before the write, as for binds
  // Volcano's evictor records a Warning "Evict" event on the victim before it evicts, and
  // its cache a Normal "Evict" event with the reason on the victim's PodGroup.
  if (!reason.empty()) {
    writer_->pod_event(observed.ns, observed.name, "Evict",
                       "Pod is evicted, because of " + reason, pod_meta_[key].uid);
    if (!observed.podgroup.empty())
      writer_->podgroup_event(observed.ns, observed.podgroup,
                              pg_meta_[observed.ns + "/" + observed.podgroup].uid, "Evict",
                              reason, "Normal");
  }
  writer_->evict(observed.ns, observed.name, pod_meta_[key].uid);
  ++stats_.evictions_sent;
}

void KubeCluster::update_status(const SessionResult& r, double now) {
  // A PodGroup whose queue does not exist is left out of sessions; say so once, on the
  // object, where its owner looks.
  for (const auto& [key, pg] : cache_.podgroups()) {
    if (pg->queue == "default" || cache_.queue(pg->queue) || queue_missing_warned_.count(key))
      continue;
    queue_missing_warned_.insert(key);
    std::string msg = fmt::format("queue '{}' does not exist; the PodGroup waits for it", pg->queue);
    spdlog::warn("kubernetes: PodGroup {}: {}", key, msg);
    writer_->podgroup_event(pg->ns, pg->name, pg_meta_[key].uid, "Unschedulable", msg);
  }

  write_podgroup_status(r, now);
  write_queue_status();
  write_pending(r);
}

namespace {
constexpr const char* kPodGroupReady = "pod group is ready";  // Volcano's PodGroupReady
}  // namespace

void KubeCluster::write_podgroup_status(const SessionResult& r, double now) {
  // Pod counts per PodGroup, as Volcano's jobStatus fills running / succeeded / failed.
  std::unordered_map<std::string, std::array<int64_t, 3>> counts;
  for (const auto& [_, p] : cache_.pods()) {
    if (p->podgroup.empty()) continue;
    auto& c = counts[p->ns + "/" + p->podgroup];
    if (p->phase == PodPhase::Running) ++c[0];
    if (p->phase == PodPhase::Succeeded) ++c[1];
    if (p->phase == PodPhase::Failed) ++c[2];
  }
  for (const auto& [key, phase] : r.podgroup_phases) {
    const PodGroupSpec* pg = cache_.podgroup(key);
    if (!pg) continue;
    PodGroupMeta& meta = pg_meta_[key];
    // Volcano's RecordJobStatusEvent: a PodGroup still Pending, Inqueue or Unknown gets an
    // Unschedulable event each session (the event recorder folds repeats into a count:
    // written here when its words change).
    if (auto ev = r.podgroup_unschedulable.find(key); ev != r.podgroup_unschedulable.end()) {
      const std::string text = truncate(ev->second);
      if (text != meta.event_message)
        writer_->podgroup_event(pg->ns, pg->name, meta.uid, "Unschedulable", text);
      meta.event_message = text;
    }
    json status = json::object();
    std::string ph = to_string(phase);
    if (ph != meta.phase) status["phase"] = ph;
    // A PodGroup with pods has an entry (Volcano's gang skips jobs without tasks).
    const auto counted = counts.find(key);
    const bool has_pods = counted != counts.end();
    const std::array<int64_t, 3> c = has_pods ? counted->second : std::array<int64_t, 3>{};
    if (c[0] != meta.running) status["running"] = c[0];
    if (c[1] != meta.succeeded) status["succeeded"] = c[1];
    if (c[2] != meta.failed) status["failed"] = c[2];

    // Volcano's gang plugin: Unschedulable (NotEnoughResources) with its message while the
    // job is not ready, Scheduled once it is (its tasks placed, in the session that places
    // them). The message is the one a plugin set as the condition (gang's), not the other
    // plugins' reasons, which Volcano posts as events.
    std::string cond, msg;
    if (auto pc = r.podgroup_conditions.find(key); pc != r.podgroup_conditions.end()) {
      cond = "Unschedulable";
      msg = truncate(pc->second);
    } else if (has_pods) {
      cond = "Scheduled";
    }
    if (!cond.empty() && (cond != meta.condition || msg != meta.condition_message)) {
      status["conditions"] = json::array({json{
          {"type", cond},
          {"status", "True"},
          {"reason", cond == "Unschedulable" ? "NotEnoughResources"
                                             : "tasks in gang are ready to be scheduled"},
          {"message", msg},
          {"lastTransitionTime", format_time(now)},
      }});
      meta.condition = cond;
      meta.condition_message = msg;
    }
    if (status.empty()) continue;
    // Volcano's job updater: a PodGroup whose status changed, and that is not
    // unschedulable, gets a Normal "Scheduled" event.
    if (!r.podgroup_unschedulable.count(key) && meta.event_message != kPodGroupReady) {
      writer_->podgroup_event(pg->ns, pg->name, meta.uid, "Scheduled", kPodGroupReady, "Normal");
      meta.event_message = kPodGroupReady;
    }
    writer_->podgroup_status(pg->ns, pg->name, status);
    meta.running = c[0];
    meta.succeeded = c[1];
    meta.failed = c[2];
    // The cache holds the phase decided here already (commit_decisions), so the next
    // session sees it (Inqueue from enqueue) before the watch brings it back.
    meta.phase = ph;
  }
}

void KubeCluster::write_queue_status() {
  struct Tally {
    std::map<std::string, int64_t> phases;
    ResourceList allocated;
  };
  std::map<std::string, Tally> by_queue;
  for (const auto& [_, pg] : cache_.podgroups()) ++by_queue[pg->queue].phases[to_string(pg->phase)];
  for (const auto& [_, p] : cache_.pods()) {
    if (!p->schedulable || p->node.empty() || p->releasing) continue;
    if (p->phase != PodPhase::Pending && p->phase != PodPhase::Running) continue;
    std::string queue = "default";
    if (!p->podgroup.empty()) {
      const PodGroupSpec* pg = cache_.podgroup(p->ns + "/" + p->podgroup);
      if (!pg) continue;
      queue = pg->queue;
    }
    for (const auto& [name, v] : p->requests) by_queue[queue].allocated[name] += v;
  }
  for (const auto& [name, q] : cache_.queues()) {
    QueueMeta& meta = queue_meta_[name];
    const Tally& t = by_queue[name];
    auto count = [&](const char* phase) {
      auto it = t.phases.find(phase);
      return it == t.phases.end() ? int64_t{0} : it->second;
    };
    json want = {
        {"pending", count("Pending")},   {"inqueue", count("Inqueue")},
        {"running", count("Running")},   {"unknown", count("Unknown")},
        {"completed", count("Completed")}, {"allocated", resource_list_to_json(t.allocated)},
    };
    // The state belongs to whoever opens and closes queues (Volcano's queue controller);
    // it is only filled in when nobody has.
    std::string state = meta.status.is_object() ? json_string(meta.status, "state") : "";
    if (state.empty()) want["state"] = to_string(q->state);
    json diff = json::object();
    for (auto it = want.begin(); it != want.end(); ++it) {
      auto have = meta.status.find(it.key());
      if (have == meta.status.end() || *have != it.value()) diff[it.key()] = it.value();
    }
    if (diff.empty()) continue;
    // allocated is required by the CRD's schema, and a merge patch of a map merges keys:
    // send it whole, with removed resources set to null.
    json alloc = want["allocated"];
    if (auto have = meta.status.find("allocated"); have != meta.status.end() && have->is_object())
      for (auto it = have->begin(); it != have->end(); ++it)
        if (!alloc.contains(it.key())) alloc[it.key()] = nullptr;
    diff["allocated"] = alloc;
    writer_->queue_status(name, diff);
    for (auto it = want.begin(); it != want.end(); ++it) meta.status[it.key()] = it.value();
  }
}

std::string KubeCluster::outside_reason(const PodSpec& pod) {
  if (pod.podgroup.empty()) return "";
  std::string group = pod.ns + "/" + pod.podgroup;
  if (const PodGroupSpec* pg = cache_.podgroup(group)) {
    if (pg->queue == "default" || cache_.queue(pg->queue)) return "";
    return fmt::format("queue '{}' of PodGroup {} does not exist; the pod waits for it", pg->queue,
                       group);
  }
  std::string msg;
  if (auto it = refused_podgroups_.find(group); it != refused_podgroups_.end())
    msg = fmt::format("PodGroup {} cannot be used ({}); the pod waits until it is fixed", group,
                      it->second);
  else
    msg = fmt::format("PodGroup {} (annotation {}) does not exist; the pod waits for it", group,
                      kGroupNameAnnotation);
  if (missing_podgroup_warned_.insert(group).second)
    spdlog::warn("kubernetes: pod {}/{}: {}", pod.ns, pod.name, msg);
  return msg;
}

void KubeCluster::write_pending(const SessionResult& r) {
  size_t budget = opts_.max_pod_status_per_session;
  // Pods that are no task of the session (their PodGroup, or its queue, is missing): as
  // Volcano, they are not scheduled; unlike Volcano, which leaves them without a word,
  // they say why, the same way pending pods do.
  for (const auto& [key, pod] : cache_.pods()) {
    if (!pod->schedulable || !pod->node.empty() || pod->releasing || pod->podgroup.empty() ||
        pod->phase != PodPhase::Pending)
      continue;
    std::string msg = outside_reason(*pod);
    if (msg.empty()) continue;
    msg = truncate(msg);
    PodMeta& meta = pod_meta_[key];
    if (meta.scheduled_message == msg) continue;
    if (budget == 0) return;
    --budget;
    writer_->pod_unschedulable(pod->ns, pod->name, meta.uid, msg);
    meta.scheduled_message = msg;
  }
  for (const auto& [key, why] : r.pending) {
    const PodSpec* pod = cache_.pod(key);
    if (!pod || !pod->node.empty() || !pod->schedulable) continue;
    // The task's own message, else its job's FitError(), as Volcano writes it (the job's
    // reasons go to the PodGroup; tests/integration/k8s compares with volcano-scheduler).
    const std::string msg = truncate(why);
    PodMeta& meta = pod_meta_[key];
    if (meta.scheduled_message == msg) continue;
    if (budget == 0) return;  // the rest next session: the API server is not flooded
    --budget;
    writer_->pod_unschedulable(pod->ns, pod->name, meta.uid, msg);
    meta.scheduled_message = msg;
  }
  // Tasks the session placed without binding them -- pipelined onto resources being
  // released, or allocated in a statement kept for a job that is pipelined but not ready --
  // say where they would go, as Volcano's RecordJobStatusEvent does for its Allocated and
  // Pipelined tasks (with JobInfo.TaskSchedulingReason's words and reasons).
  std::map<std::string, std::string> nominated(r.nominated.begin(), r.nominated.end());
  auto placed = [&](const std::vector<std::pair<std::string, std::string>>& tasks, bool pipelined) {
    for (const auto& [key, node] : tasks) {
      if (budget == 0) return;
      const PodSpec* pod = cache_.pod(key);
      if (!pod || !pod->node.empty() || !pod->schedulable) continue;
      std::string msg =
          pipelined ? fmt::format("Pod {}/{} can possibly be assigned to {}, once resource is "
                                  "released and minAvailable is satisfied",
                                  pod->ns, pod->name, node)
                    : fmt::format("Pod {}/{} can possibly be assigned to {}, once minAvailable "
                                  "is satisfied",
                                  pod->ns, pod->name, node);
      PodMeta& meta = pod_meta_[key];
      auto nom = nominated.find(key);
      const std::string nominate =
          nom != nominated.end() && nom->second != meta.nominated_node ? nom->second : "";
      if (meta.scheduled_message == msg && nominate.empty()) continue;
      --budget;
      writer_->pod_unschedulable(pod->ns, pod->name, meta.uid, msg,
                                 pipelined ? "Unschedulable" : "Schedulable", nominate);
      if (!nominate.empty()) meta.nominated_node = nominate;
      meta.scheduled_message = msg;
    }
  };
  placed(r.pipelined, true);
  placed(r.allocated, false);
}

}  // namespace caldera::k8s
