// Victim bundles (see the header). Volcano: pkg/scheduler/actions/utils/bundle.go, util.go.
#include "actions/gang_bundles.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

namespace caldera::gang {

namespace {

// Volcano's scoreAgainstNeed: over the resources the need names (Resource.ResourceNames:
// an amount of at least minResource), what `amounts` holds of each as a fraction of the
// need, capped at the need when `cap_at_need`.
double score_against_need(const ResVec& amounts, const ResVec& need, bool cap_at_need) {
  double score = 0;
  for (size_t i = 0; i < need.size() && i < amounts.size(); ++i) {
    const double n = need[i];
    if (!(n >= kMinResource)) continue;
    double v = amounts[i];
    if (cap_at_need && v > n) v = n;
    score += v / n;
  }
  return score;
}

// Volcano's stableBundleLess: the last resort of both sorts.
bool stable_bundle_less(const Bundle& l, const Bundle& r) {
  const std::string_view lj = l.job ? std::string_view(l.job->uid) : std::string_view();
  const std::string_view rj = r.job ? std::string_view(r.job->uid) : std::string_view();
  if (lj != rj) return lj < rj;
  const std::string_view lt = l.tasks.empty() ? std::string_view() : l.tasks.front()->uid;
  const std::string_view rt = r.tasks.empty() ? std::string_view() : r.tasks.front()->uid;
  if (lt != rt) return lt < rt;
  return l.tasks.size() < r.tasks.size();
}

// What both sorts share after their own victim order: the higher ROI, then the stable
// tie-break. Returns -1 (l first), 1 (r first) or 0.
int roi_then_stable(const Bundle& l, const Bundle& r, const ResVec& need) {
  const double lroi = bundle_roi(l, need);
  const double rroi = bundle_roi(r, need);
  if (lroi != rroi) return lroi > rroi ? -1 : 1;
  if (stable_bundle_less(l, r)) return -1;
  if (stable_bundle_less(r, l)) return 1;
  return 0;
}

}  // namespace

ResVec sum_init_resreq(const std::vector<TaskInfo*>& tasks, size_t resources) {
  ResVec sum(resources);
  for (const TaskInfo* t : tasks) sum.add(t->init_resreq.data());
  return sum;
}

ResVec sum_resreq(const std::vector<TaskInfo*>& tasks, size_t resources) {
  ResVec sum(resources);
  for (const TaskInfo* t : tasks) sum.add(t->resreq.data());
  return sum;
}

ResVec sum_idle_and_releasing(const std::vector<NodeInfo*>& nodes, size_t resources) {
  ResVec sum(resources);
  for (const NodeInfo* n : nodes) {
    sum.add(n->idle.data());
    sum.add(n->releasing.data());
  }
  return sum;
}

std::vector<Bundle> create_job_bundles(JobInfo* job, std::vector<TaskInfo*> local_tasks,
                                       size_t resources) {
  if (job == nullptr || local_tasks.empty()) return {};
  std::sort(local_tasks.begin(), local_tasks.end(), [](const TaskInfo* l, const TaskInfo* r) {
    if (l->priority != r->priority) return l->priority < r->priority;
    return l->uid < r->uid;
  });

  int32_t job_surplus = job->ready_num() - job->min_available;
  // Already not gang-ready: evicting more cannot break it further.
  if (job_surplus < 0) {
    Bundle b;
    b.type = BundleType::Safe;
    b.job = job;
    b.local = sum_resreq(local_tasks, resources);
    b.global = ResVec(resources);
    b.tasks = std::move(local_tasks);
    return {std::move(b)};
  }

  // Volcano's TaskMinAvailable is the PodGroup's minTaskMember as written; a role it does
  // not name has no minimum. The roles are checked only when minMember covers their sum,
  // as the gang plugin's CheckTaskReady skips them otherwise.
  std::map<std::string, int32_t, std::less<>> role_min;
  int32_t role_min_total = 0;
  if (job->podgroup) {
    for (const auto& [role, min] : job->podgroup->min_task_member) {
      role_min.emplace(role, min);
      role_min_total += min;
    }
  }
  const bool enforce_roles = job->min_available >= role_min_total;
  std::map<std::string, int32_t, std::less<>> role_surplus;
  if (enforce_roles) {
    std::map<std::string, int32_t, std::less<>> role_ready;
    for (const TaskInfo* t : job->tasks) {
      const bool ready = allocated_status(t->status) || t->status == CAL_TASK_SUCCEEDED ||
                         (t->status == CAL_TASK_PENDING && t->init_resreq.is_empty());
      if (ready) ++role_ready[std::string(t->role)];
    }
    for (const auto& [role, min] : role_min) {
      auto it = role_ready.find(role);
      role_surplus[role] = (it == role_ready.end() ? 0 : it->second) - min;
    }
  }

  std::vector<TaskInfo*> safe, whole;
  for (TaskInfo* t : local_tasks) {
    bool role_safe = true;
    bool has_role_min = false;
    auto rs = role_surplus.end();
    if (enforce_roles && role_min.count(t->role) != 0) {
      has_role_min = true;
      rs = role_surplus.find(t->role);
      role_safe = rs->second > 0;
    }
    if (job_surplus > 0 && role_safe) {
      safe.push_back(t);
      --job_surplus;
      if (has_role_min) --rs->second;
    } else {
      whole.push_back(t);
    }
  }

  std::vector<Bundle> out;
  if (!safe.empty()) {
    Bundle b;
    b.type = BundleType::Safe;
    b.job = job;
    b.local = sum_resreq(safe, resources);
    b.global = ResVec(resources);
    b.tasks = std::move(safe);
    out.push_back(std::move(b));
  }
  if (!whole.empty()) {
    Bundle b;
    b.type = BundleType::Whole;
    b.job = job;
    b.local = sum_resreq(whole, resources);
    b.global = sum_resreq(job->tasks, resources);  // every task of the job, pending too
    b.tasks = std::move(whole);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<Bundle> victim_bundles(const std::vector<NodeInfo*>& nodes, size_t resources,
                                   const std::function<bool(const TaskInfo*)>& candidate) {
  std::vector<JobInfo*> order;
  std::map<JobInfo*, std::vector<TaskInfo*>> by_job;
  for (NodeInfo* node : nodes)
    for (TaskInfo* task : node->tasks) {
      if (task->job == nullptr || !candidate(task)) continue;
      auto [it, first] = by_job.try_emplace(task->job);
      if (first) order.push_back(task->job);
      it->second.push_back(task);
    }
  std::vector<Bundle> bundles;
  for (JobInfo* j : order)
    for (Bundle& b : create_job_bundles(j, by_job[j], resources)) bundles.push_back(std::move(b));
  return bundles;
}

std::vector<TaskInfo*> flatten_bundles(const std::vector<Bundle>& bundles) {
  std::vector<TaskInfo*> out;
  for (const Bundle& b : bundles) out.insert(out.end(), b.tasks.begin(), b.tasks.end());
  return out;
}

std::vector<Bundle> apply_allowed_tasks(const std::vector<Bundle>& bundles,
                                        const std::set<const TaskInfo*>& allowed) {
  std::vector<Bundle> valid;
  for (const Bundle& b : bundles) {
    if (b.tasks.empty()) continue;
    std::vector<TaskInfo*> approved;
    for (TaskInfo* t : b.tasks)
      if (allowed.count(t) != 0) approved.push_back(t);
    if (b.type == BundleType::Whole) {
      if (approved.size() == b.tasks.size()) valid.push_back(b);
      continue;
    }
    if (approved.empty()) continue;
    Bundle nb = b;
    nb.local = sum_resreq(approved, b.local.size());
    nb.tasks = std::move(approved);
    valid.push_back(std::move(nb));
  }
  return valid;
}

double bundle_roi(const Bundle& b, const ResVec& need) {
  const double local = score_against_need(b.local, need, true);
  const double global = score_against_need(b.global, need, false);
  if (global == 0) return std::numeric_limits<double>::infinity();
  return local / global;
}

void sort_bundles_for_preempt(
    std::vector<Bundle>& bundles, const ResVec& need,
    const std::function<bool(const JobInfo*, const JobInfo*)>& victim_job_first) {
  std::stable_sort(bundles.begin(), bundles.end(), [&](const Bundle& l, const Bundle& r) {
    if (l.type != r.type) return l.type < r.type;
    if (victim_job_first && l.job && r.job && l.job != r.job) {
      // Volcano asks both ways and uses the answer only when they differ.
      const bool lr = victim_job_first(l.job, r.job);
      const bool rl = victim_job_first(r.job, l.job);
      if (lr != rl) return lr;
    }
    return roi_then_stable(l, r, need) < 0;
  });
}

void sort_bundles_for_reclaim(
    std::vector<Bundle>& bundles, const ResVec& need,
    const std::function<bool(const QueueInfo*, const QueueInfo*)>& victim_queue_first) {
  std::stable_sort(bundles.begin(), bundles.end(), [&](const Bundle& l, const Bundle& r) {
    if (l.type != r.type) return l.type < r.type;
    if (victim_queue_first) {
      const QueueInfo* lq = l.job ? l.job->queue : nullptr;
      const QueueInfo* rq = r.job ? r.job->queue : nullptr;
      if (lq && rq && lq != rq) {
        const bool lr = victim_queue_first(lq, rq);
        const bool rl = victim_queue_first(rq, lq);
        if (lr != rl) return lr;
      }
    }
    return roi_then_stable(l, r, need) < 0;
  });
}

}  // namespace caldera::gang
