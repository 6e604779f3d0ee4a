// The host table (cal_host_api): the only way a plugin reads the session. Each function
// is a thin read of the session objects; the contracts are written in caldera/plugin.h.
#include "host/session/host_api.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <string_view>

#include <cstring>

#include "host/config/args.hpp"
#include "host/session/session.hpp"

namespace caldera {
namespace {

const Args* A(const cal_args* a) { return reinterpret_cast<const Args*>(a); }
const Session* S(const cal_session* s) { return from_handle(s); }
const JobInfo* J(const cal_job* j) { return from_handle(j); }
const TaskInfo* T(const cal_task* t) { return from_handle(t); }
const NodeInfo* N(const cal_node* n) { return from_handle(n); }
const QueueInfo* Q(const cal_queue* q) { return from_handle(q); }

const char* find_in(const StringMap& m, const char* key) {
  if (!key) return nullptr;
  auto it = m.find(key);
  return it == m.end() ? nullptr : it->second.c_str();
}

// ---- logging and status -----------------------------------------------------------------
// The budget of the session running in this process (plugins may log from node threads).
std::atomic<size_t> g_log_lines{0};
std::atomic<size_t> g_log_dropped{0};

void h_log(cal_log_level level, const char* plugin, const char* message) {
  const std::string_view p = plugin ? std::string_view(plugin, ::strnlen(plugin, 64)) : "?";
  const char* m = message ? message : "";
  const size_t n = g_log_lines.fetch_add(1, std::memory_order_relaxed);
  if (n >= kPluginLogLines) {
    if (n == kPluginLogLines)
      spdlog::warn("[{}] plugin log limit: {} lines this session; further plugin lines are "
                   "dropped until the next session",
                   p, kPluginLogLines);
    g_log_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const size_t len = ::strnlen(m, kPluginLogBytes + 1);
  const std::string_view text(m, std::min(len, kPluginLogBytes));
  const char* cut = len > kPluginLogBytes ? " [cut]" : "";
  switch (level) {
    case CAL_LOG_DEBUG: spdlog::debug("[{}] {}{}", p, text, cut); break;
    case CAL_LOG_INFO: spdlog::info("[{}] {}{}", p, text, cut); break;
    case CAL_LOG_WARN: spdlog::warn("[{}] {}{}", p, text, cut); break;
    default: spdlog::error("[{}] {}{}", p, text, cut); break;
  }
}
void h_status_set(cal_status* st, const char* reason) {
  if (!st) return;
  const char* r = reason ? reason : "";
  std::strncpy(st->reason, r, CAL_REASON_MAX - 1);
  st->reason[CAL_REASON_MAX - 1] = '\0';
}

// ---- arguments --------------------------------------------------------------------------
int h_arg_is_set(const cal_args* a, const char* n) { return a && n && A(a)->is_set(n); }
int h_arg_bool(const cal_args* a, const char* n) { return a && n && A(a)->get_bool(n); }
int64_t h_arg_int(const cal_args* a, const char* n) { return a && n ? A(a)->get_int(n) : 0; }
double h_arg_double(const cal_args* a, const char* n) { return a && n ? A(a)->get_double(n) : 0; }
const char* h_arg_string(const cal_args* a, const char* n) {
  if (!a || !n) return nullptr;
  const Args::Entry* e = A(a)->find(n);
  if (!e) return nullptr;
  if (auto* s = std::get_if<std::string>(&e->value)) return s->c_str();
  return nullptr;
}
size_t h_arg_count(const cal_args* a) { return a ? A(a)->values().size() : 0; }
const char* h_arg_name(const cal_args* a, size_t i) {
  if (!a || i >= A(a)->values().size()) return nullptr;
  auto it = A(a)->values().begin();
  std::advance(it, static_cast<std::ptrdiff_t>(i));
  return it->first.c_str();
}

// ---- session ----------------------------------------------------------------------------
size_t h_resource_count(const cal_session* s) { return S(s)->resource_count(); }
const char* h_resource_name(const cal_session* s, size_t id) {
  const auto& names = S(s)->resource_names();
  return id < names.size() ? names[id].c_str() : nullptr;
}
int32_t h_resource_id(const cal_session* s, const char* name) {
  return name ? S(s)->resource_id(name) : -1;
}
const double* h_cluster_total(const cal_session* s) { return S(s)->cluster_total().data(); }
double h_now(const cal_session* s) { return S(s)->now(); }
size_t h_job_count(const cal_session* s) { return S(s)->jobs().size(); }
cal_job* h_job_at(const cal_session* s, size_t i) {
  return i < S(s)->jobs().size() ? to_handle(S(s)->jobs()[i]) : nullptr;
}
size_t h_node_count(const cal_session* s) { return S(s)->nodes().size(); }
cal_node* h_node_at(const cal_session* s, size_t i) {
  return i < S(s)->nodes().size() ? to_handle(S(s)->nodes()[i]) : nullptr;
}
size_t h_queue_count(const cal_session* s) { return S(s)->queues().size(); }
cal_queue* h_queue_at(const cal_session* s, size_t i) {
  return i < S(s)->queues().size() ? to_handle(S(s)->queues()[i]) : nullptr;
}
cal_queue* h_queue_by_name(const cal_session* s, const char* name) {
  QueueInfo* q = name ? S(s)->queue(name) : nullptr;
  return q ? to_handle(q) : nullptr;
}
cal_node* h_node_by_name(const cal_session* s, const char* name) {
  NodeInfo* n = name ? S(s)->node(name) : nullptr;
  return n ? to_handle(n) : nullptr;
}

// ---- jobs -------------------------------------------------------------------------------
const char* h_job_name(const cal_job* j) { return J(j)->uid.c_str(); }
const char* h_job_namespace(const cal_job* j) { return J(j)->ns.c_str(); }
cal_queue* h_job_queue(const cal_job* j) { return to_handle(J(j)->queue); }
int32_t h_job_min_available(const cal_job* j) { return J(j)->min_available; }
int32_t h_job_priority(const cal_job* j) { return J(j)->priority; }
double h_job_created(const cal_job* j) { return J(j)->created; }
cal_job_phase h_job_phase(const cal_job* j) { return static_cast<cal_job_phase>(J(j)->phase); }
double h_job_phase_since(const cal_job* j) { return J(j)->phase_since; }
size_t h_job_task_count(const cal_job* j) { return J(j)->tasks.size(); }
cal_task* h_job_task_at(const cal_job* j, size_t i) {
  return i < J(j)->tasks.size() ? to_handle(J(j)->tasks[i]) : nullptr;
}
int32_t h_job_status_count(const cal_job* j, cal_task_status st) {
  return st >= 0 && st < CAL_TASK_STATUS_COUNT ? J(j)->count(st) : 0;
}
int32_t h_job_ready_num(const cal_job* j) { return J(j)->ready_num(); }
int32_t h_job_waiting_num(const cal_job* j) { return J(j)->waiting_num(); }
int32_t h_job_valid_num(const cal_job* j) { return J(j)->valid_num(); }
size_t h_job_role_count(const cal_job* j) { return J(j)->roles.size(); }
const char* h_job_role_name(const cal_job* j, size_t i) {
  return i < J(j)->roles.size() ? J(j)->roles[i].name.c_str() : nullptr;
}
int32_t h_job_role_min(const cal_job* j, size_t i) {
  return i < J(j)->roles.size() ? J(j)->roles[i].min : 0;
}
int32_t h_job_role_ready(const cal_job* j, size_t i) {
  return i < J(j)->roles.size() ? J(j)->role_ready(i) : 0;
}
int32_t h_job_role_waiting(const cal_job* j, size_t i) {
  return i < J(j)->roles.size() ? J(j)->role_waiting(i) : 0;
}
int32_t h_job_role_valid(const cal_job* j, size_t i) {
  return i < J(j)->roles.size() ? J(j)->role_valid(i) : 0;
}
const double* h_job_allocated(const cal_job* j) { return J(j)->allocated.data(); }
const double* h_job_total_request(const cal_job* j) { return J(j)->total_request.data(); }
const double* h_job_min_resources(const cal_job* j) {
  return J(j)->has_min_resources ? J(j)->min_resources.data() : nullptr;
}
void h_job_set_pending_reason(cal_job* j, const char* plugin, const char* reason) {
  JobInfo* job = from_handle(j);
  // Session keeps the rule about when a reason marks the job unschedulable.
  if (job && job->session) job->session->set_job_pending_reason(job, plugin ? plugin : "?", reason ? reason : "");
}

// ---- tasks ------------------------------------------------------------------------------
const char* h_task_name(const cal_task* t) { return T(t)->pod->digest.key.c_str(); }
cal_job* h_task_job(const cal_task* t) { return to_handle(T(t)->job); }
cal_node* h_task_node(const cal_task* t) { return T(t)->node ? to_handle(T(t)->node) : nullptr; }
cal_task_status h_task_status(const cal_task* t) { return T(t)->status; }
const double* h_task_request(const cal_task* t) { return T(t)->resreq.data(); }
const double* h_task_init_request(const cal_task* t) { return T(t)->init_resreq.data(); }
int32_t h_task_priority(const cal_task* t) { return T(t)->priority; }
int h_task_preemptable(const cal_task* t) { return T(t)->preemptable; }
int h_task_best_effort(const cal_task* t) { return T(t)->best_effort; }
int h_task_preempt_never(const cal_task* t) { return T(t)->preempt_never; }
const char* h_task_role(const cal_task* t) { return T(t)->pod->digest.role.c_str(); }
double h_task_created(const cal_task* t) { return T(t)->created; }
const char* h_task_label(const cal_task* t, const char* k) { return find_in(T(t)->pod->labels, k); }
const char* h_task_annotation(const cal_task* t, const char* k) {
  if (const char* v = find_in(T(t)->new_annotations, k)) return v;
  return find_in(T(t)->pod->annotations, k);
}
const char* h_task_priority_class(const cal_task* t) { return T(t)->pod->priority_class.c_str(); }
void h_task_set_annotation(cal_task* t, const char* k, const char* v) {
  if (!t || !k) return;
  from_handle(t)->new_annotations[k] = v ? v : "";
}
int h_arg_hierarchy(const cal_args* a) { return a && A(a)->hierarchy(); }
const char* h_job_annotation(const cal_job* j, const char* k) {
  return J(j)->podgroup ? find_in(J(j)->podgroup->annotations, k) : nullptr;
}
const char* h_node_annotation(const cal_node* n, const char* k) {
  return find_in(N(n)->spec->annotations, k);
}
size_t h_node_numa_count(const cal_node* n) { return N(n)->spec->numa.size(); }
double h_node_numa_cpu(const cal_node* n, size_t i) {
  return i < N(n)->spec->numa.size() ? N(n)->spec->numa[i].cpu : 0;
}
double h_node_numa_memory(const cal_node* n, size_t i) {
  return i < N(n)->spec->numa.size() ? N(n)->spec->numa[i].memory : 0;
}
const char* h_node_topology_policy(const cal_node* n) {
  return N(n)->spec->topology_policy.c_str();
}
size_t h_task_selector_count(const cal_task* t) { return T(t)->pod->node_selector.size(); }
const char* h_task_selector_key(const cal_task* t, size_t i) {
  const auto& m = T(t)->pod->node_selector;
  if (i >= m.size()) return nullptr;
  auto it = m.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(i));
  return it->first.c_str();
}
const char* h_task_selector_value(const cal_task* t, size_t i) {
  const auto& m = T(t)->pod->node_selector;
  if (i >= m.size()) return nullptr;
  auto it = m.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(i));
  return it->second.c_str();
}
size_t h_task_toleration_count(const cal_task* t) { return T(t)->pod->tolerations.size(); }
int h_task_toleration_at(const cal_task* t, size_t i, cal_taint* out) {
  const auto& v = T(t)->pod->tolerations;
  if (!out || i >= v.size()) return -1;
  out->key = v[i].key.c_str();
  out->value = v[i].value.c_str();
  out->effect = v[i].effect.c_str();
  if (out->struct_size >= offsetof(cal_taint, op) + sizeof(out->op)) out->op = v[i].op.c_str();
  return 0;
}

// ---- nodes ------------------------------------------------------------------------------
const char* h_node_name(const cal_node* n) { return N(n)->name.c_str(); }
const double* h_node_allocatable(const cal_node* n) { return N(n)->allocatable.data(); }
const double* h_node_idle(const cal_node* n) { return N(n)->idle.data(); }
const double* h_node_used(const cal_node* n) { return N(n)->used.data(); }
const double* h_node_releasing(const cal_node* n) { return N(n)->releasing.data(); }
const double* h_node_pipelined(const cal_node* n) { return N(n)->pipelined.data(); }
const double* h_node_future_idle(const cal_node* n) { return N(n)->future_idle.data(); }
int32_t h_node_pods_used(const cal_node* n) { return N(n)->pods; }
int32_t h_node_pods_max(const cal_node* n) { return N(n)->max_pods; }
int h_node_unschedulable(const cal_node* n) { return N(n)->unschedulable; }
const char* h_node_label(const cal_node* n, const char* k) { return find_in(N(n)->spec->labels, k); }
size_t h_node_label_count(const cal_node* n) { return N(n)->spec->labels.size(); }
const char* h_node_label_key(const cal_node* n, size_t i) {
  const auto& m = N(n)->spec->labels;
  if (i >= m.size()) return nullptr;
  auto it = m.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(i));
  return it->first.c_str();
}
const char* h_node_label_value(const cal_node* n, size_t i) {
  const auto& m = N(n)->spec->labels;
  if (i >= m.size()) return nullptr;
  auto it = m.begin();
  std::advance(it, static_cast<std::ptrdiff_t>(i));
  return it->second.c_str();
}
size_t h_node_taint_count(const cal_node* n) { return N(n)->spec->taints.size(); }
int h_node_taint_at(const cal_node* n, size_t i, cal_taint* out) {
  const auto& v = N(n)->spec->taints;
  if (!out || i >= v.size()) return -1;
  out->key = v[i].key.c_str();
  out->value = v[i].value.c_str();
  out->effect = v[i].effect.c_str();
  if (out->struct_size >= offsetof(cal_taint, op) + sizeof(out->op)) out->op = nullptr;
  return 0;
}
size_t h_node_task_count(const cal_node* n) { return N(n)->tasks.size(); }
cal_task* h_node_task_at(const cal_node* n, size_t i) {
  return i < N(n)->tasks.size() ? to_handle(N(n)->tasks[i]) : nullptr;
}

// ---- queues -----------------------------------------------------------------------------
const char* h_queue_name(const cal_queue* q) { return Q(q)->name.c_str(); }
double h_queue_weight(const cal_queue* q) { return Q(q)->weight; }
const double* h_queue_capability(const cal_queue* q) {
  return Q(q)->has_capability ? Q(q)->capability.data() : nullptr;
}
const double* h_queue_deserved(const cal_queue* q) {
  return Q(q)->has_deserved ? Q(q)->deserved.data() : nullptr;
}
const double* h_queue_guarantee(const cal_queue* q) {
  return Q(q)->has_guarantee ? Q(q)->guarantee.data() : nullptr;
}
int h_queue_reclaimable(const cal_queue* q) { return Q(q)->reclaimable; }
int32_t h_queue_priority(const cal_queue* q) { return Q(q)->priority; }
cal_queue_state h_queue_state(const cal_queue* q) {
  return static_cast<cal_queue_state>(Q(q)->state);
}
cal_queue* h_queue_parent(const cal_queue* q) {
  return Q(q)->parent ? to_handle(Q(q)->parent) : nullptr;
}
double h_queue_created(const cal_queue* q) { return Q(q)->created; }

size_t h_node_index(const cal_node* n) { return N(n)->index; }
const double* h_node_pod_requests(const cal_node* n) { return N(n)->pod_requests.data(); }
const double* h_node_pod_requests_nonzero(const cal_node* n) {
  return N(n)->pod_requests_nonzero.data();
}

// ---- network topology --------------------------------------------------------------------
const HyperNodeInfo* H(const cal_hypernode* h) { return from_handle(h); }
size_t h_hypernode_count(const cal_session* s) { return S(s)->hypernodes().all().size(); }
cal_hypernode* h_hypernode_at(const cal_session* s, size_t i) {
  const auto& v = S(s)->hypernodes().all();
  return i < v.size() ? to_handle(v[i]) : nullptr;
}
const char* h_hypernode_name(const cal_hypernode* h) { return H(h)->name.c_str(); }
int32_t h_hypernode_tier(const cal_hypernode* h) { return H(h)->tier; }
cal_hypernode* h_hypernode_parent(const cal_hypernode* h) {
  return H(h)->parent ? to_handle(H(h)->parent) : nullptr;
}
size_t h_hypernode_node_count(const cal_hypernode* h) { return H(h)->nodes.size(); }
cal_node* h_hypernode_node_at(const cal_hypernode* h, size_t i) {
  return i < H(h)->nodes.size() ? to_handle(H(h)->nodes[i]) : nullptr;
}
size_t h_node_hypernode_count(const cal_session* s, const cal_node* n) {
  return S(s)->hypernodes().of_node(N(n)).size();
}
cal_hypernode* h_node_hypernode_at(const cal_session* s, const cal_node* n, size_t i) {
  const auto& v = S(s)->hypernodes().of_node(N(n));
  return i < v.size() ? to_handle(v[i]) : nullptr;
}
cal_hypernode* h_hypernode_lca(const cal_hypernode* a, const cal_hypernode* b) {
  HyperNodeInfo* l = HyperNodes::lca(a ? from_handle(a) : nullptr, b ? from_handle(b) : nullptr);
  return l ? to_handle(l) : nullptr;
}
cal_topology_mode h_job_network_topology(const cal_job* j, int32_t* highest_tier) {
  const NetworkTopology* t = network_topology_of(J(j));
  if (highest_tier)
    *highest_tier = t && t->mode == TopologyMode::Hard ? t->highest_tier_allowed : 0;
  if (!t) return CAL_TOPOLOGY_NONE;
  return t->mode == TopologyMode::Hard ? CAL_TOPOLOGY_HARD : CAL_TOPOLOGY_SOFT;
}
cal_hypernode* h_job_allocated_hypernode(const cal_job* j) {
  const JobInfo* job = J(j);
  HyperNodeInfo* h = job->session ? job->session->hypernodes().allocated(job) : nullptr;
  return h ? to_handle(h) : nullptr;
}

const double* h_node_table(const cal_session* s, cal_node_field f) {
  return S(s)->node_table(f);
}

// ---- added in 1.2: state kept across sessions (Session::plugin_state_*) -------------------
const void* h_state_get(const cal_session* s, size_t* size) {
  if (!s) {
    if (size) *size = 0;
    return nullptr;
  }
  return S(s)->plugin_state_get(size);
}
int h_state_put(cal_session* s, const void* bytes, size_t size) {
  return s ? from_handle(s)->plugin_state_put(bytes, size) : -1;
}

// ---- added in 1.3: pods and their constraints --------------------------------------------
const PodRef* P(const cal_pod* p) { return from_handle(p); }
cal_pod* h_task_pod(const cal_task* t) { return to_handle(&T(t)->pod_ref); }
cal_task* h_pod_task(const cal_pod* p) { return P(p)->task ? to_handle(P(p)->task) : nullptr; }
size_t h_node_pod_count(const cal_node* n) { return N(n)->view_pods.size(); }
cal_pod* h_node_pod_at(const cal_node* n, size_t i) {
  return i < N(n)->view_pods.size() ? to_handle(N(n)->view_pods[i]) : nullptr;
}
const char* h_pod_name(const cal_pod* p) { return P(p)->spec->digest.key.c_str(); }
const char* h_pod_namespace(const cal_pod* p) { return P(p)->spec->ns.c_str(); }
const char* h_pod_label(const cal_pod* p, const char* k) { return find_in(P(p)->spec->labels, k); }
size_t h_pod_label_count(const cal_pod* p) { return P(p)->spec->labels.size(); }
const char* h_pod_label_key(const cal_pod* p, size_t i) {
  const auto& m = P(p)->spec->labels;
  if (i >= m.size()) return nullptr;
  return std::next(m.begin(), static_cast<std::ptrdiff_t>(i))->first.c_str();
}
const char* h_pod_label_value(const cal_pod* p, size_t i) {
  const auto& m = P(p)->spec->labels;
  if (i >= m.size()) return nullptr;
  return std::next(m.begin(), static_cast<std::ptrdiff_t>(i))->second.c_str();
}
const cal_pod_constraints* h_pod_constraints(const cal_pod* p) {
  const auto& c = P(p)->spec->constraints;
  return c ? c->view() : nullptr;
}
int h_pod_terminating(const cal_pod* p) { return P(p)->spec->releasing ? 1 : 0; }
const cal_storage_class* h_storage_class_get(const cal_session* s, const char* name) {
  return S(s)->volumes().storage_class(name);
}
const cal_persistent_volume* h_volume_get(const cal_session* s, const char* name) {
  return S(s)->volumes().volume(name);
}
const cal_persistent_volume_claim* h_claim_get(const cal_session* s, const char* ns,
                                               const char* name) {
  return S(s)->volumes().claim(ns, name);
}
size_t h_volume_count(const cal_session* s) { return S(s)->volumes().volumes().size(); }
const cal_persistent_volume* h_volume_at(const cal_session* s, size_t i) {
  const auto& v = S(s)->volumes().volumes();
  return i < v.size() ? v[i] : nullptr;
}
const cal_persistent_volume_claim* h_volume_assumed_claim(const cal_session* s,
                                                          const cal_persistent_volume* pv) {
  return pv ? S(s)->volumes().assumed_claim(pv) : nullptr;
}
const char* h_claim_selected_node(const cal_session* s, const cal_persistent_volume_claim* c) {
  return c ? S(s)->volumes().selected_node(c) : nullptr;
}
int h_task_assume_volume(cal_task* t, const cal_persistent_volume_claim* c,
                         const cal_persistent_volume* pv) {
  TaskInfo* task = from_handle(t);
  if (!t || !c || !task->node) return 0;
  return task->job->session->volumes().assume(task, c, pv, task->node->name) ? 1 : 0;
}
const char* h_queue_annotation(const cal_queue* q, const char* k) {
  return Q(q)->spec ? find_in(Q(q)->spec->annotations, k) : nullptr;
}
const cal_queue_affinity* h_queue_affinity(const cal_queue* q) {
  return Q(q)->has_affinity ? &Q(q)->affinity : nullptr;
}
int h_task_scheduled_time(const cal_task* t, double* at) {
  const std::optional<double>& when = T(t)->pod->scheduled_at;
  if (!when || !at) return 0;
  *at = *when;
  return 1;
}
size_t h_disruption_budget_count(const cal_session* s) {
  return S(s)->disruption_budgets().size();
}
const cal_disruption_budget* h_disruption_budget_at(const cal_session* s, size_t i) {
  const auto& v = S(s)->disruption_budgets();
  return i < v.size() ? v[i]->view() : nullptr;
}
size_t h_resource_quota_count(const cal_session* s) { return S(s)->resource_quotas().size(); }
const cal_resource_quota* h_resource_quota_at(const cal_session* s, size_t i) {
  const auto& v = S(s)->resource_quotas();
  return i < v.size() ? v[i]->view() : nullptr;
}
const char* h_job_fit_error(const cal_job* j) {
  JobInfo* job = const_cast<JobInfo*>(J(j));
  job->fit_error_text = job->session->job_fit_error(*job);
  return job->fit_error_text.c_str();
}
int32_t h_job_schedulable_num(const cal_job* j) {
  return J(j)->session->job_schedulable_num(*J(j));
}
void h_job_set_unschedulable_condition(cal_job* j, const char* plugin, const char* message) {
  JobInfo* job = from_handle(j);
  if (job && job->session)
    job->session->set_job_condition(job, plugin ? plugin : "?", message ? message : "");
}
void h_queue_set_fair_share(cal_queue* q, const char* plugin, const double* deserved,
                            double share) {
  const QueueInfo* queue = Q(q);
  if (queue && queue->session)
    queue->session->set_queue_fair_share(*queue, plugin ? plugin : "?", deserved, share);
}
int h_job_min_resource(const cal_job* j, const char* name, double* amount) {
  const PodGroupSpec* pg = J(j)->podgroup;
  if (!pg || !name || !amount) return 0;
  auto it = pg->min_resources_written.find(name);
  if (it == pg->min_resources_written.end()) return 0;
  *amount = it->second;
  return 1;
}
// --- 1.8: sub-jobs
const SubJobInfo* SJ(const cal_sub_job* s) { return from_handle(s); }
const JobSubJobs& sub_jobs_of(const cal_job* j) { return J(j)->session->sub_jobs(J(j)); }
size_t h_job_sub_job_count(const cal_job* j) { return sub_jobs_of(j).list.size(); }
cal_sub_job* h_job_sub_job_at(const cal_job* j, size_t i) {
  const auto& l = sub_jobs_of(j).list;
  return i < l.size() ? to_handle(l[i].get()) : nullptr;
}
cal_sub_job* h_task_sub_job(const cal_task* t) {
  const TaskInfo* task = T(t);
  SubJobInfo* s = task->job && task->job->session ? task->job->session->sub_job_of(task) : nullptr;
  return s ? to_handle(s) : nullptr;
}
cal_job* h_sub_job_job(const cal_sub_job* s) { return to_handle(SJ(s)->job); }
const char* h_sub_job_uid(const cal_sub_job* s) { return SJ(s)->uid.c_str(); }
const char* h_sub_job_group(const cal_sub_job* s) { return SJ(s)->gid.c_str(); }
int32_t h_sub_job_min_available(const cal_sub_job* s) { return SJ(s)->min_available; }
int32_t h_sub_job_priority(const cal_sub_job* s) { return SJ(s)->priority; }
int32_t h_sub_job_match_index(const cal_sub_job* s) { return SJ(s)->match_index; }
size_t h_sub_job_task_count(const cal_sub_job* s) { return SJ(s)->tasks.size(); }
cal_task* h_sub_job_task_at(const cal_sub_job* s, size_t i) {
  const auto& t = SJ(s)->tasks;
  return i < t.size() ? to_handle(t[i]) : nullptr;
}
int32_t h_sub_job_status_count(const cal_sub_job* s, cal_task_status st) {
  if (static_cast<int>(st) < 0 || static_cast<int>(st) >= CAL_TASK_STATUS_COUNT) return 0;
  return SJ(s)->count(st);
}
cal_topology_mode h_sub_job_network_topology(const cal_sub_job* s, int32_t* highest_tier) {
  const auto& t = SJ(s)->topology;
  if (highest_tier) *highest_tier = t ? t->highest_tier_allowed : 0;
  return t ? CAL_TOPOLOGY_HARD : CAL_TOPOLOGY_NONE;
}
cal_hypernode* h_sub_job_allocated_hypernode(const cal_sub_job* s) {
  HyperNodeInfo* h = SJ(s)->allocated;
  return h ? to_handle(h) : nullptr;
}
size_t h_job_sub_group_count(const cal_job* j) { return sub_jobs_of(j).min_sub_jobs.size(); }
const char* h_job_sub_group_at(const cal_job* j, size_t i, int32_t* min_sub_groups) {
  const auto& g = sub_jobs_of(j).min_sub_jobs;
  if (i >= g.size()) return nullptr;
  if (min_sub_groups) *min_sub_groups = g[i].second;
  return g[i].first.c_str();
}
cal_hypernode* h_task_allocated_hypernode(const cal_task* t) {
  const TaskInfo* task = T(t);
  HyperNodeInfo* h =
      task->job && task->job->session ? task->job->session->task_allocated_hypernode(task) : nullptr;
  return h ? to_handle(h) : nullptr;
}
size_t h_node_image_count(const cal_node* n) {
  const auto& im = N(n)->spec->images;
  return im ? im->size() : 0;
}
int h_node_image_at(const cal_node* n, size_t i, cal_image* out) {
  const auto& im = N(n)->spec->images;
  if (!out || !im || i >= im->size()) return 0;
  if (out->struct_size >= offsetof(cal_image, names) + sizeof(out->names))
    out->names = im->names_view(i);
  if (out->struct_size >= offsetof(cal_image, size_bytes) + sizeof(out->size_bytes))
    out->size_bytes = im->at(i).size_bytes;
  return 1;
}

cal_host_api make_table() {
  cal_host_api h;
  std::memset(&h, 0, sizeof h);
  // Grouped and ordered as cal_host_api in caldera/plugin.h: each group is headed as there,
  // and a function added in a later minor goes at the end, in its own "added in 1.N" group.
  // abi_freeze_test checks that every member is set.

  // ===== 1.0 ============================================================================
  h.struct_size = sizeof h;
  h.abi_version = CAL_ABI_VERSION;
  // --- logging
  h.log = h_log;
  // --- status helper
  h.status_set = h_status_set;
  // --- arguments (validated against the plugin's option table)
  h.arg_is_set = h_arg_is_set;
  h.arg_bool = h_arg_bool;
  h.arg_int = h_arg_int;
  h.arg_double = h_arg_double;
  h.arg_string = h_arg_string;
  h.arg_count = h_arg_count;
  h.arg_name = h_arg_name;
  // --- session
  h.resource_count = h_resource_count;
  h.resource_name = h_resource_name;
  h.resource_id = h_resource_id;
  h.cluster_total = h_cluster_total;
  h.now = h_now;
  h.job_count = h_job_count;
  h.job_at = h_job_at;
  h.node_count = h_node_count;
  h.node_at = h_node_at;
  h.queue_count = h_queue_count;
  h.queue_at = h_queue_at;
  h.queue_by_name = h_queue_by_name;
  h.node_by_name = h_node_by_name;
  // --- jobs
  h.job_name = h_job_name;
  h.job_namespace = h_job_namespace;
  h.job_queue = h_job_queue;
  h.job_min_available = h_job_min_available;
  h.job_priority = h_job_priority;
  h.job_created = h_job_created;
  h.job_phase = h_job_phase;
  h.job_phase_since = h_job_phase_since;
  h.job_task_count = h_job_task_count;
  h.job_task_at = h_job_task_at;
  h.job_status_count = h_job_status_count;
  h.job_ready_num = h_job_ready_num;
  h.job_waiting_num = h_job_waiting_num;
  h.job_valid_num = h_job_valid_num;
  h.job_role_count = h_job_role_count;
  h.job_role_name = h_job_role_name;
  h.job_role_min = h_job_role_min;
  h.job_role_ready = h_job_role_ready;
  h.job_role_waiting = h_job_role_waiting;
  h.job_role_valid = h_job_role_valid;
  h.job_allocated = h_job_allocated;
  h.job_total_request = h_job_total_request;
  h.job_min_resources = h_job_min_resources;
  h.job_set_pending_reason = h_job_set_pending_reason;
  // --- tasks
  h.task_name = h_task_name;
  h.task_job = h_task_job;
  h.task_node = h_task_node;
  h.task_status = h_task_status;
  h.task_request = h_task_request;
  h.task_init_request = h_task_init_request;
  h.task_priority = h_task_priority;
  h.task_preemptable = h_task_preemptable;
  h.task_best_effort = h_task_best_effort;
  h.task_preempt_never = h_task_preempt_never;
  h.task_role = h_task_role;
  h.task_created = h_task_created;
  h.task_label = h_task_label;
  h.task_annotation = h_task_annotation;
  h.task_selector_count = h_task_selector_count;
  h.task_selector_key = h_task_selector_key;
  h.task_selector_value = h_task_selector_value;
  h.task_toleration_count = h_task_toleration_count;
  h.task_toleration_at = h_task_toleration_at;
  // --- nodes
  h.node_name = h_node_name;
  h.node_allocatable = h_node_allocatable;
  h.node_idle = h_node_idle;
  h.node_used = h_node_used;
  h.node_releasing = h_node_releasing;
  h.node_pipelined = h_node_pipelined;
  h.node_future_idle = h_node_future_idle;
  h.node_pods_used = h_node_pods_used;
  h.node_pods_max = h_node_pods_max;
  h.node_unschedulable = h_node_unschedulable;
  h.node_label = h_node_label;
  h.node_label_count = h_node_label_count;
  h.node_label_key = h_node_label_key;
  h.node_label_value = h_node_label_value;
  h.node_taint_count = h_node_taint_count;
  h.node_taint_at = h_node_taint_at;
  h.node_task_count = h_node_task_count;
  h.node_task_at = h_node_task_at;
  // --- queues
  h.queue_name = h_queue_name;
  h.queue_weight = h_queue_weight;
  h.queue_capability = h_queue_capability;
  h.queue_deserved = h_queue_deserved;
  h.queue_guarantee = h_queue_guarantee;
  h.queue_reclaimable = h_queue_reclaimable;
  h.queue_priority = h_queue_priority;
  h.queue_state = h_queue_state;
  h.queue_parent = h_queue_parent;
  h.queue_created = h_queue_created;
  // --- more task and argument access
  h.task_priority_class = h_task_priority_class;
  h.arg_hierarchy = h_arg_hierarchy;
  h.task_set_annotation = h_task_set_annotation;
  // --- annotations and NUMA layout
  h.job_annotation = h_job_annotation;
  h.node_annotation = h_node_annotation;
  h.node_numa_count = h_node_numa_count;
  h.node_numa_cpu = h_node_numa_cpu;
  h.node_numa_memory = h_node_numa_memory;
  h.node_topology_policy = h_node_topology_policy;

  // ===== added in 1.1 (starts at CAL_HOST_API_V1_0_SIZE) ================================
  // --- added in 1.1: per-node state in arrays, Kubernetes' view of a node
  h.node_index = h_node_index;
  h.node_pod_requests = h_node_pod_requests;
  h.node_pod_requests_nonzero = h_node_pod_requests_nonzero;
  // --- added in 1.1: network topology, HyperNodes
  h.hypernode_count = h_hypernode_count;
  h.hypernode_at = h_hypernode_at;
  h.hypernode_name = h_hypernode_name;
  h.hypernode_tier = h_hypernode_tier;
  h.hypernode_parent = h_hypernode_parent;
  h.hypernode_node_count = h_hypernode_node_count;
  h.hypernode_node_at = h_hypernode_node_at;
  h.node_hypernode_count = h_node_hypernode_count;
  h.node_hypernode_at = h_node_hypernode_at;
  h.hypernode_lca = h_hypernode_lca;
  h.job_network_topology = h_job_network_topology;
  h.job_allocated_hypernode = h_job_allocated_hypernode;
  // --- added in 1.1: node state as tables
  h.node_table = h_node_table;
  // ===== added in 1.2 (starts at CAL_HOST_API_V1_1_SIZE) ================================
  h.state_get = h_state_get;
  h.state_put = h_state_put;
  // ===== added in 1.3 (starts at CAL_HOST_API_V1_2_SIZE) ================================
  // --- added in 1.3: pods as Kubernetes sees them, and their constraints
  h.task_pod = h_task_pod;
  h.pod_task = h_pod_task;
  h.node_pod_count = h_node_pod_count;
  h.node_pod_at = h_node_pod_at;
  h.pod_name = h_pod_name;
  h.pod_namespace = h_pod_namespace;
  h.pod_label = h_pod_label;
  h.pod_label_count = h_pod_label_count;
  h.pod_label_key = h_pod_label_key;
  h.pod_label_value = h_pod_label_value;
  h.pod_constraints = h_pod_constraints;
  h.pod_terminating = h_pod_terminating;
  h.node_image_count = h_node_image_count;
  h.node_image_at = h_node_image_at;
  h.storage_class_get = h_storage_class_get;
  h.volume_get = h_volume_get;
  h.claim_get = h_claim_get;
  h.volume_count = h_volume_count;
  h.volume_at = h_volume_at;
  h.volume_assumed_claim = h_volume_assumed_claim;
  h.claim_selected_node = h_claim_selected_node;
  h.task_assume_volume = h_task_assume_volume;
  // 1.5
  h.queue_annotation = h_queue_annotation;
  h.queue_affinity = h_queue_affinity;
  h.task_scheduled_time = h_task_scheduled_time;
  h.disruption_budget_count = h_disruption_budget_count;
  h.disruption_budget_at = h_disruption_budget_at;
  h.resource_quota_count = h_resource_quota_count;
  h.resource_quota_at = h_resource_quota_at;
  h.job_fit_error = h_job_fit_error;
  h.job_schedulable_num = h_job_schedulable_num;
  h.job_set_unschedulable_condition = h_job_set_unschedulable_condition;
  h.job_min_resource = h_job_min_resource;
  // --- 1.6
  h.queue_set_fair_share = h_queue_set_fair_share;
  // --- 1.8
  h.job_sub_job_count = h_job_sub_job_count;
  h.job_sub_job_at = h_job_sub_job_at;
  h.task_sub_job = h_task_sub_job;
  h.sub_job_job = h_sub_job_job;
  h.sub_job_uid = h_sub_job_uid;
  h.sub_job_group = h_sub_job_group;
  h.sub_job_min_available = h_sub_job_min_available;
  h.sub_job_priority = h_sub_job_priority;
  h.sub_job_match_index = h_sub_job_match_index;
  h.sub_job_task_count = h_sub_job_task_count;
  h.sub_job_task_at = h_sub_job_task_at;
  h.sub_job_status_count = h_sub_job_status_count;
  h.sub_job_network_topology = h_sub_job_network_topology;
  h.sub_job_allocated_hypernode = h_sub_job_allocated_hypernode;
  h.job_sub_group_count = h_job_sub_group_count;
  h.job_sub_group_at = h_job_sub_group_at;
  h.task_allocated_hypernode = h_task_allocated_hypernode;
  return h;
}

}  // namespace

void reset_plugin_log_budget() {
  g_log_lines.store(0);
  g_log_dropped.store(0);
}

size_t plugin_log_dropped() { return g_log_dropped.load(); }

const cal_host_api* host_api() {
  static const cal_host_api table = make_table();
  return &table;
}

}  // namespace caldera
