// Decisions back to the API server: binds (pods/NAME/binding), evictions (the policy/v1
// Eviction API, or a plain delete), PodGroup and Queue status (merge patches of the status
// subresource, or of the object when the CRD has none, as Volcano's PodGroup CRD does),
// the PodScheduled=False condition and FailedScheduling events of pods left pending, and
// the Normal "Scheduled" event of each pod bound ("Successfully assigned NS/NAME to NODE",
// Volcano's and kube-scheduler's words).
//
// Writes go through one queue with a bounded number in flight, binds first. Transient
// failures (no answer, 429, 5xx) are retried with backoff honouring Retry-After; a bind
// answered 409 Conflict re-reads the pod: already bound means done, still pending means
// one more try. What finally fails is reported to the owner through Hooks so the cache
// can be put right (a failed bind leaves the pod pending).
#pragma once

#include <uv.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "host/backend/kubernetes/api_objects.hpp"
#include "host/backend/kubernetes/http_client.hpp"

namespace caldera::k8s {

enum class EvictMode { Eviction, Delete };

// A write of kube-scheduler's volume binder that goes before a bind (PreBind): a merge
// patch of a PersistentVolume (its claimRef) or of a claim (its selected-node annotation),
// conditional on the object's resourceVersion as the binder's Update is.
struct VolumeWrite {
  bool claim = false;  // a PersistentVolumeClaim (in `ns`), else a PersistentVolume
  std::string ns, name;
  json patch;
};

struct WriterOptions {
  size_t max_in_flight = 64;
  int max_attempts = 4;          // per write, for transient failures
  EvictMode evict_mode = EvictMode::Eviction;
  std::string component = "volcano";  // the events' source.component
  std::string instance;               // reportingInstance (this replica)
};

struct WriterStats {
  uint64_t binds_ok = 0, binds_failed = 0, binds_conflict = 0;
  uint64_t evictions_ok = 0, evictions_refused = 0, evictions_failed = 0;
  uint64_t status_writes = 0, status_failed = 0, status_conflicts = 0;
  uint64_t conditions = 0, events = 0;
  uint64_t retries = 0;
};

class Writer {
 public:
  struct Hooks {
    // The bind is done (the API server accepted it, or the pod was found bound there).
    std::function<void(const std::string& pod_key, const std::string& node)> bound;
    // The bind failed for good: the pod goes back to pending in the cache.
    std::function<void(const std::string& pod_key, const std::string& node,
                       const std::string& why)>
        bind_failed;
    // A fresh copy of a pod read after a conflict.
    std::function<void(const json& pod)> pod_read;
    // The eviction was refused (PodDisruptionBudget: 429) or failed: the pod keeps running.
    std::function<void(const std::string& pod_key, const std::string& why)> evict_failed;
    // A status write failed for good ("podgroup", "queue" or "pod" and the object's key):
    // what the owner assumed was written is not, so it must be written again.
    std::function<void(const std::string& kind, const std::string& key)> status_failed;
  };

  Writer(uv_loop_t* loop, HttpClient& http, WriterOptions opts, Hooks hooks);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // `volumes` are written first, one after the other; one that fails for good fails the
  // bind (bind_failed), which is then not sent.
  void bind(const std::string& ns, const std::string& name, const std::string& uid,
            const std::string& node, std::vector<VolumeWrite> volumes = {});
  void evict(const std::string& ns, const std::string& name, const std::string& uid);
  // `status` is the status object to merge (phase, counts, conditions).
  void podgroup_status(const std::string& ns, const std::string& name, json status);
  void queue_status(const std::string& name, json status);
  // PodScheduled=False with `reason` and `message`, and a FailedScheduling event; with a
  // `nominated_node`, status.nominatedNodeName too (Volcano's taskUnschedulable).
  void pod_unschedulable(const std::string& ns, const std::string& name, const std::string& uid,
                         const std::string& message, const std::string& reason = "Unschedulable",
                         const std::string& nominated_node = {});
  // An event about a PodGroup: Volcano's Warning "Unschedulable" and Normal "Scheduled".
  void podgroup_event(const std::string& ns, const std::string& name, const std::string& uid,
                      const std::string& reason, const std::string& message,
                      const char* type = "Warning");

  // A Warning event about a pod (a session dropped while placing it: a plugin's fault,
  // docs/ISOLATION.md).
  void pod_event(const std::string& ns, const std::string& name, const std::string& reason,
                 const std::string& message, const std::string& uid = "");

  // Drops everything queued and not yet sent (leadership lost); writes in flight finish.
  void drop_queued();
  void stop(std::function<void()> closed);

  size_t queued() const { return binds_.size() + others_.size(); }
  size_t in_flight() const { return in_flight_; }
  bool idle() const { return queued() == 0 && in_flight_ == 0; }
  const WriterStats& stats() const { return stats_; }

 private:
  struct Op;
  void enqueue(std::shared_ptr<Op> op, bool front = false);
  void pump();
  void start(std::shared_ptr<Op> op);
  void finished(std::shared_ptr<Op> op, HttpResponse&& r);
  void retry(std::shared_ptr<Op> op, double retry_after);
  void give_up(const std::shared_ptr<Op>& op, const std::string& why);
  void after_bind_conflict(std::shared_ptr<Op> op);
  void enqueue_event(const std::string& ns, const std::string& name, const std::string& body);
  std::string event_body(const std::string& kind, const std::string& api_version,
                         const std::string& ns, const std::string& name, const std::string& uid,
                         const std::string& reason, const std::string& message,
                         const char* type = "Warning");

  uv_loop_t* loop_;
  HttpClient& http_;
  WriterOptions opts_;
  Hooks hooks_;
  std::deque<std::shared_ptr<Op>> binds_;
  std::deque<std::shared_ptr<Op>> others_;
  size_t in_flight_ = 0;
  bool stopping_ = false;
  // Whether the PodGroup / Queue CRDs serve a status subresource; learnt from a 404.
  bool podgroup_status_subresource_ = true;
  bool queue_status_subresource_ = true;
  uint64_t event_seq_ = 0;
  WriterStats stats_;
  // Retry timers waiting (each owns its handle); timers_ also counts those closing.
  struct RetryTimer;
  std::unordered_set<RetryTimer*> live_timers_;
  size_t timers_ = 0;
  std::function<void()> closed_;
  bool closed_called_ = false;
  void maybe_closed();
};

}  // namespace caldera::k8s
