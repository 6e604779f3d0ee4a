// Kubernetes and Volcano API objects (JSON) turned into the cache's records. Every value
// is read defensively: a field of the wrong type, a quantity that does not parse, a
// negative or enormous amount, an unknown resource name is reported as a warning naming
// the object and the field and then ignored; an object that cannot be used at all (no
// name, a PodGroup with a negative minMember...) is skipped with an error. Nothing here
// throws on bad input.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "host/model/objects.hpp"
#include "host/model/policy_objects.hpp"
#include "host/model/storage.hpp"

namespace caldera::k8s {

using json = nlohmann::json;

// What the converters found wrong, one readable line each ("pod ns/p: container c:
// requests.cpu: '-1' is negative; ignored").
using Warnings = std::vector<std::string>;

// Object metadata beyond what the records keep.
struct ObjectMeta {
  std::string ns;
  std::string name;
  std::string uid;
  std::string resource_version;
  double created = 0;       // creationTimestamp, unix seconds
  bool deleting = false;    // deletionTimestamp is set
  std::string key() const { return ns.empty() ? name : ns + "/" + name; }
};
ObjectMeta read_meta(const json& obj);

// Safe reads for the write side: the member's value when it has the right type, else the
// fallback (nlohmann's value() throws on a type mismatch, which hostile input must not cause).
std::string json_string(const json& o, const char* key, const std::string& fallback = "");

// What the API server sends, parsed with limits: a document nested deeper than
// kMaxJsonDepth (arrays and objects) is refused before the parser sees it (nlohmann's
// parser recurses once per level: a hostile document would overflow the stack). Returns a
// discarded value for a malformed or refused document, as json::parse(..., false) does.
inline constexpr size_t kMaxJsonDepth = 128;
json parse_server_json(std::string_view text);
// The nesting depth of a JSON text (brackets outside strings), stopping past `limit`.
size_t json_depth(std::string_view text, size_t limit);
int64_t json_int(const json& o, const char* key, int64_t fallback = 0);

// Unix seconds of an RFC 3339 time ("2024-05-01T12:00:00Z", fractions and offsets
// accepted); nullopt when it is not one.
std::optional<double> parse_time(const std::string& s);
// RFC 3339 in UTC with seconds ("2024-05-01T12:00:00Z"); with_micros adds ".000000" as a
// MicroTime wants.
std::string format_time(double unix_seconds, bool with_micros = false);

// A ResourceList object ({"cpu": "2", "nvidia.com/gpu": 1}) in Caldera units. Names the
// scheduler does not count (ephemeral-storage, storage) are left out silently, as
// Volcano's NewResource does; malformed names and amounts are warned about and left out.
ResourceList read_resource_list(const json& list, const std::string& where, Warnings& w);
// Back to JSON quantities (cpu "1500m", memory bytes, scalars in whole units).
json resource_list_to_json(const ResourceList& r);

// The pod's requests as Kubernetes computes them (component-helpers resource.PodRequests):
// the containers summed, restartable init containers (sidecars) added, the largest init
// container taken as a floor, pod overhead added; pod-level requests replace cpu and memory
// when given. `running` is what the pod holds once started (containers, sidecars,
// overhead); `init` includes the init containers' peak (Volcano's InitResreq).
struct PodRequests {
  ResourceList running;
  ResourceList init;
};
PodRequests pod_requests(const json& pod_spec, const std::string& where, Warnings& w);

std::optional<NodeSpec> node_from_json(const json& obj, Warnings& w);

// Which pods enter the cache: those Caldera schedules (spec.schedulerName is one of
// `scheduler_names`), and pods of any scheduler that hold a node (they use its
// resources; marked schedulable = false). Pending pods of other schedulers and finished
// pods of other schedulers return nullopt with no warning.
std::optional<PodSpec> pod_from_json(const json& obj, const std::vector<std::string>& scheduler_names,
                                     Warnings& w);
std::optional<PodGroupSpec> podgroup_from_json(const json& obj, Warnings& w);
std::optional<QueueSpec> queue_from_json(const json& obj, Warnings& w);
std::optional<PriorityClassSpec> priority_class_from_json(const json& obj, Warnings& w);
// Volcano's topology.volcano.sh/v1alpha1 HyperNode: spec.tier and spec.members (type Node or
// HyperNode; selector exactMatch, regexMatch or labelMatch). Whether the members make a
// tree is checked when sessions use it (host/model/hypernode_tree.hpp).
std::optional<HyperNodeSpec> hypernode_from_json(const json& obj, Warnings& w);

// Storage objects (host/model/storage.hpp), read strictly by the model's readers: an object
// they refuse is a warning naming it and the field, and is left out (a pod whose claim is
// left out waits, its reason naming the claim).
// PodDisruptionBudget (policy/v1) and ResourceQuota (core/v1), status as the API holds it.
std::optional<DisruptionBudgetSpec> disruption_budget_from_json(const json& obj, Warnings& w);
std::optional<ResourceQuotaSpec> resource_quota_from_json(const json& obj, Warnings& w);
std::optional<StorageClassSpec> storage_class_from_json(const json& obj, Warnings& w);
std::optional<PersistentVolumeSpec> persistent_volume_from_json(const json& obj, Warnings& w);
std::optional<PersistentVolumeClaimSpec> claim_from_json(const json& obj, Warnings& w);

// A CSINode's drivers as the node resources Volcano's cache gives the node
// (setCSIResourceOnNode): `attachable-volumes-csi-<driver, '/' as '-'>` = the driver's
// allocatable count, or 2^31-1 when it sets none; in Caldera units (one volume = 1).
ResourceList csi_node_resources(const json& obj, Warnings& w);

// The annotation naming a pod's PodGroup (Volcano's KubeGroupNameAnnotationKey).
inline constexpr const char* kGroupNameAnnotation = "scheduling.k8s.io/group-name";

}  // namespace caldera::k8s
