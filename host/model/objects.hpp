// The cluster objects as the cache stores them: plain records, backend-neutral, named the
// way Kubernetes and Volcano name them. A backend (the embedded cluster, a scenario file,
// the Kubernetes API) turns its input into these; OpenSession turns them into the
// session's working objects (host/session/session_types.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/model/pod_constraints.hpp"  // PodConstraints, NodeImages
#include "host/util/source_ref.hpp"  // SourceRef

namespace caldera {

// Resource amounts by name, in Caldera units: cpu in millicores, memory in bytes, pods as
// a count, every other (scalar) resource in milli-units (nvidia.com/gpu: 1 -> 1000), as
// Volcano counts them. Ordered, so iteration is deterministic.
using ResourceList = std::map<std::string, double>;
inline constexpr const char* kCpu = "cpu";
inline constexpr const char* kMemory = "memory";
inline constexpr const char* kPods = "pods";

// std::less<>: look-ups by const char* or string_view build no std::string (the host API
// reads labels and annotations by C string on hot paths).
using StringMap = std::map<std::string, std::string, std::less<>>;

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string key;
  std::string op = "Equal";  // Equal | Exists
  std::string value;
  std::string effect;  // empty: tolerates every effect
};

// One NUMA node of a node: what the kubelet's topology manager can hand out from it.
struct NumaNode {
  double cpu = 0;     // millicores
  double memory = 0;  // bytes
};

struct NodeSpec {
  std::string name;
  ResourceList allocatable;  // without "pods": that is max_pods
  int32_t max_pods = 110;    // the kubelet's default when the input gives none
  StringMap labels;
  StringMap annotations;
  std::vector<NumaNode> numa;             // empty: no NUMA layout declared
  std::string topology_policy = "none";  // none | best-effort | restricted | single-numa-node
  std::vector<Taint> taints;
  bool unschedulable = false;
  bool ready = true;
  std::shared_ptr<const NodeImages> images;  // NodeStatus.images; null: none listed
  SourceRef src;
};

enum class PodPhase { Pending, Running, Succeeded, Failed };
const char* to_string(PodPhase p);

// What every session reads of a pod besides its fields, worked out once when the record is
// stored (Cache::upsert_pod, Cache::make_pod_record) rather than in every session: with
// 100,000 running pods a session's snapshot must not spend a microsecond on each.
// Backends leave it alone; the cache fills it from the other fields.
struct PodDigest {
  bool ready = false;
  std::string key;        // "namespace/name"
  std::string job_key;    // "namespace/podgroup"; empty for a pod without a PodGroup
  std::string role;       // Volcano's task spec: volcano.sh/task-spec, annotation then label
  bool preemptable = true;  // volcano.sh/preemptable, annotation then label; absent: true
  int64_t name_index = -1;   // the number after the last '-' of the name, -1 if none
};

struct PodSpec {
  std::string ns = "default";
  std::string name;
  std::string podgroup;  // PodGroup name in the same namespace; empty: a job of its own
  ResourceList requests;       // sum of containers (what the pod needs while running)
  ResourceList init_requests;  // max(requests, largest init container); empty = requests
  PodPhase phase = PodPhase::Pending;
  std::string node;       // set: running there (Running) or bound there (Pending)
  bool releasing = false; // being deleted / evicted (Volcano's Releasing)
  std::optional<int32_t> priority;  // explicit spec.priority
  std::string priority_class;
  StringMap labels;
  StringMap annotations;
  StringMap node_selector;
  std::vector<Toleration> tolerations;
  bool preempt_never = false;  // preemptionPolicy: Never
  // status.nominatedNodeName: the node a preemption or reclaim made room on for this pod
  // in an earlier session (Volcano writes it for a task left Pipelined where victims were
  // evicted); empty when none. Only ever replaced by another node, never cleared, as
  // Volcano's taskUnschedulable does.
  std::string nominated_node;
  double created = 0;          // seconds on the scenario / simulated clock
  // When the pod was scheduled (its PodScheduled condition turned true), on the same clock;
  // absent for a pod without that condition (not scheduled yet, or a file that does not say).
  std::optional<double> scheduled_at;
  // False for a pod another scheduler placed (Kubernetes backend): it only counts towards
  // its node's used resources and belongs to no job (Volcano's cache adds such pods to
  // their node and to no job).
  bool schedulable = true;
  // Affinity, topology spread, host ports, images (host/model/pod_constraints.hpp); null
  // for a pod that carries none.
  std::shared_ptr<const PodConstraints> constraints;
  SourceRef src;
  PodDigest digest;

  std::string key() const { return ns + "/" + name; }
};

// Fills p.digest from p's other fields.
void digest_pod(PodSpec& p);

enum class JobPhase { Pending, Inqueue, Running, Unknown, Completed };
const char* to_string(JobPhase p);
std::optional<JobPhase> job_phase_from_string(const std::string& s);

// A PodGroup's network topology constraint (Volcano's spec.networkTopology, scheduling
// v1beta1 NetworkTopologySpec): a hard job is placed entirely inside one HyperNode of at most
// `highest_tier_allowed`, or not at all; a soft job prefers the lowest tier that holds it.
enum class TopologyMode { Hard, Soft };
struct NetworkTopology {
  TopologyMode mode = TopologyMode::Hard;  // Volcano's default
  int32_t highest_tier_allowed = 0;        // hard only (a hard mode without one is dropped)
};

// A requirement of a label selector (metav1.LabelSelectorRequirement).
struct LabelRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist
  std::vector<std::string> values;
};
// Whether labels satisfy every requirement (Kubernetes' labels.Selector.Matches; a missing
// label satisfies NotIn).
bool requirements_match(const std::vector<LabelRequirement>& reqs, const StringMap& labels);
// A metav1.LabelSelector read by the API reader, in this form.
std::vector<LabelRequirement> label_requirements(const api::Selector& s);

// One entry of a PodGroup's spec.subGroupPolicy (Volcano's scheduling v1beta1
// SubGroupPolicySpec): the job's pods that match `label_selector` are split into sub-groups
// by the values of their `match_label_keys` labels; each sub-group is a gang of
// `sub_group_size` pods, may have its own network topology, and at least `min_sub_groups` of
// the policy's sub-groups must be placed for the job to be ready. The session's view:
// host/session/sub_jobs.hpp.
struct SubGroupPolicy {
  std::string name;
  std::optional<int32_t> sub_group_size;  // absent: 1
  std::optional<int32_t> min_sub_groups;  // absent: 0 (no minimum)
  std::vector<std::string> match_label_keys;
  // labelSelector: absent selects every pod; matchLabels as In requirements, then
  // matchExpressions (op: In, NotIn, Exists, DoesNotExist).
  bool has_label_selector = false;
  std::vector<LabelRequirement> label_selector;
  std::optional<NetworkTopology> network_topology;
};

struct PodGroupSpec {
  std::string ns = "default";
  std::string name;
  std::string queue = "default";
  int32_t min_member = 1;
  std::map<std::string, int32_t> min_task_member;  // role -> min
  std::optional<ResourceList> min_resources;
  // minResources as written, every name (count/pods, requests.cpu too), each amount in the
  // units of quota_unit (host/model/policy_objects.hpp): what a ResourceQuota's names are
  // checked against (Volcano's resourcequota masks the raw list, not NewResource's).
  std::map<std::string, double> min_resources_written;
  JobPhase phase = JobPhase::Pending;
  std::string priority_class;
  double created = 0;
  double phase_since = 0;  // when phase last changed, for waiting-time policies
  StringMap annotations;
  std::optional<NetworkTopology> network_topology;
  std::vector<SubGroupPolicy> sub_group_policy;  // spec.subGroupPolicy, in order
  SourceRef src;

  std::string key() const { return ns + "/" + name; }
};

// A queue's spec.affinity (Volcano's scheduling v1beta1 Affinity): node groups, by the value
// of a node's volcano.sh/nodegroup-name label, each list in the order the queue writes it.
struct QueueAffinity {
  std::vector<std::string> required;        // nodeGroupAffinity.requiredDuring...
  std::vector<std::string> preferred;       // nodeGroupAffinity.preferredDuring...
  std::vector<std::string> anti_required;   // nodeGroupAntiAffinity.requiredDuring...
  std::vector<std::string> anti_preferred;  // nodeGroupAntiAffinity.preferredDuring...
};

enum class QueueState { Open, Closed, Closing };
const char* to_string(QueueState s);

struct QueueSpec {
  std::string name;
  double weight = 1;
  std::optional<ResourceList> capability;
  std::optional<ResourceList> deserved;
  std::optional<ResourceList> guarantee;
  bool reclaimable = true;
  int32_t priority = 0;
  QueueState state = QueueState::Open;
  std::string parent;  // empty: a top-level queue
  double created = 0;
  StringMap annotations;
  std::optional<QueueAffinity> affinity;  // spec.affinity; absent: none set
  SourceRef src;
};

// One member of a HyperNode (Volcano's topology.volcano.sh/v1alpha1 MemberSpec): a node or a
// lower HyperNode, chosen by exactly one selector. HyperNode members take exact names only,
// as in Volcano (pkg/scheduler/api/hyper_node_info.go).
enum class MemberType { Node, HyperNode };
struct HyperNodeMember {
  MemberType type = MemberType::Node;
  std::string exact;                          // exactMatch.name
  std::string regex;                          // regexMatch.pattern (over node names)
  bool has_labels = false;                    // labelMatch given
  StringMap match_labels;                     // labelMatch.matchLabels
  std::vector<LabelRequirement> match_expressions;  // labelMatch.matchExpressions
  SourceRef src;
};

// A HyperNode: a network performance domain (a switch) holding nodes or lower HyperNodes.
// The lower the tier, the closer its nodes are to each other.
struct HyperNodeSpec {
  std::string name;
  int32_t tier = 0;
  std::vector<HyperNodeMember> members;
  SourceRef src;
};

struct PriorityClassSpec {
  std::string name;
  int32_t value = 0;
  bool global_default = false;
  SourceRef src;
};

}  // namespace caldera
