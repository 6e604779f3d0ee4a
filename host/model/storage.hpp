// Storage objects: StorageClasses, PersistentVolumes and PersistentVolumeClaims, read from
// the API objects as Kubernetes writes them (camelCase JSON; a scenario file's TOML is
// turned into the same JSON) and held with the C view plugins read (caldera/plugin.h,
// "Storage", ABI 1.4).
//
// A spec (the fields, copyable) becomes a record (the spec with its C view, immutable and
// not copyable: the view points into it) when the cache stores it; to change one, copy its
// spec, change the copy and store that.
//
// Reading checks what the API server's validation checks that the scheduler reads (enum
// values, quantities, selectors) and refuses unknown fields, so a bad object is an error
// naming the field, never a silent default.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caldera/plugin.h"
#include "host/model/api_json.hpp"
#include "host/util/source_ref.hpp"

namespace caldera {

// Annotations the volume binder and the PV controller read and write.
inline constexpr const char* kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr const char* kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr const char* kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
inline constexpr const char* kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";

using Labels = std::vector<std::pair<std::string, std::string>>;  // in key order

// The ApiMeta fields the scheduler reads.
struct ApiMeta {
  std::string name;
  std::string ns;   // "" for cluster-scoped objects
  std::string uid;  // "" when the input gives none
  std::string resource_version;  // the API server's, for conditional writes; "" in files
  Labels labels;
  Labels annotations;
  bool deleting = false;  // deletionTimestamp set
  const std::string* annotation(std::string_view key) const;
  void set_annotation(const std::string& key, std::string value);
};

struct StorageClassSpec {
  ApiMeta meta;
  std::string provisioner;
  bool wait_for_first_consumer = false;  // volumeBindingMode (Immediate when absent)
  std::vector<api::NodeTerm> allowed_topologies;
  bool has_csi_driver_parameter = false;
  std::string csi_driver_parameter;  // parameters["csi.storage.k8s.io/csi-driver-name"]
  SourceRef src;
};

struct PersistentVolumeSpec {
  ApiMeta meta;
  double capacity = 0;  // bytes
  uint32_t access_modes = 0;
  bool block = false;
  std::string storage_class_name;  // spec.storageClassName
  std::vector<api::NodeTerm> node_affinity;
  bool has_claim_ref = false;
  std::string claim_namespace, claim_name, claim_uid;
  bool csi = false;
  std::string csi_driver;
  std::string volume_attributes_class;
  bool has_phase = false;  // status.phase given
  cal_volume_phase phase = CAL_VOLUME_AVAILABLE;
  SourceRef src;
  // The beta annotation if set, else spec.storageClassName.
  std::string storage_class() const;
};

struct PersistentVolumeClaimSpec {
  ApiMeta meta;
  bool has_storage_class_name = false;
  std::string storage_class_name;  // spec.storageClassName
  std::string volume_name;
  uint32_t access_modes = 0;
  bool block = false;
  bool has_request = false;
  double request = 0;  // bytes
  bool has_selector = false;
  api::Selector selector;
  std::string volume_attributes_class;
  bool has_phase = false;  // status.phase given
  cal_claim_phase phase = CAL_CLAIM_PENDING;
  SourceRef src;
  std::string key() const { return meta.ns + "/" + meta.name; }
  // The beta annotation if set, else spec.storageClassName; null when neither is.
  const std::string* storage_class() const;
};

// An object's metadata from JSON, with the fields the API server adds (read and ignored
// unless the scheduler needs them). `namespaced`: the object lives in a namespace.
ApiMeta read_api_meta(const nlohmann::json& obj, const std::string& prefix, bool namespaced);

// The API objects from JSON. Errors (ApiFieldError) name fields from `prefix`.
StorageClassSpec read_storage_class(const nlohmann::json& v, const std::string& prefix);
PersistentVolumeSpec read_persistent_volume(const nlohmann::json& v, const std::string& prefix);
PersistentVolumeClaimSpec read_persistent_volume_claim(const nlohmann::json& v,
                                                       const std::string& prefix);

// Fills a record's C view from its spec; `arena` and `kept` hold what the view points to
// that the spec does not hold as is.
void make_view(const StorageClassSpec& s, cal_storage_class& v, api::ViewArena& arena,
               std::vector<std::string>& kept);
void make_view(const PersistentVolumeSpec& s, cal_persistent_volume& v, api::ViewArena& arena,
               std::vector<std::string>& kept);
void make_view(const PersistentVolumeClaimSpec& s, cal_persistent_volume_claim& v,
               api::ViewArena& arena, std::vector<std::string>& kept);

// A spec with its C view. Not copyable: the view points into it.
template <class Spec, class View>
class ApiRecord {
 public:
  explicit ApiRecord(Spec s) : spec_(std::move(s)) {
    strings_.reserve(1);  // make_view keeps at most one string: its address must hold
    make_view(spec_, view_, arena_, strings_);
  }
  ApiRecord(const ApiRecord&) = delete;
  ApiRecord& operator=(const ApiRecord&) = delete;
  const Spec& spec() const { return spec_; }
  const View* view() const { return &view_; }

 private:
  Spec spec_;
  api::ViewArena arena_;
  std::vector<std::string> strings_;  // what the view shows that the spec does not hold as is
  View view_{};
};

using StorageClass = ApiRecord<StorageClassSpec, cal_storage_class>;
using PersistentVolume = ApiRecord<PersistentVolumeSpec, cal_persistent_volume>;
using PersistentVolumeClaim = ApiRecord<PersistentVolumeClaimSpec, cal_persistent_volume_claim>;

}  // namespace caldera
