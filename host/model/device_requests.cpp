// Load-time checks of GPU device requests (device_requests.hpp). The rules are those of the
// deviceshare plugin (plugins/builtin/deviceshare/deviceshare.cpp, parse and never_fits),
// which follows Volcano's gpushare device (pkg/scheduler/api/devices/nvidia/gpushare).
#include "host/model/device_requests.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "host/util/input_error.hpp"

namespace caldera {

namespace {

constexpr const char* kGpu = "nvidia.com/gpu";
constexpr const char* kGpuNumber = "volcano.sh/gpu-number";
constexpr const char* kGpuMemory = "volcano.sh/gpu-memory";
constexpr const char* kGpuMilli = "caldera.sh/gpu-milli";
constexpr const char* kModelLabel = "nvidia.com/gpu.product";
constexpr const char* kModelsAnnotation = "caldera.sh/gpu-models";
constexpr double kUnits = 1000.0;  // scalar resources are held in milli-units
constexpr double kMilliPerCard = 1000.0;

// A scalar request in its own unit (cards, milli-GPU, MiB): the larger of requests and init.
double amount(const PodSpec& p, const char* name) {
  double v = 0;
  if (auto it = p.requests.find(name); it != p.requests.end()) v = it->second;
  if (auto it = p.init_requests.find(name); it != p.init_requests.end()) v = std::max(v, it->second);
  return v / kUnits;
}

bool whole_number(double v) { return std::fabs(v - std::round(v)) < 1e-6; }

std::string num(double v) {
  if (whole_number(v)) return fmt::format("{}", static_cast<long long>(std::llround(v)));
  return fmt::format("{:g}", v);
}

bool valid_model(const std::string& m) {
  if (m.empty()) return false;
  for (char c : m)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return false;
  return true;
}

std::vector<std::string> split_models(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t bar = s.find('|', pos);
    std::string m = s.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos);
    size_t b = m.find_first_not_of(" \t"), e = m.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? "" : m.substr(b, e - b + 1));
    if (bar == std::string::npos) break;
    pos = bar + 1;
  }
  return out;
}

struct Asked {
  double whole = 0, milli = 0, memory = 0;
  std::vector<std::string> models;
  bool any() const { return whole > 0 || milli > 0 || memory > 0; }
};

Asked asked(const PodSpec& p) {
  Asked a;
  a.whole = std::max(amount(p, kGpu), amount(p, kGpuNumber));
  a.milli = amount(p, kGpuMilli);
  a.memory = amount(p, kGpuMemory);
  if (auto it = p.annotations.find(kModelsAnnotation); it != p.annotations.end())
    a.models = split_models(it->second);
  return a;
}

}  // namespace

std::string device_request_error(const PodSpec& p) {
  const double gpu = amount(p, kGpu), number = amount(p, kGpuNumber);
  const Asked a = asked(p);
  if (!a.any()) return "";
  if (gpu > 0 && !whole_number(gpu))
    return fmt::format("requests.{}: {} is not a whole number of cards; ask a share of one card "
                       "with {}",
                       kGpu, num(gpu), kGpuMilli);
  if (number > 0 && !whole_number(number))
    return fmt::format("requests.{}: {} is not a whole number of cards", kGpuNumber, num(number));
  if (gpu > 0 && number > 0 && std::llround(gpu) != std::llround(number))
    return fmt::format("requests.{} {} and requests.{} {} disagree", kGpu, num(gpu), kGpuNumber,
                       num(number));
  if (a.milli > 0 && !whole_number(a.milli))
    return fmt::format("requests.{}: {} is not a whole number of milli-GPU", kGpuMilli,
                       num(a.milli));
  if (a.whole > 0) {
    if (a.milli > 0 && std::llround(a.milli) != std::llround(a.whole * kMilliPerCard))
      return fmt::format("requests.{}: {} with {} whole card(s); with whole cards it must be {} or "
                         "absent",
                         kGpuMilli, num(a.milli), num(a.whole), num(a.whole * kMilliPerCard));
    if (a.memory > 0)
      return fmt::format("asks whole GPU cards and requests.{}: ask one or the other", kGpuMemory);
  } else if (a.milli > kMilliPerCard) {
    return fmt::format("requests.{}: {} milli-GPU is more than one card (1000); ask whole cards "
                       "with {}",
                       kGpuMilli, num(a.milli), kGpu);
  }
  for (const auto& m : a.models)
    if (!valid_model(m))
      return fmt::format("annotations.{}: '{}' is not a '|'-separated list of GPU models",
                         kModelsAnnotation, p.annotations.at(kModelsAnnotation));
  return "";
}

std::string device_request_never_met(const PodSpec& p, const std::vector<const NodeSpec*>& nodes) {
  const Asked a = asked(p);
  if (!a.any()) return "";
  bool model_seen = false;
  for (const NodeSpec* n : nodes) {
    double cards = 0;
    if (auto it = n->allocatable.find(kGpu); it != n->allocatable.end()) cards = it->second / kUnits;
    if (cards < 1)
      if (auto it = n->allocatable.find(kGpuNumber); it != n->allocatable.end())
        cards = it->second / kUnits;
    cards = std::floor(cards + 1e-9);
    if (cards < 1) continue;
    if (!a.models.empty()) {
      auto label = n->labels.find(kModelLabel);
      if (label == n->labels.end() ||
          std::find(a.models.begin(), a.models.end(), label->second) == a.models.end())
        continue;
    }
    model_seen = true;
    if (a.whole > 0) {
      if (cards >= a.whole) return "";
    } else if (a.memory > 0) {
      double mem = 0;
      if (auto it = n->allocatable.find(kGpuMemory); it != n->allocatable.end())
        mem = it->second / kUnits / cards;
      if (mem >= a.memory) return "";
    } else {
      return "";
    }
  }
  std::string models;
  for (size_t i = 0; i < a.models.size(); ++i) models += (i ? "|" : "") + a.models[i];
  const std::string of = models.empty() ? "" : " of model " + models;
  if (!model_seen) return fmt::format("no node has a GPU{}: the pod can never be placed", of);
  if (a.whole > 0)
    return fmt::format("no node has {} GPU cards{}: the pod can never be placed", num(a.whole), of);
  return fmt::format("no GPU card{} has {} MiB of memory: the pod can never be placed", of,
                     num(a.memory));
}

void check_device_request(const PodSpec& p, const std::vector<const NodeSpec*>& nodes) {
  if (p.phase == PodPhase::Succeeded || p.phase == PodPhase::Failed) return;
  std::string why = device_request_error(p);
  // A pod already on a node was placed by someone; only pods to place must fit somewhere.
  if (why.empty() && p.node.empty()) why = device_request_never_met(p, nodes);
  if (why.empty()) return;
  const std::string at = p.src.str();
  throw InputError(fmt::format("{}{}pod {}: {}", at, at.empty() ? "" : ": ", p.key(), why));
}

void check_device_requests(const Cache& cache) {
  std::vector<const NodeSpec*> nodes;
  for (const auto& [_, n] : cache.nodes()) nodes.push_back(n.get());
  for (const auto& [_, p] : cache.pods()) check_device_request(*p, nodes);
}

}  // namespace caldera
