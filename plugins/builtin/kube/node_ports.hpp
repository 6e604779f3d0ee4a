// Kubernetes' NodePorts filter (pkg/scheduler/framework/plugins/nodeports): a pod's host
// ports must be free on the node, among the ports of the pods in Kubernetes' view of it.
// A port bound to 0.0.0.0 conflicts with the same protocol and port on any address.
#pragma once

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "caldera/sdk.hpp"
#include "kube/selectors.hpp"

namespace caldera::kube {

inline constexpr const char* kNodePortsNotFree =
    "node(s) didn't have free ports for the requested pod ports";

inline bool ports_conflict(const cal_host_port& want, const cal_host_port& used) {
  if (want.port != used.port || sv(want.protocol) != sv(used.protocol)) return false;
  const std::string_view a = sv(want.host_ip), b = sv(used.host_ip);
  return a == "0.0.0.0" || b == "0.0.0.0" || a == b;
}

// A node's used ports as Kubernetes' NodeInfo keeps them (HostPortInfo): a set of (address,
// protocol, port), so when one of two pods holding the same entry leaves the node, the
// entry is gone although the other pod still holds it. `removed` lists such entries
// (made by a pod leaving the node's view in the session and not re-added since); a pod
// holding one does not make it used.
struct RemovedPorts {
  std::vector<std::tuple<std::string, std::string, int32_t>> entries;  // address, protocol, port
  bool has(const cal_host_port& p) const {
    for (const auto& [ip, proto, port] : entries)
      if (port == p.port && proto == sv(p.protocol) && ip == sv(p.host_ip)) return true;
    return false;
  }
  void add(const cal_pod_constraints* c) {
    if (c == nullptr) return;
    for (size_t i = 0; i < c->host_port_count; ++i)
      if (!has(c->host_ports[i]))
        entries.emplace_back(c->host_ports[i].host_ip, c->host_ports[i].protocol, c->host_ports[i].port);
  }
  void drop(const cal_pod_constraints* c) {
    if (c == nullptr) return;
    for (size_t i = 0; i < c->host_port_count; ++i) {
      const cal_host_port& p = c->host_ports[i];
      std::erase_if(entries, [&](const auto& e) {
        return std::get<2>(e) == p.port && std::get<1>(e) == sv(p.protocol) &&
               std::get<0>(e) == sv(p.host_ip);
      });
    }
  }
};

// Whether every host port of `c` is free on n; `removed` (may be null) as above.
inline bool ports_fit(const cal_pod_constraints* c, sdk::Node n, const RemovedPorts* removed) {
  if (c == nullptr || c->host_port_count == 0) return true;
  for (size_t k = 0; k < n.pod_count(); ++k) {
    const cal_pod_constraints* oc = n.pod(k).constraints();
    if (oc == nullptr) continue;
    for (size_t u = 0; u < oc->host_port_count; ++u) {
      if (removed != nullptr && removed->has(oc->host_ports[u])) continue;
      for (size_t w = 0; w < c->host_port_count; ++w)
        if (ports_conflict(c->host_ports[w], oc->host_ports[u])) return false;
    }
  }
  return true;
}

}  // namespace caldera::kube
