// resourcequota: enqueue admits a job only while its PodGroup's minResources fit the
// ResourceQuotas of its namespace, so that a job whose pods the API server would refuse is
// not made Inqueue.
//
// Follows Volcano's pkg/scheduler/plugins/resourcequota/resourcequota.go (ed72c7c):
//   job_enqueueable  a job without minResources, or in a namespace without quotas: permit.
//                    Otherwise, for each quota of the namespace, the minResources of the
//                    resources the quota limits, plus the quota's status.used, plus what
//                    jobs of the namespace enqueued earlier in this session asked for, must
//                    stay within the quota's hard limits; else reject, with "resource quota
//                    insufficient, requested: ..., used: ..., limited: ..." (Volcano posts it
//                    as a PodGroup event; here it is also the job's pending reason).
//   job_enqueued     the job's minResources join its namespace's pending use.
// A quota's resource counts as requested when the PodGroup's minResources names it, as
// written (quota names such as requests.cpu too; job_min_resource), as Volcano masks the raw
// list. Quota scopes are not supported (Volcano ignores them; files refuse them). No
// arguments.
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/sdk.hpp"

namespace {

namespace sdk = caldera::sdk;

// An amount for messages, in the quota's own terms: cores, bytes, counts.
std::string amount(std::string_view resource, double v) {
  const bool plain = resource == "memory" || resource == "pods" ||
                     resource.find("memory") != std::string_view::npos ||
                     resource.rfind("count/", 0) == 0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.15g", plain ? v : v / 1000);
  return buf;
}

class ResourceQuota {
 public:
  static constexpr const char* kName = "resourcequota";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "enqueues a job only while its minResources fit its namespace's ResourceQuotas "
      "(Volcano's resourcequota)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::job_enqueueable,
      sdk::Hook::job_enqueued);

  ResourceQuota(sdk::Session s, const sdk::Args&) {
    for (size_t i = 0; i < s.resource_quota_count(); ++i) {
      const cal_resource_quota* q = s.resource_quota_at(i);
      quotas_[q->namespace_name].push_back(q);
    }
  }

  cal_vote job_enqueueable(sdk::Job j) {
    if (!j.min_resources()) return CAL_PERMIT;  // no minResources at all
    auto ns = quotas_.find(std::string(j.ns()));
    if (ns == quotas_.end()) return CAL_PERMIT;
    const auto pending = pending_.find(ns->first);
    for (const cal_resource_quota* q : ns->second) {
      std::string requested, used, limited;
      for (size_t r = 0; r < q->resource_count; ++r) {
        // quotav1.Mask: only the names the PodGroup's minResources writes, zeros included.
        const std::optional<double> want = j.min_resource(q->resources[r]);
        if (!want) continue;
        double before = q->used[r];
        if (pending != pending_.end())
          if (auto p = pending->second.find(q->resources[r]); p != pending->second.end())
            before += p->second;
        if (before + *want <= q->hard[r]) continue;
        const std::string_view name = q->resources[r];
        const char* sep = requested.empty() ? "" : ", ";
        requested += sep + std::string(name) + ": " + amount(name, *want);
        used += sep + std::string(name) + ": " + amount(name, q->used[r]);
        limited += sep + std::string(name) + ": " + amount(name, q->hard[r]);
      }
      if (requested.empty()) continue;
      j.set_pending_reason(kName, "resource quota insufficient, requested: [" + requested +
                                      "], used: [" + used + "], limited: [" + limited + "]");
      return CAL_REJECT;
    }
    return CAL_PERMIT;
  }

  // The job's minResources join its namespace's pending use, by the names its quotas limit.
  void job_enqueued(sdk::Job j) {
    if (!j.min_resources()) return;
    auto ns = quotas_.find(std::string(j.ns()));
    if (ns == quotas_.end()) return;
    auto& pending = pending_[ns->first];
    for (const cal_resource_quota* q : ns->second)
      for (size_t r = 0; r < q->resource_count; ++r)
        if (const std::optional<double> a = j.min_resource(q->resources[r]))
          pending[q->resources[r]] += *a;
  }

 private:
  std::map<std::string, std::vector<const cal_resource_quota*>> quotas_;
  // Namespace -> quota resource name -> what jobs enqueued in this session asked for.
  std::map<std::string, std::map<std::string, double>> pending_;
};

}  // namespace

CALDERA_PLUGIN(ResourceQuota)
