// Watching the config and the plugin folders for the reloader. See watcher.hpp.
#include "host/reload/watcher.hpp"

#include <chrono>
#include <cmath>
#include <set>

#include <spdlog/spdlog.h>

namespace caldera {

namespace fs = std::filesystem;

struct ReloadWatcher::Watch {
  uv_fs_event_t handle;
  ReloadWatcher* owner = nullptr;  // null once closing: late events are dropped
  fs::path dir;
  bool config = false;   // the config file lives here (or one of its symlinks does)
  bool plugins = false;  // a plugin folder
  std::set<std::string> targets;  // files here that a plugin folder's links point to
};

ReloadWatcher::ReloadWatcher(uv_loop_t* loop, fs::path config_file, double settle_seconds,
                             OnChange on_change)
    : loop_(loop),
      config_(fs::absolute(config_file).lexically_normal()),
      settle_(settle_seconds),
      on_change_(std::move(on_change)) {
  settle_timer_ = new uv_timer_t;
  uv_timer_init(loop_, settle_timer_);
  settle_timer_->data = this;
  config_id_ = identify();
  rewatch();
}

ReloadWatcher::~ReloadWatcher() { close(); }

void ReloadWatcher::close() {
  if (closed_) return;
  closed_ = true;
  for (auto& [dir, w] : watches_) {
    w->owner = nullptr;
    uv_fs_event_stop(&w->handle);
    uv_close(reinterpret_cast<uv_handle_t*>(&w->handle),
             [](uv_handle_t* h) { delete static_cast<Watch*>(h->data); });
  }
  watches_.clear();
  uv_timer_stop(settle_timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(settle_timer_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  settle_timer_ = nullptr;
}

ReloadWatcher::ConfigIdentity ReloadWatcher::identify() const {
  ConfigIdentity id;
  std::error_code ec;
  fs::path target = fs::canonical(config_, ec);
  if (ec) return id;  // missing (mid-swap) or a dangling link: "does not exist"
  id.target = target.string();
  const std::optional<FileStamp> stamp = file_stamp(target);
  if (!stamp) return id;
  id.exists = true;
  id.stamp = *stamp;
  return id;
}

void ReloadWatcher::watch_plugin_dirs(const std::vector<fs::path>& dirs) {
  plugin_dirs_ = dirs;
  rewatch();
}

std::vector<fs::path> ReloadWatcher::watched() const {
  std::vector<fs::path> out;
  for (const auto& [dir, w] : watches_) out.push_back(dir);
  return out;
}

void ReloadWatcher::rewatch() {
  if (closed_) return;
  // What should be watched, and in which role.
  struct Roles {
    bool config = false, plugins = false;
    std::set<std::string> targets;
  };
  std::map<fs::path, Roles> want;
  want[config_.parent_path()].config = true;
  if (!config_id_.target.empty()) want[fs::path(config_id_.target).parent_path()].config = true;
  for (const fs::path& d : plugin_dirs_) {
    want[fs::absolute(d).lexically_normal()].plugins = true;
    // A plugin file that is a link: a new build written where it points (a deploy tool's
    // "current" link, a shared build folder) is a change too, so its target's folder is
    // watched for that name. Links added later are found when the next reload rewatches.
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      std::error_code lec;
      if (p.extension() != ".so" || !fs::is_symlink(p, lec)) continue;
      const fs::path target = fs::canonical(p, lec);
      if (!lec) want[target.parent_path()].targets.insert(target.filename().string());
    }
  }

  for (auto it = watches_.begin(); it != watches_.end();) {
    if (want.count(it->first)) {
      ++it;
      continue;
    }
    Watch* w = it->second;
    w->owner = nullptr;
    uv_fs_event_stop(&w->handle);
    uv_close(reinterpret_cast<uv_handle_t*>(&w->handle),
             [](uv_handle_t* h) { delete static_cast<Watch*>(h->data); });
    it = watches_.erase(it);
  }
  for (const auto& [dir, roles] : want) {
    auto it = watches_.find(dir);
    if (it != watches_.end()) {
      it->second->config = roles.config;
      it->second->plugins = roles.plugins;
      it->second->targets = roles.targets;
      continue;
    }
    auto* w = new Watch;
    w->owner = this;
    w->dir = dir;
    w->config = roles.config;
    w->plugins = roles.plugins;
    w->targets = roles.targets;
    uv_fs_event_init(loop_, &w->handle);
    w->handle.data = w;
    int rc = uv_fs_event_start(&w->handle, on_fs_event, dir.c_str(), 0);
    if (rc != 0) {
      // Not fatal: a reload by SIGHUP still works, and the next reload attempt (which
      // rewatches) may find the folder.
      spdlog::warn("reload: cannot watch {}: {}; changes there are noticed on SIGHUP only",
                   dir.string(), uv_strerror(rc));
      uv_close(reinterpret_cast<uv_handle_t*>(&w->handle),
               [](uv_handle_t* h) { delete static_cast<Watch*>(h->data); });
      continue;
    }
    spdlog::debug("reload: watching {} ({}{}{}{})", dir.string(), roles.config ? "config " : "",
                  roles.plugins ? "plugins " : "", roles.targets.empty() ? "" : "link targets ",
                  "");
    watches_[dir] = w;
  }
}

void ReloadWatcher::on_fs_event(uv_fs_event_t* h, const char* name, int events, int status) {
  auto* w = static_cast<Watch*>(h->data);
  if (w && w->owner) w->owner->on_event(w, name, events, status);
}

void ReloadWatcher::on_event(Watch* w, const char* name, int events, int status) {
  (void)events;
  if (status < 0) {
    spdlog::warn("reload: watching {} failed: {}", w->dir.string(), uv_strerror(status));
    return;
  }
  const std::string n = name ? name : "";
  // Copy what is needed: rewatch() below may close this watch.
  const fs::path dir = w->dir;
  const bool plugins = w->plugins;
  const bool target = w->targets.count(n) > 0;
  if (w->config) {
    ConfigIdentity id = identify();
    bool named = !n.empty() && n == config_.filename().string();
    if (id != config_id_ || named) {
      bool moved = id.target != config_id_.target;
      config_id_ = id;
      note("config " + config_.string());
      // The link now points into another folder (a ConfigMap's new ..data): watch it.
      if (moved) rewatch();
    }
  }
  if (plugins && n.size() > 3 && n.compare(n.size() - 3, 3, ".so") == 0)
    note("plugin " + (dir / n).string());
  else if (target)
    note("plugin " + (dir / n).string() + " (a link's target)");
}

void ReloadWatcher::note(const std::string& what) {
  if (closed_) return;
  if (pending_.empty())
    first_event_at_ = std::chrono::duration<double>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  pending_.insert(what);
  uint64_t ms = static_cast<uint64_t>(std::llround(std::max(0.0, settle_) * 1000.0));
  uv_timer_start(settle_timer_, on_settled, ms, 0);  // restarts the quiet period
}

void ReloadWatcher::on_settled(uv_timer_t* t) {
  auto* self = static_cast<ReloadWatcher*>(t->data);
  if (!self || self->closed_ || self->pending_.empty()) return;
  std::string what;
  for (const auto& p : self->pending_) what += (what.empty() ? "" : ", ") + p;
  self->pending_.clear();
  self->on_change_(what, self->first_event_at_);
}

}  // namespace caldera
