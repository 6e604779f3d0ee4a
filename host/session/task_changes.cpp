// The session's state changes, made only through a Statement (statement.hpp): a task
// allocated, pipelined, evicted, or undone, with its job's counts, its node's accounting
// and node tables, and the plugins' on_allocate / on_deallocate events; the commit steps
// that record binds and evictions.
// Follows the state changes of Volcano's pkg/scheduler/framework/statement.go (allocate,
// pipeline, evict, unallocate, unevict) and session.go (Allocate, dispatch).
#include <algorithm>
#include <cmath>

#include "host/session/dispatch.hpp"
#include "host/session/host_api.hpp"

namespace caldera {

void Session::fire_allocate(TaskInfo* t) { combine<Slot::on_allocate>(chains_, to_handle(t)); }

void Session::fire_deallocate(TaskInfo* t) {
  combine<Slot::on_deallocate>(chains_, to_handle(t));
}

void Session::stream_binds() {
  if (result_.binds.size() == binds_streamed_ || !runtime_->bind_stream()) return;
  runtime_->bind_stream()(result_, binds_streamed_);
  binds_streamed_ = result_.binds.size();
}

void Session::count_pod(TaskInfo* t, NodeInfo* n, int sign) {
  if ((sign > 0) == t->in_pod_view) return;
  t->in_pod_view = sign > 0;
  if (sign > 0) {
    n->view_pods.push_back(&t->pod_ref);
  } else if (auto it = std::find(n->view_pods.begin(), n->view_pods.end(), &t->pod_ref);
             it != n->view_pods.end()) {
    *it = n->view_pods.back();
    n->view_pods.pop_back();
  }
  const double s = sign;
  const size_t R = n->pod_requests.size();
  for (size_t i = 0; i < R && i < t->init_resreq.size(); ++i) {
    const double whole = std::round(t->init_resreq[i]);  // Kubernetes counts int64 units
    double nonzero = whole;
    if (i == 0 && whole == 0) nonzero = kDefaultMilliCpuRequest;
    if (i == 1 && whole == 0) nonzero = kDefaultMemoryRequest;
    n->pod_requests[i] += s * whole;
    n->pod_requests_nonzero[i] += s * nonzero;
  }
}

const double* Session::node_table(cal_node_field f) const {
  const auto i = static_cast<size_t>(f);
  return i < CAL_NODE_FIELD_COUNT ? node_tables_[i].data() : nullptr;
}

void Session::sync_node(const NodeInfo* n) {
  const size_t R = resource_names_.size();
  const ResVec* fields[CAL_NODE_FIELD_COUNT] = {&n->allocatable, &n->idle,       &n->used,
                                                &n->releasing,   &n->pipelined,  &n->future_idle,
                                                &n->pod_requests, &n->pod_requests_nonzero};
  for (size_t f = 0; f < CAL_NODE_FIELD_COUNT; ++f)
    std::copy(fields[f]->data(), fields[f]->data() + R, node_tables_[f].data() + n->index * R);
  future_idle_maxima_.set(n->index, n->future_idle.data());
}

void Session::allocate_task(TaskInfo* t, NodeInfo* n) {
  t->job->update_task_status(t, CAL_TASK_ALLOCATED);
  n->add_task(t);
  count_pod(t, n, +1);
  sync_node(n);
  fire_allocate(t);
}

void Session::pipeline_task(TaskInfo* t, NodeInfo* n, bool eviction_occurred) {
  t->job->update_task_status(t, CAL_TASK_PIPELINED);
  t->eviction_occurred = eviction_occurred;
  n->add_task(t);
  count_pod(t, n, +1);
  sync_node(n);
  fire_allocate(t);
}

void Session::evict_task(TaskInfo* t) {
  t->status_before_evict = t->status;
  t->job->update_task_status(t, CAL_TASK_RELEASING);
  if (NodeInfo* n = t->node) {  // Volcano's node.UpdateTask: remove as before, add as now
    n->remove_task(t);
    n->add_task(t);
    // Volcano's predicates plugin drops an evicted pod from its Kubernetes node view.
    count_pod(t, n, -1);
    sync_node(n);
  }
  fire_deallocate(t);
}

void Session::unallocate_task(TaskInfo* t) {
  t->job->update_task_status(t, CAL_TASK_PENDING);
  if (NodeInfo* n = t->node) {
    count_pod(t, n, -1);
    n->remove_task(t);
    sync_node(n);
  }
  fire_deallocate(t);
  t->new_annotations.clear();  // after the event, so plugins can still read them
  volumes_.unassume(t);
}

void Session::unevict_task(TaskInfo* t) {
  t->job->update_task_status(t, t->status_before_evict);
  if (NodeInfo* n = t->node) {
    n->remove_task(t);
    n->add_task(t);
    // Volcano's predicates plugin re-adds the pod in its AllocateFunc only after its
    // Reserve plugins pass, and VolumeBinding's Reserve fails ("not found") for a pod
    // whose PreFilter never ran in this session: a running pod whose eviction is undone
    // stays out of the Kubernetes node view (its scores and filters) for the session.
    if (t->pre_predicated) count_pod(t, n, +1);
    sync_node(n);
  }
  fire_allocate(t);
}

bool Session::commit_bind(TaskInfo* t) {
  if (NodeInfo* n = t->node) {
    // NodeInfo.AddTask(Binding): Resreq.LessEqualWithResourcesName(Idle, Zero), cpu and
    // memory always, the other resources the task asks for.
    for (size_t i = 0; i < t->resreq.size() && i < n->cache_idle.size(); ++i) {
      if (i >= 2 && !(t->resreq[i] > 0)) continue;
      if (res::le(t->resreq[i], n->cache_idle[i])) continue;
      spdlog::debug("bind of {} to {} refused: {} of {} asked, {} idle on the node", t->uid,
                    n->name, t->resreq[i], resource_names_[i], n->cache_idle[i]);
      return false;
    }
    n->cache_idle.sub(t->resreq);
  }
  t->job->update_task_status(t, CAL_TASK_BINDING);
  t->node_status = CAL_TASK_BINDING;  // same accounting branch as Allocated
  result_.binds.emplace_back(t->uid, t->node ? t->node->name : std::string());
  if (!t->new_annotations.empty()) result_.bind_annotations[std::string(t->uid)] = t->new_annotations;
  if (!t->volume_decisions.empty()) {
    auto& out = result_.volume_bindings[std::string(t->uid)];
    for (const VolumeDecision& d : t->volume_decisions)
      out.emplace_back(std::string(d.claim->namespace_name) + "/" + d.claim->name,
                       d.volume ? d.volume->name : "");
  }
  return true;
}

void Session::commit_evict(TaskInfo* t) {
  result_.evictions.emplace_back(t->uid);
  result_.eviction_reasons[std::string(t->uid)] = action_;
}

}  // namespace caldera
