// A job's sub-jobs (see the header). Volcano: pkg/scheduler/api/sub_job_info.go,
// pkg/scheduler/api/job_info.go, pkg/scheduler/framework/session.go.
#include "host/session/sub_jobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "host/session/hypernodes.hpp"

namespace caldera {

namespace {

// k8s.io/apimachinery/pkg/util/rand.SafeEncodeString: each byte mapped to an alphanumeric
// that cannot spell a word.
std::string safe_encode(const std::string& s) {
  static constexpr std::string_view kAlphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::string out(s.size(), ' ');
  for (size_t i = 0; i < s.size(); ++i)
    out[i] = kAlphanums[static_cast<unsigned char>(s[i]) % kAlphanums.size()];
  return out;
}

// FNV-1a, 32 bits (hash/fnv New32a).
uint32_t fnv32a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

// Volcano's getSubJobID: "<job>/<policy>-<values joined by '-'>", the values hashed when
// longer than 128 characters.
std::string sub_job_id(const std::string& job, const std::string& policy,
                       const std::vector<std::string>& values) {
  std::string id;
  for (size_t i = 0; i < values.size(); ++i) id += (i ? "-" : "") + values[i];
  if (id.size() > 128) id = safe_encode(std::to_string(fnv32a(id)));
  return fmt::format("{}/{}-{}", job, policy, id);
}

// Volcano's getSubJobMatchValues: the values of the policy's match label keys on the pod;
// empty when the policy does not take it (selector not matched, a key missing or empty, or
// no keys at all).
std::vector<std::string> match_values(const SubGroupPolicy& p, const StringMap& labels) {
  if (p.has_label_selector && !requirements_match(p.label_selector, labels)) return {};
  std::vector<std::string> values;
  for (const std::string& key : p.match_label_keys) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second.empty()) return {};
    values.push_back(it->second);
  }
  return values;
}

int32_t leading_int(const std::string& s) {
  // strconv.Atoi: the whole string, an optional sign, decimal digits, within int.
  int32_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || b == e) return 0;
  return v;
}

// Volcano's ConvertToHardTopology.
void make_hard(std::optional<NetworkTopology>& t, int32_t tier) {
  if (t && t->mode == TopologyMode::Soft) {
    t->mode = TopologyMode::Hard;
    t->highest_tier_allowed = tier;
  }
}

}  // namespace

int32_t SubJobInfo::count(TaskStatus s) const {
  int32_t n = 0;
  for (const TaskInfo* t : tasks) n += t->status == s;
  return n;
}

int32_t SubJobInfo::ready_num() const {
  int32_t n = 0;
  for (const TaskInfo* t : tasks) n += allocated_status(t->status) || t->status == CAL_TASK_SUCCEEDED;
  return n;
}

int32_t SubJobInfo::pending_best_effort_num() const {
  int32_t n = 0;
  for (const TaskInfo* t : tasks) n += t->status == CAL_TASK_PENDING && t->best_effort;
  return n;
}

int32_t SubJobInfo::allocated_num() const {
  int32_t n = 0;
  for (const TaskInfo* t : tasks) n += allocated_status(t->status);
  return n;
}

ResVec SubJobInfo::pending_init_request(size_t resources) const {
  ResVec sum(resources);
  for (const TaskInfo* t : tasks)
    if (t->status == CAL_TASK_PENDING) sum.add(t->init_resreq.data());
  return sum;
}

SubJobInfo* JobSubJobs::default_sub_job() const {
  for (const auto& sj : list)
    if (sj->is_default) return sj.get();
  return nullptr;
}

bool JobSubJobs::has_topology() const {
  if (job_topology) return true;
  for (const auto& sj : list)
    if (sj->topology) return true;
  return false;
}

namespace {

// Volcano's checkSubJobCondition: per policy with a minimum, enough sub-jobs meet `cond`.
template <class Cond>
bool every_group_has(const JobSubJobs& s, Cond cond, bool skip_zero) {
  std::map<std::string_view, int32_t> n;
  for (const auto& sj : s.list)
    if (cond(*sj)) ++n[sj->gid];
  for (const auto& [gid, min] : s.min_sub_jobs) {
    if (skip_zero && min == 0) continue;
    if (n[gid] < min) return false;
  }
  return true;
}

}  // namespace

bool JobSubJobs::valid() const {
  return every_group_has(*this, [](const SubJobInfo&) { return true; }, false);
}

bool JobSubJobs::ready() const {
  return every_group_has(*this, [](const SubJobInfo& sj) { return sj.is_ready(); }, true);
}

bool JobSubJobs::pipelined() const {
  return every_group_has(*this, [](const SubJobInfo& sj) { return sj.is_pipelined(); }, true);
}

std::unique_ptr<JobSubJobs> build_sub_jobs(JobInfo* job, const HyperNodes& hns,
                                           int32_t top_tier) {
  auto out = std::make_unique<JobSubJobs>();
  const PodGroupSpec* pg = job->podgroup;
  const std::vector<SubGroupPolicy> kNone;
  const std::vector<SubGroupPolicy>& policies = pg ? pg->sub_group_policy : kNone;
  out->has_policy = !policies.empty();
  for (const SubGroupPolicy& p : policies)
    out->min_sub_jobs.emplace_back(fmt::format("{}/{}", job->uid, p.name),
                                   p.min_sub_groups.value_or(0));

  // adjustNetworkTopologySpec: the job's soft topology becomes hard with the cluster's
  // tier; a sub-job's soft one with the job's tier, else the cluster's.
  if (pg && pg->network_topology) out->job_topology = pg->network_topology;
  make_hard(out->job_topology, top_tier);
  const int32_t sub_job_tier = out->job_topology ? out->job_topology->highest_tier_allowed : top_tier;

  std::map<std::string, std::unique_ptr<SubJobInfo>> by_uid;
  auto add_task = [&](SubJobInfo& sj, TaskInfo* t) {
    sj.tasks.push_back(t);
    sj.priority = std::max(sj.priority, t->priority);
    out->of_task[t] = &sj;
  };
  for (TaskInfo* t : job->tasks) {
    const StringMap kNoLabels;
    const StringMap& labels = t->pod ? t->pod->labels : kNoLabels;
    SubJobInfo* target = nullptr;
    for (const SubGroupPolicy& p : policies) {
      std::vector<std::string> values = match_values(p, labels);
      if (values.empty()) continue;
      std::string uid = sub_job_id(job->uid, p.name, values);
      auto& slot = by_uid[uid];
      if (!slot) {
        slot = std::make_unique<SubJobInfo>();
        slot->uid = std::move(uid);
        slot->gid = fmt::format("{}/{}", job->uid, p.name);
        slot->job = job;
        slot->min_available = p.sub_group_size.value_or(1);
        slot->match_index = leading_int(values.front());
        slot->topology = p.network_topology;
        make_hard(slot->topology, sub_job_tier);
      }
      target = slot.get();
      break;
    }
    if (target == nullptr) {
      // getOrCreateDefaultSubJob: the job's size when it has no policy, else 1; the job's
      // topology.
      auto& slot = by_uid[job->uid];
      if (!slot) {
        slot = std::make_unique<SubJobInfo>();
        slot->uid = job->uid;
        slot->gid = job->uid;
        slot->job = job;
        slot->is_default = true;
        slot->min_available = out->has_policy ? 1 : job->min_available;
        slot->topology = out->job_topology;
      }
      target = slot.get();
    }
    add_task(*target, t);
  }
  for (auto& [uid, sj] : by_uid) {
    if (sj->topology && !hns.empty()) sj->allocated = hns.lowest_holding(sj->tasks);
    out->list.push_back(std::move(sj));
  }
  return out;
}

}  // namespace caldera
