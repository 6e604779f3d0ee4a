// JSON objects of the API server into cache records. Follows Volcano's
// pkg/scheduler/api/{node_info.go,pod_info.go,job_info.go,queue_info.go,resource_info.go}
// (which fields the scheduler reads, how resources are counted) and Kubernetes'
// component-helpers/resource/helpers.go PodRequests (how a pod's requests add up).
#include "host/backend/kubernetes/api_objects.hpp"

#include "host/model/policy_objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>

#include "host/model/pod_constraints.hpp"
#include "host/model/policy_objects.hpp"
#include "host/model/quantity.hpp"

namespace caldera::k8s {

namespace {

// Amounts beyond this are treated as a typo or an attack, not a size: 1e18 millicores or
// bytes (an exabyte) is far past any real node, and keeps sums exact enough in a double.
constexpr double kMaxAmount = 1e18;

const json* field(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string str_field(const json& o, const char* key, const std::string& where, Warnings& w) {
  const json* v = field(o, key);
  if (!v) return "";
  if (!v->is_string()) {
    w.push_back(fmt::format("{}: '{}' is not a string; ignored", where, key));
    return "";
  }
  return v->get<std::string>();
}

std::optional<int64_t> int_field(const json& o, const char* key, const std::string& where,
                                 Warnings& w) {
  const json* v = field(o, key);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      w.push_back(fmt::format("{}: '{}' is out of range; ignored", where, key));
      return std::nullopt;
    }
    return static_cast<int64_t>(u);
  }
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<int64_t>(d);
  }
  w.push_back(fmt::format("{}: '{}' is not an integer; ignored", where, key));
  return std::nullopt;
}

std::optional<int32_t> int32_field(const json& o, const char* key, const std::string& where,
                                   Warnings& w) {
  auto v = int_field(o, key, where, w);
  if (!v) return std::nullopt;
  if (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    w.push_back(fmt::format("{}: '{}' = {} does not fit in 32 bits; ignored", where, key, *v));
    return std::nullopt;
  }
  return static_cast<int32_t>(*v);
}

std::optional<bool> bool_field(const json& o, const char* key, const std::string& where,
                               Warnings& w) {
  const json* v = field(o, key);
  if (!v) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  w.push_back(fmt::format("{}: '{}' is not true or false; ignored", where, key));
  return std::nullopt;
}

StringMap string_map(const json& o, const char* key, const std::string& where, Warnings& w) {
  StringMap out;
  const json* v = field(o, key);
  if (!v) return out;
  if (!v->is_object()) {
    w.push_back(fmt::format("{}: '{}' is not a map; ignored", where, key));
    return out;
  }
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (it.value().is_string())
      out[it.key()] = it.value().get<std::string>();
    else
      w.push_back(fmt::format("{}: {}['{}'] is not a string; ignored", where, key, it.key()));
  }
  return out;
}

// Resource names the scheduler counts: cpu, memory, pods and the scalar resources
// (extended "domain/name" resources, hugepages-*, attachable-volumes-*), as Volcano's
// NewResource (v1helper.IsScalarResourceName). Others -- ephemeral-storage, storage --
// are not scheduled on.
enum class NameKind { Counted, Ignored, Invalid };
NameKind classify(const std::string& name) {
  if (name == kCpu || name == kMemory || name == kPods) return NameKind::Counted;
  if (name.empty() || name.size() > 253) return NameKind::Invalid;
  if (name.rfind("hugepages-", 0) == 0 || name.rfind("attachable-volumes-", 0) == 0)
    return NameKind::Counted;
  if (name == "ephemeral-storage" || name == "storage") return NameKind::Ignored;
  // Quota names, which Volcano's job and PodGroup controllers write into a PodGroup's
  // minResources beside the resources ({cpu, memory, pods, count/pods, requests.cpu,
  // requests.memory}): NewResource skips count/* (IsCountQuota) and does not count
  // requests.* and limits.* (no scalar resource name). Counted, count/pods would be a
  // resource no node has, and enqueue would admit no job Volcano's controllers made.
  if (is_quota_name(name)) return NameKind::Ignored;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '.' || c == '_' || c == '/';
    if (!ok) return NameKind::Invalid;
  }
  auto slash = name.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == name.size() ||
      name.find('/', slash + 1) != std::string::npos)
    return NameKind::Invalid;  // an unprefixed name that Kubernetes does not define
  return NameKind::Counted;
}

std::string quantity_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  return "";
}

void add_into(ResourceList& into, const ResourceList& r) {
  for (const auto& [k, v] : r) into[k] += v;
}
void max_into(ResourceList& into, const ResourceList& r) {
  for (const auto& [k, v] : r) {
    auto it = into.find(k);
    if (it == into.end() || it->second < v) into[k] = v;
  }
}

ResourceList container_requests(const json& c, const std::string& where, Warnings& w) {
  const json* res = field(c, "resources");
  if (!res) return {};
  const json* req = field(*res, "requests");
  if (!req) return {};
  return read_resource_list(*req, where + ": requests", w);
}

std::vector<Toleration> read_tolerations(const json& spec, const std::string& where, Warnings& w) {
  std::vector<Toleration> out;
  const json* list = field(spec, "tolerations");
  if (!list) return out;
  if (!list->is_array()) {
    w.push_back(fmt::format("{}: 'tolerations' is not a list; ignored", where));
    return out;
  }
  for (const json& t : *list) {
    Toleration tol;
    tol.key = str_field(t, "key", where + ": toleration", w);
    tol.op = str_field(t, "operator", where + ": toleration", w);
    if (tol.op.empty()) tol.op = "Equal";
    tol.value = str_field(t, "value", where + ": toleration", w);
    tol.effect = str_field(t, "effect", where + ": toleration", w);
    if (tol.op != "Equal" && tol.op != "Exists") {
      w.push_back(fmt::format("{}: toleration operator '{}' is neither Equal nor Exists; the "
                              "toleration is ignored",
                              where, tol.op));
      continue;
    }
    out.push_back(std::move(tol));
  }
  return out;
}

}  // namespace

size_t json_depth(std::string_view text, size_t limit) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

json parse_server_json(std::string_view text) {
  if (json_depth(text, kMaxJsonDepth) > kMaxJsonDepth) return json(json::value_t::discarded);
  return json::parse(text, nullptr, false);
}

std::string json_string(const json& o, const char* key, const std::string& fallback) {
  const json* v = field(o, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}

int64_t json_int(const json& o, const char* key, int64_t fallback) {
  const json* v = field(o, key);
  if (v && v->is_number_integer()) return v->get<int64_t>();
  if (v && v->is_number_unsigned() && v->get<uint64_t>() <= uint64_t{1} << 62)
    return static_cast<int64_t>(v->get<uint64_t>());
  return fallback;
}

ObjectMeta read_meta(const json& obj) {
  ObjectMeta m;
  Warnings ignored;
  const json* md = field(obj, "metadata");
  if (!md) return m;
  m.ns = str_field(*md, "namespace", "", ignored);
  m.name = str_field(*md, "name", "", ignored);
  m.uid = str_field(*md, "uid", "", ignored);
  m.resource_version = str_field(*md, "resourceVersion", "", ignored);
  if (auto t = parse_time(str_field(*md, "creationTimestamp", "", ignored))) m.created = *t;
  m.deleting = field(*md, "deletionTimestamp") != nullptr;
  return m;
}

std::optional<double> parse_time(const std::string& s) {
  int Y, M, D, h, mi, sec, used = 0;
  if (s.size() < 20 ||
      std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &Y, &M, &D, &h, &mi, &sec, &used) != 6)
    return std::nullopt;
  if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  double frac = 0;
  size_t i = static_cast<size_t>(used);
  if (i < s.size() && s[i] == '.') {
    double scale = 0.1;
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      frac += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
  }
  int offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh = 0, om = 0;
    if (std::sscanf(s.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2) return std::nullopt;
    offset = (oh * 3600 + om * 60) * (s[i] == '+' ? 1 : -1);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = Y - 1900;
  tm.tm_mon = M - 1;
  tm.tm_mday = D;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  return static_cast<double>(timegm(&tm)) - offset + frac;
}

std::string format_time(double unix_seconds, bool with_micros) {
  auto whole = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm tm{};
  gmtime_r(&whole, &tm);
  if (!with_micros)
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                       tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  auto micros = static_cast<int>((unix_seconds - static_cast<double>(whole)) * 1e6);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
}

ResourceList read_resource_list(const json& list, const std::string& where, Warnings& w) {
  ResourceList out;
  if (list.is_null()) return out;
  if (!list.is_object()) {
    w.push_back(fmt::format("{}: not a resource map; ignored", where));
    return out;
  }
  for (auto it = list.begin(); it != list.end(); ++it) {
    const std::string& name = it.key();
    NameKind kind = classify(name);
    if (kind == NameKind::Ignored) continue;
    if (kind == NameKind::Invalid) {
      w.push_back(fmt::format("{}: '{}' is not a resource name the scheduler can count; ignored",
                              where, name));
      continue;
    }
    std::string text = quantity_text(it.value());
    std::optional<double> amount = text.empty() ? std::nullopt : resource_amount(name, text);
    // An exponent past what a double holds ("1e400") is still a quantity to Kubernetes: it
    // is capped below like any other enormous amount (or refused as negative).
    if (!amount || std::isnan(*amount)) {
      w.push_back(fmt::format("{}: {}: '{}' is not a quantity; ignored", where, name,
                              text.empty() ? it.value().dump() : text));
      continue;
    }
    if (*amount < 0) {
      w.push_back(fmt::format("{}: {}: '{}' is negative; ignored", where, name, text));
      continue;
    }
    if (*amount > kMaxAmount) {
      w.push_back(fmt::format("{}: {}: '{}' is beyond any real amount; capped at {}", where,
                              name, text, format_amount(name, kMaxAmount)));
      *amount = kMaxAmount;
    }
    out[name] = *amount;
  }
  return out;
}

json resource_list_to_json(const ResourceList& r) {
  json out = json::object();
  for (const auto& [name, v] : r) {
    if (name == kCpu) {
      out[name] = fmt::format("{}m", static_cast<int64_t>(std::llround(v)));
    } else if (name == kMemory || name == kPods) {
      out[name] = fmt::format("{}", static_cast<int64_t>(std::llround(v)));
    } else {
      // Scalars are kept in milli-units.
      auto milli = static_cast<int64_t>(std::llround(v));
      out[name] = milli % 1000 == 0 ? fmt::format("{}", milli / 1000) : fmt::format("{}m", milli);
    }
  }
  return out;
}

PodRequests pod_requests(const json& spec, const std::string& where, Warnings& w) {
  PodRequests out;
  ResourceList reqs;
  if (const json* cs = field(spec, "containers"); cs && cs->is_array()) {
    for (const json& c : *cs)
      add_into(reqs, container_requests(c, where + ": container " + str_field(c, "name", where, w), w));
  } else if (cs) {
    w.push_back(fmt::format("{}: 'containers' is not a list; ignored", where));
  }
  ResourceList sidecars;    // restartable init containers seen so far
  ResourceList init_peak;   // the largest need while init containers run
  if (const json* ics = field(spec, "initContainers"); ics && ics->is_array()) {
    for (const json& c : *ics) {
      std::string cw = where + ": init container " + str_field(c, "name", where, w);
      ResourceList r = container_requests(c, cw, w);
      if (str_field(c, "restartPolicy", cw, w) == "Always") {
        // A sidecar runs beside the containers for the pod's whole life.
        add_into(reqs, r);
        add_into(sidecars, r);
        max_into(init_peak, sidecars);
      } else {
        ResourceList during = r;
        add_into(during, sidecars);
        max_into(init_peak, during);
      }
    }
  } else if (ics) {
    w.push_back(fmt::format("{}: 'initContainers' is not a list; ignored", where));
  }
  ResourceList init = reqs;
  max_into(init, init_peak);
  // Pod-level requests (PodLevelResources) replace the containers' figures for cpu and
  // memory, after the init containers are taken into account.
  if (const json* res = field(spec, "resources")) {
    if (const json* req = field(*res, "requests")) {
      ResourceList pod_level = read_resource_list(*req, where + ": pod resources.requests", w);
      for (const char* name : {kCpu, kMemory}) {
        auto it = pod_level.find(name);
        if (it == pod_level.end()) continue;
        reqs[name] = it->second;
        init[name] = it->second;
      }
    }
  }
  ResourceList overhead;
  if (const json* oh = field(spec, "overhead")) overhead = read_resource_list(*oh, where + ": overhead", w);

  out.running = std::move(reqs);
  add_into(out.running, overhead);
  out.init = std::move(init);
  add_into(out.init, overhead);
  return out;
}

std::optional<NodeSpec> node_from_json(const json& obj, Warnings& w) {
  ObjectMeta m = read_meta(obj);
  if (m.name.empty()) {
    w.push_back("node without a name; skipped");
    return std::nullopt;
  }
  std::string where = "node " + m.name;
  NodeSpec n;
  n.name = m.name;
  n.src.file = "nodes/" + m.name;
  const json* md = field(obj, "metadata");
  if (md) n.labels = string_map(*md, "labels", where, w);
  const json* spec = field(obj, "spec");
  if (spec) {
    n.unschedulable = bool_field(*spec, "unschedulable", where, w).value_or(false);
    if (const json* taints = field(*spec, "taints")) {
      if (taints->is_array()) {
        for (const json& t : *taints) {
          Taint taint;
          taint.key = str_field(t, "key", where + ": taint", w);
          taint.value = str_field(t, "value", where + ": taint", w);
          taint.effect = str_field(t, "effect", where + ": taint", w);
          if (taint.key.empty()) {
            w.push_back(fmt::format("{}: a taint has no key; ignored", where));
            continue;
          }
          n.taints.push_back(std::move(taint));
        }
      } else {
        w.push_back(fmt::format("{}: 'taints' is not a list; ignored", where));
      }
    }
  }
  const json* status = field(obj, "status");
  ResourceList alloc;
  if (status) {
    if (const json* a = field(*status, "allocatable"))
      alloc = read_resource_list(*a, where + ": allocatable", w);
    else if (const json* c = field(*status, "capacity"))
      alloc = read_resource_list(*c, where + ": capacity", w);
  }
  if (auto it = alloc.find(kPods); it != alloc.end()) {
    constexpr double kMaxPods = 1e6;  // far past any kubelet's --max-pods
    if (it->second > kMaxPods)
      w.push_back(fmt::format("{}: allocatable: pods: {} is beyond any real node; {} used", where,
                              format_amount(kPods, it->second), static_cast<int64_t>(kMaxPods)));
    n.max_pods = static_cast<int32_t>(std::min(it->second, kMaxPods));
    alloc.erase(it);
  }
  n.allocatable = std::move(alloc);
  // Ready: the Ready condition is True (Volcano leaves other nodes out of the session).
  n.ready = false;
  if (status) {
    if (const json* conds = field(*status, "conditions"); conds && conds->is_array()) {
      for (const json& c : *conds)
        if (str_field(c, "type", where, w) == "Ready") n.ready = str_field(c, "status", where, w) == "True";
    }
    // The images the node holds (image locality): a bad list is reported and left out.
    if (const json* images = field(*status, "images")) {
      try {
        n.images = read_node_images(*images, "status.images");
      } catch (const ApiFieldError& e) {
        w.push_back(fmt::format("{}: {}; the node's images are not used", where, e.what()));
      }
    }
  }
  return n;
}

namespace {

// The pod's scheduling constraints: spec.affinity, spec.topologySpreadConstraints, every
// container's host ports and image (init containers' images last), the claims of
// spec.volumes. Throws ApiFieldError.
std::shared_ptr<const PodConstraints> read_pod_constraints(const json& spec) {
  PodConstraintsReader r;
  if (const json* a = field(spec, "affinity")) r.affinity(*a, "spec.affinity");
  if (const json* v = field(spec, "volumes")) r.volumes(*v, "spec.volumes");
  if (const json* t = field(spec, "topologySpreadConstraints"))
    r.topology_spread(*t, "spec.topologySpreadConstraints");
  for (const char* list : {"containers", "initContainers"}) {
    const json* cs = field(spec, list);
    if (cs == nullptr || !cs->is_array()) continue;
    for (size_t i = 0; i < cs->size(); ++i) {
      const json& c = (*cs)[i];
      if (!c.is_object()) continue;
      if (const json* ports = field(c, "ports"); ports && std::string_view(list) == "containers")
        r.container_ports(*ports, fmt::format("spec.{}[{}].ports", list, i));
      if (const json* image = field(c, "image"); image && image->is_string())
        r.image(image->get<std::string>());
    }
  }
  return r.finish();
}

}  // namespace

std::optional<PodSpec> pod_from_json(const json& obj, const std::vector<std::string>& scheduler_names,
                                     Warnings& w) {
  ObjectMeta m = read_meta(obj);
  if (m.name.empty() || m.ns.empty()) {
    w.push_back("pod without a name or namespace; skipped");
    return std::nullopt;
  }
  std::string where = "pod " + m.key();
  const json* spec = field(obj, "spec");
  const json* status = field(obj, "status");
  static const json empty = json::object();
  if (!spec) spec = &empty;
  if (!status) status = &empty;

  PodSpec p;
  p.ns = m.ns;
  p.name = m.name;
  p.src.file = "pods/" + m.key();
  p.node = str_field(*spec, "nodeName", where, w);
  std::string scheduler = str_field(*spec, "schedulerName", where, w);
  if (scheduler.empty()) scheduler = "default-scheduler";
  bool ours = false;
  for (const auto& s : scheduler_names) ours = ours || s == scheduler;

  p.nominated_node = str_field(*status, "nominatedNodeName", where, w);
  std::string phase = str_field(*status, "phase", where, w);
  if (phase == "Running" || phase == "Unknown")
    p.phase = PodPhase::Running;  // Unknown: the kubelet lost contact; it still holds the node
  else if (phase == "Succeeded")
    p.phase = PodPhase::Succeeded;
  else if (phase == "Failed")
    p.phase = PodPhase::Failed;
  else
    p.phase = PodPhase::Pending;
  bool finished = p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed;

  if (!ours) {
    // Another scheduler's pod matters only while it holds a node.
    if (p.node.empty() || finished) return std::nullopt;
    p.schedulable = false;
  }

  p.releasing = m.deleting;
  p.created = m.created;
  // The PodScheduled condition's time: when the pod was bound (cooldown protection, cdp).
  if (const json* conds = field(*status, "conditions"); conds && conds->is_array())
    for (const json& c : *conds)
      if (c.is_object() && json_string(c, "type") == "PodScheduled" &&
          json_string(c, "status") == "True") {
        p.scheduled_at = parse_time(json_string(c, "lastTransitionTime"));
        break;
      }
  const json* md = field(obj, "metadata");
  if (md) {
    p.labels = string_map(*md, "labels", where, w);
    p.annotations = string_map(*md, "annotations", where, w);
  }
  if (ours) {
    if (auto it = p.annotations.find(kGroupNameAnnotation); it != p.annotations.end())
      p.podgroup = it->second;
  }
  p.priority = int32_field(*spec, "priority", where, w);
  p.priority_class = str_field(*spec, "priorityClassName", where, w);
  p.node_selector = string_map(*spec, "nodeSelector", where, w);
  p.tolerations = read_tolerations(*spec, where, w);
  try {
    p.constraints = read_pod_constraints(*spec);
  } catch (const ApiFieldError& e) {
    // The API server validates these fields, so this is a pod Caldera cannot read right:
    // one of ours waits rather than be placed against its constraints.
    w.push_back(fmt::format("{}: {}{}", where, e.what(),
                            ours && p.node.empty() ? "; the pod is not scheduled" : ""));
    if (ours && p.node.empty()) return std::nullopt;
  }
  // Dynamic resource allocation: Caldera does not model resource claims, so one of our
  // pods that has any waits rather than be placed without its devices.
  if (const json* rc = field(*spec, "resourceClaims");
      rc != nullptr && rc->is_array() && !rc->empty() && ours && p.node.empty()) {
    w.push_back(where + ": spec.resourceClaims: resource claims (DRA) are not supported; the "
                        "pod is not scheduled");
    return std::nullopt;
  }
  p.preempt_never = str_field(*spec, "preemptionPolicy", where, w) == "Never";
  PodRequests r = pod_requests(*spec, where, w);
  p.requests = std::move(r.running);
  p.init_requests = std::move(r.init);
  return p;
}

// Volcano's NetworkTopologySpec: mode (default hard), highestTierAllowed. A hard mode
// without a tier is no constraint to Volcano (JobInfo.IsHardTopologyMode): dropped.
std::optional<NetworkTopology> network_topology_from_json(const json& nt, const std::string& nwhere,
                                                          Warnings& w) {
  if (!nt.is_object()) {
    w.push_back(fmt::format("{} is not an object; ignored", nwhere));
    return std::nullopt;
  }
  std::string mode = str_field(nt, "mode", nwhere, w);
  auto tier = int32_field(nt, "highestTierAllowed", nwhere, w);
  NetworkTopology topo;
  if (mode == "soft") {
    topo.mode = TopologyMode::Soft;
    return topo;
  }
  if (!mode.empty() && mode != "hard") {
    w.push_back(fmt::format("{}: mode '{}' is not hard or soft; no constraint", nwhere, mode));
    return std::nullopt;
  }
  if (!tier) {
    if (!str_field(nt, "highestTierName", nwhere, w).empty())
      w.push_back(fmt::format("{}: highestTierName is not supported (give highestTierAllowed); "
                              "no constraint",
                              nwhere));
    return std::nullopt;
  }
  if (*tier < 0) {
    w.push_back(fmt::format("{}: highestTierAllowed {} is negative; no constraint", nwhere, *tier));
    return std::nullopt;
  }
  topo.highest_tier_allowed = *tier;
  return topo;
}

// One entry of spec.subGroupPolicy (Volcano's SubGroupPolicySpec). An entry without a name
// or with a label selector that does not parse is left out with a warning (the API server's
// validation would have refused it).
std::optional<SubGroupPolicy> sub_group_policy_from_json(const json& o, const std::string& where,
                                                         Warnings& w) {
  if (!o.is_object()) {
    w.push_back(fmt::format("{} is not an object; ignored", where));
    return std::nullopt;
  }
  SubGroupPolicy p;
  p.name = str_field(o, "name", where, w);
  if (p.name.empty()) {
    w.push_back(fmt::format("{} has no name; ignored", where));
    return std::nullopt;
  }
  p.sub_group_size = int32_field(o, "subGroupSize", where, w);
  p.min_sub_groups = int32_field(o, "minSubGroups", where, w);
  if (const json* keys = field(o, "matchLabelKeys"); keys && keys->is_array()) {
    for (const json& k : *keys)
      if (k.is_string()) p.match_label_keys.push_back(k.get<std::string>());
  }
  if (const json* sel = field(o, "labelSelector")) {
    try {
      p.has_label_selector = true;
      p.label_selector = label_requirements(api::label_selector(sel, "labelSelector"));
    } catch (const ApiFieldError& e) {
      w.push_back(fmt::format("{}: {}: {}; ignored", where, e.path, e.problem));
      return std::nullopt;
    }
  }
  if (const json* nt = field(o, "networkTopology"))
    p.network_topology = network_topology_from_json(*nt, where + ": networkTopology", w);
  return p;
}

std::optional<PodGroupSpec> podgroup_from_json(const json& obj, Warnings& w) {
  ObjectMeta m = read_meta(obj);
  if (m.name.empty() || m.ns.empty()) {
    w.push_back("PodGroup without a name or namespace; skipped");
    return std::nullopt;
  }
  std::string where = "PodGroup " + m.key();
  static const json empty = json::object();
  const json* spec = field(obj, "spec");
  const json* status = field(obj, "status");
  if (!spec) spec = &empty;
  if (!status) status = &empty;

  PodGroupSpec pg;
  pg.ns = m.ns;
  pg.name = m.name;
  pg.src.file = "podgroups/" + m.key();
  pg.created = m.created;
  pg.phase_since = m.created;
  std::string queue = str_field(*spec, "queue", where, w);
  pg.queue = queue.empty() ? "default" : queue;
  if (auto mm = int32_field(*spec, "minMember", where, w)) {
    if (*mm < 0) {
      w.push_back(fmt::format("{}: minMember {} is negative; the PodGroup is skipped", where, *mm));
      return std::nullopt;
    }
    pg.min_member = *mm;
  } else {
    pg.min_member = 0;  // the Go zero value Volcano sees when the field is absent
  }
  if (const json* mtm = field(*spec, "minTaskMember")) {
    if (mtm->is_object()) {
      for (auto it = mtm->begin(); it != mtm->end(); ++it) {
        auto v = int32_field(*mtm, it.key().c_str(), where + ": minTaskMember", w);
        if (v && *v >= 0)
          pg.min_task_member[it.key()] = *v;
        else if (v)
          w.push_back(fmt::format("{}: minTaskMember['{}'] is negative; ignored", where, it.key()));
      }
    } else {
      w.push_back(fmt::format("{}: 'minTaskMember' is not a map; ignored", where));
    }
  }
  if (const json* mr = field(*spec, "minResources")) {
    pg.min_resources = read_resource_list(*mr, where + ": minResources", w);
    // Every name as written, for the ResourceQuota check (Volcano's resourcequota masks
    // the raw list): amounts that do not parse were warned about just above.
    if (mr->is_object())
      for (auto it = mr->begin(); it != mr->end(); ++it)
        if (auto a = quota_amount(it.key(), quantity_text(it.value())); a && *a >= 0)
          pg.min_resources_written[it.key()] = *a;
  }
  pg.priority_class = str_field(*spec, "priorityClassName", where, w);
  std::string phase = str_field(*status, "phase", where, w);
  if (phase.empty()) {
    pg.phase = JobPhase::Pending;
  } else if (auto ph = job_phase_from_string(phase)) {
    pg.phase = *ph;
  } else {
    w.push_back(fmt::format("{}: status.phase '{}' is not a PodGroup phase; read as Pending", where,
                            phase));
    pg.phase = JobPhase::Pending;
  }
  // When the phase last changed: the newest condition's transition time, if any.
  if (const json* conds = field(*status, "conditions"); conds && conds->is_array()) {
    for (const json& c : *conds)
      if (auto t = parse_time(str_field(c, "lastTransitionTime", where, w)); t && *t > pg.phase_since)
        pg.phase_since = *t;
  }
  if (const json* md = field(obj, "metadata")) pg.annotations = string_map(*md, "annotations", where, w);
  if (const json* nt = field(*spec, "networkTopology"))
    pg.network_topology = network_topology_from_json(*nt, where + ": networkTopology", w);
  if (const json* sgp = field(*spec, "subGroupPolicy")) {
    const std::string swhere = where + ": subGroupPolicy";
    if (!sgp->is_array()) {
      w.push_back(fmt::format("{} is not an array; ignored", swhere));
    } else {
      for (size_t i = 0; i < sgp->size(); ++i)
        if (auto p = sub_group_policy_from_json((*sgp)[i], fmt::format("{}[{}]", swhere, i), w))
          pg.sub_group_policy.push_back(std::move(*p));
    }
  }
  return pg;
}

std::optional<QueueSpec> queue_from_json(const json& obj, Warnings& w) {
  ObjectMeta m = read_meta(obj);
  if (m.name.empty()) {
    w.push_back("Queue without a name; skipped");
    return std::nullopt;
  }
  std::string where = "Queue " + m.name;
  static const json empty = json::object();
  const json* spec = field(obj, "spec");
  const json* status = field(obj, "status");
  if (!spec) spec = &empty;
  if (!status) status = &empty;

  QueueSpec q;
  q.name = m.name;
  q.src.file = "queues/" + m.name;
  q.created = m.created;
  if (auto wt = int32_field(*spec, "weight", where, w)) {
    if (*wt <= 0) {
      // Volcano's admission webhook turns a missing or zero weight into 1; Caldera runs
      // without it, so it does the same here.
      if (*wt < 0) w.push_back(fmt::format("{}: weight {} is negative; 1 is used", where, *wt));
      q.weight = 1;
    } else {
      q.weight = *wt;
    }
  }
  if (const json* c = field(*spec, "capability"))
    q.capability = read_resource_list(*c, where + ": capability", w);
  if (const json* d = field(*spec, "deserved"))
    q.deserved = read_resource_list(*d, where + ": deserved", w);
  if (const json* g = field(*spec, "guarantee")) {
    if (const json* r = field(*g, "resource"))
      q.guarantee = read_resource_list(*r, where + ": guarantee.resource", w);
  }
  q.reclaimable = bool_field(*spec, "reclaimable", where, w).value_or(true);
  q.priority = int32_field(*spec, "priority", where, w).value_or(0);
  q.parent = str_field(*spec, "parent", where, w);
  if (const json* md = field(obj, "metadata")) q.annotations = string_map(*md, "annotations", where, w);
  if (const json* a = field(*spec, "affinity")) {
    try {
      q.affinity = read_queue_affinity(*a, "spec.affinity");
    } catch (const ApiFieldError& e) {
      w.push_back(fmt::format("{}: {}: {} (expected {}); no node-group affinity", where, e.path,
                              e.problem, e.expected));
    }
  }
  if (q.parent == q.name) {
    w.push_back(fmt::format("{}: names itself as parent; read as a top-level queue", where));
    q.parent.clear();
  }
  std::string state = str_field(*status, "state", where, w);
  if (state.empty() || state == "Open" || state == "Unknown")
    q.state = QueueState::Open;
  else if (state == "Closed")
    q.state = QueueState::Closed;
  else if (state == "Closing")
    q.state = QueueState::Closing;
  else {
    w.push_back(fmt::format("{}: status.state '{}' is not a queue state; read as Open", where, state));
    q.state = QueueState::Open;
  }
  return q;
}

std::optional<HyperNodeSpec> hypernode_from_json(const json& obj, Warnings& w) {
  ObjectMeta m = read_meta(obj);
  if (m.name.empty()) {
    w.push_back("HyperNode without a name; skipped");
    return std::nullopt;
  }
  std::string where = "HyperNode " + m.name;
  HyperNodeSpec hn;
  hn.name = m.name;
  hn.src.file = "hypernodes/" + m.name;
  static const json empty = json::object();
  const json* spec = field(obj, "spec");
  if (!spec) spec = &empty;
  // v1alpha1 spec.tier is an integer (early v1alpha1 had a string: read that too).
  std::optional<int32_t> tier;
  if (const json* t = field(*spec, "tier"); t && t->is_string()) {
    const std::string text = t->get<std::string>();
    char* end = nullptr;
    long v = std::strtol(text.c_str(), &end, 10);
    if (!text.empty() && end && *end == '\0' && v >= 0 && v <= std::numeric_limits<int32_t>::max())
      tier = static_cast<int32_t>(v);
    else
      w.push_back(fmt::format("{}: tier '{}' is not a number", where, text));
  } else {
    tier = int32_field(*spec, "tier", where, w);
  }
  if (!tier || *tier < 0) {
    w.push_back(fmt::format("{}: no usable spec.tier; skipped", where));
    return std::nullopt;
  }
  hn.tier = *tier;
  const json* members = field(*spec, "members");
  if (members && !members->is_array()) {
    w.push_back(fmt::format("{}: spec.members is not a list; no members", where));
    members = nullptr;
  }
  if (members) {
    for (size_t j = 0; j < members->size(); ++j) {
      const json& mj = (*members)[j];
      std::string mwhere = fmt::format("{}: members[{}]", where, j);
      HyperNodeMember mem;
      mem.src.file = hn.src.file;
      std::string type = str_field(mj, "type", mwhere, w);
      if (type == "Node") {
        mem.type = MemberType::Node;
      } else if (type == "HyperNode") {
        mem.type = MemberType::HyperNode;
      } else {
        w.push_back(fmt::format("{}: type '{}' is not Node or HyperNode; ignored", mwhere, type));
        continue;
      }
      const json* sel = field(mj, "selector");
      if (!sel || !sel->is_object()) {
        w.push_back(fmt::format("{}: no selector; ignored", mwhere));
        continue;
      }
      if (const json* e = field(*sel, "exactMatch")) mem.exact = str_field(*e, "name", mwhere, w);
      if (const json* r = field(*sel, "regexMatch"))
        mem.regex = str_field(*r, "pattern", mwhere, w);
      if (const json* l = field(*sel, "labelMatch")) {
        mem.has_labels = true;
        mem.match_labels = string_map(*l, "matchLabels", mwhere + ": labelMatch", w);
        if (const json* ex = field(*l, "matchExpressions"); ex && ex->is_array()) {
          for (const json& e : *ex) {
            LabelRequirement req;
            req.key = str_field(e, "key", mwhere, w);
            req.op = str_field(e, "operator", mwhere, w);
            if (const json* vs = field(e, "values"); vs && vs->is_array())
              for (const json& v : *vs)
                if (v.is_string()) req.values.push_back(v.get<std::string>());
            mem.match_expressions.push_back(std::move(req));
          }
        }
      }
      hn.members.push_back(std::move(mem));
    }
  }
  return hn;
}

std::optional<PriorityClassSpec> priority_class_from_json(const json& obj, Warnings& w) {
  ObjectMeta m = read_meta(obj);
  if (m.name.empty()) {
    w.push_back("PriorityClass without a name; skipped");
    return std::nullopt;
  }
  std::string where = "PriorityClass " + m.name;
  PriorityClassSpec pc;
  pc.name = m.name;
  pc.src.file = "priorityclasses/" + m.name;
  auto v = int32_field(obj, "value", where, w);
  if (!v) {
    w.push_back(fmt::format("{}: no usable value; skipped", where));
    return std::nullopt;
  }
  pc.value = *v;
  pc.global_default = bool_field(obj, "globalDefault", where, w).value_or(false);
  return pc;
}

// ---- storage and namespace policies -----------------------------------------------------

namespace {

template <class Read>
auto read_storage(const json& obj, const char* kind, Warnings& w, Read read)
    -> std::optional<decltype(read(obj, std::string()))> {
  const ObjectMeta m = read_meta(obj);
  try {
    auto spec = read(obj, std::string());
    spec.meta.resource_version = m.resource_version;
    return spec;
  } catch (const ApiFieldError& e) {
    w.push_back(fmt::format("{} {}: {}; left out", kind, m.key().empty() ? "?" : m.key(), e.what()));
    return std::nullopt;
  }
}

}  // namespace

std::optional<DisruptionBudgetSpec> disruption_budget_from_json(const json& obj, Warnings& w) {
  return read_storage(obj, "PodDisruptionBudget", w, [](const json& o, const std::string& p) {
    return read_disruption_budget(o, p, true);
  });
}

std::optional<ResourceQuotaSpec> resource_quota_from_json(const json& obj, Warnings& w) {
  return read_storage(obj, "ResourceQuota", w, [](const json& o, const std::string& p) {
    return read_resource_quota(o, p, true);
  });
}

std::optional<StorageClassSpec> storage_class_from_json(const json& obj, Warnings& w) {
  return read_storage(obj, "StorageClass", w, read_storage_class);
}

std::optional<PersistentVolumeSpec> persistent_volume_from_json(const json& obj, Warnings& w) {
  return read_storage(obj, "PersistentVolume", w, read_persistent_volume);
}

std::optional<PersistentVolumeClaimSpec> claim_from_json(const json& obj, Warnings& w) {
  return read_storage(obj, "PersistentVolumeClaim", w, read_persistent_volume_claim);
}

ResourceList csi_node_resources(const json& obj, Warnings& w) {
  ResourceList out;
  const std::string where = "CSINode " + read_meta(obj).key();
  const json* spec = field(obj, "spec");
  const json* drivers = spec ? field(*spec, "drivers") : nullptr;
  if (drivers == nullptr) return out;
  if (!drivers->is_array()) {
    w.push_back(where + ": spec.drivers is not a list; ignored");
    return out;
  }
  for (const json& d : *drivers) {
    const std::string name = d.is_object() ? json_string(d, "name") : "";
    if (name.empty()) {
      w.push_back(where + ": a driver without a name; ignored");
      continue;
    }
    std::string key = "attachable-volumes-csi-" + name;
    std::replace(key.begin() + 23, key.end(), '/', '-');
    double count = 2147483647.0;  // Volcano's DefaultAttachableVolumeQuantity
    if (const json* a = field(d, "allocatable"); a && a->is_object())
      if (const json* c = field(*a, "count"); c && c->is_number_integer() && c->get<int64_t>() >= 0)
        count = static_cast<double>(c->get<int64_t>());
    out[key] = count;
  }
  return out;
}

}  // namespace caldera::k8s
