// deviceshare: GPUs as devices, not a number. Follows Volcano's
// pkg/scheduler/plugins/deviceshare/deviceshare.go with its NVIDIA gpushare device
// (pkg/scheduler/api/devices/nvidia/gpushare/{share.go,device_info.go}): a node's GPUs are
// cards; a pod asks whole idle cards or a share of one card; the predicate checks that a real
// card (or N idle cards) can hold the pod; the chosen cards are written on the pod
// (volcano.sh/gpu-index). On top of Volcano's binpack and spread card policies it has FGD,
// the fragmentation policy of Weng et al., "Beware of Fragmentation" (USENIX ATC 2023),
// whose arithmetic is in deviceshare_math.hpp.
//
// What it reads (full text in README.md beside this file):
//   node: cards = allocatable nvidia.com/gpu; memory per card = allocatable
//         volcano.sh/gpu-memory / cards (optional); model = label nvidia.com/gpu.product.
//   pod:  whole cards: volcano.sh/gpu-number or nvidia.com/gpu (and, optionally,
//         caldera.sh/gpu-milli = cards x 1000); a share of one card: caldera.sh/gpu-milli in
//         milli-GPU ("220" = 22% of one card) and/or volcano.sh/gpu-memory (MiB of one
//         card); allowed models: annotation caldera.sh/gpu-models = "V100M16|V100M32".
//         Nodes that take shares declare caldera.sh/gpu-milli allocatable = cards x 1000 so
//         that the host's resource fit works; this plugin checks per card.
// What it writes, from on_allocate (task_set_annotation, sent with the bind):
//   volcano.sh/gpu-index = "0;3" (the cards), caldera.sh/gpu-milli-per-card = "220" (what
//   the pod takes on each; 1000 for whole cards).
// Per-card use is rebuilt at every session open from the tasks on each node and their
// annotations (a list "1000;440" in gpu-milli-per-card gives one value per listed card);
// a running GPU pod with no (or a broken) assignment is given cards first-fit so its use is
// never ignored. Releasing pods count as gone (the future view the allocate action's
// predicate uses, so a pipelined pod can take a card that is being freed).
//
// The fragmentation policy needs the expected mix of pod shapes. It comes from the workload
// itself: every pending GPU pod a session shows is counted once (by name) in a history kept
// across sessions as the plugin's state (ABI 1.2 state_get / state_put: read at open, saved
// at close; a static would not survive sessions that run in processes of their own), each
// new pod weighing 1/decay times more than the one before (deviceshare.fragmentation.decay),
// so old pods fade. Everything else is per session: the card state of each node is built
// from the session the first time a callback needs it.
//
// Only reads in predicate and node_order (state is built at open and changed only by
// on_allocate / on_deallocate on the scheduling thread): node-parallel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "caldera/sdk.hpp"
#include "deviceshare/deviceshare_math.hpp"

namespace {

namespace ds = caldera::deviceshare;
namespace sdk = caldera::sdk;

namespace gpu = caldera::gpu;  // the request rules, shared with the host (gpu_requests.hpp)

using gpu::kGpu;
using gpu::kGpuMemory;
using gpu::kGpuMilli;
using gpu::kGpuNumber;
using gpu::kModelLabel;
using gpu::kIndexAnnotation;
using gpu::kMilliPerCardAnnotation;
using gpu::kModelsAnnotation;

// Scalar resources arrive in milli-units (caldera/plugin.h, UNITS).
constexpr double kUnits = 1000.0;

// "0;3" or "0,3" -> {0, 3}; false on anything else. Parts may have blanks around them and
// are at most 9 digits. (Read for every running task of every node a session builds: no
// allocation but the output's.)
bool parse_list(const char* text, std::vector<int64_t>& out) {
  out.clear();
  if (!text || !*text) return false;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  const char* p = text;
  while (true) {
    while (blank(*p)) ++p;
    int64_t v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; ++p, ++digits) v = v * 10 + (*p - '0');
    if (digits == 0 || digits > 9) return false;
    while (blank(*p)) ++p;
    out.push_back(v);
    if (*p == '\0') return true;
    if (*p != ';' && *p != ',') return false;
    ++p;
  }
}

std::string join(const std::vector<size_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ";" : "") + std::to_string(v[i]);
  return s;
}

std::string fmt_num(double v) { return gpu::number_text(v); }

ds::Policy parse_policy(const std::string& s, bool& ok) {
  ok = true;
  if (s == "binpack") return ds::Policy::Binpack;
  if (s == "spread") return ds::Policy::Spread;
  if (s == "fragmentation" || s == "fgd") return ds::Policy::Fragmentation;
  ok = false;
  return ds::Policy::Binpack;
}

using History = ds::ShapeHistory;
using ShapeKey = ds::ShapeKey;

// ---- the plugin ---------------------------------------------------------------------

class DeviceShare {
 public:
  static constexpr const char* kName = "deviceshare";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "GPU cards as devices: whole cards and shares of one card, per-card predicate and "
      "assignment (volcano.sh/gpu-index), binpack / spread / fragmentation (FGD) scoring";
  static constexpr sdk::Hooks kHooks = sdk::hooks(sdk::Hook::pre_predicate,
      sdk::Hook::predicate, sdk::Hook::node_order, sdk::Hook::on_allocate,
      sdk::Hook::on_deallocate, sdk::Hook::on_close, sdk::Hook::check_args);
  static constexpr uint64_t kCapabilities = CAL_CAP_NODE_PARALLEL;

  static constexpr sdk::String kPolicy{
      "deviceshare.policy", "binpack",
      "How cards and nodes are chosen: binpack (least free GPU after placement), spread (most "
      "free GPU), fragmentation (FGD: least growth of the node's GPU fragmentation for the "
      "expected mix of pod shapes)."};
  static constexpr sdk::String kSchedulePolicy{
      "deviceshare.SchedulePolicy", sdk::no_default,
      "Volcano's name for deviceshare.policy (binpack | spread | fragmentation); it wins over "
      "deviceshare.policy, which must agree when set to other than binpack."};
  static constexpr sdk::Int kScheduleWeight{
      "deviceshare.ScheduleWeight", 1,
      "Weight of the device score (Volcano's name); 0 turns scoring off, the predicate and "
      "card assignment stay."};
  static constexpr sdk::Bool kSharingEnable{
      "deviceshare.GPUSharingEnable", true,
      "Volcano's switch for GPU shares; must be true here (shares are always handled)."};
  static constexpr sdk::Bool kNumberEnable{
      "deviceshare.GPUNumberEnable", true,
      "Volcano's switch for whole cards (volcano.sh/gpu-number); must be true here (whole "
      "cards are always handled)."};
  static constexpr sdk::Bool kFragMemory{
      "deviceshare.fragmentation.memory", false,
      "Fragmentation policy: true counts a node whose idle memory is below a shape's as unable "
      "to use its GPUs for that shape, as FGD counts cpu (FGD itself weighs cpu only; on the "
      "openb replay this changes little)."};
  static constexpr sdk::Double kFragDecay{
      "deviceshare.fragmentation.decay", 0.999,
      "Fragmentation policy: each newly seen pod weighs 1/decay times the one before in the "
      "shape history (0 < decay <= 1; 1 keeps plain counts)."};
  static constexpr sdk::Int kFragHistory{
      "deviceshare.fragmentation.history", 100000,
      "Fragmentation policy: at most this many of a session's pending pods are remembered for "
      "the next, so that a pod pending over many sessions is counted once (8 bytes each in the "
      "plugin's saved state)."};
  static constexpr sdk::Int kFragShapes{
      "deviceshare.fragmentation.shapes", 64,
      "Fragmentation policy: at most this many of the most frequent shapes make the expected "
      "mix."};
  static constexpr sdk::Double kFragCoverage{
      "deviceshare.fragmentation.coverage", 1.0,
      "Fragmentation policy: the most frequent shapes are taken until they cover this share "
      "of the history's weight (0 < coverage <= 1)."};
  static constexpr auto kOptions =
      sdk::options(kPolicy, kSchedulePolicy, kScheduleWeight, kSharingEnable, kNumberEnable,
                   kFragMemory, kFragDecay, kFragHistory, kFragShapes, kFragCoverage);

  static sdk::Status check_args(const sdk::Args& a) {
    bool ok = true;
    const std::string p = a.get(kPolicy);
    parse_policy(p, ok);
    if (!ok)
      return sdk::Status::error(
          {kPolicy.name, " must be binpack, spread or fragmentation, not '", p, "'"});
    if (a.has(kSchedulePolicy)) {
      const std::string v = a.get(kSchedulePolicy);
      ds::Policy pv = parse_policy(v, ok);
      if (!ok)
        return sdk::Status::error(
            {kSchedulePolicy.name, " must be binpack, spread or fragmentation, not '", v, "'"});
      // deviceshare.policy has a default (binpack), so only a non-default value can be seen
      // to disagree.
      bool ok2 = true;
      if (p != kPolicy.text_default && parse_policy(p, ok2) != pv)
        return sdk::Status::error(
            {kPolicy.name, " '", p, "' and ", kSchedulePolicy.name, " '", v, "' disagree"});
    }
    if (a.get(kScheduleWeight) < 0)
      return sdk::Status::error({kScheduleWeight.name, " must be >= 0"});
    if (!a.get(kSharingEnable) || !a.get(kNumberEnable))
      return sdk::Status::error({kSharingEnable.name, " and ", kNumberEnable.name,
                                 " must be true: this plugin always handles both whole cards "
                                 "and shares"});
    const double decay = a.get(kFragDecay);
    if (!(decay > 0 && decay <= 1))
      return sdk::Status::error({kFragDecay.name, " must be in (0, 1]"});
    if (a.get(kFragHistory) < 1) return sdk::Status::error({kFragHistory.name, " must be >= 1"});
    if (a.get(kFragShapes) < 1) return sdk::Status::error({kFragShapes.name, " must be >= 1"});
    const double cov = a.get(kFragCoverage);
    if (!(cov > 0 && cov <= 1))
      return sdk::Status::error({kFragCoverage.name, " must be in (0, 1]"});
    return sdk::Status::ok();
  }

  DeviceShare(sdk::Session s, const sdk::Args& a) : ssn_(s) {
    bool ok = true;
    policy_ = parse_policy(a.get(kPolicy), ok);
    if (a.has(kSchedulePolicy)) policy_ = parse_policy(a.get(kSchedulePolicy), ok);
    weight_ = static_cast<double>(a.get(kScheduleWeight));
    gpu_id_ = s.resource_id(kGpu);
    number_id_ = s.resource_id(kGpuNumber);
    memory_id_ = s.resource_id(kGpuMemory);
    milli_id_ = s.resource_id(kGpuMilli);
    index_nodes();
    weigh_memory_ = a.get(kFragMemory);
    if (policy_ == ds::Policy::Fragmentation) {
      sdk::StateReader saved(s.saved_state());
      if (!history_.load(saved))
        sdk::log(CAL_LOG_WARN, kName, "the saved shape history does not read back; it starts over");
      history_.begin_session();
      learn_pending(a.get(kFragDecay), static_cast<size_t>(a.get(kFragHistory)));
      mix_ = history_.mix(a.get(kFragCoverage), static_cast<size_t>(a.get(kFragShapes)));
      learned_ = true;
    }
  }

  // The history goes to the next session (the other policies leave the saved one as is).
  void on_close() {
    if (!learned_) return;
    sdk::StateWriter w;
    history_.save(w);
    if (!ssn_.save_state(w.bytes()))
      sdk::log(CAL_LOG_WARN, kName,
               "the shape history (" + std::to_string(w.size()) +
                   " bytes) could not be saved; the next session starts over");
  }

  // Invalid requests and requests no node of the session could ever meet fail every node,
  // every session, with the reason (UnschedulableAndUnresolvable: evicting will not help).
  sdk::Status pre_predicate(sdk::Task t) {
    const ds::Request& r = remember(t);
    if (!r.ok()) return sdk::Status::unresolvable(gpu::describe(r, gpu::Wording::Reason));
    if (!r.wants_gpu()) return sdk::Status::ok();
    std::string why = never_fits(r);
    if (!why.empty()) return sdk::Status::unresolvable(why);
    return sdk::Status::ok();
  }

  sdk::Status predicate(sdk::Task t, sdk::Node n) const {
    ds::Request local;
    const ds::Request& r = request_of(t, local);
    if (!r.ok()) return sdk::Status::unresolvable(gpu::describe(r, gpu::Wording::Reason));
    if (!r.wants_gpu()) return sdk::Status::ok();
    const ds::NodeCards* c = view(n.handle());
    gpu::NodeGpus g;
    if (c) g = {static_cast<double>(c->count()), c->mem_per_card, c->model};
    // What the node could never hold (the shared rule), then what it cannot hold now.
    switch (gpu::can_ever_hold(r, g)) {
      case gpu::Fit::Ok: break;
      case gpu::Fit::NoGpu: return sdk::Status::unresolvable("node(s) had no GPU");
      case gpu::Fit::ModelNotAllowed: return sdk::Status::unresolvable("GPU model not allowed");
      case gpu::Fit::TooFewCards:
        return sdk::Status::unresolvable("node(s) had fewer than " + std::to_string(r.whole) +
                                         " GPU cards");
      case gpu::Fit::NoCardMemory:
        return sdk::Status::unresolvable("node(s) did not declare GPU memory per card");
      case gpu::Fit::CardMemoryTooSmall:
        return sdk::Status::unresolvable("GPU cards have less than " + fmt_num(r.memory) +
                                         " MiB of memory");
    }
    if (r.whole > 0) {
      if (!ds::fits(*c, r))
        return sdk::Status::unschedulable(r.whole == 1 ? std::string("no idle GPU card")
                                                       : "fewer than " + std::to_string(r.whole) +
                                                             " idle GPU cards");
      return sdk::Status::ok();
    }
    if (!ds::fits(*c, r)) return sdk::Status::unschedulable(share_text(r));
    return sdk::Status::ok();
  }

  double node_order(sdk::Task t, sdk::Node n) const {
    if (weight_ == 0) return 0;
    ds::Request local;
    const ds::Request& r = request_of(t, local);
    if (!r.ok()) return 0;
    // Pods without GPU: only the fragmentation policy has a view on them (the cpu they take
    // can leave the node's GPUs stranded, FGD's "lack of cpu"); binpack and spread give 0.
    if (!r.wants_gpu() && policy_ != ds::Policy::Fragmentation) return 0;
    const ds::NodeCards* c = view(n.handle());
    if (!c || c->count() == 0) return 0;
    ds::Placement p = ds::place(*c, r, policy_, mix_,
                                ds::Take(t.init_request()[0], t.init_request()[1]),
                                max_capacity());
    return p.ok ? weight_ * p.score : 0;
  }

  void on_allocate(sdk::Task t) {
    sdk::Node n = t.node();
    if (!n) return;
    const size_t idx = index_of(n.handle());
    if (idx == kNone || !view_at(idx)) return;  // a node without GPU: nothing to track
    const ds::Take take(t.init_request()[0], t.init_request()[1]);
    const cal_task_status st = t.status();
    auto held = held_.find(t.handle());
    if (held != held_.end() && held->second.held) return;  // already counted
    if (held != held_.end() && st != CAL_TASK_ALLOCATED && st != CAL_TASK_PIPELINED) {
      // An eviction undone: the pod keeps the cards it had.
      hold(own(idx), held->second, +1, take);
      return;
    }
    ds::NodeCards& c = own(idx);
    Held h;
    h.node = idx;
    ds::Request local;
    const ds::Request& r = request_of(t, local);
    if (r.ok() && r.wants_gpu()) {
      // The same choice node_order scored (the node has not changed since).
      std::vector<size_t> cards = ds::choose_cards(c, r, policy_, mix_, take);
      if (cards.empty()) {
        sdk::log(CAL_LOG_ERROR, kName,
                 std::string("task ") + std::string(t.name()) + " was placed on " +
                     std::string(n.name()) + " where no GPU card can hold it (is the "
                     "deviceshare predicate disabled?); no card recorded");
      } else {
        h.cards = cards;
        h.milli.assign(cards.size(), r.per_card_milli());
        h.memory = r.memory;
        if (CAL_HOST_HAS(sdk::host, task_set_annotation)) {
          cal_task* th = const_cast<cal_task*>(t.handle());
          sdk::host->task_set_annotation(th, kIndexAnnotation, join(cards).c_str());
          sdk::host->task_set_annotation(th, kMilliPerCardAnnotation,
                                         std::to_string(r.per_card_milli()).c_str());
        }
      }
    }
    hold(c, h, +1, take);
    held_[t.handle()] = std::move(h);
  }

  // A placement undone (the task is Pending again) or an eviction (Releasing): the cards and
  // cpu are free again for the rest of the session (the future view, as the predicate of the
  // allocate action sees releasing resources).
  void on_deallocate(sdk::Task t) {
    auto held = held_.find(t.handle());
    if (held == held_.end()) {
      // A running task of a node not built yet: building it records what each of its tasks
      // holds; then this one's is given back.
      sdk::Node n = t.node();
      const size_t idx = n ? index_of(n.handle()) : kNone;
      if (idx == kNone || !view_at(idx)) return;
      held = held_.find(t.handle());
      if (held == held_.end()) return;
    }
    if (held->second.held)
      hold(own(held->second.node), held->second, -1,
           ds::Take(t.init_request()[0], t.init_request()[1]));
    if (t.status() == CAL_TASK_PENDING) held_.erase(held);
  }

 private:
  // What a task holds on one node: cards (none for a pod without GPU) and cpu.
  struct Held {
    size_t node = 0;
    std::vector<size_t> cards;
    std::vector<int64_t> milli;  // per card
    double memory = 0;           // MiB per card
    bool held = false;           // counted in the node's state now
  };

  static void apply(ds::NodeCards& c, const Held& u, int sign) {
    for (size_t k = 0; k < u.cards.size(); ++k) {
      const size_t i = u.cards[k];
      c.used[i] += sign * u.milli[k];
      c.used_mem[i] += sign * u.memory;
      c.holders[i] += sign;
    }
  }
  static void hold(ds::NodeCards& c, Held& u, int sign, ds::Take take) {
    apply(c, u, sign);
    c.cpu_free -= sign * take.cpu;
    c.mem_free -= sign * take.memory;
    u.held = sign > 0;
  }

  // ---- requests ----

  double res(const sdk::Res& r, int32_t id) const { return id >= 0 ? r[static_cast<size_t>(id)] : 0.0; }

  // The task's request by the shared rules (gpu::parse), from its resources (milli-units)
  // and, when it asks a GPU, its models annotation.
  ds::Request parse(sdk::Task t) const {
    const sdk::Res req = t.init_request();
    gpu::Asked a;
    a.gpu = res(req, gpu_id_) / kUnits;
    a.number = res(req, number_id_) / kUnits;
    a.memory = res(req, memory_id_) / kUnits;
    a.milli = res(req, milli_id_) / kUnits;
    return gpu::parse(a, a.any() ? t.annotation(kModelsAnnotation) : nullptr);
  }

  // Parsed once per task and session on the scheduling thread (pre_predicate, allocate).
  const ds::Request& remember(sdk::Task t) {
    auto it = requests_.find(t.handle());
    if (it == requests_.end()) it = requests_.emplace(t.handle(), parse(t)).first;
    return it->second;
  }
  // Read-only lookup for the node-parallel callbacks; parses into `local` when not cached.
  const ds::Request& request_of(sdk::Task t, ds::Request& local) const {
    auto it = requests_.find(t.handle());
    if (it != requests_.end()) return it->second;
    local = parse(t);
    return local;
  }

  static std::string share_text(const ds::Request& r) {
    std::string what;
    if (r.milli > 0) what = std::to_string(r.milli) + " milli-GPU";
    if (r.memory > 0) what += (what.empty() ? "" : " and ") + fmt_num(r.memory) + " MiB of GPU memory";
    return "no GPU card can hold " + what;
  }

  // Empty when some node of the session could hold the request once idle. The walk stops at
  // the first such node (usually the first node with GPU); only a request that can never
  // be met walks every node, and reads the model labels only when it names models.
  std::string never_fits(const ds::Request& r) {
    gpu::NeverMet never(r);
    for (const cal_node* h : handles_) {
      sdk::Node n = ssn_.wrap(h);
      const gpu::NodeGpus g = gpu::node_gpus(
          res(n.allocatable(), gpu_id_) / kUnits, res(n.allocatable(), number_id_) / kUnits,
          res(n.allocatable(), memory_id_) / kUnits,
          r.models.empty() ? nullptr : n.label(kModelLabel));
      if (never.met_by(g)) return "";
    }
    return never.describe(gpu::Wording::Reason);
  }

  // ---- nodes ----
  //
  // A node's cards are built from its tasks the first time a callback needs them (most
  // nodes never reach the plugin for a given pod: the host's resource fit filters them
  // first), and belong to this session.

  static constexpr size_t kNone = static_cast<size_t>(-1);

  struct Slot {
    bool built = false;
    std::unique_ptr<ds::NodeCards> cards;  // nullptr: no GPU
  };

  void index_nodes() {
    const size_t count = ssn_.node_count();
    handles_.resize(count);
    by_handle_.resize(count);
    for (size_t i = 0; i < count; ++i) {
      handles_[i] = ssn_.node(i).handle();
      by_handle_[i] = {handles_[i], i};
    }
    std::sort(by_handle_.begin(), by_handle_.end());
    slots_.resize(count);
  }

  size_t index_of(const cal_node* n) const {
    auto it = std::lower_bound(by_handle_.begin(), by_handle_.end(),
                               std::pair<const cal_node*, size_t>(n, 0));
    return it != by_handle_.end() && it->first == n ? it->second : kNone;
  }

  double cards_of_node(sdk::Node n) const {
    return gpu::node_cards(res(n.allocatable(), gpu_id_) / kUnits,
                           res(n.allocatable(), number_id_) / kUnits);
  }

  // The node's cards for reading (built on first use); nullptr when it has no GPU.
  const ds::NodeCards* view(const cal_node* h) const {
    const size_t idx = index_of(h);
    return idx == kNone ? nullptr : view_at(idx);
  }
  const ds::NodeCards* view_at(size_t idx) const {
    std::lock_guard<std::mutex> lock(mu_);  // node-parallel callbacks may build
    Slot& s = slots_[idx];
    if (!s.built) const_cast<DeviceShare*>(this)->build(idx);
    return s.cards.get();
  }
  // The node's cards for changing (a node with GPU, built).
  ds::NodeCards& own(size_t idx) {
    view_at(idx);
    return *slots_[idx].cards;
  }

  void build(size_t idx) {
    Slot& s = slots_[idx];
    s.built = true;
    sdk::Node n = ssn_.wrap(handles_[idx]);
    const double cards = cards_of_node(n);
    if (cards < 1) return;
    s.cards = std::make_unique<ds::NodeCards>(from_tasks(n, idx, cards, n.label(kModelLabel)));
  }

  ds::NodeCards from_tasks(sdk::Node n, size_t idx, double cards, const char* model) {
    ds::NodeCards c;
    c.resize(static_cast<size_t>(cards));
    if (model) c.model = model;
    const double mem = res(n.allocatable(), memory_id_) / kUnits;
    if (mem > 0) c.mem_per_card = mem / static_cast<double>(c.count());
    c.cpu_free = n.future_idle()[0];
    c.mem_free = n.future_idle()[1];
    account_running(n, idx, c);
    return c;
  }

  // The largest node's capacity in the session (cards x 1000), the scale of the binpack and
  // spread scores; found at the first call.
  int64_t max_capacity() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (max_capacity_ < 0) {
      max_capacity_ = 0;
      for (const cal_node* h : handles_) {
        const double cards = cards_of_node(ssn_.wrap(h));
        if (cards >= 1)
          max_capacity_ =
              std::max<int64_t>(max_capacity_, static_cast<int64_t>(cards) * ds::kMilliPerCard);
      }
    }
    return max_capacity_;
  }

  // Per-card use from the tasks already on the node and their annotations. The node's cpu
  // (future idle) already counts these tasks; they are recorded so that an eviction gives
  // their cards and cpu back.
  void account_running(sdk::Node n, size_t idx, ds::NodeCards& c) {
    std::vector<std::pair<sdk::Task, ds::Request>> unassigned;
    std::vector<int64_t> index, per_card;
    const size_t tasks = n.task_count();
    for (size_t k = 0; k < tasks; ++k) {
      sdk::Task t = n.task(k);
      const cal_task_status st = t.status();
      if (st == CAL_TASK_RELEASING || st == CAL_TASK_SUCCEEDED || st == CAL_TASK_FAILED) continue;
      // Placed in this session: only the task whose on_allocate builds the node can be here
      // (every placement builds its node first), and that on_allocate counts it.
      if (st == CAL_TASK_ALLOCATED || st == CAL_TASK_PIPELINED) continue;
      Held u;
      u.node = idx;
      u.held = true;
      ds::Request r = parse(t);
      const bool asks = r.ok() && r.wants_gpu();
      // The annotations are the record of the cards a running pod holds. With an explicit
      // per-card amount they stand on their own (a record may sum several pods, as the
      // replay's merged records do); without one, the pod's own request gives the amount.
      const char* idx_text = t.annotation(kIndexAnnotation);
      const char* pc = t.annotation(kMilliPerCardAnnotation);
      bool ok = idx_text && parse_list(idx_text, index);
      if (ok) {
        if (pc)
          ok = parse_list(pc, per_card) && (per_card.size() == 1 || per_card.size() == index.size());
        else if (asks)
          per_card.assign(1, r.per_card_milli());
        else
          ok = false;
      }
      if (ok && asks) u.memory = r.memory;
      for (size_t j = 0; ok && j < index.size(); ++j) {
        const int64_t i = index[j];
        const int64_t m = per_card.size() == 1 ? per_card[0] : per_card[j];
        if (i < 0 || static_cast<size_t>(i) >= c.count() || m < 0 || m > ds::kMilliPerCard ||
            std::find(u.cards.begin(), u.cards.end(), static_cast<size_t>(i)) != u.cards.end()) {
          ok = false;
          break;
        }
        u.cards.push_back(static_cast<size_t>(i));
        u.milli.push_back(m);
      }
      if (ok) {
        apply(c, u, +1);
      } else {
        u.cards.clear();
        u.milli.clear();
        if (asks) {
          unassigned.emplace_back(t, std::move(r));
          continue;
        }
        if (idx_text)
          sdk::log(CAL_LOG_WARN, kName,
                   std::string("running task ") + std::string(t.name()) + " on " +
                       std::string(n.name()) + ": unusable " + kIndexAnnotation + " '" + idx_text +
                       "' ignored");
      }
      held_[t.handle()] = std::move(u);
    }
    // Running GPU pods without a usable assignment still use cards: give them some, the way
    // a device plugin on the node would have (first fit), so their use is never ignored.
    for (auto& [t, r] : unassigned) {
      Held u;
      u.node = idx;
      u.held = true;
      std::vector<size_t> cards = ds::choose_cards(c, r, ds::Policy::Binpack);
      if (cards.empty()) {
        sdk::log(CAL_LOG_WARN, kName,
                 std::string("running task ") + std::string(t.name()) + " on " +
                     std::string(n.name()) + " has no usable " + kIndexAnnotation +
                     " and no card has room for it");
      } else {
        u.cards = cards;
        u.milli.assign(cards.size(), r.per_card_milli());
        u.memory = r.memory;
        apply(c, u, +1);
      }
      held_[t.handle()] = std::move(u);
    }
  }

  // The pending GPU pods of the session go into the history (each counted once).
  void learn_pending(double decay, size_t keep) {
    History& h = history_;
    const size_t jobs = ssn_.job_count();
    for (size_t j = 0; j < jobs; ++j) {
      sdk::Job job = ssn_.job(j);
      if (job.status_count(CAL_TASK_PENDING) == 0) continue;
      const size_t tasks = job.task_count();
      for (size_t k = 0; k < tasks; ++k) {
        sdk::Task t = job.task(k);
        if (t.status() != CAL_TASK_PENDING) continue;
        const ds::Request& r = remember(t);
        if (!r.ok() || (r.whole == 0 && r.milli == 0)) continue;
        ShapeKey key{static_cast<int64_t>(std::llround(t.init_request()[0])),
                     r.whole > 0 ? r.whole : 1, r.per_card_milli(), "",
                     weigh_memory_ ? static_cast<int64_t>(std::llround(t.init_request()[1])) : 0};
        for (size_t i = 0; i < r.models.size(); ++i) key.models += (i ? "|" : "") + r.models[i];
        h.add(ds::pod_id(t.name()), key, decay, keep);
      }
    }
  }

  sdk::Session ssn_;
  ds::Policy policy_ = ds::Policy::Binpack;
  double weight_ = 1;
  int32_t gpu_id_ = -1, number_id_ = -1, memory_id_ = -1, milli_id_ = -1;
  std::vector<const cal_node*> handles_;                       // session order
  std::vector<std::pair<const cal_node*, size_t>> by_handle_;  // sorted, for lookups
  mutable std::vector<Slot> slots_;
  mutable std::mutex mu_;
  mutable int64_t max_capacity_ = -1;  // -1: not found yet
  std::unordered_map<const cal_task*, ds::Request> requests_;
  std::unordered_map<const cal_task*, Held> held_;
  ds::Mix mix_;
  History history_;       // fragmentation: the shape history, from and to the saved state
  bool learned_ = false;  // history_ was read and learnt from in this session
  bool weigh_memory_ = false;
};

}  // namespace

CALDERA_PLUGIN(DeviceShare)
