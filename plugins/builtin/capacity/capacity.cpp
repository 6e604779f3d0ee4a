// capacity: elastic queue quotas by deserved / capability / guarantee, as Volcano's
// pkg/scheduler/plugins/capacity/capacity.go does it (arithmetic in capacity_math.hpp).
//
// A queue may borrow idle resources up to its capability (realCapability: capability, and
// never more than the cluster minus the other queues' guarantees); what it holds beyond
// its deserved can be reclaimed by queues below theirs; its guarantee is never reclaimed.
//   queue_order      higher priority first, then the smaller share (allocated/deserved;
//                    a queue without deserved counts as share 1, after those with one)
//   reclaimable      victims from queues above deserved in the victim's dimensions
//   preemptive       the reclaimer's queue stays within realCapability and below deserved
//                    in some requested dimension
//   unified_evictable (ABI 1.7, gangpreempt / gangreclaim) every candidate for
//                    gang-preempt; for gang-reclaim, in the order given, a candidate that
//                    leaves its queue at its guarantee and whose queue (less the victims
//                    taken before) is above deserved in a dimension it requests, or
//                    deserves none of what it requests
//   preemptive_many  preemptive for the tasks' requests summed (gangreclaim's whole job)
//   allocatable      allocated + request within realCapability (and every ancestor's)
//   job_enqueueable  minResources + allocated + inqueue - elastic within realCapability
//   job_enqueued     minResources join inqueue (of the queue and its ancestors)
//   on_allocate / on_deallocate keep allocated (and the queue's share) current.
//
// Hierarchy (`hierarchy = true` on the plugin entry, Volcano's enableHierarchy): every
// queue gets attributes; a queue's parent is Queue::parent(), and a queue without one
// hangs under "root" (the session's queue of that name, or an implicit unlimited root
// when the cluster declares none). Only leaf queues run jobs; usage counts in every
// ancestor; realCapability is derived from the parent's down the tree; allocation and
// enqueueing are checked up the tree. A job in a queue that has children makes the
// plugin refuse everything for the session, as Volcano's readyToSchedule = false does;
// the reason is logged and set on the job.
//
// Argument: ancestorReclaimLevel (Volcano's name, default 0): with hierarchy, how many
// ancestor levels reclaim and preemptive look at (see capacity_math.hpp). A negative
// value is refused when the config loads (Volcano warns and uses 0).
//
// Differences from Volcano, each forced by the ABI or chosen for determinism:
//   - Volcano registers no OverusedFn in capacity (preemptive plays that part), so
//     neither does this plugin; VictimQueueOrderFn, the simulate* functions, DRA quotas
//     and the scheduling-gate reservations have no ABI point and are left out.
//   - Reclaim candidates arrive in Volcano's victim order (BuildVictimsPriorityQueue) and
//     the plugin applies its own VictimQueueOrderFn on top (victim_walk_order); the
//     evicting actions still order the chosen victims without that function, which has
//     no ABI point.
//   - A capability dimension the queue leaves out is unlimited, also on the root queue
//     (Volcano reads a partly given root capability's missing cpu or memory as 0).
//   - Scalar minResources are in the same milli-units as every other scalar (Volcano's
//     GetInqueueResource compares whole units against milli-units).
//   - As in Volcano, an allocation updates the share of the job's own queue only; the
//     ancestors' shares (which order sibling subtrees) stay as computed at open.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "caldera/sdk.hpp"
#include "capacity/capacity_math.hpp"

namespace {

using caldera::ResVec;
using caldera::capacity::QueueAttr;
namespace cm = caldera::capacity;
namespace sdk = caldera::sdk;

constexpr const char* kRootQueue = "root";

const char* state_name(cal_queue_state s) {
  switch (s) {
    case CAL_QUEUE_OPEN: return "Open";
    case CAL_QUEUE_CLOSED: return "Closed";
    case CAL_QUEUE_CLOSING: return "Closing";
  }
  return "Unknown";
}

class Capacity {
 public:
  static constexpr const char* kName = "capacity";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "elastic queue quotas: borrow idle resources up to capability, reclaim back to "
      "deserved, keep guarantee; hierarchical queues with hierarchy = true "
      "(Volcano's capacity)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::queue_order,
      sdk::Hook::reclaimable, sdk::Hook::allocatable, sdk::Hook::preemptive,
      sdk::Hook::preemptive_many, sdk::Hook::unified_evictable,
      sdk::Hook::job_enqueueable, sdk::Hook::job_enqueued, sdk::Hook::on_allocate,
      sdk::Hook::on_deallocate, sdk::Hook::on_close, sdk::Hook::check_args);

  static constexpr sdk::Int kAncestorReclaimLevel{
      "ancestorReclaimLevel", 0,
      "With hierarchy: how many ancestor levels reclaim and preemptive also check against "
      "their deserved (0: only the queue itself)."};
  static constexpr auto kOptions = sdk::options(kAncestorReclaimLevel);

  static sdk::Status check_args(const sdk::Args& a) {
    if (a.get(kAncestorReclaimLevel) < 0)
      return sdk::Status::error({kAncestorReclaimLevel.name, " must be >= 0, got ",
                                 std::to_string(a.get(kAncestorReclaimLevel))});
    return sdk::Status::ok();
  }

  Capacity(sdk::Session s, const sdk::Args& a)
      : ssn_(s),
        n_(s.resource_count()),
        hierarchy_(a.hierarchy()),
        level_(static_cast<int>(std::max<int64_t>(0, a.get(kAncestorReclaimLevel)))) {
    if (hierarchy_)
      build_hierarchy();
    else
      build_flat();
    for (QueueAttr* q : order_)
      sdk::log(CAL_LOG_DEBUG, kName,
               "queue " + q->name + ": deserved " + describe(q->deserved) + ", realCapability " +
                   describe(q->real_capability) + ", allocated " + describe(q->allocated) +
                   ", request " + describe(q->request) + ", inqueue " + describe(q->inqueue) +
                   ", elastic " + describe(q->elastic) + ", share " + number(q->share));
  }

  // The figures Volcano's capacity publishes as volcano_queue_deserved_* and
  // volcano_queue_share, final at close (queues the session has a record for).
  void on_close() {
    if (!ready_) return;
    for (const auto& [handle, a] : attrs_)
      sdk::Queue(handle, n_).set_fair_share(kName, a->deserved.data(), a->share);
  }

  int queue_order(sdk::Queue l, sdk::Queue r) {
    const QueueAttr* la = find(l);
    const QueueAttr* ra = find(r);
    if (!ready_ || !la || !ra) return 0;  // Volcano registers no order then
    return hierarchy_ ? cm::hierarchical_queue_order(*la, *ra) : cm::flat_queue_order(*la, *ra);
  }

  cal_vote reclaimable(sdk::Task reclaimer, const std::vector<sdk::Task>& candidates,
                       std::vector<uint8_t>& victims) {
    // Volcano's Reject: this plugin takes part and allows no victim.
    if (!ready_) return CAL_PERMIT;
    const QueueAttr* rq = find(reclaimer.job().queue());
    if (!rq) return CAL_PERMIT;

    std::vector<size_t> index;  // position in `candidates` of each entry of `cands`
    const std::vector<cm::Reclaimee> cands = reclaimees(candidates, index);
    cm::ReclaimContext ctx;
    ctx.reclaimer_queue = rq;
    ctx.reclaimer_request = reclaimer.request().data();
    ctx.reclaimer_init_request = reclaimer.init_request().data();
    ctx.hierarchy = hierarchy_;
    ctx.ancestor_reclaim_level = level_;
    ctx.root = root_;
    ctx.n = n_;
    const std::vector<uint8_t> v = cm::reclaim_victims(ctx, cands);
    for (size_t k = 0; k < v.size(); ++k) victims[index[k]] = v[k];
    return CAL_PERMIT;
  }

  bool preemptive(sdk::Queue q, sdk::Task t) {
    if (!ready_) return false;
    if (q.state() != CAL_QUEUE_OPEN) return false;
    const QueueAttr* a = find(q);
    if (!a) return false;
    return cm::preemptive(*a, t.request().data(), hierarchy_, level_, root_);
  }

  // Volcano's PreemptiveFn over several candidates: their requests summed.
  bool preemptive_many(sdk::Queue q, const std::vector<sdk::Task>& tasks) {
    if (!ready_) return false;
    if (q.state() != CAL_QUEUE_OPEN) return false;
    const QueueAttr* a = find(q);
    if (!a) return false;
    ResVec total(n_);
    for (const sdk::Task& t : tasks) total.add(t.request().data());
    return cm::preemptive(*a, total.data(), hierarchy_, level_, root_);
  }

  // Volcano's AddUnifiedEvictableFn closure. It calls no shouldSkipReclaimee (the
  // reclaimer's resources are a whole job's), no ancestor check and no victim queue order:
  // the candidates are taken in the order the action gives.
  cal_vote unified_evictable(const sdk::EvictionContext& ctx,
                             const std::vector<sdk::Task>& candidates,
                             std::vector<uint8_t>& victims) {
    if (ctx.kind() == CAL_EVICTION_GANG_PREEMPT) {
      // Capacity does not filter preemption victims (no preemptable function either).
      std::fill(victims.begin(), victims.begin() + candidates.size(), 1);
      return CAL_PERMIT;
    }
    if (!ready_) return CAL_PERMIT;  // Volcano's Reject: takes part, allows none
    std::vector<size_t> index;  // position in `candidates` of each entry of `cands`
    const std::vector<cm::Reclaimee> cands = reclaimees(candidates, index);
    const std::vector<uint8_t> v = cm::gang_reclaim_victims(cands, n_);
    for (size_t k = 0; k < v.size(); ++k) victims[index[k]] = v[k];
    return CAL_PERMIT;
  }

  bool allocatable(sdk::Queue q, sdk::Task t) {
    const QueueAttr* a = find(q);
    if (q.state() != CAL_QUEUE_OPEN) {
      t.job().set_pending_reason(kName, "queue " + std::string(q.name()) + " is " +
                                            state_name(q.state()));
      return false;
    }
    if (!ready_) {
      t.job().set_pending_reason(kName, not_ready_reason_);
      return false;
    }
    if (!a) return false;
    if (hierarchy_ && !a->leaf()) {
      t.job().set_pending_reason(kName, "queue " + a->name + " is not a leaf queue");
      return false;
    }
    std::vector<size_t> dims;
    const QueueAttr* over = cm::allocatable_chain(*a, t.request().data(), &dims);
    if (!over) return true;
    t.job().set_pending_reason(kName, "queue " + over->name + " would exceed its capability in " +
                                          names(dims));
    return false;
  }

  cal_vote job_enqueueable(sdk::Job j) {
    if (!ready_) {
      j.set_pending_reason(kName, not_ready_reason_);
      return CAL_REJECT;
    }
    const QueueAttr* a = find(j.queue());
    if (!a) return CAL_REJECT;
    if (hierarchy_ && !a->leaf()) {
      j.set_pending_reason(kName, "queue " + a->name + " is not a leaf queue");
      return CAL_REJECT;
    }
    if (j.queue().state() != CAL_QUEUE_OPEN) {
      j.set_pending_reason(kName,
                           "queue " + a->name + " is " + state_name(j.queue().state()));
      return CAL_REJECT;
    }
    sdk::Res min = j.min_resources();
    if (!min) return CAL_PERMIT;  // no minResources: nothing to reserve
    std::vector<size_t> dims;
    const QueueAttr* over = cm::enqueue_chain(*a, min.data(), &dims);
    if (!over) return CAL_PERMIT;
    j.set_pending_reason(kName, "queue " + over->name + " resource quota insufficient: " +
                                    names(dims));
    return CAL_REJECT;
  }

  void job_enqueued(sdk::Job j) {
    QueueAttr* a = find(j.queue());
    sdk::Res min = j.min_resources();
    if (!a || !min) return;
    a->inqueue.add(min.data());
    if (hierarchy_)
      for (QueueAttr* anc : a->ancestors) anc->inqueue.add(min.data());
  }

  void on_allocate(sdk::Task t) { account(t, +1); }
  void on_deallocate(sdk::Task t) { account(t, -1); }

 private:
  // The candidates whose queue the plugin knows, with their requests; `index`: each one's
  // position in `candidates`.
  std::vector<cm::Reclaimee> reclaimees(const std::vector<sdk::Task>& candidates,
                                        std::vector<size_t>& index) const {
    std::vector<cm::Reclaimee> cands;
    for (size_t k = 0; k < candidates.size(); ++k) {
      const QueueAttr* q = find(candidates[k].job().queue());
      if (!q) continue;
      cands.push_back({q, candidates[k].request().data()});
      index.push_back(k);
    }
    return cands;
  }

  void account(sdk::Task t, int sign) {
    QueueAttr* a = find(t.job().queue());
    if (!a) return;
    const double* req = t.request().data();
    auto apply = [&](QueueAttr* q) {
      if (sign > 0)
        q->allocated.add(req);
      else
        q->allocated.sub(req);
    };
    apply(a);
    a->share = cm::share_of(a->allocated, a->deserved);
    if (hierarchy_)
      for (QueueAttr* anc : a->ancestors) apply(anc);
  }

  QueueAttr* find(sdk::Queue q) const {
    auto it = attrs_.find(q.handle());
    return it == attrs_.end() ? nullptr : it->second;
  }

  QueueAttr* new_attr(const std::string& name) {
    owned_.push_back(std::make_unique<QueueAttr>(n_));
    QueueAttr* a = owned_.back().get();
    a->name = name;
    order_.push_back(a);
    return a;
  }

  // The queue's own settings, as newQueueAttr reads them (capability: +inf where unset).
  QueueAttr* attr_for(sdk::Queue q) {
    QueueAttr* a = new_attr(std::string(q.name()));
    a->priority = q.priority();
    a->open = q.state() == CAL_QUEUE_OPEN;
    if (sdk::Res d = q.deserved()) a->deserved = d.copy();
    if (sdk::Res g = q.guarantee()) a->guarantee = g.copy();
    if (sdk::Res c = q.capability()) a->capability = c.copy();
    attrs_[q.handle()] = a;
    return a;
  }

  // One job's contribution to a queue, as both build functions compute it.
  void add_job(QueueAttr& a, sdk::Job j) {
    sdk::Res allocated = j.allocated();  // Resreq of tasks in allocated statuses
    a.allocated.add(allocated.data());
    a.request.add(allocated.data());
    for (size_t i = 0; i < j.task_count(); ++i) {
      sdk::Task t = j.task(i);
      if (t.status() == CAL_TASK_PENDING) a.request.add(t.request().data());
    }
    sdk::Res min = j.min_resources();
    if (min && j.phase() == CAL_PHASE_INQUEUE)
      a.inqueue.add(cm::inqueue_reserve(min.data(), allocated.data(), n_));
    if (min && j.phase() == CAL_PHASE_RUNNING) {
      const int32_t allocated_tasks =
          j.status_count(CAL_TASK_ALLOCATED) + j.status_count(CAL_TASK_BINDING) +
          j.status_count(CAL_TASK_BOUND) + j.status_count(CAL_TASK_RUNNING);
      if (allocated_tasks >= j.min_available())
        a.inqueue.add(cm::inqueue_reserve(min.data(), allocated.data(), n_));
    }
    a.elastic.add(cm::elastic_of(allocated.data(), min ? min.data() : nullptr, n_));
  }

  static void add_parts(QueueAttr& to, const QueueAttr& from) {
    to.allocated.add(from.allocated);
    to.request.add(from.request);
    to.inqueue.add(from.inqueue);
    to.elastic.add(from.elastic);
  }

  // buildQueueAttrs: attributes for the queues that hold jobs.
  void build_flat() {
    const ResVec total = ssn_.cluster_total().copy();
    ResVec total_guarantee(n_);  // over every queue, with or without jobs
    for (size_t i = 0; i < ssn_.queue_count(); ++i)
      if (sdk::Res g = ssn_.queue(i).guarantee()) total_guarantee.add(g.data());

    for (size_t i = 0; i < ssn_.job_count(); ++i) {
      sdk::Job j = ssn_.job(i);
      sdk::Queue q = j.queue();
      QueueAttr* a = find(q);
      if (!a) {
        a = attr_for(q);
        a->capability = cm::flat_capability(q.capability().data(), n_);
        a->real_capability =
            cm::flat_real_capability(total, total_guarantee, a->guarantee, a->capability);
      }
      add_job(*a, j);
    }
    for (QueueAttr* a : order_) cm::finish_flat(*a);
  }

  // buildHierarchicalQueueAttrs: attributes for every queue, linked into the tree.
  void build_hierarchy() {
    std::map<std::string, sdk::Queue> by_name;  // name order: children come out sorted
    for (size_t i = 0; i < ssn_.queue_count(); ++i) {
      sdk::Queue q = ssn_.queue(i);
      by_name.emplace(std::string(q.name()), q);
    }
    for (auto& [name, q] : by_name) attr_for(q);
    if (auto it = by_name.find(kRootQueue); it != by_name.end()) {
      root_ = find(it->second);
    } else {
      root_ = new_attr(kRootQueue);  // the implicit top: no limits of its own
    }

    // Parents and ancestors. A queue whose parent chain loops or leaves the session makes
    // the tree unusable (Volcano's updateAncestors error).
    for (auto& [name, q] : by_name) {
      QueueAttr* a = find(q);
      if (a == root_) continue;
      std::vector<QueueAttr*> chain;  // parent first
      sdk::Queue cur = q;
      for (size_t guard = 0;; ++guard) {
        if (guard > by_name.size()) {
          fail("queue " + name + ": its parents form a cycle");
          return;
        }
        sdk::Queue p = cur.parent();
        QueueAttr* pa = p ? find(p) : root_;
        if (!pa) {
          fail("queue " + name + ": parent queue is not in the session");
          return;
        }
        chain.push_back(pa);
        if (pa == root_) break;
        cur = p;
      }
      a->ancestors.assign(chain.rbegin(), chain.rend());
      chain.front()->children.push_back(a);
    }

    for (size_t i = 0; i < ssn_.job_count(); ++i) {
      sdk::Job j = ssn_.job(i);
      QueueAttr* a = find(j.queue());
      if (!a) continue;
      if (!a->leaf()) {
        fail("queue " + a->name + " of job " + std::string(j.name()) +
             " is not a leaf queue; only leaf queues run jobs");
        j.set_pending_reason(kName, not_ready_reason_);
        return;
      }
      // The job counts in its leaf and in every ancestor (Volcano adds the leaf's deltas).
      QueueAttr one(n_);
      add_job(one, j);
      for (QueueAttr* q : a->ancestors) add_parts(*q, one);
      add_parts(*a, one);
    }
    cm::finish_hierarchy(*root_, order_);
  }

  void fail(const std::string& why) {
    ready_ = false;
    not_ready_reason_ = "capacity: queue hierarchy unusable: " + why;
    sdk::log(CAL_LOG_ERROR, kName, not_ready_reason_);
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
  bool hierarchy_;
  int level_;
  bool ready_ = true;
  std::string not_ready_reason_;
  QueueAttr* root_ = nullptr;  // hierarchy only
  std::vector<std::unique_ptr<QueueAttr>> owned_;
  std::vector<QueueAttr*> order_;  // creation order, for logs and share updates
  std::unordered_map<const cal_queue*, QueueAttr*> attrs_;
};

}  // namespace

CALDERA_PLUGIN(Capacity)
