// What the gang-aware evicting actions share: their arguments, the jobs and queues they
// walk, the victims the plugins allow, and the walk over a job's eviction domains.
//
// Volcano ed72c7c has gangpreempt and gangreclaim as two files that repeat these parts
// (pkg/scheduler/actions/gangpreempt/gangpreempt.go, gangreclaim/gangreclaim.go); here the
// repeated parts are written once and each action file keeps what is its own: which tasks
// are victims, how bundles are ordered, and the checks before a job's domains are walked.
//
// The walk over one job's domains (Volcano's preemptJobInDomains / reclaimJobInDomains):
//   need = the summed InitResreq of the job's pending tasks (gang_simulate.hpp)
//   for each domain (gang_domains.hpp) with nodes and with bundles (the action's choice):
//     victims = nothing; for each bundle in order: add its tasks to the victims; when the
//     domain's idle plus releasing plus the victims' requests do not hold the need, go on
//     to the next bundle; else dry-run those victims and the job's tasks in the domain
//     (gang_simulate.hpp); when the job ends up pipelined, replay the dry run in the job's
//     statement and stop; else go on adding bundles.
// A job is thus taken whole or not at all: its statement commits when it is pipelined
// (Volcano commits on JobPipelined) and is discarded otherwise.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actions/gang_bundles.hpp"
#include "actions/gang_domains.hpp"
#include "actions/priority_queue.hpp"
#include "host/session/session.hpp"
#include "host/session/statement.hpp"

namespace caldera::gang {

// The arguments of [actions.gangpreempt] and [actions.gangreclaim] (Volcano's names).
inline constexpr const char* kMaxDomainsKey = "maxDomains";
inline constexpr const char* kAllowWholeBundleKey = "allowWholeBundle";
inline constexpr int64_t kDefaultMaxDomains = 8;

struct Options {
  int64_t max_domains = kDefaultMaxDomains;  // domains tried per job
  bool allow_whole_bundle = true;            // whole-job bundles may be evicted
  bool predicate_error_cache = true;         // allocate's predicateErrorCacheEnable
};

// Volcano's parseArguments: the action's maxDomains (not positive: the default, with a
// warning once per change) and allowWholeBundle, and allocate's predicateErrorCacheEnable
// for the dry runs (true when allocate has none).
Options read_options(const Session& ssn, const std::string& action);

// The option table both actions declare.
std::vector<cal_option> action_options();

// Volcano's IsJobPreemptableForGangEviction: a victim job is eligible unless its PodGroup
// says volcano.sh/preemptable, in which case the value decides (Go's ParseBool; anything
// else reads false, as Volcano's extractPreemptable). Caldera's PodGroups carry
// annotations only, so a PodGroup label is not read.
bool is_job_preemptable_for_gang_eviction(const JobInfo* job);

// The jobs an action walks, as both Executes pick them up: every queue of a job that is not
// Pending, passes job_valid and has its queue in the session, in queue order; per queue, its
// starving jobs in job order.
struct Preemptors {
  explicit Preemptors(Session& ssn, const std::string& action);
  PriorityQueue<QueueInfo*> queues;
  std::map<const QueueInfo*, PriorityQueue<JobInfo*>> jobs;
};

// The part of selectDomainBundles after the candidates are bundled: sort them, ask the
// plugins (unified_evictable, with the kind, the evicting job and the domain) which of the
// candidates may go, cut the bundles to that, sort again, and drop whole bundles when they
// are not allowed.
std::vector<Bundle> allowed_bundles(const Session& ssn, cal_eviction_kind kind,
                                    const JobInfo* job, const Domain& domain,
                                    std::vector<Bundle> bundles,
                                    const std::function<void(std::vector<Bundle>&)>& sort,
                                    bool allow_whole_bundle);

// The walk over the job's domains (above). True when a plan was replayed into `stmt`.
bool evict_in_domains(Session& ssn, Statement& stmt, const EvictionDomains& domains,
                      QueueInfo* queue, JobInfo* job, const std::vector<TaskInfo*>& pending,
                      const std::function<std::vector<Bundle>(const Domain&)>& select_bundles,
                      const std::string& reason, const Options& opt);

// The end of a job's turn in both actions: commit when the job is pipelined (counting an
// eviction transaction, in Statement::commit), else discard.
void finish_job(Session& ssn, Statement& stmt, JobInfo* job, const std::string& action);

}  // namespace caldera::gang
