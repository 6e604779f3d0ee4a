// Kubernetes' volume filters as Volcano's predicates runs them (kube-scheduler 1.36
// plugins NodeVolumeLimits (CSI), VolumeZone and VolumeBinding, with the volume binder of
// volumebinding/binder.go and FindMatchingVolume of component-helpers' pv_helpers.go), over
// the storage objects of the session (caldera/plugin.h, "Storage", ABI 1.4).
//
// VolumeBinding's state is the session's: the PV a placement chose for a claim and the
// node it selected to provision one on are recorded by the host (task_assume_volume, from
// Reserve = on_allocate) and read back through volume_assumed_claim / claim_selected_node,
// as Kubernetes' assume cache does, so tasks placed later in the session see them.
//
// Not modelled (no input carries them): CSINode attach limits (NodeVolumeLimits finds no
// limit, as for a node without a CSINode object), CSIStorageCapacity (every provisioner has
// room, as for a driver that does not publish capacity), in-tree volume migration, generic
// ephemeral volumes (refused when read), the capacity score (StorageCapacityScoring is off
// in Volcano's feature gates).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/sdk.hpp"
#include "kube/selectors.hpp"

namespace caldera::kube {

inline constexpr const char* kVolumeNodeConflict =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr const char* kVolumeBindConflict =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr const char* kVolumePvNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr const char* kVolumeZoneConflict = "node(s) had no available volume zone";

// A PV's label (NULL when absent); labels are in key order.
inline const char* volume_label(const cal_persistent_volume& pv, std::string_view key) {
  const char* const* end = pv.label_keys + pv.label_count;
  const char* const* it = std::lower_bound(pv.label_keys, end, key,
                                           [](const char* k, std::string_view w) { return k < w; });
  return it != end && *it == key ? pv.label_values[it - pv.label_keys] : nullptr;
}

// CheckNodeAffinity: the PV's required node terms (ORed) against the node's labels. As in
// Kubernetes the node is seen by its labels only: a metadata.name field requirement meets
// an empty name.
inline bool volume_node_affinity_holds(const cal_persistent_volume& pv, sdk::Node n) {
  if (pv.node_affinity_term_count == 0) return true;
  for (size_t i = 0; i < pv.node_affinity_term_count; ++i)
    if (node_term_matches(pv.node_affinity_terms[i], [&](const char* k) { return n.label(k); }, ""))
      return true;
  return false;
}

inline std::string not_found(const char* kind, std::string_view name) {
  return std::string(kind) + " \"" + std::string(name) + "\" not found";
}

// The pod's claims, as its volumes name them (empty for a pod without any).
inline cal_string_list pod_claims(const sdk::Pod& pod) {
  const cal_pod_constraints* c = pod.constraints();
  if (c == nullptr || c->struct_size < offsetof(cal_pod_constraints, claims) + sizeof(c->claims))
    return {nullptr, 0};
  return c->claims;
}

// ---- VolumeZone ------------------------------------------------------------------------------

// The zone and region labels of the PVs bound to the pod's claims.
class VolumeZoneFilter {
 public:
  // PreFilter: "" and true when the filter has work, "" and false to skip it, or the
  // failure (the pod fits no node).
  std::string prefilter(const sdk::Session& s, const sdk::Pod& pod, bool* run) {
    topologies_.clear();
    *run = false;
    const cal_string_list claims = pod_claims(pod);
    const std::string ns(pod.ns());
    for (size_t i = 0; i < claims.count; ++i) {
      const cal_persistent_volume_claim* c = s.claim(ns.c_str(), claims.items[i]);
      if (c == nullptr) return not_found("persistentvolumeclaim", claims.items[i]);
      if (*c->volume_name == '\0') {
        if (c->storage_class == nullptr || *c->storage_class == '\0')
          return "PersistentVolumeClaim had no pv name and storageClass name";
        const cal_storage_class* sc = s.storage_class(c->storage_class);
        if (sc == nullptr) return not_found("storageclass.storage.k8s.io", c->storage_class);
        if (sc->wait_for_first_consumer) continue;  // not bound yet: no zone to honour
        return "PersistentVolume had no name";
      }
      const cal_persistent_volume* pv = s.volume(c->volume_name);
      if (pv == nullptr) return not_found("persistentvolume", c->volume_name);
      for (const char* key : kTopologyLabels)
        if (const char* v = volume_label(*pv, key)) topologies_.push_back({key, zones(v)});
    }
    *run = !topologies_.empty();
    return {};
  }

  // Filter: false when a PV's zone or region is not the node's (the node must carry one
  // of the four labels for the check to apply at all).
  bool fits(sdk::Node n) const {
    bool constrained = false;
    for (const char* key : kTopologyLabels)
      if (n.label(key) != nullptr) constrained = true;
    if (!constrained) return true;
    for (const Topology& t : topologies_) {
      const char* v = n.label(t.key);
      if (v == nullptr) v = n.label(ga_label(t.key));
      if (v == nullptr || std::find(t.values.begin(), t.values.end(), v) == t.values.end())
        return false;
    }
    return true;
  }

 private:
  static constexpr const char* kTopologyLabels[] = {
      "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
      "topology.kubernetes.io/zone", "topology.kubernetes.io/region"};
  static const char* ga_label(const char* key) {
    if (std::string_view(key) == kTopologyLabels[0]) return kTopologyLabels[2];
    if (std::string_view(key) == kTopologyLabels[1]) return kTopologyLabels[3];
    return key;
  }
  // LabelZonesToSet: zones joined by "__".
  static std::vector<std::string> zones(std::string_view v) {
    std::vector<std::string> out;
    for (size_t at = 0;;) {
      const size_t cut = v.find("__", at);
      std::string z(v.substr(at, cut == std::string_view::npos ? cut : cut - at));
      if (!z.empty()) out.push_back(std::move(z));
      if (cut == std::string_view::npos) break;
      at = cut + 2;
    }
    return out;
  }
  struct Topology {
    const char* key;
    std::vector<std::string> values;
  };
  std::vector<Topology> topologies_;
};

// ---- VolumeBinding ---------------------------------------------------------------------------

// The volume decisions a node allows the pod: a PV for each claim matched on the node, the
// claims to provision there.
struct PodVolumes {
  std::vector<std::pair<const cal_persistent_volume_claim*, const cal_persistent_volume*>> bindings;
  std::vector<const cal_persistent_volume_claim*> provisions;
};

class VolumeBindingFilter {
 public:
  // PreFilter (podHasPVCs, GetPodVolumeClaims): "" with *run false for a pod without
  // claims (Skip), "" with *run true, or the failure.
  std::string prefilter(const sdk::Session& s, const sdk::Pod& pod, bool* run) {
    session_ = s;
    bound_.clear();
    delayed_.clear();
    *run = false;
    const cal_string_list claims = pod_claims(pod);
    if (claims.count == 0) return {};
    const std::string ns(pod.ns());
    std::vector<const cal_persistent_volume_claim*> found;
    for (size_t i = 0; i < claims.count; ++i) {
      const cal_persistent_volume_claim* c = s.claim(ns.c_str(), claims.items[i]);
      if (c == nullptr) return not_found("persistentvolumeclaim", claims.items[i]);
      if (c->phase == CAL_CLAIM_LOST)
        return "persistentvolumeclaim \"" + std::string(c->name) +
               "\" bound to non-existent persistentvolume \"" + c->volume_name + "\"";
      if (c->deleting) return "persistentvolumeclaim \"" + std::string(c->name) + "\" is being deleted";
      found.push_back(c);
    }
    bool immediate = false;
    for (const cal_persistent_volume_claim* c : found) {
      if (*c->volume_name != '\0' && c->bind_completed) {
        bound_.push_back(c);
        continue;
      }
      const cal_storage_class* sc =
          c->storage_class && *c->storage_class ? s.storage_class(c->storage_class) : nullptr;
      const bool delayed = sc != nullptr && sc->wait_for_first_consumer;
      if (delayed && *c->volume_name == '\0') delayed_.push_back(c);
      else immediate = true;  // prebound claims too: the PV controller binds them
    }
    if (immediate) return "pod has unbound immediate PersistentVolumeClaims";
    // findMatchingVolumes takes the smallest claims first (a stable sort for a pod's few).
    std::stable_sort(delayed_.begin(), delayed_.end(),
                     [](const auto* a, const auto* b) { return a->request < b->request; });
    // The PVs of each class the unbound claims ask for, listed once (the binder's
    // ListPVs(class)), in name order.
    class_volumes_.clear();
    for (const cal_persistent_volume_claim* c : delayed_) {
      const std::string_view cls = c->storage_class ? c->storage_class : "";
      if (volumes_of(cls) != nullptr) continue;
      auto& [name, list] = class_volumes_.emplace_back(std::string(cls), std::vector<const cal_persistent_volume*>{});
      for (size_t i = 0, count = s.volume_count(); i < count; ++i)
        if (const cal_persistent_volume* pv = s.volume_at(i); name == pv->storage_class)
          list.push_back(pv);
    }
    *run = true;
    return {};
  }

  // Filter (FindPodVolumes): the reasons the node fails ("" when it fits), and what it
  // would decide in *out.
  std::string filter(sdk::Node n, PodVolumes* out) const {
    bool bound_ok = true, unbound_ok = true, pvs_found = true;
    for (const cal_persistent_volume_claim* c : bound_) {
      const cal_persistent_volume* pv = session_.volume(c->volume_name);
      if (pv == nullptr) {
        pvs_found = false;
        break;
      }
      if (!volume_node_affinity_holds(*pv, n)) {
        bound_ok = false;
        break;
      }
    }
    if (!delayed_.empty()) unbound_ok = match_unbound(n, out);
    std::string why;
    auto add = [&](const char* r) { why.append(why.empty() ? "" : ", ").append(r); };
    if (!bound_ok) add(kVolumeNodeConflict);
    if (!unbound_ok) add(kVolumeBindConflict);
    if (!pvs_found) add(kVolumePvNotExist);
    return why;
  }

  // Reserve (AssumePodVolumes): records t's decisions on node n.
  void reserve(sdk::Task t, sdk::Node n) const {
    PodVolumes v;
    if (!filter(n, &v).empty()) return;
    for (const auto& [c, pv] : v.bindings)
      if (session_.volume_assumed_claim(pv) != c && !bound_to(*pv, *c, nullptr)) t.assume_volume(c, pv);
    for (const cal_persistent_volume_claim* c : v.provisions) t.assume_volume(c, nullptr);
  }

 private:
  // The volume's claim (the session's choice, else its claimRef) is c.
  bool bound_to(const cal_persistent_volume& pv, const cal_persistent_volume_claim& c,
                bool* has_ref) const {
    if (const cal_persistent_volume_claim* a = session_.volume_assumed_claim(&pv)) {
      if (has_ref) *has_ref = true;
      return a == &c;
    }
    if (has_ref) *has_ref = pv.claim_name != nullptr;
    if (pv.claim_name == nullptr) return false;
    if (std::string_view(pv.claim_name) != c.name ||
        std::string_view(pv.claim_namespace) != c.namespace_name)
      return false;
    return *pv.claim_uid == '\0' || std::string_view(pv.claim_uid) == c.uid;
  }

  // The unbound WaitForFirstConsumer claims on node n: each matched with a PV, else
  // provisioned; false when one can be neither.
  bool match_unbound(sdk::Node n, PodVolumes* out) const {
    std::vector<const cal_persistent_volume_claim*> to_provision, to_match;
    const std::string_view node = n.name();
    for (const cal_persistent_volume_claim* c : delayed_) {
      if (const char* sel = session_.claim_selected_node(c)) {
        if (node != sel) return false;  // provisioning already started on another node
        to_provision.push_back(c);
      } else {
        to_match.push_back(c);
      }
    }
    std::vector<const cal_persistent_volume*> chosen;
    for (const cal_persistent_volume_claim* c : to_match) {
      const cal_persistent_volume* pv = matching_volume(*c, n, chosen);
      if (pv == nullptr) {
        to_provision.push_back(c);
        continue;
      }
      chosen.push_back(pv);
      if (out) out->bindings.emplace_back(c, pv);
    }
    for (const cal_persistent_volume_claim* c : to_provision) {
      // checkVolumeProvisions: the class must provision, on a node its topologies allow.
      const cal_storage_class* sc = session_.storage_class(c->storage_class);
      if (sc == nullptr || *sc->provisioner == '\0' ||
          std::string_view(sc->provisioner) == "kubernetes.io/no-provisioner")
        return false;
      if (sc->allowed_topology_count > 0) {
        bool allowed = false;
        for (size_t i = 0; i < sc->allowed_topology_count && !allowed; ++i)
          allowed = node_term_matches(sc->allowed_topologies[i],
                                      [&](const char* k) { return n.label(k); }, "");
        if (!allowed) return false;
      }
      if (out) out->provisions.push_back(c);
    }
    return true;
  }

  // FindMatchingVolume: the PV bound to c if it suits the node, else the smallest
  // available one of c's class that suits c and the node (the first by name among equals).
  const cal_persistent_volume* matching_volume(
      const cal_persistent_volume_claim& c, sdk::Node n,
      const std::vector<const cal_persistent_volume*>& chosen) const {
    const cal_persistent_volume* best = nullptr;
    const auto* listed = volumes_of(c.storage_class ? c.storage_class : "");
    if (listed == nullptr) return nullptr;
    for (const cal_persistent_volume* pv : *listed) {
      if (std::find(chosen.begin(), chosen.end(), pv) != chosen.end()) continue;
      bool has_ref = false;
      const bool ours = bound_to(*pv, c, &has_ref);
      if (has_ref && !ours) continue;
      if (pv->capacity < c.request) continue;
      if ((pv->block != 0) != (c.block != 0)) continue;
      if (std::string_view(pv->volume_attributes_class) != c.volume_attributes_class) continue;
      if (pv->deleting) continue;
      const bool affinity = volume_node_affinity_holds(*pv, n);
      if (ours) return affinity ? pv : nullptr;
      if (pv->phase != CAL_VOLUME_AVAILABLE) continue;
      if (c.has_selector &&
          !selector_matches(c.selector, [&](const char* k) { return volume_label(*pv, k); }))
        continue;
      if (!affinity) continue;
      if ((c.access_modes & pv->access_modes) != c.access_modes) continue;
      if (best == nullptr || pv->capacity < best->capacity) best = pv;
    }
    return best;
  }

  const std::vector<const cal_persistent_volume*>* volumes_of(std::string_view cls) const {
    for (const auto& [name, list] : class_volumes_)
      if (name == cls) return &list;
    return nullptr;
  }

  sdk::Session session_;
  std::vector<std::pair<std::string, std::vector<const cal_persistent_volume*>>> class_volumes_;
  std::vector<const cal_persistent_volume_claim*> bound_;    // fully bound claims
  std::vector<const cal_persistent_volume_claim*> delayed_;  // unbound, WaitForFirstConsumer
};

}  // namespace caldera::kube
