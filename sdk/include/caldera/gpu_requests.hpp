// caldera/gpu_requests.hpp -- the rules of a pod's GPU request, in one place.
//
// Header-only, on plain values (numbers and strings), with no ABI and no host types, so
// that both sides apply the same rules: the deviceshare plugin at run time (a pending
// reason every session) and the host when a scenario or cluster file is loaded (an input
// error naming the file, line and pod; host/scenario/device_requests.hpp). The rules are
// Volcano's gpushare device (pkg/scheduler/api/devices/nvidia/gpushare) with Caldera's
// shares of one card; plugins/builtin/deviceshare/README.md documents them:
//
//   whole cards: nvidia.com/gpu or volcano.sh/gpu-number, whole numbers that agree; with
//                caldera.sh/gpu-milli only as cards x 1000; not with volcano.sh/gpu-memory
//   a share:     caldera.sh/gpu-milli 1..1000 milli-GPU of one card, and/or
//                volcano.sh/gpu-memory MiB of one card
//   models:      annotation caldera.sh/gpu-models, '|'-separated model names
//   a node:      cards = allocatable nvidia.com/gpu (else volcano.sh/gpu-number), memory
//                per card = allocatable volcano.sh/gpu-memory / cards, model = label
//                nvidia.com/gpu.product; it can ever hold a request when it has enough
//                cards of an allowed model and, for GPU memory, enough memory per card
//
// Each rule has one wording per audience (Wording): the pending reason a session gives,
// and the input error a file's author reads (which names the field, "requests.X").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace caldera::gpu {

inline constexpr const char* kGpu = "nvidia.com/gpu";
inline constexpr const char* kGpuNumber = "volcano.sh/gpu-number";
inline constexpr const char* kGpuMemory = "volcano.sh/gpu-memory";
inline constexpr const char* kGpuMilli = "caldera.sh/gpu-milli";
inline constexpr const char* kModelLabel = "nvidia.com/gpu.product";
inline constexpr const char* kModelsAnnotation = "caldera.sh/gpu-models";
// What a bind tells the device plugin: the cards (Volcano's "0;3") and what each gives.
inline constexpr const char* kIndexAnnotation = "volcano.sh/gpu-index";
inline constexpr const char* kMilliPerCardAnnotation = "caldera.sh/gpu-milli-per-card";

inline constexpr int64_t kMilliPerCard = 1000;

// Who reads a rule's text: a session's pending reason, or the error of a file being loaded.
enum class Wording { Reason, Input };

// What a pod asks, each amount in its own unit: cards, milli-GPU, MiB (Caldera keeps scalar
// resources in milli-units: divide by 1000), and its caldera.sh/gpu-models annotation.
struct Asked {
  double gpu = 0;     // nvidia.com/gpu, cards
  double number = 0;  // volcano.sh/gpu-number, cards
  double milli = 0;   // caldera.sh/gpu-milli, milli-GPU
  double memory = 0;  // volcano.sh/gpu-memory, MiB
  bool any() const { return gpu > 0 || number > 0 || milli > 0 || memory > 0; }
};

// What is wrong with a request itself (it can never be placed anywhere).
enum class Problem {
  None,
  CardsNotWhole,        // nvidia.com/gpu is not a whole number
  NumberNotWhole,       // volcano.sh/gpu-number is not a whole number
  CardsDisagree,        // both given, different
  MilliNotWhole,        // caldera.sh/gpu-milli is not a whole number
  MilliWithWholeCards,  // whole cards and caldera.sh/gpu-milli other than cards x 1000
  WholeCardsAndMemory,  // whole cards and volcano.sh/gpu-memory
  ShareAboveOneCard,    // caldera.sh/gpu-milli above 1000 without whole cards
  BadModels,            // caldera.sh/gpu-models is not a list of model names
};

// A pod's GPU request as the rules read it. Exactly one of: `whole` idle cards, or a share
// of one card (`milli` thousandths and/or `memory` MiB of one card). `models` empty: any.
struct Request {
  int32_t whole = 0;
  int64_t milli = 0;  // share of one card, 1..1000
  double memory = 0;  // MiB of one card (volcano.sh/gpu-memory)
  std::vector<std::string> models;
  Problem problem = Problem::None;  // not None: the request never fits (describe())
  Asked asked;                      // what was asked, for describe()
  std::string models_text;          // the annotation, for describe() of BadModels

  bool ok() const { return problem == Problem::None; }
  bool wants_gpu() const { return whole > 0 || milli > 0 || memory > 0; }
  bool is_share() const { return whole == 0 && (milli > 0 || memory > 0); }
  // Milli-GPU taken on each chosen card.
  int64_t per_card_milli() const { return whole > 0 ? kMilliPerCard : milli; }
  int64_t total_milli() const { return whole > 0 ? int64_t{whole} * kMilliPerCard : milli; }
};

inline bool whole_number(double v) { return std::fabs(v - std::round(v)) <= 1e-6; }

// A GPU model name: letters, digits, '.', '_', '-'.
inline bool valid_model(std::string_view m) {
  if (m.empty()) return false;
  for (char c : m)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return false;
  return true;
}

inline bool model_allowed(const std::vector<std::string>& models, std::string_view model) {
  if (models.empty()) return true;
  return std::find(models.begin(), models.end(), model) != models.end();
}

// The request of a pod that asks `a`, with its caldera.sh/gpu-models annotation (null:
// none; read only when the pod asks a GPU). The first rule broken is the problem.
inline Request parse(const Asked& a, const char* models_annotation) {
  Request r;
  r.asked = a;
  auto whole_of = [&](double v, Problem bad, int32_t& out) {
    if (v <= 0) return true;
    if (!whole_number(v)) {
      r.problem = bad;
      return false;
    }
    out = static_cast<int32_t>(std::llround(v));
    return true;
  };
  int32_t cards = 0, number = 0;
  if (!whole_of(a.gpu, Problem::CardsNotWhole, cards) ||
      !whole_of(a.number, Problem::NumberNotWhole, number))
    return r;
  if (cards > 0 && number > 0 && cards != number) {
    r.problem = Problem::CardsDisagree;
    return r;
  }
  r.whole = std::max(cards, number);
  if (a.milli > 0 && !whole_number(a.milli)) {
    r.problem = Problem::MilliNotWhole;
    return r;
  }
  const int64_t m = static_cast<int64_t>(std::llround(a.milli));
  if (r.whole > 0) {
    if (m > 0 && m != int64_t{r.whole} * kMilliPerCard) {
      r.problem = Problem::MilliWithWholeCards;
      return r;
    }
    if (a.memory > 0) {
      r.problem = Problem::WholeCardsAndMemory;
      return r;
    }
  } else {
    if (m > kMilliPerCard) {
      r.problem = Problem::ShareAboveOneCard;
      return r;
    }
    r.milli = m;
    r.memory = a.memory;
  }
  if (models_annotation && r.wants_gpu()) {
    std::string_view s(models_annotation);
    const char* blank = " \t\r\n";
    size_t pos = 0;
    while (true) {
      const size_t bar = s.find('|', pos);
      std::string_view part = s.substr(pos, bar == std::string_view::npos ? s.npos : bar - pos);
      const size_t b = part.find_first_not_of(blank);
      part = b == std::string_view::npos ? std::string_view()
                                         : part.substr(b, part.find_last_not_of(blank) - b + 1);
      if (!valid_model(part)) {
        r.problem = Problem::BadModels;
        r.models_text = models_annotation;
        r.models.clear();
        return r;
      }
      if (std::find(r.models.begin(), r.models.end(), part) == r.models.end())
        r.models.emplace_back(part);  // each model once
      if (bar == std::string_view::npos) break;
      pos = bar + 1;
    }
  }
  return r;
}

// An amount in a text: a whole number (within the rules' 1e-6) as one, else six
// significant digits ("1.5", "220.5").
inline std::string number_text(double v) {
  if (whole_number(v)) return std::to_string(static_cast<long long>(std::llround(v)));
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// Why the request never fits (empty when r.ok()).
inline std::string describe(const Request& r, Wording w) {
  const bool in = w == Wording::Input;
  const std::string req = in ? "requests." : "";
  const Asked& a = r.asked;
  auto n = [](double v) { return number_text(v); };
  auto i = [](double v) { return std::to_string(static_cast<long long>(std::llround(v))); };
  switch (r.problem) {
    case Problem::None:
      return "";
    case Problem::CardsNotWhole:
      return in ? req + kGpu + ": " + n(a.gpu) +
                      " is not a whole number of cards; ask a share of one card with " + kGpuMilli
                : std::string(kGpu) + " " + n(a.gpu) +
                      ": whole cards only; ask a share of one card with " + kGpuMilli;
    case Problem::NumberNotWhole:
      return in ? req + kGpuNumber + ": " + n(a.number) + " is not a whole number of cards"
                : std::string(kGpuNumber) + " " + n(a.number) +
                      ": whole cards only; ask a share of one card with " + kGpuMilli;
    case Problem::CardsDisagree:
      return req + kGpu + " " + i(a.gpu) + " and " + req + kGpuNumber + " " + i(a.number) +
             " disagree";
    case Problem::MilliNotWhole:
      return in ? req + kGpuMilli + ": " + n(a.milli) + " is not a whole number of milli-GPU"
                : std::string(kGpuMilli) + " " + n(a.milli) +
                      ": a whole number of milli-GPU is needed";
    case Problem::MilliWithWholeCards: {
      const std::string cards = std::to_string(r.whole);
      const std::string must = std::to_string(int64_t{r.whole} * kMilliPerCard);
      return in ? req + kGpuMilli + ": " + i(a.milli) + " with " + cards +
                      " whole card(s); with whole cards it must be " + must + " or absent"
                : "asks " + cards + " whole GPU card(s) and " + kGpuMilli + " " + i(a.milli) +
                      "; with whole cards it must be " + must + " or absent";
    }
    case Problem::WholeCardsAndMemory:
      return "asks whole GPU cards and " + req + kGpuMemory + ": ask one or the other";
    case Problem::ShareAboveOneCard:
      return in ? req + kGpuMilli + ": " + i(a.milli) +
                      " milli-GPU is more than one card (1000); ask whole cards with " + kGpu
                : std::string(kGpuMilli) + " " + i(a.milli) +
                      " is more than one card (1000); ask whole cards with " + kGpu;
    case Problem::BadModels:
      return (in ? std::string("annotations.") + kModelsAnnotation + ": '"
                 : std::string("annotation ") + kModelsAnnotation + " '") +
             r.models_text + "' is not a '|'-separated list of GPU models";
  }
  return "";
}

// ---- a request against a node --------------------------------------------------------

// A node's GPUs as the rules see them.
struct NodeGpus {
  double cards = 0;            // whole cards
  double memory_per_card = 0;  // MiB; 0: the node declares no GPU memory
  std::string_view model;      // "" when the node has no model label
};

// The cards of a node whose allocatable has `gpu` nvidia.com/gpu and `number`
// volcano.sh/gpu-number (cards): nvidia.com/gpu, else volcano.sh/gpu-number, whole.
inline double node_cards(double gpu, double number) {
  const double cards = gpu >= 1 ? gpu : number;
  return std::floor(cards + 1e-9);
}

// A node from its allocatable amounts (cards, cards, MiB in all) and model label (null:
// none).
inline NodeGpus node_gpus(double gpu, double number, double memory, const char* model) {
  NodeGpus n;
  n.cards = node_cards(gpu, number);
  if (n.cards >= 1 && memory > 0) n.memory_per_card = memory / n.cards;
  if (model) n.model = model;
  return n;
}

// Whether the node could hold the request were it idle, and if not, why.
enum class Fit {
  Ok,
  NoGpu,               // no card at all
  ModelNotAllowed,     // not a model the pod allows
  TooFewCards,         // fewer cards than the whole cards asked
  NoCardMemory,        // GPU memory asked, the node declares none
  CardMemoryTooSmall,  // GPU memory asked, more than a card has
};

inline Fit can_ever_hold(const Request& r, const NodeGpus& n) {
  if (n.cards < 1) return Fit::NoGpu;
  if (!model_allowed(r.models, n.model)) return Fit::ModelNotAllowed;
  if (r.whole > 0) return n.cards < static_cast<double>(r.whole) ? Fit::TooFewCards : Fit::Ok;
  if (r.memory > 0 && n.memory_per_card < r.memory)
    return n.memory_per_card <= 0 ? Fit::NoCardMemory : Fit::CardMemoryTooSmall;
  return Fit::Ok;
}

// "No node can ever meet it": feed the cluster's nodes to met_by() until it returns true;
// if none did, describe() says why.
class NeverMet {
 public:
  explicit NeverMet(const Request& r) : r_(r) {}
  // True once some node could hold the request (look no further).
  bool met_by(const NodeGpus& n) {
    const Fit f = can_ever_hold(r_, n);
    if (f != Fit::NoGpu && f != Fit::ModelNotAllowed) model_seen_ = true;
    met_ = met_ || f == Fit::Ok;
    return met_;
  }
  bool met() const { return met_; }

  // Empty when met (or the request asks no GPU).
  std::string describe(Wording w) const {
    if (met_ || !r_.wants_gpu()) return "";
    std::string models;
    for (size_t i = 0; i < r_.models.size(); ++i) models += (i ? "|" : "") + r_.models[i];
    const std::string of = models.empty() ? "" : " of model " + models;
    std::string what;
    if (!model_seen_)
      what = "no node has a GPU" + of;
    else if (r_.whole > 0)
      what = "no node has " + std::to_string(r_.whole) + " GPU cards" + of;
    else
      what = "no GPU card" + of + " has " + number_text(r_.memory) + " MiB of memory";
    return w == Wording::Reason ? "GPU request can never be met: " + what
                                : what + ": the pod can never be placed";
  }

 private:
  const Request& r_;
  bool model_seen_ = false;
  bool met_ = false;
};

}  // namespace caldera::gpu
