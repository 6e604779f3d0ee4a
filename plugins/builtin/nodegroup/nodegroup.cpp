// nodegroup: binds queues to groups of nodes. A node's group is its volcano.sh/nodegroup-name
// label; a queue's spec.affinity says which groups its jobs must or should run in (and must
// or should not), and the queue's volcano.sh/nodegroup-resource-limits annotation caps what
// its jobs may hold in each group.
//
// Follows Volcano's pkg/scheduler/plugins/nodegroup/nodegroup.go (ed72c7c):
//   predicate   (UnschedulableAndUnresolvable, reasons as Volcano's errors.go)
//     - the queue's limits annotation does not parse: "node group resource limit annotation
//       invalid" on every node;
//     - a node without the label: refused ("node group label not found"), except with
//       strict = false for a queue without any affinity rule;
//     - a labelled node, queue without rules: "node group affinity not specified";
//     - a group the affinity does not allow (nodegroup_math.hpp group_allowed):
//       "node does not satisfy the node group affinity";
//     - the group's limit would be passed by what the queue holds there plus the task:
//       "node group resource limit exceeded".
//   node_order  100 for a required group, + 50 for a preferred one (enablePreferredOrder:
//               earlier preferred groups more), -1 for a group preferred against; 0 for a
//               node without the label or a queue without affinity.
//   on_allocate / on_deallocate keep what each queue holds in each group (for the limits).
// With the tier's `hierarchy = true` (Volcano's enableHierarchy), a queue without an
// affinity of its own takes its nearest ancestor's (a queue without parent is root's child).
// Arguments: strict (default true), enablePreferredOrder (default false).
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "caldera/sdk.hpp"
#include "kube/quantity.hpp"
#include "nodegroup/nodegroup_math.hpp"

namespace {

namespace sdk = caldera::sdk;
namespace ng = caldera::nodegroup;

// One queue's view: its affinity (own or inherited) and its per-group limits.
struct QueueAttr {
  const cal_queue_affinity* affinity = nullptr;
  bool limits_invalid = false;
  std::map<std::string, std::vector<std::pair<size_t, double>>, std::less<>> limits;  // group -> (resource id, max)
  std::map<std::string, std::vector<double>, std::less<>> allocated;  // group -> by resource id
};

class NodeGroup {
 public:
  static constexpr const char* kName = "nodegroup";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "binds queues to node groups (volcano.sh/nodegroup-name) by the queue's affinity, "
      "strict or soft, with per-group resource limits (Volcano's nodegroup)";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::predicate, sdk::Hook::node_order,
      sdk::Hook::on_allocate, sdk::Hook::on_deallocate);

  static constexpr sdk::Bool kStrict{
      "strict", true,
      "refuse nodes without the volcano.sh/nodegroup-name label for every queue (false: "
      "only for queues with an affinity)"};
  static constexpr sdk::Bool kPreferredOrder{
      "enablePreferredOrder", false,
      "score preferred node groups by their order in the queue's list, earlier higher"};
  static constexpr auto kOptions = sdk::options(kStrict, kPreferredOrder);

  NodeGroup(sdk::Session s, const sdk::Args& a)
      : ssn_(s), strict_(a.get(kStrict)), preferred_order_(a.get(kPreferredOrder)) {
    const size_t nq = s.queue_count();
    for (size_t i = 0; i < nq; ++i) {
      const sdk::Queue q = s.queue(i);
      QueueAttr& attr = attrs_[q.handle()];
      attr.affinity = q.affinity();
      read_limits(q, attr);
    }
    if (a.hierarchy()) inherit();
    if (any_limits_) {
      for (size_t i = 0; i < s.job_count(); ++i) {
        const sdk::Job j = s.job(i);
        for (size_t k = 0; k < j.task_count(); ++k) {
          const sdk::Task t = j.task(k);
          const cal_task_status st = t.status();
          if (st == CAL_TASK_ALLOCATED || st == CAL_TASK_BINDING || st == CAL_TASK_BOUND ||
              st == CAL_TASK_RUNNING)
            account(t, +1);
        }
      }
    }
  }

  sdk::Status predicate(sdk::Task t, sdk::Node n) const {
    const QueueAttr& attr = attr_of(t);
    if (attr.limits_invalid) return sdk::Status::unresolvable("node group resource limit annotation invalid");
    const bool unset = ng::unset(attr.affinity);
    const char* group = n.label(ng::kNodeGroupLabel);
    if (group == nullptr) {
      if (!strict_ && unset) return sdk::Status::ok();
      return sdk::Status::unresolvable(ng::kLabelNotFound);
    }
    if (unset) return sdk::Status::unresolvable(ng::kAffinityNotFound);
    if (!ng::group_allowed(*attr.affinity, group))
      return sdk::Status::unresolvable(ng::kNodeUnsatisfied);
    if (over_limit(attr, group, t)) return sdk::Status::unresolvable("node group resource limit exceeded");
    return sdk::Status::ok();
  }

  double node_order(sdk::Task t, sdk::Node n) const {
    const char* group = n.label(ng::kNodeGroupLabel);
    if (group == nullptr) return 0;
    const QueueAttr& attr = attr_of(t);
    return attr.affinity ? ng::group_score(*attr.affinity, group, preferred_order_) : 0;
  }

  void on_allocate(sdk::Task t) { if (any_limits_) account(t, +1); }
  void on_deallocate(sdk::Task t) { if (any_limits_) account(t, -1); }

 private:
  // The task's queue's attributes, looked up once per task rather than per node: the host
  // asks predicate and node_order of one task for node after node (never from two threads:
  // the plugin does not set CAL_CAP_NODE_PARALLEL).
  const QueueAttr& attr_of(const sdk::Task& t) const {
    if (t.handle() != last_task_) {
      last_task_ = t.handle();
      last_attr_ = &attrs_.at(t.job().queue().handle());
    }
    return *last_attr_;
  }

  // parseNodeGroupResourceLimits: {"group": {"cpu": "4", "memory": "8Gi"}, ...}.
  void read_limits(const sdk::Queue& q, QueueAttr& attr) {
    const char* raw = q.annotation(ng::kResourceLimitsAnnotation);
    if (raw == nullptr || *raw == '\0') return;
    const nlohmann::json j = nlohmann::json::parse(raw, nullptr, false);
    bool ok = j.is_object();
    for (auto it = ok ? j.begin() : j.end(); ok && it != j.end(); ++it) {
      if (!it.value().is_object()) { ok = false; break; }
      auto& limits = attr.limits[it.key()];
      for (auto r = it.value().begin(); r != it.value().end(); ++r) {
        std::optional<double> amount;
        if (r.value().is_string()) amount = caldera::kube::parse_quantity(r.value().get<std::string>());
        else if (r.value().is_number()) amount = r.value().get<double>();
        if (!amount) { ok = false; break; }
        const int32_t id = ssn_.resource_id(r.key().c_str());
        // A resource nothing in the session uses: nobody can pass its limit.
        if (id >= 0) limits.emplace_back(static_cast<size_t>(id), caldera::kube::in_units(r.key(), *amount));
      }
    }
    if (!ok) {
      attr.limits.clear();
      attr.limits_invalid = true;
      sdk::log(CAL_LOG_ERROR, kName,
               "queue <" + std::string(q.name()) + "> has invalid " +
                   ng::kResourceLimitsAnnotation + " annotation: " + raw);
      return;
    }
    any_limits_ = any_limits_ || !attr.limits.empty();
  }

  // updateAffinityFromAncestor: the nearest ancestor's affinity for a queue without one.
  void inherit() {
    const sdk::Queue root = ssn_.queue_by_name("root");
    std::map<const cal_queue*, const cal_queue_affinity*> own;
    for (const auto& [h, attr] : attrs_) own[h] = attr.affinity;
    for (auto& [h, attr] : attrs_) {
      if (attr.affinity != nullptr) continue;
      std::set<const cal_queue*> seen{h};
      sdk::Queue q(h, 0);
      for (;;) {
        sdk::Queue p = q.parent();
        if (!p && q.name() != "root") p = root;  // Volcano: no parent means root
        if (!p || !seen.insert(p.handle()).second) break;
        if (const cal_queue_affinity* a = own[p.handle()]) {
          attr.affinity = a;
          break;
        }
        q = p;
      }
    }
  }

  void account(const sdk::Task& t, int sign) {
    const sdk::Node n = t.node();
    if (!n) return;
    const char* group = n.label(ng::kNodeGroupLabel);
    if (group == nullptr) return;
    QueueAttr& attr = attrs_.at(t.job().queue().handle());
    if (attr.limits.empty()) return;
    const sdk::Res req = t.request();
    std::vector<double>& held = attr.allocated[group];
    if (held.size() < req.size()) held.resize(req.size(), 0);
    for (size_t i = 0; i < req.size(); ++i) held[i] += sign * req[i];
  }

  // checkNodeGroupResourceLimit: held + request past the limit by at least Volcano's
  // minimal amount (0.1) in a limited resource.
  bool over_limit(const QueueAttr& attr, const char* group, const sdk::Task& t) const {
    auto lim = attr.limits.find(std::string_view(group));
    if (lim == attr.limits.end()) return false;
    auto held_it = attr.allocated.find(std::string_view(group));
    const sdk::Res req = t.request();
    for (const auto& [id, max] : lim->second) {
      double used = id < req.size() ? req[id] : 0;
      if (held_it != attr.allocated.end() && id < held_it->second.size()) used += held_it->second[id];
      if (used > max && used - max >= 0.1) return true;
    }
    return false;
  }

  sdk::Session ssn_;
  bool strict_;
  bool preferred_order_;
  bool any_limits_ = false;
  std::map<const cal_queue*, QueueAttr> attrs_;
  mutable const cal_task* last_task_ = nullptr;
  mutable const QueueAttr* last_attr_ = nullptr;
};

}  // namespace

CALDERA_PLUGIN(NodeGroup)
