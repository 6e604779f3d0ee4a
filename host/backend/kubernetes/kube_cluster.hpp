// The Kubernetes backend: informers keep the cache current (pods, nodes, PodGroups,
// Queues, PriorityClasses, and HyperNodes where the cluster serves them), and a session's
// decisions go back through the writer.
//
// Between a decision and the API server's confirmation the cache holds what was decided,
// as Volcano's and kube-scheduler's caches "assume" pods: a pod being bound shows on its
// node, a pod being evicted shows as releasing, so the next session does not place the same
// pod twice or count the same room twice. The watch confirms an assumption; a failed write
// undoes it (the pod is pending again, in the state the watch last showed).
#pragma once

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "host/backend/kubernetes/http_client.hpp"
#include "host/backend/kubernetes/informer.hpp"
#include "host/backend/kubernetes/writer.hpp"
#include "host/cache/cache.hpp"
#include "host/scheduler/backend.hpp"
#include "host/scheduler/commit.hpp"
#include "host/session/session.hpp"

namespace caldera::k8s {

struct KubeOptions {
  std::vector<std::string> scheduler_names{"volcano"};
  EvictMode evict_mode = EvictMode::Eviction;
  std::string identity;                 // this replica, for events
  int page_size = 0;  // InformerOptions::page_size
  size_t max_pod_status_per_session = 1000;  // PodScheduled conditions + events per session
  double assume_ttl = 30;               // seconds a confirmed bind waits for the watch
  // Volcano's --node-selector: when set, only nodes carrying at least one of these labels
  // (key, value) are the scheduler's; the others are left out of the cache.
  std::vector<std::pair<std::string, std::string>> node_selector;
};

// Volcano's --node-selector entries, "KEY:VALUE" (spaces around either trimmed), as pairs.
// Throws InputError naming the entry for one that is not KEY:VALUE (Volcano skips it).
std::vector<std::pair<std::string, std::string>> parse_node_selector(
    const std::vector<std::string>& entries);

struct KubeStats {
  double first_sync_seconds = -1;  // start() to every informer listed
  uint64_t binds_sent = 0, evictions_sent = 0;
  uint64_t binds_skipped = 0;      // decided, but the pod changed before the write
  double last_burst_binds_per_second = 0;  // binds of the last burst / its write time
};

class KubeCluster : public Informer::Handler, public Backend {
 public:
  KubeCluster(uv_loop_t* loop, HttpClient& http, KubeOptions opts);
  ~KubeCluster() override;

  void start();
  void stop(std::function<void()> closed);

  // Every informer has listed and is connected: sessions may run.
  bool synced() const;
  // Why not synced, for logs ("pods: listing", "nodes: reconnecting").
  std::string sync_state() const;
  const Cache& cache() const { return cache_; }

  // Sends a session's decisions through commit_decisions (host/scheduler/commit.hpp) with
  // this cluster as the backend: binds and evictions (with their assumptions in the cache),
  // PodGroup phases and Queue status where they changed, the PodScheduled condition and a
  // FailedScheduling event for pods whose reason to wait changed. `now`: unix seconds.
  CommitReport commit(const SessionResult& r, double now);
  // Binds handed over while their session still runs (commit_binds): sent at once.
  CommitReport commit_binds(const SessionResult& r);

  // Backend: called by commit_decisions.
  void bind(const PodSpec& observed, const PodSpec& bound) override;
  bool bind_volumes(const PodSpec& pod, const std::vector<ClaimDecision>& decisions) override;
  void evict(const PodSpec& observed, const std::string& reason) override;
  void update_status(const SessionResult& r, double now) override;
  // Leadership lost: writes not yet sent are dropped (their assumptions undone).
  void leadership_lost();

  const KubeStats& stats() const { return stats_; }
  const Writer& writer() const { return *writer_; }
  Writer& writer() { return *writer_; }
  const std::vector<std::unique_ptr<Informer>>& informers() const { return informers_; }
  // Pods whose bind is sent and not yet seen on the watch.
  size_t assumed() const { return assumed_.size(); }

  // Informer::Handler
  void list_begin(const std::string& resource) override;
  void list_item(const std::string& resource, const json& obj) override;
  void list_end(const std::string& resource) override;
  void event(const std::string& resource, const std::string& type, const json& obj) override;

 private:
  struct PodMeta {
    std::string uid;
    std::string scheduled_message;  // PodScheduled=False message as last seen or written
    std::string nominated_node;     // status.nominatedNodeName as last seen or written
  };
  struct PodGroupMeta {
    std::string uid;
    std::string phase;
    int64_t running = 0, succeeded = 0, failed = 0;
    std::string condition;          // type of our condition as last seen or written
    std::string condition_message;
    std::string event_message;  // the last event written about it (repeats are not)
  };
  struct QueueMeta {
    json status = json::object();   // as last seen or written
  };
  struct Assumed {
    std::string node;
    bool confirmed_by_server = false;  // the bind was answered 201
    double deadline = 0;               // drop the assumption after this (monotonic seconds)
    PodSpec observed;                  // the pod as the watch last showed it
  };

  // The volume writes of a bind (bind_volumes) until the bind is sent, and what they
  // touch until it is answered.
  struct PendingVolumes {
    std::vector<VolumeWrite> writes;
    std::vector<std::string> volumes, claims;  // PV names, claim keys
  };

  std::string upsert(const std::string& resource, const json& obj);
  // Whether the node is this scheduler's (KubeOptions::node_selector).
  bool node_selected(const NodeSpec& n) const;
  void set_csi_resources(const std::string& node, const ResourceList* before,
                         const ResourceList& resources);
  void remove(const std::string& resource, const std::string& key);
  void upsert_pod(const json& obj);
  void warn(Warnings& w);
  void expire_assumptions();
  void write_podgroup_status(const SessionResult& r, double now);
  void write_queue_status();
  void write_pending(const SessionResult& r);
  // Why a pending pod of ours is no task of the session ("" when it is one): its PodGroup
  // is missing or unusable, or the PodGroup's queue is missing.
  std::string outside_reason(const PodSpec& pod);

  // Writer hooks.
  void on_bound(const std::string& key, const std::string& node);
  void on_bind_failed(const std::string& key, const std::string& node, const std::string& why);
  void on_evict_failed(const std::string& key, const std::string& why);

  uv_loop_t* loop_;
  HttpClient& http_;
  KubeOptions opts_;
  Cache cache_;
  std::vector<std::unique_ptr<Informer>> informers_;
  std::unique_ptr<Writer> writer_;
  std::map<std::string, std::unordered_set<std::string>> seen_;  // keys listed, per resource
  std::unordered_map<std::string, PodMeta> pod_meta_;
  std::unordered_map<std::string, PodGroupMeta> pg_meta_;
  std::unordered_map<std::string, QueueMeta> queue_meta_;
  std::unordered_map<std::string, Assumed> assumed_;       // pod key -> bind in flight
  std::unordered_map<std::string, PodSpec> evicting_;      // pod key -> as last observed
  std::unordered_set<std::string> warned_;
  std::set<std::string> queue_missing_warned_;
  std::unordered_map<std::string, std::string> refused_podgroups_;  // key -> why skipped
  std::unordered_set<std::string> missing_podgroup_warned_;         // PodGroup keys
  // By node: the resources its CSINode gives it (Volcano's setCSIResourceOnNode).
  std::unordered_map<std::string, std::shared_ptr<const ResourceList>> csi_nodes_;
  std::unordered_map<std::string, PendingVolumes> pending_volumes_;  // by pod key
  // The storage records as the watch last showed them (a failed volume write restores them).
  std::unordered_map<std::string, std::shared_ptr<const PersistentVolume>> watched_volumes_;
  std::unordered_map<std::string, std::shared_ptr<const PersistentVolumeClaim>> watched_claims_;
  KubeStats stats_;
  // A burst of binds: from the first sent while none was outstanding to the last answer.
  uint64_t binds_outstanding_ = 0;
  uint64_t burst_binds_ = 0;
  double burst_start_ = 0;
  void bind_answered();
  uint64_t started_ms_ = 0;
  int closing_ = 0;
  std::function<void()> closed_;
};

}  // namespace caldera::k8s
