// GPU device requests of pods, checked when a cluster is loaded (scenario files, the
// embedded cluster): malformed requests are input errors, named by file, line and pod,
// before any session runs; a request no node of the cluster could ever meet is a warning
// (a valid state: the pod stays pending, as in Volcano). The rules
// are those the deviceshare plugin applies at run time (it refuses such pods every session
// with the reason), from their one source, caldera/gpu_requests.hpp; this file only reads
// the pods and nodes of a cache into it and words the errors for a file's author.
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

// One pod against both rules (the never-met rule, a warning, only for a pod not on a
// node). Throws InputError for a malformed request: "FILE:LINE:COL: pod NS/NAME: <what>".
void check_device_request(const PodSpec& pod, const std::vector<const NodeSpec*>& nodes);

// Every pod of the cache against both rules. Throws InputError for the first malformed
// request: "FILE:LINE:COL: pod NS/NAME: <what>". Pods asking no GPU are not looked at.
void check_device_requests(const Cache& cache);

}  // namespace caldera
