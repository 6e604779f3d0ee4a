// List + watch, after client-go's tools/cache/reflector.go (ListAndWatch, watchHandler,
// the 410 handling of isExpiredError / isTooLargeResourceVersionError) and pager.go (paged
// lists, restarting from scratch when a continue token expires).
#include "host/backend/kubernetes/informer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <random>

#include "host/util/url_escape.hpp"

namespace caldera::k8s {

namespace {

uint64_t now_ms() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// The longest watch line (one event, one object) taken.
constexpr size_t kMaxWatchLine = 16u << 20;

double jitter() {
  static thread_local std::mt19937 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

}  // namespace

Informer::Informer(uv_loop_t* loop, HttpClient& http, InformerOptions opts, Handler& handler)
    : loop_(loop), http_(http), opts_(std::move(opts)), handler_(handler) {
  uv_timer_init(loop_, &timer_);
  timer_.data = this;
}

Informer::~Informer() = default;

void Informer::start() {
  started_ms_ = now_ms();
  restart_list();
}

void Informer::stop(std::function<void()> closed) {
  stopping_ = true;
  closed_ = std::move(closed);
  if (request_) http_.cancel(request_);
  request_ = 0;
  uv_timer_stop(&timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), [](uv_handle_t* h) {
    auto* self = static_cast<Informer*>(h->data);
    if (self->closed_) self->closed_();
  });
}

double Informer::next_backoff() {
  // client-go's reflector: 800 ms doubling up to 30 s, jitter 1.0 (up to twice the step).
  backoff_ = backoff_ <= 0 ? 0.8 : std::min(backoff_ * 2, opts_.max_backoff);
  return backoff_ * (1.0 + jitter());
}

void Informer::retry_later(double retry_after, void (Informer::*what)()) {
  if (stopping_) return;
  double delay = std::max(next_backoff(), retry_after);
  timer_action_ = what;
  uv_timer_start(
      &timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<Informer*>(t->data);
        if (!self->stopping_ && self->timer_action_) (self->*(self->timer_action_))();
      },
      static_cast<uint64_t>(delay * 1000), 0);
}

void Informer::list_page(const std::string& cont) {
  if (stopping_) return;
  if (cont.empty()) {
    handler_.list_begin(opts_.name);
    items_in_list_ = 0;
    // client-go's relistResourceVersion: "0" before any list (any version the API server's
    // watch cache holds), then the last version seen (at least as new: no going back in
    // time), and "" (a consistent read from etcd) once that version is gone.
    list_rv_ = opts_.page_size > 0 || rv_unavailable_ ? "" : rv_.empty() ? "0" : rv_;
  }
  constexpr int kDefaultPage = 500;  // client-go's pager; the watch cache ignores it
  const int page = opts_.page_size > 0 ? opts_.page_size : kDefaultPage;
  HttpRequest req;
  if (!cont.empty())
    req.path = fmt::format("{}?limit={}&continue={}", opts_.path, page, url_escape(cont));
  else if (list_rv_.empty())
    req.path = fmt::format("{}?limit={}", opts_.path, page);
  else if (list_rv_ == "0")
    req.path = fmt::format("{}?resourceVersion=0&limit={}", opts_.path, page);
  else  // no limit: a limit with a version would send the list to etcd (client-go's reason)
    req.path = fmt::format("{}?resourceVersion={}", opts_.path, url_escape(list_rv_));
  req.timeout_ms = 120000;
  request_ = http_.send(std::move(req),
                        [this, cont](HttpResponse&& r) { on_list(std::move(r), cont); });
}

void Informer::on_list(HttpResponse&& r, const std::string& cont) {
  request_ = 0;
  if (stopping_) return;
  if (r.status == 410 && !cont.empty()) {
    // The continue token expired (the list took longer than etcd keeps history): start
    // over, as client-go's pager does.
    spdlog::info("kubernetes: {}: list continuation expired; listing again from the start",
                 opts_.name);
    restart_list();
    return;
  }
  if (r.status == 404 && opts_.optional) {
    if (!absent_)
      spdlog::info("kubernetes: {} are not served by this cluster; going on without them",
                   opts_.name);
    absent_ = true;
    handler_.list_end(opts_.name);  // nothing listed: nothing of this kind exists
    listed_ = healthy_ = true;
    timer_action_ = &Informer::restart_list;
    uv_timer_start(
        &timer_,
        [](uv_timer_t* t) {
          auto* self = static_cast<Informer*>(t->data);
          if (!self->stopping_) self->restart_list();
        },
        60000, 0);
    return;
  }
  if (!r.ok() && cont.empty() && !list_rv_.empty() && list_rv_ != "0" &&
      (r.status == 410 || r.status == 504)) {
    // Too old (410 Gone) or newer than this server has seen (504, "Too large resource
    // version"): the next list reads etcd (client-go: isExpiredError,
    // isTooLargeResourceVersionError).
    rv_unavailable_ = true;
  }
  if (!r.ok()) {
    ++stats_.errors;
    // A resource the server does not serve at all: most likely a CRD that is not installed.
    std::string hint = r.status == 404 ? " (is its CustomResourceDefinition installed? see "
                                         "deploy/crds.yaml)"
                                       : "";
    if (healthy_ || !listed_)
      spdlog::warn("kubernetes: listing {} failed: {}{}; retrying", opts_.name, r.describe(), hint);
    else
      spdlog::debug("kubernetes: listing {} failed: {}; retrying", opts_.name, r.describe());
    healthy_ = false;
    retry_later(r.retry_after, &Informer::restart_list);
    return;
  }
  json body = parse_server_json(r.body);
  if (!body.is_object() || !body.contains("items") ||
      !(body["items"].is_array() || body["items"].is_null())) {
    ++stats_.errors;
    spdlog::error("kubernetes: listing {}: the answer is not a list object; retrying",
                  opts_.name);
    healthy_ = false;
    retry_later(-1, &Informer::restart_list);
    return;
  }
  absent_ = false;
  if (body["items"].is_array()) {
    for (const json& item : body["items"]) {
      ++items_in_list_;
      handler_.list_item(opts_.name, item);
    }
  }
  std::string next, rv;
  if (auto md = body.find("metadata"); md != body.end() && md->is_object()) {
    if (auto c = md->find("continue"); c != md->end() && c->is_string()) next = c->get<std::string>();
    if (auto v = md->find("resourceVersion"); v != md->end() && v->is_string())
      rv = v->get<std::string>();
  }
  if (!next.empty()) {
    list_page(next);
    return;
  }
  handler_.list_end(opts_.name);
  ++stats_.lists;
  if (stats_.first_sync_seconds < 0) {
    stats_.first_sync_seconds = static_cast<double>(now_ms() - started_ms_) / 1000.0;
    spdlog::info("kubernetes: {} synced: {} objects in {:.2f}s", opts_.name, items_in_list_,
                 stats_.first_sync_seconds);
  } else {
    spdlog::info("kubernetes: {} listed again: {} objects", opts_.name, items_in_list_);
  }
  rv_ = rv;
  rv_unavailable_ = false;
  listed_ = true;
  healthy_ = true;
  backoff_ = 0;
  watch();
}

void Informer::relist(const char* why) {
  if (stopping_) return;
  ++stats_.relists_gone;
  spdlog::info("kubernetes: {}: {}; listing again", opts_.name, why);
  // What the cache holds may miss deletions until the list is complete: no session until
  // then (a session could bind to a node that no longer exists).
  healthy_ = false;
  if (request_) http_.cancel(request_);
  request_ = 0;
  watch_gone_ = false;
  buffer_.clear();
  restart_list();
}

void Informer::watch() {
  if (stopping_) return;
  if (rv_.empty()) {
    restart_list();
    return;
  }
  int span = std::max(0, opts_.watch_timeout_max - opts_.watch_timeout_min);
  int timeout = opts_.watch_timeout_min + static_cast<int>(jitter() * span);
  HttpRequest req;
  req.path = fmt::format("{}?watch=1&allowWatchBookmarks=true&resourceVersion={}&timeoutSeconds={}",
                         opts_.path, url_escape(rv_), timeout);
  req.timeout_ms = (static_cast<long>(timeout) + 60) * 1000;
  req.may_be_silent = true;
  buffer_.clear();
  watch_gone_ = false;
  ++stats_.watches;
  request_ = http_.send(
      std::move(req), [this](HttpResponse&& r) { on_watch_done(std::move(r)); },
      [this](std::string_view chunk) { on_watch_data(chunk); },
      [this](long status) {
        if (status >= 200 && status < 300) {
          if (!healthy_) spdlog::info("kubernetes: {}: watching again", opts_.name);
          healthy_ = true;
          backoff_ = 0;
        }
      });
}

void Informer::on_watch_data(std::string_view chunk) {
  buffer_.append(chunk.data(), chunk.size());
  size_t start = 0;
  while (request_ != 0 && !stopping_) {
    size_t nl = buffer_.find('\n', start);
    if (nl == std::string::npos) break;
    std::string_view line(buffer_.data() + start, nl - start);
    start = nl + 1;
    if (line.empty() || line == "\r") continue;
    json ev = parse_server_json(line);
    if (!ev.is_object() || !ev.contains("type") || !ev["type"].is_string() ||
        !ev.contains("object")) {
      spdlog::warn("kubernetes: {}: a watch event that is not an event object; skipped",
                   opts_.name);
      continue;
    }
    const std::string type = ev["type"].get<std::string>();
    const json& obj = ev["object"];
    if (type == "ERROR") {
      long code = obj.is_object() && obj.contains("code") && obj["code"].is_number_integer()
                      ? obj["code"].get<long>()
                      : 0;
      std::string msg = obj.is_object() && obj.contains("message") && obj["message"].is_string()
                            ? obj["message"].get<std::string>()
                            : obj.dump();
      http_.cancel(request_);
      request_ = 0;
      // The watch is down from here: no session until it is back (410: until the relist is
      // complete; the watch said 200 first, which set healthy_).
      healthy_ = false;
      if (code == 410) {
        // Deferred to a fresh turn of the loop: we are inside curl's write callback.
        timer_action_ = nullptr;
        uv_timer_start(
            &timer_,
            [](uv_timer_t* t) {
              auto* self = static_cast<Informer*>(t->data);
              if (!self->stopping_) self->relist("watch: 410 Gone (resourceVersion too old)");
            },
            // With backoff: a server that answers 410 to every watch is not relisted in a
            // tight loop (client-go's reflector backs off the same way).
            static_cast<uint64_t>(next_backoff() * 1000), 0);
      } else {
        ++stats_.errors;
        spdlog::warn("kubernetes: {}: watch error {}: {}; resuming", opts_.name, code, msg);
        retry_later(-1, &Informer::watch);
      }
      break;
    }
    std::string rv;
    if (obj.is_object()) {
      if (auto md = obj.find("metadata"); md != obj.end() && md->is_object())
        if (auto v = md->find("resourceVersion"); v != md->end() && v->is_string())
          rv = v->get<std::string>();
    }
    if (!rv.empty()) rv_ = rv;
    if (type == "BOOKMARK") continue;
    if (type != "ADDED" && type != "MODIFIED" && type != "DELETED") {
      spdlog::warn("kubernetes: {}: unknown watch event type '{}'; skipped", opts_.name, type);
      continue;
    }
    ++stats_.events;
    handler_.event(opts_.name, type, obj);
  }
  if (request_ == 0) {
    buffer_.clear();
  } else {
    buffer_.erase(0, start);
    if (buffer_.size() > kMaxWatchLine) {
      // No object is this big (etcd refuses values over 1.5 MiB): a broken or hostile
      // stream. Dropped, and the watch resumes after a backoff.
      ++stats_.errors;
      spdlog::warn("kubernetes: {}: a watch line of more than {} bytes; the watch is restarted",
                   opts_.name, kMaxWatchLine);
      http_.cancel(request_);
      request_ = 0;
      buffer_.clear();
      retry_later(0, &Informer::watch);
    }
  }
}

void Informer::on_watch_done(HttpResponse&& r) {
  request_ = 0;
  buffer_.clear();
  if (stopping_) return;
  if (r.ok()) {
    // The server ended the watch (its timeout): resume where it stopped.
    watch();
    return;
  }
  if (r.status == 410) {
    relist("watch: 410 Gone");
    return;
  }
  ++stats_.errors;
  if (healthy_)
    spdlog::warn("kubernetes: {}: watch ended: {}; resuming from resourceVersion {}", opts_.name,
                 r.describe(), rv_);
  else
    spdlog::debug("kubernetes: {}: watch ended: {}", opts_.name, r.describe());
  healthy_ = false;
  retry_later(r.retry_after, &Informer::watch);
}

}  // namespace caldera::k8s
