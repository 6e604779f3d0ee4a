// The session: its life from open to close. Session::open copies the cache (snapshot.cpp)
// and opens the plugin instances tier by tier; close() closes them and returns what the
// session decided, with the job status at close (job_status.cpp). The other parts of the
// session are in files of their own: the dispatch of the extension points (dispatch.cpp,
// node_dispatch.cpp) and the state changes statements make (task_changes.cpp). The plugin
// states carried from one session to the next (state_get / state_put) are read at open and
// collected at close, here.
// Follows Volcano's pkg/scheduler/framework/session.go (openSession, closeSession) and
// framework.go (OpenSession, CloseSession).
#include "host/session/session.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>

#include "host/session/breadcrumb.hpp"
#include "host/session/host_api.hpp"
#include "host/session/image_book.hpp"
#include "host/session/runtime.hpp"

namespace caldera {

namespace {

const Args& empty_args() {
  static const Args a;
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// PluginCode::resident
// ---------------------------------------------------------------------------------------

namespace {
class ResidentCode final : public PluginCode {
 public:
  explicit ResidentCode(const cal_plugin* d) : d_(d) {}
  const cal_plugin* descriptor() const override { return d_; }

 private:
  const cal_plugin* d_;
};
}  // namespace

std::shared_ptr<const PluginCode> PluginCode::resident(const cal_plugin* d) {
  return std::make_shared<ResidentCode>(d);
}

// ---------------------------------------------------------------------------------------
// open
// ---------------------------------------------------------------------------------------

Session::Session() = default;

std::unique_ptr<Session> Session::open(const Cache& cache, std::shared_ptr<const Policy> policy,
                                       double now, Runtime& runtime) {
  std::unique_ptr<Session> s(new Session());
  s->policy_ = std::move(policy);
  s->build(cache);
  return open(std::move(s), cache, now, runtime);
}

std::unique_ptr<Session> Session::open(std::unique_ptr<Session> s, const Cache& cache, double now,
                                       Runtime& runtime) {
  reset_plugin_log_budget();
  s->runtime_ = &runtime;
  s->now_ = now;
  s->carried_ = &runtime.plugin_states();
  s->open_rest(cache);

  // Open the plugin instances, tier by tier (Volcano's OnSessionOpen order).
  Crumb* crumb = my_crumb();
  int32_t index = 0;
  for (const auto& tier : s->policy_->tiers) {
    std::vector<Instance> instances;
    for (const auto& cp : tier) {
      const int32_t at = index++;
      cal_code code = CAL_SUCCESS;
      cal_status st{};
      st.struct_size = sizeof st;
      s->calling_ = &cp;
      const cal_plugin* desc;
      {
        // The code's first use in this process loads it: its constructors and entry point
        // are the plugin's as much as open() is.
        CrumbScope in_plugin(crumb, at, kCrumbLoad);
        desc = cp.code->descriptor();
      }
      void* self;
      {
        CrumbScope in_plugin(crumb, at, kCrumbOpen);
        const auto t0 = std::chrono::steady_clock::now();
        self = desc->open(to_handle(s.get()), reinterpret_cast<const cal_args*>(cp.args.get()),
                             &code, &st);
        s->result_.stats.plugin_seconds.push_back(
            {cp.name, "OnSessionOpen", seconds_since(t0)});
      }
      s->calling_ = nullptr;
      if (code != CAL_SUCCESS) {
        s->saved_.erase(cp.name);  // what a failed open() saved goes with it
        spdlog::error("plugin {}: open failed ({}); this session runs without it", cp.name,
                      st.reason[0] ? st.reason : "no reason given");
        continue;
      }
      instances.push_back(Instance{&cp, desc, self, at});
    }
    s->tiers_.push_back(std::move(instances));
  }
  s->flatten_chains();
  return s;
}

Session::~Session() {
  if (!closed_) {
    // A session dropped without close() still closes its plugin instances (what they save
    // goes nowhere: there is no result). While an exception unwinds the session, the
    // crumbs stay on the plugin it came from.
    Crumb* crumb = std::uncaught_exceptions() > 0 ? nullptr : my_crumb();
    for (auto& tier : tiers_)
      for (auto& in : tier) {
        calling_ = in.plugin;
        if (in.desc->close) {
          CrumbScope in_plugin(crumb, in.index, kCrumbClose);
          in.desc->close(in.self);
        }
        calling_ = nullptr;
      }
  }
}

// ---------------------------------------------------------------------------------------
// lookups
// ---------------------------------------------------------------------------------------

int Session::resource_id(const std::string& name) const {
  auto it = resource_ids_.find(name);
  return it == resource_ids_.end() ? -1 : it->second;
}
JobInfo* Session::job(const std::string& uid) const {
  auto it = job_by_uid_.find(uid);
  return it == job_by_uid_.end() ? nullptr : it->second;
}
NodeInfo* Session::node(const std::string& name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? nullptr : it->second;
}
QueueInfo* Session::queue(const std::string& name) const {
  auto it = queue_by_name_.find(name);
  return it == queue_by_name_.end() ? nullptr : it->second;
}
const Args& Session::action_args(const std::string& action) const {
  auto it = action_args_.find(action);
  return it == action_args_.end() ? empty_args() : it->second;
}

// ---------------------------------------------------------------------------------------
// phases and pending reasons
// ---------------------------------------------------------------------------------------

void Session::set_job_phase(JobInfo* j, JobPhase p) { j->phase = p; }

void Session::set_fit_error(TaskInfo* t, std::string reason,
                            std::vector<uint32_t> unresolvable_nodes) {
  t->fit_error = std::move(reason);
  t->unresolvable_nodes = std::move(unresolvable_nodes);
}

std::vector<NodeInfo*> Session::nodes_not_unresolvable(const TaskInfo* t) const {
  if (t->unresolvable_nodes.empty()) return node_list_;
  std::vector<char> skip(node_list_.size(), 0);
  for (uint32_t i : t->unresolvable_nodes) skip[i] = 1;
  std::vector<NodeInfo*> out;
  out.reserve(node_list_.size());
  for (NodeInfo* n : node_list_)
    if (!skip[n->index]) out.push_back(n);
  return out;
}

void Session::set_job_pending_reason(JobInfo* j, const std::string& plugin, std::string reason) {
  j->pending_reasons[plugin] = std::move(reason);
  if (closing_) j->unschedulable = true;
}

void Session::set_job_condition(JobInfo* j, const std::string& plugin, std::string message) {
  j->condition_message = message;
  set_job_pending_reason(j, plugin, std::move(message));
}

void Session::set_queue_fair_share(const QueueInfo& q, const std::string& plugin,
                                   const double* deserved, double share) {
  SessionStats::FairShare& f = result_.stats.fair_shares[q.name];
  f.plugin = plugin;
  f.has_deserved = deserved != nullptr;
  f.deserved.clear();
  if (deserved)
    for (size_t r = 0; r < resource_names_.size(); ++r) f.deserved[resource_names_[r]] = deserved[r];
  f.share = share;
}

int32_t Session::job_schedulable_num(const JobInfo& j) const {
  int32_t n = j.ready_num();
  for (const TaskInfo* t : j.tasks)
    if (t->status == CAL_TASK_PENDING && t->last_tx.set && allocated_status(t->last_tx.status))
      ++n;
  return n;
}

// ---------------------------------------------------------------------------------------
// close
// ---------------------------------------------------------------------------------------

SessionResult Session::close() {
  // Plugins first (Volcano's OnSessionClose), while the session is still readable.
  closing_ = true;
  Crumb* crumb = my_crumb();
  for (auto& tier : tiers_)
    for (auto& in : tier) {
      calling_ = in.plugin;
      if (in.desc->close) {
        CrumbScope in_plugin(crumb, in.index, kCrumbClose);
        const auto t0 = std::chrono::steady_clock::now();
        in.desc->close(in.self);
        result_.stats.plugin_seconds.push_back(
            {in.plugin->name, "OnSessionClose", seconds_since(t0)});
      }
      calling_ = nullptr;
    }
  closed_ = true;
  if (const size_t dropped = plugin_log_dropped())
    spdlog::warn("plugin log limit: {} plugin log line(s) of this session dropped", dropped);

  // The states for the next session: every plugin of the policy (opened or not) keeps what
  // it saved now, else what it had from the same file; plugins not in the policy have none.
  for (const auto& tier : policy_->tiers)
    for (const ConfiguredPlugin& cp : tier) {
      if (auto it = saved_.find(cp.name); it != saved_.end()) {
        if (!it->second->empty())
          result_.plugin_states[cp.name] = PluginState{cp.file_id, it->second};
      } else if (carried_) {
        auto c = carried_->find(cp.name);
        if (c != carried_->end() && c->second.file_id == cp.file_id)
          result_.plugin_states[cp.name] = c->second;
      }
    }

  update_job_status();
  result_.top_scores = std::move(top_scores_);
  return std::move(result_);
}

// ---------------------------------------------------------------------------------------
// plugin states (host API state_get / state_put)
// ---------------------------------------------------------------------------------------

const void* Session::plugin_state_get(size_t* size) const {
  if (size) *size = 0;
  if (!calling_) {
    spdlog::error("a plugin called state_get outside its open() and close(); it gets nothing");
    return nullptr;
  }
  if (!carried_) return nullptr;
  auto it = carried_->find(calling_->name);
  if (it == carried_->end() || it->second.file_id != calling_->file_id ||
      it->second.bytes->empty())
    return nullptr;
  if (size) *size = it->second.bytes->size();
  return it->second.bytes->data();
}

int Session::plugin_state_put(const void* bytes, size_t size) {
  if (!calling_) {
    spdlog::error("a plugin called state_put outside its open() and close(); nothing is saved");
    return -1;
  }
  if (size > CAL_STATE_MAX) {
    spdlog::error("plugin {}: state_put of {} bytes refused: at most {} (CAL_STATE_MAX); the "
                  "state saved before stays",
                  calling_->name, size, CAL_STATE_MAX);
    return -1;
  }
  if (!bytes && size > 0) {
    spdlog::error("plugin {}: state_put of {} bytes from NULL refused", calling_->name, size);
    return -1;
  }
  saved_[calling_->name] = std::make_shared<const std::string>(
      size ? std::string(static_cast<const char*>(bytes), size) : std::string());
  return 0;
}

}  // namespace caldera
