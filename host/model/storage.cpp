#include "host/model/storage.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace caldera {

using json = nlohmann::json;
using namespace api;  // NOLINT: the readers are written in its terms

const std::string* ApiMeta::annotation(std::string_view key) const {
  for (const auto& [k, v] : annotations)
    if (k == key) return &v;
  return nullptr;
}

void ApiMeta::set_annotation(const std::string& key, std::string value) {
  auto it = std::lower_bound(annotations.begin(), annotations.end(), key,
                             [](const auto& kv, const std::string& k) { return kv.first < k; });
  if (it != annotations.end() && it->first == key) it->second = std::move(value);
  else annotations.insert(it, {key, std::move(value)});
}

std::string PersistentVolumeSpec::storage_class() const {
  if (const std::string* beta = meta.annotation(kAnnBetaStorageClass)) return *beta;
  return storage_class_name;
}

const std::string* PersistentVolumeClaimSpec::storage_class() const {
  if (const std::string* beta = meta.annotation(kAnnBetaStorageClass)) return beta;
  return has_storage_class_name ? &storage_class_name : nullptr;
}

ApiMeta read_api_meta(const json& obj, const std::string& prefix, bool namespaced) {
  const std::string mp = field(prefix, "metadata");
  const json* md = member(obj, "metadata");
  if (md == nullptr) bad(prefix, "missing field 'metadata'", "the object's metadata with its name");
  object(*md, mp, {"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
                   "generation", "creationTimestamp", "deletionTimestamp",
                   "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
                   "finalizers", "managedFields"});
  ApiMeta m;
  m.name = required_string(*md, mp, "name", "the object's name");
  if (namespaced) {
    m.ns = required_string(*md, mp, "namespace", "the object's namespace");
  } else if (member(*md, "namespace")) {
    bad(field(mp, "namespace"), "a namespace on a cluster-scoped object", "no namespace");
  }
  if (const json* u = member(*md, "uid")) m.uid = string(*u, field(mp, "uid"));
  if (const json* l = member(*md, "labels")) m.labels = string_map(*l, field(mp, "labels"));
  if (const json* a = member(*md, "annotations"))
    m.annotations = string_map(*a, field(mp, "annotations"));
  m.deleting = member(*md, "deletionTimestamp") != nullptr;
  return m;
}

namespace {


uint32_t access_modes(const json& v, const std::string& path) {
  uint32_t bits = 0;
  const json& a = array(v, path);
  for (size_t i = 0; i < a.size(); ++i)
    bits |= 1u << choice(a[i], element(path, i),
                         {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"});
  return bits;
}

bool block_mode(const json& obj, const std::string& path) {
  const json* m = member(obj, "volumeMode");
  return m != nullptr && choice(*m, field(path, "volumeMode"), {"Filesystem", "Block"}) == 1;
}

// A resource list's "storage" ({ storage = "10Gi" }); other resources are refused, as the
// API server refuses them for volumes.
bool storage_amount(const json& v, const std::string& path, double* out) {
  object(v, path, {"storage"});
  const json* s = member(v, "storage");
  if (s == nullptr) return false;
  *out = quantity(*s, field(path, "storage"));
  return true;
}

// The PersistentVolumeSource fields: one of them says where the volume lives.
constexpr std::array<std::string_view, 22> kVolumeSources{
    "awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "csi", "fc",
    "flexVolume", "flocker", "gcePersistentDisk", "glusterfs", "hostPath", "iscsi", "local",
    "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos",
    "vsphereVolume"};

}  // namespace

StorageClassSpec read_storage_class(const json& v, const std::string& prefix) {
  object(v, prefix, {"apiVersion", "kind", "metadata", "provisioner", "parameters",
                     "reclaimPolicy", "mountOptions", "allowVolumeExpansion",
                     "volumeBindingMode", "allowedTopologies"});
  StorageClassSpec c;
  c.meta = read_api_meta(v, prefix, false);
  c.provisioner = required_string(v, prefix, "provisioner", "the provisioner's name");
  if (const json* p = member(v, "parameters"))
    for (auto& [k, val] : string_map(*p, field(prefix, "parameters")))
      if (k == "csi.storage.k8s.io/csi-driver-name") {
        c.has_csi_driver_parameter = true;
        c.csi_driver_parameter = val;
      }
  if (const json* r = member(v, "reclaimPolicy"))
    choice(*r, field(prefix, "reclaimPolicy"), {"Delete", "Retain"});
  if (const json* m = member(v, "mountOptions")) strings(*m, field(prefix, "mountOptions"));
  if (const json* e = member(v, "allowVolumeExpansion"))
    boolean(*e, field(prefix, "allowVolumeExpansion"));
  if (const json* m = member(v, "volumeBindingMode"))
    c.wait_for_first_consumer =
        choice(*m, field(prefix, "volumeBindingMode"), {"Immediate", "WaitForFirstConsumer"}) == 1;
  if (const json* t = member(v, "allowedTopologies")) {
    const std::string tp = field(prefix, "allowedTopologies");
    const json& a = array(*t, tp);
    for (size_t i = 0; i < a.size(); ++i) {
      // TopologySelectorTerm: matchLabelExpressions of { key, values }, each an In.
      const std::string ep = element(tp, i);
      object(a[i], ep, {"matchLabelExpressions"});
      NodeTerm term;
      if (const json* me = member(a[i], "matchLabelExpressions")) {
        const std::string mp = field(ep, "matchLabelExpressions");
        const json& ma = array(*me, mp);
        for (size_t j = 0; j < ma.size(); ++j) {
          const std::string rp = element(mp, j);
          object(ma[j], rp, {"key", "values"});
          Requirement r;
          r.key = required_string(ma[j], rp, "key", "a node label key");
          const json* vals = member(ma[j], "values");
          if (vals == nullptr) bad(rp, "missing field 'values'", "at least one value");
          r.values = strings(*vals, field(rp, "values"));
          if (r.values.empty()) bad(field(rp, "values"), "no values", "at least one value");
          term.expressions.push_back(std::move(r));
        }
      }
      c.allowed_topologies.push_back(std::move(term));
    }
  }
  return c;
}

PersistentVolumeSpec read_persistent_volume(const json& v, const std::string& prefix) {
  object(v, prefix, {"apiVersion", "kind", "metadata", "spec", "status"});
  PersistentVolumeSpec pv;
  pv.meta = read_api_meta(v, prefix, false);
  const std::string sp = field(prefix, "spec");
  const json* spec = member(v, "spec");
  if (spec == nullptr) bad(prefix, "missing field 'spec'", "the volume's spec");
  std::vector<std::string_view> allowed{"capacity", "accessModes", "claimRef",
                                        "persistentVolumeReclaimPolicy", "storageClassName",
                                        "mountOptions", "volumeMode", "nodeAffinity",
                                        "volumeAttributesClassName"};
  allowed.insert(allowed.end(), kVolumeSources.begin(), kVolumeSources.end());
  if (!spec->is_object()) bad(sp, fmt::format("got {}", kind_of(*spec)), "an object");
  for (const auto& [k, _] : spec->items())
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      bad(field(sp, k),
          fmt::format("unknown field '{}'{}", k, did_you_mean(k, allowed.data(), allowed.size())),
          "one of the fields " + listed_words(allowed.data(), allowed.size()));
  if (const json* c = member(*spec, "capacity")) storage_amount(*c, field(sp, "capacity"), &pv.capacity);
  if (const json* m = member(*spec, "accessModes")) pv.access_modes = access_modes(*m, field(sp, "accessModes"));
  pv.block = block_mode(*spec, sp);
  if (const json* c = member(*spec, "storageClassName"))
    pv.storage_class_name = string(*c, field(sp, "storageClassName"));
  if (const json* r = member(*spec, "persistentVolumeReclaimPolicy"))
    choice(*r, field(sp, "persistentVolumeReclaimPolicy"), {"Retain", "Delete", "Recycle"});
  if (const json* m = member(*spec, "mountOptions")) strings(*m, field(sp, "mountOptions"));
  if (const json* c = member(*spec, "volumeAttributesClassName"))
    pv.volume_attributes_class = string(*c, field(sp, "volumeAttributesClassName"));
  if (const json* na = member(*spec, "nodeAffinity")) {
    const std::string np = field(sp, "nodeAffinity");
    object(*na, np, {"required"});
    if (const json* r = member(*na, "required"))
      pv.node_affinity = node_selector_terms(*r, field(np, "required"));
  }
  if (const json* cr = member(*spec, "claimRef")) {
    const std::string cp = field(sp, "claimRef");
    object(*cr, cp, {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion",
                     "fieldPath"});
    pv.has_claim_ref = true;
    pv.claim_name = required_string(*cr, cp, "name", "the claim's name");
    pv.claim_namespace = required_string(*cr, cp, "namespace", "the claim's namespace");
    if (const json* u = member(*cr, "uid")) pv.claim_uid = string(*u, field(cp, "uid"));
  }
  size_t sources = 0;
  for (std::string_view src : kVolumeSources)
    if (member(*spec, src)) ++sources;
  if (sources > 1) bad(sp, fmt::format("{} volume sources", sources), "exactly one volume source");
  if (const json* csi = member(*spec, "csi")) {
    if (!csi->is_object()) bad(field(sp, "csi"), fmt::format("got {}", kind_of(*csi)), "an object");
    pv.csi = true;
    pv.csi_driver = required_string(*csi, field(sp, "csi"), "driver", "the CSI driver's name");
  }
  if (const json* st = member(v, "status")) {
    const std::string tp = field(prefix, "status");
    object(*st, tp, {"phase", "message", "reason", "lastPhaseTransitionTime"});
    if (const json* ph = member(*st, "phase")) {
      pv.has_phase = true;
      pv.phase = static_cast<cal_volume_phase>(
          choice(*ph, field(tp, "phase"), {"Pending", "Available", "Bound", "Released", "Failed"}));
    }
  }
  return pv;
}

PersistentVolumeClaimSpec read_persistent_volume_claim(const json& v, const std::string& prefix) {
  object(v, prefix, {"apiVersion", "kind", "metadata", "spec", "status"});
  PersistentVolumeClaimSpec c;
  c.meta = read_api_meta(v, prefix, true);
  const std::string sp = field(prefix, "spec");
  const json* spec = member(v, "spec");
  if (spec == nullptr) bad(prefix, "missing field 'spec'", "the claim's spec");
  object(*spec, sp, {"accessModes", "selector", "resources", "volumeName", "storageClassName",
                     "volumeMode", "dataSource", "dataSourceRef", "volumeAttributesClassName"});
  if (const json* m = member(*spec, "accessModes")) c.access_modes = access_modes(*m, field(sp, "accessModes"));
  if (const json* s = member(*spec, "selector")) {
    c.has_selector = true;
    c.selector = label_selector(s, field(sp, "selector"));
  }
  if (const json* r = member(*spec, "resources")) {
    const std::string rp = field(sp, "resources");
    object(*r, rp, {"requests", "limits"});
    if (const json* q = member(*r, "requests"))
      c.has_request = storage_amount(*q, field(rp, "requests"), &c.request);
    if (const json* l = member(*r, "limits")) {
      double ignored = 0;
      storage_amount(*l, field(rp, "limits"), &ignored);
    }
  }
  if (const json* n = member(*spec, "volumeName")) c.volume_name = string(*n, field(sp, "volumeName"));
  if (const json* n = member(*spec, "storageClassName")) {
    c.has_storage_class_name = true;
    c.storage_class_name = string(*n, field(sp, "storageClassName"));
  }
  c.block = block_mode(*spec, sp);
  if (const json* n = member(*spec, "volumeAttributesClassName"))
    c.volume_attributes_class = string(*n, field(sp, "volumeAttributesClassName"));
  if (const json* st = member(v, "status")) {
    const std::string tp = field(prefix, "status");
    object(*st, tp, {"phase", "accessModes", "capacity", "conditions", "allocatedResources",
                     "allocatedResourceStatuses", "currentVolumeAttributesClassName",
                     "modifyVolumeStatus"});
    if (const json* ph = member(*st, "phase")) {
      c.has_phase = true;
      c.phase = static_cast<cal_claim_phase>(
          choice(*ph, field(tp, "phase"), {"Pending", "Bound", "Lost"}));
    }
  }
  return c;
}

// ---- records -------------------------------------------------------------------------------

void make_view(const StorageClassSpec& spec, cal_storage_class& view, api::ViewArena& arena,
               std::vector<std::string>&) {
  view.struct_size = sizeof(cal_storage_class);
  view.name = spec.meta.name.c_str();
  view.provisioner = spec.provisioner.c_str();
  view.wait_for_first_consumer = spec.wait_for_first_consumer ? 1 : 0;
  std::tie(view.allowed_topologies, view.allowed_topology_count) =
      arena.terms(spec.allowed_topologies);
  view.csi_driver_parameter =
      spec.has_csi_driver_parameter ? spec.csi_driver_parameter.c_str() : nullptr;
}

void make_view(const PersistentVolumeSpec& p, cal_persistent_volume& c, api::ViewArena& arena,
               std::vector<std::string>& kept) {
  kept.push_back(p.storage_class());
  c.struct_size = sizeof(cal_persistent_volume);
  c.name = p.meta.name.c_str();
  c.storage_class = kept[0].c_str();
  c.capacity = p.capacity;
  c.access_modes = p.access_modes;
  c.block = p.block ? 1 : 0;
  std::tie(c.node_affinity_terms, c.node_affinity_term_count) = arena.terms(p.node_affinity);
  c.phase = p.phase;
  c.claim_namespace = p.has_claim_ref ? p.claim_namespace.c_str() : nullptr;
  c.claim_name = p.has_claim_ref ? p.claim_name.c_str() : nullptr;
  c.claim_uid = p.has_claim_ref ? p.claim_uid.c_str() : nullptr;
  c.csi_driver = p.csi ? p.csi_driver.c_str() : nullptr;
  c.deleting = p.meta.deleting ? 1 : 0;
  c.volume_attributes_class = p.volume_attributes_class.c_str();
  // Each list is filled before the next is added: adding one may move the others' vector
  // objects, never their buffers (see ViewArena).
  std::vector<const char*>& keys = arena.strings.emplace_back();
  for (const auto& [k, _] : p.meta.labels) keys.push_back(k.c_str());
  c.label_keys = keys.data();
  std::vector<const char*>& values = arena.strings.emplace_back();
  for (const auto& [_, val] : p.meta.labels) values.push_back(val.c_str());
  c.label_values = values.data();
  c.label_count = p.meta.labels.size();
}

void make_view(const PersistentVolumeClaimSpec& p, cal_persistent_volume_claim& c,
               api::ViewArena& arena, std::vector<std::string>&) {
  c.struct_size = sizeof(cal_persistent_volume_claim);
  c.namespace_name = p.meta.ns.c_str();
  c.name = p.meta.name.c_str();
  c.uid = p.meta.uid.c_str();
  const std::string* cls = p.storage_class();
  c.storage_class = cls ? cls->c_str() : nullptr;
  c.volume_name = p.volume_name.c_str();
  c.bind_completed = p.meta.annotation(kAnnBindCompleted) ? 1 : 0;
  const std::string* sel = p.meta.annotation(kAnnSelectedNode);
  c.selected_node = sel ? sel->c_str() : nullptr;
  c.phase = p.phase;
  c.deleting = p.meta.deleting ? 1 : 0;
  c.request = p.request;
  c.has_request = p.has_request ? 1 : 0;
  c.access_modes = p.access_modes;
  c.block = p.block ? 1 : 0;
  c.has_selector = p.has_selector ? 1 : 0;
  c.selector = arena.selector(p.selector);
  c.volume_attributes_class = p.volume_attributes_class.c_str();
}

}  // namespace caldera
