#include "host/model/policy_objects.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "host/model/quantity.hpp"

namespace caldera {

using json = nlohmann::json;
using namespace api;  // NOLINT: the readers are written in its terms

int32_t IntOrPercent::scaled(int32_t total) const {
  if (!percent) return value;
  return static_cast<int32_t>(std::ceil(static_cast<double>(value) * total / 100.0));
}

double quota_unit(const std::string& name) {
  if (name == "pods" || name.rfind("count/", 0) == 0) return 1;
  std::string base = name;
  for (const char* prefix : {"requests.", "limits."})
    if (base.rfind(prefix, 0) == 0) base = base.substr(std::string(prefix).size());
  return *resource_amount(base, "1");
}

std::optional<double> quota_amount(const std::string& name, const std::string& text) {
  const std::optional<double> plain = parse_quantity(text);
  if (!plain) return std::nullopt;
  return *plain * quota_unit(name);
}

namespace {

// intstr.IntOrString as the PDB validation accepts it: a non-negative integer, or "N%" with
// 0 <= N <= 100.
IntOrPercent int_or_percent(const json& v, const std::string& path) {
  constexpr const char* kExpected = "a non-negative integer or a percentage (\"50%\")";
  IntOrPercent out;
  if (v.is_number_integer()) {
    out.value = static_cast<int32_t>(integer(v, path, 0, INT32_MAX));
    return out;
  }
  if (!v.is_string()) bad(path, fmt::format("got {}", kind_of(v)), kExpected);
  const std::string s = v.get<std::string>();
  const bool digits = s.size() >= 2 && s.back() == '%' &&
                      std::all_of(s.begin(), s.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || s.size() > 5) bad(path, fmt::format("'{}' is not a percentage", s), kExpected);
  out.value = std::stoi(s.substr(0, s.size() - 1));
  out.percent = true;
  if (out.value > 100) bad(path, fmt::format("'{}' is over 100%", s), "a percentage up to 100%");
  return out;
}

// A quota's resource list ({ "requests.cpu" = "4", pods = 10 }) in the units of each name.
std::vector<QuotaResource> quota_list(const json& v, const std::string& path) {
  if (!v.is_object()) bad(path, fmt::format("got {}", kind_of(v)), "a table of resource amounts");
  std::vector<QuotaResource> out;
  for (const auto& [name, amount] : v.items()) {
    const std::string p = field(path, name);
    if (name.empty()) bad(path, "an empty resource name", "resource names");
    const double plain = quantity(amount, p);
    if (plain < 0) bad(p, "a negative amount", "an amount >= 0");
    QuotaResource r;
    r.name = name;
    r.hard = plain * quota_unit(name);
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

// The pod resource a quota name counts (its requests), or nullopt when the name is counted
// from something else ("" for the pod count).
std::optional<std::string> counted_request(const std::string& name) {
  if (name == "pods" || name == "count/pods") return std::string();
  if (name.rfind("limits.", 0) == 0 || name.rfind("count/", 0) == 0 ||
      name == "requests.storage" || name == "persistentvolumeclaims" ||
      name.find("storageclass.storage.k8s.io/") != std::string::npos ||
      name == "services" || name == "secrets" || name == "configmaps" ||
      name == "replicationcontrollers" || name == "resourcequotas" ||
      name == "services.loadbalancers" || name == "services.nodeports" ||
      name == "ephemeral-storage" || name == "requests.ephemeral-storage")
    return std::nullopt;
  if (name.rfind("requests.", 0) == 0) return name.substr(std::string("requests.").size());
  return name;
}

bool terminal(const PodSpec& p) {
  return p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed;
}

}  // namespace

QueueAffinity read_queue_affinity(const json& v, const std::string& prefix) {
  object(v, prefix, {"nodeGroupAffinity", "nodeGroupAntiAffinity"});
  QueueAffinity a;
  auto groups = [&](const char* key, std::vector<std::string>& required,
                    std::vector<std::string>& preferred) {
    const json* g = member(v, key);
    if (g == nullptr) return;
    const std::string gp = field(prefix, key);
    object(*g, gp, {"requiredDuringSchedulingIgnoredDuringExecution",
                    "preferredDuringSchedulingIgnoredDuringExecution"});
    if (const json* r = member(*g, "requiredDuringSchedulingIgnoredDuringExecution"))
      required = strings(*r, field(gp, "requiredDuringSchedulingIgnoredDuringExecution"));
    if (const json* p = member(*g, "preferredDuringSchedulingIgnoredDuringExecution"))
      preferred = strings(*p, field(gp, "preferredDuringSchedulingIgnoredDuringExecution"));
  };
  groups("nodeGroupAffinity", a.required, a.preferred);
  groups("nodeGroupAntiAffinity", a.anti_required, a.anti_preferred);
  return a;
}

DisruptionBudgetSpec read_disruption_budget(const json& v, const std::string& prefix,
                                            bool status_as_read) {
  object(v, prefix, {"apiVersion", "kind", "metadata", "spec", "status"});
  DisruptionBudgetSpec b;
  b.meta = read_api_meta(v, prefix, true);
  if (const json* spec = member(v, "spec")) {
    const std::string sp = field(prefix, "spec");
    object(*spec, sp, {"selector", "minAvailable", "maxUnavailable", "unhealthyPodEvictionPolicy"});
    if (const json* s = member(*spec, "selector")) b.selector = label_selector(s, field(sp, "selector"));
    if (const json* m = member(*spec, "minAvailable"))
      b.min_available = int_or_percent(*m, field(sp, "minAvailable"));
    if (const json* m = member(*spec, "maxUnavailable")) {
      if (b.min_available)
        bad(field(sp, "maxUnavailable"), "both minAvailable and maxUnavailable",
            "one of them (the API server refuses both)");
      b.max_unavailable = int_or_percent(*m, field(sp, "maxUnavailable"));
    }
    if (const json* u = member(*spec, "unhealthyPodEvictionPolicy"))
      choice(*u, field(sp, "unhealthyPodEvictionPolicy"), {"IfHealthyBudget", "AlwaysAllow"});
  }
  const json* status = member(v, "status");
  b.has_status = status_as_read || status != nullptr;
  if (status != nullptr) {
    const std::string st = field(prefix, "status");
    object(*status, st, {"disruptionsAllowed", "currentHealthy", "desiredHealthy",
                         "expectedPods", "observedGeneration", "disruptedPods", "conditions"});
    const json* allowed = member(*status, "disruptionsAllowed");
    if (allowed == nullptr && !status_as_read)
      bad(st, "missing field 'disruptionsAllowed'",
          "status.disruptionsAllowed, or no status (worked out from the pods)");
    if (allowed != nullptr)
      b.disruptions_allowed =
          static_cast<int32_t>(integer(*allowed, field(st, "disruptionsAllowed"), 0, INT32_MAX));
    for (const char* k : {"currentHealthy", "desiredHealthy", "expectedPods"})
      if (const json* n = member(*status, k)) integer(*n, field(st, k), 0, INT32_MAX);
    if (const json* d = member(*status, "disruptedPods")) {
      const std::string dp = field(st, "disruptedPods");
      for (auto& [pod, when] : string_map(*d, dp)) b.disrupted_pods.push_back(pod);
    }
  }
  return b;
}

ResourceQuotaSpec read_resource_quota(const json& v, const std::string& prefix,
                                      bool status_as_read) {
  object(v, prefix, {"apiVersion", "kind", "metadata", "spec", "status"});
  ResourceQuotaSpec q;
  q.meta = read_api_meta(v, prefix, true);
  std::vector<QuotaResource> spec_hard, status_hard, used;
  if (const json* spec = member(v, "spec")) {
    const std::string sp = field(prefix, "spec");
    object(*spec, sp, {"hard", "scopes", "scopeSelector"});
    if (member(*spec, "scopes") || member(*spec, "scopeSelector"))
      bad(sp, "quota scopes", "a quota without scopes (Volcano's resourcequota plugin ignores "
                              "them, and so would every decision taken from it)");
    if (const json* h = member(*spec, "hard")) spec_hard = quota_list(*h, field(sp, "hard"));
  }
  if (const json* status = member(v, "status")) {
    const std::string st = field(prefix, "status");
    object(*status, st, {"hard", "used"});
    if (const json* h = member(*status, "hard")) status_hard = quota_list(*h, field(st, "hard"));
    if (const json* u = member(*status, "used")) {
      used = quota_list(*u, field(st, "used"));
      q.has_used = true;
    }
  }
  // Volcano reads status.hard (the quota controller copies spec.hard there); a file, or an
  // object the controller has not seen yet, has spec.hard only.
  q.resources = status_hard.empty() ? spec_hard : status_hard;
  for (QuotaResource& r : q.resources)
    for (const QuotaResource& u : used)
      if (u.name == r.name) r.used = u.hard;
  if (status_as_read) q.has_used = true;
  return q;
}

DisruptionBudgetSpec derive_status(DisruptionBudgetSpec b, const std::vector<const PodSpec*>& pods) {
  if (b.has_status) return b;
  int32_t expected = 0, healthy = 0;
  for (const PodSpec* p : pods) {
    if (p->ns != b.meta.ns || terminal(*p) || !selector_matches(b.selector, p->labels)) continue;
    ++expected;
    if (p->phase == PodPhase::Running && !p->releasing) ++healthy;
  }
  int32_t desired = expected;
  if (b.min_available) desired = b.min_available->scaled(expected);
  else if (b.max_unavailable) desired = std::max(0, expected - b.max_unavailable->scaled(expected));
  b.disruptions_allowed = std::max(0, healthy - desired);
  b.has_status = true;
  return b;
}

std::string quota_status_needed(const ResourceQuotaSpec& q) {
  if (q.has_used) return {};
  for (const QuotaResource& r : q.resources)
    if (!counted_request(r.name)) return r.name;
  return {};
}

ResourceQuotaSpec derive_status(ResourceQuotaSpec q, const std::vector<const PodSpec*>& pods) {
  if (q.has_used) return q;
  for (QuotaResource& r : q.resources) {
    const std::optional<std::string> what = counted_request(r.name);
    r.used = 0;
    if (!what) continue;  // refused where the quota was read (quota_status_needed)
    for (const PodSpec* p : pods) {
      if (p->ns != q.meta.ns || terminal(*p)) continue;
      if (what->empty()) {
        r.used += 1;
        continue;
      }
      // The quota controller counts max(requests, init requests), as the pod's effective
      // request.
      const ResourceList& req = p->init_requests.empty() ? p->requests : p->init_requests;
      if (auto it = req.find(*what); it != req.end()) r.used += it->second;
    }
  }
  q.has_used = true;
  return q;
}

void make_view(const DisruptionBudgetSpec& s, cal_disruption_budget& v, api::ViewArena& arena,
               std::vector<std::string>&) {
  v.struct_size = sizeof(cal_disruption_budget);
  v.namespace_name = s.meta.ns.c_str();
  v.name = s.meta.name.c_str();
  v.selector = arena.selector(s.selector);
  v.disruptions_allowed = s.disruptions_allowed;
  v.disrupted_pods = arena.list(s.disrupted_pods);
}

void make_view(const ResourceQuotaSpec& s, cal_resource_quota& v, api::ViewArena& arena,
               std::vector<std::string>&) {
  v.struct_size = sizeof(cal_resource_quota);
  v.namespace_name = s.meta.ns.c_str();
  v.name = s.meta.name.c_str();
  std::vector<const char*>& names = arena.strings.emplace_back();
  for (const QuotaResource& r : s.resources) names.push_back(r.name.c_str());
  v.resources = names.data();
  std::vector<double>& hard = arena.numbers.emplace_back();
  for (const QuotaResource& r : s.resources) hard.push_back(r.hard);
  v.hard = hard.data();
  std::vector<double>& used = arena.numbers.emplace_back();
  for (const QuotaResource& r : s.resources) used.push_back(r.used);
  v.used = used.data();
  v.resource_count = s.resources.size();
}

}  // namespace caldera
