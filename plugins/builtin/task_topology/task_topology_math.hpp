// The bucket logic of the task-topology plugin, free of the ABI so that unit tests can call
// it.
//
// Follows Volcano's pkg/scheduler/plugins/task-topology: topology.go (readTopologyFromPg-
// Annotations, splitAnnotations, affinityCheck, TaskOrderFn, calcBucketScore, NodeOrderFn),
// manager.go (JobManager: ApplyTaskTopology, buildTaskInfo, buildBucket, checkTaskSet-
// Affinity, taskAffinityOrder, TaskBound), bucket.go (Bucket, CalcResReq) and util.go
// (TaskOrder, the annotation keys and the weight argument).
//
// A job's PodGroup names groups of task roles (volcano.sh/task-spec) that want to share a
// node (affinity) or stay apart (anti-affinity), and optionally an order of roles. The
// job's tasks are sorted into buckets -- sets of tasks that should land on one node -- and
// each task prefers the node where its bucket already is.
//
// Determinism. Volcano walks Go maps in three places: the job's tasks when building the
// buckets, a bucket's tasks when it takes some out to fit a node, and (through sort.Sort,
// which is not stable) tasks that compare equal. Here the tasks come in the host's task
// order, ties in the bucket sort fall back to the task name, and a bucket's tasks are taken
// out in the order they joined it.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/resources.hpp"

namespace caldera::task_topology {

inline constexpr const char* kAffinityKey = "volcano.sh/task-topology-affinity";
inline constexpr const char* kAntiAffinityKey = "volcano.sh/task-topology-anti-affinity";
inline constexpr const char* kTaskOrderKey = "volcano.sh/task-topology-task-order";
inline constexpr int kOutOfBucket = -1;
inline constexpr double kMaxNodeScore = 100;

// TaskTopology.
struct Topology {
  std::vector<std::vector<std::string>> affinity;
  std::vector<std::vector<std::string>> anti_affinity;
  std::vector<std::string> task_order;
};

inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    const size_t next = s.find(sep, pos);
    out.emplace_back(s.substr(pos, next == std::string_view::npos ? std::string_view::npos
                                                                  : next - pos));
    if (next == std::string_view::npos) return out;
    pos = next + 1;
  }
}

// affinityCheck: every non-empty name must be a role of the job, at most once per group.
// (Volcano takes the job's roles from the pod names, "<job>-<role>-<index>"; Caldera takes
// them from the tasks' volcano.sh/task-spec, which those names encode.)
inline bool check_groups(const std::vector<std::vector<std::string>>& groups,
                         const std::set<std::string>& roles, std::string* why) {
  for (const auto& group : groups) {
    std::set<std::string> seen;
    for (const std::string& role : group) {
      if (role.empty()) continue;
      if (!roles.count(role)) {
        if (why) *why = "task " + role + " do not exist in job";
        return false;
      }
      if (!seen.insert(role).second) {
        if (why) *why = "task " + role + " is duplicated in job";
        return false;
      }
    }
  }
  return true;
}

// readTopologyFromPgAnnotations: nothing when none of the three annotations is present;
// groups are split on ';', names on ',' (no trimming, as in Volcano). An annotation that
// names an unknown role is an error (the job then gets no buckets).
inline std::optional<Topology> read_topology(const char* affinity, const char* anti_affinity,
                                             const char* task_order,
                                             const std::set<std::string>& roles,
                                             std::string* why, bool* present) {
  *present = affinity || anti_affinity || task_order;
  if (!*present) return std::nullopt;
  Topology t;
  auto groups = [](const char* s) {
    std::vector<std::vector<std::string>> out;
    for (const std::string& g : split(s, ';')) out.push_back(split(g, ','));
    return out;
  };
  if (affinity) {
    t.affinity = groups(affinity);
    if (!check_groups(t.affinity, roles, why)) {
      if (why) *why = std::string(kAffinityKey) + ": " + *why;
      return std::nullopt;
    }
  }
  if (anti_affinity) {
    t.anti_affinity = groups(anti_affinity);
    if (!check_groups(t.anti_affinity, roles, why)) {
      if (why) *why = std::string(kAntiAffinityKey) + ": " + *why;
      return std::nullopt;
    }
  }
  if (task_order) {
    t.task_order = split(task_order, ',');
    if (!check_groups({t.task_order}, roles, why)) {
      if (why) *why = std::string(kTaskOrderKey) + ": " + *why;
      return std::nullopt;
    }
  }
  return t;
}

// One task as the manager sees it.
struct TaskRec {
  std::string uid;   // "namespace/name"
  std::string role;  // volcano.sh/task-spec, "" if none
  std::string node;  // the node it is on, "" when not placed
  ResVec request;    // Resreq
};

// Bucket.CalcResReq's score: 1 cpu millicore, 1 MiB of memory and one milli-unit of any
// scalar count the same.
inline double request_score(const ResVec& r) {
  double s = 0;
  for (size_t i = 0; i < r.size(); ++i) s += i == 1 ? r[i] / 1024 / 1024 : r[i];
  return s;
}

struct Bucket {
  int index = 0;
  std::vector<std::string> members;   // pending tasks in the order they joined
  std::set<std::string> pending;      // Volcano's bucket.tasks (pending members)
  std::map<std::string, int> task_name_set;  // role -> tasks of the bucket
  double req_score = 0;
  ResVec request;
  int bound_task = 0;
  std::map<std::string, int> node;  // node -> bound tasks of the bucket
};

// The topology types and their priorities (affinityPriority): larger is higher.
enum class TopologyType { SelfAntiAffinity = 4, InterAffinity = 3, SelfAffinity = 2,
                          InterAntiAffinity = 1 };

// JobManager.
class JobManager {
 public:
  explicit JobManager(size_t nres) : nres_(nres) {}

  // ApplyTaskTopology.
  void apply(const Topology& topo) {
    for (const auto& aff : topo.affinity) {
      if (aff.size() == 1) {
        self_affinity_.insert(aff[0]);
        mark(aff[0], TopologyType::SelfAffinity);
        continue;
      }
      for (size_t i = 0; i < aff.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          inter_affinity_[aff[i]].insert(aff[j]);
          inter_affinity_[aff[j]].insert(aff[i]);
        }
        mark(aff[i], TopologyType::InterAffinity);
      }
    }
    for (const auto& aff : topo.anti_affinity) {
      if (aff.size() == 1) {
        self_anti_affinity_.insert(aff[0]);
        mark(aff[0], TopologyType::SelfAntiAffinity);
        continue;
      }
      for (size_t i = 0; i < aff.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          inter_anti_affinity_[aff[i]].insert(aff[j]);
          inter_anti_affinity_[aff[j]].insert(aff[i]);
        }
        mark(aff[i], TopologyType::InterAntiAffinity);
      }
    }
    const int n = static_cast<int>(topo.task_order.size());
    for (int i = 0; i < n; ++i) task_exist_order_[topo.task_order[static_cast<size_t>(i)]] = n - i;
  }

  // checkTaskSetAffinity: + per task of a role it has affinity with (unless only_anti),
  // - per task of a role it has anti-affinity with.
  int task_set_affinity(const std::string& role, const std::map<std::string, int>& set,
                        bool only_anti) const {
    int aff = 0;
    if (role.empty()) return 0;
    for (const auto& [other, count] : set) {
      const bool same = other == role;
      if (!only_anti) {
        const bool a = same ? self_affinity_.count(role) > 0 : has(inter_affinity_, role, other);
        if (a) aff += count;
      }
      const bool anti =
          same ? self_anti_affinity_.count(role) > 0 : has(inter_anti_affinity_, role, other);
      if (anti) aff -= count;
    }
    return aff;
  }

  // taskAffinityOrder of two roles: -1 when l < r (goes later), by the user's order first,
  // then by topology priority.
  int affinity_order(const std::string& l, const std::string& r) const {
    if (l == r) return 0;
    const int lo = value_or0(task_exist_order_, l), ro = value_or0(task_exist_order_, r);
    if (lo != ro) return lo > ro ? 1 : -1;
    const int lp = value_or0(priority_, l), rp = value_or0(priority_, r);
    if (lp != rp) return lp > rp ? 1 : -1;
    return 0;
  }

  // ConstructBucket: the tasks whose role has affinity settings, sorted (placed tasks
  // first by node, then by role order, then by name), then put into buckets.
  void construct(const std::vector<TaskRec>& tasks) {
    std::vector<const TaskRec*> with;
    for (const TaskRec& t : tasks) {
      tasks_[t.uid] = t;
      if (t.role.empty() || !priority_.count(t.role)) {
        bucket_of_[t.uid] = kOutOfBucket;
        continue;
      }
      with.push_back(&tasks_[t.uid]);
    }
    std::stable_sort(with.begin(), with.end(), [&](const TaskRec* a, const TaskRec* b) {
      const bool an = !a->node.empty(), bn = !b->node.empty();
      if (an != bn) return an;
      if (an) {
        if (a->node != b->node) return a->node < b->node;
        return a->uid < b->uid;
      }
      const int o = affinity_order(a->role, b->role);
      if (o != 0) return o > 0;
      return a->uid < b->uid;
    });
    build(with);
  }

  int bucket_index(const std::string& uid) const {
    auto it = bucket_of_.find(uid);
    return it == bucket_of_.end() ? kOutOfBucket : it->second;
  }
  const Bucket* bucket_of(const std::string& uid) const {
    const int i = bucket_index(uid);
    return i == kOutOfBucket ? nullptr : &buckets_[static_cast<size_t>(i)];
  }
  const std::vector<Bucket>& buckets() const { return buckets_; }
  int bucket_max_size() const { return bucket_max_size_; }

  // TaskOrderFn for two tasks of this job, both known: negative when l goes first.
  int task_order(const std::string& l, const std::string& r) const {
    const Bucket* lb = bucket_of(l);
    const Bucket* rb = bucket_of(r);
    if ((lb != nullptr) != (rb != nullptr)) return lb ? -1 : 1;
    if (!lb) return 0;
    const size_t ln = lb->pending.size(), rn = rb->pending.size();
    if (ln != rn) return ln > rn ? -1 : 1;
    if (lb->index == rb->index) return -affinity_order(role_of(l), role_of(r));
    return lb->index < rb->index ? -1 : 1;
  }

  // calcBucketScore without the fit test and the manager lookup (the caller's): the
  // bucket's tasks already on the node, minus the anti-affinity with the tasks placed on
  // it in this session, plus the bucket's pending tasks, minus one per task that must
  // leave the bucket for the rest to fit `max_resource` (idle + releasing).
  int bucket_score(const std::string& uid, const std::string& node,
                   const ResVec& max_resource) const {
    const Bucket* b = bucket_of(uid);
    if (!b) return 0;
    int score = value_or0(b->node, node);
    if (auto it = node_task_set_.find(node); it != node_task_set_.end()) {
      const int aff = task_set_affinity(role_of(uid), it->second, true);
      if (aff < 0) score += aff;
    }
    score += static_cast<int>(b->pending.size());
    if (res::less_equal(b->request.data(), max_resource.data(), nres_)) return score;
    ResVec remains = b->request;
    for (const std::string& m : b->members) {
      if (!b->pending.count(m) || m == uid) continue;
      remains.sub(tasks_.at(m).request);
      --score;
      if (res::less_equal(remains.data(), max_resource.data(), nres_)) break;
    }
    return score;
  }

  // NodeOrderFn's scaling of a bucket score.
  double node_score(int score, int64_t weight) const {
    double f = static_cast<double>(score * weight);
    if (bucket_max_size_ != 0) f = f * kMaxNodeScore / bucket_max_size_;
    return f;
  }

  // TaskBound (AllocateFunc): the task now counts on `node`.
  void task_bound(const std::string& uid, const std::string& node) {
    auto it = tasks_.find(uid);
    if (it == tasks_.end()) return;
    if (!it->second.role.empty()) ++node_task_set_[node][it->second.role];
    const int i = bucket_index(uid);
    if (i == kOutOfBucket) return;
    Bucket& b = buckets_[static_cast<size_t>(i)];
    ++b.node[node];
    ++b.bound_task;
    if (b.pending.erase(uid)) {
      b.request.sub(it->second.request);
      b.req_score -= request_score(it->second.request);
    }
  }

  // The undo of task_bound, for an allocation rolled back in the session (Volcano has no
  // DeallocateFunc here; without it a discarded placement would keep counting).
  void task_unbound(const std::string& uid, const std::string& node) {
    auto it = tasks_.find(uid);
    if (it == tasks_.end()) return;
    if (!it->second.role.empty()) {
      auto ns = node_task_set_.find(node);
      if (ns != node_task_set_.end() && --ns->second[it->second.role] <= 0)
        ns->second.erase(it->second.role);
    }
    const int i = bucket_index(uid);
    if (i == kOutOfBucket) return;
    Bucket& b = buckets_[static_cast<size_t>(i)];
    if (--b.node[node] <= 0) b.node.erase(node);
    --b.bound_task;
    if (b.pending.insert(uid).second) {
      b.request.add(it->second.request);
      b.req_score += request_score(it->second.request);
    }
  }

  std::string role_of(const std::string& uid) const {
    auto it = tasks_.find(uid);
    return it == tasks_.end() ? std::string() : it->second.role;
  }

 private:
  static bool has(const std::map<std::string, std::set<std::string>>& m, const std::string& a,
                  const std::string& b) {
    auto it = m.find(a);
    return it != m.end() && it->second.count(b);
  }
  static int value_or0(const std::map<std::string, int>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  }

  void mark(const std::string& role, TopologyType t) {
    const int p = static_cast<int>(t);
    if (p > value_or0(priority_, role)) priority_[role] = p;
  }

  // buildBucket.
  void build(const std::vector<const TaskRec*>& ordered) {
    std::map<std::string, int> node_bucket;
    for (const TaskRec* t : ordered) {
      int selected = -1;
      int max_aff = INT_MIN;
      if (!t->node.empty()) {
        max_aff = 0;
        if (auto it = node_bucket.find(t->node); it != node_bucket.end()) selected = it->second;
      } else {
        for (const Bucket& b : buckets_) {
          const int aff = task_set_affinity(t->role, b.task_name_set, false);
          if (aff > max_aff) {
            max_aff = aff;
            selected = b.index;
          } else if (aff == max_aff && selected >= 0 &&
                     b.req_score < buckets_[static_cast<size_t>(selected)].req_score) {
            selected = b.index;
          }
        }
      }
      if (max_aff < 0 || selected < 0) {
        Bucket nb;
        nb.index = static_cast<int>(buckets_.size());
        nb.request = ResVec(nres_);
        buckets_.push_back(std::move(nb));
        selected = buckets_.back().index;
        if (!t->node.empty()) node_bucket[t->node] = selected;
      }
      add(selected, *t);
    }
  }

  // AddTaskToBucket and Bucket.AddTask.
  void add(int index, const TaskRec& t) {
    Bucket& b = buckets_[static_cast<size_t>(index)];
    bucket_of_[t.uid] = index;
    ++b.task_name_set[t.role];
    if (!t.node.empty()) {
      ++b.node[t.node];
      ++b.bound_task;
    } else {
      b.members.push_back(t.uid);
      b.pending.insert(t.uid);
      b.request.add(t.request);
      b.req_score += request_score(t.request);
    }
    const int size = static_cast<int>(b.pending.size()) + b.bound_task;
    bucket_max_size_ = std::max(bucket_max_size_, size);
  }

  size_t nres_;
  std::map<std::string, TaskRec> tasks_;
  std::map<std::string, int> bucket_of_;
  std::vector<Bucket> buckets_;
  std::map<std::string, int> priority_;  // taskAffinityPriority
  std::map<std::string, int> task_exist_order_;
  std::map<std::string, std::set<std::string>> inter_affinity_, inter_anti_affinity_;
  std::set<std::string> self_affinity_, self_anti_affinity_;
  int bucket_max_size_ = 0;
  std::map<std::string, std::map<std::string, int>> node_task_set_;  // node -> role -> n
};

}  // namespace caldera::task_topology
