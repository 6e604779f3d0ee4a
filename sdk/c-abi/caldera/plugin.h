/*
 * caldera/plugin.h -- the Caldera plugin ABI, version 1.8.
 *
 * This header is the whole contract between the Caldera host and a policy plugin. A plugin
 * is a shared object that includes this header, links against nothing of the host, and
 * exports exactly one symbol:
 *
 *     const cal_plugin *caldera_plugin_entry(const cal_host_api *host, uint32_t host_abi);
 *
 * (use CALDERA_PLUGIN_ENTRY below to declare it with the right linkage and visibility).
 * The header is C99; C++ plugins may use the header-only layer caldera/sdk.hpp over it.
 *
 * ==========================================================================================
 * CONVENTIONS -- the rules every declaration below follows unless its comment says otherwise
 * ==========================================================================================
 *
 * (0) Versions and growth.
 *     CAL_ABI_VERSION packs (major << 16 | minor); CAL_ABI_MAJOR / CAL_ABI_MINOR below are
 *     the one source of the version (the build reads them from this file for
 *     caldera-sdk.pc, and `caldera plugins list` prints them). The host calls the entry
 *     with its own version; the plugin returns a descriptor stamped with the version it
 *     was built for. The host loads the plugin only when
 *       - the majors are equal, and
 *       - the plugin's minor is not greater than the host's minor, and
 *       - descriptor->struct_size is at least CAL_PLUGIN_V1_0_SIZE, and
 *       - open and close are set, and every word of cal_plugin.reserved[] that lies
 *         inside struct_size is zero;
 *     otherwise it refuses the file with a message naming it, both versions (or the
 *     offending word) and what to rebuild.
 *     A minor release only ever appends: new fields at the end of a struct, new functions
 *     at the end of cal_host_api, new extension slots at the end of cal_plugin (taken from
 *     the front of reserved[], so the descriptor keeps its size). Released layouts never
 *     change: tests/unit/abi_freeze_test.cpp records every size and offset. Every member
 *     added after 1.0 sits in a group headed "added in 1.N", and CAL_*_V1_N_SIZE gives the
 *     bytes each minor defines.
 *     Every struct that crosses the boundary starts with its own size (struct_size), so
 *     each side reads only the fields the other one knows:
 *       - the host reads a descriptor slot only when the plugin's minor defines it AND
 *         struct_size covers it (min(struct_size, CAL_PLUGIN_SIZE_OF_MINOR(minor)); a 1.0
 *         plugin's 1.1 slots are ignored even when its struct_size reaches them);
 *       - a host never loads a plugin stamped with a newer minor than its own, so a
 *         plugin may call every host function of the minor it was built for; a plugin
 *         that stamps an older minor (to load on older hosts too) checks host->struct_size
 *         before calling anything newer (CAL_HOST_HAS(host, fn) does it).
 *     History:
 *       1.0  the first version.
 *       1.1  host: node_index, node_pod_requests, node_pod_requests_nonzero, the HyperNode
 *            functions (hypernode_*, node_hypernode_*, job_network_topology,
 *            job_allocated_hypernode) and node_table. Plugin: the hyper_node_order,
 *            predicate_many and node_order_many slots.
 *       1.2  host: state_get, state_put (a plugin's state kept across sessions;
 *            CAL_STATE_MAX).
 *       1.3  host: Kubernetes scheduling constraints (cal_pod and its readers:
 *            task_pod, pod_task, node_pod_count, node_pod_at, pod_name, pod_namespace,
 *            pod_label, pod_label_count, pod_label_key, pod_label_value,
 *            pod_constraints, pod_terminating; node_image_count, node_image_at; cal_pod_constraints and the
 *            element structs it points to).
 *       1.4  host: storage (cal_storage_class, cal_persistent_volume,
 *            cal_persistent_volume_claim; storage_class_get, volume_get, volume_count,
 *            volume_at, claim_get, volume_assumed_claim, claim_selected_node,
 *            task_assume_volume). cal_pod_constraints gains `claims`.
 *       1.5  host: queue_annotation, queue_affinity (cal_queue_affinity: a queue's node
 *            groups), task_scheduled_time, PodDisruptionBudgets (cal_disruption_budget;
 *            disruption_budget_count, disruption_budget_at) and ResourceQuotas
 *            (cal_resource_quota; resource_quota_count, resource_quota_at); job_fit_error,
 *            job_schedulable_num, job_set_unschedulable_condition (the PodGroup's
 *            Unschedulable condition); job_min_resource (minResources as written).
 *       1.6  host: queue_set_fair_share (a fair-share plugin's deserved and share of a
 *            queue, for the metrics and the results report).
 *       1.7  plugin: the unified_evictable slot (cal_eviction_context, cal_eviction_kind:
 *            the victims of the gang-aware evicting actions gangpreempt and gangreclaim)
 *            and the preemptive_many slot (preemptive for several tasks at once). The
 *            host table is unchanged.
 *       1.8  sub-jobs (Volcano's SubJobInfo, from a PodGroup's subGroupPolicy): host
 *            cal_sub_job and its readers (job_sub_job_count, job_sub_job_at,
 *            task_sub_job, sub_job_*), job_sub_group_count, job_sub_group_at,
 *            task_allocated_hypernode; plugin: the sub_job_ready, sub_job_pipelined,
 *            sub_job_order and sub_job_hyper_node_order slots.
 *
 * (1) Types and booleans.
 *     Fixed-width integers, size_t for counts and indexes, double for amounts and times.
 *     A boolean is an `int`: the host returns exactly 0 or 1; a plugin returns 0 for
 *     false and 1 for true (the host reads any non-zero as true). The victims arrays are
 *     uint8_t, 1 for "marked", 0 for not. "Not found" is NULL for pointers and -1 for
 *     signed indexes (resource_id, best_node).
 *     Units: resource id 0 is "cpu" in millicores, id 1 is "memory" in bytes, id 2 is
 *     "pods" in pods (a node's pod capacity; every task requests 1, as in Volcano, whose
 *     queue shares count pods). Every other id is a scalar resource ("nvidia.com/gpu",
 *     "volcano.sh/gpu-memory", ...) in milli-units, as Volcano counts them: a request of
 *     nvidia.com/gpu: 2 reads 2000. Look ids up by name (resource_id): hosts before the
 *     pods entry had scalars from id 2. node_pods_used and node_pods_max give a node's
 *     pod count as well. Times are seconds on the session clock (a double): the scenario
 *     clock, the simulated clock or the wall clock, depending on the backend.
 *
 * (2) NULL.
 *     - Handles the host passes to a callback are never NULL. Every host function that
 *       takes a handle needs a valid one, except where its comment says NULL is accepted
 *       (hypernode_lca, job_network_topology's out-pointer, status_set's st); the arg_*
 *       readers return 0 / NULL for a NULL args or name.
 *     - A host function returning a pointer returns NULL only where its comment says so
 *       ("NULL if absent", "NULL when not placed", "NULL when the queue does not set it").
 *     - In the descriptor, name must be set; version, description and options may be NULL
 *       (options only when option_count is 0); open and close must be set (the host
 *       refuses the file otherwise); every extension slot and check_args may be NULL,
 *       meaning the plugin takes no part. open() may return NULL as its state.
 *     - In cal_option, default_value NULL means "no default"; description may be NULL.
 *
 * (3) Strings, memory and lifetimes.
 *     - Handles (cal_session, cal_job, cal_task, cal_node, cal_queue, cal_hypernode,
 *       cal_pod) are opaque and owned by the host. They are valid from the plugin's open() to its
 *       close() for that session. Never free them; never keep them past close().
 *     - Strings the host returns (const char *) are NUL-terminated UTF-8, owned by the
 *       host, valid until the end of the session (those of cal_args: while the config
 *       that holds them is in use, which covers every session of the instance). Never
 *       free them.
 *     - Resource vectors the host returns (const double *) hold resource_count() values,
 *       indexed by resource id, and are owned by the host. They are read-only and valid
 *       until the object they describe next changes (an allocate, pipeline or evict that
 *       touches it) or the session ends, whichever comes first: copy what you need to
 *       keep. node_table's rows are valid until the session ends.
 *     - Arrays the host passes into a callback (nodes, candidates, scores, codes,
 *       reasons, victims) are the host's, valid for that call only; write only the output
 *       arrays, within their n entries.
 *     - Strings and buffers a plugin hands to the host (reasons, log messages, names,
 *       annotations) are copied by the host before the call returns. The plugin keeps
 *       ownership. The one exception: predicate_many's reasons[] stay the plugin's and
 *       must stay valid until its close().
 *     - The descriptor, its option table and every string in them are owned by the plugin
 *       and must stay valid while the shared object is loaded (static storage is the
 *       usual way). The host copies the descriptor at load; changing it later has no
 *       effect.
 *     - Memory a plugin allocates is freed by the plugin, memory the host allocates is
 *       freed by the host. No allocator ownership crosses this boundary.
 *
 * (4) Threads.
 *     Every callback is called from the host's scheduling thread, one at a time, except
 *     the per-node callbacks (predicate, predicate_many, node_order, node_order_many) of
 *     a plugin whose descriptor sets CAL_CAP_NODE_PARALLEL: those may run on several
 *     threads at once, for different nodes of the same task, and may only read (the
 *     plugin's own state too, or it guards it). pre_predicate, batch_node_order,
 *     best_node, hyper_node_order and every other slot stay on the scheduling thread. A
 *     plugin without the flag is never called from two threads at once. The host's read
 *     functions are safe to call from those threads; the writing ones
 *     (job_set_pending_reason, task_set_annotation, task_assume_volume) only from the
 *     scheduling thread. The
 *     entry point and check_args run on the thread that loads plugins or configs, in a
 *     child process of the scheduler (never in the scheduler's own process).
 *
 * (5) Calls that come in pairs, and their order.
 *     - entry point: may be called more than once per file, in more than one process (the
 *       host reads what a file declares in a child, and each session worker loads it
 *       again); it returns the same descriptor each time.
 *     - open / close: close() is called exactly once for every open() that left *code at
 *       CAL_SUCCESS, at the end of the session, with the state open() returned; never for
 *       an open() that failed. Every other slot runs between the two, with that state.
 *     - on_allocate / on_deallocate: on_allocate(t) each time t is allocated or pipelined
 *       in the session; on_deallocate(t) when such an allocation is undone (a statement
 *       discarded) and when t is evicted (chosen as a victim; for a task placed before the
 *       session no on_allocate came first); on_allocate(t) again when an eviction is
 *       undone. Each call moves t's resources once, so derived state (shares, counters)
 *       kept in step with the two always matches the session.
 *     - predicate_many: the reason strings it returns stay the plugin's until its close().
 *     - task_set_annotation, task_assume_volume: call them from on_allocate; what they
 *       record is dropped again if the allocation is undone (on_deallocate follows).
 *     - cal_status and cal_taint out-parameters: the caller sets struct_size before the
 *       call (the host for cal_status; the plugin for task_toleration_at and
 *       node_taint_at); the callee writes only the fields that struct_size covers.
 *
 * (6) The score scale (node_order, node_order_many, batch_node_order, hyper_node_order).
 *     Kubernetes' scale, as every shipped plugin follows it: each score function of a
 *     plugin gives a node 0 .. 100 (kube-scheduler's framework.MaxNodeScore), higher is
 *     better, and the plugin multiplies it by its own weight argument (binpack: 100 *
 *     binpack.weight times the weighted fill fraction; nodeorder: each Kubernetes score,
 *     0..100, times its `<name>.weight`, summed). The host does not normalise: it adds the
 *     scores of every plugin (and every slot of one plugin) and takes the highest total;
 *     among equal totals the node first by name. A plugin whose score is relative to the
 *     candidate set (normalised to 0..100 over it, as TaintToleration) uses
 *     batch_node_order. Scores are finite doubles; negative scores are allowed but no
 *     shipped plugin gives one.
 *
 * (7) What is not supported.
 *     - No C++ exception, longjmp, RTTI object or standard-library type crosses this
 *       boundary. A C++ plugin catches everything at its callbacks (the C++ SDK,
 *       caldera/sdk.hpp, does this).
 *     - Calling host functions other than log, status_set and the arg_* readers outside
 *       open() .. close() of a session (in the entry point, in check_args, from a thread
 *       of the plugin's own, after close()).
 *     - Keeping any handle, host string or host array past the lifetime in (3); writing
 *       through a const pointer the host hands out.
 *     - Stamping a minor newer than the host's (refused), or a descriptor whose layout is
 *       not this header's (refused where the loader can tell, see (0)).
 *     - Relying on the shared object staying loaded, or on its statics surviving, from
 *       one config or plugin set to the next, or from one session to the next: the host
 *       may unload a retired set, and runs each session in a forked worker process whose
 *       changes to the plugin's memory do not come back (see (8); state_get / state_put
 *       carry what must last).
 *
 * (8) Faults. Each session runs in a worker process forked for it ([scheduler] isolation,
 *     docs/ISOLATION.md); the process that holds the cluster never runs plugin code. A
 *     plugin that crashes, exits, hangs past session_timeout, allocates past
 *     session_memory_limit or lets an exception out ends that worker only. So does an
 *     answer outside this header's contract, which the host checks: a status code outside
 *     cal_code, a vote outside cal_vote, a score that is NaN or infinite, a best_node
 *     index outside -1 .. n-1, a cal_status reason without its NUL inside the buffer, a
 *     predicate_many reason of 4096 bytes or more. The session's decisions are then
 *     dropped whole, the log and the status name the plugin, the point and the node, and
 *     the plugin's file is quarantined (by its sha256) until other bytes replace it.
 */
#ifndef CALDERA_PLUGIN_H
#define CALDERA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Versions. These two lines are the one source of the ABI version: meson.build reads them
 * (abi_major / abi_minor of caldera-sdk.pc), and so do the host and `caldera plugins list`.
 * Keep each a plain `#define NAME <digits>`.
 * ------------------------------------------------------------------------------------- */
#define CAL_ABI_MAJOR 1
#define CAL_ABI_MINOR 8
#define CAL_ABI_VERSION ((uint32_t)((CAL_ABI_MAJOR << 16) | CAL_ABI_MINOR))
#define CAL_ABI_MAJOR_OF(v) ((uint32_t)(v) >> 16)
#define CAL_ABI_MINOR_OF(v) ((uint32_t)(v)&0xffffu)

/* The name of the one symbol a plugin exports. */
#define CAL_ENTRY_SYMBOL "caldera_plugin_entry"

/* ---------------------------------------------------------------------------------------
 * Opaque handles. Owned by the host; valid for the session the plugin was opened in.
 * ------------------------------------------------------------------------------------- */
typedef struct cal_session cal_session; /* one scheduling session: a snapshot of the cluster */
typedef struct cal_job cal_job;         /* a job: one PodGroup and its tasks */
typedef struct cal_task cal_task;       /* a task: one pod */
typedef struct cal_node cal_node;       /* a node */
typedef struct cal_queue cal_queue;     /* a queue */
typedef struct cal_hypernode cal_hypernode; /* a HyperNode: a switch and the nodes behind it */
typedef struct cal_sub_job cal_sub_job;     /* a sub-job: a gang inside a job (added in 1.8) */
typedef struct cal_pod cal_pod;         /* 1.3: a pod as Kubernetes sees it (a task's, or one
                                           no job owns: placed by another scheduler) */
typedef struct cal_args cal_args;       /* the validated arguments of one plugin instance */

/* ---------------------------------------------------------------------------------------
 * Status codes: the Kubernetes scheduling framework's, with a reason.
 * ------------------------------------------------------------------------------------- */
typedef enum cal_code {
  CAL_SUCCESS = 0,
  CAL_ERROR = 1,                         /* the plugin failed; the host logs it with the
                                            plugin's name and treats it as the point's
                                            failure (a predicate error filters the node) */
  CAL_UNSCHEDULABLE = 2,                 /* does not fit now; preemption may help */
  CAL_UNSCHEDULABLE_AND_UNRESOLVABLE = 3, /* does not fit, and evicting will not help */
  CAL_WAIT = 4,
  CAL_SKIP = 5                           /* the plugin has nothing to say about this input */
} cal_code;

#define CAL_REASON_MAX 256

/* An out-parameter for callbacks that can fail. The host zeroes it and sets struct_size
 * before the call; the plugin writes a short reason (truncated to CAL_REASON_MAX - 1 bytes,
 * always NUL-terminated) when it returns anything but CAL_SUCCESS. Reasons are summed over
 * nodes in "why pending" messages, so keep them node-independent ("node(s) didn't match
 * node selector", "Insufficient cpu"). A node refused for several reasons at once (as a
 * Kubernetes filter's status list) gives them one per line, '\n' between: each counts on
 * its own in those messages (hosts of 1.2 on; an older host counts the lines as one
 * reason). Fill it with host->status_set(). */
typedef struct cal_status {
  uint32_t struct_size;
  char reason[CAL_REASON_MAX];
} cal_status;

/* Votes, for the points where plugins vote (job_pipelined, job_enqueueable). */
typedef enum cal_vote { CAL_REJECT = -1, CAL_ABSTAIN = 0, CAL_PERMIT = 1 } cal_vote;

/* ---------------------------------------------------------------------------------------
 * Object states (as Volcano names them)
 * ------------------------------------------------------------------------------------- */
typedef enum cal_task_status {
  CAL_TASK_PENDING = 0,
  CAL_TASK_ALLOCATED = 1, /* assigned in this session, bind not yet sent */
  CAL_TASK_PIPELINED = 2, /* assigned to resources that are being released */
  CAL_TASK_BINDING = 3,
  CAL_TASK_BOUND = 4,
  CAL_TASK_RUNNING = 5,
  CAL_TASK_RELEASING = 6, /* being evicted or terminating */
  CAL_TASK_SUCCEEDED = 7,
  CAL_TASK_FAILED = 8,
  CAL_TASK_UNKNOWN = 9
} cal_task_status;
#define CAL_TASK_STATUS_COUNT 10

typedef enum cal_job_phase {
  CAL_PHASE_PENDING = 0,
  CAL_PHASE_INQUEUE = 1,
  CAL_PHASE_RUNNING = 2,
  CAL_PHASE_UNKNOWN = 3,
  CAL_PHASE_COMPLETED = 4
} cal_job_phase;

typedef enum cal_queue_state {
  CAL_QUEUE_OPEN = 0,
  CAL_QUEUE_CLOSED = 1,
  CAL_QUEUE_CLOSING = 2
} cal_queue_state;

/* A job's network topology constraint (its PodGroup's spec.networkTopology.mode). */
typedef enum cal_topology_mode {
  CAL_TOPOLOGY_NONE = 0,
  CAL_TOPOLOGY_HARD = 1, /* all inside one HyperNode of at most the highest tier allowed */
  CAL_TOPOLOGY_SOFT = 2  /* preferably inside one HyperNode, the lower the tier the better */
} cal_topology_mode;

typedef enum cal_log_level {
  CAL_LOG_DEBUG = 0,
  CAL_LOG_INFO = 1,
  CAL_LOG_WARN = 2,
  CAL_LOG_ERROR = 3
} cal_log_level;

/* A taint of a node or a toleration of a task. Strings owned by the host (session). */
typedef struct cal_taint {
  uint32_t struct_size;
  const char *key;
  const char *value;
  const char *effect;   /* "NoSchedule" | "PreferNoSchedule" | "NoExecute" | "" (any) */
  const char *op;       /* tolerations only: "Equal" | "Exists"; NULL for a taint */
} cal_taint;

/* ---------------------------------------------------------------------------------------
 * Plugin options: declared by the plugin, validated by the host.
 *
 * The host checks every key of the plugin's `arguments` in the config against this table:
 * an unknown key is an error that lists the declared names, a value of the wrong type is an
 * error naming the key, file, line and column. A name ending in ".*" declares a family
 * ("binpack.resources.*" accepts "binpack.resources.nvidia.com/gpu"), and so does, from
 * 1.2, a name with a ".*." in it ("resources.*.weight" accepts
 * "resources.nvidia.com/gpu.weight"; caldera/option_family.hpp); a family has no
 * default. Defaults are written as they would be in TOML ("1", "true", "0.5", "\"3m\"" is
 * written plainly as "3m"); NULL means "no default": the option is unset unless given.
 * ------------------------------------------------------------------------------------- */
typedef enum cal_option_type {
  CAL_OPT_BOOL = 0,
  CAL_OPT_INT = 1,      /* a TOML integer */
  CAL_OPT_DOUBLE = 2,   /* a TOML float or integer */
  CAL_OPT_STRING = 3,   /* a TOML string */
  CAL_OPT_DURATION = 4  /* a string such as "500ms", "3m", "1h30m" or a number of seconds;
                           read with arg_double, in seconds */
} cal_option_type;

typedef struct cal_option {
  uint32_t struct_size;
  const char *name;
  cal_option_type type;
  const char *default_value; /* NULL: no default */
  const char *description;
} cal_option;

/* The node resource vectors node_table exposes (one per node read function). */
typedef enum cal_node_field {
  CAL_NODE_ALLOCATABLE = 0,
  CAL_NODE_IDLE = 1,
  CAL_NODE_USED = 2,
  CAL_NODE_RELEASING = 3,
  CAL_NODE_PIPELINED = 4,
  CAL_NODE_FUTURE_IDLE = 5,
  CAL_NODE_POD_REQUESTS = 6,
  CAL_NODE_POD_REQUESTS_NONZERO = 7
} cal_node_field;
#define CAL_NODE_FIELD_COUNT 8

/* ---------------------------------------------------------------------------------------
 * Kubernetes scheduling constraints (added in 1.3).
 *
 * What a pod's spec asks of the node it runs on, read from the API object as Kubernetes
 * writes it: PodSpec.affinity, PodSpec.topologySpreadConstraints, the containers' host
 * ports and images. pod_constraints() returns one cal_pod_constraints per pod (NULL for a
 * pod that carries none of them, which is most pods); everything it points to is owned by
 * the host, read-only and valid until the session ends.
 *
 * Layout rules on top of (0): cal_pod_constraints starts with struct_size and only ever
 * grows at its end (read a field only when struct_size covers it). The element structs it
 * points to arrays of (cal_requirement, cal_node_selector_term, ...) are frozen as
 * released: growth comes as new arrays in cal_pod_constraints, never as new fields of an
 * element. A list (pointer + count) with count 0 may have a NULL pointer.
 * ------------------------------------------------------------------------------------- */

/* A list of strings. */
typedef struct cal_string_list {
  const char *const *items;
  size_t count;
} cal_string_list;

/* The operator of a selector requirement. Gt and Lt only occur in node selector
 * requirements, where Kubernetes compares the label's value as an integer. */
typedef enum cal_selector_op {
  CAL_SELECT_IN = 0,
  CAL_SELECT_NOT_IN = 1,
  CAL_SELECT_EXISTS = 2,
  CAL_SELECT_DOES_NOT_EXIST = 3,
  CAL_SELECT_GT = 4,
  CAL_SELECT_LT = 5
} cal_selector_op;

/* One requirement: a label (or, in cal_node_selector_term.fields, a node field such as
 * "metadata.name") against values. values has one item for Gt and Lt, none for Exists and
 * DoesNotExist. */
typedef struct cal_requirement {
  const char *key;
  cal_selector_op op;
  cal_string_list values;
} cal_requirement;

/* A label selector (metav1.LabelSelector): matchLabels come first as In requirements with
 * one value, in key order, then matchExpressions as written. Every requirement must hold.
 * absent is 1 when the API object had no selector at all: Kubernetes reads that as
 * matching nothing (labels.Nothing()); a present selector with no requirements matches
 * every object. */
typedef struct cal_label_selector {
  int absent;
  const cal_requirement *requirements;
  size_t count;
} cal_label_selector;

/* A node selector term: every expression (over node labels) and every field requirement
 * (over node fields: only "metadata.name" exists) must hold. A term with neither matches no
 * node, as in Kubernetes. */
typedef struct cal_node_selector_term {
  const cal_requirement *expressions;
  size_t expression_count;
  const cal_requirement *fields;
  size_t field_count;
} cal_node_selector_term;

/* A preferred node affinity term: weight 1..100 for nodes the term matches. */
typedef struct cal_preferred_node_term {
  int32_t weight;
  cal_node_selector_term term;
} cal_preferred_node_term;

/* A pod affinity or anti-affinity term (required, or preferred with its weight). The pods
 * it counts are those the selector matches in the namespaces it names: `namespaces`, plus
 * those the namespace selector matches when has_namespace_selector is 1 (an empty namespace
 * selector matches every namespace); when both are empty / absent, the pod's own namespace.
 * Namespaces carry one label in the session's view, kubernetes.io/metadata.name = the
 * namespace's name, as the API server sets it. match_label_keys and mismatch_label_keys are
 * as written: the API server has already merged them into the selector (Kubernetes 1.33),
 * so a plugin reads them for information only. */
typedef struct cal_pod_affinity_term {
  int32_t weight; /* preferred terms: 1..100; required terms: 0 */
  const char *topology_key;
  cal_label_selector selector;
  cal_string_list namespaces;
  int has_namespace_selector;
  cal_label_selector namespace_selector;
  cal_string_list match_label_keys;
  cal_string_list mismatch_label_keys;
} cal_pod_affinity_term;

/* A topology spread constraint (core/v1 TopologySpreadConstraint), with Kubernetes'
 * defaults filled in: min_domains 1 when unset, node_affinity_policy_honor 1 (Honor),
 * node_taints_policy_honor 0 (Ignore). match_label_keys are as written; Kubernetes'
 * scheduler adds `key In (the pod's value)` to the selector for each key the pod has a label
 * for, and so must a plugin that follows it. */
typedef struct cal_spread_constraint {
  int32_t max_skew;
  const char *topology_key;
  int do_not_schedule; /* whenUnsatisfiable: 1 DoNotSchedule, 0 ScheduleAnyway */
  cal_label_selector selector;
  int32_t min_domains;
  int node_affinity_policy_honor;
  int node_taints_policy_honor;
  cal_string_list match_label_keys;
} cal_spread_constraint;

/* A host port one of the pod's containers asks for (a container port with hostPort set).
 * protocol is "TCP" (the default), "UDP" or "SCTP"; host_ip is "0.0.0.0" when unset. */
typedef struct cal_host_port {
  int32_t port;
  const char *protocol;
  const char *host_ip;
} cal_host_port;

/* A container image a node holds (NodeStatus.images): every name it is known by, and its
 * size in bytes. */
typedef struct cal_image {
  uint32_t struct_size;
  cal_string_list names;
  int64_t size_bytes;
} cal_image;

/* Everything above, for one pod. has_required_node_affinity is 1 when the pod has
 * requiredDuringSchedulingIgnoredDuringExecution node affinity: its terms are ORed (a
 * node matching any one passes), and no term at all matches no node. images lists the
 * image of each container, init containers last, as the pod spec names them. */
typedef struct cal_pod_constraints {
  uint32_t struct_size;
  int has_required_node_affinity;
  const cal_node_selector_term *required_node_terms;
  size_t required_node_term_count;
  const cal_preferred_node_term *preferred_node_terms;
  size_t preferred_node_term_count;
  const cal_pod_affinity_term *required_affinity;
  size_t required_affinity_count;
  const cal_pod_affinity_term *preferred_affinity;
  size_t preferred_affinity_count;
  const cal_pod_affinity_term *required_anti_affinity;
  size_t required_anti_affinity_count;
  const cal_pod_affinity_term *preferred_anti_affinity;
  size_t preferred_anti_affinity_count;
  const cal_spread_constraint *spread;
  size_t spread_count;
  const cal_host_port *host_ports;
  size_t host_port_count;
  cal_string_list images;
  /* --- added in 1.4 --- */
  /* The claims the pod's volumes use (persistentVolumeClaim.claimName), in spec order; look
   * each up with claim_get in the pod's namespace. */
  cal_string_list claims;
} cal_pod_constraints;

/* ---------------------------------------------------------------------------------------
 * Storage (added in 1.4): StorageClasses, PersistentVolumes and PersistentVolumeClaims as
 * the API server holds them when the session opens, for Kubernetes' volume filters
 * (VolumeBinding, VolumeZone, NodeVolumeLimits). Owned by the host, read-only, valid until
 * the session ends. Each struct starts with struct_size and only grows at its end.
 * What the session changes (a PV chosen for a claim, a node selected for provisioning) is
 * not written into them: volume_assumed_claim and claim_selected_node give it.
 * ------------------------------------------------------------------------------------- */

/* PersistentVolume(Claim) access modes, as bits. */
#define CAL_ACCESS_READ_WRITE_ONCE 1u
#define CAL_ACCESS_READ_ONLY_MANY 2u
#define CAL_ACCESS_READ_WRITE_MANY 4u
#define CAL_ACCESS_READ_WRITE_ONCE_POD 8u

/* A StorageClass. allowed_topologies are its TopologySelectorTerms as node selector terms
 * (each matchLabelExpressions entry an In requirement), ORed; none: every node. */
typedef struct cal_storage_class {
  uint32_t struct_size;
  const char *name;
  const char *provisioner;          /* "" when none */
  int wait_for_first_consumer;      /* volumeBindingMode WaitForFirstConsumer: 1; Immediate: 0 */
  const cal_node_selector_term *allowed_topologies;
  size_t allowed_topology_count;
  /* parameters["csi.storage.k8s.io/csi-driver-name"]; NULL when absent */
  const char *csi_driver_parameter;
} cal_storage_class;

/* A PersistentVolume's status.phase. */
typedef enum cal_volume_phase {
  CAL_VOLUME_PENDING = 0,
  CAL_VOLUME_AVAILABLE = 1,
  CAL_VOLUME_BOUND = 2,
  CAL_VOLUME_RELEASED = 3,
  CAL_VOLUME_FAILED = 4
} cal_volume_phase;

/* A PersistentVolume. storage_class: the beta annotation volume.beta.kubernetes.io/
 * storage-class if set, else spec.storageClassName ("" for none). claim_*: spec.claimRef
 * as stored (NULL when it has none; claim_uid "" when the ref has no uid). labels in key
 * order. */
typedef struct cal_persistent_volume {
  uint32_t struct_size;
  const char *name;
  const char *storage_class;
  double capacity;                  /* spec.capacity.storage, in bytes */
  uint32_t access_modes;            /* CAL_ACCESS_* */
  int block;                        /* spec.volumeMode Block (else Filesystem) */
  const cal_node_selector_term *node_affinity_terms; /* spec.nodeAffinity.required, ORed */
  size_t node_affinity_term_count;  /* 0: the volume is reachable from every node */
  cal_volume_phase phase;
  const char *claim_namespace;
  const char *claim_name;
  const char *claim_uid;
  const char *csi_driver;           /* spec.csi.driver; NULL when not a CSI volume */
  int deleting;                     /* metadata.deletionTimestamp set */
  const char *volume_attributes_class; /* spec.volumeAttributesClassName; "" none */
  const char *const *label_keys;
  const char *const *label_values;
  size_t label_count;
} cal_persistent_volume;

/* A PersistentVolumeClaim's status.phase. */
typedef enum cal_claim_phase {
  CAL_CLAIM_PENDING = 0,
  CAL_CLAIM_BOUND = 1,
  CAL_CLAIM_LOST = 2
} cal_claim_phase;

/* A PersistentVolumeClaim. storage_class: the beta annotation if set, else
 * spec.storageClassName; NULL when neither is (no class at all), "" when set empty.
 * bind_completed: annotation pv.kubernetes.io/bind-completed. selected_node: annotation
 * volume.kubernetes.io/selected-node as stored (NULL when absent). */
typedef struct cal_persistent_volume_claim {
  uint32_t struct_size;
  const char *namespace_name;
  const char *name;
  const char *uid;
  const char *storage_class;
  const char *volume_name;          /* spec.volumeName; "" when unset */
  int bind_completed;
  const char *selected_node;
  cal_claim_phase phase;
  int deleting;                     /* metadata.deletionTimestamp set */
  double request;                   /* spec.resources.requests.storage in bytes; 0 if none */
  int has_request;
  uint32_t access_modes;            /* CAL_ACCESS_* */
  int block;                        /* spec.volumeMode Block */
  int has_selector;                 /* spec.selector set: `selector` must match the PV */
  cal_label_selector selector;
  const char *volume_attributes_class; /* "" none */
} cal_persistent_volume_claim;

/* ---------------------------------------------------------------------------------------
 * Queue node groups, disruption budgets and quotas (added in 1.5), for Volcano's nodegroup,
 * pdb and resourcequota plugins. Owned by the host, read-only, valid until the session
 * ends. Each struct starts with struct_size and only grows at its end.
 * ------------------------------------------------------------------------------------- */

/* A queue's spec.affinity (Volcano's scheduling v1beta1 Affinity): the node groups (the value
 * of a node's "volcano.sh/nodegroup-name" label) its jobs must or should run in, and must
 * or should not, each list in the order the queue writes it. */
typedef struct cal_queue_affinity {
  uint32_t struct_size;
  cal_string_list required;            /* nodeGroupAffinity.requiredDuring... */
  cal_string_list preferred;           /* nodeGroupAffinity.preferredDuring... */
  cal_string_list anti_required;       /* nodeGroupAntiAffinity.requiredDuring... */
  cal_string_list anti_preferred;      /* nodeGroupAntiAffinity.preferredDuring... */
} cal_queue_affinity;

/* A PodDisruptionBudget (policy/v1) as the session sees it. selector is spec.selector
 * (absent: matches nothing; a selector with no requirements matches every pod, which
 * Volcano's pdb plugin reads as matching nothing). disruptions_allowed is
 * status.disruptionsAllowed: the API object's on Kubernetes; in files, the one written, or
 * worked out from the pods as the disruption controller would (Running pods the selector
 * matches, less minAvailable, or maxUnavailable less the pods that are not Running).
 * disrupted_pods: the names in status.disruptedPods (evictions the API server accepted that
 * the controller has not seen yet), sorted. */
typedef struct cal_disruption_budget {
  uint32_t struct_size;
  const char *namespace_name;
  const char *name;
  cal_label_selector selector;
  int32_t disruptions_allowed;
  cal_string_list disrupted_pods;
} cal_disruption_budget;

/* A ResourceQuota (core/v1) as the session sees it: the resources of status.hard (spec.hard
 * when the status has none yet), sorted by name, and for each its hard limit and
 * status.used. Amounts are in the units of the resource of the same name (convention (1):
 * cpu millicores, memory bytes, pods a count, any other name in milli-units), so that a
 * quota's "cpu" compares with a PodGroup's minResources cpu as it is. used: the API
 * object's on Kubernetes; in files, the one written, or worked out from the namespace's pods
 * that are not Succeeded or Failed, as the quota controller would. */
typedef struct cal_resource_quota {
  uint32_t struct_size;
  const char *namespace_name;
  const char *name;
  const char *const *resources;
  const double *hard;
  const double *used;
  size_t resource_count;
} cal_resource_quota;

/* ---------------------------------------------------------------------------------------
 * The host API: one table of functions handed to the plugin's entry point. The pointer
 * stays valid while the plugin is loaded; keep it in a static. Functions are only appended.
 * ------------------------------------------------------------------------------------- */
typedef struct cal_host_api {
  /* ===== 1.0 ========================================================================== */
  uint32_t struct_size;
  uint32_t abi_version; /* the host's CAL_ABI_VERSION */

  /* --- logging ---------------------------------------------------------------------- */
  /* Writes one line to the scheduler log, tagged with the plugin's name. The host copies
   * message. */
  void (*log)(cal_log_level level, const char *plugin, const char *message);

  /* --- status helper ---------------------------------------------------------------- */
  /* Copies reason (truncated) into st. Safe on any thread. */
  void (*status_set)(cal_status *st, const char *reason);

  /* --- arguments (validated against the plugin's option table) ----------------------- */
  /* arg_is_set: 1 when the user gave the option or it has a default, else 0.
   * The typed readers return the value, or 0 / 0.0 / NULL when it is unset. A reader of
   * the wrong type for a declared option returns 0 / NULL and logs an error. For an INT
   * option arg_double returns the value as a double. */
  int (*arg_is_set)(const cal_args *args, const char *name);
  int (*arg_bool)(const cal_args *args, const char *name);
  int64_t (*arg_int)(const cal_args *args, const char *name);
  double (*arg_double)(const cal_args *args, const char *name);
  const char *(*arg_string)(const cal_args *args, const char *name);
  /* Iterates over the options that are set, defaults included (for families). */
  size_t (*arg_count)(const cal_args *args);
  const char *(*arg_name)(const cal_args *args, size_t i);

  /* --- session ---------------------------------------------------------------------- */
  size_t (*resource_count)(const cal_session *s);
  const char *(*resource_name)(const cal_session *s, size_t id);
  /* -1 when no object of the session uses that resource name. */
  int32_t (*resource_id)(const cal_session *s, const char *name);
  /* Sum of the allocatable resources of every node that is ready. */
  const double *(*cluster_total)(const cal_session *s);
  double (*now)(const cal_session *s);
  size_t (*job_count)(const cal_session *s);
  cal_job *(*job_at)(const cal_session *s, size_t i);
  size_t (*node_count)(const cal_session *s);
  cal_node *(*node_at)(const cal_session *s, size_t i);
  size_t (*queue_count)(const cal_session *s);
  cal_queue *(*queue_at)(const cal_session *s, size_t i);
  cal_queue *(*queue_by_name)(const cal_session *s, const char *name); /* NULL if none */
  cal_node *(*node_by_name)(const cal_session *s, const char *name);   /* NULL if none */

  /* --- jobs ------------------------------------------------------------------------- */
  const char *(*job_name)(const cal_job *j);      /* "namespace/name" of the PodGroup */
  const char *(*job_namespace)(const cal_job *j);
  cal_queue *(*job_queue)(const cal_job *j);      /* never NULL in a session */
  int32_t (*job_min_available)(const cal_job *j); /* PodGroup minMember */
  int32_t (*job_priority)(const cal_job *j);      /* from its priority class, else 0 */
  double (*job_created)(const cal_job *j);
  cal_job_phase (*job_phase)(const cal_job *j);
  /* The time the job's PodGroup last changed phase (for waiting-time policies). */
  double (*job_phase_since)(const cal_job *j);
  size_t (*job_task_count)(const cal_job *j);
  cal_task *(*job_task_at)(const cal_job *j, size_t i);
  /* Number of the job's tasks in a status. */
  int32_t (*job_status_count)(const cal_job *j, cal_task_status st);
  /* Volcano's counts: ready = allocated + binding + bound + running + succeeded;
   * waiting = pipelined; valid = ready + waiting + pending. */
  int32_t (*job_ready_num)(const cal_job *j);
  int32_t (*job_waiting_num)(const cal_job *j);
  int32_t (*job_valid_num)(const cal_job *j);
  /* Roles ("volcano.sh/task-spec"), each with its min member from the PodGroup's
   * minTaskMember (0 when not set). Roles are the union of both sources, sorted by name. */
  size_t (*job_role_count)(const cal_job *j);
  const char *(*job_role_name)(const cal_job *j, size_t i);
  int32_t (*job_role_min)(const cal_job *j, size_t i);
  /* Tasks of role i counted as ready (same statuses as job_ready_num) and as waiting. */
  int32_t (*job_role_ready)(const cal_job *j, size_t i);
  int32_t (*job_role_waiting)(const cal_job *j, size_t i);
  int32_t (*job_role_valid)(const cal_job *j, size_t i);
  /* Resources of tasks in allocated statuses (allocated, binding, bound, running). */
  const double *(*job_allocated)(const cal_job *j);
  /* Resources requested by all tasks that are not succeeded or failed. */
  const double *(*job_total_request)(const cal_job *j);
  /* PodGroup minResources; NULL when the PodGroup sets none. */
  const double *(*job_min_resources)(const cal_job *j);
  /* Record why the job, or part of it, stays pending ("job needs 4 tasks, 2 fit"). The
   * host copies the text; the last call of a session wins. */
  void (*job_set_pending_reason)(cal_job *j, const char *plugin, const char *reason);

  /* --- tasks ------------------------------------------------------------------------ */
  const char *(*task_name)(const cal_task *t); /* "namespace/name" of the pod */
  cal_job *(*task_job)(const cal_task *t);
  cal_node *(*task_node)(const cal_task *t); /* NULL when not placed */
  cal_task_status (*task_status)(const cal_task *t);
  const double *(*task_request)(const cal_task *t);      /* Resreq */
  const double *(*task_init_request)(const cal_task *t); /* InitResreq (with init containers) */
  int32_t (*task_priority)(const cal_task *t);
  int (*task_preemptable)(const cal_task *t);   /* "volcano.sh/preemptable", default 0 */
  int (*task_best_effort)(const cal_task *t);   /* requests nothing */
  int (*task_preempt_never)(const cal_task *t); /* preemptionPolicy: Never */
  const char *(*task_role)(const cal_task *t);  /* "volcano.sh/task-spec", "" if none */
  double (*task_created)(const cal_task *t);
  const char *(*task_label)(const cal_task *t, const char *key);      /* NULL if absent */
  const char *(*task_annotation)(const cal_task *t, const char *key); /* NULL if absent */
  size_t (*task_selector_count)(const cal_task *t);
  const char *(*task_selector_key)(const cal_task *t, size_t i);
  const char *(*task_selector_value)(const cal_task *t, size_t i);
  size_t (*task_toleration_count)(const cal_task *t);
  /* Fills *out (set out->struct_size first) with toleration i. Returns 0 on success. */
  int (*task_toleration_at)(const cal_task *t, size_t i, cal_taint *out);

  /* --- nodes ------------------------------------------------------------------------ */
  const char *(*node_name)(const cal_node *n);
  const double *(*node_allocatable)(const cal_node *n);
  const double *(*node_idle)(const cal_node *n);
  const double *(*node_used)(const cal_node *n);
  const double *(*node_releasing)(const cal_node *n);
  const double *(*node_pipelined)(const cal_node *n);
  const double *(*node_future_idle)(const cal_node *n); /* idle + releasing - pipelined */
  int32_t (*node_pods_used)(const cal_node *n); /* tasks counted on the node */
  int32_t (*node_pods_max)(const cal_node *n);  /* allocatable pods */
  int (*node_unschedulable)(const cal_node *n);
  const char *(*node_label)(const cal_node *n, const char *key); /* NULL if absent */
  size_t (*node_label_count)(const cal_node *n);
  const char *(*node_label_key)(const cal_node *n, size_t i);
  const char *(*node_label_value)(const cal_node *n, size_t i);
  size_t (*node_taint_count)(const cal_node *n);
  int (*node_taint_at)(const cal_node *n, size_t i, cal_taint *out);
  size_t (*node_task_count)(const cal_node *n);
  cal_task *(*node_task_at)(const cal_node *n, size_t i);

  /* --- queues ----------------------------------------------------------------------- */
  const char *(*queue_name)(const cal_queue *q);
  double (*queue_weight)(const cal_queue *q);
  /* capability, deserved, guarantee: NULL when the queue does not set it; a resource the
   * queue's list leaves out reads as +infinity for capability, 0 for the other two. */
  const double *(*queue_capability)(const cal_queue *q);
  const double *(*queue_deserved)(const cal_queue *q);
  const double *(*queue_guarantee)(const cal_queue *q);
  int (*queue_reclaimable)(const cal_queue *q);
  int32_t (*queue_priority)(const cal_queue *q);
  cal_queue_state (*queue_state)(const cal_queue *q);
  cal_queue *(*queue_parent)(const cal_queue *q); /* NULL for the root or a flat queue */
  double (*queue_created)(const cal_queue *q);

  /* --- more task and argument access ------------------------------------------------ */
  /* The pod's priorityClassName, "" when it has none. */
  const char *(*task_priority_class)(const cal_task *t);
  /* 1 when the plugin's config entry sets hierarchy = true (Volcano's enableHierarchy). */
  int (*arg_hierarchy)(const cal_args *args);
  /* Records an annotation on the task's pod while the task is allocated or pipelined in
   * this session: a device plugin writes which card(s) it chose ("volcano.sh/gpu-index").
   * task_annotation sees it at once; it is sent with the task's bind (the backend writes it
   * to the pod), and dropped if the allocation is undone. Call it from on_allocate. The
   * host copies key and value. */
  void (*task_set_annotation)(cal_task *t, const char *key, const char *value);

  /* --- annotations and NUMA layout ---------------------------------------------------- */
  /* The PodGroup's annotation (task-topology, sla read theirs here); NULL if absent. */
  const char *(*job_annotation)(const cal_job *j, const char *key);
  /* The node's annotation; NULL if absent. */
  const char *(*node_annotation)(const cal_node *n, const char *key);
  /* The node's NUMA layout: the number of NUMA nodes (0 when the node declares none), the
   * cpus (millicores) and memory (bytes) of NUMA node i, and the kubelet's topology manager
   * policy ("none", "best-effort", "restricted", "single-numa-node"). */
  size_t (*node_numa_count)(const cal_node *n);
  double (*node_numa_cpu)(const cal_node *n, size_t i);
  double (*node_numa_memory)(const cal_node *n, size_t i);
  const char *(*node_topology_policy)(const cal_node *n);

  /* ===== added in 1.1 (starts at CAL_HOST_API_V1_0_SIZE) ============================== */

  /* --- added in 1.1: per-node state in arrays, Kubernetes' view of a node ------------- */
  /* The node's position in node_at order, 0 .. node_count - 1, fixed for the session: a
   * plugin can keep per-node state in an array instead of a map from handles. */
  size_t (*node_index)(const cal_node *n);
  /* Kubernetes' view of the node's pods, as Volcano's predicates and nodeorder plugins
   * build it for the Kubernetes score plugins: every task on the node (running,
   * pipelined, releasing) and every pod another scheduler placed there, but not the tasks
   * evicted in this session; each pod's init request rounded to a whole unit (Kubernetes
   * holds int64s), summed (Kubernetes' NodeInfo.Requested). A resource vector, kept current
   * by the host as tasks are allocated, pipelined, evicted and undone. */
  const double *(*node_pod_requests)(const cal_node *n);
  /* The same, with 100 millicores of cpu and 200 MiB of memory counted for a pod that
   * requests no cpu / no memory (Kubernetes' NodeInfo.NonZeroRequested, which the least
   * and most allocated scores use). Other dimensions read as in node_pod_requests. */
  const double *(*node_pod_requests_nonzero)(const cal_node *n);

  /* --- added in 1.1: network topology, HyperNodes (Volcano's topology.volcano.sh) ----- */
  /* The session's HyperNodes, by tier, then name. There are none when the cluster declares
   * none, or when its HyperNodes do not form a tree (a cycle, a HyperNode with two
   * parents); the lower the tier, the closer the nodes behind it. */
  size_t (*hypernode_count)(const cal_session *s);
  cal_hypernode *(*hypernode_at)(const cal_session *s, size_t i);
  const char *(*hypernode_name)(const cal_hypernode *h);
  int32_t (*hypernode_tier)(const cal_hypernode *h);
  cal_hypernode *(*hypernode_parent)(const cal_hypernode *h); /* NULL for a root */
  /* Its real nodes (its own and those of every HyperNode below it) that are in the
   * session, by name. */
  size_t (*hypernode_node_count)(const cal_hypernode *h);
  cal_node *(*hypernode_node_at)(const cal_hypernode *h, size_t i);
  /* The HyperNodes holding node n, lowest tier first: index 0 is the node's own switch
   * (Volcano's FindHyperNodeForNode). 0 for a node behind no HyperNode. */
  size_t (*node_hypernode_count)(const cal_session *s, const cal_node *n);
  cal_hypernode *(*node_hypernode_at)(const cal_session *s, const cal_node *n, size_t i);
  /* The lowest HyperNode holding both (Volcano's GetLCAHyperNode); NULL when none does or
   * either is NULL. */
  cal_hypernode *(*hypernode_lca)(const cal_hypernode *a, const cal_hypernode *b);
  /* The job's network topology; *highest_tier_allowed (when not NULL) receives the
   * PodGroup's highestTierAllowed, 0 when the mode is not hard. */
  cal_topology_mode (*job_network_topology)(const cal_job *j, int32_t *highest_tier_allowed);
  /* The HyperNode the job is placed in so far (Volcano's volcano.sh/allocated-hyper-node):
   * the lowest one holding the nodes of its placed tasks at the session's start, moved by
   * the allocate action when it places the job in a HyperNode. NULL when it has none. */
  cal_hypernode *(*job_allocated_hypernode)(const cal_job *j);

  /* --- added in 1.1: node state as tables -------------------------------------------- */
  /* One resource vector of every node at once, for plugins that filter or score many
   * nodes in a loop: node_count rows of resource_count values, row node_index(n) for node
   * n. Read-only, owned by the host, valid until the session ends; the host keeps it
   * current as the session changes nodes, so a row read in a callback is the node's state
   * at that moment (the same values node_idle etc. return). NULL for an unknown field. */
  const double *(*node_table)(const cal_session *s, cal_node_field field);

  /* --- added in 1.2: state kept across sessions --------------------------------------- */
  /* A plugin instance lives for one session, and sessions may each run in a process of
   * their own: a static or global variable of a plugin does NOT carry over from one
   * session to the next. What a plugin must remember across sessions (a history of the
   * workload, the time of its last eviction round) it saves here, as bytes, and reads back
   * in the next session.
   *
   *   - The state is opaque bytes, at most CAL_STATE_MAX of them. The host never looks
   *     inside. Save plain values (numbers, strings, counts): never pointers or handles,
   *     which mean nothing in the next session (or process).
   *   - Both functions may be called only from the plugin's own open() and close() (the
   *     host knows whose state it is from the call it is making): called from any other
   *     callback, state_get returns NULL and state_put returns -1 and stores nothing.
   *   - state_get returns the bytes the plugin saved in an earlier session (the last
   *     session that saved), and writes their count to *size (0, with NULL, when there is
   *     none). The bytes are owned by the host, read-only, and valid until the plugin's
   *     close() returns. Saving in this session does not change what state_get returns.
   *   - state_put saves `size` bytes (copied before it returns) for the next session; the
   *     last state_put before the plugin's close() returns wins. size 0 saves "no state".
   *     A session that does not call state_put leaves the saved state as it was. It returns
   *     0, or -1 when nothing was saved: size above CAL_STATE_MAX, bytes NULL with size
   *     above 0, or a call outside open() and close() (the host logs why).
   *   - A plugin whose open() fails loses what it saved in that open(); its earlier state
   *     stays for the next session.
   *   - The state is kept by the host per plugin name and per plugin file: it only ever
   *     comes back to the same name loaded from the same file with the same bytes, so it
   *     needs no format version. It is dropped when the file changes (a reload loading
   *     other bytes), when a policy without the plugin runs a session (the plugin left the
   *     config), and when the scheduler stops (it is kept in memory, not on disk). A
   *     reload that keeps the plugin's file and name keeps its state, whatever else
   *     changed (its arguments included: read the state accordingly).
   *   - A session's saves are kept only with its results: a session that fails, or whose
   *     decisions the host drops, leaves every state as it was before that session.
   *   - The state is the scheduler process's own: it is not shared between replicas, and
   *     a reload trial (canary) session reads none and keeps nothing. */
  const void *(*state_get)(const cal_session *s, size_t *size);
  int (*state_put)(cal_session *s, const void *bytes, size_t size);

  /* ===== added in 1.3 (starts at CAL_HOST_API_V1_2_SIZE) ============================== */

  /* --- added in 1.3: pods as Kubernetes sees them, and their constraints -------------- */
  /* A task's pod (never NULL), and a pod's task (NULL for a pod no job owns: one another
   * scheduler placed, or whose PodGroup is not in the session). */
  cal_pod *(*task_pod)(const cal_task *t);
  cal_task *(*pod_task)(const cal_pod *p);
  /* The pods of Kubernetes' view of the node, the view node_pod_requests sums: every task
   * on the node (running, pipelined, releasing) except those evicted in this session, and
   * every pod no job owns. Kept current as the session allocates, pipelines, evicts and
   * undoes (so it changes between callbacks, never during node-parallel ones); in the
   * order pods joined the view, a pod that leaves it replaced by the last one (as
   * Kubernetes' NodeInfo.RemovePod does). */
  size_t (*node_pod_count)(const cal_node *n);
  cal_pod *(*node_pod_at)(const cal_node *n, size_t i);
  const char *(*pod_name)(const cal_pod *p);      /* "namespace/name" */
  const char *(*pod_namespace)(const cal_pod *p);
  const char *(*pod_label)(const cal_pod *p, const char *key); /* NULL if absent */
  size_t (*pod_label_count)(const cal_pod *p);
  const char *(*pod_label_key)(const cal_pod *p, size_t i);   /* in key order */
  const char *(*pod_label_value)(const cal_pod *p, size_t i);
  /* The pod's scheduling constraints; NULL when it carries none (see cal_pod_constraints). */
  const cal_pod_constraints *(*pod_constraints)(const cal_pod *p);
  /* 1 when the pod is being deleted (metadata.deletionTimestamp set; its task, if any, was
   * Releasing when the session opened): Kubernetes' topology spread does not count it. */
  int (*pod_terminating)(const cal_pod *p);
  /* The images the node holds (NodeStatus.images), in the order the node lists them.
   * node_image_at fills *out (the caller sets out->struct_size) and returns 1, or 0 when i
   * is out of range. */
  size_t (*node_image_count)(const cal_node *n);
  int (*node_image_at)(const cal_node *n, size_t i, cal_image *out);

  /* ===== added in 1.4 (starts at CAL_HOST_API_V1_3_SIZE) ============================== */

  /* --- added in 1.4: storage ----------------------------------------------------------- */
  /* Look-ups by name; NULL when the cluster has no such object. */
  const cal_storage_class *(*storage_class_get)(const cal_session *s, const char *name);
  const cal_persistent_volume *(*volume_get)(const cal_session *s, const char *name);
  const cal_persistent_volume_claim *(*claim_get)(const cal_session *s, const char *ns,
                                                  const char *name);
  /* Every PersistentVolume, in name order. */
  size_t (*volume_count)(const cal_session *s);
  const cal_persistent_volume *(*volume_at)(const cal_session *s, size_t i);
  /* The claim this session chose the volume for (task_assume_volume), NULL when none: the
   * volume's claimRef from now on, whatever the struct says. */
  const cal_persistent_volume_claim *(*volume_assumed_claim)(const cal_session *s,
                                                             const cal_persistent_volume *pv);
  /* The node the claim's volume is to be provisioned on: chosen in this session
   * (task_assume_volume with pv NULL), else the stored annotation; NULL when none. */
  const char *(*claim_selected_node)(const cal_session *s, const cal_persistent_volume_claim *c);
  /* Records a volume decision for t's placement (Kubernetes VolumeBinding's Reserve): pv
   * non-NULL binds claim c to pv; pv NULL asks for c to be provisioned on t's node. Call it
   * from on_allocate, for a task on a node; the host writes the decisions with the bind
   * (the PV's claimRef, the claim's selected-node annotation) and drops them, with what
   * volume_assumed_claim and claim_selected_node say, when the placement is undone.
   * Returns 1, or 0 (nothing recorded) when t is on no node or pv is taken by another
   * claim. */
  int (*task_assume_volume)(cal_task *t, const cal_persistent_volume_claim *c,
                            const cal_persistent_volume *pv);

  /* ===== added in 1.5 (starts at CAL_HOST_API_V1_4_SIZE) ============================== */

  /* --- added in 1.5: queue node groups, scheduling times, budgets, quotas ------------ */
  /* A queue's annotation; NULL if absent. */
  const char *(*queue_annotation)(const cal_queue *q, const char *key);
  /* The queue's spec.affinity; NULL when the queue sets none (an affinity with empty lists
   * is not NULL: Volcano tells the two apart when queues inherit affinities). */
  const cal_queue_affinity *(*queue_affinity)(const cal_queue *q);
  /* When the task's pod was scheduled: its PodScheduled condition's lastTransitionTime, on
   * the session clock (convention (1)). Returns 1 and writes *at, or 0 (and leaves *at)
   * when the pod has no true PodScheduled condition. */
  int (*task_scheduled_time)(const cal_task *t, double *at);
  /* Every PodDisruptionBudget, by namespace then name. */
  size_t (*disruption_budget_count)(const cal_session *s);
  const cal_disruption_budget *(*disruption_budget_at)(const cal_session *s, size_t i);
  /* Every ResourceQuota, by namespace then name. */
  size_t (*resource_quota_count)(const cal_session *s);
  const cal_resource_quota *(*resource_quota_at)(const cal_session *s, size_t i);

  /* --- added in 1.5: the PodGroup's Unschedulable condition, as Volcano's gang writes it - */
  /* Volcano's JobInfo.FitError() for the job as it is now: "pod group is not ready, 2
   * Pending, 3 minAvailable; Pending: 2 Unschedulable. Origin reason is t-0: 0/4 nodes are
   * unavailable: 4 Insufficient cpu." Valid until the session ends (or the next call for the
   * same job). Call from the scheduling thread. */
  const char *(*job_fit_error)(const cal_job *j);
  /* The job's ready tasks (job_ready_num) plus its pending tasks whose last placement in
   * this session was an allocation that was then undone: the tasks Volcano's gang counts as
   * schedulable when it explains a job that is not ready. */
  int32_t (*job_schedulable_num)(const cal_job *j);
  /* Sets the message of the PodGroup's Unschedulable condition (reason NotEnoughResources)
   * that the backend writes at close, as Volcano's gang does with UpdatePodGroupCondition;
   * the last call of a session wins. It is also the job's pending reason for `plugin`, as
   * job_set_pending_reason would record it. The host copies the text. */
  void (*job_set_unschedulable_condition)(cal_job *j, const char *plugin, const char *message);

  /* --- added in 1.5: a PodGroup's minResources as written -------------------------- */
  /* The amount of `name` in the PodGroup's minResources as the object writes it, any name
   * (quota names such as count/pods and requests.cpu too, which job_min_resources leaves
   * out as Volcano's NewResource does): in the units of the resource it counts (cpu and
   * requests.cpu in millicores, memory in bytes, counts as counts, other resources in
   * milli-units), as cal_resource_quota's amounts. Returns 1 and writes *amount, or 0 when
   * the PodGroup does not name it (a name written with 0 returns 1). */
  int (*job_min_resource)(const cal_job *j, const char *name, double *amount);

  /* ===== added in 1.6 (starts at CAL_HOST_API_V1_5_SIZE) ============================== */

  /* --- added in 1.6: a queue's fair share as a plugin works it out --------------------- */
  /* Publishes what `plugin` worked out for the queue in this session: its deserved
   * resources (resource_count amounts by resource id, in convention (1)'s units; NULL when
   * the plugin has none; the host copies them) and its share (what the queue holds over
   * what it deserves, the number the plugin's queue_order compares; negative when the
   * plugin has none). The host reports them where volcano-scheduler's proportion and
   * capacity plugins do (the metrics volcano_queue_deserved_* and volcano_queue_share) and
   * in the results of a run (each queue's deserved share over time). Nothing is decided
   * from them. The last call of a session wins: call it when the figures are final (from
   * close(), or after each change). Call from the scheduling thread. */
  void (*queue_set_fair_share)(cal_queue *q, const char *plugin, const double *deserved,
                               double share);

  /* ===== added in 1.8 (starts at CAL_HOST_API_V1_6_SIZE; 1.7 added none) ============== */

  /* --- added in 1.8: sub-jobs (Volcano's SubJobInfo) ----------------------------------
   * A PodGroup's spec.subGroupPolicy splits its pods into sub-jobs: each policy takes the
   * pods its labelSelector selects that carry every one of its matchLabelKeys labels, one
   * sub-job per distinct tuple of those labels' values; a pod no policy takes is in the
   * job's default sub-job. Each sub-job is a gang of its own (min_available pods, Volcano's
   * subGroupSize, default 1), may have its own network topology, and at least
   * minSubGroups sub-jobs of each policy must be ready for the job to be. A job without a
   * policy has one sub-job, the default, holding every task, with the job's minMember and
   * network topology. Handles live for the session. */
  size_t (*job_sub_job_count)(const cal_job *j);  /* 0 only for a job without tasks */
  /* By uid (the default sub-job's uid is the job's name). */
  cal_sub_job *(*job_sub_job_at)(const cal_job *j, size_t i);
  cal_sub_job *(*task_sub_job)(const cal_task *t); /* never NULL */
  cal_job *(*sub_job_job)(const cal_sub_job *s);
  /* Volcano's SubJobID: "<job>/<policy>-<label values joined by '-'>", the job's name for
   * the default sub-job. */
  const char *(*sub_job_uid)(const cal_sub_job *s);
  /* Volcano's SubJobGID, shared by the sub-jobs of one policy: "<job>/<policy>", the
   * job's name for the default sub-job. */
  const char *(*sub_job_group)(const cal_sub_job *s);
  int32_t (*sub_job_min_available)(const cal_sub_job *s);
  /* The highest priority of its tasks (0 when every one is lower). */
  int32_t (*sub_job_priority)(const cal_sub_job *s);
  /* The first of its label values as an integer (0 when it is not one): Volcano's
   * MatchIndex, the fallback order of sub-jobs with it and the uid. */
  int32_t (*sub_job_match_index)(const cal_sub_job *s);
  size_t (*sub_job_task_count)(const cal_sub_job *s);
  cal_task *(*sub_job_task_at)(const cal_sub_job *s, size_t i); /* in the job's task order */
  int32_t (*sub_job_status_count)(const cal_sub_job *s, cal_task_status st);
  /* The sub-job's network topology as the session uses it: soft ones are read as hard
   * ones whose highest tier is the job's (or the whole cluster's), as Volcano's session
   * does; CAL_TOPOLOGY_NONE when it has none. */
  cal_topology_mode (*sub_job_network_topology)(const cal_sub_job *s, int32_t *highest_tier_allowed);
  /* The HyperNode its placed tasks are in (Volcano's SubJob.AllocatedHyperNode); NULL
   * when none. */
  cal_hypernode *(*sub_job_allocated_hypernode)(const cal_sub_job *s);
  /* The job's subGroupPolicy entries (0: none): entry i's group (as sub_job_group) and
   * its minSubGroups (0 when not set). */
  size_t (*job_sub_group_count)(const cal_job *j);
  const char *(*job_sub_group_at)(const cal_job *j, size_t i, int32_t *min_sub_groups);
  /* Where the allocate action had placed the task's sub-job when it chose the task's node
   * (Volcano's TaskInfo.JobAllocatedHyperNode), for node scoring; NULL when it was placed
   * nowhere yet or has no network topology. */
  cal_hypernode *(*task_allocated_hypernode)(const cal_task *t);

  /* A new function goes here, in a group headed "added in 1.N", never anywhere else. */
} cal_host_api;

/* The bytes of cal_host_api each minor defines (fixed forever; the 1.1 group starts at
 * CAL_HOST_API_V1_0_SIZE, the 1.2 group at CAL_HOST_API_V1_1_SIZE, the 1.3 group at
 * CAL_HOST_API_V1_2_SIZE, the 1.4 group at CAL_HOST_API_V1_3_SIZE, the 1.5 group at
 * CAL_HOST_API_V1_4_SIZE, the 1.6 group at CAL_HOST_API_V1_5_SIZE). */
#define CAL_HOST_API_V1_0_SIZE (offsetof(cal_host_api, node_index))
#define CAL_HOST_API_V1_1_SIZE                                                              \
  (offsetof(cal_host_api, node_table) + sizeof(((cal_host_api *)0)->node_table))
#define CAL_HOST_API_V1_2_SIZE                                                              \
  (offsetof(cal_host_api, state_put) + sizeof(((cal_host_api *)0)->state_put))
#define CAL_HOST_API_V1_3_SIZE                                                              \
  (offsetof(cal_host_api, node_image_at) + sizeof(((cal_host_api *)0)->node_image_at))
#define CAL_HOST_API_V1_4_SIZE                                                              \
  (offsetof(cal_host_api, task_assume_volume) + sizeof(((cal_host_api *)0)->task_assume_volume))
#define CAL_HOST_API_V1_5_SIZE                                                              \
  (offsetof(cal_host_api, job_min_resource) + sizeof(((cal_host_api *)0)->job_min_resource))
#define CAL_HOST_API_V1_6_SIZE                                                              \
  (offsetof(cal_host_api, queue_set_fair_share) +                                           \
   sizeof(((cal_host_api *)0)->queue_set_fair_share))
#define CAL_HOST_API_V1_8_SIZE                                                              \
  (offsetof(cal_host_api, task_allocated_hypernode) +                                       \
   sizeof(((cal_host_api *)0)->task_allocated_hypernode))

/* The largest state a plugin may save (state_put), in bytes. */
#define CAL_STATE_MAX ((size_t)16 * 1024 * 1024)

/* True when the host's table is recent enough to hold `fn`. */
#define CAL_HOST_HAS(host, fn)                                                              \
  ((host)->struct_size >= offsetof(cal_host_api, fn) + sizeof((host)->fn) && (host)->fn)

/* ---------------------------------------------------------------------------------------
 * Extension points.
 *
 * Every slot is nullable: NULL means the plugin does not take part in that point. `self` is
 * what the plugin's open() returned. The host calls slots of the plugins of tier 1 in their
 * configured order, then tier 2, and so on, skipping a plugin whose `enable` list leaves
 * the point out or whose `disable` list names it. The COMBINE line of each slot is the rule
 * by which the host turns the answers of all plugins into one decision; it is Volcano's.
 * ------------------------------------------------------------------------------------- */

/* Orders: negative when l goes first, positive when r goes first, 0 when the plugin has no
 * opinion.
 * COMBINE (job_order, queue_order, task_order): the first non-zero answer, in tier and
 * plugin order, decides. When every plugin answers 0: jobs by creation time then name,
 * queues by name, tasks by the number after the last '-' in the pod name, then creation
 * time, then name. */
typedef int (*cal_job_order_fn)(void *self, const cal_job *l, const cal_job *r);
typedef int (*cal_queue_order_fn)(void *self, const cal_queue *l, const cal_queue *r);
typedef int (*cal_task_order_fn)(void *self, const cal_task *l, const cal_task *r);

/* COMBINE (pre_predicate, predicate): every plugin must return CAL_SUCCESS (or CAL_SKIP);
 * the first other code stops the chain and is the result, with its reason. pre_predicate
 * runs once per task before any node is tried; a failure there fails every node. */
typedef cal_code (*cal_pre_predicate_fn)(void *self, const cal_task *t, cal_status *st);
typedef cal_code (*cal_predicate_fn)(void *self, const cal_task *t, const cal_node *n,
                                     cal_status *st);

/* The many-node form of predicate (added in 1.1): the answers for n nodes in one call, the
 * same answers predicate would give node by node. codes[i] receives nodes[i]'s code; for a
 * code other than CAL_SUCCESS / CAL_SKIP, reasons[i] receives the reason text (NULL for
 * none), which the plugin owns and keeps valid until its close(): a string literal, or a
 * string kept in the plugin's session state. The arrays are the host's.
 * The host calls it instead of predicate when the plugin sets it, for runs of nodes of one
 * task; it may split a task's nodes into several calls, and (with CAL_CAP_NODE_PARALLEL)
 * make them on several threads at once. One call per run instead of one per node is what
 * lets a search over thousands of nodes cost little more than its arithmetic. */
typedef void (*cal_predicate_many_fn)(void *self, const cal_task *t,
                                      const cal_node *const *nodes, size_t n, cal_code *codes,
                                      const char **reasons);

/* Scores: higher is better.
 * COMBINE (node_order, batch_node_order): the scores of every plugin are summed.
 * node_order writes one node's score to *score. batch_node_order receives n nodes at once
 * and ADDS each node's score to scores[i] (the array is the host's; do not keep it). A
 * plugin implements whichever suits it; the config's point name `node_order` covers both.
 * Returning anything but CAL_SUCCESS is logged and counts as a score of 0. */
typedef cal_code (*cal_node_order_fn)(void *self, const cal_task *t, const cal_node *n,
                                      double *score, cal_status *st);
typedef cal_code (*cal_batch_node_order_fn)(void *self, const cal_task *t,
                                            const cal_node *const *nodes, size_t n,
                                            double *scores, cal_status *st);

/* The many-node form of node_order (added in 1.1): WRITES scores[i], the score node_order
 * would give nodes[i], for n nodes in one call. Unlike batch_node_order, whose scores may
 * depend on the whole set (normalised over it), each score depends on its own node only,
 * so the host may split a task's nodes into several calls, on several threads at once
 * with CAL_CAP_NODE_PARALLEL. The host calls it instead of node_order when the plugin
 * sets it. Returning anything but CAL_SUCCESS is logged and counts as 0 for those nodes. */
typedef cal_code (*cal_node_order_many_fn)(void *self, const cal_task *t,
                                           const cal_node *const *nodes, size_t n,
                                           double *scores, cal_status *st);

/* Chooses among scored nodes: returns an index into nodes, or -1 for no opinion (any other
 * value is a fault, see (8)).
 * COMBINE (best_node): the first plugin that returns an index decides; otherwise the host
 * takes the highest score, and among equal scores the node that comes first by name. */
typedef int64_t (*cal_best_node_fn)(void *self, const cal_task *t, const cal_node *const *nodes,
                                    const double *scores, size_t n);

/* Victim selection. The host passes candidate tasks; the plugin sets victims[i] = 1 for each
 * candidate it allows to be evicted (the array arrives zeroed) and returns CAL_PERMIT, or
 * returns CAL_ABSTAIN to take no part for this call (only CAL_ABSTAIN does: the marks of a
 * CAL_REJECT are read as those of a CAL_PERMIT, as Volcano reads the victims whatever the
 * vote; reject by marking none). The reclaim action passes its
 * candidates in Volcano's victim order (BuildVictimsPriorityQueue: same job, the reverse of
 * task order; different queues, the reverse of queue order; same queue, the reverse of job
 * order), the order Volcano's capacity plugin walks them in.
 * COMBINE (preemptable, reclaimable): inside a tier, the victim sets of the plugins that did
 * not abstain are intersected; a plugin that allows none ends the tier with no victims. The
 * first tier left with victims decides; when none is, no victims. An intersection that
 * comes out empty counts as no set taken yet, as Volcano's nil slice does: the next
 * plugin's set (in the same tier or the next) starts afresh. */
typedef cal_vote (*cal_victims_fn)(void *self, const cal_task *preemptor,
                                   const cal_task *const *candidates, size_t n,
                                   uint8_t *victims);

/* COMBINE (victim_tasks, used by the shuffle action): the union of the tasks marked by the
 * plugins of a tier; the first tier that marks any decides. */
typedef void (*cal_victim_tasks_fn)(void *self, const cal_task *const *tasks, size_t n,
                                    uint8_t *victims);

/* ---- added in 1.7: victims of the gang-aware evicting actions ------------------------
 * Who is evicting, for unified_evictable (Volcano's api.EvictionContext). */
typedef enum cal_eviction_kind {
  CAL_EVICTION_UNKNOWN = 0,
  CAL_EVICTION_GANG_PREEMPT = 1, /* gangpreempt: a starving job, victims of its own queue */
  CAL_EVICTION_GANG_RECLAIM = 2, /* gangreclaim: a starving job, victims of other queues */
  CAL_EVICTION_TASK_PREEMPT = 3, /* task-level preemption (no host action passes it yet) */
  CAL_EVICTION_TASK_RECLAIM = 4  /* task-level reclaim (no host action passes it yet) */
} cal_eviction_kind;

/* The evicting side of a unified_evictable call. The host fills it and sets struct_size;
 * the plugin reads only the fields struct_size covers. Valid for the call only. */
typedef struct cal_eviction_context {
  uint32_t struct_size;
  uint32_t kind;                      /* a cal_eviction_kind */
  const cal_job *job;                 /* the job the victims would make room for */
  const cal_task *task;               /* the task-level kinds only; NULL for the gang kinds */
  const char *hypernode;              /* the domain the candidates are in: a HyperNode's
                                         name, or "<cluster-top-hypernode>" for every node */
  const cal_hypernode *hypernode_handle; /* that HyperNode; NULL for every node */
} cal_eviction_context;

/* Victim selection for the gang-aware evicting actions (added in 1.7; Volcano's
 * UnifiedEvictableFn). The host passes every candidate task of one domain at once, in the
 * order it would evict them (victim bundles: what jobs can spare above their gang minimum
 * first, then whole jobs; see actions/gang_bundles.hpp), with ctx saying who evicts and
 * where. The plugin sets victims[i] = 1 for each candidate it allows to be evicted (the
 * array arrives zeroed) and returns CAL_PERMIT, or CAL_ABSTAIN to take no part in this
 * call (as for preemptable, a CAL_REJECT's marks are read like a CAL_PERMIT's). Branch on
 * ctx->kind: a plugin with no opinion for a kind abstains or allows all. A plugin that
 * keeps a running sum while it walks the candidates (a queue's allocation lowered by each
 * victim) walks them in the order given.
 * COMBINE (unified_evictable): Volcano's rule for preemptable and reclaimable: inside a
 * tier, the victim sets of the plugins that did not abstain are intersected; a plugin that
 * allows none ends the tier with no victims; the first tier left with victims decides;
 * when none is, no victims (the action evicts nothing); an intersection that comes out
 * empty counts as no set taken yet (Volcano's nil slice), so the next plugin's set starts
 * afresh. Unlike preemptable and reclaimable it has no config point name and no enable
 * list: every plugin that sets the slot takes part, as every plugin that registers a
 * UnifiedEvictableFn does in Volcano. */
typedef cal_vote (*cal_unified_evictable_fn)(void *self, const cal_eviction_context *ctx,
                                             const cal_task *const *candidates, size_t n,
                                             uint8_t *victims);

/* Queue checks.
 * COMBINE (overused): the queue is overused when any plugin says 1.
 * COMBINE (allocatable, preemptive): allowed only when every plugin says 1. */
typedef int (*cal_queue_check_fn)(void *self, const cal_queue *q);
typedef int (*cal_queue_task_check_fn)(void *self, const cal_queue *q, const cal_task *t);

/* The many-task form of preemptive (added in 1.7; Volcano's PreemptiveFn takes a list):
 * may queue q reclaim for all n tasks together (their requests summed)? gangreclaim asks it
 * once for every pending task of a job; reclaim asks preemptive for one task at a time.
 * COMBINE (preemptive_many, with preemptive, config point `preemptive`): allowed only when
 * every plugin says 1. A plugin that sets preemptive but not preemptive_many is asked
 * preemptive for each of the n tasks, and must allow each. */
typedef int (*cal_queue_tasks_check_fn)(void *self, const cal_queue *q,
                                        const cal_task *const *tasks, size_t n);

/* Job checks.
 * COMBINE (job_ready): ready only when every plugin says 1.
 * COMBINE (job_starving): inside a tier, starving only when every plugin says 1; the first
 *   tier with any plugin decides; with no plugin at all, not starving.
 * COMBINE (job_pipelined, job_enqueueable): any CAL_REJECT decides no; otherwise the first
 *   tier with a CAL_PERMIT decides yes; when every plugin abstains, yes. */
typedef int (*cal_job_check_fn)(void *self, const cal_job *j);
typedef cal_vote (*cal_job_vote_fn)(void *self, const cal_job *j);

/* COMBINE (job_valid): runs for every plugin, always (no enable list applies); the first
 * code other than CAL_SUCCESS makes the job invalid for the session, with its reason. */
typedef cal_code (*cal_job_valid_fn)(void *self, const cal_job *j, cal_status *st);

/* HyperNode scores (added in 1.1), for a sub-job the allocate action could place in any of
 * several HyperNodes of one gradient: higher is better. The plugin ADDS each candidate's
 * score to scores[i] (the array is the host's; do not keep it); hypernodes[i] are the
 * candidates. Since 1.8 the host asks sub_job_hyper_node_order with the sub-job being
 * placed, and this form, with the sub-job's job, only of a plugin without that one.
 * COMBINE (hyper_node_order): the scores of every plugin are summed; the action places the
 * sub-job in the HyperNode with the highest total (among equal totals, the first tried),
 * and a job in the HyperNode whose sub-jobs' chosen totals add up highest (Volcano ed72c7c's
 * allocateForSubJob / allocateForJob). Returning anything but CAL_SUCCESS is logged and
 * counts as 0. */
typedef cal_code (*cal_hyper_node_order_fn)(void *self, const cal_job *j,
                                            const cal_hypernode *const *hypernodes, size_t n,
                                            double *scores, cal_status *st);

/* ---- added in 1.8: sub-jobs ------------------------------------------------------------
 * The allocate action places a job with a subGroupPolicy, or a network topology, sub-job by
 * sub-job (Volcano's allocateForJob / allocateForSubJob).
 * COMBINE (sub_job_order): as job_order; when every plugin answers 0, by match index, then
 *   uid (Volcano's SubJobOrderFn).
 * COMBINE (sub_job_ready, sub_job_pipelined): as job_ready and job_pipelined. For a job
 *   without a subGroupPolicy the host asks job_ready / job_pipelined instead, as Volcano
 *   does.
 * COMBINE (sub_job_hyper_node_order): as hyper_node_order, for the sub-job being placed
 *   (Volcano's HyperNodeOrderFn takes the sub-job); a plugin with only hyper_node_order is
 *   asked that with the sub-job's job. */
typedef int (*cal_sub_job_order_fn)(void *self, const cal_sub_job *l, const cal_sub_job *r);
typedef int (*cal_sub_job_check_fn)(void *self, const cal_sub_job *s);
typedef cal_vote (*cal_sub_job_vote_fn)(void *self, const cal_sub_job *s);
typedef cal_code (*cal_sub_job_hyper_node_order_fn)(void *self, const cal_sub_job *s,
                                                    const cal_hypernode *const *hypernodes,
                                                    size_t n, double *scores, cal_status *st);

/* Notifications (no combination: every plugin that has the slot is told).
 * job_enqueued: the enqueue action moved j to Inqueue.
 * on_allocate: t was just allocated or pipelined to a node in this session.
 * on_deallocate: an allocation of t was undone, or t was chosen as a victim (evicted).
 * These always run, like Volcano's event handlers. Keep derived state here. */
typedef void (*cal_job_event_fn)(void *self, const cal_job *j);
typedef void (*cal_task_event_fn)(void *self, const cal_task *t);

/* ---------------------------------------------------------------------------------------
 * The plugin descriptor, returned by the entry point.
 * ------------------------------------------------------------------------------------- */

/* Capability flags. */
#define CAL_CAP_NODE_PARALLEL (1u << 0) /* predicate / node_order / batch_node_order may run
                                           on several threads at once (read-only calls) */

typedef struct cal_plugin {
  /* ===== 1.0 ========================================================================== */
  uint32_t struct_size; /* sizeof(cal_plugin) as the plugin was built */
  uint32_t abi_version; /* CAL_ABI_VERSION as the plugin was built */
  const char *name;     /* the name the config uses: "binpack" */
  const char *version;  /* the plugin's own version: "1.2.0" */
  const char *description;
  const cal_option *options; /* option table; may be NULL when option_count is 0 */
  size_t option_count;
  uint64_t capabilities; /* CAL_CAP_* */

  /* Lifecycle; both must be set (the host refuses a descriptor without them). open() is
   * called at the start of every session that uses the plugin and returns the instance
   * state handed to every slot as `self` (NULL is a valid state). On failure it returns
   * NULL and writes a reason into st with a code in *code; the session
   * then runs without this plugin and the host logs why. close() is called once per
   * successful open(), at the end of the session, and frees what open() allocated. The
   * session is still readable inside close() (Volcano's OnSessionClose): a plugin may
   * record job_set_pending_reason there. A job given a pending reason in a session is
   * "unschedulable" for that session, which makes a job with running tasks that is not
   * ready Unknown at close, as Volcano's PodGroupUnschedulable condition does. */
  void *(*open)(cal_session *s, const cal_args *args, cal_code *code, cal_status *st);
  void (*close)(void *self);

  /* Extension slots; NULL where the plugin takes no part. Rules above each typedef. */
  cal_job_order_fn job_order;
  cal_queue_order_fn queue_order;
  cal_task_order_fn task_order;
  cal_pre_predicate_fn pre_predicate;
  cal_predicate_fn predicate;
  cal_node_order_fn node_order;
  cal_batch_node_order_fn batch_node_order;
  cal_best_node_fn best_node;
  cal_victims_fn preemptable;
  cal_victims_fn reclaimable;
  cal_victim_tasks_fn victim_tasks;
  cal_queue_check_fn overused;
  cal_queue_task_check_fn allocatable;
  cal_queue_task_check_fn preemptive;
  cal_job_check_fn job_ready;
  cal_job_vote_fn job_pipelined;
  cal_job_vote_fn job_enqueueable;
  cal_job_check_fn job_starving;
  cal_job_valid_fn job_valid;
  cal_job_event_fn job_enqueued;
  cal_task_event_fn on_allocate;
  cal_task_event_fn on_deallocate;
  /* Checks the arguments beyond their declared types (ranges, lists, formats) when a config
   * is loaded, before any session uses it: return CAL_SUCCESS, or CAL_ERROR with a reason
   * naming the argument ("overcommit-factor must be >= 1"). The host refuses the config
   * and reports the reason with the config file, line and plugin. NULL: types only. */
  cal_code (*check_args)(const cal_args *args, cal_status *st);

  /* ===== added in 1.1 (starts at CAL_PLUGIN_V1_0_SIZE) ================================
   * Slots added after 1.0 are taken from the front of reserved[], so the descriptor keeps
   * its size. The host reads one only when the plugin's minor defines it and struct_size
   * covers it (CAL_PLUGIN_HAS below): a plugin stamped 1.0 has these ignored. */
  cal_hyper_node_order_fn hyper_node_order;
  cal_predicate_many_fn predicate_many;
  cal_node_order_many_fn node_order_many;

  /* ===== added in 1.7 (starts at CAL_PLUGIN_V1_1_SIZE; 1.2 to 1.6 added no slot) ======= */
  cal_unified_evictable_fn unified_evictable;
  cal_queue_tasks_check_fn preemptive_many;

  /* ===== added in 1.8 (starts at CAL_PLUGIN_V1_7_SIZE) ================================== */
  cal_sub_job_order_fn sub_job_order;
  cal_sub_job_check_fn sub_job_ready;
  cal_sub_job_vote_fn sub_job_pipelined;
  cal_sub_job_hyper_node_order_fn sub_job_hyper_node_order;

  /* Reserved for slots of later minor versions: a new slot takes reserved[0] (and the
   * array shrinks by one) in a group headed "added in 1.N". Zero them: the host refuses a
   * descriptor with a non-zero reserved word inside its struct_size. */
  void *reserved[7];
} cal_plugin;

/* The bytes of cal_plugin each minor defines (fixed forever). CAL_PLUGIN_V1_0_SIZE is also
 * the smallest descriptor a 1.x host accepts. sizeof(cal_plugin) is the same at every
 * minor of major 1 (the reserved room). */
#define CAL_PLUGIN_V1_0_SIZE (offsetof(cal_plugin, hyper_node_order))
#define CAL_PLUGIN_V1_1_SIZE                                                                \
  (offsetof(cal_plugin, node_order_many) + sizeof(((cal_plugin *)0)->node_order_many))
#define CAL_PLUGIN_V1_7_SIZE                                                                \
  (offsetof(cal_plugin, preemptive_many) + sizeof(((cal_plugin *)0)->preemptive_many))
#define CAL_PLUGIN_V1_8_SIZE                                                                \
  (offsetof(cal_plugin, sub_job_hyper_node_order) +                                         \
   sizeof(((cal_plugin *)0)->sub_job_hyper_node_order))

/* The bytes of cal_plugin that minor m (of major 1) defines; a minor newer than this
 * header reads as the newest it knows. */
#define CAL_PLUGIN_SIZE_OF_MINOR(m)                                                         \
  ((m) == 0 ? (size_t)CAL_PLUGIN_V1_0_SIZE                                                  \
            : (m) < 7 ? (size_t)CAL_PLUGIN_V1_1_SIZE                                        \
            : (m) < 8 ? (size_t)CAL_PLUGIN_V1_7_SIZE : (size_t)CAL_PLUGIN_V1_8_SIZE)

/* The bytes of a descriptor its reader may use: what both its struct_size and the minor it
 * is stamped with cover. */
#define CAL_PLUGIN_COVERED(plugin)                                                          \
  ((size_t)(plugin)->struct_size <                                                          \
           CAL_PLUGIN_SIZE_OF_MINOR(CAL_ABI_MINOR_OF((plugin)->abi_version))                \
       ? (size_t)(plugin)->struct_size                                                      \
       : CAL_PLUGIN_SIZE_OF_MINOR(CAL_ABI_MINOR_OF((plugin)->abi_version)))

/* True when the descriptor's minor and struct size both cover `slot`, and it sets it. */
#define CAL_PLUGIN_HAS(plugin, slot)                                                        \
  (CAL_PLUGIN_COVERED(plugin) >= offsetof(cal_plugin, slot) + sizeof((plugin)->slot) &&     \
   (plugin)->slot)

/* The entry point's type. It may be called more than once (each load of a copy of the
 * file); it returns the same descriptor each time, or NULL to refuse to load. */
typedef const cal_plugin *(*cal_entry_fn)(const cal_host_api *host, uint32_t host_abi);

#if defined(__GNUC__)
#define CAL_EXPORT __attribute__((visibility("default")))
#else
#define CAL_EXPORT
#endif

/* Declares the entry point: CALDERA_PLUGIN_ENTRY(host, abi) { ...; return &desc; } */
#ifdef __cplusplus
#define CALDERA_PLUGIN_ENTRY(host, abi)                                                     \
  extern "C" CAL_EXPORT const cal_plugin *caldera_plugin_entry(const cal_host_api *host,    \
                                                               uint32_t abi)
#else
#define CALDERA_PLUGIN_ENTRY(host, abi)                                                     \
  CAL_EXPORT const cal_plugin *caldera_plugin_entry(const cal_host_api *host, uint32_t abi)
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CALDERA_PLUGIN_H */
