// binpack: prefers nodes that the task would fill, as Volcano's
// pkg/scheduler/plugins/binpack/binpack.go scores them (binpack_math.hpp):
//   per requested resource r with weight w_r: (used_r + request_r) / allocatable_r * w_r
//   (0 when it would not fit), summed, divided by the sum of those weights, times
//   100 * binpack.weight.
// `used` is the node's used (allocated and releasing tasks, Volcano's NodeInfo.Used) and
// `request` the task's Resreq.
//
// Arguments, with Volcano's names and defaults: binpack.weight 1, binpack.cpu 1,
// binpack.memory 1 (a negative cpu / memory / resource weight reads as 1, as in Volcano),
// binpack.resources "a, b" naming the scalar resources to score, each weighted by
// binpack.resources.<name> (default 1). A binpack.resources.<name> for a resource the list
// does not name is ignored, as in Volcano.
//
// Only reads: node-parallel.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binpack/binpack_math.hpp"
#include "caldera/sdk.hpp"

namespace {

namespace bp = caldera::binpack;
namespace sdk = caldera::sdk;

class Binpack {
 public:
  static constexpr const char* kName = "binpack";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "prefers the nodes a task fills most, by weighted resource (Volcano's binpack)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::node_order, sdk::Hook::node_order_many);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

  static constexpr sdk::Int kWeight{"binpack.weight", 1,
                                    "Weight of the binpack score (0 turns the score off)."};
  static constexpr sdk::Int kCpu{"binpack.cpu", 1,
                                 "Weight of cpu in the binpack score (negative reads as 1)."};
  static constexpr sdk::Int kMemory{
      "binpack.memory", 1, "Weight of memory in the binpack score (negative reads as 1)."};
  static constexpr sdk::String kResources{
      "binpack.resources", sdk::no_default,
      "Comma-separated scalar resources to score too, e.g. \"nvidia.com/gpu, example.com/foo\"."};
  static constexpr sdk::Family<sdk::Int> kResourceWeight{
      "binpack.resources.*",
      "binpack.resources.<name>: weight of a resource listed in binpack.resources (default 1; "
      "negative reads as 1)."};
  static constexpr auto kOptions = sdk::options(kWeight, kCpu, kMemory, kResources, kResourceWeight);

  Binpack(sdk::Session s, const sdk::Args& a)
      : weight_(a.get(kWeight)),
        weights_(s.resource_count()),
        resources_(s.resource_count()),
        allocatable_(s.node_table(CAL_NODE_ALLOCATABLE)),
        used_(s.node_table(CAL_NODE_USED)) {
    int64_t cpu = a.get(kCpu);
    if (cpu < 0) cpu = 1;
    int64_t memory = a.get(kMemory);
    if (memory < 0) memory = 1;

    for (const std::string& name : a.get_list(kResources)) {
      int64_t w = a.get(kResourceWeight, name).value_or(1);
      if (w < 0) w = 1;
      const int32_t id = s.resource_id(name.c_str());
      if (id >= 0) weights_[static_cast<size_t>(id)] = w;  // else nothing requests it
    }
    // cpu and memory always take binpack.cpu / binpack.memory, even when listed.
    if (!weights_.empty()) weights_[0] = cpu;
    if (weights_.size() > 1) weights_[1] = memory;
  }

  double node_order(sdk::Task t, sdk::Node n) const {
    if (weight_ == 0) return 0;  // Volcano registers no score at all
    return score_at(t.request().data(), n.index());
  }

  // The same for a run of nodes, the task's request read once.
  void node_order_many(sdk::Task t, const cal_node* const* nodes, size_t count,
                       double* scores) const {
    const double* request = weight_ == 0 ? nullptr : t.request().data();
    for (size_t i = 0; i < count; ++i)
      scores[i] = weight_ == 0 ? 0 : score_at(request, sdk::Node(nodes[i], resources_).index());
  }

 private:
  // The score on the node of index `node`, its vectors read from the session's node tables.
  double score_at(const double* request, size_t node) const {
    const size_t row = node * resources_;
    return bp::score(request, allocatable_ + row, used_ + row, weights_, weight_);
  }

  int64_t weight_;
  std::vector<std::optional<int64_t>> weights_;  // by resource id
  size_t resources_;
  const double* allocatable_;  // node tables (Session::node_table), valid for the session
  const double* used_;
};

}  // namespace

CALDERA_PLUGIN(Binpack)
