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
// Quota scopes are not supported (Volcano ignores them; files refuse them). A resource
// counts as requested when minResources asks for more than zero of it (Caldera's resource
// vectors cannot tell "cpu: 0" from no cpu). No arguments.
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

  ResourceQuota(sdk::Session s, const sdk::Args&) : ssn_(s), n_(s.resource_count()) {
    for (size_t i = 0; i < s.resource_quota_count(); ++i) {
      const cal_resource_quota* q = s.resource_quota_at(i);
      quotas_[q->namespace_name].push_back(q);
    }
  }

  cal_vote job_enqueueable(sdk::Job j) {
    const sdk::Res min = j.min_resources();
    if (!min) return CAL_PERMIT;
    auto ns = quotas_.find(std::string(j.ns()));
    if (ns == quotas_.end()) return CAL_PERMIT;
    const std::vector<double>* pending = pending_of(ns->first);
    for (const cal_resource_quota* q : ns->second) {
      std::string requested, used, limited;
      for (size_t r = 0; r < q->resource_count; ++r) {
        const int32_t id = ssn_.resource_id(q->resources[r]);
        if (id < 0 || min[static_cast<size_t>(id)] <= 0) continue;  // not requested
        const double want = min[static_cast<size_t>(id)];
        const double before = q->used[r] + (pending ? (*pending)[static_cast<size_t>(id)] : 0);
        if (before + want <= q->hard[r]) continue;
        const std::string_view name = q->resources[r];
        const char* sep = requested.empty() ? "" : ", ";
        requested += sep + std::string(name) + ": " + amount(name, want);
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

  void job_enqueued(sdk::Job j) {
    const sdk::Res min = j.min_resources();
    const std::string ns(j.ns());
    if (!min || !quotas_.count(ns)) return;
    std::vector<double>& p = pending_[ns];
    if (p.empty()) p.assign(n_, 0);
    for (size_t i = 0; i < n_; ++i) p[i] += min[i];
  }

 private:
  const std::vector<double>* pending_of(const std::string& ns) const {
    auto it = pending_.find(ns);
    return it == pending_.end() ? nullptr : &it->second;
  }

  sdk::Session ssn_;
  size_t n_;
  std::map<std::string, std::vector<const cal_resource_quota*>> quotas_;
  std::map<std::string, std::vector<double>> pending_;
};

}  // namespace

CALDERA_PLUGIN(ResourceQuota)
