#include "host/session/volumes.hpp"

#include <algorithm>
#include <cstring>

namespace caldera {

namespace {

// The views of a record map, sorted by `less`.
template <class Map, class Less>
auto views_of(const Map& m, Less less) {
  std::vector<decltype(m.begin()->second->view())> out;
  out.reserve(m.size());
  for (const auto& [_, rec] : m) out.push_back(rec->view());
  std::sort(out.begin(), out.end(), less);
  return out;
}

template <class T>
bool by_name(const T* a, const T* b) { return std::strcmp(a->name, b->name) < 0; }

bool by_namespace_name(const cal_persistent_volume_claim* a, const cal_persistent_volume_claim* b) {
  const int ns = std::strcmp(a->namespace_name, b->namespace_name);
  return ns != 0 ? ns < 0 : std::strcmp(a->name, b->name) < 0;
}

template <class T>
const T* find_named(const std::vector<const T*>& v, const char* name) {
  if (name == nullptr) return nullptr;
  auto it = std::lower_bound(v.begin(), v.end(), name,
                             [](const T* x, const char* n) { return std::strcmp(x->name, n) < 0; });
  return it != v.end() && std::strcmp((*it)->name, name) == 0 ? *it : nullptr;
}

}  // namespace

void SessionVolumes::open(const Cache& cache) {
  classes_ = views_of(cache.storage_classes(), by_name<cal_storage_class>);
  volumes_ = views_of(cache.persistent_volumes(), by_name<cal_persistent_volume>);
  claims_ = views_of(cache.claims(), by_namespace_name);
}

const cal_storage_class* SessionVolumes::storage_class(const char* name) const {
  return find_named(classes_, name);
}

const cal_persistent_volume* SessionVolumes::volume(const char* name) const {
  return find_named(volumes_, name);
}

const cal_persistent_volume_claim* SessionVolumes::claim(const char* ns, const char* name) const {
  if (!ns || !name) return nullptr;
  cal_persistent_volume_claim key{};
  key.namespace_name = ns;
  key.name = name;
  auto it = std::lower_bound(claims_.begin(), claims_.end(), &key, by_namespace_name);
  return it != claims_.end() && !by_namespace_name(&key, *it) ? *it : nullptr;
}

const cal_persistent_volume_claim* SessionVolumes::assumed_claim(
    const cal_persistent_volume* pv) const {
  auto it = assumed_.find(pv);
  return it == assumed_.end() ? nullptr : it->second;
}

const char* SessionVolumes::selected_node(const cal_persistent_volume_claim* c) const {
  auto it = selected_.find(c);
  if (it != selected_.end()) return it->second.c_str();
  return c->selected_node;
}

bool SessionVolumes::assume(TaskInfo* t, const cal_persistent_volume_claim* c,
                            const cal_persistent_volume* pv, const std::string& node) {
  if (pv != nullptr) {
    auto [it, added] = assumed_.emplace(pv, c);
    if (!added && it->second != c) return false;
  } else {
    selected_[c] = node;
  }
  t->volume_decisions.push_back({c, pv});
  return true;
}

void SessionVolumes::unassume(TaskInfo* t) {
  // In reverse, as Kubernetes restores its assume cache: a claim another placement still
  // holds keeps that placement's decision.
  for (auto d = t->volume_decisions.rbegin(); d != t->volume_decisions.rend(); ++d) {
    if (d->volume != nullptr) {
      if (auto it = assumed_.find(d->volume); it != assumed_.end() && it->second == d->claim)
        assumed_.erase(it);
    } else {
      selected_.erase(d->claim);
    }
  }
  t->volume_decisions.clear();
}

std::vector<std::pair<std::string, double>> SessionVolumes::csi_requests(
    const PodSpec& pod, const Cache& cache, const SchedulerConfig& config) {
  std::vector<std::pair<std::string, double>> out;
  if (!config.count_csi_volumes || !pod.constraints) return out;
  const cal_string_list& claims = pod.constraints->view()->claims;
  for (size_t i = 0; i < claims.count; ++i) {
    const PersistentVolumeClaim* c = cache.claim(pod.ns + "/" + claims.items[i]);
    if (c == nullptr) continue;  // Volcano re-queues the pod; VolumeBinding says why it waits
    // getCSIDriverInfo: the bound PV's CSI driver; else the class's csi-driver-name
    // parameter or provisioner; a bound PV that is not CSI counts as nothing.
    std::string driver;
    const PersistentVolume* pv =
        c->spec().volume_name.empty() ? nullptr : cache.persistent_volume(c->spec().volume_name);
    if (pv != nullptr) {
      if (!pv->spec().csi) continue;
      driver = pv->spec().csi_driver;
    } else {
      const std::string* cls = c->spec().storage_class();
      const StorageClass* sc = cls && !cls->empty() ? cache.storage_class(*cls) : nullptr;
      if (sc == nullptr) continue;
      driver = sc->spec().has_csi_driver_parameter ? sc->spec().csi_driver_parameter
                                                   : sc->spec().provisioner;
    }
    static const char* const kIgnored[] = {"rancher.io/local-path", "hostpath.csi.k8s.io"};
    if (driver.empty() ||
        std::find(std::begin(kIgnored), std::end(kIgnored), driver) != std::end(kIgnored) ||
        std::find(config.ignored_provisioners.begin(), config.ignored_provisioners.end(),
                  driver) != config.ignored_provisioners.end())
      continue;
    std::string name = "attachable-volumes-csi-" + driver;
    std::replace(name.begin() + 23, name.end(), '/', '-');
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == name; });
    // One volume is one milli-unit, as Volcano's AddScalar(key, 1) counts it.
    if (it == out.end()) out.emplace_back(std::move(name), 1.0);
    else it->second += 1.0;
  }
  return out;
}

}  // namespace caldera
