// HTTP to the API server through libcurl's multi-socket interface, driven by the host's
// libuv loop: curl tells which sockets to watch (uv_poll) and when to wake it (uv_timer),
// so every request -- lists, long watches, binds -- runs on the scheduler's one loop with
// no thread of its own. HTTP/1.1 with keep-alive (see send() for why not HTTP/2).
#pragma once

#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "host/backend/kubernetes/kubeconfig.hpp"
#include "host/backend/kubernetes/rate_limiter.hpp"

typedef void CURL;
typedef void CURLM;
struct curl_slist;

namespace caldera::k8s {

struct HttpRequest {
  std::string method = "GET";
  std::string path;           // "/api/v1/pods?limit=500" (appended to the server URL)
  std::string body;
  std::string content_type;   // of the body
  long timeout_ms = 30000;    // whole transfer; 0: none
  // The response may be silent for minutes (a watch of objects that do not change: the API
  // server sends bookmarks only where etcd reports progress): no stall limit, so timeout_ms
  // must bound the transfer instead.
  bool may_be_silent = false;
};

struct HttpResponse {
  long status = 0;         // HTTP status; 0 when the transfer failed (error says why)
  std::string body;        // the whole body (for streams: only when status is not 2xx)
  std::string error;       // curl's message when the transfer failed
  double retry_after = -1; // the Retry-After header, in seconds, when the server sent one
  bool ok() const { return status >= 200 && status < 300; }
  // "HTTP 409: <message of the Status object>" or the transport error, for logs.
  std::string describe() const;
};

class HttpClient {
 public:
  using Done = std::function<void(HttpResponse&&)>;
  using OnData = std::function<void(std::string_view)>;
  using OnHeaders = std::function<void(long status)>;

  HttpClient(uv_loop_t* loop, ClusterAccess access);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Starts a request. `done` runs on the loop when it ends (never from inside send). With
  // `on_data`, a 2xx body is handed over piece by piece as it arrives (watches) instead
  // of being collected; `on_headers` runs once the response headers are in (a watch is
  // established). Returns an id for cancel().
  uint64_t send(HttpRequest req, Done done, OnData on_data = {}, OnHeaders on_headers = {});
  // Ends a request; its `done` is not called. Unknown or finished ids are ignored.
  void cancel(uint64_t id);
  // Cancels everything and closes the loop handles; `closed` runs once they are closed.
  void close(std::function<void()> closed);

  // Client-side rate limit of requests started (rate_limiter.hpp; volcano-scheduler's
  // --kube-api-qps / --kube-api-burst). Requests beyond it wait, in order, for a token.
  // Default: none.
  void set_rate_limit(double qps, int burst) { limiter_ = RateLimiter(qps, burst); }

  size_t in_flight() const { return transfers_.size(); }
  const ClusterAccess& access() const { return access_; }

 private:
  struct Transfer;
  struct Socket;
  static int on_socket(CURL* easy, int fd, int what, void* userp, void* socketp);
  static int on_timer_set(CURLM* multi, long timeout_ms, void* userp);
  static size_t on_write(char* data, size_t size, size_t n, void* userp);
  static size_t on_header(char* data, size_t size, size_t n, void* userp);
  void socket_action(int fd, int flags);
  // Starts the waiting requests the rate limit allows, in order; arms rate_timer_ for the
  // next token when some still wait.
  void release();
  void start_transfer(Transfer* t);
  void check_done();
  void remove(Transfer* t);
  std::string bearer_token();
  void maybe_closed();

  uv_loop_t* loop_;
  ClusterAccess access_;
  CURLM* multi_ = nullptr;
  uv_timer_t timer_;
  uv_timer_t rate_timer_;
  RateLimiter limiter_{-1, 0};
  std::deque<uint64_t> throttled_;  // requests waiting for a token, oldest first
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, std::unique_ptr<Transfer>> transfers_;
  std::vector<uint64_t> deferred_cancel_;
  std::vector<uint64_t> deferred_fail_;  // could not be started: reported from the loop
  std::unordered_set<Socket*> sockets_;
  int depth_ = 0;              // > 0 inside curl_multi_socket_action
  int open_handles_ = 0;       // uv handles not yet closed
  bool closing_ = false;
  std::function<void()> closed_cb_;
  std::string token_;
  uint64_t token_read_ms_ = 0;
  // The server's URL as requests use it: with a kubeconfig's tls-server-name, its host is
  // that name (what the certificate is checked against and SNI sends) and connect_to_
  // sends the connection to the real host, as client-go's TLSClientConfig.ServerName does.
  std::string base_url_;
  curl_slist* connect_to_ = nullptr;
};

}  // namespace caldera::k8s
