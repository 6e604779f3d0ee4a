// The policy objects the scheduler reads besides pods and nodes: PodDisruptionBudgets
// (policy/v1, for the pdb plugin's victim filter), ResourceQuotas (core/v1, for the
// resourcequota plugin's enqueue check) and a Queue's node-group affinity (for nodegroup). Read from the API objects as Kubernetes writes them (camelCase JSON; a
// scenario file's TOML is turned into the same JSON) and held with the C view plugins read
// (caldera/plugin.h, ABI 1.5), as host/model/storage.hpp holds the storage objects.
//
// Their status is written by controllers the scheduler does not run (the disruption
// controller, the quota controller). On Kubernetes it is read as the API server holds it.
// A file may write it (a snapshot of a live cluster) or leave it out; then each session works
// it out from the pods as those controllers would (derive_status below), so that the
// embedded cluster's budgets and quotas follow its pods.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "caldera/plugin.h"
#include "host/model/api_json.hpp"
#include "host/model/objects.hpp"
#include "host/model/storage.hpp"  // ApiMeta, ApiRecord

namespace caldera {

// An IntOrString of a budget: a count, or a percentage of the expected pods ("50%").
struct IntOrPercent {
  int32_t value = 0;
  bool percent = false;
  // The count it stands for out of `total`, rounded up as the disruption controller does
  // (intstr.GetScaledValueFromIntOrPercent with roundUp).
  int32_t scaled(int32_t total) const;
};

struct DisruptionBudgetSpec {
  ApiMeta meta;
  api::Selector selector;  // spec.selector; absent: matches nothing
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
  bool has_status = false;  // status written (the API object's, or the file's)
  int32_t disruptions_allowed = 0;
  std::vector<std::string> disrupted_pods;  // status.disruptedPods' names, sorted
  SourceRef src;
  std::string key() const { return meta.ns + "/" + meta.name; }
};

// One resource of a quota: its name as the quota writes it and the amounts in the units of
// the resource of that name (caldera/plugin.h convention (1)).
struct QuotaResource {
  std::string name;
  double hard = 0;
  double used = 0;
};

// The unit a quota resource is counted in (Caldera units per quota unit): that of the pod
// resource it limits ("cpu", "requests.cpu", "limits.cpu": 1000, millicores; memory and its
// forms: 1, bytes), 1 for object counts ("pods", "count/...").
double quota_unit(const std::string& name);
// A quantity's text as an amount of that quota name (quota_unit); nullopt when not a quantity.
std::optional<double> quota_amount(const std::string& name, const std::string& text);

struct ResourceQuotaSpec {
  ApiMeta meta;
  std::vector<QuotaResource> resources;  // by name
  bool has_used = false;  // status.used written
  SourceRef src;
  std::string key() const { return meta.ns + "/" + meta.name; }
};

// The API objects from JSON. `status_as_read`: the object comes from the API server, whose
// status is what the controllers wrote (absent fields are zero, as Volcano reads them);
// otherwise (a file) a missing status is left for derive_status. Errors (ApiFieldError) name
// fields from `prefix`.
DisruptionBudgetSpec read_disruption_budget(const nlohmann::json& v, const std::string& prefix,
                                            bool status_as_read);
ResourceQuotaSpec read_resource_quota(const nlohmann::json& v, const std::string& prefix,
                                      bool status_as_read);

// A Queue's spec.affinity (Volcano's scheduling v1beta1 Affinity), from JSON.
QueueAffinity read_queue_affinity(const nlohmann::json& v, const std::string& prefix);

// The status the controllers would write, worked out from the pods (any order) for a spec
// without one; a spec with one is returned as it is.
//  - budget: expected = the pods the selector matches in its namespace that are not
//    Succeeded or Failed, healthy = those Running and not being deleted; desired healthy =
//    minAvailable (a percentage of expected, rounded up), or expected - maxUnavailable, or
//    expected when neither is set (minAvailable 100%); disruptionsAllowed = max(0, healthy -
//    desired). (The disruption controller takes `expected` from the pods' controllers' scale
//    for percentages and maxUnavailable; files have no controllers, so the matching pods are
//    the expected ones.)
//  - quota: for each hard resource, the sum over the namespace's pods that are not Succeeded
//    or Failed: "cpu" / "requests.cpu", "memory" / "requests.memory", "pods" / "count/pods"
//    (a count), "requests.<name>" and "<name>" for any other resource (its requests). Names
//    the quota controller counts from objects the scheduler does not hold (limits.*,
//    count/<other>, storage) make the quota an error where it is read (status_needed).
DisruptionBudgetSpec derive_status(DisruptionBudgetSpec b, const std::vector<const PodSpec*>& pods);
ResourceQuotaSpec derive_status(ResourceQuotaSpec q, const std::vector<const PodSpec*>& pods);

// A quota resource whose use cannot be worked out from pods (see derive_status); empty when
// every one can.
std::string quota_status_needed(const ResourceQuotaSpec& q);

// Fills a record's C view from its spec (see ApiRecord).
void make_view(const DisruptionBudgetSpec& s, cal_disruption_budget& v, api::ViewArena& arena,
               std::vector<std::string>& kept);
void make_view(const ResourceQuotaSpec& s, cal_resource_quota& v, api::ViewArena& arena,
               std::vector<std::string>& kept);

using DisruptionBudget = ApiRecord<DisruptionBudgetSpec, cal_disruption_budget>;
using ResourceQuota = ApiRecord<ResourceQuotaSpec, cal_resource_quota>;

}  // namespace caldera
