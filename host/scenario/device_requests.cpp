// Load-time checks of GPU device requests (device_requests.hpp): the pods and nodes of a
// cache read into the shared rules (caldera/gpu_requests.hpp), errors in their input
// wording.
#include "host/scenario/device_requests.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "caldera/gpu_requests.hpp"
#include "host/util/input_error.hpp"

namespace caldera {

namespace {

constexpr double kUnits = 1000.0;  // scalar resources are held in milli-units

// An amount of the pod's request in its own unit, as a session reads it (TaskInfo's
// init_resreq: the init requests when the pod has them, else its requests).
double amount(const PodSpec& p, const char* name) {
  const ResourceList& from = p.init_requests.empty() ? p.requests : p.init_requests;
  auto it = from.find(name);
  return it == from.end() ? 0 : it->second / kUnits;
}

double allocatable(const NodeSpec& n, const char* name) {
  auto it = n.allocatable.find(name);
  return it == n.allocatable.end() ? 0 : it->second / kUnits;
}

gpu::Request request_of(const PodSpec& p) {
  gpu::Asked a;
  a.gpu = amount(p, gpu::kGpu);
  a.number = amount(p, gpu::kGpuNumber);
  a.milli = amount(p, gpu::kGpuMilli);
  a.memory = amount(p, gpu::kGpuMemory);
  const char* models = nullptr;
  if (auto it = p.annotations.find(gpu::kModelsAnnotation); it != p.annotations.end())
    models = it->second.c_str();
  return gpu::parse(a, models);
}

std::string never_met(const gpu::Request& r, const std::vector<const NodeSpec*>& nodes) {
  if (!r.ok() || !r.wants_gpu()) return "";
  gpu::NeverMet never(r);
  for (const NodeSpec* n : nodes) {
    auto label = n->labels.find(gpu::kModelLabel);
    const gpu::NodeGpus g =
        gpu::node_gpus(allocatable(*n, gpu::kGpu), allocatable(*n, gpu::kGpuNumber),
                       allocatable(*n, gpu::kGpuMemory),
                       label == n->labels.end() ? nullptr : label->second.c_str());
    if (never.met_by(g)) return "";
  }
  return never.describe(gpu::Wording::Input);
}

}  // namespace

std::string device_request_error(const PodSpec& p) {
  return gpu::describe(request_of(p), gpu::Wording::Input);
}

std::string device_request_never_met(const PodSpec& p, const std::vector<const NodeSpec*>& nodes) {
  return never_met(request_of(p), nodes);
}

void check_device_request(const PodSpec& p, const std::vector<const NodeSpec*>& nodes) {
  if (p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed) return;
  const gpu::Request r = request_of(p);
  // Made only when said: every pod of a big file passes through here.
  auto where = [&p] {
    const std::string at = p.src.str();
    return fmt::format("{}{}pod {}: ", at, at.empty() ? "" : ": ", p.key());
  };
  if (std::string why = gpu::describe(r, gpu::Wording::Input); !why.empty())
    throw InputError(where() + why);
  // A pod already on a node was placed by someone; only pods to place must fit somewhere.
  // One that cannot is a valid state (Volcano keeps it pending too): said, not refused.
  if (!p.node.empty()) return;
  if (std::string why = never_met(r, nodes); !why.empty()) spdlog::warn("{}{}", where(), why);
}

void check_device_requests(const Cache& cache) {
  std::vector<const NodeSpec*> nodes;
  for (const auto& [_, n] : cache.nodes()) nodes.push_back(n.get());
  for (const auto& [_, p] : cache.pods()) check_device_request(*p, nodes);
}

}  // namespace caldera
