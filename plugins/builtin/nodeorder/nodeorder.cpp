// nodeorder: node scores from Kubernetes' score plugins, weighted, as Volcano's
// pkg/scheduler/plugins/nodeorder/nodeorder.go registers them.
//
// node_order (Volcano's NodeOrderFn and its per-node scores):
//   leastrequested.weight    * NodeResourcesFit LeastAllocated (cpu 50, memory 50)
//   mostrequested.weight     * NodeResourcesFit MostAllocated  (cpu 1, memory 1)
//   balancedresource.weight  * NodeResourcesBalancedAllocation (cpu, memory, nvidia.com/gpu)
//   imagelocality.weight     * ImageLocality (kube/image_locality.hpp)
// batch_node_order (Volcano's BatchNodeOrderFn, normalised over the candidate nodes):
//   tainttoleration.weight   * TaintToleration (PreferNoSchedule taints, reversed)
//   nodeaffinity.weight      * NodeAffinity (preferred node affinity terms)
//   podaffinity.weight       * InterPodAffinity (preferred pod affinity and anti-affinity,
//                              the pod's and the placed pods'; kube/pod_affinity.hpp)
//   podtopologyspread.weight * PodTopologySpread (ScheduleAnyway constraints;
//                              kube/topology_spread.hpp)
// Formulas in nodeorder_math.hpp and plugins/builtin/kube/.
//
// What the Kubernetes plugins see as the node, as Volcano feeds them: the node's
// allocatable and the pods of every task on the node (Volcano builds its k8s NodeInfo from
// NodeInfo.Tasks, running, pipelined and releasing alike, and removes a pod when a task is
// evicted in the session): the host keeps these sums as node_pod_requests(_nonzero) and
// the pods as node_pod_at (caldera/plugin.h). Each pod counts its InitResreq (Kubernetes'
// PodRequests takes init containers into account). Least / most allocated count a pod that
// requests no cpu as 100m and no memory as 200Mi (Kubernetes applies these defaults per
// container; the model knows pods, not containers, so here they apply to a pod that
// requests none at all). The pod being placed is counted in, as Kubernetes scores a node
// with the pod on it.
//
// selectorspread and volumebinding weights are accepted with Volcano's defaults; the model
// has no services, replica sets or volumes yet, so those scores are 0 on every node.
//
// node_order and node_order_many only read: node-parallel.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/sdk.hpp"
#include "nodeorder/nodeorder_math.hpp"
#include "kube/image_locality.hpp"
#include "kube/pod_fit.hpp"
#include "kube/pod_affinity.hpp"
#include "kube/selectors.hpp"
#include "kube/topology_spread.hpp"
#include "predicates/predicates_math.hpp"

namespace {

namespace kube = caldera::kube;
namespace no = caldera::nodeorder;
namespace pr = caldera::predicates;
namespace sdk = caldera::sdk;

struct Weights {
  int64_t least = 0;
  int64_t most = 0;
  int64_t balanced = 0;
  int64_t taint = 0;
  int64_t node_affinity = 0;
  int64_t pod_affinity = 0;
  int64_t image_locality = 0;
  int64_t spread = 0;
};

class NodeOrder {
 public:
  static constexpr const char* kName = "nodeorder";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "scores nodes with Kubernetes' least / most allocated, balanced allocation, taint "
      "toleration, node affinity, inter-pod affinity, topology spread and image locality "
      "scores, weighted (Volcano's nodeorder)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::node_order,
      sdk::Hook::node_order_many, sdk::Hook::batch_node_order);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

  static constexpr sdk::Int kLeast{
      "leastrequested.weight", 1,
      "Weight of NodeResourcesFit LeastAllocated: free cpu and memory after placing the pod, "
      "0..100 (prefers empty nodes)."};
  static constexpr sdk::Int kMost{
      "mostrequested.weight", 0,
      "Weight of NodeResourcesFit MostAllocated: used cpu and memory after placing the pod, "
      "0..100 (prefers full nodes)."};
  static constexpr sdk::Int kBalanced{
      "balancedresource.weight", 1,
      "Weight of NodeResourcesBalancedAllocation: 100 * (1 - std deviation of the cpu, memory "
      "and nvidia.com/gpu fractions)."};
  static constexpr sdk::Int kTaint{
      "tainttoleration.weight", 3,
      "Weight of TaintToleration: fewer untolerated PreferNoSchedule taints score higher, "
      "normalised to 0..100 over the candidate nodes."};
  static constexpr sdk::Int kNodeAffinity{
      "nodeaffinity.weight", 2,
      "Weight of NodeAffinity: the weights of the pod's preferred node affinity terms the "
      "node matches, normalised to 0..100 over the candidate nodes."};
  static constexpr sdk::Int kPodAffinity{
      "podaffinity.weight", 2,
      "Weight of InterPodAffinity: preferred pod affinity (+) and anti-affinity (-) terms, "
      "the pod's and those of the pods already placed, per topology domain, normalised to "
      "0..100 over the candidate nodes."};
  static constexpr sdk::Int kImageLocality{
      "imagelocality.weight", 1,
      "Weight of ImageLocality: the size of the pod's images the node already holds, "
      "scaled by how many nodes hold them, 0..100."};
  static constexpr sdk::Int kPodTopologySpread{
      "podtopologyspread.weight", 2,
      "Weight of PodTopologySpread: fewer matching pods in the node's domains of the pod's "
      "ScheduleAnyway constraints score higher, normalised to 0..100."};
  static constexpr sdk::Int kSelectorSpread{
      "selectorspread.weight", 0,
      "Weight of SelectorSpread in older Volcano configs. Accepted so that they load; "
      "Volcano ed72c7c's nodeorder no longer reads it, and neither does Caldera."};
  static constexpr sdk::Int kVolumeBinding{
      "volumebinding.weight", 1,
      "Weight of VolumeBinding in older Volcano configs. Accepted so that they load; "
      "Volcano ed72c7c's nodeorder no longer reads it (the score moved to the predicates "
      "plugin's volumebinding.weight), and neither does Caldera."};
  static constexpr auto kOptions =
      sdk::options(kLeast, kMost, kBalanced, kTaint, kNodeAffinity, kPodAffinity,
                   kImageLocality, kPodTopologySpread, kSelectorSpread, kVolumeBinding);

  NodeOrder(sdk::Session s, const sdk::Args& a)
      : session_(s),
        resources_(s.resource_count()),
        gpu_(s.resource_id("nvidia.com/gpu")),
        allocatable_(s.node_table(CAL_NODE_ALLOCATABLE)),
        pod_requests_(s.node_table(CAL_NODE_POD_REQUESTS)),
        pod_requests_nonzero_(s.node_table(CAL_NODE_POD_REQUESTS_NONZERO)) {
    w_.least = a.get(kLeast);
    w_.most = a.get(kMost);
    w_.balanced = a.get(kBalanced);
    w_.taint = a.get(kTaint);
    w_.node_affinity = a.get(kNodeAffinity);
    w_.pod_affinity = a.get(kPodAffinity);
    w_.image_locality = a.get(kImageLocality);
    w_.spread = a.get(kPodTopologySpread);
    if (w_.pod_affinity != 0) affinity_nodes_ = kube::AffinityNodes::at_open(s);
    if (w_.image_locality != 0) images_.emplace(s);
  }

  double node_order(sdk::Task t, sdk::Node n) const {
    const double images = w_.image_locality == 0 ? 0 : image_score(t.pod().constraints(), n);
    if (w_.least == 0 && w_.most == 0 && w_.balanced == 0) return images;
    return score_on(amounts_of(t), n.index()) + images;
  }

  // The same scores for many nodes, the task's amounts read once.
  void node_order_many(sdk::Task t, const cal_node* const* nodes, size_t count,
                       double* scores) const {
    const cal_pod_constraints* c = t.pod().constraints();
    if (w_.least == 0 && w_.most == 0 && w_.balanced == 0) {
      for (size_t i = 0; i < count; ++i) scores[i] = image_score(c, sdk::Node(nodes[i], resources_));
      return;
    }
    const Amounts pod = amounts_of(t);
    for (size_t i = 0; i < count; ++i) {
      const sdk::Node n(nodes[i], resources_);
      scores[i] = score_on(pod, n.index()) + image_score(c, n);
    }
  }

  void batch_node_order(sdk::Task t, const cal_node* const* nodes, size_t count,
                        double* scores) const {
    if (count == 0) return;
    taint_scores(t, nodes, count, scores);
    const sdk::Pod pod = t.pod();
    std::vector<int64_t>& buf = scratch_;
    buf.assign(count, 0);
    if (w_.node_affinity != 0) node_affinity_scores(pod.constraints(), nodes, count, scores);
    if (w_.pod_affinity != 0 &&
        kube::pod_affinity_scores(session_, affinity_nodes_, pod, label_columns_, nodes, count,
                                  buf.data()))
      for (size_t k = 0; k < count; ++k) scores[k] += static_cast<double>(buf[k] * w_.pod_affinity);
    const cal_pod_constraints* c = pod.constraints();
    if (w_.spread != 0 && c != nullptr && c->spread_count > 0 &&
        kube::spread_scores(session_, pod, kube::PodFit::of(t), label_columns_, nodes, count,
                            buf.data()))
      for (size_t k = 0; k < count; ++k) scores[k] += static_cast<double>(buf[k] * w_.spread);
  }

 private:
  double image_score(const cal_pod_constraints* c, sdk::Node n) const {
    if (w_.image_locality == 0 || !images_) return 0;
    return static_cast<double>(images_->score(c, n) * w_.image_locality);
  }

  struct Amounts {
    int64_t cpu = 0, memory = 0, gpu = 0;  // as requested
    int64_t cpu_nz = 0, memory_nz = 0;     // with the non-zero defaults
  };

  // The Kubernetes resource scores on the node of index `node`.
  double score_on(const Amounts& pod, size_t node) const {
    // The pods already on the node, as the host keeps Kubernetes' NodeInfo sums.
    const size_t row = node * resources_;
    const double* req = pod_requests_ + row;
    const double* nonzero = pod_requests_nonzero_ + row;
    const double* alloc = allocatable_ + row;
    const int64_t alloc_cpu = no::whole(alloc[0]);
    const int64_t alloc_mem = no::whole(alloc[1]);
    const int64_t node_cpu_nz = no::whole(nonzero[0]), node_mem_nz = no::whole(nonzero[1]);

    double score = 0;
    if (w_.least != 0) {
      const no::Dim dims[] = {{alloc_cpu, node_cpu_nz + pod.cpu_nz, 50},
                              {alloc_mem, node_mem_nz + pod.memory_nz, 50}};
      score += static_cast<double>(no::least_allocated(dims, 2) * w_.least);
    }
    if (w_.most != 0) {
      const no::Dim dims[] = {{alloc_cpu, node_cpu_nz + pod.cpu_nz, 1},
                              {alloc_mem, node_mem_nz + pod.memory_nz, 1}};
      score += static_cast<double>(no::most_allocated(dims, 2) * w_.most);
    }
    // A pod that requests none of the balanced resources is not scored (Kubernetes'
    // isBestEffortPod check when Score runs without PreScore, as Volcano calls it).
    if (w_.balanced != 0 && (pod.cpu > 0 || pod.memory > 0 || pod.gpu > 0)) {
      const int64_t on_cpu = no::whole(req[0]), on_mem = no::whole(req[1]);
      no::Dim with[3] = {{alloc_cpu, on_cpu + pod.cpu, 1}, {alloc_mem, on_mem + pod.memory, 1}};
      no::Dim without[3] = {{alloc_cpu, on_cpu, 1}, {alloc_mem, on_mem, 1}};
      size_t count = 2;
      // An extended resource the pod does not request is left out of the balance.
      if (gpu_ >= 0 && pod.gpu > 0) {
        const int64_t on_gpu = no::whole(req[gpu_]), alloc_gpu = no::whole(alloc[gpu_]);
        with[count] = {alloc_gpu, on_gpu + pod.gpu, 1};
        without[count++] = {alloc_gpu, on_gpu, 1};
      }
      score += static_cast<double>(no::balanced_allocation(with, without, count) * w_.balanced);
    }
    return score;
  }

  // NodeAffinity: the preferred terms' weights, normalised (DefaultNormalizeScore); skipped
  // for a pod without preferred terms.
  void node_affinity_scores(const cal_pod_constraints* c, const cal_node* const* nodes,
                            size_t count, double* scores) const {
    if (c == nullptr || c->preferred_node_term_count == 0) return;
    std::vector<int64_t>& buf = scratch_;
    kube::NodeLabels labels(session_, label_columns_);
    for (size_t k = 0; k < count; ++k) {
      const sdk::Node n(nodes[k], 0);
      const size_t node = n.index();
      buf[k] = kube::preferred_node_affinity_score(
          c, [&](const char* key) { return labels.get(key, node); }, n.name().data());
    }
    no::normalize(buf, /*reverse=*/false);
    for (size_t k = 0; k < count; ++k) scores[k] += static_cast<double>(buf[k] * w_.node_affinity);
  }

  void taint_scores(sdk::Task t, const cal_node* const* nodes, size_t count,
                    double* scores) const {
    if (w_.taint == 0) return;
    // PreScore: the tolerations that can tolerate PreferNoSchedule (empty effect included).
    std::vector<pr::Toleration> tolerations;
    const std::vector<cal_taint> raw = t.tolerations();
    for (const cal_taint& tol : raw) {
      const std::string_view effect = sdk::sv(tol.effect);
      if (effect.empty() || effect == "PreferNoSchedule")
        tolerations.push_back({sdk::sv(tol.key), sdk::sv(tol.op), sdk::sv(tol.value), effect});
    }
    // Score: the node's PreferNoSchedule taints that none of them tolerates. Nodes' taints
    // do not change in a session: each node's PreferNoSchedule ones are read once.
    if (prefer_no_schedule_.empty() && session_.node_count() > 0) {
      prefer_no_schedule_.resize(session_.node_count());
      for (size_t i = 0; i < session_.node_count(); ++i) {
        const sdk::Node node = session_.node(i);
        for (size_t k = 0; k < node.taint_count(); ++k) {
          const cal_taint taint = node.taint(k);
          if (sdk::sv(taint.effect) == "PreferNoSchedule")
            prefer_no_schedule_[i].push_back(
                {sdk::sv(taint.key), sdk::sv(taint.value), sdk::sv(taint.effect)});
        }
      }
    }
    std::vector<int64_t>& counts = scratch_;
    counts.assign(count, 0);
    for (size_t k = 0; k < count; ++k) {
      for (const pr::Taint& taint : prefer_no_schedule_[sdk::Node(nodes[k], 0).index()])
        if (!pr::tolerated(tolerations, taint)) ++counts[k];
    }
    no::normalize(counts, /*reverse=*/true);
    for (size_t k = 0; k < count; ++k) scores[k] += static_cast<double>(counts[k] * w_.taint);
  }

  Amounts amounts_of(sdk::Task t) const {
    sdk::Res r = t.init_request();
    Amounts a;
    a.cpu = no::whole(r[0]);
    a.memory = no::whole(r[1]);
    a.gpu = gpu_ >= 0 ? no::whole(r[gpu_]) : 0;
    a.cpu_nz = no::non_zero(a.cpu, no::kDefaultMilliCpuRequest);
    a.memory_nz = no::non_zero(a.memory, no::kDefaultMemoryRequest);
    return a;
  }

  sdk::Session session_;
  Weights w_;
  size_t resources_;
  int32_t gpu_;  // resource id of nvidia.com/gpu, -1 when the session has none
  // The session's node tables (Session::node_table): rows by node index, kept current.
  const double* allocatable_;
  const double* pod_requests_;
  const double* pod_requests_nonzero_;
  // One score per candidate node, for each batch score in turn: batch_node_order runs on
  // the scheduling thread only (plugin.h), so one member buffer serves every call.
  mutable std::vector<int64_t> scratch_;
  kube::AffinityNodes affinity_nodes_;        // the snapshot's lists at open
  // By node index, its PreferNoSchedule taints (views of host strings), read at the first
  // batch_node_order (the scheduling thread).
  mutable std::vector<std::vector<pr::Taint>> prefer_no_schedule_;
  // Nodes' label values by key, made by batch_node_order (the scheduling thread).
  mutable kube::LabelColumns label_columns_;
  std::optional<kube::ImageIndex> images_;
};

}  // namespace

CALDERA_PLUGIN(NodeOrder)
