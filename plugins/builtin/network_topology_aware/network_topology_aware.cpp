// network-topology-aware: scores HyperNodes and nodes so that jobs pack into the network
// domains already in use, as Volcano ed72c7c's
// pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go does (its
// HyperNode-level bin packing form; formulas in network_topology_aware_math.hpp).
//
// Where a job and its sub-jobs may go (the HyperNode gradients, Volcano's
// HyperNodeGradientForJobFn / ForSubJobFn) is searched by the host for every action
// (actions/hypernode_gradients.hpp) when this plugin is in the policy; the plugin ranks:
//   sub_job_hyper_node_order  for a sub-job several HyperNodes of a gradient can hold: the
//                     bin packing score of all the sub-job's tasks' requests in each (its
//                     nodes' allocatable and used, kept current by the allocate events;
//                     Volcano counts running tasks twice, once in `used`, and so does this);
//                     when several share the best score, each of those adds the share of
//                     the sub-job's tasks already inside it. Times 100 * weight.
//   batch_node_order  a task whose sub-job has a network topology: each node scores by the
//                     tier of the lowest HyperNode holding both its own switch and where
//                     the allocate action had placed the sub-job when it chose the task's
//                     node ((max tier - tier) / (max tier - min tier); 1 in that HyperNode
//                     itself; nothing when the sub-job is placed nowhere yet), ties broken
//                     by the share of the sub-job's tasks in the node's switch. A task
//                     whose sub-job has none (hypernode.binpack.normal-pod.enable): the
//                     tier-weighted mean (weight fading^(tier-1)) of the task's bin packing
//                     score in the node's HyperNode of each tier. Times 100 * weight.
//   on_allocate / on_deallocate  the task's request joins / leaves the used resources of
//                     every HyperNode holding its node.
//
// Arguments, Volcano's names and defaults: weight 1; hypernode.binpack.cpu 1,
// hypernode.binpack.memory 1, hypernode.binpack.resources "a, b" with
// hypernode.binpack.resources.<name> (default 1) -- a negative weight reads as the
// default, as in Volcano; hypernode.binpack.normal-pod.enable true,
// hypernode.binpack.normal-pod.fading 0.8 (negative reads as 0.8);
// hypernode.gradient.evict.max-hypernodes 8 (not positive reads as 8): how many HyperNodes
// the gang-aware evicting actions try for a job (read by the host's search, so that
// Volcano's configs keep their meaning).
//
// Difference, on purpose: with no HyperNode in the session the plugin scores nothing
// (Volcano gives every node the same score, which changes no choice).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "caldera/sdk.hpp"
#include "network_topology_aware/network_topology_aware_math.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace nt = caldera::network_topology;
using caldera::ResVec;

class NetworkTopologyAware {
 public:
  static constexpr const char* kName = "network-topology-aware";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "packs jobs into the HyperNodes (network domains) already in use and keeps a job's "
      "tasks close to each other (Volcano's network-topology-aware)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::batch_node_order,
      sdk::Hook::sub_job_hyper_node_order, sdk::Hook::on_allocate, sdk::Hook::on_deallocate);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

  static constexpr sdk::Int kWeight{"weight", 1, "Weight of every score of the plugin."};
  static constexpr sdk::Int kCpu{"hypernode.binpack.cpu", 1,
                                 "Weight of cpu in HyperNode bin packing."};
  static constexpr sdk::Int kMemory{"hypernode.binpack.memory", 1,
                                    "Weight of memory in HyperNode bin packing."};
  static constexpr sdk::String kResources{
      "hypernode.binpack.resources", sdk::no_default,
      "Comma-separated scalar resources to pack too, e.g. \"nvidia.com/gpu\"."};
  static constexpr sdk::Family<sdk::Int> kResourceWeight{
      "hypernode.binpack.resources.*",
      "hypernode.binpack.resources.<name>: weight of a listed resource (default 1)."};
  static constexpr sdk::Bool kNormalEnable{
      "hypernode.binpack.normal-pod.enable", true,
      "Score nodes for pods without a network topology by HyperNode bin packing."};
  static constexpr sdk::Double kNormalFading{
      "hypernode.binpack.normal-pod.fading", 0.8,
      "How much each tier up counts less for those pods (tier t weighs fading^(t-1))."};
  static constexpr sdk::Int kEvictMaxHyperNodes{
      "hypernode.gradient.evict.max-hypernodes", 8,
      "At most this many HyperNodes, the widest first, are tried as eviction domains for a "
      "job by gangpreempt and gangreclaim (read by those actions); not positive: 8."};
  static constexpr auto kOptions =
      sdk::options(kWeight, kCpu, kMemory, kResources, kResourceWeight, kNormalEnable,
                   kNormalFading, kEvictMaxHyperNodes);

  NetworkTopologyAware(sdk::Session s, const sdk::Args& a)
      : ssn_(s), weights_(s.resource_count()) {
    weight_ = a.get(kWeight);
    if (weight_ < 0) weight_ = 1;
    int64_t cpu = a.get(kCpu), memory = a.get(kMemory);
    if (cpu < 0) cpu = 1;
    if (memory < 0) memory = 1;
    for (const std::string& name : a.get_list(kResources)) {
      int64_t w = a.get(kResourceWeight, name).value_or(1);
      if (w < 0) w = 1;
      const int32_t id = s.resource_id(name.c_str());
      if (id >= 0) weights_[static_cast<size_t>(id)] = w;  // else nothing requests it
    }
    if (!weights_.empty()) weights_[0] = cpu;
    if (weights_.size() > 1) weights_[1] = memory;
    normal_enable_ = a.get(kNormalEnable);
    fading_ = a.get(kNormalFading);
    if (fading_ < 0) fading_ = kNormalFading.double_default;

    // The resource status of every HyperNode (Volcano's hyperNodeResourceCache).
    const size_t n = s.resource_count();
    for (size_t i = 0; i < s.hypernode_count(); ++i) {
      sdk::HyperNode h = s.hypernode(i);
      Status st{h, ResVec(n), ResVec(n)};
      for (size_t k = 0; k < h.node_count(); ++k) {
        sdk::Node node = h.node(k);
        st.allocatable.add(node.allocatable().data());
        st.used.add(node.used().data());
      }
      index_[h.handle()] = status_.size();
      status_.push_back(std::move(st));
      if (i == 0 || h.tier() < min_tier_) min_tier_ = h.tier();
      if (i == 0 || h.tier() > max_tier_) max_tier_ = h.tier();
    }
    if (status_.empty()) return;
    for (size_t i = 0; i < s.node_count(); ++i) {
      sdk::Node node = s.node(i);
      std::vector<size_t>& of = of_node_[node.handle()];
      for (size_t k = 0; k < s.node_hypernode_count(node); ++k)
        of.push_back(index_.at(s.node_hypernode(node, k).handle()));
    }
  }

  void sub_job_hyper_node_order(sdk::SubJob j, const std::vector<sdk::HyperNode>& candidates,
                                std::vector<double>& scores) const {
    if (weight_ == 0) return;
    // The requests of every task of the sub-job, in the resources the plugin packs.
    ResVec request(ssn_.resource_count());
    for (size_t i = 0; i < j.task_count(); ++i) request.add(j.task(i).request().data());
    std::vector<double> raw(candidates.size(), 0.0);
    double best = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const Status* st = status_of(candidates[i]);
      raw[i] = st ? nt::binpack_score(request.data(), st->allocatable.data(), st->used.data(),
                                      weights_)
                  : 0;
      if (raw[i] > best) best = raw[i];
    }
    size_t at_best = 0;
    for (double r : raw) at_best += r == best;
    if (at_best > 1) {
      // Ties: the HyperNode that already holds more of the sub-job.
      for (size_t i = 0; i < candidates.size(); ++i)
        if (raw[i] == best) raw[i] += task_share(j, candidates[i]);
    }
    for (size_t i = 0; i < candidates.size(); ++i) scores[i] = nt::scale(raw[i], weight_);
  }

  void batch_node_order(sdk::Task t, const cal_node* const* nodes, size_t n,
                        double* scores) const {
    if (weight_ == 0 || status_.empty()) return;
    sdk::SubJob sub = t.sub_job();
    if (sub && sub.network_topology() != CAL_TOPOLOGY_NONE) {
      score_near_sub_job(t, sub, nodes, n, scores);
    } else if (normal_enable_) {
      score_normal_pod(t, nodes, n, scores);
    }
  }

  void on_allocate(sdk::Task t) {
    sdk::Node node = t.node();
    if (!node) return;
    placed_[t.handle()] = node.handle();
    account(node.handle(), t.request().data(), +1);
  }

  void on_deallocate(sdk::Task t) {
    // An undone placement no longer has its node; an eviction still does.
    const cal_node* node = nullptr;
    if (auto it = placed_.find(t.handle()); it != placed_.end()) {
      node = it->second;
      placed_.erase(it);
    } else if (sdk::Node n = t.node()) {
      node = n.handle();
    }
    if (node) account(node, t.request().data(), -1);
  }

 private:
  struct Status {
    sdk::HyperNode hypernode;
    ResVec allocatable;
    ResVec used;
  };

  const Status* status_of(const sdk::HyperNode& h) const {
    auto it = index_.find(h.handle());
    return it == index_.end() ? nullptr : &status_[it->second];
  }

  // The node's own switch (its lowest HyperNode), or nullptr.
  const Status* switch_of(const cal_node* node) const {
    auto it = of_node_.find(node);
    if (it == of_node_.end() || it->second.empty()) return nullptr;
    return &status_[it->second.front()];
  }

  void account(const cal_node* node, const double* request, int sign) {
    auto it = of_node_.find(node);
    if (it == of_node_.end()) return;
    for (size_t k : it->second) {
      if (sign > 0)
        status_[k].used.add(request);
      else
        status_[k].used.sub(request);
    }
  }

  // scoreWithTaskNum: the share of the sub-job's tasks whose node is inside the HyperNode.
  double task_share(const sdk::SubJob& j, const sdk::HyperNode& h) const {
    const auto hit = index_.find(h.handle());
    size_t inside = 0;
    for (size_t i = 0; i < j.task_count(); ++i) {
      sdk::Node node = j.task(i).node();
      if (!node || hit == index_.end()) continue;
      auto it = of_node_.find(node.handle());
      if (it == of_node_.end()) continue;
      for (size_t k : it->second) inside += k == hit->second;
    }
    return nt::task_num_score(inside, j.task_count());
  }

  // networkTopologyAwareScore of each node against where the task's sub-job was placed
  // when its node was chosen (Volcano's TaskInfo.JobAllocatedHyperNode).
  void score_near_sub_job(const sdk::Task& t, const sdk::SubJob& job, const cal_node* const* nodes,
                          size_t n, double* scores) const {
    sdk::HyperNode allocated = t.allocated_hypernode();
    if (!allocated) return;
    std::vector<double> raw(n, 0.0);
    double best = -1;
    for (size_t i = 0; i < n; ++i) {
      const Status* own = switch_of(nodes[i]);
      if (own) {
        if (own->hypernode == allocated) {
          raw[i] = nt::kFullScore;
        } else if (sdk::HyperNode lca = own->hypernode.lca(allocated)) {
          raw[i] = nt::tier_score(lca.tier(), min_tier_, max_tier_);
        }
      }
      if (raw[i] > best) best = raw[i];
    }
    size_t at_best = 0;
    for (double r : raw) at_best += r == best;
    if (at_best > 1) {
      for (size_t i = 0; i < n; ++i) {
        if (raw[i] != best) continue;
        if (const Status* own = switch_of(nodes[i])) raw[i] += task_share(job, own->hypernode);
      }
    }
    for (size_t i = 0; i < n; ++i) scores[i] += nt::scale(raw[i], weight_);
  }

  // batchNodeOrderFnForNormalPods.
  void score_normal_pod(const sdk::Task& t, const cal_node* const* nodes, size_t n,
                        double* scores) const {
    const double* request = t.request().data();
    std::vector<nt::TierScore> present;
    for (size_t i = 0; i < n; ++i) {
      present.clear();
      if (auto it = of_node_.find(nodes[i]); it != of_node_.end()) {
        for (size_t k : it->second) {  // lowest tier first; the first of a tier counts
          const Status& st = status_[k];
          if (!present.empty() && present.back().tier == st.hypernode.tier()) continue;
          present.push_back({st.hypernode.tier(), nt::binpack_score(request, st.allocatable.data(),
                                                                    st.used.data(), weights_)});
        }
      }
      scores[i] += nt::scale(nt::normal_pod_score(present, fading_, min_tier_, max_tier_), weight_);
    }
  }

  sdk::Session ssn_;
  int64_t weight_ = 1;
  std::vector<std::optional<int64_t>> weights_;  // by resource id; nullopt: not packed
  bool normal_enable_ = true;
  double fading_ = 0.8;
  int32_t min_tier_ = 0, max_tier_ = 0;
  std::vector<Status> status_;
  std::unordered_map<const cal_hypernode*, size_t> index_;
  std::unordered_map<const cal_node*, std::vector<size_t>> of_node_;  // lowest tier first
  std::unordered_map<const cal_task*, const cal_node*> placed_;       // this session's
};

}  // namespace

CALDERA_PLUGIN(NetworkTopologyAware)
