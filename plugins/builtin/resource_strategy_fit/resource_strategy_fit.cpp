// resource-strategy-fit: scores nodes per resource, each with its own strategy, and
// optionally keeps scarce resources for the tasks that need them; as Volcano ed72c7c's
// pkg/scheduler/plugins/resource-strategy-fit (arithmetic: resource_strategy_fit_math.hpp).
//
//   node_order  resourceStrategyFitWeight (default 10) x the weighted mean over the
//               resources the task requests of LeastAllocated (capacity - used - request)
//               / capacity or MostAllocated (used + request) / capacity, x 100; each
//               resource takes its strategy and weight from `resources` (exact name, else
//               the longest "prefix*" pattern; default cpu and memory, LeastAllocated,
//               weight 1), or from the pod's annotations volcano.sh/resource-strategy-
//               scoring-type and volcano.sh/resource-strategy-weight (a JSON object of
//               weights) when it has them. A node the task would overflow in a scored
//               resource scores 0. Plus, with sra.enable, sra.weight x 100 x the share of
//               the sra resources' weight the node lacks (0 on a node lacking a resource
//               the task requests).
//   predicate   with proportional.enable: a task asking none of proportional.resources may
//               take a node's cpu and memory only while enough stays idle for the node's
//               idle units of each (proportional.resourceProportion.<name>.cpu / .memory,
//               default 1): UnschedulableAndUnresolvable "proportional of resource <name>
//               check failed".
//
// Where Volcano logs and goes on, Caldera refuses the config (check_args): a pattern with
// a '*' anywhere but at the end, or a strategy other than LeastAllocated / MostAllocated.
// A pod whose annotations do not parse scores 0 here, as in Volcano.
//
// pre_predicate (on the scheduling thread) reads a task's annotations once; predicate and
// node_order only read: node-parallel.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "caldera/sdk.hpp"
#include "resource_strategy_fit/resource_strategy_fit_math.hpp"

namespace {

namespace rsf = caldera::resource_strategy_fit;
namespace sdk = caldera::sdk;

constexpr const char* kScoringTypeAnnotation = "volcano.sh/resource-strategy-scoring-type";
constexpr const char* kWeightAnnotation = "volcano.sh/resource-strategy-weight";

class ResourceStrategyFit {
 public:
  static constexpr const char* kName = "resource-strategy-fit";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "per-resource least/most-allocated scoring, scarce-resource avoidance (sra) and "
      "proportional cpu/memory reservation (Volcano's resource-strategy-fit)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::pre_predicate, sdk::Hook::predicate,
                                                  sdk::Hook::node_order, sdk::Hook::check_args);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

  static constexpr sdk::Int kWeight{
      "resourceStrategyFitWeight", 10,
      "Weight of the per-resource score (0 turns it off; negative reads as 10)."};
  static constexpr sdk::Family<sdk::String> kType{
      "resources.*.type",
      "resources.<name>.type: LeastAllocated (default) or MostAllocated for a resource, or "
      "for every resource starting with a prefix (\"nvidia.com/*\"). With no resources set: "
      "cpu and memory, LeastAllocated, weight 1."};
  static constexpr sdk::Family<sdk::Int> kResourceWeight{
      "resources.*.weight", "resources.<name>.weight: the resource's weight (0 or less reads as 1)."};
  static constexpr sdk::Bool kSraEnable{"sra.enable", false,
                                        "Prefer nodes without the sra resources (scarce resource avoidance)."};
  static constexpr sdk::String kSraResources{
      "sra.resources", sdk::no_default, "Comma-separated scarce resources, e.g. \"nvidia.com/gpu\"."};
  static constexpr sdk::Int kSraWeight{"sra.weight", 0, "Weight of the sra score."};
  static constexpr sdk::Family<sdk::Int> kSraResourceWeight{
      "sra.resourceWeight.*",
      "sra.resourceWeight.<name>: weight of an sra resource (default 1; negative reads as 1)."};
  static constexpr sdk::Bool kPropEnable{
      "proportional.enable", false,
      "Keep cpu and memory idle in proportion to a node's idle units of proportional.resources "
      "for tasks that ask none of them."};
  static constexpr sdk::String kPropResources{
      "proportional.resources", sdk::no_default, "Comma-separated resources, e.g. \"nvidia.com/gpu\"."};
  static constexpr sdk::Family<sdk::Double> kPropRate{
      "proportional.resourceProportion.*",
      "proportional.resourceProportion.<name>.cpu / .memory: cores (in milli-cores per "
      "milli-unit) and MB to keep idle per idle unit of <name> (default 1; negative reads as 1)."};
  static constexpr auto kOptions =
      sdk::options(kWeight, kType, kResourceWeight, kSraEnable, kSraResources, kSraWeight,
                   kSraResourceWeight, kPropEnable, kPropResources, kPropRate);

  static sdk::Status check_args(const sdk::Args& a) {
    for (const std::string& r : configured(a)) {
      if (!rsf::valid_pattern(r))
        return sdk::Status::error("resources." + r +
                                  ": only one '*', at the end of a longer name, is allowed "
                                  "(e.g. \"nvidia.com/*\")");
      if (std::optional<std::string> t = a.get(kType, r); t && !rsf::strategy_of(*t))
        return sdk::Status::error(kType.key(r) + ": \"" + *t +
                                  "\" is not LeastAllocated or MostAllocated");
    }
    return sdk::Status::ok();
  }

  ResourceStrategyFit(sdk::Session s, const sdk::Args& a) : n_(s.resource_count()) {
    weight_ = a.get(kWeight);
    if (weight_ < 0) weight_ = 10;
    for (const std::string& r : configured(a)) {
      rsf::ResourceConfig c;
      if (std::optional<std::string> t = a.get(kType, r))
        c.strategy = rsf::strategy_of(*t).value_or(rsf::Strategy::LeastAllocated);
      c.weight = a.get(kResourceWeight, r).value_or(0);
      if (c.weight <= 0) c.weight = 1;
      configs_[r] = c;
    }
    if (configs_.empty()) configs_ = {{"cpu", {}}, {"memory", {}}};
    for (size_t i = 0; i < n_; ++i) {
      const rsf::ResourceConfig* c = rsf::find_config(configs_, s.resource_name(i));
      by_id_.push_back(c ? std::optional<rsf::ResourceConfig>(*c) : std::nullopt);
      names_.emplace_back(s.resource_name(i));
    }

    if (a.get(kSraEnable)) {
      sra_weight_ = a.get(kSraWeight);
      for (const std::string& r : a.get_list(kSraResources)) {
        int64_t w = a.get(kSraResourceWeight, r).value_or(1);
        if (w < 0) w = 1;
        sra_weight_sum_ += w;
        const int32_t id = s.resource_id(r.c_str());
        if (id >= 0) sra_.push_back({static_cast<size_t>(id), w});  // else no node has it
      }
    }

    if (a.get(kPropEnable)) {
      proportional_ = true;
      for (const std::string& r : a.get_list(kPropResources)) {
        Proportion p;
        p.cpu = a.get(kPropRate, r + ".cpu").value_or(1.0);
        if (p.cpu < 0) p.cpu = 1.0;
        p.memory = a.get(kPropRate, r + ".memory").value_or(1.0);
        if (p.memory < 0) p.memory = 1.0;
        const int32_t id = s.resource_id(r.c_str());
        if (id < 0) continue;  // nothing in this session has it: the rule cannot apply
        p.id = static_cast<size_t>(id);
        proportions_.push_back(p);
      }
    }
  }

  // What scoring needs of a task, read once per task (its annotations, parsed): the host
  // calls pre_predicate on the scheduling thread before a task's node-parallel calls.
  sdk::Status pre_predicate(sdk::Task t) {
    prepared_ = strategy_of(t);
    return sdk::Status::ok();
  }

  sdk::Status predicate(sdk::Task t, sdk::Node n) const {
    if (!proportional_ || proportions_.empty()) return sdk::Status::ok();
    const sdk::Res req = t.request();
    for (const Proportion& p : proportions_)
      if (req[p.id] > 0) return sdk::Status::ok();
    const sdk::Res idle = n.idle();
    const sdk::Res alloc = n.allocatable();
    for (const Proportion& p : proportions_) {
      // Volcano looks only at resources in the node's Idle map: the ones the node has.
      if (alloc[p.id] <= 0) continue;
      if (!rsf::proportional_ok(idle[0], idle[1], idle[p.id], req[0], req[1], p.cpu, p.memory))
        return sdk::Status::unresolvable("proportional of resource " + names_[p.id] +
                                         " check failed");
    }
    return sdk::Status::ok();
  }

  double node_order(sdk::Task t, sdk::Node n) const {
    double score = 0;
    const sdk::Res req = t.request();
    if (weight_ > 0) {
      if (prepared_.task == t.handle()) {
        score += strategy_score(prepared_, req, n);
      } else {
        score += strategy_score(strategy_of(t), req, n);  // called without pre_predicate
      }
    }
    if (sra_weight_ > 0) score += sra_score(req, n);
    return score;
  }

 private:
  struct Proportion {
    size_t id = 0;
    double cpu = 1, memory = 1;
  };

  // A task's scoring strategy: the config's, or the pod's own from its annotations.
  struct TaskStrategy {
    const cal_task* task = nullptr;
    bool pod_level = false;
    bool invalid = false;  // the pod's annotations do not parse: it scores 0
    rsf::Strategy strategy = rsf::Strategy::Other;
    std::vector<std::optional<int64_t>> weights;  // by resource id, the pod's own
  };

  TaskStrategy strategy_of(sdk::Task t) const {
    TaskStrategy s;
    s.task = t.handle();
    const char* pod_type = t.annotation(kScoringTypeAnnotation);
    if (!pod_type || !*pod_type) return s;
    s.pod_level = true;
    const char* text = t.annotation(kWeightAnnotation);
    if (!text || !*text) {
      s.invalid = true;
      return s;
    }
    const nlohmann::json w = nlohmann::json::parse(text, nullptr, false);
    if (!w.is_object()) {
      s.invalid = true;
      return s;
    }
    for (auto it = w.begin(); it != w.end(); ++it)
      if (!it.value().is_number_integer()) {  // Go's map[string]int refuses it
        s.invalid = true;
        return s;
      }
    s.strategy = rsf::strategy_of(pod_type).value_or(rsf::Strategy::Other);
    s.weights.resize(n_);
    for (size_t i = 0; i < n_; ++i)
      if (auto it = w.find(names_[i]); it != w.end()) s.weights[i] = it->get<int64_t>();
    return s;
  }

  // Every resource name `resources` configures (with a type, a weight or both).
  static std::set<std::string> configured(const sdk::Args& a) {
    std::set<std::string> out;
    for (const std::string& r : a.members(kType)) out.insert(r);
    for (const std::string& r : a.members(kResourceWeight)) out.insert(r);
    return out;
  }

  // Resource.ResourceNames: the resources the task requests (at least minResource).
  static bool requested(const sdk::Res& req, size_t i) { return req[i] >= caldera::kMinResource; }

  double strategy_score(const TaskStrategy& s, const sdk::Res& req, sdk::Node n) const {
    if (s.invalid) return 0;
    const sdk::Res alloc = n.allocatable();
    const sdk::Res used = n.used();
    rsf::ScoreSum sum;
    for (size_t i = 0; i < n_; ++i) {
      if (!requested(req, i)) continue;
      if (s.pod_level) {  // the pod's own strategy, for the resources its weights name
        if (s.weights[i]) sum.add({s.strategy, *s.weights[i], req[i], used[i], alloc[i]});
      } else if (by_id_[i]) {
        sum.add({by_id_[i]->strategy, by_id_[i]->weight, req[i], used[i], alloc[i]});
      }
    }
    return sum.result(weight_);
  }

  double sra_score(const sdk::Res& req, sdk::Node n) const {
    const sdk::Res alloc = n.allocatable();
    for (size_t i = 0; i < n_; ++i)
      if (requested(req, i) && alloc[i] == 0) return 0;  // the node lacks what the task asks
    int64_t on_node = 0;
    for (const auto& [id, w] : sra_)
      if (alloc[id] > 0) on_node += w;
    return rsf::sra_score(on_node, sra_weight_sum_, sra_weight_);
  }

  size_t n_;
  int64_t weight_ = 10;
  std::map<std::string, rsf::ResourceConfig> configs_;
  std::vector<std::optional<rsf::ResourceConfig>> by_id_;  // the config of each resource id
  std::vector<std::string> names_;                          // resource names by id
  int64_t sra_weight_ = 0;
  int64_t sra_weight_sum_ = 0;
  std::vector<std::pair<size_t, int64_t>> sra_;  // sra resources some node has, by id
  bool proportional_ = false;
  std::vector<Proportion> proportions_;
  TaskStrategy prepared_;  // the task of the last pre_predicate
};

}  // namespace

CALDERA_PLUGIN(ResourceStrategyFit)
