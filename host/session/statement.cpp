// Volcano's framework.Statement (pkg/scheduler/framework/statement.go).
#include "host/session/statement.hpp"

#include <spdlog/spdlog.h>

namespace caldera {

Statement::~Statement() {
  if (!ops_.empty()) discard();
}

void Statement::evict(TaskInfo* victim, const std::string& reason) {
  ssn_.evict_task(victim);
  ops_.push_back({Kind::Evict, victim, victim->node, reason});
}

void Statement::pipeline(TaskInfo* t, NodeInfo* n, bool eviction_occurred) {
  ssn_.pipeline_task(t, n, eviction_occurred);
  ops_.push_back({Kind::Pipeline, t, n, {}});
}

void Statement::allocate(TaskInfo* t, NodeInfo* n) {
  ssn_.allocate_task(t, n);
  ops_.push_back({Kind::Allocate, t, n, {}});
}

void Statement::unallocate(TaskInfo* t) {
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    if (it->task == t && (it->kind == Kind::Allocate || it->kind == Kind::Pipeline)) {
      ssn_.unallocate_task(t);
      ops_.erase(std::next(it).base());
      return;
    }
  }
  spdlog::warn("statement: unallocate of {} which this statement did not place", t->uid);
}

void Statement::unpipeline(TaskInfo* t) {
  NodeInfo* n = t->node;
  ssn_.unallocate_task(t);
  ops_.push_back({Kind::Unpipeline, t, n, {}});
}

void Statement::dispatch_allocated(JobInfo* job) {
  for (TaskInfo* t : job->tasks) {
    if (t->status != CAL_TASK_ALLOCATED) continue;
    bool ours = false;
    for (const Op& op : ops_) ours = ours || (op.kind == Kind::Allocate && op.task == t);
    if (!ours) ops_.push_back({Kind::Dispatch, t, t->node, {}});
  }
}

void Statement::enqueue(JobInfo* job) {
  Op op{Kind::Enqueue, nullptr, nullptr, {}};
  op.job = job;
  op.phase = job->phase;
  ssn_.set_job_phase(job, JobPhase::Inqueue);
  ops_.push_back(std::move(op));
}

void Statement::commit() {
  // Volcano's dispatch loop stops at the first bind the cache refuses: the job's other
  // allocated tasks stay Allocated too.
  bool refused = false;
  bool evicted = false;
  for (const Op& op : ops_) {
    // Volcano's ClearLastTxContext, for the operations its statement records.
    if (op.kind == Kind::Evict || op.kind == Kind::Pipeline || op.kind == Kind::Allocate)
      op.task->last_tx.set = false;
    switch (op.kind) {
      case Kind::Evict:
        ssn_.commit_evict(op.task);
        evicted = true;
        break;
      case Kind::Pipeline:
        break;  // stays pipelined in the session; the next session re-decides
      case Kind::Allocate:
      case Kind::Dispatch:
        if (!refused && !ssn_.commit_bind(op.task)) refused = true;
        break;
      case Kind::Unpipeline:
      case Kind::Enqueue:
        break;  // in effect already; nothing to send
    }
  }
  if (evicted) ++ssn_.stats().eviction_transactions[ssn_.action()];
  ops_.clear();
  ssn_.stream_binds();
}

void Statement::discard() {
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    // Volcano's GenerateLastTxContext: the placement as it stands before it is undone.
    if (it->kind == Kind::Evict || it->kind == Kind::Pipeline || it->kind == Kind::Allocate)
      it->task->last_tx = {true, it->task->status, it->task->node, it->task->eviction_occurred};
    switch (it->kind) {
      case Kind::Evict:
        ssn_.unevict_task(it->task);
        break;
      case Kind::Pipeline:
      case Kind::Allocate:
        ssn_.unallocate_task(it->task);
        break;
      case Kind::Unpipeline:
        ssn_.pipeline_task(it->task, it->node, it->task->eviction_occurred);
        break;
      case Kind::Dispatch:
        break;  // stays Allocated, as an earlier statement left it
      case Kind::Enqueue:
        ssn_.set_job_phase(it->job, it->phase);
        break;
    }
  }
  ops_.clear();
}

void Statement::merge(Statement&& other) {
  ops_.insert(ops_.end(), other.ops_.begin(), other.ops_.end());
  other.ops_.clear();
}

}  // namespace caldera
