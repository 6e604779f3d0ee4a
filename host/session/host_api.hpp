// The host's side of the ABI: the one cal_host_api table every plugin receives, and the
// mapping between session objects and the ABI's opaque handles.
#pragma once

#include "caldera/plugin.h"
#include "host/session/hypernodes.hpp"
#include "host/session/session_types.hpp"
#include "host/session/sub_jobs.hpp"

namespace caldera {

class Session;

const cal_host_api* host_api();

// Plugin log output is limited per session: at most kPluginLogLines lines (the first of
// them all, then nothing until the next session, with one line saying so), each cut to
// kPluginLogBytes. A plugin logging in a loop cannot fill a disk or drown the scheduler's
// own lines. Session::open starts a new budget; Session::close says what was dropped.
inline constexpr size_t kPluginLogLines = 1000;
inline constexpr size_t kPluginLogBytes = 1024;
void reset_plugin_log_budget();
// Lines dropped since the last reset.
size_t plugin_log_dropped();

inline cal_session* to_handle(Session* s) { return reinterpret_cast<cal_session*>(s); }
inline cal_job* to_handle(JobInfo* j) { return reinterpret_cast<cal_job*>(j); }
inline cal_task* to_handle(TaskInfo* t) { return reinterpret_cast<cal_task*>(t); }
inline cal_node* to_handle(NodeInfo* n) { return reinterpret_cast<cal_node*>(n); }
inline cal_queue* to_handle(QueueInfo* q) { return reinterpret_cast<cal_queue*>(q); }
inline cal_hypernode* to_handle(HyperNodeInfo* h) { return reinterpret_cast<cal_hypernode*>(h); }
inline cal_sub_job* to_handle(SubJobInfo* s) { return reinterpret_cast<cal_sub_job*>(s); }
inline const cal_sub_job* to_handle(const SubJobInfo* s) {
  return reinterpret_cast<const cal_sub_job*>(s);
}
inline cal_pod* to_handle(const PodRef* p) {
  return reinterpret_cast<cal_pod*>(const_cast<PodRef*>(p));
}
inline const PodRef* from_handle(const cal_pod* p) { return reinterpret_cast<const PodRef*>(p); }
inline SubJobInfo* from_handle(const cal_sub_job* s) {
  return reinterpret_cast<SubJobInfo*>(const_cast<cal_sub_job*>(s));
}
inline const cal_hypernode* to_handle(const HyperNodeInfo* h) {
  return reinterpret_cast<const cal_hypernode*>(h);
}
inline HyperNodeInfo* from_handle(const cal_hypernode* h) {
  return reinterpret_cast<HyperNodeInfo*>(const_cast<cal_hypernode*>(h));
}
inline const cal_job* to_handle(const JobInfo* j) { return reinterpret_cast<const cal_job*>(j); }
inline const cal_task* to_handle(const TaskInfo* t) {
  return reinterpret_cast<const cal_task*>(t);
}
inline const cal_node* to_handle(const NodeInfo* n) {
  return reinterpret_cast<const cal_node*>(n);
}
inline const cal_queue* to_handle(const QueueInfo* q) {
  return reinterpret_cast<const cal_queue*>(q);
}
inline Session* from_handle(const cal_session* s) {
  return reinterpret_cast<Session*>(const_cast<cal_session*>(s));
}
inline JobInfo* from_handle(const cal_job* j) {
  return reinterpret_cast<JobInfo*>(const_cast<cal_job*>(j));
}
inline TaskInfo* from_handle(const cal_task* t) {
  return reinterpret_cast<TaskInfo*>(const_cast<cal_task*>(t));
}
inline NodeInfo* from_handle(const cal_node* n) {
  return reinterpret_cast<NodeInfo*>(const_cast<cal_node*>(n));
}
inline QueueInfo* from_handle(const cal_queue* q) {
  return reinterpret_cast<QueueInfo*>(const_cast<cal_queue*>(q));
}

}  // namespace caldera
