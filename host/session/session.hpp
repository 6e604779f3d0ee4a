// A scheduling session: a snapshot of the cache, the plugin instances of one policy, the
// dispatch of every extension point with Volcano's combination rules, and the record of
// decisions that goes back to the backend at close.
//
// The implementation is split as Volcano splits its framework: session.cpp (open, close,
// lookups: session.go), snapshot.cpp (the copy of the cache: cache.go Snapshot),
// dispatch.cpp and node_dispatch.cpp with chains.hpp and dispatch.hpp (the extension points,
// from the point table of host/config/points.hpp: session_plugins.go), task_changes.cpp (the
// changes statements make: statement.go), job_status.cpp (PodGroup phases and pending
// reasons at close: job_updater.go).
//
// Life of a session: Session::open(cache, policy, now) copies the cache and opens every
// plugin instance; the actions run (each checks job_valid where Volcano's does); close()
// closes the instances and returns the SessionResult. Actions change the session only through
// Statements (statement.hpp), so that a gang's allocations commit or roll back as a unit.
#pragma once

#include <functional>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/session/chains.hpp"
#include "host/session/policy.hpp"
#include "host/session/reasons.hpp"
#include "host/session/row_maxima.hpp"
#include "host/session/runtime.hpp"
#include "host/session/hypernodes.hpp"
#include "host/session/session_types.hpp"
#include "host/session/sub_jobs.hpp"
#include "host/session/volumes.hpp"

namespace caldera {

class Cache;
class Runtime;
class WorkerPool;

// The outcome of a point that can fail: the code, the reason and the plugin that said it.
struct PointStatus {
  cal_code code = CAL_SUCCESS;
  std::string reason;
  std::string plugin;
  bool ok() const { return code == CAL_SUCCESS || code == CAL_SKIP; }
};


// Who evicts, for Session::unified_evictable (caldera/plugin.h, cal_eviction_context:
// Volcano's api.EvictionContext).
struct EvictionContext {
  cal_eviction_kind kind = CAL_EVICTION_UNKNOWN;
  const JobInfo* job = nullptr;
  const TaskInfo* task = nullptr;  // the task-level kinds only
  std::string_view hypernode;      // the domain: a HyperNode, or "<cluster-top-hypernode>"
  const HyperNodeInfo* hypernode_info = nullptr;  // null for the whole cluster
};

// What a session measured and counted for the scheduler's metrics (Volcano's metrics
// package; host/metrics/scheduler_metrics.hpp turns it into its series).
struct SessionStats {
  struct PluginTime {
    std::string plugin;
    std::string point;  // "OnSessionOpen" or "OnSessionClose", Volcano's label values
    double seconds = 0;
  };
  std::vector<PluginTime> plugin_seconds;  // each plugin's open() and close(), in order
  // Preemptors that evicted on a node or chose a candidate (Volcano's
  // RegisterPreemptionAttempts) and the victims the last node offered
  // (UpdatePreemptionVictimsCount; -1: no node was looked at).
  uint64_t preemption_attempts = 0;
  int64_t preemption_victims = -1;
  // Statements committed with at least one eviction, by the action that committed them.
  std::map<std::string, uint64_t> eviction_transactions;
  // A queue's fair share as a plugin worked it out (host API queue_set_fair_share; the
  // last call of the session): Volcano's volcano_queue_deserved_* and volcano_queue_share,
  // and the results report's deserved share. By queue name.
  struct FairShare {
    std::string plugin;
    bool has_deserved = false;
    ResourceList deserved;  // by resource name, the session's resources
    double share = -1;      // negative: the plugin has none
  };
  std::map<std::string, FairShare> fair_shares;
};

// One node as a task's scoring saw it: the total and each plugin's part (a plugin's
// node_order and batch_node_order added up), in the policy's order.
struct NodeScore {
  std::string node;
  double total = 0;
  std::vector<std::pair<std::string, double>> plugins;
};

// Everything a session decided, in the order it was decided.
struct SessionResult {
  std::vector<std::pair<std::string, std::string>> binds;  // task uid -> node
  std::vector<std::string> evictions;                      // task uids
  // Task uid -> the action that evicted it ("preempt", "reclaim", "shuffle"): Volcano's
  // eviction reason, in the victim's Evict event ("Pod is evicted, because of preempt").
  std::map<std::string, std::string> eviction_reasons;
  std::vector<std::pair<std::string, std::string>> pipelined;  // task uid -> node, at close
  // The pipelined tasks whose pipelining evicted victims: their pods' nominated node
  // (status.nominatedNodeName) from now on. Task uid -> node.
  std::vector<std::pair<std::string, std::string>> nominated;
  // Tasks still Allocated at close, not bound: placed by a statement that was kept, not
  // committed (a job pipelined but not ready). Task uid -> node.
  std::vector<std::pair<std::string, std::string>> allocated;
  std::map<std::string, JobPhase> podgroup_phases;  // every job of the session, at close
  std::map<std::string, std::string> pending;       // task uid -> why it stays pending
  std::map<std::string, std::string> job_pending;   // job uid -> job-level reasons
  // Job uid -> the Unschedulable event Volcano's cache records for a PodGroup still
  // Pending, Inqueue or Unknown at close ("N/M tasks in gang unschedulable: FitError").
  std::map<std::string, std::string> podgroup_unschedulable;
  // Job uid -> the message of the PodGroup's Unschedulable condition, as a plugin set it
  // (Volcano's gang: "N/M tasks in gang unschedulable: FitError").
  std::map<std::string, std::string> podgroup_conditions;
  // Annotations to write on a pod with its bind (task_set_annotation), by task uid.
  std::map<std::string, StringMap> bind_annotations;
  // Volume decisions to write before a pod's bind (task_assume_volume), by task uid:
  // claim "ns/name" -> the PV chosen for it, or "" for provisioning on the bind's node.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> volume_bindings;
  // With Runtime::explain_top() > 0: task uid -> its last scoring's best nodes, best first
  // (equal totals in the order the search visited them).
  std::map<std::string, std::vector<NodeScore>> top_scores;
  // The plugin states for the next session: for each plugin of the session's policy, what
  // it saved in this session, else what it had (when from the same file). Plugins not in
  // the policy have none: their states are dropped.
  PluginStates plugin_states;
  SessionStats stats;
};

class Session {
 public:
  // Copies the cache into a new session and opens the policy's plugin instances. A
  // plugin whose open() fails is logged and left out of this session.
  // The session points into the cache's records (labels, taints, selectors: no copy, and
  // no reference count written, so a forked session worker copies no page of the cache):
  // the cache must outlive the session, and no record it holds may be replaced or removed
  // until close() returns. Every front end runs a session either on a cache that waits
  // for it (the embedded cluster, the scenario runner, the replay) or in a worker process.
  // `runtime` (host/session/runtime.hpp) lends what outlives the session: the worker pool,
  // memo tables, warnings said, and the plugin states the previous session left (its
  // SessionResult::plugin_states, carried by the front end); it must outlive the session
  // and its carried states must stay unchanged until close() returns.
  static std::unique_ptr<Session> open(const Cache& cache, std::shared_ptr<const Policy> policy,
                                       double now, Runtime& runtime);
  // The same on a snapshot already built and kept current by a SessionImage
  // (session_image.hpp), which hands it over: only what is not kept in the image (storage,
  // budgets and quotas, HyperNodes, the action arguments) is read from `cache` here.
  static std::unique_ptr<Session> open(std::unique_ptr<Session> built, const Cache& cache,
                                       double now, Runtime& runtime);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Closes the plugin instances, computes PodGroup phases as Volcano's closeSession does,
  // collects pending reasons, and returns every decision. Call once.
  SessionResult close();

  // ---- objects ---------------------------------------------------------------------
  size_t resource_count() const { return resource_names_.size(); }
  const std::vector<std::string>& resource_names() const { return resource_names_; }
  int resource_id(const std::string& name) const;  // -1 if unknown
  const ResVec& cluster_total() const { return total_; }
  double now() const { return now_; }

  // Sorted by uid / name for determinism.
  const std::vector<JobInfo*>& jobs() const { return job_list_; }
  const std::vector<NodeInfo*>& nodes() const { return node_list_; }
  const std::vector<QueueInfo*>& queues() const { return queue_list_; }
  JobInfo* job(const std::string& uid) const;
  NodeInfo* node(const std::string& name) const;
  QueueInfo* queue(const std::string& name) const;
  // The network topology (host/session/hypernodes.hpp).
  const HyperNodes& hypernodes() const { return hypernodes_; }
  HyperNodes& hypernodes() { return hypernodes_; }
  // Storage and this session's volume decisions (host/session/volumes.hpp).
  const SessionVolumes& volumes() const { return volumes_; }
  SessionVolumes& volumes() { return volumes_; }
  // PodDisruptionBudgets and ResourceQuotas by namespace then name, each with its status
  // (the one read, or worked out from the pods: host/model/policy_objects.hpp).
  const std::vector<std::shared_ptr<const DisruptionBudget>>& disruption_budgets() const {
    return budgets_;
  }
  const std::vector<std::shared_ptr<const ResourceQuota>>& resource_quotas() const {
    return quotas_;
  }

  const Policy& policy() const { return *policy_; }
  Runtime& runtime() const { return *runtime_; }
  // Validated arguments of an action ([actions.NAME]); empty when none were given.
  const Args& action_args(const std::string& action) const;

  // ---- dispatch: each with the combination rule written in caldera/plugin.h, taken from
  // the point table (host/config/points.hpp) by the dispatch of dispatch.hpp -------------
  bool job_order_less(const JobInfo* l, const JobInfo* r) const;
  bool queue_order_less(const QueueInfo* l, const QueueInfo* r) const;
  bool task_order_less(const TaskInfo* l, const TaskInfo* r) const;
  PointStatus pre_predicate(const TaskInfo* t) const;
  PointStatus predicate(const TaskInfo* t, const NodeInfo* n) const;
  // The same for a run of nodes, for the predicate search: for each node whose chain
  // fails, the code, the plugin's name and its reason (NULL for none) in the arrays;
  // codes[i] is CAL_SUCCESS for a node that passed. `statuses` holds count cal_status
  // buffers for plugins answering node by node (a reason points into one). Plugins with
  // predicate_many get one call per run. Safe to call on several threads at once, for
  // different runs of one task, when predicates_parallel().
  void predicate_codes(const TaskInfo* t, const NodeInfo* const* nodes, size_t count,
                       cal_code* codes, const std::string** plugins, const char** reasons,
                       cal_status* statuses) const;
  // Sum of node_order scores of every plugin, for each node (scores.size() == nodes.size()),
  // in tier and plugin order: each plugin's node_order, then its batch_node_order. Runs the
  // per-node calls on several threads when every scoring plugin allows it; the sums do not
  // depend on it.
  void node_scores(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                   std::vector<double>& scores) const;
  // best_node, else the highest score, ties broken by node name.
  NodeInfo* best_node(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                      const std::vector<double>& scores) const;
  std::vector<TaskInfo*> preemptable(const TaskInfo* preemptor,
                                     const std::vector<TaskInfo*>& candidates) const;
  std::vector<TaskInfo*> reclaimable(const TaskInfo* reclaimer,
                                     const std::vector<TaskInfo*>& candidates) const;
  std::vector<TaskInfo*> victim_tasks(const std::vector<TaskInfo*>& tasks) const;
  bool overused(const QueueInfo* q) const;
  bool allocatable(const QueueInfo* q, const TaskInfo* t) const;
  bool preemptive(const QueueInfo* q, const TaskInfo* t) const;
  // Volcano's Preemptive(queue, candidates): may q reclaim for all the tasks together
  // (gangreclaim asks for a job's pending tasks at once). preemptive_many where a plugin
  // sets it, else its preemptive for each task.
  bool preemptive(const QueueInfo* q, const std::vector<TaskInfo*>& tasks) const;
  // The gang-aware evicting actions' victims among `candidates` (Volcano's
  // UnifiedEvictable), in the candidates' order.
  std::vector<TaskInfo*> unified_evictable(const EvictionContext& ctx,
                                           const std::vector<TaskInfo*>& candidates) const;
  bool job_ready(const JobInfo* j) const;
  bool job_pipelined(const JobInfo* j) const;
  bool job_starving(const JobInfo* j) const;
  bool job_enqueueable(const JobInfo* j) const;
  void job_enqueued(JobInfo* j);
  PointStatus job_valid(const JobInfo* j) const;

  // ---- sub-jobs (host/session/sub_jobs.hpp) ----------------------------------------------
  // The job's sub-jobs, built on first use in this session.
  const JobSubJobs& sub_jobs(const JobInfo* j) const;
  SubJobInfo* sub_job_of(const TaskInfo* t) const;
  // Volcano's SubJobReady / SubJobPipelined: for a job without a subGroupPolicy, job_ready
  // / job_pipelined of the job.
  bool sub_job_ready(const SubJobInfo* s) const;
  bool sub_job_pipelined(const SubJobInfo* s) const;
  // Volcano's SubJobOrderFn: the plugins', else match index, then uid.
  bool sub_job_order_less(const SubJobInfo* l, const SubJobInfo* r) const;
  // The whole cluster's tier (Volcano's ClusterTopHyperNode): one above the highest real
  // HyperNode tier, at least 1.
  int32_t cluster_top_tier() const;
  // Where the allocate action had placed a task's sub-job when it chose the task's node
  // (Volcano's TaskInfo.JobAllocatedHyperNode); null when nowhere.
  HyperNodeInfo* task_allocated_hypernode(const TaskInfo* t) const;
  void set_task_allocated_hypernode(const TaskInfo* t, HyperNodeInfo* h);

  // True when some plugin in some tier takes part in the point (Volcano's
  // "fn found" checks, e.g. preempt's use of job_starving).
  bool has_point(Point p) const;

  // ---- node-level work ----------------------------------------------------------------
  // Reasons of this session (why-pending texts), with the host's own ones interned at open.
  ReasonTable& reasons() const { return reasons_; }
  int32_t insufficient_reason(size_t resource) const { return insufficient_ids_[resource]; }
  // Where the next predicate search starts (actions/predicate_helper.hpp): it resumes where
  // the last one stopped (Volcano's lastProcessedNodeIndex, kept here per session so that
  // a session's decisions depend on its input only).
  size_t node_search_start() const { return node_search_start_; }
  void set_node_search_start(size_t i) { node_search_start_ = i; }
  // Plugins' predicates (scores) may run on several threads: every plugin taking part
  // declares CAL_CAP_NODE_PARALLEL and the config allows more than one thread.
  bool predicates_parallel() const { return predicates_parallel_; }
  // The pool for node-level loops (one thread when nothing may run in parallel).
  WorkerPool& workers() const { return *workers_; }
  // Every node's vector of one field as a table (host API node_table): node_count rows of
  // resource_count values, row NodeInfo::index; kept equal to the NodeInfo vectors.
  const double* node_table(cal_node_field f) const;
  // The largest future idle of each resource over the nodes (kept with the table): a
  // request above it in some resource fits no node.
  double max_future_idle(size_t resource) const { return future_idle_maxima_.max(resource); }

  // Records why no node fits a task (the last search of the session wins).
  // Records why no node took t (Volcano's JobInfo.NodesFitErrors[task]) and the nodes whose
  // refusal was UnschedulableAndUnresolvable.
  void set_fit_error(TaskInfo* t, std::string reason,
                     std::vector<uint32_t> unresolvable_nodes = {});
  // The session's nodes without those t's last fit errors found unresolvable (Volcano's
  // FilterOutUnschedulableAndUnresolvableNodesForTask), in node order.
  std::vector<NodeInfo*> nodes_not_unresolvable(const TaskInfo* t) const;
  // Volcano's JobInfo.FitError(): the message of a pending task that has none of its own.
  std::string job_fit_error(const JobInfo& j) const;
  // Volcano's JobInfo.TaskSchedulingReason: the pod condition's reason and message for a
  // task left unbound (an empty message: the job's FitError() stands in).
  struct SchedulingReason {
    std::string reason;
    std::string message;
  };
  static SchedulingReason scheduling_reason(const TaskInfo& t);
  // A plugin's job-level reason (host API job_set_pending_reason). Recorded from a
  // plugin's close() it also marks the job unschedulable for this session.
  void set_job_pending_reason(JobInfo* j, const std::string& plugin, std::string reason);
  // The PodGroup's Unschedulable condition (job_set_unschedulable_condition): also the job's
  // pending reason for `plugin`.
  void set_job_condition(JobInfo* j, const std::string& plugin, std::string message);
  // A queue's fair share as `plugin` worked it out (queue_set_fair_share); deserved: the
  // session's resource vector, or null.
  void set_queue_fair_share(const QueueInfo& q, const std::string& plugin,
                            const double* deserved, double share);
  // Volcano's gang count of a job's schedulable tasks: ready, plus pending ones whose last
  // transaction was an allocation.
  int32_t job_schedulable_num(const JobInfo& j) const;

  // For the ABI layer: the plugin instances' states, the session handle.
  struct Instance {
    const ConfiguredPlugin* plugin = nullptr;
    const cal_plugin* desc = nullptr;  // plugin->code, loaded in this process
    void* self = nullptr;
    int32_t index = -1;  // the plugin's place in the policy, tiers in order (breadcrumbs)
  };
  const std::vector<std::vector<Instance>>& tiers() const { return tiers_; }
  // Per slot of the point table, the instances taking part (chains.hpp), for combine<S>.
  const PluginChains& chains() const { return chains_; }

  // The action running now (run_session names it): the counts of stats() are by action.
  void set_action(std::string name) { action_ = std::move(name); }
  const std::string& action() const { return action_; }
  // What the metrics count; actions add to it (preempt: attempts and victims).
  SessionStats& stats() { return result_.stats; }

  // Host API state_get / state_put for the plugin whose open() or close() is running
  // (none: NULL / -1).
  const void* plugin_state_get(size_t* size) const;
  int plugin_state_put(const void* bytes, size_t size);

 private:
  // Runtime::explain_top(): the best `top` of a scoring of t, with each plugin's part
  // (`part`: node_scores' rows), as the task's entry of SessionResult::top_scores.
  void keep_top_scores(const TaskInfo* t, const std::vector<NodeInfo*>& nodes,
                       const std::vector<double>& scores, const std::vector<double>& part,
                       size_t top) const;
  friend class Statement;
  // ---- changes: only through a Statement (statement.hpp) ------------------------------
  // Each updates job counts and node accounting and fires on_allocate / on_deallocate.
  void allocate_task(TaskInfo* t, NodeInfo* n);   // Pending -> Allocated
  void pipeline_task(TaskInfo* t, NodeInfo* n, bool eviction_occurred);  // Pending -> Pipelined
  void evict_task(TaskInfo* t);                   // on node -> Releasing
  void unallocate_task(TaskInfo* t);              // Allocated / Pipelined -> Pending
  void unevict_task(TaskInfo* t);                 // Releasing -> its status before
  // Commit steps: an allocated task goes to Binding and is recorded as a bind; an evicted
  // task is recorded as an eviction.
  // False when the scheduler cache would refuse the bind (see NodeInfo::cache_idle): the
  // task stays Allocated, nothing is sent.
  bool commit_bind(TaskInfo* t);
  void commit_evict(TaskInfo* t);
  // After a statement's commit: its binds to Runtime::bind_stream, when one is set.
  void stream_binds();

  // The phase a job's PodGroup is given (enqueue moves Pending -> Inqueue).
  void set_job_phase(JobInfo* j, JobPhase p);

  friend class SessionImage;
  friend class ImageUpdate;
  Session();
  // ---- the snapshot (snapshot.cpp) ------------------------------------------------------
  void build(const Cache& cache);
  // What is read from the cache at every open, image or not: storage, budgets and quotas,
  // HyperNodes, the action arguments, the node names for the breadcrumbs. Then the plugins
  // are opened (session.cpp).
  void open_rest(const Cache& cache);
  void open_policies(const Cache& cache);  // budgets and quotas, with status
  // Parts of the build that the image (session_image.cpp) also uses on one object.
  ResVec to_vec(const ResourceList& rl, double fill = 0.0) const;
  bool knows_resources(const ResourceList& rl) const;  // every name has an id
  QueueInfo* add_queue(std::shared_ptr<const QueueSpec> spec);
  QueueInfo* default_queue();  // made (an open queue of weight 1) when the cluster has none
  int32_t class_priority(const std::string& priority_class) const;  // default when unknown
  JobInfo* new_job(const std::string& uid, const std::string& ns, const std::string& name);
  // The job of a PodGroup (null when its queue does not exist: Volcano leaves it out).
  JobInfo* podgroup_job(const std::string& key, const PodGroupSpec& pg);
  // A pod without a PodGroup: a job of its own.
  JobInfo* podless_job(const PodSpec& pod);
  // The task of `pod` in `j` (appended to j->tasks; the job's order is made by finish_job).
  TaskInfo* new_task(const PodSpec& pod, JobInfo* j, const Cache& cache);
  // A pod's request as the nodes count it: its requests, one pod, its CSI volumes.
  ResVec pod_request(const PodSpec& pod, const Cache& cache) const;
  // A pod on `n` that is no task (another scheduler's, or its PodGroup is not in the
  // session): it uses the node's resources and is in the node's Kubernetes view.
  void hold_on_node(NodeInfo* n, const PodRef* ref, const Cache& cache);
  // A job's roles, task order, counts and sums, from its tasks (the order: by uid, then
  // task_fallback_less, stably).
  void finish_job(JobInfo* j);
  // The free slot for a task or a foreign pod's handle (the image reuses removed ones).
  TaskInfo* task_slot();
  PodRef* foreign_slot(const PodSpec* pod);
  void flatten_chains();              // dispatch.cpp: every chain, once the instances are open
  void flatten_node_chains();         // node_dispatch.cpp
  void update_job_status();           // job_status.cpp: phases and pending reasons at close
  void fire_allocate(TaskInfo* t);
  void fire_deallocate(TaskInfo* t);
  // Adds (sign 1) or removes (-1) the task's pod in its node's pod_requests.
  void count_pod(TaskInfo* t, NodeInfo* n, int sign);
  // Copies the node's vectors into its rows of the node tables; after every change.
  void sync_node(const NodeInfo* n);

  std::shared_ptr<const Policy> policy_;
  Runtime* runtime_ = nullptr;
  double now_ = 0;
  std::vector<std::string> resource_names_;
  std::unordered_map<std::string, int> resource_ids_;
  ResVec total_;

  std::deque<TaskInfo> tasks_;       // a deque: a task's address stays put
  std::deque<PodRef> foreign_pods_;  // pods on nodes that are no task: handles stay put
  std::vector<TaskInfo*> free_tasks_;      // slots of removed tasks (image only)
  std::vector<PodRef*> free_foreign_;      // slots of removed handles (image only)
  // Priority classes by name (with Kubernetes' two system classes) and the global default.
  std::unordered_map<std::string, int32_t> class_value_;
  int32_t default_priority_ = 0;
  // A kept snapshot's bookkeeping (session_image.cpp): null for a session built at open.
  std::unique_ptr<struct ImageBook> book_;
  std::vector<std::unique_ptr<JobInfo>> jobs_;
  std::vector<std::unique_ptr<NodeInfo>> nodes_;
  std::vector<std::unique_ptr<QueueInfo>> queues_;
  std::vector<JobInfo*> job_list_;
  std::vector<NodeInfo*> node_list_;
  std::vector<QueueInfo*> queue_list_;
  std::unordered_map<std::string, JobInfo*> job_by_uid_;
  std::unordered_map<std::string, NodeInfo*> node_by_name_;
  std::unordered_map<std::string, QueueInfo*> queue_by_name_;
  std::map<std::string, Args> action_args_;
  // Records the snapshot made itself (a "default" queue the cluster does not declare): the
  // session's objects point into records, and these have no cache to live in.
  std::vector<std::shared_ptr<const void>> own_records_;
  HyperNodes hypernodes_;
  // Built on first use, possibly from node-parallel plugin threads (a score asking a
  // task's sub-job): the mutex guards the map; a built entry never moves.
  mutable std::mutex sub_jobs_mutex_;
  mutable std::unordered_map<const JobInfo*, std::unique_ptr<JobSubJobs>> sub_jobs_;
  std::unordered_map<const TaskInfo*, HyperNodeInfo*> task_allocated_hypernode_;
  SessionVolumes volumes_;
  std::vector<std::shared_ptr<const DisruptionBudget>> budgets_;
  std::vector<std::shared_ptr<const ResourceQuota>> quotas_;

  std::vector<std::vector<Instance>> tiers_;
  PluginChains chains_;
  // The node-level chains in call order (tiers, then plugins), built once at open: each
  // plugin taking part in predicate (node_order) with the slots it sets of that point, read
  // through the point table (SlotInfo::get), NULL for the others.
  struct NodeCall {
    void* self;
    const std::string* name;
    int32_t index;  // the plugin's place in the policy (breadcrumbs)
    cal_predicate_fn predicate;
    cal_predicate_many_fn predicate_many;
    cal_node_order_fn node_order;
    cal_node_order_many_fn node_order_many;
    cal_batch_node_order_fn batch_node_order;
  };
  std::vector<NodeCall> predicates_, scorers_;
  std::vector<double> node_tables_[CAL_NODE_FIELD_COUNT];
  RowMaxima future_idle_maxima_;  // over node_tables_[CAL_NODE_FUTURE_IDLE]'s rows
  bool predicates_parallel_ = false, scores_parallel_ = false;
  WorkerPool* workers_ = nullptr;
  mutable ReasonTable reasons_;
  std::vector<int32_t> insufficient_ids_;
  size_t node_search_start_ = 0;
  SessionResult result_;
  size_t binds_streamed_ = 0;  // result_.binds handed to Runtime::bind_stream so far
  // SessionResult::top_scores as node_scores() (a const look) keeps them.
  mutable std::map<std::string, std::vector<NodeScore>> top_scores_;
  std::string action_;
  // Plugin states: those carried in, this session's saves by plugin name, and the plugin
  // whose open() or close() is running (the only time its state may be read or saved).
  const PluginStates* carried_ = nullptr;
  std::map<std::string, std::shared_ptr<const std::string>> saved_;
  const ConfiguredPlugin* calling_ = nullptr;
  bool closing_ = false;  // inside close(): plugins' pending reasons mark jobs unschedulable
  bool closed_ = false;
};

}  // namespace caldera
