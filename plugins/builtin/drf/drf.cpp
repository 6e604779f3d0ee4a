// drf: Dominant Resource Fairness between jobs.
//
// Follows Volcano's pkg/scheduler/plugins/drf/drf.go (its flat form), mapping:
//   OnSessionOpen job shares       -> the constructor (allocated = tasks in allocated
//                                     statuses, share = dominant share of the cluster)
//   AddJobOrderFn                  -> job_order   (smaller dominant share first)
//   AddPreemptableFn               -> preemptable (victims whose job keeps at least the
//                                     preemptor job's share after the move)
//   AddEventHandler Allocate/Deallocate -> on_allocate / on_deallocate (as in Volcano,
//                                     pipelined tasks count as allocated from the event
//                                     on, and evictions take the task away)
// The pure arithmetic is in drf_math.hpp. The cluster total is the sum of the ready nodes'
// allocatable (Session::cluster_total), read once at open as Volcano does.
//
// Not carried over:
// - hierarchy (Volcano's enableHierarchy: hierarchical DRF over queue paths, with its own
//   queue_order and reclaimable): `hierarchy = true` is refused when the config loads
//   (check_args), never run as flat DRF in its place. Hierarchical queues: capacity with
//   hierarchy = true.
// - namespace order (Volcano's enableNamespaceOrder): Caldera has no namespace weights or
//   namespace ordering point.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "caldera/sdk.hpp"
#include "drf/drf_math.hpp"

namespace {

using caldera::ResVec;
namespace sdk = caldera::sdk;
using caldera::sdk::Args;
using caldera::sdk::Job;
using caldera::sdk::Session;
using caldera::sdk::Task;

struct Drf {
  static constexpr const char* kName = "drf";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "dominant resource fairness: jobs with the smallest dominant share go first and may "
      "preempt jobs with a larger one";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::job_order, sdk::Hook::preemptable,
      sdk::Hook::on_allocate, sdk::Hook::on_deallocate, sdk::Hook::check_args);

  static sdk::Status check_args(const sdk::Args& a) {
    if (a.hierarchy())
      return sdk::Status::error(
          "hierarchy = true (Volcano's enableHierarchy, hierarchical DRF) is not implemented "
          "here; leave it out, or give hierarchical queues to capacity with hierarchy = true");
    return sdk::Status::ok();
  }
  // Volcano's drf plugin reads no arguments (enableHierarchy is the config's `hierarchy`).

  Drf(Session s, const Args&) : ssn_(s), total_(s.cluster_total().copy()) {
    const size_t n = ssn_.job_count();
    attrs_.reserve(n);
    for (size_t i = 0; i < n; ++i) attr(ssn_.job(i));
  }

  int job_order(Job l, Job r) {
    return caldera::drf::compare_shares(attr(l).share, attr(r).share);
  }

  cal_vote preemptable(Task preemptor, const std::vector<Task>& preemptees,
                       std::vector<uint8_t>& victims) {
    ResVec lalloc = attr(preemptor.job()).allocated;
    lalloc.add(preemptor.request().copy());
    const double ls = share_of(lalloc);

    // Each job's allocation as the earlier candidates of this call leave it: Volcano
    // subtracts every candidate of a job in turn, victim or not.
    std::unordered_map<const cal_job*, ResVec> allocations;
    for (size_t i = 0; i < preemptees.size(); ++i) {
      const Task& t = preemptees[i];
      const Job j = t.job();
      auto it = allocations.find(j.handle());
      if (it == allocations.end()) it = allocations.emplace(j.handle(), attr(j).allocated).first;
      it->second.sub(t.request().copy());
      victims[i] = caldera::drf::may_preempt(ls, share_of(it->second)) ? 1 : 0;
    }
    return CAL_PERMIT;
  }

  void on_allocate(Task t) {
    Attr& a = attr(t.job());
    a.allocated.add(t.request().copy());
    update(a);
  }

  void on_deallocate(Task t) {
    Attr& a = attr(t.job());
    a.allocated.sub(t.request().copy());
    update(a);
  }

 private:
  struct Attr {
    ResVec allocated;
    double share = 0;
    int dominant = -1;
  };

  double share_of(const ResVec& alloc) const {
    return caldera::drf::dominant_share(alloc.data(), total_.data(), total_.size()).share;
  }

  void update(Attr& a) const {
    const auto d = caldera::drf::dominant_share(a.allocated.data(), total_.data(), total_.size());
    a.share = d.share;
    a.dominant = d.resource;
  }

  // The job's state; a job first seen after open starts from what the host says it holds.
  Attr& attr(const Job& j) {
    auto it = attrs_.find(j.handle());
    if (it != attrs_.end()) return it->second;
    Attr a;
    a.allocated = j.allocated().copy();
    update(a);
    return attrs_.emplace(j.handle(), std::move(a)).first->second;
  }

  Session ssn_;
  ResVec total_;
  std::unordered_map<const cal_job*, Attr> attrs_;
};

}  // namespace

CALDERA_PLUGIN(Drf)
