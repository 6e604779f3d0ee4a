#include "host/backend/sim/sim_cluster.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <set>

#include "host/scenario/device_requests.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/toml/reader.hpp"

namespace caldera {

namespace {

// Volcano's job controller once every pod has succeeded or failed
// (pkg/controllers/job/state/running.go, no minSuccess): Failed when the job's minAvailable
// covers the tasks' minimums (TotalTaskMinAvailable: a task without `min` counts all its
// replicas) and a task with a `min` has fewer pods succeeded; otherwise Completed when at
// least minAvailable pods succeeded, else Failed.
bool job_completed(const PodGroupSpec& pg, int succeeded,
                   const std::map<std::string, int>& replicas,
                   const std::map<std::string, int>& succeeded_in) {
  int task_min_total = 0;
  for (const auto& [role, n] : replicas) {
    auto m = pg.min_task_member.find(role);
    task_min_total += m == pg.min_task_member.end() ? n : m->second;
  }
  if (pg.min_member >= task_min_total)
    for (const auto& [role, min] : pg.min_task_member) {
      auto s = succeeded_in.find(role);
      if (replicas.count(role) && (s == succeeded_in.end() ? 0 : s->second) < min) return false;
    }
  return succeeded >= pg.min_member;
}

}  // namespace

SimCluster::SimCluster(Cache cache) : cache_(std::move(cache)) {}

SimCluster::SimCluster(const std::filesystem::path& cluster_file,
                       const std::filesystem::path& workload_file) {
  const input::Document cluster = input::parse_file(cluster_file, "cluster file");
  load_cluster_objects(cluster.root, cluster_file, cache_);
  workload_ = load_workload(workload_file);
  // What the workload names must be in the cluster (as admission would refuse it).
  const std::string in = cluster_file.string();
  auto names = [](const auto& map) {
    std::vector<std::string> out;
    for (const auto& [k, v] : map) out.push_back(k);
    return out;
  };
  for (const auto& job : workload_.jobs) {
    const PodGroupSpec& pg = job.podgroup;
    if (!pg.queue.empty() && pg.queue != "default" && !cache_.queue(pg.queue))
      input::fail(job.queue_src, input::child_path(job.object, "queue"),
                  fmt::format("queue '{}' is not in {}{}", pg.queue, in,
                              input::did_you_mean(pg.queue, names(cache_.queues()))),
                  fmt::format("a queue of {}, or \"default\"", in));
    if (!pg.priority_class.empty() && !cache_.priority_classes().count(pg.priority_class))
      input::fail(job.priority_class_src, input::child_path(job.object, "priority_class"),
                  fmt::format("priority class '{}' is not in {}{}", pg.priority_class, in,
                              input::did_you_mean(pg.priority_class,
                                                  names(cache_.priority_classes()))),
                  fmt::format("a priority class of {}", in));
    if (const PodGroupSpec* other = cache_.podgroup(pg.key()))
      input::fail(pg.src, job.object,
                  fmt::format("podgroup '{}' is already in {} at {}", pg.key(), in, other->src.str()),
                  fmt::format("a job name that no podgroup of {} has", in));
    for (const auto& t : job.tasks)
      if (const PodSpec* other = cache_.pod(t.pod.key()))
        input::fail(t.pod.src, t.object,
                    fmt::format("pod '{}' is already in {} at {}", t.pod.key(), in, other->src.str()),
                    fmt::format("pod names that no pod of {} has", in));
  }
  // Malformed GPU requests are input errors, requests no node could ever meet warnings
  // (host/scenario/device_requests.hpp), for the cluster's pods and the workload's alike.
  check_device_requests(cache_);
  std::vector<const NodeSpec*> nodes;
  for (const auto& [_, n] : cache_.nodes()) nodes.push_back(n.get());
  for (const auto& job : workload_.jobs)
    for (const auto& t : job.tasks) check_device_request(t.pod, nodes);
  // Pods already running in the cluster file run until the end (no duration known).
}

size_t SimCluster::live_jobs() const {
  size_t n = 0;
  for (const auto& [_, r] : records_)
    if (!r.has_ended()) ++n;
  return n;
}

double SimCluster::next_event() const {
  double t = -1;
  if (!all_arrived()) t = workload_.jobs[next_arrival_].arrival;
  for (const auto& [_, end] : end_time_)
    if (t < 0 || end < t) t = end;
  return t;
}

std::vector<JobRecord> SimCluster::job_records() const {
  std::vector<JobRecord> out;
  out.reserve(records_.size());
  for (const auto& [_, r] : records_) out.push_back(r);
  return out;
}

void SimCluster::advance(double now) {
  now_ = now;
  // Completions first: resources freed at `now` are free for the arrivals of `now`.
  std::set<std::string> touched_jobs;
  for (auto it = end_time_.begin(); it != end_time_.end();) {
    if (it->second <= now) {
      if (const PodSpec* p = cache_.pod(it->first)) {
        PodSpec done = *p;
        done.phase = PodPhase::Succeeded;
        touched_jobs.insert(done.ns + "/" + done.podgroup);
        cache_.upsert_pod(std::move(done));
      }
      it = end_time_.erase(it);
    } else {
      ++it;
    }
  }
  end_jobs(touched_jobs, now);

  while (!all_arrived() && workload_.jobs[next_arrival_].arrival <= now) {
    const WorkloadJob& job = workload_.jobs[next_arrival_++];
    cache_.upsert_podgroup(job.podgroup);
    for (const auto& t : job.tasks) {
      cache_.upsert_pod(t.pod);
      duration_[t.pod.key()] = t.duration;
    }
    JobRecord r;
    r.key = job.podgroup.key();
    r.queue = job.podgroup.queue;
    r.arrival = job.arrival;
    r.pods = static_cast<int>(job.tasks.size());
    r.min_member = job.podgroup.min_member;
    records_[r.key] = r;
  }
}

void SimCluster::end_jobs(const std::set<std::string>& keys, double now) {
  for (const std::string& key : keys) {
    auto rec = records_.find(key);
    if (rec == records_.end() || rec->second.has_ended()) continue;
    const PodGroupSpec* pg = cache_.podgroup(key);
    if (!pg) continue;
    bool all_ended = true;
    int succeeded = 0;
    std::map<std::string, int> replicas, succeeded_in;  // by role (volcano.sh/task-spec)
    std::vector<std::string> pods;
    for (const auto& [pk, p] : cache_.pods()) {
      if (p->ns != pg->ns || p->podgroup != pg->name) continue;
      pods.push_back(pk);
      auto role = p->labels.find("volcano.sh/task-spec");
      const std::string r = role == p->labels.end() ? std::string() : role->second;
      ++replicas[r];
      if (p->phase == PodPhase::Succeeded) {
        ++succeeded;
        ++succeeded_in[r];
      } else if (p->phase != PodPhase::Failed) {
        all_ended = false;
      }
    }
    if (!all_ended) continue;
    if (job_completed(*pg, succeeded, replicas, succeeded_in))
      rec->second.finished = now;
    else
      rec->second.failed = now;
    for (const auto& pk : pods) cache_.remove_pod(pk);
    cache_.remove_podgroup(key);
  }
}

CommitReport SimCluster::commit(const SessionResult& r, double now) {
  now_ = now;
  return commit_decisions(r, cache_, *this, now);
}

void SimCluster::bind(const PodSpec&, const PodSpec& bound) {
  PodSpec running = bound;
  running.phase = PodPhase::Running;  // no kubelet delay in the embedded cluster
  running.scheduled_at = now_;        // the PodScheduled condition the bind sets
  auto d = duration_.find(running.key());
  if (d != duration_.end()) end_time_[running.key()] = now_ + d->second;
  cache_.upsert_pod(std::move(running));
}

// The PV controller of the embedded cluster: a volume bound to a claim completes the
// claim's binding at once. A claim to be provisioned keeps its selected-node annotation:
// the embedded cluster has no provisioner (as the oracle, which does not emulate one).
bool SimCluster::bind_volumes(const PodSpec&, const std::vector<ClaimDecision>& decisions) {
  for (const ClaimDecision& d : decisions) {
    if (!d.volume) {
      cache_.upsert_claim(d.claim);
      continue;
    }
    PersistentVolumeSpec pv = *d.volume;
    pv.phase = CAL_VOLUME_BOUND;
    PersistentVolumeClaimSpec claim = d.claim;
    claim.volume_name = pv.meta.name;
    claim.phase = CAL_CLAIM_BOUND;
    claim.meta.set_annotation(kAnnBindCompleted, "yes");
    cache_.upsert_persistent_volume(std::move(pv));
    cache_.upsert_claim(std::move(claim));
  }
  return true;
}

void SimCluster::evict(const PodSpec& observed, const std::string& reason) {
  if (auto rec = records_.find(observed.ns + "/" + observed.podgroup); rec != records_.end())
    rec->second.evictions.push_back({now_, observed.name, reason});
  PodSpec evicted = observed;
  evicted.node.clear();
  evicted.scheduled_at.reset();
  evicted.releasing = false;
  evicted.phase = workload_.evicted_pods_fail ? PodPhase::Failed : PodPhase::Pending;
  if (workload_.evicted_pods_fail) failed_jobs_.insert(evicted.ns + "/" + evicted.podgroup);
  end_time_.erase(evicted.key());
  cache_.upsert_pod(std::move(evicted));
}

void SimCluster::update_status(const SessionResult&, double now) {
  end_jobs(failed_jobs_, now);
  failed_jobs_.clear();
  // A job has started when min_member of its pods run.
  std::map<std::string, int> running;
  for (const auto& [_, p] : cache_.pods())
    if (p->phase == PodPhase::Running) ++running[p->ns + "/" + p->podgroup];
  for (auto& [key, rec] : records_)
    if (rec.started < 0 && running[key] >= std::max(1, rec.min_member)) rec.started = now;
}

}  // namespace caldera
