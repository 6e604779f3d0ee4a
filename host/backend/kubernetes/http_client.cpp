// libcurl multi-socket on libuv, following curl's own "multi-uv" example
// (docs/examples/multi-uv.c): CURLMOPT_SOCKETFUNCTION starts and stops a uv_poll per
// socket, CURLMOPT_TIMERFUNCTION arms one uv_timer, and both call
// curl_multi_socket_action; finished transfers are collected with curl_multi_info_read.
#include "host/backend/kubernetes/http_client.hpp"

#include "host/backend/kubernetes/api_objects.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

namespace caldera::k8s {

namespace {

uint64_t now_ms() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool iequals_prefix(const char* data, size_t len, const char* prefix) {
  size_t n = std::char_traits<char>::length(prefix);
  if (len < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(data[i])) != prefix[i]) return false;
  return true;
}

// The longest Retry-After obeyed, in seconds (client-go waits what it is told; a cap keeps
// a bad header from stalling the scheduler's writes for hours).
constexpr double kMaxRetryAfter = 30;

}  // namespace

std::string HttpResponse::describe() const {
  if (status == 0) return "transport error: " + (error.empty() ? std::string("unknown") : error);
  std::string msg;
  auto j = parse_server_json(body);
  if (j.is_object() && j.contains("message") && j["message"].is_string())
    msg = j["message"].get<std::string>();
  else
    msg = body.substr(0, 200);
  return fmt::format("HTTP {}{}{}", status, msg.empty() ? "" : ": ", msg);
}

struct HttpClient::Transfer {
  uint64_t id = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  HttpRequest req;
  Done done;
  OnData on_data;
  OnHeaders on_headers;
  HttpResponse resp;
  char errbuf[CURL_ERROR_SIZE] = {0};
  bool cancelled = false;
  bool added = false;  // handed to curl (a rate-limited request waits before that)
  HttpClient* self = nullptr;
};

struct HttpClient::Socket {
  uv_poll_t poll;
  int fd = -1;
  HttpClient* self = nullptr;
};

HttpClient::HttpClient(uv_loop_t* loop, ClusterAccess access)
    : loop_(loop), access_(std::move(access)) {
  global_init();
  multi_ = curl_multi_init();
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &HttpClient::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &HttpClient::on_timer_set);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  // Bounds the connections to the API server (each watch holds one; writes share the
  // rest, reused with keep-alive); requests beyond it wait for a free connection.
  curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, 96L);
  uv_timer_init(loop_, &timer_);
  timer_.data = this;
  ++open_handles_;
  uv_timer_init(loop_, &rate_timer_);
  rate_timer_.data = this;
  ++open_handles_;

  base_url_ = access_.server;
  if (!access_.tls_server_name.empty()) {
    // https://10.0.0.1:6443 with tls-server-name api.internal: ask for
    // https://api.internal:6443 and connect it to 10.0.0.1:6443.
    CURLU* u = curl_url();
    char *host = nullptr, *port = nullptr, *url = nullptr;
    if (curl_url_set(u, CURLUPART_URL, access_.server.c_str(), 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
        curl_url_set(u, CURLUPART_HOST, access_.tls_server_name.c_str(), 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_URL, &url, 0) == CURLUE_OK) {
      base_url_ = url;
      while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
      connect_to_ = curl_slist_append(
          nullptr, fmt::format("{}:{}:{}:{}", access_.tls_server_name, port, host, port).c_str());
    } else {
      spdlog::warn("kubernetes: cannot apply tls-server-name '{}' to server '{}'; connecting "
                   "without it",
                   access_.tls_server_name, access_.server);
    }
    curl_free(host);
    curl_free(port);
    curl_free(url);
    curl_url_cleanup(u);
  }
}

HttpClient::~HttpClient() {
  if (!closing_) {
    // Owners close() first; this is the fallback for an error path that did not.
    for (auto& [_, t] : transfers_) {
      if (t->added) curl_multi_remove_handle(multi_, t->easy);
      curl_easy_cleanup(t->easy);
      curl_slist_free_all(t->headers);
    }
    transfers_.clear();
    if (multi_) curl_multi_cleanup(multi_);
  }
  curl_slist_free_all(connect_to_);
}

std::string HttpClient::bearer_token() {
  if (access_.token_file.empty()) return access_.token;
  // Projected service-account tokens rotate; client-go re-reads the file once a minute.
  uint64_t now = now_ms();
  if (token_.empty() || now - token_read_ms_ > 60000) {
    std::ifstream in(access_.token_file);
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string t = ss.str();
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    if (t.empty())
      spdlog::warn("kubernetes: token file {} is empty or unreadable; keeping the last token",
                   access_.token_file.string());
    else
      token_ = t;
    token_read_ms_ = now;
  }
  return token_;
}

uint64_t HttpClient::send(HttpRequest req, Done done, OnData on_data, OnHeaders on_headers) {
  if (closing_) return 0;
  auto t = std::make_unique<Transfer>();
  t->id = next_id_++;
  t->req = std::move(req);
  t->done = std::move(done);
  t->on_data = std::move(on_data);
  t->on_headers = std::move(on_headers);
  t->self = this;
  CURL* e = curl_easy_init();
  t->easy = e;
  std::string url = base_url_ + t->req.path;
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  if (connect_to_) curl_easy_setopt(e, CURLOPT_CONNECT_TO, connect_to_);
  curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &HttpClient::on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &HttpClient::on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  // A transfer that stalls (under 1 byte/s for 90 s) fails and is retried: a request
  // without a total timeout would otherwise hang on a half-open connection. Not a watch: a
  // watch of objects nobody changes is silent for its whole timeoutSeconds (bookmarks come
  // only where etcd reports progress; the fleet benchmark's KWOK nodes, which send no
  // heartbeats, had their watch cut every 90 s, and a session running then was dropped as
  // out of sync). A watch's total timeout bounds a dead connection instead.
  if (!t->req.may_be_silent) {
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, 90L);
  }
  if (t->req.timeout_ms > 0) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, t->req.timeout_ms);
  // HTTP/1.1, one connection per concurrent request, kept alive and reused. HTTP/2 would
  // multiplex everything over one connection, but with libcurl 7.88 (Debian 12) a large
  // list response sharing the connection with open watches stalls in multi-socket mode
  // (seen here listing 100,000 pods: the transfer stopped after 750 kB until its timeout).
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_USERAGENT, "caldera-scheduler/" CALDERA_VERSION);

  if (!access_.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(access_.ca_pem.data()), access_.ca_pem.size(),
                 CURL_BLOB_COPY};
    curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (access_.insecure) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!access_.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(access_.client_cert_pem.data()),
                   access_.client_cert_pem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(access_.client_key_pem.data()),
                  access_.client_key_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!access_.username.empty()) {
    curl_easy_setopt(e, CURLOPT_USERNAME, access_.username.c_str());
    curl_easy_setopt(e, CURLOPT_PASSWORD, access_.password.c_str());
  }

  curl_slist* h = nullptr;
  h = curl_slist_append(h, "Accept: application/json");
  std::string token = bearer_token();
  if (!token.empty()) h = curl_slist_append(h, ("Authorization: Bearer " + token).c_str());
  if (!t->req.content_type.empty())
    h = curl_slist_append(h, ("Content-Type: " + t->req.content_type).c_str());
  h = curl_slist_append(h, "Expect:");  // no 100-continue round trip for bodies
  t->headers = h;
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);

  const std::string& m = t->req.method;
  if (m == "GET") {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else {
    if (m != "POST") curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, m.c_str());
    if (m == "POST" || !t->req.body.empty()) {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->req.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(t->req.body.size()));
    }
  }

  uint64_t id = t->id;
  transfers_[id] = std::move(t);
  throttled_.push_back(id);
  release();
  return id;
}

void HttpClient::release() {
  while (!throttled_.empty()) {
    auto it = transfers_.find(throttled_.front());
    if (it == transfers_.end()) {  // cancelled while it waited
      throttled_.pop_front();
      continue;
    }
    double wait = 0;
    if (!limiter_.take(static_cast<double>(uv_now(loop_)) / 1000.0, &wait)) {
      if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&rate_timer_)))
        uv_timer_start(
            &rate_timer_, [](uv_timer_t* tm) { static_cast<HttpClient*>(tm->data)->release(); },
            static_cast<uint64_t>(wait * 1000) + 1, 0);
      return;
    }
    throttled_.pop_front();
    start_transfer(it->second.get());
  }
}

void HttpClient::start_transfer(Transfer* raw) {
  const uint64_t id = raw->id;
  raw->added = true;
  CURLMcode rc = curl_multi_add_handle(multi_, raw->easy);
  if (rc != CURLM_OK) {
    raw->added = false;
    // Reported through done like any failure, but from the loop, never from inside send.
    raw->resp.error = curl_multi_strerror(rc);
    deferred_fail_.push_back(id);
    uv_timer_start(
        &timer_,
        [](uv_timer_t* tm) { static_cast<HttpClient*>(tm->data)->socket_action(CURL_SOCKET_TIMEOUT, 0); },
        0, 0);
  }
}

void HttpClient::remove(Transfer* t) {
  if (multi_ && t->added) curl_multi_remove_handle(multi_, t->easy);
  t->added = false;
  curl_easy_cleanup(t->easy);
  curl_slist_free_all(t->headers);
  t->easy = nullptr;
  t->headers = nullptr;
}

void HttpClient::cancel(uint64_t id) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  it->second->cancelled = true;
  if (depth_ > 0) {
    // Inside a curl callback handles cannot be removed; do it once curl returns.
    deferred_cancel_.push_back(id);
    return;
  }
  remove(it->second.get());
  transfers_.erase(it);
}

int HttpClient::on_socket(CURL*, int fd, int what, void* userp, void* socketp) {
  auto* self = static_cast<HttpClient*>(userp);
  auto* s = static_cast<Socket*>(socketp);
  if (what == CURL_POLL_REMOVE) {
    if (s) {
      uv_poll_stop(&s->poll);
      if (self->multi_) curl_multi_assign(self->multi_, fd, nullptr);
      self->sockets_.erase(s);
      uv_close(reinterpret_cast<uv_handle_t*>(&s->poll), [](uv_handle_t* h) {
        auto* sock = static_cast<Socket*>(h->data);
        HttpClient* c = sock->self;
        delete sock;
        --c->open_handles_;
        c->maybe_closed();
      });
    }
    return 0;
  }
  if (!s) {
    s = new Socket;
    s->fd = fd;
    s->self = self;
    s->poll.data = s;
    if (uv_poll_init_socket(self->loop_, &s->poll, fd) != 0) {
      delete s;
      return -1;
    }
    ++self->open_handles_;
    self->sockets_.insert(s);
    curl_multi_assign(self->multi_, fd, s);
  }
  int events = 0;
  if (what & CURL_POLL_IN) events |= UV_READABLE;
  if (what & CURL_POLL_OUT) events |= UV_WRITABLE;
  uv_poll_start(&s->poll, events, [](uv_poll_t* h, int status, int ev) {
    auto* sock = static_cast<Socket*>(h->data);
    int flags = 0;
    if (status < 0) {
      flags = CURL_CSELECT_ERR;
    } else {
      if (ev & UV_READABLE) flags |= CURL_CSELECT_IN;
      if (ev & UV_WRITABLE) flags |= CURL_CSELECT_OUT;
    }
    sock->self->socket_action(sock->fd, flags);
  });
  return 0;
}

int HttpClient::on_timer_set(CURLM*, long timeout_ms, void* userp) {
  auto* self = static_cast<HttpClient*>(userp);
  if (self->closing_) return 0;
  if (timeout_ms < 0) {
    uv_timer_stop(&self->timer_);
    return 0;
  }
  // Never call socket_action from here (curl forbids it): a 0 ms timer runs it next turn.
  uv_timer_start(
      &self->timer_,
      [](uv_timer_t* t) { static_cast<HttpClient*>(t->data)->socket_action(CURL_SOCKET_TIMEOUT, 0); },
      static_cast<uint64_t>(timeout_ms), 0);
  return 0;
}

size_t HttpClient::on_write(char* data, size_t size, size_t n, void* userp) {
  auto* t = static_cast<Transfer*>(userp);
  size_t len = size * n;
  if (t->cancelled) return 0;  // aborts the transfer
  long code = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
  if (t->on_data && code >= 200 && code < 300)
    t->on_data(std::string_view(data, len));
  else
    t->resp.body.append(data, len);
  return len;
}

size_t HttpClient::on_header(char* data, size_t size, size_t n, void* userp) {
  auto* t = static_cast<Transfer*>(userp);
  size_t len = size * n;
  if (t->cancelled) return 0;
  if (len <= 2 && t->on_headers) {
    // The blank line that ends a header block (an interim 1xx block is skipped).
    long code = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 200) {
      auto cb = std::move(t->on_headers);
      t->on_headers = nullptr;
      cb(code);
    }
    return len;
  }
  if (iequals_prefix(data, len, "retry-after:")) {
    std::string v(data + 12, len - 12);
    try {
      size_t used = 0;
      double secs = std::stod(v, &used);
      // Capped: a server (or something in between) asking for an hour is not obeyed.
      if (secs >= 0) t->resp.retry_after = std::min(secs, kMaxRetryAfter);
    } catch (const std::exception&) {
      // An HTTP date instead of seconds: the caller's own backoff applies.
    }
  }
  return len;
}

void HttpClient::socket_action(int fd, int flags) {
  if (!multi_ || closing_) return;
  int running = 0;
  ++depth_;
  curl_multi_socket_action(multi_, fd, flags, &running);
  --depth_;
  check_done();
}

void HttpClient::check_done() {
  for (uint64_t id : deferred_cancel_) {
    auto it = transfers_.find(id);
    if (it == transfers_.end()) continue;
    remove(it->second.get());
    transfers_.erase(it);
  }
  deferred_cancel_.clear();
  for (uint64_t id : std::exchange(deferred_fail_, {})) {
    auto it = transfers_.find(id);
    if (it == transfers_.end()) continue;
    std::unique_ptr<Transfer> t = std::move(it->second);
    transfers_.erase(it);
    remove(t.get());
    if (t->done && !closing_) t->done(std::move(t->resp));
  }
  int left = 0;
  while (!closing_ && multi_) {
    CURLMsg* msg = curl_multi_info_read(multi_, &left);
    if (!msg) break;
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* raw = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&raw));
    CURLcode result = msg->data.result;
    if (!raw) continue;
    auto it = transfers_.find(raw->id);
    if (it == transfers_.end()) continue;
    std::unique_ptr<Transfer> t = std::move(it->second);
    transfers_.erase(it);
    long code = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
    remove(t.get());
    if (t->cancelled) continue;
    HttpResponse resp = std::move(t->resp);
    if (result != CURLE_OK) {
      resp.status = 0;
      resp.error = t->errbuf[0] ? t->errbuf : curl_easy_strerror(result);
    } else {
      resp.status = code;
    }
    if (t->done) t->done(std::move(resp));
  }
}

void HttpClient::close(std::function<void()> closed) {
  if (closing_) return;
  closing_ = true;
  closed_cb_ = std::move(closed);
  for (auto& [_, t] : transfers_) remove(t.get());
  transfers_.clear();
  // Sockets still registered may be reported through CURL_POLL_REMOVE while curl closes
  // its connections; multi_ is cleared first so the callback does not touch it.
  CURLM* m = multi_;
  multi_ = nullptr;
  curl_multi_cleanup(m);
  uv_timer_stop(&timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), [](uv_handle_t* h) {
    auto* c = static_cast<HttpClient*>(h->data);
    --c->open_handles_;
    c->maybe_closed();
  });
  throttled_.clear();
  uv_timer_stop(&rate_timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(&rate_timer_), [](uv_handle_t* h) {
    auto* c = static_cast<HttpClient*>(h->data);
    --c->open_handles_;
    c->maybe_closed();
  });
  // Any poll handle curl did not report: close it here.
  for (Socket* s : std::exchange(sockets_, {})) {
    uv_poll_stop(&s->poll);
    uv_close(reinterpret_cast<uv_handle_t*>(&s->poll), [](uv_handle_t* h) {
      auto* sock = static_cast<Socket*>(h->data);
      HttpClient* c = sock->self;
      delete sock;
      --c->open_handles_;
      c->maybe_closed();
    });
  }
}

void HttpClient::maybe_closed() {
  if (closing_ && open_handles_ == 0 && closed_cb_) {
    auto cb = std::move(closed_cb_);
    closed_cb_ = nullptr;
    cb();
  }
}

}  // namespace caldera::k8s
