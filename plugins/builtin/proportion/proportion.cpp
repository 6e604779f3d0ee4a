// proportion: fair sharing of the cluster between queues by weight, as Volcano's
// pkg/scheduler/plugins/proportion/proportion.go does it.
//
// At session open every queue that holds jobs gets its attributes (allocated, request,
// inqueue, elastic, guarantee, real capability), and the cluster total is water-filled into
// a `deserved` per queue (proportion_math.hpp). The extension points then read them:
//   queue_order      higher queue priority first, then the smaller share (allocated/deserved)
//   reclaimable      victims from queues that hold more than they deserve
//   overused         deserved <= allocated in every dimension
//   allocatable      queue open and allocated + request <= deserved in the requested dims
//   preemptive       the same check, for the reclaimer's queue
//   preemptive_many  the same for several tasks' requests summed (ABI 1.7, gangreclaim)
//   job_enqueueable  minResources + allocated + inqueue - elastic <= real capability
//   job_enqueued     the job's minResources join the queue's inqueue
//   on_allocate / on_deallocate keep allocated and share current.
// Mapping note: Volcano adds a permitted job's minResources to inqueue inside its
// enqueueable function, even when a later plugin rejects the job; here that happens in
// job_enqueued, once the job really moved to Inqueue.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <cstdio>

#include "caldera/sdk.hpp"
#include "proportion/proportion_math.hpp"

namespace {

using caldera::ResVec;
using caldera::proportion::QueueAttr;
namespace pm = caldera::proportion;
namespace sdk = caldera::sdk;

const char* state_name(cal_queue_state s) {
  switch (s) {
    case CAL_QUEUE_OPEN: return "Open";
    case CAL_QUEUE_CLOSED: return "Closed";
    case CAL_QUEUE_CLOSING: return "Closing";
  }
  return "Unknown";
}

class Proportion {
 public:
  static constexpr const char* kName = "proportion";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "shares the cluster between queues by weight (deserved), orders queues by share, "
      "limits allocation to deserved and enqueueing to capability, reclaims from queues "
      "over their share (Volcano's proportion)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::queue_order,
      sdk::Hook::reclaimable, sdk::Hook::overused, sdk::Hook::allocatable,
      sdk::Hook::preemptive, sdk::Hook::preemptive_many, sdk::Hook::job_enqueueable,
      sdk::Hook::job_enqueued,
      sdk::Hook::on_allocate, sdk::Hook::on_deallocate, sdk::Hook::on_close);

  Proportion(sdk::Session s, const sdk::Args&) : ssn_(s), n_(s.resource_count()) {
    const ResVec total = s.cluster_total().copy();

    // Volcano sums the guarantee of every queue, with or without jobs.
    ResVec total_guarantee(n_);
    for (size_t i = 0; i < s.queue_count(); ++i) {
      sdk::Res g = s.queue(i).guarantee();
      if (g) total_guarantee.add(g.data());
    }

    for (size_t i = 0; i < s.job_count(); ++i) add_job(s.job(i), total, total_guarantee);

    std::vector<QueueAttr*> in_session;
    for (auto& q : order_)
      if (q->has_jobs) in_session.push_back(q);
    const int rounds = pm::water_fill(in_session, total);

    for (QueueAttr* a : in_session) {
      a->share = pm::share_of(a->allocated, a->deserved);
      sdk::log(CAL_LOG_DEBUG, kName,
               "queue " + a->name + ": deserved " + describe(a->deserved) + ", allocated " +
                   describe(a->allocated) + ", request " + describe(a->request) + ", share " +
                   number(a->share) + " (" + std::to_string(rounds) + " rounds)");
    }
  }

  int queue_order(sdk::Queue l, sdk::Queue r) {
    const QueueAttr* la = find(l);
    const QueueAttr* ra = find(r);
    if (!la || !ra) return 0;
    return pm::queue_order(*la, *ra);
  }

  cal_vote reclaimable(sdk::Task /*reclaimer*/, const std::vector<sdk::Task>& candidates,
                       std::vector<uint8_t>& victims) {
    std::vector<pm::Reclaimee> cands;
    std::vector<size_t> index;  // position in `candidates` of each entry of `cands`
    for (size_t k = 0; k < candidates.size(); ++k) {
      const QueueAttr* a = find(candidates[k].job().queue());
      if (!a) continue;  // a queue without jobs cannot own a running task
      cands.push_back({a, candidates[k].request().data()});
      index.push_back(k);
    }
    const std::vector<uint8_t> v = pm::reclaim_victims(cands);
    for (size_t k = 0; k < v.size(); ++k) victims[index[k]] = v[k];
    return CAL_PERMIT;
  }

  bool overused(sdk::Queue q) {
    const QueueAttr* a = find(q);
    // Volcano only asks about queues that hold jobs; a queue without jobs uses nothing.
    return a && a->has_jobs && pm::overused(*a);
  }

  bool allocatable(sdk::Queue q, sdk::Task t) {
    const QueueAttr* a = find(q);
    if (!a) return false;
    if (!a->open) {
      t.job().set_pending_reason(kName, "queue " + a->name + " is " + state_name(q.state()));
      return false;
    }
    const std::vector<size_t> over = pm::over_deserved(*a, t.request().data());
    if (over.empty()) return true;
    t.job().set_pending_reason(kName, "queue " + a->name + " over its deserved " + names(over));
    return false;
  }

  bool preemptive(sdk::Queue q, sdk::Task t) {
    const QueueAttr* a = find(q);
    if (!a || !a->open) return false;
    return pm::over_deserved(*a, t.request().data()).empty();
  }

  // Volcano's PreemptiveFn is queueAllocatable over every candidate, their requests summed
  // (gangreclaim asks for a whole job's pending tasks).
  bool preemptive_many(sdk::Queue q, const std::vector<sdk::Task>& tasks) {
    const QueueAttr* a = find(q);
    if (!a || !a->open) return false;
    ResVec total(n_);
    for (const sdk::Task& t : tasks) total.add(t.request().data());
    return pm::over_deserved(*a, total.data()).empty();
  }

  cal_vote job_enqueueable(sdk::Job j) {
    QueueAttr* a = find(j.queue());
    if (!a) return CAL_REJECT;
    if (!a->open) {
      j.set_pending_reason(kName, "queue " + a->name + " is " + state_name(j.queue().state()));
      return CAL_REJECT;
    }
    sdk::Res min = j.min_resources();
    if (!min) return CAL_PERMIT;  // no minResources: nothing to reserve
    const std::vector<size_t> over = pm::over_capability(*a, min.data());
    if (over.empty()) return CAL_PERMIT;
    j.set_pending_reason(kName,
                         "queue " + a->name + " resource quota insufficient: " + names(over));
    return CAL_REJECT;
  }

  void job_enqueued(sdk::Job j) {
    QueueAttr* a = find(j.queue());
    sdk::Res min = j.min_resources();
    if (a && min) a->inqueue.add(min.data());
  }

  void on_allocate(sdk::Task t) {
    QueueAttr* a = find(t.job().queue());
    if (!a) return;
    a->allocated.add(t.request().data());
    a->share = pm::share_of(a->allocated, a->deserved);
  }

  void on_deallocate(sdk::Task t) {
    QueueAttr* a = find(t.job().queue());
    if (!a) return;
    a->allocated.sub(t.request().data());
    a->share = pm::share_of(a->allocated, a->deserved);
  }

  // The figures Volcano's proportion publishes as volcano_queue_deserved_* (at open) and
  // volcano_queue_share (after each change): final at close.
  void on_close() {
    for (const auto& [handle, a] : attrs_)
      if (a->has_jobs) sdk::Queue(handle, n_).set_fair_share(kName, a->deserved.data(), a->share);
  }

 private:
  QueueAttr* find(sdk::Queue q) const {
    auto it = attrs_.find(q.handle());
    return it == attrs_.end() ? nullptr : it->second.get();
  }

  QueueAttr& attr_of(sdk::Queue q, const ResVec& total, const ResVec& total_guarantee) {
    auto it = attrs_.find(q.handle());
    if (it != attrs_.end()) return *it->second;
    auto a = std::make_unique<QueueAttr>(n_);
    a->name = std::string(q.name());
    a->weight = q.weight();
    a->priority = q.priority();
    a->open = q.state() == CAL_QUEUE_OPEN;
    sdk::Res g = q.guarantee();
    if (g) a->guarantee = g.copy();
    sdk::Res cap = q.capability();
    a->real_capability = pm::real_capability(total, total_guarantee, a->guarantee, cap.data());
    QueueAttr& ref = *a;
    order_.push_back(a.get());
    attrs_.emplace(q.handle(), std::move(a));
    return ref;
  }

  // One job's contribution to its queue, as OnSessionOpen's job loop computes it.
  void add_job(sdk::Job j, const ResVec& total, const ResVec& total_guarantee) {
    QueueAttr& a = attr_of(j.queue(), total, total_guarantee);
    a.has_jobs = true;

    sdk::Res allocated = j.allocated();  // Resreq of tasks in allocated statuses
    a.allocated.add(allocated.data());
    a.request.add(allocated.data());
    for (size_t i = 0; i < j.task_count(); ++i) {
      sdk::Task t = j.task(i);
      if (t.status() == CAL_TASK_PENDING) a.request.add(t.request().data());
    }

    sdk::Res min = j.min_resources();
    if (j.phase() == CAL_PHASE_INQUEUE && min) a.inqueue.add(min.data());
    // A running job that has its min member allocated still holds on to the part of its
    // minResources it has not allocated yet (Volcano: util.GetInqueueResource).
    if (j.phase() == CAL_PHASE_RUNNING && min) {
      const int32_t allocated_tasks =
          j.status_count(CAL_TASK_ALLOCATED) + j.status_count(CAL_TASK_BINDING) +
          j.status_count(CAL_TASK_BOUND) + j.status_count(CAL_TASK_RUNNING);
      if (allocated_tasks >= j.min_available())
        a.inqueue.add(pm::inqueue_reserve(min.data(), allocated.data(), n_));
    }
    a.elastic.add(pm::elastic_of(allocated.data(), min.data(), n_));
  }

  std::string names(const std::vector<size_t>& dims) const {
    std::string out;
    for (size_t d : dims) {
      if (!out.empty()) out += ", ";
      out += std::string(ssn_.resource_name(d));
    }
    return out;
  }

  std::string describe(const ResVec& v) const {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!out.empty()) out += ", ";
      out += std::string(ssn_.resource_name(i)) + " " + number(v[i]);
    }
    return "<" + out + ">";
  }

  static std::string number(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return buf;
  }

  sdk::Session ssn_;
  size_t n_;
  std::unordered_map<const cal_queue*, std::unique_ptr<QueueAttr>> attrs_;
  std::vector<QueueAttr*> order_;  // in the order queues were first met, for logs
};

}  // namespace

CALDERA_PLUGIN(Proportion)
