// A Statement groups the changes an action makes for one job (Volcano's framework.Statement):
// evict, pipeline and allocate take effect in the session at once (so later predicates see
// them), and commit() sends them on, or discard() undoes them in reverse order. Gang
// all-or-nothing rests on this: allocate every task, then commit only if the job is ready.
//
// Statements are the only way actions change a session: the Session's own mutators are
// private to this class, so every change can be undone and every decision is recorded in
// one place.
#pragma once

#include <string>
#include <vector>

#include "host/session/session.hpp"

namespace caldera {

class Statement {
 public:
  explicit Statement(Session& ssn) : ssn_(ssn) {}
  ~Statement();  // an uncommitted statement is discarded

  void evict(TaskInfo* victim, const std::string& reason);
  // `eviction_occurred`: victims were evicted to make the room (Volcano's Pipeline
  // argument); a task left pipelined so gets the node as its nominated node.
  void pipeline(TaskInfo* t, NodeInfo* n, bool eviction_occurred = false);
  void allocate(TaskInfo* t, NodeInfo* n);
  // Undo one earlier allocate or pipeline of this statement (Volcano's UnAllocate /
  // unpipeline), fired in this order.
  void unallocate(TaskInfo* t);
  // Undoes a pipeline an earlier action left in the session (Volcano's UnPipeline, as
  // backfill does before placing a best-effort task anew): the task is Pending again now;
  // discard() pipelines it back.
  void unpipeline(TaskInfo* t);
  // The tasks of `job` an earlier statement left Allocated (kept, not committed) are bound
  // by this statement's commit, as Volcano's Session.Allocate dispatches every allocated
  // task of a job once it is ready. discard() leaves them Allocated.
  void dispatch_allocated(JobInfo* job);
  // The enqueue action admits a job: its PodGroup is Inqueue from now on (plugins are told
  // through the job_enqueued point first); discard() puts the phase back.
  void enqueue(JobInfo* job);

  // Binds allocated tasks (they become Binding), records evictions; pipelined tasks stay
  // pipelined in the session. The statement is empty afterwards.
  void commit();
  // Undoes every operation in reverse order. The statement is empty afterwards.
  void discard();

  // Leaves every operation in effect in the session, neither committed nor undone, and
  // forgets them: allocated tasks stay Allocated (no bind is sent), pipelined ones stay
  // Pipelined. Volcano's allocate does this for a job that is pipelined but not ready (it
  // calls neither Commit nor Discard), so that later jobs and actions see the resources
  // taken. The statement is empty afterwards.
  void keep() { ops_.clear(); }

  bool empty() const { return ops_.empty(); }
  size_t size() const { return ops_.size(); }

  // Moves the operations of another statement to the end of this one (Volcano's
  // SaveOperations / RecoverOperations pattern).
  void merge(Statement&& other);

 private:
  enum class Kind { Evict, Pipeline, Allocate, Unpipeline, Dispatch, Enqueue };
  struct Op {
    Kind kind;
    TaskInfo* task;
    NodeInfo* node;
    std::string reason;
    JobInfo* job = nullptr;            // Enqueue
    JobPhase phase = JobPhase::Pending;  // Enqueue: the phase before
  };
  Session& ssn_;
  std::vector<Op> ops_;
};

}  // namespace caldera
