// List and watch one resource, as client-go's Reflector does: a paged list (limit /
// continue) gives a complete picture at one resourceVersion; a watch from that version
// (with bookmarks) streams every change; a watch that ends normally is resumed from the
// last version seen; "410 Gone" (the version was compacted away) means a full relist, after
// which objects that were not listed are deleted; 429 and 5xx back off exponentially,
// honouring Retry-After. The informer only moves JSON: what an object means is the
// handler's business.
#pragma once

#include <uv.h>

#include <cstdint>
#include <string>

#include "host/backend/kubernetes/http_client.hpp"
#include "host/backend/kubernetes/api_objects.hpp"

namespace caldera::k8s {

struct InformerOptions {
  std::string name;            // for logs: "pods"
  std::string path;            // collection path: "/api/v1/pods"
  // > 0: every list reads etcd in pages of this many (limit/continue). 0: client-go's
  // reflector (relistResourceVersion): the first list from the watch cache
  // (resourceVersion=0), a relist from the last resourceVersion seen (also the cache), and
  // only when that one is gone (410) a consistent list from etcd in pages of 500.
  int page_size = 0;
  bool optional = false;       // a 404 means the resource does not exist here (HyperNodes)
  double max_backoff = 30;     // seconds
  int watch_timeout_min = 300; // the server ends a watch after 5..10 minutes (client-go's
  int watch_timeout_max = 600; // minWatchTimeout and jitter); it is then resumed
};

class Informer {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // A full list starts; every object follows through list_item; list_end closes it:
    // whatever was not listed since list_begin no longer exists.
    virtual void list_begin(const std::string& resource) = 0;
    virtual void list_item(const std::string& resource, const json& obj) = 0;
    virtual void list_end(const std::string& resource) = 0;
    // A watch event: "ADDED", "MODIFIED" or "DELETED".
    virtual void event(const std::string& resource, const std::string& type, const json& obj) = 0;
  };

  struct Stats {
    uint64_t lists = 0;          // complete lists
    uint64_t relists_gone = 0;   // of which forced by 410 Gone
    uint64_t watches = 0;        // watch requests started
    uint64_t events = 0;         // watch events handed over
    uint64_t errors = 0;         // failed requests
    double first_sync_seconds = -1;  // from start() to the first complete list
  };

  Informer(uv_loop_t* loop, HttpClient& http, InformerOptions opts, Handler& handler);
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  void start();
  // Cancels requests and timers; `closed` runs once the timer handle is closed.
  void stop(std::function<void()> closed);

  // Listed at least once, not relisting, and currently connected (watching, or about to
  // resume a watch that ended normally). An optional resource that does not exist counts
  // as synced.
  bool synced() const { return listed_ && healthy_; }
  bool listed_once() const { return listed_; }
  bool absent() const { return absent_; }
  const std::string& resource_version() const { return rv_; }
  const Stats& stats() const { return stats_; }
  const std::string& name() const { return opts_.name; }

 private:
  void list_page(const std::string& cont);
  void on_list(HttpResponse&& r, const std::string& cont);
  void watch();
  void on_watch_data(std::string_view chunk);
  void on_watch_done(HttpResponse&& r);
  void relist(const char* why);
  void retry_later(double retry_after, void (Informer::*what)());
  void restart_list() { list_page(""); }
  double next_backoff();

  uv_loop_t* loop_;
  HttpClient& http_;
  InformerOptions opts_;
  Handler& handler_;
  uv_timer_t timer_;
  void (Informer::*timer_action_)() = nullptr;
  uint64_t request_ = 0;      // the request in flight (list page or watch), 0 if none
  std::string rv_;            // last resourceVersion seen
  std::string list_rv_;       // the resourceVersion the current list asked for ("": etcd)
  bool rv_unavailable_ = false;  // a list at rv_ was refused (410): the next reads etcd
  std::string buffer_;        // a watch line being assembled
  bool listed_ = false;
  bool healthy_ = false;
  bool absent_ = false;
  bool stopping_ = false;
  bool watch_gone_ = false;   // the watch stream said 410: relist when it ends
  double backoff_ = 0;
  uint64_t started_ms_ = 0;
  uint64_t items_in_list_ = 0;
  Stats stats_;
  std::function<void()> closed_;
};

}  // namespace caldera::k8s
