// Reloading the config and plugins while the scheduler runs. See reloader.hpp for the
// steps of an attempt and docs/RELOAD.md for how to use it.
//
// Volcano re-reads its config file when fsnotify reports a write or a create
// (pkg/scheduler/scheduler.go: watchSchedulerConf) and swaps it in under a mutex
// (loadSchedulerConf), keeping the old one when the new one does not parse; OpenSession
// then builds its plugins from the new tiers (pkg/scheduler/framework/framework.go).
// Caldera does the same with the whole policy (plugins included) built and tried off to
// the side first.
#include "host/reload/reloader.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "host/toml/reader.hpp"
#include "host/util/child_run.hpp"
#include "host/util/fd_io.hpp"
#include "host/util/sha256.hpp"

namespace caldera {

namespace fs = std::filesystem;

namespace {

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string short_hash(const std::string& h) { return h.substr(0, 12); }

// How long parsing a config (at most 1 MiB) may take in its trial child.
constexpr double kParseSeconds = 10;

// The config's bytes, read as every input file is (a regular file, within the config's
// size limit: host/toml/reader.hpp), twice: a file being written in place (an editor that
// pauses, a copy in progress) could otherwise publish its first half. Bytes that differ
// between the reads are refused; the watch brings the next attempt once it settles.
std::string read_text(const fs::path& p) {
  std::string first = input::read_text(p, "config", input::kMaxConfigBytes);
  std::string again = input::read_text(p, "config", input::kMaxConfigBytes);
  if (first != again)
    throw InputError(fmt::format("{}: the config changed while it was read ({} bytes, then {}); "
                                 "it is tried again once it stops changing",
                                 p.string(), first.size(), again.size()));
  return first;
}

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string dirs_text(const std::vector<fs::path>& dirs) {
  std::vector<std::string> v;
  for (const auto& d : dirs) v.push_back(d.string());
  return join(v);
}

std::string tiers_text(const SchedulerConfig& c) {
  std::string out;
  for (const auto& t : c.tiers) {
    std::vector<std::string> names;
    for (const auto& p : t.plugins) names.push_back(p.name);
    out += (out.empty() ? "" : " ") + ("[" + join(names) + "]");
  }
  return out.empty() ? "none" : out;
}

std::string period_text(double s) {
  if (s < 1) return fmt::format("{:g}ms", s * 1000);
  return fmt::format("{:g}s", s);
}

// The arguments of a plugin as comparable text (values only, not where they were written).
std::string args_text(const ArgMap& m) {
  std::string out;
  for (const auto& [k, v] : m) {
    std::string val = std::visit(
        [](const auto& x) -> std::string {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::string>)
            return "\"" + x + "\"";
          else if constexpr (std::is_same_v<T, bool>)
            return x ? "true" : "false";
          else
            return fmt::format("{}", x);
        },
        v.value);
    out += (out.empty() ? "" : ", ") + k + "=" + val;
  }
  return out;
}

// Where each configured plugin sits and how, as comparable text.
std::map<std::string, std::string> plugin_settings(const SchedulerConfig& c) {
  std::map<std::string, std::string> out;
  for (const auto& t : c.tiers)
    for (const auto& p : t.plugins)
    {
      std::vector<std::string> points;
      for (int i = 0; i < kPointCount; ++i)
        if (p.points.has(static_cast<Point>(i))) points.emplace_back(point_name(static_cast<Point>(i)));
      out[p.name] = fmt::format("points {}{}; {}", join(points), p.hierarchy ? " hierarchy" : "",
                                args_text(p.arguments));
    }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// What changed
// ---------------------------------------------------------------------------------------

std::string describe_changes(const Policy& a, const PluginCatalog& ac, const Policy& b,
                             const PluginCatalog& bc) {
  std::vector<std::string> parts;
  const SchedulerConfig& x = a.config;
  const SchedulerConfig& y = b.config;
  if (a.config_hash != b.config_hash)
    parts.push_back(fmt::format("config {} -> {}", short_hash(a.config_hash),
                                short_hash(b.config_hash)));
  if (x.actions != y.actions)
    parts.push_back(fmt::format("actions [{}] -> [{}]", join(x.actions), join(y.actions)));
  if (x.period_seconds != y.period_seconds)
    parts.push_back(fmt::format("period {} -> {}", period_text(x.period_seconds),
                                period_text(y.period_seconds)));
  if (tiers_text(x) != tiers_text(y))
    parts.push_back(fmt::format("tiers {} -> {}", tiers_text(x), tiers_text(y)));
  {
    auto sa = plugin_settings(x), sb = plugin_settings(y);
    std::vector<std::string> changed;
    for (const auto& [name, s] : sb)
      if (auto it = sa.find(name); it != sa.end() && it->second != s) changed.push_back(name);
    if (!changed.empty()) parts.push_back("settings of " + join(changed));
  }
  {
    std::map<std::string, std::string> xa, ya;
    for (const auto& [k, v] : x.action_arguments) xa[k] = args_text(v);
    for (const auto& [k, v] : y.action_arguments) ya[k] = args_text(v);
    if (xa != ya) parts.push_back("action arguments");
  }
  if (x.plugin_dirs != y.plugin_dirs)
    parts.push_back(fmt::format("plugin dirs [{}] -> [{}]", dirs_text(x.plugin_dirs),
                                dirs_text(y.plugin_dirs)));
  if (x.unload_retired_plugins != y.unload_retired_plugins)
    parts.push_back(fmt::format("unload_retired_plugins {} -> {}", x.unload_retired_plugins,
                                y.unload_retired_plugins));
  if (x.canary_timeout_seconds != y.canary_timeout_seconds ||
      x.reload_settle_seconds != y.reload_settle_seconds)
    parts.push_back("reload settings");

  std::vector<std::string> added, removed, replaced;
  for (const auto& lib : bc.plugins()) {
    auto old = ac.find(lib->info().name);
    if (!old)
      added.push_back(fmt::format("{} ({}, sha256 {})", lib->info().name,
                                  lib->info().file.string(), short_hash(lib->info().sha256)));
    else if (old.get() != lib.get())
      replaced.push_back(fmt::format("{} (sha256 {} -> {}{})", lib->info().name,
                                     short_hash(old->info().sha256),
                                     short_hash(lib->info().sha256),
                                     old->info().file != lib->info().file
                                         ? ", now " + lib->info().file.string()
                                         : std::string()));
  }
  for (const auto& lib : ac.plugins())
    if (!bc.find(lib->info().name)) removed.push_back(lib->info().name);
  // Files in the folders that do not load (another ABI, truncated, not a plugin): harmless
  // while nothing names them, but worth saying when they appear.
  std::vector<std::string> broken;
  for (const auto& f : bc.failures()) {
    bool known = false;
    for (const auto& g : ac.failures()) known = known || (g.file == f.file && g.error == f.error);
    if (!known) broken.push_back(f.error);
  }
  if (!added.empty()) parts.push_back("plugins added: " + join(added));
  if (!removed.empty()) parts.push_back("plugins removed: " + join(removed));
  if (!replaced.empty()) parts.push_back("plugins replaced: " + join(replaced));
  if (!broken.empty()) parts.push_back("files that do not load (named by nothing): " + join(broken));
  return parts.empty() ? "nothing" : join(parts, "; ");
}

// ---------------------------------------------------------------------------------------
// Reloader
// ---------------------------------------------------------------------------------------

Reloader::Reloader(uv_loop_t* loop, Options options) : loop_(loop), opt_(std::move(options)) {
  std::string text = read_text(opt_.config_file);
  std::string hash = sha256_hex(text);
  SchedulerConfig cfg = parse(text);
  catalog_ = std::make_unique<PluginCatalog>(PluginCatalog::scan(cfg.plugin_dirs));
  active_ = build_policy(cfg, *catalog_, hash);
  active_files_ = plugin_files(cfg.plugin_dirs);
  PluginFile::set_unload_on_release(cfg.unload_retired_plugins);
  stats_.active_since = wall_now();
}

Reloader::~Reloader() { close(); }

SchedulerConfig Reloader::parse(const std::string& text) const {
  // The parsers (TOML++, yaml-cpp) read bytes an operator or a ConfigMap hands over. A
  // parser bug that crashes, aborts or loops on some input must not take the scheduler
  // with it: the bytes are parsed in a child first, and parsed here only once the child
  // got through them (the parsers are deterministic: the same bytes take the same path).
  ChildRun trial = run_in_child(
      [&](int fd) {
        spdlog::set_level(spdlog::level::off);  // the parent says what there is to say
        try {
          (void)load_config_text(text, opt_.config_file, opt_.default_plugin_dirs);
        } catch (const InputError& e) {
          (void)write_all(fd, e.what());
          return 2;
        }
        return 0;
      },
      kParseSeconds, input::kMaxConfigBytes);
  if (trial.how == ChildRun::How::Exited && trial.code == 2) throw InputError(trial.output);
  if (trial.how != ChildRun::How::Exited || trial.code != 0)
    throw InputError(fmt::format(
        "{}: parsing the config {} ({} bytes, sha256 {}); the running config stays",
        opt_.config_file.string(),
        trial.how == ChildRun::How::Signaled ? "crashed the parser with " + trial.ending()
        : trial.how == ChildRun::How::TimedOut
            ? fmt::format("took more than {:g}s", kParseSeconds)
            : "failed: the parsing process " + trial.ending(),
        text.size(), short_hash(sha256_hex(text))));
  SchedulerConfig cfg = load_config_text(text, opt_.config_file, opt_.default_plugin_dirs);
  if (!opt_.override_plugin_dirs.empty()) cfg.plugin_dirs = opt_.override_plugin_dirs;
  if (opt_.override_config) opt_.override_config(cfg);
  return cfg;
}

void Reloader::start() {
  trial_ = std::make_unique<SessionWorker>(loop_);
  watcher_ = std::make_unique<ReloadWatcher>(
      loop_, opt_.config_file, active_->config.reload_settle_seconds,
      [this](const std::string& what, double first_event_at) { trigger(what, first_event_at); });
  watcher_->watch_plugin_dirs(active_->config.plugin_dirs);
}

void Reloader::close() {
  if (closed_) return;
  closed_ = true;
  if (watcher_) watcher_->close();
  if (trial_) trial_->close();
}

size_t Reloader::retired_alive() const {
  size_t n = 0;
  for (const auto& w : retired_)
    if (!w.expired()) ++n;
  return n;
}

std::vector<fs::path> Reloader::watched_dirs() const {
  return watcher_ ? watcher_->watched() : std::vector<fs::path>{};
}

void Reloader::session_done(const std::shared_ptr<const Policy>& used, double wall_time) {
  if (used == active_ && stats_.first_session_at == 0) stats_.first_session_at = wall_time;
  // Forget retired policies that are gone.
  retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                [](const auto& w) { return w.expired(); }),
                 retired_.end());
}

void Reloader::trigger(const std::string& why, double noticed_at) {
  if (closed_) return;
  if (noticed_at == 0) noticed_at = wall_now();
  if (trial_running()) {
    // One more attempt after this one; it will see every change made meanwhile.
    if (!queued_) queued_noticed_ = noticed_at;
    queued_ = true;
    if (queued_why_.find(why) == std::string::npos)
      queued_why_ += (queued_why_.empty() ? "" : ", ") + why;
    return;
  }
  attempt(why, noticed_at);
}

void Reloader::run_queued() {
  if (!queued_ || closed_) return;
  queued_ = false;
  std::string why = std::move(queued_why_);
  queued_why_.clear();
  attempt(why, queued_noticed_);
}

void Reloader::attempt(const std::string& why, double noticed_at) {
  Candidate c;
  ReloadRecord& rec = c.rec;
  rec.attempt = ++stats_.attempts;
  rec.trigger = why;
  rec.noticed_at = noticed_at;
  rec.started_at = wall_now();

  std::string text;
  try {
    text = read_text(opt_.config_file);
    rec.config_hash = sha256_hex(text);
    c.config = parse(text);
  } catch (const InputError& e) {
    refuse(rec, e.what());
    return;
  }

  std::map<std::string, FileStamp> files = plugin_files(c.config.plugin_dirs);
  if (rec.config_hash == active_->config_hash &&
      c.config.plugin_dirs == active_->config.plugin_dirs && files == active_files_) {
    rec.changes = "nothing";
    finish(rec, "unchanged");
    return;
  }

  // Watch the folders the new config names as well, from now on: a plugin it misses may
  // be dropped there next, and that must trigger the next attempt.
  if (watcher_) {
    std::vector<fs::path> dirs = active_->config.plugin_dirs;
    for (const auto& d : c.config.plugin_dirs)
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    watcher_->watch_plugin_dirs(dirs);
  }

  {
    std::vector<std::string> s;
    std::vector<std::string> before = active_->config.plugin_names();
    for (const auto& name : c.config.plugin_names())
      if (std::find(before.begin(), before.end(), name) == before.end())
        s.push_back("plugin " + name + " newly in the policy");
    for (const auto& [path, stamp] : files) {
      auto it = active_files_.find(path);
      if (it == active_files_.end())
        s.push_back("new file " + path);
      else if (!(it->second == stamp))
        s.push_back("changed file " + path);
    }
    c.suspects = join(s);
  }
  // Plugin files, the policy: built here (no plugin code runs in this process: files are
  // inspected, and arguments checked, in children).
  std::unique_ptr<PluginCatalog> catalog;
  std::shared_ptr<const Policy> policy;
  try {
    catalog = std::make_unique<PluginCatalog>(PluginCatalog::scan(c.config.plugin_dirs, catalog_.get()));
    policy = build_policy(c.config, *catalog, rec.config_hash);
  } catch (const InputError& e) {
    refuse(rec, e.what());
    return;
  }

  // The trial: one session of the new policy on the live cache, in a session worker as
  // every session runs (host/supervisor/), its decisions thrown away.
  spdlog::info("reload #{} ({}): trying config {} in a trial session (timeout {}s)", rec.attempt,
               rec.trigger, short_hash(rec.config_hash), c.config.canary_timeout_seconds);
  c.policy = policy;
  c.catalog = std::move(catalog);
  c.files = std::move(files);
  candidate_ = std::move(c);
  WorkerLimits limits = WorkerLimits::of(candidate_->config);
  limits.timeout_seconds = candidate_->config.canary_timeout_seconds;
  limits.timeout_name = "canary_timeout";
  trial_->start(opt_.cache(), std::move(policy), opt_.now(), trial_runtime_, limits,
                [this](WorkerOutcome o) { on_trial(std::move(o)); });
}

void Reloader::on_trial(WorkerOutcome outcome) {
  if (!candidate_) return;
  Candidate c = std::move(*candidate_);
  candidate_.reset();
  ReloadRecord& rec = c.rec;
  rec.trial_seconds = outcome.seconds;
  if (!outcome.ok) {
    std::string why = "the trial session failed: " + outcome.fault.text();
    // A fault with no plugin named by the breadcrumbs: say what this attempt brought in.
    if (outcome.fault.plugin.empty() && !c.suspects.empty())
      why += "; new since the running policy: " + c.suspects;
    refuse(rec, why);
    run_queued();
    return;
  }
  const WorkerResult& r = outcome.result;
  if (r.errors_logged > 0) {
    std::string first;
    for (const auto& e : r.first_errors) first += (first.empty() ? "" : "; ") + e;
    refuse(rec, fmt::format("the trial session logged {} plugin error(s): {}", r.errors_logged,
                            first.empty() ? "(no text)" : first));
    run_queued();
    return;
  }
  rec.trial = fmt::format("{} binds, {} pending in {:.0f} ms", r.result.binds.size(),
                          r.result.pending.size(), outcome.seconds * 1000);
  publish(c, c.policy, std::move(c.catalog), std::move(c.files));
  run_queued();
}

void Reloader::publish(Candidate& c, std::shared_ptr<const Policy> policy,
                       std::unique_ptr<PluginCatalog> catalog,
                       std::map<std::string, FileStamp> files) {
  ReloadRecord& rec = c.rec;
  rec.changes = describe_changes(*active_, *catalog_, *policy, *catalog);
  // The new setting governs the libraries retired from here on, this swap's included.
  PluginFile::set_unload_on_release(policy->config.unload_retired_plugins);
  retired_.push_back(active_);
  active_ = std::move(policy);
  catalog_ = std::move(catalog);  // the old catalog goes: unshared libraries are released
  active_files_ = std::move(files);
  stats_.active_since = wall_now();
  stats_.first_session_at = 0;
  if (watcher_) {
    watcher_->set_settle(active_->config.reload_settle_seconds);
    watcher_->watch_plugin_dirs(active_->config.plugin_dirs);
  }
  finish(rec, "accepted");
}

void Reloader::refuse(ReloadRecord& rec, const std::string& why) {
  rec.reason = why;
  finish(rec, "refused");
}

void Reloader::finish(ReloadRecord& rec, const std::string& result) {
  rec.result = result;
  rec.finished_at = wall_now();
  double ms = (rec.finished_at - rec.started_at) * 1000;
  if (result == "accepted") {
    ++stats_.accepted;
    spdlog::info("reload #{} ({}): accepted in {:.0f} ms: {} (trial session: {})",
                 rec.attempt, rec.trigger, ms, rec.changes, rec.trial);
  } else if (result == "unchanged") {
    ++stats_.unchanged;
    spdlog::info("reload #{} ({}): nothing changed (config {}, {} plugin files as loaded)",
                 rec.attempt, rec.trigger, short_hash(active_->config_hash),
                 active_files_.size());
  } else {
    ++stats_.refused;
    spdlog::error("reload #{} ({}): refused: {}; still running config {}", rec.attempt,
                  rec.trigger, rec.reason, short_hash(active_->config_hash));
    stats_.last_error = rec;
  }
  stats_.last = rec;
  if (opt_.after_attempt) opt_.after_attempt();
}

}  // namespace caldera
