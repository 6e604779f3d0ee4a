#include "host/model/pod_constraints.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "host/util/spelling.hpp"

namespace caldera {

using json = nlohmann::json;

// ---- the parsed fields -------------------------------------------------------------------

namespace {

using api::NodeTerm;
using api::Requirement;
using api::Selector;

struct PreferredNodeTerm {
  int32_t weight = 0;
  NodeTerm term;
};

struct AffinityTerm {
  int32_t weight = 0;
  std::string topology_key;
  Selector selector;
  std::vector<std::string> namespaces;
  bool has_namespace_selector = false;
  Selector namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
};

struct SpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  bool do_not_schedule = true;
  Selector selector;
  int32_t min_domains = 1;
  bool node_affinity_honor = true;
  bool node_taints_honor = false;
  std::vector<std::string> match_label_keys;
};

struct HostPort {
  int32_t port = 0;
  std::string protocol = "TCP";
  std::string host_ip = "0.0.0.0";
};

}  // namespace

struct PodConstraintsReader::Parts {
  bool has_required_node_affinity = false;
  std::vector<NodeTerm> required_node;
  std::vector<PreferredNodeTerm> preferred_node;
  std::vector<AffinityTerm> required_affinity, preferred_affinity;
  std::vector<AffinityTerm> required_anti_affinity, preferred_anti_affinity;
  std::vector<SpreadConstraint> spread;
  std::vector<HostPort> host_ports;
  std::vector<std::string> images;
  std::vector<std::string> claims;  // persistentVolumeClaim.claimName of each volume

  bool empty() const {
    return !has_required_node_affinity && preferred_node.empty() &&
           required_affinity.empty() && preferred_affinity.empty() &&
           required_anti_affinity.empty() && preferred_anti_affinity.empty() &&
           spread.empty() && host_ports.empty() && images.empty() && claims.empty();
  }
};

// ---- reading JSON with the path of each field --------------------------------------------

namespace {

using namespace api;  // NOLINT: the readers below are written in its terms

AffinityTerm affinity_term(const json& v, const std::string& path) {
  object(v, path, {"labelSelector", "namespaces", "topologyKey", "namespaceSelector",
                   "matchLabelKeys", "mismatchLabelKeys"});
  AffinityTerm t;
  t.topology_key = required_string(v, path, "topologyKey", "a node label key");
  t.selector = label_selector(member(v, "labelSelector"), field(path, "labelSelector"));
  if (const json* ns = member(v, "namespaces")) t.namespaces = strings(*ns, field(path, "namespaces"));
  if (const json* nss = member(v, "namespaceSelector")) {
    t.has_namespace_selector = true;
    t.namespace_selector = label_selector(nss, field(path, "namespaceSelector"));
  }
  if (const json* k = member(v, "matchLabelKeys"))
    t.match_label_keys = strings(*k, field(path, "matchLabelKeys"));
  if (const json* k = member(v, "mismatchLabelKeys"))
    t.mismatch_label_keys = strings(*k, field(path, "mismatchLabelKeys"));
  return t;
}

int32_t weight(const json& v, const std::string& path) {
  const json* w = member(v, "weight");
  if (w == nullptr) bad(path, "missing field 'weight'", "an integer from 1 to 100");
  return static_cast<int32_t>(integer(*w, field(path, "weight"), 1, 100));
}

// podAffinity / podAntiAffinity.
void pod_affinity(const json& v, const std::string& path, std::vector<AffinityTerm>& required,
                  std::vector<AffinityTerm>& preferred) {
  object(v, path, {"requiredDuringSchedulingIgnoredDuringExecution",
                   "preferredDuringSchedulingIgnoredDuringExecution"});
  if (const json* r = member(v, "requiredDuringSchedulingIgnoredDuringExecution")) {
    const std::string rp = field(path, "requiredDuringSchedulingIgnoredDuringExecution");
    const json& a = array(*r, rp);
    for (size_t i = 0; i < a.size(); ++i) required.push_back(affinity_term(a[i], element(rp, i)));
  }
  if (const json* p = member(v, "preferredDuringSchedulingIgnoredDuringExecution")) {
    const std::string pp = field(path, "preferredDuringSchedulingIgnoredDuringExecution");
    const json& a = array(*p, pp);
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string ep = element(pp, i);
      object(a[i], ep, {"weight", "podAffinityTerm"});
      const json* term = member(a[i], "podAffinityTerm");
      if (term == nullptr) bad(ep, "missing field 'podAffinityTerm'", "a pod affinity term");
      AffinityTerm t = affinity_term(*term, field(ep, "podAffinityTerm"));
      t.weight = weight(a[i], ep);
      preferred.push_back(std::move(t));
    }
  }
}

// Adds ":latest" to an image name whose last ':' does not come after its last '/' (no
// tag), as Kubernetes' image locality score normalises a pod's images before it looks them
// up on nodes (normalizedImageName).
std::string normalized_image(std::string name) {
  const auto last = [&](char c) {
    const size_t at = name.rfind(c);
    return at == std::string::npos ? -1L : static_cast<long>(at);
  };
  if (last(':') <= last('/')) name += ":latest";
  return name;
}

}  // namespace

// ---- the reader ----------------------------------------------------------------------------

PodConstraintsReader::PodConstraintsReader() : parts_(std::make_unique<Parts>()) {}
PodConstraintsReader::~PodConstraintsReader() = default;

void PodConstraintsReader::affinity(const json& v, const std::string& prefix) {
  object(v, prefix, {"nodeAffinity", "podAffinity", "podAntiAffinity"});
  if (const json* na = member(v, "nodeAffinity")) {
    const std::string np = field(prefix, "nodeAffinity");
    object(*na, np, {"requiredDuringSchedulingIgnoredDuringExecution",
                     "preferredDuringSchedulingIgnoredDuringExecution"});
    if (const json* r = member(*na, "requiredDuringSchedulingIgnoredDuringExecution")) {
      const std::string rp = field(np, "requiredDuringSchedulingIgnoredDuringExecution");
      parts_->required_node = node_selector_terms(*r, rp);
      parts_->has_required_node_affinity = true;
    }
    if (const json* p = member(*na, "preferredDuringSchedulingIgnoredDuringExecution")) {
      const std::string pp = field(np, "preferredDuringSchedulingIgnoredDuringExecution");
      const json& a = array(*p, pp);
      for (size_t i = 0; i < a.size(); ++i) {
        const std::string ep = element(pp, i);
        object(a[i], ep, {"weight", "preference"});
        const json* pref = member(a[i], "preference");
        if (pref == nullptr) bad(ep, "missing field 'preference'", "a node selector term");
        PreferredNodeTerm t;
        t.weight = weight(a[i], ep);
        t.term = node_term(*pref, field(ep, "preference"));
        parts_->preferred_node.push_back(std::move(t));
      }
    }
  }
  if (const json* pa = member(v, "podAffinity"))
    pod_affinity(*pa, field(prefix, "podAffinity"), parts_->required_affinity,
                 parts_->preferred_affinity);
  if (const json* pa = member(v, "podAntiAffinity"))
    pod_affinity(*pa, field(prefix, "podAntiAffinity"), parts_->required_anti_affinity,
                 parts_->preferred_anti_affinity);
}

void PodConstraintsReader::topology_spread(const json& v, const std::string& prefix) {
  const json& a = array(v, prefix);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string path = element(prefix, i);
    const json& c = object(a[i], path,
                           {"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector",
                            "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy",
                            "matchLabelKeys"});
    SpreadConstraint s;
    const json* skew = member(c, "maxSkew");
    if (skew == nullptr) bad(path, "missing field 'maxSkew'", "an integer from 1");
    s.max_skew = static_cast<int32_t>(integer(*skew, field(path, "maxSkew"), 1, INT32_MAX));
    s.topology_key = required_string(c, path, "topologyKey", "a node label key");
    const json* when = member(c, "whenUnsatisfiable");
    if (when == nullptr) bad(path, "missing field 'whenUnsatisfiable'", "DoNotSchedule or ScheduleAnyway");
    static constexpr std::array<std::string_view, 2> kWhen{"DoNotSchedule", "ScheduleAnyway"};
    s.do_not_schedule = choice(*when, field(path, "whenUnsatisfiable"), kWhen) == 0;
    s.selector = label_selector(member(c, "labelSelector"), field(path, "labelSelector"));
    if (const json* md = member(c, "minDomains")) {
      s.min_domains = static_cast<int32_t>(integer(*md, field(path, "minDomains"), 1, INT32_MAX));
      if (!s.do_not_schedule)
        bad(field(path, "minDomains"), "minDomains with whenUnsatisfiable ScheduleAnyway",
            "no minDomains, or whenUnsatisfiable DoNotSchedule");
    }
    static constexpr std::array<std::string_view, 2> kPolicy{"Honor", "Ignore"};
    if (const json* p = member(c, "nodeAffinityPolicy"))
      s.node_affinity_honor = choice(*p, field(path, "nodeAffinityPolicy"), kPolicy) == 0;
    if (const json* p = member(c, "nodeTaintsPolicy"))
      s.node_taints_honor = choice(*p, field(path, "nodeTaintsPolicy"), kPolicy) == 0;
    if (const json* k = member(c, "matchLabelKeys"))
      s.match_label_keys = strings(*k, field(path, "matchLabelKeys"));
    parts_->spread.push_back(std::move(s));
  }
}

void PodConstraintsReader::container_ports(const json& v, const std::string& prefix) {
  const json& a = array(v, prefix);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string path = element(prefix, i);
    const json& p = object(a[i], path, {"name", "containerPort", "hostPort", "protocol", "hostIP"});
    const json* cp = member(p, "containerPort");
    if (cp == nullptr) bad(path, "missing field 'containerPort'", "an integer from 1 to 65535");
    integer(*cp, field(path, "containerPort"), 1, 65535);
    if (const json* n = member(p, "name")) string(*n, field(path, "name"));
    HostPort hp;
    if (const json* pr = member(p, "protocol")) {
      static constexpr std::array<std::string_view, 3> kProtocols{"TCP", "UDP", "SCTP"};
      hp.protocol = std::string(kProtocols[choice(*pr, field(path, "protocol"), kProtocols)]);
    }
    if (const json* ip = member(p, "hostIP")) {
      hp.host_ip = string(*ip, field(path, "hostIP"));
      if (hp.host_ip.empty()) hp.host_ip = "0.0.0.0";
    }
    const json* host = member(p, "hostPort");
    if (host == nullptr) continue;
    hp.port = static_cast<int32_t>(integer(*host, field(path, "hostPort"), 0, 65535));
    if (hp.port == 0) continue;  // no host port: nothing to reserve on the node
    parts_->host_ports.push_back(std::move(hp));
  }
}

void PodConstraintsReader::image(std::string name) {
  if (!name.empty()) parts_->images.push_back(normalized_image(std::move(name)));
}

void PodConstraintsReader::volumes(const json& v, const std::string& prefix) {
  const json& a = array(v, prefix);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string path = element(prefix, i);
    // Volume: a name and one source (core/v1 VolumeSource).
    const json& vol = object(a[i], path,
        {"name", "persistentVolumeClaim", "ephemeral", "emptyDir", "configMap", "secret",
         "hostPath", "downwardAPI", "projected", "csi", "nfs", "image", "awsElasticBlockStore",
         "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker",
         "gcePersistentDisk", "gitRepo", "glusterfs", "iscsi", "photonPersistentDisk",
         "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "vsphereVolume"});
    required_string(vol, path, "name", "the volume's name");
    if (member(vol, "ephemeral"))
      bad(field(path, "ephemeral"), "a generic ephemeral volume, which Caldera does not support",
          "a persistentVolumeClaim volume naming a claim made beforehand");
    if (const json* c = member(vol, "persistentVolumeClaim")) {
      const std::string cp = field(path, "persistentVolumeClaim");
      object(*c, cp, {"claimName", "readOnly"});
      if (const json* ro = member(*c, "readOnly")) boolean(*ro, field(cp, "readOnly"));
      parts_->claims.push_back(required_string(*c, cp, "claimName", "the claim's name"));
    }
  }
}

std::shared_ptr<const PodConstraints> PodConstraintsReader::finish() {
  if (parts_->empty()) return nullptr;
  return std::make_shared<const PodConstraints>(std::exchange(parts_, std::make_unique<Parts>()));
}

// ---- the C view ------------------------------------------------------------------------------

// Every array the view points into. Each inner vector is filled once, before the next one
// is added: moving the outer vector keeps inner buffers where they are.
struct PodConstraints::Arrays : api::ViewArena {
  std::vector<cal_node_selector_term> required_node;
  std::vector<cal_preferred_node_term> preferred_node;
  std::vector<std::vector<cal_pod_affinity_term>> affinity;
  std::vector<cal_spread_constraint> spread;
  std::vector<cal_host_port> host_ports;

  std::pair<const cal_pod_affinity_term*, size_t> terms(const std::vector<AffinityTerm>& v) {
    if (v.empty()) return {nullptr, 0};
    std::vector<cal_pod_affinity_term> out;
    for (const AffinityTerm& t : v) {
      cal_pod_affinity_term c{};
      c.weight = t.weight;
      c.topology_key = t.topology_key.c_str();
      c.selector = selector(t.selector);
      c.namespaces = list(t.namespaces);
      c.has_namespace_selector = t.has_namespace_selector ? 1 : 0;
      c.namespace_selector = selector(t.namespace_selector);
      c.match_label_keys = list(t.match_label_keys);
      c.mismatch_label_keys = list(t.mismatch_label_keys);
      out.push_back(c);
    }
    std::vector<cal_pod_affinity_term>& a = affinity.emplace_back(std::move(out));
    return {a.data(), a.size()};
  }
};

PodConstraints::PodConstraints(std::unique_ptr<PodConstraintsReader::Parts> parts)
    : parts_(std::move(parts)), arrays_(std::make_unique<Arrays>()) {
  const PodConstraintsReader::Parts& p = *parts_;
  Arrays& a = *arrays_;
  view_.struct_size = sizeof(cal_pod_constraints);
  view_.has_required_node_affinity = p.has_required_node_affinity ? 1 : 0;
  for (const NodeTerm& t : p.required_node) a.required_node.push_back(a.term(t));
  view_.required_node_terms = a.required_node.data();
  view_.required_node_term_count = a.required_node.size();
  for (const PreferredNodeTerm& t : p.preferred_node)
    a.preferred_node.push_back({t.weight, a.term(t.term)});
  view_.preferred_node_terms = a.preferred_node.data();
  view_.preferred_node_term_count = a.preferred_node.size();
  std::tie(view_.required_affinity, view_.required_affinity_count) = a.terms(p.required_affinity);
  std::tie(view_.preferred_affinity, view_.preferred_affinity_count) = a.terms(p.preferred_affinity);
  std::tie(view_.required_anti_affinity, view_.required_anti_affinity_count) =
      a.terms(p.required_anti_affinity);
  std::tie(view_.preferred_anti_affinity, view_.preferred_anti_affinity_count) =
      a.terms(p.preferred_anti_affinity);
  for (const SpreadConstraint& s : p.spread) {
    cal_spread_constraint c{};
    c.max_skew = s.max_skew;
    c.topology_key = s.topology_key.c_str();
    c.do_not_schedule = s.do_not_schedule ? 1 : 0;
    c.selector = a.selector(s.selector);
    c.min_domains = s.min_domains;
    c.node_affinity_policy_honor = s.node_affinity_honor ? 1 : 0;
    c.node_taints_policy_honor = s.node_taints_honor ? 1 : 0;
    c.match_label_keys = a.list(s.match_label_keys);
    a.spread.push_back(c);
  }
  view_.spread = a.spread.data();
  view_.spread_count = a.spread.size();
  for (const HostPort& hp : p.host_ports)
    a.host_ports.push_back({hp.port, hp.protocol.c_str(), hp.host_ip.c_str()});
  view_.host_ports = a.host_ports.data();
  view_.host_port_count = a.host_ports.size();
  view_.images = a.list(p.images);
  view_.claims = a.list(p.claims);
}

PodConstraints::~PodConstraints() = default;

// ---- node images -------------------------------------------------------------------------------

NodeImages::NodeImages(std::vector<Image> images) : images_(std::move(images)) {
  for (const Image& im : images_) {
    std::vector<const char*>& names = name_ptrs_.emplace_back();
    for (const std::string& n : im.names) names.push_back(n.c_str());
  }
}

std::shared_ptr<const NodeImages> read_node_images(const json& v, const std::string& prefix) {
  std::vector<NodeImages::Image> images;
  const json& a = array(v, prefix);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string path = element(prefix, i);
    const json& im = object(a[i], path, {"names", "sizeBytes"});
    NodeImages::Image image;
    if (const json* n = member(im, "names")) image.names = strings(*n, field(path, "names"));
    if (const json* s = member(im, "sizeBytes"))
      image.size_bytes = integer(*s, field(path, "sizeBytes"), 0, INT64_MAX);
    images.push_back(std::move(image));
  }
  if (images.empty()) return nullptr;
  return std::make_shared<const NodeImages>(std::move(images));
}

}  // namespace caldera
