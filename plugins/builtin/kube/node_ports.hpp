// Kubernetes' NodePorts filter (pkg/scheduler/framework/plugins/nodeports): a pod's host
// ports must be free on the node, among the ports of the pods in Kubernetes' view of it.
// A port bound to 0.0.0.0 conflicts with the same protocol and port on any address.
#pragma once

#include <string_view>

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

// Whether every host port of `c` is free on n.
inline bool ports_fit(const cal_pod_constraints* c, sdk::Node n) {
  if (c == nullptr || c->host_port_count == 0) return true;
  for (size_t k = 0; k < n.pod_count(); ++k) {
    const cal_pod_constraints* oc = n.pod(k).constraints();
    if (oc == nullptr) continue;
    for (size_t u = 0; u < oc->host_port_count; ++u)
      for (size_t w = 0; w < c->host_port_count; ++w)
        if (ports_conflict(c->host_ports[w], oc->host_ports[u])) return false;
  }
  return true;
}

}  // namespace caldera::kube
