// GPU device requests of pods, checked when a cluster is loaded (scenario files, the
// embedded cluster): requests that are malformed or that no node of the cluster could ever
// meet are input errors, named by file, line and pod, before any session runs. The
// deviceshare plugin (plugins/builtin/deviceshare/README.md) applies the same rules at
// run time and refuses such pods every session with the reason; this is the load-time
// half, in the host's terms (Caldera units: scalar resources in milli-units).
//
//   whole cards: nvidia.com/gpu or volcano.sh/gpu-number, whole numbers that agree; with
//                caldera.sh/gpu-milli only as cards x 1000; not with volcano.sh/gpu-memory
//   a share:     caldera.sh/gpu-milli 1..1000 milli-GPU of one card
//   models:      annotation caldera.sh/gpu-models, '|'-separated model names
//   cluster:     some node has enough cards (label nvidia.com/gpu.product among the
//                models, when listed) and, for volcano.sh/gpu-memory, enough memory per card
#pragma once

#include <string>
#include <vector>

#include "host/cache/cache.hpp"
#include "host/model/objects.hpp"

namespace caldera {

// What is wrong with the pod's own GPU request ("" when nothing): e.g.
// "requests.caldera.sh/gpu-milli: 1500 milli-GPU is more than one card (1000); ask whole
// cards with nvidia.com/gpu".
std::string device_request_error(const PodSpec& pod);

// Why no node of `nodes` could ever hold the pod's GPU request ("" when one could).
std::string device_request_never_met(const PodSpec& pod,
                                     const std::vector<const NodeSpec*>& nodes);

// One pod against both rules (the never-met rule only for a pod not on a node). Throws
// InputError: "FILE:LINE:COL: pod NS/NAME: <what>".
void check_device_request(const PodSpec& pod, const std::vector<const NodeSpec*>& nodes);

// Every pod of the cache against both rules. Throws InputError for the first offender:
// "FILE:LINE:COL: pod NS/NAME: <what>". Pods asking no GPU are not looked at.
void check_device_requests(const Cache& cache);

}  // namespace caldera
