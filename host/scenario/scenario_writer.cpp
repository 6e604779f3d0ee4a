#include "host/scenario/scenario_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <string_view>
#include <vector>

#include "host/model/policy_objects.hpp"
#include "host/toml/writer.hpp"
#include "host/util/input_error.hpp"

namespace caldera {

namespace fs = std::filesystem;
namespace w = toml_out;

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

std::string integral(double v) { return fmt::format("{}", static_cast<long long>(std::llround(v))); }

// An amount in Caldera units as a file writes it: cpu in cores or "Nm" (millicores),
// memory in bytes, pods as a count, other resources in units or "Nm" (milli-units).
std::string amount(const std::string& resource, double v) {
  if (resource == kPods) return integral(v);
  if (resource == kMemory) return w::string(integral(v));
  return w::string(std::fmod(v, 1000.0) == 0 ? integral(v / 1000) : integral(v) + "m");
}

std::string topology(const NetworkTopology& nt) {
  Entries e{{"mode", w::string(nt.mode == TopologyMode::Hard ? "hard" : "soft")}};
  if (nt.mode == TopologyMode::Hard)
    e.emplace_back("highest_tier_allowed", w::number(nt.highest_tier_allowed));
  return w::inline_table(e);
}

std::string resources(const ResourceList& rl) {
  Entries e;
  for (const auto& [name, v] : rl) e.emplace_back(name, amount(name, v));
  return w::inline_table(e);
}

std::string strings(const StringMap& m) {
  Entries e;
  for (const auto& [k, v] : m) e.emplace_back(k, w::string(v));
  return w::inline_table(e);
}

std::string string_list(const std::vector<std::string>& v) {
  std::vector<std::string> out;
  for (const std::string& x : v) out.push_back(w::string(x));
  return w::array(out);
}

// A label selector as the API writes it: every requirement as a matchExpression (matchLabels
// were read as In requirements; the two mean the same).
std::string selector(const api::Selector& s) {
  std::vector<std::string> exprs;
  for (const api::Requirement& r : s.requirements) {
    static constexpr const char* kOps[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
    Entries e{{"key", w::string(r.key)}, {"operator", w::string(kOps[r.op])}};
    if (!r.values.empty()) e.emplace_back("values", string_list(r.values));
    exprs.push_back(w::inline_table(e));
  }
  return w::inline_table({{"matchExpressions", w::array(exprs)}});
}

std::string int_or_percent(const IntOrPercent& v) {
  return v.percent ? w::string(fmt::format("{}%", v.value)) : w::number(v.value);
}

// A quota's amounts back in the quota's terms (quantities of its own units).
std::string quota_amounts(const std::vector<QuotaResource>& rs, bool used) {
  Entries e;
  for (const QuotaResource& r : rs) {
    const double v = (used ? r.used : r.hard) / quota_unit(r.name);
    e.emplace_back(r.name, w::string(std::fmod(v, 1.0) == 0 ? integral(v)
                                                           : integral(v * 1000) + "m"));
  }
  return w::inline_table(e);
}

// One [[name]] table: its "key = value" lines.
struct Block {
  std::string out;
  void add(std::string_view key, const std::string& value) {
    out += w::key(key) + " = " + value + "\n";
  }
};

}  // namespace

std::string scenario_text(const Cache& cache, const ScenarioDump& d) {
  std::string body;
  auto table = [&](const char* array, const Block& b) {
    body += fmt::format("\n[[{}]]\n{}", array, b.out);
  };
  std::vector<std::string> left_out;

  for (const auto& [_, pc] : cache.priority_classes()) {
    Block b;
    b.add("name", w::string(pc->name));
    b.add("value", w::number(pc->value));
    if (pc->global_default) b.add("global_default", "true");
    table("priority_classes", b);
  }
  for (const auto& [_, q] : cache.queues()) {
    Block b;
    b.add("name", w::string(q->name));
    b.add("weight", w::number(q->weight));
    if (q->capability) b.add("capability", resources(*q->capability));
    if (q->deserved) b.add("deserved", resources(*q->deserved));
    if (q->guarantee) b.add("guarantee", resources(*q->guarantee));
    b.add("reclaimable", w::boolean(q->reclaimable));
    b.add("priority", w::number(q->priority));
    b.add("state", w::string(to_string(q->state)));
    if (!q->parent.empty()) b.add("parent", w::string(q->parent));
    b.add("created", w::number(q->created));
    if (!q->annotations.empty()) b.add("annotations", strings(q->annotations));
    if (const auto& a = q->affinity) {
      auto groups = [](const std::vector<std::string>& req, const std::vector<std::string>& pref) {
        return w::inline_table({{"requiredDuringSchedulingIgnoredDuringExecution", string_list(req)},
                                {"preferredDuringSchedulingIgnoredDuringExecution", string_list(pref)}});
      };
      b.add("affinity", w::inline_table({{"nodeGroupAffinity", groups(a->required, a->preferred)},
                                         {"nodeGroupAntiAffinity",
                                          groups(a->anti_required, a->anti_preferred)}}));
    }
    table("queues", b);
  }
  bool numa = false, images = false;
  for (const auto& [_, n] : cache.nodes()) {
    Block b;
    b.add("name", w::string(n->name));
    ResourceList alloc = n->allocatable;
    alloc[kPods] = n->max_pods;
    b.add("allocatable", resources(alloc));
    if (!n->labels.empty()) b.add("labels", strings(n->labels));
    if (!n->annotations.empty()) b.add("annotations", strings(n->annotations));
    if (!n->taints.empty()) {
      std::vector<std::string> taints;
      for (const Taint& t : n->taints)
        taints.push_back(w::inline_table({{"key", w::string(t.key)},
                                          {"value", w::string(t.value)},
                                          {"effect", w::string(t.effect)}}));
      b.add("taints", w::array(taints));
    }
    if (n->unschedulable) b.add("unschedulable", "true");
    if (!n->ready) b.add("ready", "false");
    numa = numa || !n->numa.empty();
    images = images || n->images != nullptr;
    table("nodes", b);
  }
  if (numa) left_out.push_back("nodes' NUMA layout");
  if (images) left_out.push_back("nodes' images");
  for (const auto& [_, pg] : cache.podgroups()) {
    Block b;
    b.add("name", w::string(pg->name));
    b.add("namespace", w::string(pg->ns));
    b.add("queue", w::string(pg->queue));
    b.add("min_member", w::number(pg->min_member));
    if (!pg->min_task_member.empty()) {
      Entries e;
      for (const auto& [role, v] : pg->min_task_member) e.emplace_back(role, w::number(v));
      b.add("min_task_member", w::inline_table(e));
    }
    // As written (quota names too), else the resources (a record built in code).
    if (!pg->min_resources_written.empty()) {
      std::vector<QuotaResource> written;
      for (const auto& [name, v] : pg->min_resources_written) written.push_back({name, v, 0});
      b.add("min_resources", quota_amounts(written, false));
    } else if (pg->min_resources) {
      b.add("min_resources", resources(*pg->min_resources));
    }
    b.add("phase", w::string(to_string(pg->phase)));
    if (!pg->priority_class.empty()) b.add("priority_class", w::string(pg->priority_class));
    b.add("created", w::number(pg->created));
    if (!pg->annotations.empty()) b.add("annotations", strings(pg->annotations));
    if (const auto& nt = pg->network_topology) b.add("network_topology", topology(*nt));
    if (!pg->sub_group_policy.empty()) {
      // An inline array of inline tables: the same as [[podgroups.sub_group_policy]].
      std::vector<std::string> policies;
      for (const SubGroupPolicy& sp : pg->sub_group_policy) {
        Entries e{{"name", w::string(sp.name)}};
        if (sp.sub_group_size) e.emplace_back("sub_group_size", w::number(*sp.sub_group_size));
        if (sp.min_sub_groups) e.emplace_back("min_sub_groups", w::number(*sp.min_sub_groups));
        if (!sp.match_label_keys.empty()) {
          std::vector<std::string> keys;
          for (const std::string& k : sp.match_label_keys) keys.push_back(w::string(k));
          e.emplace_back("match_label_keys", w::array(keys));
        }
        if (sp.has_label_selector) {
          std::vector<std::string> exprs;
          for (const LabelRequirement& r : sp.label_selector) {
            std::vector<std::string> values;
            for (const std::string& v : r.values) values.push_back(w::string(v));
            Entries re{{"key", w::string(r.key)}, {"operator", w::string(r.op)}};
            if (!values.empty()) re.emplace_back("values", w::array(values));
            exprs.push_back(w::inline_table(re));
          }
          e.emplace_back("label_selector",
                         w::inline_table({{"matchExpressions", w::array(exprs)}}));
        }
        if (sp.network_topology) e.emplace_back("network_topology", topology(*sp.network_topology));
        policies.push_back(w::inline_table(e));
      }
      b.add("sub_group_policy", w::array(policies));
    }
    table("podgroups", b);
  }
  bool constraints = false, init = false;
  for (const auto& [_, p] : cache.pods()) {
    Block b;
    b.add("name", w::string(p->name));
    b.add("namespace", w::string(p->ns));
    if (!p->podgroup.empty()) b.add("podgroup", w::string(p->podgroup));
    b.add("requests", resources(p->requests));
    b.add("phase", w::string(to_string(p->phase)));
    if (!p->node.empty()) b.add("node", w::string(p->node));
    if (p->priority) b.add("priority", w::number(*p->priority));
    if (!p->priority_class.empty()) b.add("priority_class", w::string(p->priority_class));
    if (!p->labels.empty()) b.add("labels", strings(p->labels));
    if (!p->annotations.empty()) b.add("annotations", strings(p->annotations));
    if (!p->node_selector.empty()) b.add("node_selector", strings(p->node_selector));
    if (!p->tolerations.empty()) {
      std::vector<std::string> tols;
      for (const Toleration& t : p->tolerations) {
        Entries e{{"key", w::string(t.key)}, {"operator", w::string(t.op)}};
        if (!t.value.empty()) e.emplace_back("value", w::string(t.value));
        if (!t.effect.empty()) e.emplace_back("effect", w::string(t.effect));
        tols.push_back(w::inline_table(e));
      }
      b.add("tolerations", w::array(tols));
    }
    if (p->preempt_never) b.add("preemption_policy", w::string("Never"));
    b.add("created", w::number(p->created));
    if (p->releasing) b.add("releasing", "true");
    if (p->scheduled_at && !p->node.empty()) b.add("scheduled", w::number(*p->scheduled_at));
    constraints = constraints || p->constraints != nullptr;
    init = init || (!p->init_requests.empty() && p->init_requests != p->requests);
    table("pods", b);
  }
  for (const auto& [_, rec] : cache.disruption_budgets()) {
    const DisruptionBudgetSpec& pdb = rec->spec();
    Block b;
    b.add("name", w::string(pdb.meta.name));
    b.add("namespace", w::string(pdb.meta.ns));
    Entries spec;
    if (!pdb.selector.absent) spec.emplace_back("selector", selector(pdb.selector));
    if (pdb.min_available) spec.emplace_back("minAvailable", int_or_percent(*pdb.min_available));
    if (pdb.max_unavailable)
      spec.emplace_back("maxUnavailable", int_or_percent(*pdb.max_unavailable));
    b.add("spec", w::inline_table(spec));
    if (pdb.has_status) {
      Entries disrupted;
      for (const std::string& pod : pdb.disrupted_pods)
        disrupted.emplace_back(pod, w::string("1970-01-01T00:00:00Z"));
      b.add("status", w::inline_table({{"disruptionsAllowed", w::number(pdb.disruptions_allowed)},
                                       {"disruptedPods", w::inline_table(disrupted)}}));
    }
    table("pod_disruption_budgets", b);
  }
  for (const auto& [_, rec] : cache.resource_quotas()) {
    const ResourceQuotaSpec& q = rec->spec();
    Block b;
    b.add("name", w::string(q.meta.name));
    b.add("namespace", w::string(q.meta.ns));
    b.add("spec", w::inline_table({{"hard", quota_amounts(q.resources, false)}}));
    if (q.has_used) b.add("status", w::inline_table({{"used", quota_amounts(q.resources, true)}}));
    table("resource_quotas", b);
  }
  if (constraints) left_out.push_back("pods' affinity, topology spread, ports, images and volumes");
  if (init) left_out.push_back("init-container requests");
  if (!cache.hypernodes().empty()) left_out.push_back("HyperNodes");
  if (!cache.storage_classes().empty() || !cache.persistent_volumes().empty() ||
      !cache.claims().empty())
    left_out.push_back("StorageClasses, PersistentVolumes and claims");

  std::string out;
  for (std::string_view rest = d.header; !rest.empty();) {
    const size_t nl = rest.find('\n');
    out += "# " + std::string(rest.substr(0, nl)) + "\n";
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  if (!left_out.empty()) {
    out += "# Not written (the cache holds some):";
    for (const std::string& s : left_out) out += " " + s + ";";
    out += " decisions that depend on them may differ.\n";
  }
  out += "name = " + w::string(d.name) + "\n";
  out += "config_file = " + w::string(d.config_file.string()) + "\n";
  return out + body;
}

fs::path write_cache_dump(const Cache& cache, const fs::path& dir, const fs::path& config_file,
                          double now) {
  const auto secs = static_cast<long long>(now);
  const fs::path file = dir / fmt::format("snapshot-{}.toml", secs);
  ScenarioDump d;
  d.name = fmt::format("cache dump at {} (unix seconds)", secs);
  d.config_file = fs::absolute(config_file);
  d.header = fmt::format(
      "The scheduler's cache at {} (unix seconds), as a scenario file (SCENARIOS.md):\n"
      "  caldera scenario run --explain {}",
      secs, file.filename().string());
  const std::string text = scenario_text(cache, d);
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw InputError(fmt::format("cache dump {}: cannot write it (is {} writable?)",
                                   file.string(), dir.string()));
    }
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) throw InputError(fmt::format("cache dump {}: {}", file.string(), ec.message()));
  return file;
}

}  // namespace caldera
