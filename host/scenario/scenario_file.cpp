// Scenario files (SCENARIOS.md section 2) and the cluster objects they hold.
//
// The objects mirror what Volcano's scheduler cache builds from the API server
// (pkg/scheduler/cache/event_handlers.go, pkg/scheduler/api/job_info.go, queue_info.go,
// node_info.go); the loader only reads and checks them and leaves every derived value
// (task priority, job of a lone pod, task roles from labels) to the session, so a scenario
// and the embedded cluster produce the same cache.
//
// The file is read through host/toml/: every error names file:line:column, the object path
// ("pods[3] (c1/p3).requests.cpu"), what is wrong and what was expected, in the format
// host/toml/reader.hpp documents.
#include "host/scenario/scenario_file.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "host/model/hypernode_tree.hpp"
#include "host/model/policy_objects.hpp"
#include "host/model/pod_constraints.hpp"
#include "host/model/quantity.hpp"
#include "host/toml/quantity.hpp"
#include "host/toml/reader.hpp"
#include "host/toml/to_json.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;

using input::Array;
using input::Choices;
using input::Entry;
using input::Table;
using input::Value;

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

constexpr const char* kName = "a non-empty name without '/'";

// Names are joined as "namespace/name": non-empty, without '/'.
std::string checked_name(const Value& v) {
  std::string s = v.string(kName);
  if (s.empty()) v.fail("empty name", kName);
  if (s.find('/') != std::string::npos) v.fail(fmt::format("'{}' contains '/'", s), kName);
  return s;
}

// A required name.
std::string name_of(const Table& t, const char* key) {
  return checked_name(t.require(key, kName));
}

// The peek at a table's name that labels its errors, before the name is checked.
std::string_view peek(const Table& t, const char* key) {
  const toml::node* n = t.raw().get(key);
  return n && n->is_string() ? std::string_view(n->as_string()->get()) : std::string_view();
}

// The element named by its name, or by "namespace/name" (namespace "default" when not
// given), once there is a name.
Table named(const Table& t) {
  std::string_view name = peek(t, "name");
  return name.empty() ? t : t.named(name);
}
Table named_namespaced(const Table& t) {
  std::string_view name = peek(t, "name");
  if (name.empty()) return t;
  std::string_view ns = peek(t, "namespace");
  return t.named(fmt::format("{}/{}", ns.empty() ? "default" : ns, name));
}

template <typename Map>
std::vector<std::string> names_of(const Map& m) {
  std::vector<std::string> out;
  out.reserve(m.size());
  for (const auto& [k, v] : m) {
    (void)v;
    out.push_back(k);
  }
  return out;
}

template <typename T>
const SourceRef& source_of(const T& record) { return record.src; }
template <typename Spec, typename View>
const SourceRef& source_of(const ApiRecord<Spec, View>& record) { return record.spec().src; }

// "duplicate node 'n1', first at line 11; expected a name no other node has".
template <typename Map>
void check_unique(const Table& t, const Map& existing, const std::string& key, const char* noun) {
  auto it = existing.find(key);
  if (it == existing.end()) return;
  const SourceRef& first = source_of(*it->second);
  t.fail(fmt::format("duplicate {} '{}', first at {}", noun, key,
                     first.file == t.file() && first.line > 0
                         ? fmt::format("line {}", first.line)
                         : first.str()),
         fmt::format("a name no other {} has", noun));
}

// A queue's or PodGroup's resource list; "pods" in it is a resource like any other (Volcano's
// NewResource makes it a scalar besides MaxTaskNum). Quota names (count/pods, requests.cpu,
// which Volcano's controllers write into minResources) are read and left out, as
// NewResource leaves them out.
std::optional<ResourceList> opt_resources(const Table& t, const char* key) {
  std::optional<Value> v = t.get(key);
  if (!v) return std::nullopt;
  ResourceList rl = input::resource_list(*v, resource_amount);
  std::erase_if(rl, [](const auto& kv) { return is_quota_name(kv.first); });
  return rl;
}

const Choices<JobPhase> kJobPhases = {{"Pending", JobPhase::Pending},
                                      {"Inqueue", JobPhase::Inqueue},
                                      {"Running", JobPhase::Running},
                                      {"Unknown", JobPhase::Unknown},
                                      {"Completed", JobPhase::Completed}};

const Choices<std::string> kTaintEffects = {{"NoSchedule", "NoSchedule"},
                                            {"PreferNoSchedule", "PreferNoSchedule"},
                                            {"NoExecute", "NoExecute"}};

// The other choices, made once rather than for each object that is read.
const Choices<QueueState> kQueueStates = {{"Open", QueueState::Open},
                                          {"Closed", QueueState::Closed},
                                          {"Closing", QueueState::Closing}};
const Choices<std::string> kTopologyPolicies = {{"none", "none"},
                                                {"best-effort", "best-effort"},
                                                {"restricted", "restricted"},
                                                {"single-numa-node", "single-numa-node"}};
const Choices<MemberType> kMemberTypes = {{"Node", MemberType::Node},
                                          {"HyperNode", MemberType::HyperNode}};
const Choices<std::string> kSelectorOperators = {{"In", "In"},
                                                 {"NotIn", "NotIn"},
                                                 {"Exists", "Exists"},
                                                 {"DoesNotExist", "DoesNotExist"}};
const Choices<TopologyMode> kTopologyModes = {{"hard", TopologyMode::Hard},
                                              {"soft", TopologyMode::Soft}};
const Choices<PodPhase> kPodPhases = {{"Pending", PodPhase::Pending},
                                      {"Running", PodPhase::Running},
                                      {"Succeeded", PodPhase::Succeeded},
                                      {"Failed", PodPhase::Failed}};
// A pod that never preempts (preempt_never) by its preemptionPolicy.
const Choices<bool> kPreemptionPolicies = {{"PreemptLowerPriority", false}, {"Never", true}};
const Choices<std::string> kTolerationOperators = {{"Equal", "Equal"}, {"Exists", "Exists"}};

void load_priority_classes(const Table& root, Cache& cache) {
  for (const Table& t0 : root.tables("priority_classes")) {
    const Table t = named(t0);
    t.check_keys({"name", "value", "global_default"});
    PriorityClassSpec pc;
    pc.name = name_of(t, "name");
    pc.value = static_cast<int32_t>(
        t.require("value", "the class's priority, an integer").integer(kInt32Min, kInt32Max));
    pc.global_default = t.opt_bool("global_default").value_or(false);
    pc.src = t.src();
    check_unique(t, cache.priority_classes(), pc.name, "priority class");
    cache.upsert_priority_class(std::move(pc));
  }
}

// An embedded Kubernetes API object (SCENARIOS.md: camelCase fields, as in a manifest),
// read by the model's reader from its JSON form; the reader's errors name the field's own
// file position.
template <typename Read>
auto read_api_object(const Value& v, Read read) {
  input::Positions at(v);
  const nlohmann::json j = input::to_json(v, &at);
  try {
    return read(j, std::string());
  } catch (const ApiFieldError& e) {
    at.fail(e.path, e.problem, e.expected);
  }
}

void load_queues(const Table& root, Cache& cache) {
  // queue -> its 'parent' value, checked once every queue is known.
  std::map<std::string, Value> parents;
  for (const Table& t0 : root.tables("queues")) {
    const Table t = named(t0);
    t.check_keys({"name", "weight", "capability", "deserved", "guarantee", "reclaimable",
                  "priority", "state", "parent", "created", "annotations", "affinity"});
    QueueSpec q;
    q.name = name_of(t, "name");
    if (auto w = t.get("weight")) {
      q.weight = w->number();
      if (q.weight <= 0) w->fail(fmt::format("{} is out of range", w->written()), "a positive number");
    }
    q.capability = opt_resources(t, "capability");
    q.deserved = opt_resources(t, "deserved");
    q.guarantee = opt_resources(t, "guarantee");
    q.reclaimable = t.opt_bool("reclaimable").value_or(true);
    q.priority = static_cast<int32_t>(t.opt_int("priority", kInt32Min, kInt32Max).value_or(0));
    q.state = t.opt_choice("state", kQueueStates, "state").value_or(QueueState::Open);
    if (auto p = t.get("parent")) {
      q.parent = checked_name(*p);
      if (q.parent == q.name)
        p->fail("a queue cannot be its own parent", "the name of another queue, or \"root\"");
      parents.insert_or_assign(q.name, *p);
    }
    q.created = t.opt_number("created").value_or(0);
    q.annotations = t.string_map("annotations");
    if (auto av = t.get("affinity"))
      q.affinity = read_api_object(*av, [](const nlohmann::json& j, const std::string& prefix) {
        return read_queue_affinity(j, prefix);
      });
    q.src = t.src();
    check_unique(t, cache.queues(), q.name, "queue");
    cache.upsert_queue(std::move(q));
  }

  // Parents: a declared queue, or "root", which Volcano always has (created here when a
  // queue names it). No cycles.
  for (const auto& [name, where] : parents) {
    const QueueSpec& q = *cache.queues().at(name);
    if (!cache.queues().count(q.parent)) {
      if (q.parent != "root")
        where.fail(fmt::format("parent queue '{}' not found{}", q.parent,
                               input::did_you_mean(q.parent, names_of(cache.queues()))),
                   "a queue declared in [[queues]], or \"root\"");
      QueueSpec root_q;
      root_q.name = "root";
      root_q.src = SourceRef{root.file(), 0, 0};
      cache.upsert_queue(std::move(root_q));
    }
    std::set<std::string> seen{name};
    for (std::string p = q.parent; !p.empty(); p = cache.queues().at(p)->parent) {
      if (!seen.insert(p).second)
        where.fail(fmt::format("queue parents form a cycle through '{}'", p),
                   "parents that end at a queue without a parent");
      if (!cache.queues().count(cache.queues().at(p)->parent)) break;
    }
  }
}

// A node's NUMA layout (`numa = [{ cpu = "16", memory = "64Gi" }, ...]`) and its kubelet
// topology manager policy (`topology_policy`, default "none"), read by the numa-aware
// plugin. The NUMA nodes split the node's allocatable: their cpus must add up to its
// allocatable cpu, and their memory, when the layout lists memory, to its allocatable
// memory (the kubelet's Memory Manager refuses to start unless the per-NUMA reservations
// add up to the node's). A layout that does not add up is an error naming the node and
// both sums; memory on some NUMA nodes but not on others likewise.
void load_numa(const Table& t, NodeSpec& n) {
  n.topology_policy =
      t.opt_choice("topology_policy", kTopologyPolicies, "topology policy").value_or("none");
  std::optional<Value> nv = t.get("numa");
  if (!nv) return;
  Array arr = nv->array("an array of tables ({ cpu = \"16\", memory = \"64Gi\" })");
  if (arr.empty()) nv->fail("an empty list of NUMA nodes", "at least one NUMA node (or no 'numa' key)");
  NumaNode sum;
  size_t with_memory = 0;
  for (const Table& nt : arr.tables()) {
    nt.check_keys({"cpu", "memory"});
    NumaNode numa;
    numa.cpu = input::quantity(nt.require("cpu", "the NUMA node's cpus, a quantity"), kCpu,
                               resource_amount);
    if (auto m = nt.get("memory")) {
      numa.memory = input::quantity(*m, kMemory, resource_amount);
      ++with_memory;
    }
    sum.cpu += numa.cpu;
    sum.memory += numa.memory;
    n.numa.push_back(numa);
  }
  if (with_memory != 0 && with_memory != arr.size())
    nv->fail(fmt::format("{} of the {} NUMA nodes list memory", with_memory, arr.size()),
             "memory on every NUMA node or on none");
  auto alloc = [&](const char* res) {
    auto it = n.allocatable.find(res);
    return it == n.allocatable.end() ? 0.0 : it->second;
  };
  // Quantities are exact in millicores and bytes; the tolerance only absorbs rounding of
  // the double sums.
  auto differs = [](double a, double b) { return std::fabs(a - b) > 1e-6 * std::max(1.0, b); };
  if (differs(sum.cpu, alloc(kCpu)))
    nv->fail(fmt::format("the NUMA nodes hold {}m cpu in all, but the node's allocatable cpu is "
                         "{}m",
                         sum.cpu, alloc(kCpu)),
             "NUMA nodes whose cpu adds up to the node's allocatable cpu");
  if (with_memory != 0 && differs(sum.memory, alloc(kMemory)))
    nv->fail(fmt::format("the NUMA nodes hold {} bytes of memory in all, but the node's "
                         "allocatable memory is {} bytes",
                         sum.memory, alloc(kMemory)),
             "NUMA nodes whose memory adds up to the node's allocatable memory");
}

void load_nodes(const Table& root, Cache& cache, input::Document* doc) {
  for (const Table& t0 : root.tables("nodes")) {
    const Table t = named(t0);
    t.check_keys({"name", "allocatable", "labels", "annotations", "numa", "topology_policy",
                  "taints", "unschedulable", "ready", "images"});
    NodeSpec n;
    n.name = name_of(t, "name");
    if (auto av = t.get("allocatable")) {
      ResourceList a = input::resource_list(*av, resource_amount);
      // Volcano keeps "pods" apart (NodeInfo.Allocatable.MaxTaskNum), not a resource.
      if (auto it = a.find(kPods); it != a.end()) {
        if (it->second > kInt32Max)
          av->table().get(kPods)->fail(fmt::format("{} pods is out of range", it->second),
                                       fmt::format("at most {} pods", kInt32Max));
        n.max_pods = static_cast<int32_t>(it->second);
        a.erase(it);
      }
      n.allocatable = std::move(a);
    }
    n.labels = t.string_map("labels");
    // The kubelet labels every node with its hostname; topology keys rely on it.
    n.labels.emplace("kubernetes.io/hostname", n.name);
    n.annotations = t.string_map("annotations");
    if (auto iv = t.get("images"))
      n.images = read_api_object(*iv, [](const nlohmann::json& j, const std::string& prefix) {
        return read_node_images(j, prefix);
      });
    load_numa(t, n);
    if (auto tv = t.get("taints")) {
      for (const Table& tt : tv->array("an array of taints ({ key = \"k\", effect = "
                                       "\"NoSchedule\" })")
                                 .tables()) {
        tt.check_keys({"key", "value", "effect"});
        Taint taint;
        taint.key = tt.require("key", "the taint's key").string();
        if (taint.key.empty()) tt.get("key")->fail("empty key", "the taint's key");
        taint.value = tt.opt_string("value").value_or("");
        taint.effect = tt.require("effect", "one of NoSchedule, PreferNoSchedule, NoExecute")
                           .choice(kTaintEffects, "effect");
        n.taints.push_back(std::move(taint));
      }
    }
    n.unschedulable = t.opt_bool("unschedulable").value_or(false);
    n.ready = t.opt_bool("ready").value_or(true);
    n.src = t.src();
    check_unique(t, cache.nodes(), n.name, "node");
    cache.upsert_node(std::move(n));
    if (doc) doc->release(t0);
  }
}

// One member of a HyperNode, Volcano's MemberSpec written flat:
//   { type = "Node", exact_match = "n1" }            { type = "HyperNode", exact_match = "s0" }
//   { type = "Node", regex_match = "^n[0-3]$" }
//   { type = "Node", label_match = { match_labels = { rack = "r1" },
//       match_expressions = [{ key = "zone", operator = "In", values = ["a"] }] } }
// Exactly one selector, as Volcano's CRD validation demands; a HyperNode member takes
// exact_match only.
HyperNodeMember load_member(const Table& t) {
  t.check_keys({"type", "exact_match", "regex_match", "label_match"});
  HyperNodeMember m;
  m.src = t.src();
  m.type = t.require("type", "\"Node\" or \"HyperNode\"")
               .choice(kMemberTypes, "member type");
  int selectors = 0;
  if (auto e = t.get("exact_match")) {
    m.exact = e->string("the name of a node or HyperNode");
    if (m.exact.empty()) e->fail("empty name", "the name of a node or HyperNode");
    ++selectors;
  }
  if (auto re = t.get("regex_match")) {
    m.regex = re->string("a regular expression over node names");
    if (m.regex.empty()) re->fail("empty regular expression", "a regular expression over node names");
    ++selectors;
  }
  if (auto lv = t.get("label_match")) {
    const Table lm = lv->table("a label selector ({ match_labels = { ... } })");
    lm.check_keys({"match_labels", "match_expressions"});
    m.has_labels = true;
    m.match_labels = lm.string_map("match_labels");
    if (auto me = lm.get("match_expressions")) {
      for (const Table& et : me->array("an array of tables ({ key = \"zone\", operator = "
                                       "\"In\", values = [\"a\"] })")
                                 .tables()) {
        et.check_keys({"key", "operator", "values"});
        LabelRequirement req;
        req.key = et.require("key", "a label key").string();
        if (req.key.empty()) et.get("key")->fail("empty key", "a label key");
        req.op = et.require("operator", "one of In, NotIn, Exists, DoesNotExist")
                     .choice(kSelectorOperators, "operator");
        std::optional<Value> values = et.get("values");
        if (values) req.values = values->strings();
        // metav1.LabelSelectorRequirement validation: In / NotIn need values, the others none.
        const bool set_op = req.op == "In" || req.op == "NotIn";
        if (set_op && req.values.empty()) {
          if (!values) et.missing("values", fmt::format("the label values operator {} matches", req.op));
          values->fail("no values", fmt::format("the label values operator {} matches", req.op));
        }
        if (!set_op && !req.values.empty())
          values->fail(fmt::format("values with operator {}", req.op),
                       "no 'values' with operators Exists and DoesNotExist");
        m.match_expressions.push_back(std::move(req));
      }
    }
    if (m.match_labels.empty() && m.match_expressions.empty())
      lm.fail("an empty label_match selects no node", "match_labels or match_expressions");
    ++selectors;
  }
  if (selectors != 1)
    t.fail(selectors == 0 ? "no selector" : "more than one selector",
           "exactly one of exact_match, regex_match, label_match");
  if (m.type == MemberType::HyperNode && m.exact.empty())
    t.fail("a HyperNode member selected by regex_match or label_match",
           "exact_match only (Volcano selects HyperNodes by name)");
  return m;
}

// [[hypernodes]]: name, tier, members. Read after the nodes; members may name HyperNodes
// declared further down. Then the whole tree is checked (host/model/hypernode_tree.hpp):
// in a file every defect it finds is an error, pointing at the member (or the HyperNode).
void load_hypernodes(const Table& root, Cache& cache) {
  std::map<std::string, std::string> paths;  // HyperNode name -> "hypernodes[i] (name)"
  for (const Table& t0 : root.tables("hypernodes")) {
    const Table t = named(t0);
    t.check_keys({"name", "tier", "members"});
    HyperNodeSpec hn;
    hn.name = name_of(t, "name");
    hn.tier = static_cast<int32_t>(
        t.require("tier", "the HyperNode's tier, an integer of at least 0").integer(0, kInt32Max));
    const Value mv = t.require("members", "an array of members ({ type = \"Node\", exact_match = "
                                          "\"n1\" })");
    for (const Table& mt : mv.array("an array of tables ({ type = \"Node\", exact_match = "
                                    "\"n1\" })")
                               .tables())
      hn.members.push_back(load_member(mt));
    hn.src = t.src();
    check_unique(t, cache.hypernodes(), hn.name, "HyperNode");
    paths[hn.name] = t.path();
    cache.upsert_hypernode(std::move(hn));
  }
  if (cache.hypernodes().empty()) return;

  std::vector<HyperNodeProblem> problems;
  (void)build_hypernode_tree(cache.hypernodes(), cache.nodes(), &problems);
  if (problems.empty()) return;
  // A cycle or a second parent first: they are what the other defects follow from.
  const HyperNodeProblem* first = &problems.front();
  for (const HyperNodeProblem& q : problems)
    if (q.fatal) {
      first = &q;
      break;
    }
  const HyperNodeProblem& p = *first;
  const HyperNodeSpec& hn = *cache.hypernodes().at(p.hypernode);
  const SourceRef& at = p.member >= 0 ? hn.members[static_cast<size_t>(p.member)].src : hn.src;
  std::string obj = paths[p.hypernode];
  if (p.member >= 0) obj = input::index_path(obj + ".members", static_cast<size_t>(p.member));
  // The tree's messages say what is wrong between the HyperNodes, and so what would be
  // right: the format's "expected" part is left out.
  input::fail(at, obj, p.message);
}

// Volcano always has a "default" queue; a scenario may use it without declaring it.
void ensure_default_queue(const std::string& file, Cache& cache) {
  if (cache.queues().count("default")) return;
  QueueSpec q;
  q.name = "default";
  q.src = SourceRef{file, 0, 0};
  cache.upsert_queue(std::move(q));
}

// Volcano's NetworkTopologySpec: mode (default hard) and highestTierAllowed. A hard mode
// without a tier is a constraint Volcano silently drops (IsHardTopologyMode), so a file must
// give one.
NetworkTopology read_network_topology(const Value& v) {
  const Table nt = v.table("a table ({ mode = \"hard\", highest_tier_allowed = 1 })");
  nt.check_keys({"mode", "highest_tier_allowed"});
  NetworkTopology topo;
  topo.mode = nt.opt_choice("mode", kTopologyModes, "mode").value_or(TopologyMode::Hard);
  auto tier = nt.opt_int("highest_tier_allowed", 0, kInt32Max);
  if (topo.mode == TopologyMode::Hard && !tier)
    nt.missing("highest_tier_allowed",
               "the highest HyperNode tier the job may span (mode \"hard\" needs one)");
  topo.highest_tier_allowed = static_cast<int32_t>(tier.value_or(0));
  return topo;
}

// One [[podgroups.sub_group_policy]] table: Volcano's SubGroupPolicySpec
// (docs/SCENARIOS-EXTENSIONS.md, "Sub-groups").
SubGroupPolicy read_sub_group_policy(const Table& t, const std::vector<SubGroupPolicy>& before) {
  t.check_keys({"name", "sub_group_size", "min_sub_groups", "match_label_keys", "label_selector",
                "network_topology"});
  SubGroupPolicy p;
  Value nv = t.require("name", "the policy's name, unique in the PodGroup");
  p.name = nv.string();
  if (p.name.empty()) nv.fail("an empty name", "the policy's name, unique in the PodGroup");
  for (const SubGroupPolicy& b : before)
    if (b.name == p.name)
      nv.fail(fmt::format("a second sub-group policy named '{}'", p.name),
              "a name no other policy of the PodGroup has");
  if (auto v = t.opt_int("sub_group_size", 0, kInt32Max)) p.sub_group_size = static_cast<int32_t>(*v);
  if (auto v = t.opt_int("min_sub_groups", 0, kInt32Max)) p.min_sub_groups = static_cast<int32_t>(*v);
  if (auto kv = t.get("match_label_keys")) {
    Array keys = kv->array("an array of label keys");
    for (size_t i = 0; i < keys.size(); ++i) {
      std::string key = keys[i].string("a label key");
      if (key.empty()) keys[i].fail("an empty label key", "a label key");
      p.match_label_keys.push_back(std::move(key));
    }
  }
  if (auto sv = t.get("label_selector")) {
    // A metav1.LabelSelector as the API writes it (matchLabels, matchExpressions).
    api::Selector sel = read_api_object(*sv, [](const nlohmann::json& j, const std::string& prefix) {
      return api::label_selector(&j, prefix);
    });
    p.has_label_selector = true;
    p.label_selector = label_requirements(sel);
  }
  if (auto ntv = t.get("network_topology")) p.network_topology = read_network_topology(*ntv);
  return p;
}

void load_podgroups(const Table& root, Cache& cache, input::Document* doc) {
  for (const Table& t0 : root.tables("podgroups")) {
    const Table t = named_namespaced(t0);
    t.check_keys({"name", "namespace", "queue", "min_member", "min_task_member", "min_resources",
                  "phase", "priority_class", "created", "annotations", "network_topology",
                  "sub_group_policy"});
    PodGroupSpec pg;
    pg.name = name_of(t, "name");
    if (auto nv = t.get("namespace")) pg.ns = checked_name(*nv);
    std::optional<Value> qv = t.get("queue");
    if (qv) pg.queue = checked_name(*qv);
    if (!cache.queues().count(pg.queue)) {
      if (pg.queue != "default")
        qv->fail(fmt::format("queue '{}' not found{}", pg.queue,
                             input::did_you_mean(pg.queue, names_of(cache.queues()))),
                 "a queue declared in [[queues]], or \"default\"");
      ensure_default_queue(root.file(), cache);
    }
    pg.min_member = static_cast<int32_t>(t.opt_int("min_member", 0, kInt32Max).value_or(1));
    if (auto m = t.get("min_task_member")) {
      for (const Entry& e : m->table("a table of minimum pod counts by task role").entries())
        pg.min_task_member[e.key] = static_cast<int32_t>(e.value.integer(0, kInt32Max));
    }
    pg.min_resources = opt_resources(t, "min_resources");
    if (auto mv = t.get("min_resources")) pg.min_resources_written = input::resource_list(*mv, quota_amount);
    pg.phase = t.opt_choice("phase", kJobPhases, "phase").value_or(JobPhase::Pending);
    if (auto pcv = t.get("priority_class")) {
      pg.priority_class = pcv->string();
      if (!cache.priority_classes().count(pg.priority_class))
        pcv->fail(fmt::format("priority class '{}' not found{}", pg.priority_class,
                              input::did_you_mean(pg.priority_class,
                                                  names_of(cache.priority_classes()))),
                  "a class declared in [[priority_classes]]");
    }
    pg.created = t.opt_number("created").value_or(0);
    pg.phase_since = pg.created;
    pg.annotations = t.string_map("annotations");
    if (auto ntv = t.get("network_topology")) pg.network_topology = read_network_topology(*ntv);
    for (const Table& sg : t.tables("sub_group_policy"))
      pg.sub_group_policy.push_back(read_sub_group_policy(sg, pg.sub_group_policy));
    pg.src = t.src();
    check_unique(t, cache.podgroups(), pg.key(), "podgroup");
    cache.upsert_podgroup(std::move(pg));
    if (doc) doc->release(t0);
  }
}


// A pod's affinity, topology spread constraints, host ports and images.
std::shared_ptr<const PodConstraints> read_constraints(const Table& t) {
  PodConstraintsReader r;
  if (auto v = t.get("affinity"))
    read_api_object(*v, [&](const nlohmann::json& j, const std::string& prefix) {
      r.affinity(j, prefix);
      return 0;
    });
  if (auto v = t.get("topology_spread_constraints"))
    read_api_object(*v, [&](const nlohmann::json& j, const std::string& prefix) {
      r.topology_spread(j, prefix);
      return 0;
    });
  if (auto v = t.get("ports"))
    read_api_object(*v, [&](const nlohmann::json& j, const std::string& prefix) {
      r.container_ports(j, prefix);
      return 0;
    });
  if (auto v = t.get("images"))
    for (const std::string& image : v->strings()) r.image(image);
  if (auto v = t.get("volumes"))
    read_api_object(*v, [&](const nlohmann::json& j, const std::string& prefix) {
      r.volumes(j, prefix);
      return 0;
    });
  return r.finish();
}

void load_pods(const Table& root, Cache& cache, input::Document* doc) {
  for (const Table& t0 : root.tables("pods")) {
    const Table t = named_namespaced(t0);
    t.check_keys({"name", "namespace", "podgroup", "requests", "phase", "node", "priority",
                  "priority_class", "labels", "annotations", "node_selector", "tolerations",
                  "preemption_policy", "created", "releasing", "affinity",
                  "topology_spread_constraints", "ports", "images", "volumes", "scheduled"});
    PodSpec p;
    p.name = name_of(t, "name");
    if (auto nv = t.get("namespace")) p.ns = checked_name(*nv);
    if (auto pgv = t.get("podgroup")) {
      // An empty podgroup is allowed: the pod is a job of its own (the session builds it),
      // in the default queue, as Volcano's controller would put it.
      p.podgroup = pgv->string("the name of a podgroup of the pod's namespace");
      if (!p.podgroup.empty()) {
        checked_name(*pgv);
        if (!cache.podgroups().count(p.ns + "/" + p.podgroup)) {
          std::vector<std::string> same_ns;
          for (const auto& [key, pg] : cache.podgroups())
            if (pg->ns == p.ns) same_ns.push_back(pg->name);
          pgv->fail(fmt::format("podgroup '{}' not found in namespace {}{}", p.podgroup, p.ns,
                                input::did_you_mean(p.podgroup, same_ns)),
                    fmt::format("a podgroup declared in [[podgroups]] in namespace {}", p.ns));
        }
      }
    }
    if (p.podgroup.empty()) ensure_default_queue(root.file(), cache);
    if (auto rv = t.get("requests")) {
      p.requests = input::resource_list(*rv, resource_amount);
      // Kubernetes refuses "pods" in a container's requests (validateContainerResourceName).
      if (p.requests.count(kPods))
        rv->table().get(kPods)->fail("a pod cannot request pods",
                                     "resources other than pods (a node's pod count)");
    }
    std::optional<Value> phase = t.get("phase");
    p.phase = phase ? phase->choice(kPodPhases, "phase") : PodPhase::Pending;
    if (auto nv = t.get("node")) {
      p.node = nv->string("the name of a node");
      if (!p.node.empty() && !cache.nodes().count(p.node))
        nv->fail(fmt::format("node '{}' not found{}", p.node,
                             input::did_you_mean(p.node, names_of(cache.nodes()))),
                 "a node declared in [[nodes]]");
    }
    // A Running pod without a node is kept as Volcano's cache keeps it: a running task of
    // its job (counted as ready and in its queue's allocation) on no node.
    if (p.phase == PodPhase::Running && p.node.empty())
      spdlog::warn("{}: {}: Running without a node (kept, as Volcano's cache does)",
                   phase->src().str(), phase->path());
    if (auto pr = t.opt_int("priority", kInt32Min, kInt32Max)) p.priority = static_cast<int32_t>(*pr);
    if (auto pcv = t.get("priority_class")) {
      p.priority_class = pcv->string();
      if (!cache.priority_classes().count(p.priority_class))
        pcv->fail(fmt::format("priority class '{}' not found{}", p.priority_class,
                              input::did_you_mean(p.priority_class,
                                                  names_of(cache.priority_classes()))),
                  "a class declared in [[priority_classes]]");
    }
    p.labels = t.string_map("labels");
    p.annotations = t.string_map("annotations");
    p.node_selector = t.string_map("node_selector");
    if (auto tv = t.get("tolerations")) p.tolerations = read_tolerations(*tv);
    p.constraints = read_constraints(t);
    p.preempt_never =
        t.opt_choice("preemption_policy", kPreemptionPolicies, "preemption policy").value_or(false);
    p.created = t.opt_number("created").value_or(0);
    p.releasing = t.opt_bool("releasing").value_or(false);
    if (auto sv = t.get("scheduled")) {
      // The PodScheduled condition of a pod that has a node (Kubernetes sets it with the
      // bind); what cooldown protection (cdp) measures from.
      if (p.node.empty())
        sv->fail("a scheduled time for a pod without a node", "the node it runs on in 'node'");
      p.scheduled_at = sv->number();
    }
    if (p.releasing && p.node.empty())
      t.get("releasing")->fail("a releasing pod without a node", "the node it leaves in 'node'");
    p.src = t.src();
    check_unique(t, cache.pods(), p.key(), "pod");
    cache.upsert_pod(std::move(p));
    if (doc) doc->release(t0);
  }
}

// "ns/name" keys of the expectations must name objects of the scenario: a typo in an
// expectation would otherwise pass or fail for the wrong reason.
void load_expect(const Table& root, Scenario& sc) {
  std::optional<Table> e = root.opt_table("expect");
  if (!e) return;
  e->check_keys({"binds", "bind_count", "evictions", "evict_count", "pipelined", "podgroup_phases",
                 "pending"});
  constexpr const char* kPodName = "a pod of the scenario, named namespace/name";
  auto pod_key = [&](const SourceRef& at, const std::string& path, const std::string& key) {
    if (!sc.cache.pods().count(key))
      input::fail(at, path,
                  fmt::format("pod '{}' not found{}", key,
                              input::did_you_mean(key, names_of(sc.cache.pods()))),
                  kPodName);
  };
  auto pod_list = [&](const char* key) -> std::optional<std::vector<std::string>> {
    std::optional<Value> v = e->get(key);
    if (!v) return std::nullopt;
    Array arr = v->array("an array of pod names (namespace/name)");
    std::vector<std::string> out;
    for (size_t i = 0; i < arr.size(); ++i) {
      std::string k = arr[i].string(kPodName);
      pod_key(arr[i].src(), arr[i].path(), k);
      if (std::find(out.begin(), out.end(), k) != out.end())
        arr[i].fail(fmt::format("'{}' listed twice", k), "each pod once");
      out.push_back(k);
    }
    return out;
  };
  if (auto b = e->get("binds")) {
    std::map<std::string, std::string> binds;
    for (const Entry& en : b->table("a table of node names by pod (\"ns/name\" = \"node\")").entries()) {
      pod_key(en.key_src, en.value.path(), en.key);
      std::string node = en.value.string("the name of a node");
      if (!sc.cache.nodes().count(node))
        en.value.fail(fmt::format("node '{}' not found{}", node,
                                  input::did_you_mean(node, names_of(sc.cache.nodes()))),
                      "a node declared in [[nodes]]");
      binds[en.key] = node;
    }
    sc.expect.binds = std::move(binds);
  }
  if (auto n = e->opt_int("bind_count", 0, kInt32Max)) sc.expect.bind_count = static_cast<size_t>(*n);
  sc.expect.evictions = pod_list("evictions");
  if (auto n = e->opt_int("evict_count", 0, kInt32Max)) sc.expect.evict_count = static_cast<size_t>(*n);
  sc.expect.pipelined = pod_list("pipelined");
  if (auto pv = e->get("pending")) {
    std::map<std::string, std::string> pending;
    for (const Entry& en :
         pv->table("a table of reason texts by pod (\"ns/name\" = \"text\")").entries()) {
      pod_key(en.key_src, en.value.path(), en.key);
      pending[en.key] = en.value.string("a text the pod's pending reason contains");
    }
    sc.expect.pending = std::move(pending);
  }
  if (auto ph = e->get("podgroup_phases")) {
    std::map<std::string, std::string> phases;
    for (const Entry& en : ph->table("a table of phases by podgroup (\"ns/name\" = \"Running\")").entries()) {
      if (!sc.cache.podgroups().count(en.key))
        input::fail(en.key_src, en.value.path(),
                    fmt::format("podgroup '{}' not found{}", en.key,
                                input::did_you_mean(en.key, names_of(sc.cache.podgroups()))),
                    "a podgroup of the scenario, named namespace/name");
      (void)en.value.choice(kJobPhases, "phase");
      phases[en.key] = en.value.string();
    }
    sc.expect.podgroup_phases = std::move(phases);
  }
}

// A storage object: `name` (and `namespace` for a claim) and, optionally, `metadata`, every
// other key a field of the API object (SCENARIOS.md): moved into the API object's shape,
// then read by the model's reader as any embedded object.
template <typename Read>
auto read_storage_object(const Table& t, bool namespaced, Read read) {
  auto spec = read_api_object(t.value(), [&](const nlohmann::json& written, const std::string& prefix) {
    nlohmann::json j = written;
    if (j.contains("metadata") && !j["metadata"].is_object())
      api::bad(api::field(prefix, "metadata"), fmt::format("got {}", api::kind_of(j["metadata"])),
               "a table of the object's metadata");
    nlohmann::json& md = j["metadata"];
    md["name"] = j["name"];
    j.erase("name");
    if (namespaced) {
      md["namespace"] = j.contains("namespace") ? j["namespace"] : nlohmann::json("default");
      j.erase("namespace");
    }
    return read(j, prefix);
  });
  spec.src = t.src();
  return spec;
}

void load_storage(const Table& root, Cache& cache) {
  for (const Table& t0 : root.tables("storage_classes")) {
    const Table t = named(t0);
    name_of(t, "name");
    StorageClassSpec sc = read_storage_object(t, false, read_storage_class);
    check_unique(t, cache.storage_classes(), sc.meta.name, "storage class");
    cache.upsert_storage_class(std::move(sc));
  }
  std::vector<PersistentVolumeSpec> volumes;
  for (const Table& t0 : root.tables("persistent_volumes")) {
    const Table t = named(t0);
    name_of(t, "name");
    PersistentVolumeSpec pv = read_storage_object(t, false, read_persistent_volume);
    check_unique(t, cache.persistent_volumes(), pv.meta.name, "persistent volume");
    cache.upsert_persistent_volume(pv);
  }
  for (const Table& t0 : root.tables("persistent_volume_claims")) {
    const Table t = named_namespaced(t0);
    name_of(t, "name");
    if (t.has("namespace")) name_of(t, "namespace");
    PersistentVolumeClaimSpec c = read_storage_object(t, true, read_persistent_volume_claim);
    check_unique(t, cache.claims(), c.key(), "persistent volume claim");
    // What the API server and the PV controller fill in (as the oracle does): a claim that
    // names its volume is bound to it, and the volume to the claim.
    if (!c.volume_name.empty()) {
      if (!c.has_phase) c.phase = CAL_CLAIM_BOUND;
      if (!c.meta.annotation(kAnnBindCompleted)) c.meta.set_annotation(kAnnBindCompleted, "yes");
      if (const PersistentVolume* pv = cache.persistent_volume(c.volume_name);
          pv != nullptr && !pv->spec().has_claim_ref) {
        PersistentVolumeSpec next = pv->spec();
        next.has_claim_ref = true;
        next.claim_namespace = c.meta.ns;
        next.claim_name = c.meta.name;
        next.claim_uid = c.meta.uid;
        if (!next.has_phase) next.phase = CAL_VOLUME_BOUND;
        cache.upsert_persistent_volume(std::move(next));
      }
    }
    cache.upsert_claim(std::move(c));
  }
}

// PodDisruptionBudgets and ResourceQuotas: `name`, `namespace` and the API object's other
// fields (spec, status), as storage objects are written.
void load_policies(const Table& root, Cache& cache) {
  for (const Table& t0 : root.tables("pod_disruption_budgets")) {
    const Table t = named_namespaced(t0);
    name_of(t, "name");
    if (t.has("namespace")) name_of(t, "namespace");
    DisruptionBudgetSpec b = read_storage_object(t, true, [](const nlohmann::json& j, const std::string& p) {
      return read_disruption_budget(j, p, false);
    });
    check_unique(t, cache.disruption_budgets(), b.key(), "pod disruption budget");
    cache.upsert_disruption_budget(std::move(b));
  }
  for (const Table& t0 : root.tables("resource_quotas")) {
    const Table t = named_namespaced(t0);
    name_of(t, "name");
    if (t.has("namespace")) name_of(t, "namespace");
    ResourceQuotaSpec q = read_storage_object(t, true, [](const nlohmann::json& j, const std::string& p) {
      return read_resource_quota(j, p, false);
    });
    check_unique(t, cache.resource_quotas(), q.key(), "resource quota");
    if (std::string name = quota_status_needed(q); !name.empty())
      t.fail(fmt::format("quota resource '{}' is counted from what the scheduler does not "
                         "model (limits, object counts, storage), and the quota has no "
                         "status.used",
                         name),
             "status.used with every resource of the quota, or only resources counted from "
             "pods (cpu, memory, pods, requests.<name>, <extended resource>)");
    cache.upsert_resource_quota(std::move(q));
  }
}

// `doc`, when the file is the loader's own, has the long lists' objects (nodes, podgroups,
// pods) released as they are read (input::Document::release): nothing refers to an object's
// table once its record is made. Not the others: a queue's 'parent' is checked after the
// list.
void load_cluster(const Table& root, Cache& cache, input::Document* doc = nullptr) {
  // In dependency order: each list may name objects of the lists before it.
  load_priority_classes(root, cache);
  load_queues(root, cache);
  load_nodes(root, cache, doc);
  load_hypernodes(root, cache);
  load_storage(root, cache);
  load_podgroups(root, cache, doc);
  load_pods(root, cache, doc);
  load_policies(root, cache);
}

}  // namespace

std::vector<Toleration> read_tolerations(const input::Value& v) {
  std::vector<Toleration> out;
  for (const input::Table& tt : v.array("an array of tolerations ({ key = \"k\", operator = "
                                 "\"Equal\", value = \"v\", effect = \"NoSchedule\" })")
                             .tables()) {
    tt.check_keys({"key", "operator", "value", "effect"});
    Toleration tol;
    tol.key = tt.opt_string("key").value_or("");
    tol.op = tt.opt_choice("operator", kTolerationOperators, "operator").value_or("Equal");
    tol.value = tt.opt_string("value").value_or("");
    tol.effect = tt.opt_choice("effect", kTaintEffects, "effect").value_or("");
    // Kubernetes validation (ValidateTolerations): an empty key needs Exists, and Exists
    // takes no value.
    if (tol.key.empty() && tol.op != "Exists")
      tt.fail("a toleration without 'key' and with operator Equal",
              "operator = \"Exists\" when 'key' is left out");
    if (tol.op == "Exists" && !tol.value.empty())
      tt.get("value")->fail("a value with operator Exists", "no 'value' with operator Exists");
    out.push_back(std::move(tol));
  }
  return out;
}

void load_cluster_objects(const toml::table& tbl, const fs::path& file, Cache& cache) {
  load_cluster(Table(tbl, file), cache);
}

Scenario load_scenario(const fs::path& file, const std::vector<fs::path>& default_plugin_dirs) {
  input::Document doc = input::parse_file(file, "scenario");
  const Table root = doc.table();

  Scenario sc;
  sc.file = file;
  root.check_keys({"name", "description", "sessions", "config", "config_file", "priority_classes",
                   "queues", "nodes", "hypernodes", "podgroups", "pods", "storage_classes",
                   "persistent_volumes", "persistent_volume_claims", "pod_disruption_budgets",
                   "resource_quotas", "expect"});
  sc.name = root.opt_string("name").value_or(file.stem().string());
  (void)root.opt_string("description");
  sc.sessions = static_cast<int>(root.opt_int("sessions", 1, 100000).value_or(1));

  std::optional<Value> cfg = root.get("config");
  std::optional<Value> cfg_file = root.get("config_file");
  if (cfg && cfg_file) cfg_file->fail("both [config] and config_file", "one of them");
  if (cfg) {
    sc.config = parse_config(cfg->table("a table: the scheduler config").raw(), file,
                             default_plugin_dirs, cfg->path());
  } else if (cfg_file) {
    std::string rel = cfg_file->string("the path of a config file, relative to this file");
    if (rel.empty()) cfg_file->fail("empty path", "the path of a config file, relative to this file");
    fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : file.parent_path() / rel;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      cfg_file->fail(fmt::format("config file '{}' not found", p.string()),
                     "the path of a config file, relative to this file");
    sc.config = load_config(p, default_plugin_dirs);
  } else {
    root.fail("no scheduler config", "a [config] table or config_file = \"path.toml\"");
  }

  load_cluster(root, sc.cache, &doc);
  load_expect(root, sc);
  return sc;
}

}  // namespace caldera
