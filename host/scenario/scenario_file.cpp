// Scenario files (SCENARIOS.md section 2) and the cluster objects they hold.
//
// The objects mirror what Volcano's scheduler cache builds from the API server
// (pkg/scheduler/cache/event_handlers.go, pkg/scheduler/api/job_info.go, queue_info.go,
// node_info.go); the loader only reads and checks them and leaves every derived value
// (task priority, job of a lone pod, task roles from labels) to the session, so a scenario
// and the embedded cluster produce the same cache.
//
// Every error names file:line:column, the object ("pods[3] (c1/p3)") and what is wrong.
// Array indexes in object names count from 0, as TOML paths do.
#include "host/scenario/scenario_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "host/model/hypernode_tree.hpp"
#include "host/model/quantity.hpp"

namespace caldera {
namespace {

namespace fs = std::filesystem;

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    default: return "nothing";
  }
}

// The reading context of one file: where errors point and how they are worded.
class Reader {
 public:
  explicit Reader(fs::path file) : file_(std::move(file)) {}

  const fs::path& file() const { return file_; }

  SourceRef ref(const toml::source_region& r) const {
    return SourceRef{file_.string(), static_cast<int>(r.begin.line),
                     static_cast<int>(r.begin.column)};
  }

  [[noreturn]] void fail(const toml::source_region& r, const std::string& object,
                         const std::string& msg) const {
    std::string where = file_.string();
    if (r.begin.line > 0) where += fmt::format(":{}:{}", r.begin.line, r.begin.column);
    throw InputError(object.empty() ? fmt::format("{}: {}", where, msg)
                                    : fmt::format("{}: {}: {}", where, object, msg));
  }

  // Unknown keys are errors that list the allowed ones (a typo must never be ignored).
  void check_keys(const toml::table& t, const std::vector<std::string>& allowed,
                  const std::string& object) const {
    for (auto&& [k, v] : t) {
      (void)v;
      bool ok = false;
      for (const auto& a : allowed) ok = ok || a == k.str();
      if (!ok) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(k.source(), object, fmt::format("unknown key '{}' (allowed: {})", k.str(), list));
      }
    }
  }

  const toml::table* opt_table(const toml::table& t, const char* key,
                               const std::string& object) const {
    const toml::node* n = t.get(key);
    if (!n) return nullptr;
    if (!n->is_table())
      fail(n->source(), object, fmt::format("'{}' must be a table, got {}", key, type_name(*n)));
    return n->as_table();
  }

  std::optional<std::string> opt_string(const toml::table& t, const char* key,
                                        const std::string& object) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string())
      fail(n->source(), object, fmt::format("'{}' must be a string, got {}", key, type_name(*n)));
    return n->as_string()->get();
  }

  std::optional<bool> opt_bool(const toml::table& t, const char* key,
                               const std::string& object) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean())
      fail(n->source(), object,
           fmt::format("'{}' must be true or false, got {}", key, type_name(*n)));
    return n->as_boolean()->get();
  }

  std::optional<int64_t> opt_int(const toml::table& t, const char* key, const std::string& object,
                                 int64_t min, int64_t max) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_integer())
      fail(n->source(), object,
           fmt::format("'{}' must be an integer, got {}", key, type_name(*n)));
    int64_t v = n->as_integer()->get();
    if (v < min || v > max) {
      if (max == std::numeric_limits<int32_t>::max())
        fail(n->source(), object, fmt::format("'{}' = {} is out of range (at least {})", key, v, min));
      fail(n->source(), object, fmt::format("'{}' = {} is out of range ({} to {})", key, v, min, max));
    }
    return v;
  }

  // An integer or a float (times, weights).
  std::optional<double> opt_number(const toml::table& t, const char* key,
                                   const std::string& object) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    double v;
    if (n->is_integer()) {
      v = static_cast<double>(n->as_integer()->get());
    } else if (n->is_floating_point()) {
      v = n->as_floating_point()->get();
    } else {
      fail(n->source(), object, fmt::format("'{}' must be a number, got {}", key, type_name(*n)));
    }
    if (!std::isfinite(v)) fail(n->source(), object, fmt::format("'{}' must be finite", key));
    return v;
  }

  // A table of strings (labels, annotations, node selectors).
  StringMap string_map(const toml::table& t, const char* key, const std::string& object) const {
    StringMap out;
    const toml::table* m = opt_table(t, key, object);
    if (!m) return out;
    for (auto&& [k, v] : *m) {
      if (!v.is_string())
        fail(v.source(), object,
             fmt::format("{}.\"{}\" must be a string, got {} (write it in quotes)", key, k.str(),
                         type_name(v)));
      out[std::string(k.str())] = v.as_string()->get();
    }
    return out;
  }

  // One quantity: a string ("500m", "4Gi"), an integer or a float, in Caldera units.
  double quantity(const toml::node& v, const std::string& resource, const std::string& what,
                  const std::string& object) const {
    std::string text;
    if (v.is_string()) {
      text = v.as_string()->get();
    } else if (v.is_integer()) {
      text = std::to_string(v.as_integer()->get());
    } else if (v.is_floating_point()) {
      double d = v.as_floating_point()->get();
      if (!std::isfinite(d)) fail(v.source(), object, fmt::format("{}: must be finite", what));
      text = fmt::format("{}", d);  // shortest form that reads back the same: 0.5 -> "0.5"
    } else {
      fail(v.source(), object,
           fmt::format("{}: a quantity must be a string or a number, got {}", what, type_name(v)));
    }
    auto amount = resource_amount(resource, text);
    if (!amount)
      fail(v.source(), object,
           fmt::format("{}: '{}' is not a quantity (examples: \"2\", \"500m\", \"4Gi\", \"1G\", "
                       "\"1e3\")",
                       what, text));
    if (*amount < 0)
      fail(v.source(), object, fmt::format("{}: negative amount '{}'", what, text));
    return *amount;
  }

  std::optional<ResourceList> resource_list(const toml::table& t, const char* key,
                                            const std::string& object) const {
    const toml::table* m = opt_table(t, key, object);
    if (!m) return std::nullopt;
    ResourceList out;
    for (auto&& [k, v] : *m) {
      std::string res(k.str());
      if (res.empty()) fail(k.source(), object, fmt::format("{}: empty resource name", key));
      out[res] = quantity(v, res, fmt::format("{}.{}", key, res), object);
    }
    return out;
  }

  // A required, non-empty name without '/': names are joined as "namespace/name".
  std::string name(const toml::table& t, const char* key, const std::string& object) const {
    auto s = opt_string(t, key, object);
    if (!s) fail(t.source(), object, fmt::format("missing '{}'", key));
    check_name(*t.get(key), *s, key, object);
    return *s;
  }

  void check_name(const toml::node& n, const std::string& s, const char* key,
                  const std::string& object) const {
    if (s.empty()) fail(n.source(), object, fmt::format("'{}' must not be empty", key));
    if (s.find('/') != std::string::npos)
      fail(n.source(), object, fmt::format("'{}' = '{}' must not contain '/'", key, s));
  }

  // An array of tables ([[pods]]), each handed to `each` with its index.
  void each_table(const toml::table& root, const char* key,
                  const std::function<void(const toml::table&, size_t)>& each) const {
    const toml::node* n = root.get(key);
    if (!n) return;
    const toml::array* arr = n->as_array();
    if (!arr)
      fail(n->source(), "", fmt::format("'{}' must be an array of tables ([[{}]]), got {}", key,
                                        key, type_name(*n)));
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::node& el = *arr->get(i);
      if (!el.is_table())
        fail(el.source(), fmt::format("{}[{}]", key, i),
             fmt::format("must be a table, got {}", type_name(el)));
      each(*el.as_table(), i);
    }
  }

 private:
  fs::path file_;
};

// Object label for messages: "pods[3] (c1/p3)", or "pods[3]" before the name is known.
std::string label(const char* list, size_t i, const std::string& key = {}) {
  return key.empty() ? fmt::format("{}[{}]", list, i) : fmt::format("{}[{}] ({})", list, i, key);
}

// The peek at a table's name that labels its errors, before the name is checked.
std::string peek(const toml::table& t, const char* key) {
  const toml::node* n = t.get(key);
  return n && n->is_string() ? n->as_string()->get() : std::string();
}

template <typename T>
T one_of(const Reader& r, const toml::table& t, const char* key, const std::string& object,
         const std::vector<std::pair<const char*, T>>& choices, T fallback) {
  auto s = r.opt_string(t, key, object);
  if (!s) return fallback;
  std::string list;
  for (const auto& [name, value] : choices) {
    if (*s == name) return value;
    list += (list.empty() ? "" : " | ") + std::string(name);
  }
  r.fail(t.get(key)->source(), object, fmt::format("{} '{}' is not one of {}", key, *s, list));
}

// Volcano's NewResource turns "pods" into MaxTaskNum, which only the node's pod-count
// predicate reads: in a queue's or PodGroup's list it counts for nothing, so it is dropped
// rather than made a resource dimension of its own.
std::optional<ResourceList> without_pods(std::optional<ResourceList> rl) {
  if (rl) rl->erase(kPods);
  return rl;
}

const std::vector<std::pair<const char*, JobPhase>> kJobPhases = {
    {"Pending", JobPhase::Pending},
    {"Inqueue", JobPhase::Inqueue},
    {"Running", JobPhase::Running},
    {"Unknown", JobPhase::Unknown},
    {"Completed", JobPhase::Completed}};

const std::vector<std::pair<const char*, std::string>> kTaintEffects = {
    {"NoSchedule", "NoSchedule"},
    {"PreferNoSchedule", "PreferNoSchedule"},
    {"NoExecute", "NoExecute"}};

void load_priority_classes(const Reader& r, const toml::table& root, Cache& cache) {
  r.each_table(root, "priority_classes", [&](const toml::table& t, size_t i) {
    std::string obj = label("priority_classes", i, peek(t, "name"));
    r.check_keys(t, {"name", "value", "global_default"}, obj);
    PriorityClassSpec pc;
    pc.name = r.name(t, "name", obj);
    auto v = r.opt_int(t, "value", obj, std::numeric_limits<int32_t>::min(),
                       std::numeric_limits<int32_t>::max());
    if (!v) r.fail(t.source(), obj, "missing 'value'");
    pc.value = static_cast<int32_t>(*v);
    pc.global_default = r.opt_bool(t, "global_default", obj).value_or(false);
    pc.src = r.ref(t.source());
    if (cache.priority_classes().count(pc.name))
      r.fail(t.source(), obj, fmt::format("duplicate priority class '{}'", pc.name));
    cache.upsert_priority_class(std::move(pc));
  });
}

void load_queues(const Reader& r, const toml::table& root, Cache& cache) {
  // queue -> its 'parent' value and its label, checked once every queue is known.
  std::map<std::string, std::pair<const toml::node*, std::string>> parent_nodes;
  r.each_table(root, "queues", [&](const toml::table& t, size_t i) {
    std::string obj = label("queues", i, peek(t, "name"));
    r.check_keys(t, {"name", "weight", "capability", "deserved", "guarantee", "reclaimable",
                     "priority", "state", "parent", "created"},
                 obj);
    QueueSpec q;
    q.name = r.name(t, "name", obj);
    if (auto w = r.opt_number(t, "weight", obj)) {
      if (*w <= 0) r.fail(t.get("weight")->source(), obj, "'weight' must be positive");
      q.weight = *w;
    }
    q.capability = without_pods(r.resource_list(t, "capability", obj));
    q.deserved = without_pods(r.resource_list(t, "deserved", obj));
    q.guarantee = without_pods(r.resource_list(t, "guarantee", obj));
    q.reclaimable = r.opt_bool(t, "reclaimable", obj).value_or(true);
    q.priority = static_cast<int32_t>(
        r.opt_int(t, "priority", obj, std::numeric_limits<int32_t>::min(),
                  std::numeric_limits<int32_t>::max())
            .value_or(0));
    q.state = one_of<QueueState>(r, t, "state", obj,
                                 {{"Open", QueueState::Open},
                                  {"Closed", QueueState::Closed},
                                  {"Closing", QueueState::Closing}},
                                 QueueState::Open);
    if (auto p = r.opt_string(t, "parent", obj)) {
      r.check_name(*t.get("parent"), *p, "parent", obj);
      if (*p == q.name) r.fail(t.get("parent")->source(), obj, "a queue cannot be its own parent");
      q.parent = *p;
      parent_nodes[q.name] = {t.get("parent"), obj};
    }
    q.created = r.opt_number(t, "created", obj).value_or(0);
    q.src = r.ref(t.source());
    if (cache.queues().count(q.name))
      r.fail(t.source(), obj, fmt::format("duplicate queue '{}'", q.name));
    cache.upsert_queue(std::move(q));
  });

  // Parents: a declared queue, or "root", which Volcano always has (created here when a
  // queue names it). No cycles.
  for (const auto& [name, where] : parent_nodes) {
    const auto& [node, obj] = where;
    const QueueSpec& q = *cache.queues().at(name);
    if (!cache.queues().count(q.parent)) {
      if (q.parent != "root")
        r.fail(node->source(), obj, fmt::format("parent queue '{}' not found", q.parent));
      QueueSpec root_q;
      root_q.name = "root";
      root_q.src = SourceRef{r.file().string(), 0, 0};
      cache.upsert_queue(std::move(root_q));
    }
    std::set<std::string> seen{name};
    for (std::string p = q.parent; !p.empty(); p = cache.queues().at(p)->parent) {
      if (!seen.insert(p).second)
        r.fail(node->source(), obj, fmt::format("queue parents form a cycle through '{}'", p));
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
void load_numa(const Reader& r, const toml::table& t, const std::string& obj, NodeSpec& n) {
  n.topology_policy = one_of<std::string>(r, t, "topology_policy", obj,
                                          {{"none", "none"},
                                           {"best-effort", "best-effort"},
                                           {"restricted", "restricted"},
                                           {"single-numa-node", "single-numa-node"}},
                                          "none");
  const toml::node* nn = t.get("numa");
  if (!nn) return;
  const toml::array* arr = nn->as_array();
  if (!arr)
    r.fail(nn->source(), obj,
           fmt::format("'numa' must be an array of tables ({{ cpu = \"16\", memory = \"64Gi\" }}), "
                       "got {}",
                       type_name(*nn)));
  if (arr->empty()) r.fail(nn->source(), obj, "'numa' lists no NUMA node; leave it out instead");
  NumaNode sum;
  size_t with_memory = 0;
  for (size_t j = 0; j < arr->size(); ++j) {
    const toml::node& el = *arr->get(j);
    std::string nobj = fmt::format("{} numa[{}]", obj, j);
    if (!el.is_table())
      r.fail(el.source(), nobj, fmt::format("must be a table, got {}", type_name(el)));
    const toml::table& nt = *el.as_table();
    r.check_keys(nt, {"cpu", "memory"}, nobj);
    if (!nt.get("cpu")) r.fail(nt.source(), nobj, "missing 'cpu'");
    NumaNode numa;
    numa.cpu = r.quantity(*nt.get("cpu"), kCpu, "cpu", nobj);
    if (const toml::node* m = nt.get("memory")) {
      numa.memory = r.quantity(*m, kMemory, "memory", nobj);
      ++with_memory;
    }
    sum.cpu += numa.cpu;
    sum.memory += numa.memory;
    n.numa.push_back(numa);
  }
  if (with_memory != 0 && with_memory != arr->size())
    r.fail(nn->source(), obj,
           fmt::format("{} of the {} NUMA nodes list memory: list it on every NUMA node or on "
                       "none",
                       with_memory, arr->size()));
  auto alloc = [&](const char* res) {
    auto it = n.allocatable.find(res);
    return it == n.allocatable.end() ? 0.0 : it->second;
  };
  // Quantities are exact in millicores and bytes; the tolerance only absorbs rounding of
  // the double sums.
  auto differs = [](double a, double b) { return std::fabs(a - b) > 1e-6 * std::max(1.0, b); };
  if (differs(sum.cpu, alloc(kCpu)))
    r.fail(nn->source(), obj,
           fmt::format("the NUMA nodes hold {}m cpu in all, but the node's allocatable cpu is "
                       "{}m: the layout must add up to it",
                       sum.cpu, alloc(kCpu)));
  if (with_memory != 0 && differs(sum.memory, alloc(kMemory)))
    r.fail(nn->source(), obj,
           fmt::format("the NUMA nodes hold {} bytes of memory in all, but the node's "
                       "allocatable memory is {} bytes: the layout must add up to it",
                       sum.memory, alloc(kMemory)));
}

void load_nodes(const Reader& r, const toml::table& root, Cache& cache) {
  r.each_table(root, "nodes", [&](const toml::table& t, size_t i) {
    std::string obj = label("nodes", i, peek(t, "name"));
    r.check_keys(t, {"name", "allocatable", "labels", "annotations", "numa", "topology_policy",
                     "taints", "unschedulable", "ready"},
                 obj);
    NodeSpec n;
    n.name = r.name(t, "name", obj);
    if (auto a = r.resource_list(t, "allocatable", obj)) {
      // Volcano keeps "pods" apart (NodeInfo.Allocatable.MaxTaskNum), not a resource.
      if (auto it = a->find(kPods); it != a->end()) {
        if (it->second > std::numeric_limits<int32_t>::max())
          r.fail(t.get("allocatable")->source(), obj, "allocatable.pods is out of range");
        n.max_pods = static_cast<int32_t>(it->second);
        a->erase(it);
      }
      n.allocatable = std::move(*a);
    }
    n.labels = r.string_map(t, "labels", obj);
    n.annotations = r.string_map(t, "annotations", obj);
    load_numa(r, t, obj, n);
    if (const toml::node* tn = t.get("taints")) {
      const toml::array* arr = tn->as_array();
      if (!arr)
        r.fail(tn->source(), obj, fmt::format("'taints' must be an array, got {}", type_name(*tn)));
      for (size_t j = 0; j < arr->size(); ++j) {
        const toml::node& el = *arr->get(j);
        std::string tobj = fmt::format("{} taints[{}]", obj, j);
        if (!el.is_table())
          r.fail(el.source(), tobj, fmt::format("must be a table, got {}", type_name(el)));
        const toml::table& tt = *el.as_table();
        r.check_keys(tt, {"key", "value", "effect"}, tobj);
        Taint taint;
        taint.key = r.opt_string(tt, "key", tobj).value_or("");
        if (taint.key.empty()) r.fail(tt.source(), tobj, "missing 'key'");
        taint.value = r.opt_string(tt, "value", tobj).value_or("");
        if (!tt.get("effect")) r.fail(tt.source(), tobj, "missing 'effect'");
        taint.effect = one_of<std::string>(r, tt, "effect", tobj, kTaintEffects, "");
        n.taints.push_back(std::move(taint));
      }
    }
    n.unschedulable = r.opt_bool(t, "unschedulable", obj).value_or(false);
    n.ready = r.opt_bool(t, "ready", obj).value_or(true);
    n.src = r.ref(t.source());
    if (cache.nodes().count(n.name))
      r.fail(t.source(), obj, fmt::format("duplicate node '{}'", n.name));
    cache.upsert_node(std::move(n));
  });
}

// A string list ("values" of a label requirement).
std::vector<std::string> string_list(const Reader& r, const toml::node& n, const std::string& what,
                                     const std::string& object) {
  const toml::array* arr = n.as_array();
  if (!arr) r.fail(n.source(), object, fmt::format("'{}' must be an array of strings", what));
  std::vector<std::string> out;
  for (size_t i = 0; i < arr->size(); ++i) {
    const toml::node& el = *arr->get(i);
    if (!el.is_string())
      r.fail(el.source(), object,
             fmt::format("{}[{}] must be a string, got {}", what, i, type_name(el)));
    out.push_back(el.as_string()->get());
  }
  return out;
}

// One member of a HyperNode, Volcano's MemberSpec written flat:
//   { type = "Node", exact_match = "n1" }            { type = "HyperNode", exact_match = "s0" }
//   { type = "Node", regex_match = "^n[0-3]$" }
//   { type = "Node", label_match = { match_labels = { rack = "r1" },
//       match_expressions = [{ key = "zone", operator = "In", values = ["a"] }] } }
// Exactly one selector, as Volcano's CRD validation demands; a HyperNode member takes
// exact_match only.
HyperNodeMember load_member(const Reader& r, const toml::table& t, const std::string& obj) {
  r.check_keys(t, {"type", "exact_match", "regex_match", "label_match"}, obj);
  HyperNodeMember m;
  m.src = r.ref(t.source());
  if (!t.get("type")) r.fail(t.source(), obj, "missing 'type' (\"Node\" or \"HyperNode\")");
  m.type = one_of<MemberType>(r, t, "type", obj,
                              {{"Node", MemberType::Node}, {"HyperNode", MemberType::HyperNode}},
                              MemberType::Node);
  int selectors = 0;
  if (auto e = r.opt_string(t, "exact_match", obj)) {
    if (e->empty()) r.fail(t.get("exact_match")->source(), obj, "'exact_match' must not be empty");
    m.exact = *e;
    ++selectors;
  }
  if (auto re = r.opt_string(t, "regex_match", obj)) {
    if (re->empty()) r.fail(t.get("regex_match")->source(), obj, "'regex_match' must not be empty");
    m.regex = *re;
    ++selectors;
  }
  if (const toml::table* lm = r.opt_table(t, "label_match", obj)) {
    const std::string lobj = obj + " label_match";
    r.check_keys(*lm, {"match_labels", "match_expressions"}, lobj);
    m.has_labels = true;
    m.match_labels = r.string_map(*lm, "match_labels", lobj);
    if (const toml::node* me = lm->get("match_expressions")) {
      const toml::array* arr = me->as_array();
      if (!arr)
        r.fail(me->source(), lobj, "'match_expressions' must be an array of tables");
      for (size_t k = 0; k < arr->size(); ++k) {
        const toml::node& el = *arr->get(k);
        std::string eobj = fmt::format("{} match_expressions[{}]", lobj, k);
        if (!el.is_table())
          r.fail(el.source(), eobj, fmt::format("must be a table, got {}", type_name(el)));
        const toml::table& et = *el.as_table();
        r.check_keys(et, {"key", "operator", "values"}, eobj);
        LabelRequirement req;
        req.key = r.opt_string(et, "key", eobj).value_or("");
        if (req.key.empty()) r.fail(et.source(), eobj, "missing 'key'");
        if (!et.get("operator")) r.fail(et.source(), eobj, "missing 'operator'");
        req.op = one_of<std::string>(r, et, "operator", eobj,
                                     {{"In", "In"},
                                      {"NotIn", "NotIn"},
                                      {"Exists", "Exists"},
                                      {"DoesNotExist", "DoesNotExist"}},
                                     "");
        if (const toml::node* v = et.get("values")) req.values = string_list(r, *v, "values", eobj);
        // metav1.LabelSelectorRequirement validation: In / NotIn need values, the others none.
        const bool set_op = req.op == "In" || req.op == "NotIn";
        if (set_op && req.values.empty())
          r.fail(et.source(), eobj, fmt::format("operator {} needs 'values'", req.op));
        if (!set_op && !req.values.empty())
          r.fail(et.get("values")->source(), eobj,
                 fmt::format("operator {} takes no 'values'", req.op));
        m.match_expressions.push_back(std::move(req));
      }
    }
    if (m.match_labels.empty() && m.match_expressions.empty())
      r.fail(lm->source(), lobj, "an empty label_match selects no node");
    ++selectors;
  }
  if (selectors != 1)
    r.fail(t.source(), obj,
           selectors == 0 ? "give one of exact_match, regex_match, label_match"
                          : "give only one of exact_match, regex_match, label_match");
  if (m.type == MemberType::HyperNode && m.exact.empty())
    r.fail(t.source(), obj, "a HyperNode member takes exact_match only (Volcano selects "
                            "HyperNodes by name)");
  return m;
}

// [[hypernodes]]: name, tier, members. Read after the nodes; members may name HyperNodes
// declared further down. Then the whole tree is checked (host/model/hypernode_tree.hpp):
// in a file every defect it finds is an error, pointing at the member (or the HyperNode).
void load_hypernodes(const Reader& r, const toml::table& root, Cache& cache) {
  std::map<std::string, std::string> labels;  // HyperNode name -> "hypernodes[i] (name)"
  r.each_table(root, "hypernodes", [&](const toml::table& t, size_t i) {
    std::string obj = label("hypernodes", i, peek(t, "name"));
    r.check_keys(t, {"name", "tier", "members"}, obj);
    HyperNodeSpec hn;
    hn.name = r.name(t, "name", obj);
    auto tier = r.opt_int(t, "tier", obj, 0, std::numeric_limits<int32_t>::max());
    if (!tier) r.fail(t.source(), obj, "missing 'tier'");
    hn.tier = static_cast<int32_t>(*tier);
    const toml::node* mn = t.get("members");
    if (!mn) r.fail(t.source(), obj, "missing 'members'");
    const toml::array* arr = mn->as_array();
    if (!arr)
      r.fail(mn->source(), obj,
             fmt::format("'members' must be an array of tables, got {}", type_name(*mn)));
    for (size_t j = 0; j < arr->size(); ++j) {
      const toml::node& el = *arr->get(j);
      std::string mobj = fmt::format("{} members[{}]", obj, j);
      if (!el.is_table())
        r.fail(el.source(), mobj, fmt::format("must be a table, got {}", type_name(el)));
      hn.members.push_back(load_member(r, *el.as_table(), mobj));
    }
    hn.src = r.ref(t.source());
    if (cache.hypernodes().count(hn.name))
      r.fail(t.source(), obj, fmt::format("duplicate HyperNode '{}'", hn.name));
    labels[hn.name] = obj;
    cache.upsert_hypernode(std::move(hn));
  });
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
  std::string obj = labels[p.hypernode];
  if (p.member >= 0) obj += fmt::format(" members[{}]", p.member);
  throw InputError(fmt::format("{}: {}: {}", at.str(), obj, p.message));
}

// Volcano always has a "default" queue; a scenario may use it without declaring it.
void ensure_default_queue(const Reader& r, Cache& cache) {
  if (cache.queues().count("default")) return;
  QueueSpec q;
  q.name = "default";
  q.src = SourceRef{r.file().string(), 0, 0};
  cache.upsert_queue(std::move(q));
}

void load_podgroups(const Reader& r, const toml::table& root, Cache& cache) {
  r.each_table(root, "podgroups", [&](const toml::table& t, size_t i) {
    std::string ns = peek(t, "namespace");
    std::string nm = peek(t, "name");
    std::string obj = label("podgroups", i, nm.empty() ? "" : (ns.empty() ? "default" : ns) + "/" + nm);
    r.check_keys(t, {"name", "namespace", "queue", "min_member", "min_task_member",
                     "min_resources", "phase", "priority_class", "created", "annotations",
                     "network_topology"},
                 obj);
    PodGroupSpec pg;
    pg.name = r.name(t, "name", obj);
    if (t.get("namespace")) pg.ns = r.name(t, "namespace", obj);
    if (auto q = r.opt_string(t, "queue", obj)) {
      r.check_name(*t.get("queue"), *q, "queue", obj);
      pg.queue = *q;
    }
    if (!cache.queues().count(pg.queue)) {
      if (pg.queue != "default")
        r.fail(t.get("queue")->source(), obj, fmt::format("queue '{}' not found", pg.queue));
      ensure_default_queue(r, cache);
    }
    pg.min_member = static_cast<int32_t>(
        r.opt_int(t, "min_member", obj, 0, std::numeric_limits<int32_t>::max()).value_or(1));
    if (const toml::table* m = r.opt_table(t, "min_task_member", obj)) {
      for (auto&& [k, v] : *m) {
        if (!v.is_integer() || v.as_integer()->get() < 0 ||
            v.as_integer()->get() > std::numeric_limits<int32_t>::max())
          r.fail(v.source(), obj,
                 fmt::format("min_task_member.\"{}\" must be a non-negative integer", k.str()));
        pg.min_task_member[std::string(k.str())] = static_cast<int32_t>(v.as_integer()->get());
      }
    }
    pg.min_resources = without_pods(r.resource_list(t, "min_resources", obj));
    pg.phase = one_of<JobPhase>(r, t, "phase", obj, kJobPhases, JobPhase::Pending);
    if (auto pc = r.opt_string(t, "priority_class", obj)) {
      if (!cache.priority_classes().count(*pc))
        r.fail(t.get("priority_class")->source(), obj,
               fmt::format("priority class '{}' not found", *pc));
      pg.priority_class = *pc;
    }
    pg.created = r.opt_number(t, "created", obj).value_or(0);
    pg.phase_since = pg.created;
    pg.annotations = r.string_map(t, "annotations", obj);
    if (const toml::table* nt = r.opt_table(t, "network_topology", obj)) {
      // Volcano's spec.networkTopology: mode (default hard) and highestTierAllowed. A hard
      // mode without a tier is a constraint Volcano silently drops (IsHardTopologyMode),
      // so a file must give one.
      const std::string nobj = obj + " network_topology";
      r.check_keys(*nt, {"mode", "highest_tier_allowed"}, nobj);
      NetworkTopology topo;
      topo.mode = one_of<TopologyMode>(r, *nt, "mode", nobj,
                                       {{"hard", TopologyMode::Hard}, {"soft", TopologyMode::Soft}},
                                       TopologyMode::Hard);
      auto tier = r.opt_int(*nt, "highest_tier_allowed", nobj, 0,
                            std::numeric_limits<int32_t>::max());
      if (topo.mode == TopologyMode::Hard && !tier)
        r.fail(nt->source(), nobj, "mode \"hard\" needs 'highest_tier_allowed'");
      topo.highest_tier_allowed = static_cast<int32_t>(tier.value_or(0));
      pg.network_topology = topo;
    }
    pg.src = r.ref(t.source());
    if (cache.podgroups().count(pg.key()))
      r.fail(t.source(), obj, fmt::format("duplicate podgroup '{}'", pg.key()));
    cache.upsert_podgroup(std::move(pg));
  });
}

void load_pods(const Reader& r, const toml::table& root, Cache& cache) {
  r.each_table(root, "pods", [&](const toml::table& t, size_t i) {
    std::string ns = peek(t, "namespace");
    std::string nm = peek(t, "name");
    std::string obj = label("pods", i, nm.empty() ? "" : (ns.empty() ? "default" : ns) + "/" + nm);
    r.check_keys(t, {"name", "namespace", "podgroup", "requests", "phase", "node", "priority",
                     "priority_class", "labels", "annotations", "node_selector", "tolerations",
                     "preemption_policy", "created", "releasing"},
                 obj);
    PodSpec p;
    p.name = r.name(t, "name", obj);
    if (t.get("namespace")) p.ns = r.name(t, "namespace", obj);
    if (auto pg = r.opt_string(t, "podgroup", obj)) {
      // An empty podgroup is allowed: the pod is a job of its own (the session builds it),
      // in the default queue, as Volcano's controller would put it.
      if (!pg->empty()) {
        r.check_name(*t.get("podgroup"), *pg, "podgroup", obj);
        if (!cache.podgroups().count(p.ns + "/" + *pg))
          r.fail(t.get("podgroup")->source(), obj,
                 fmt::format("podgroup '{}' not found in namespace {}", *pg, p.ns));
      }
      p.podgroup = *pg;
    }
    if (p.podgroup.empty()) ensure_default_queue(r, cache);
    if (auto req = r.resource_list(t, "requests", obj)) {
      // Kubernetes refuses "pods" in a container's requests (validateContainerResourceName).
      if (req->count(kPods))
        r.fail(t.get("requests")->source(), obj,
               "requests.pods: a pod cannot request pods (it is a node's pod count)");
      p.requests = std::move(*req);
    }
    p.phase = one_of<PodPhase>(r, t, "phase", obj,
                               {{"Pending", PodPhase::Pending},
                                {"Running", PodPhase::Running},
                                {"Succeeded", PodPhase::Succeeded},
                                {"Failed", PodPhase::Failed}},
                               PodPhase::Pending);
    if (auto node = r.opt_string(t, "node", obj)) {
      if (!node->empty() && !cache.nodes().count(*node))
        r.fail(t.get("node")->source(), obj, fmt::format("node '{}' not found", *node));
      p.node = *node;
    }
    if (p.phase == PodPhase::Running && p.node.empty())
      r.fail(t.get("phase") ? t.get("phase")->source() : t.source(), obj,
             "a Running pod needs 'node'");
    if (auto pr = r.opt_int(t, "priority", obj, std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max()))
      p.priority = static_cast<int32_t>(*pr);
    if (auto pc = r.opt_string(t, "priority_class", obj)) {
      if (!cache.priority_classes().count(*pc))
        r.fail(t.get("priority_class")->source(), obj,
               fmt::format("priority class '{}' not found", *pc));
      p.priority_class = *pc;
    }
    p.labels = r.string_map(t, "labels", obj);
    p.annotations = r.string_map(t, "annotations", obj);
    p.node_selector = r.string_map(t, "node_selector", obj);
    if (const toml::node* tn = t.get("tolerations")) {
      const toml::array* arr = tn->as_array();
      if (!arr)
        r.fail(tn->source(), obj,
               fmt::format("'tolerations' must be an array, got {}", type_name(*tn)));
      for (size_t j = 0; j < arr->size(); ++j) {
        const toml::node& el = *arr->get(j);
        std::string tobj = fmt::format("{} tolerations[{}]", obj, j);
        if (!el.is_table())
          r.fail(el.source(), tobj, fmt::format("must be a table, got {}", type_name(el)));
        const toml::table& tt = *el.as_table();
        r.check_keys(tt, {"key", "operator", "value", "effect"}, tobj);
        Toleration tol;
        tol.key = r.opt_string(tt, "key", tobj).value_or("");
        tol.op = one_of<std::string>(r, tt, "operator", tobj, {{"Equal", "Equal"}, {"Exists", "Exists"}},
                                     "Equal");
        tol.value = r.opt_string(tt, "value", tobj).value_or("");
        tol.effect = one_of<std::string>(r, tt, "effect", tobj, kTaintEffects, "");
        // Kubernetes validation (ValidateTolerations): an empty key needs Exists, and
        // Exists takes no value.
        if (tol.key.empty() && tol.op != "Exists")
          r.fail(tt.source(), tobj, "a toleration without 'key' needs operator = \"Exists\"");
        if (tol.op == "Exists" && !tol.value.empty())
          r.fail(tt.get("value")->source(), tobj, "operator Exists takes no 'value'");
        p.tolerations.push_back(std::move(tol));
      }
    }
    p.preempt_never = one_of<bool>(r, t, "preemption_policy", obj,
                                   {{"PreemptLowerPriority", false}, {"Never", true}}, false);
    p.created = r.opt_number(t, "created", obj).value_or(0);
    p.releasing = r.opt_bool(t, "releasing", obj).value_or(false);
    if (p.releasing && p.node.empty())
      r.fail(t.get("releasing")->source(), obj, "a releasing pod needs 'node'");
    p.src = r.ref(t.source());
    if (cache.pods().count(p.key()))
      r.fail(t.source(), obj, fmt::format("duplicate pod '{}'", p.key()));
    cache.upsert_pod(std::move(p));
  });
}

// "ns/name" keys of the expectations must name objects of the scenario: a typo in an
// expectation would otherwise pass or fail for the wrong reason.
void load_expect(const Reader& r, const toml::table& root, Scenario& sc) {
  const toml::table* e = r.opt_table(root, "expect", "");
  if (!e) return;
  const std::string obj = "expect";
  r.check_keys(*e, {"binds", "bind_count", "evictions", "evict_count", "pipelined",
                    "podgroup_phases"},
               obj);
  auto pod_key = [&](const toml::node& n, const std::string& key, const std::string& what) {
    if (!sc.cache.pods().count(key))
      r.fail(n.source(), obj, fmt::format("{}: pod '{}' not found (pods are named namespace/name)",
                                          what, key));
  };
  auto string_list = [&](const char* key) -> std::optional<std::vector<std::string>> {
    const toml::node* n = e->get(key);
    if (!n) return std::nullopt;
    const toml::array* arr = n->as_array();
    if (!arr) r.fail(n->source(), obj, fmt::format("'{}' must be an array of pod names", key));
    std::vector<std::string> out;
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::node& el = *arr->get(i);
      if (!el.is_string())
        r.fail(el.source(), obj, fmt::format("{}[{}] must be a string, got {}", key, i, type_name(el)));
      std::string k = el.as_string()->get();
      pod_key(el, k, fmt::format("{}[{}]", key, i));
      for (const auto& prev : out)
        if (prev == k) r.fail(el.source(), obj, fmt::format("{}: '{}' listed twice", key, k));
      out.push_back(k);
    }
    return out;
  };
  if (const toml::table* b = r.opt_table(*e, "binds", obj)) {
    std::map<std::string, std::string> binds;
    for (auto&& [k, v] : *b) {
      std::string key(k.str());
      pod_key(v, key, "binds");
      if (!v.is_string())
        r.fail(v.source(), obj, fmt::format("binds.\"{}\" must be a node name, got {}", key, type_name(v)));
      std::string node = v.as_string()->get();
      if (!sc.cache.nodes().count(node))
        r.fail(v.source(), obj, fmt::format("binds.\"{}\": node '{}' not found", key, node));
      binds[key] = node;
    }
    sc.expect.binds = std::move(binds);
  }
  if (auto n = r.opt_int(*e, "bind_count", obj, 0, std::numeric_limits<int32_t>::max()))
    sc.expect.bind_count = static_cast<size_t>(*n);
  sc.expect.evictions = string_list("evictions");
  if (auto n = r.opt_int(*e, "evict_count", obj, 0, std::numeric_limits<int32_t>::max()))
    sc.expect.evict_count = static_cast<size_t>(*n);
  sc.expect.pipelined = string_list("pipelined");
  if (const toml::table* ph = r.opt_table(*e, "podgroup_phases", obj)) {
    std::map<std::string, std::string> phases;
    for (auto&& [k, v] : *ph) {
      std::string key(k.str());
      if (!sc.cache.podgroups().count(key))
        r.fail(v.source(), obj,
               fmt::format("podgroup_phases: podgroup '{}' not found (podgroups are named "
                           "namespace/name)",
                           key));
      if (!v.is_string())
        r.fail(v.source(), obj, fmt::format("podgroup_phases.\"{}\" must be a string", key));
      std::string phase = v.as_string()->get();
      bool known = false;
      std::string list;
      for (const auto& [name, value] : kJobPhases) {
        (void)value;
        known = known || phase == name;
        list += (list.empty() ? "" : " | ") + std::string(name);
      }
      if (!known)
        r.fail(v.source(), obj,
               fmt::format("podgroup_phases.\"{}\": phase '{}' is not one of {}", key, phase, list));
      phases[key] = phase;
    }
    sc.expect.podgroup_phases = std::move(phases);
  }
}

}  // namespace

void load_cluster_objects(const toml::table& tbl, const fs::path& file, Cache& cache) {
  Reader r(file);
  // In dependency order: each list may name objects of the lists before it.
  load_priority_classes(r, tbl, cache);
  load_queues(r, tbl, cache);
  load_nodes(r, tbl, cache);
  load_hypernodes(r, tbl, cache);
  load_podgroups(r, tbl, cache);
  load_pods(r, tbl, cache);
}

Scenario load_scenario(const fs::path& file, const std::vector<fs::path>& default_plugin_dirs) {
  Reader r(file);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw InputError(fmt::format("{}: cannot read the scenario: {}", file.string(),
                                 fs::exists(file, ec) ? "not a regular file" : "no such file"));
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    r.fail(e.source(), "", fmt::format("TOML syntax error: {}", e.description()));
  }

  Scenario sc;
  sc.file = file;
  r.check_keys(root, {"name", "description", "sessions", "config", "config_file",
                      "priority_classes", "queues", "nodes", "hypernodes", "podgroups", "pods",
                      "expect"},
               "");
  sc.name = r.opt_string(root, "name", "").value_or(file.stem().string());
  (void)r.opt_string(root, "description", "");
  sc.sessions = static_cast<int>(r.opt_int(root, "sessions", "", 1, 100000).value_or(1));

  const toml::node* cfg = root.get("config");
  const toml::node* cfg_file = root.get("config_file");
  if (cfg && cfg_file)
    r.fail(cfg_file->source(), "", "give either [config] or config_file, not both");
  if (cfg) {
    if (!cfg->is_table())
      r.fail(cfg->source(), "", fmt::format("'config' must be a table, got {}", type_name(*cfg)));
    sc.config = parse_config(*cfg->as_table(), file, default_plugin_dirs);
  } else if (cfg_file) {
    auto rel = r.opt_string(root, "config_file", "");
    if (rel->empty()) r.fail(cfg_file->source(), "", "'config_file' must not be empty");
    fs::path p = fs::path(*rel).is_absolute() ? fs::path(*rel) : file.parent_path() / *rel;
    if (!fs::is_regular_file(p, ec))
      r.fail(cfg_file->source(), "", fmt::format("config_file '{}' not found", p.string()));
    sc.config = load_config(p, default_plugin_dirs);
  } else {
    r.fail(root.source(), "",
           "no scheduler config: add a [config] table or config_file = \"path.toml\"");
  }

  load_cluster_objects(root, file, sc.cache);
  load_expect(r, root, sc);
  return sc;
}

}  // namespace caldera
