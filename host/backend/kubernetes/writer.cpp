// The write side, after Volcano's pkg/scheduler/cache/cache.go (defaultBinder.Bind,
// defaultEvictor.Evict, UpdatePodGroup / taskUnschedulable: the PodScheduled condition and
// the FailedScheduling event) and kube-scheduler's DefaultBinder.
#include "host/backend/kubernetes/writer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <utility>

#include "host/util/clock.hpp"

namespace caldera::k8s {

namespace {

constexpr const char* kVolcanoApi = "/apis/scheduling.volcano.sh/v1beta1";
constexpr size_t kMaxMessage = 1024;

std::string truncate(const std::string& s) {
  if (s.size() <= kMaxMessage) return s;
  return s.substr(0, kMaxMessage - 3) + "...";
}

bool transient(long status) { return status == 0 || status == 429 || status >= 500; }

// A 429 from the eviction endpoint is a PodDisruptionBudget saying "not now" (its Status
// carries a DisruptionBudget cause); any other 429 is the server's flow control.
bool disruption_budget_refusal(const HttpResponse& r) {
  if (r.status != 429) return false;
  json b = parse_server_json(r.body);
  if (!b.is_object()) return false;
  if (auto d = b.find("details"); d != b.end() && d->is_object()) {
    if (auto c = d->find("causes"); c != d->end() && c->is_array())
      for (const json& cause : *c)
        if (cause.is_object() && json_string(cause, "type") == "DisruptionBudget") return true;
  }
  std::string msg = json_string(b, "message");
  return msg.find("disruption budget") != std::string::npos;
}

}  // namespace

struct Writer::Op {
  enum Kind { Bind, Evict, PodGroupStatus, QueueStatus, PodCondition, Event } kind;
  std::string ns, name, uid, node;
  std::vector<VolumeWrite> volumes;  // a bind's volume writes, sent before it in order
  size_t volumes_written = 0;
  json body;                 // status, or the event
  std::string message;       // conditions
  std::string reason;        // the condition's reason
  int attempts = 0;
  bool conflict_retried = false;
  bool main_object = false;  // status written on the object itself (no subresource)
  std::string describe() const {
    switch (kind) {
      case Bind:
        if (volumes_written < volumes.size())
          return fmt::format("volume binding of {}/{} ({} {}) before its bind to {}", ns, name,
                             volumes[volumes_written].claim ? "claim" : "PersistentVolume",
                             volumes[volumes_written].name, node);
        return fmt::format("bind {}/{} to {}", ns, name, node);
      case Evict: return fmt::format("evict {}/{}", ns, name);
      case PodGroupStatus: return fmt::format("status of PodGroup {}/{}", ns, name);
      case QueueStatus: return fmt::format("status of Queue {}", name);
      case PodCondition: return fmt::format("PodScheduled condition of {}/{}", ns, name);
      case Event: return fmt::format("event about {}/{}", ns, name);
    }
    return "write";
  }
};

struct Writer::RetryTimer {
  uv_timer_t timer;
  std::shared_ptr<Op> op;
  Writer* writer = nullptr;
};

Writer::Writer(uv_loop_t* loop, HttpClient& http, WriterOptions opts, Hooks hooks)
    : loop_(loop), http_(http), opts_(std::move(opts)), hooks_(std::move(hooks)) {}

Writer::~Writer() = default;

void Writer::bind(const std::string& ns, const std::string& name, const std::string& uid,
                  const std::string& node, std::vector<VolumeWrite> volumes) {
  auto op = std::make_shared<Op>();
  op->kind = Op::Bind;
  op->ns = ns;
  op->name = name;
  op->uid = uid;
  op->node = node;
  op->volumes = std::move(volumes);
  enqueue(op);
}

void Writer::evict(const std::string& ns, const std::string& name, const std::string& uid) {
  auto op = std::make_shared<Op>();
  op->kind = Op::Evict;
  op->ns = ns;
  op->name = name;
  op->uid = uid;
  enqueue(op);
}

void Writer::podgroup_status(const std::string& ns, const std::string& name, json status) {
  auto op = std::make_shared<Op>();
  op->kind = Op::PodGroupStatus;
  op->ns = ns;
  op->name = name;
  op->body = std::move(status);
  enqueue(op);
}

void Writer::queue_status(const std::string& name, json status) {
  auto op = std::make_shared<Op>();
  op->kind = Op::QueueStatus;
  op->name = name;
  op->body = std::move(status);
  enqueue(op);
}

void Writer::pod_unschedulable(const std::string& ns, const std::string& name,
                               const std::string& uid, const std::string& message,
                               const std::string& reason, const std::string& nominated_node) {
  auto cond = std::make_shared<Op>();
  cond->kind = Op::PodCondition;
  cond->ns = ns;
  cond->name = name;
  cond->uid = uid;
  cond->node = nominated_node;
  cond->message = truncate(message);
  cond->reason = reason;
  enqueue(cond);
  enqueue_event(ns, name, event_body("Pod", "v1", ns, name, uid, "FailedScheduling", message));
}

void Writer::podgroup_event(const std::string& ns, const std::string& name,
                            const std::string& uid, const std::string& reason,
                            const std::string& message, const char* type) {
  enqueue_event(ns, name,
                event_body("PodGroup", "scheduling.volcano.sh/v1beta1", ns, name, uid, reason,
                           message, type));
}

void Writer::pod_event(const std::string& ns, const std::string& name, const std::string& reason,
                       const std::string& message, const std::string& uid) {
  enqueue_event(ns, name, event_body("Pod", "v1", ns, name, uid, reason, message));
}

void Writer::enqueue_event(const std::string& ns, const std::string& name,
                           const std::string& body) {
  auto ev = std::make_shared<Op>();
  ev->kind = Op::Event;
  ev->ns = ns;
  ev->name = name;
  ev->body = json::parse(body);
  enqueue(ev);
}

std::string Writer::event_body(const std::string& kind, const std::string& api_version,
                               const std::string& ns, const std::string& name,
                               const std::string& uid, const std::string& reason,
                               const std::string& message, const char* type) {
  double now = unix_seconds();
  // client-go's recorder names events "<object>.<unix nanos in hex>".
  auto nanos = static_cast<uint64_t>(now * 1e9) + (event_seq_++ % 1000);
  json ev = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", fmt::format("{}.{:x}", name, nanos)}, {"namespace", ns}}},
      {"involvedObject",
       {{"apiVersion", api_version}, {"kind", kind}, {"namespace", ns}, {"name", name}, {"uid", uid}}},
      {"reason", reason},
      {"message", truncate(message)},
      {"type", type},
      {"source", {{"component", opts_.component}}},
      {"firstTimestamp", format_time(now)},
      {"lastTimestamp", format_time(now)},
      {"count", 1},
  };
  return ev.dump();
}

void Writer::enqueue(std::shared_ptr<Op> op, bool front) {
  if (stopping_) return;
  auto& q = op->kind == Op::Bind ? binds_ : others_;
  if (front)
    q.push_front(std::move(op));
  else
    q.push_back(std::move(op));
  pump();
}

void Writer::pump() {
  while (!stopping_ && in_flight_ < opts_.max_in_flight && (!binds_.empty() || !others_.empty())) {
    // Binds first: they are what the scheduler is for; status can wait a moment.
    auto& q = !binds_.empty() ? binds_ : others_;
    std::shared_ptr<Op> op = std::move(q.front());
    q.pop_front();
    start(std::move(op));
  }
}

void Writer::start(std::shared_ptr<Op> op) {
  HttpRequest req;
  req.method = "POST";
  req.content_type = "application/json";
  switch (op->kind) {
    case Op::Bind: {
      if (op->volumes_written < op->volumes.size()) {
        const VolumeWrite& v = op->volumes[op->volumes_written];
        req.method = "PATCH";
        req.content_type = "application/merge-patch+json";
        req.path = v.claim
                       ? fmt::format("/api/v1/namespaces/{}/persistentvolumeclaims/{}", v.ns, v.name)
                       : fmt::format("/api/v1/persistentvolumes/{}", v.name);
        req.body = v.patch.dump();
        break;
      }
      req.path = fmt::format("/api/v1/namespaces/{}/pods/{}/binding", op->ns, op->name);
      json b = {{"apiVersion", "v1"},
                {"kind", "Binding"},
                {"metadata", {{"name", op->name}, {"namespace", op->ns}}},
                {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", op->node}}}};
      // The UID makes the bind apply to this pod only, not to a namesake created since.
      if (!op->uid.empty()) b["metadata"]["uid"] = op->uid;
      req.body = b.dump();
      break;
    }
    case Op::Evict: {
      json pre = json::object();
      if (!op->uid.empty()) pre = {{"preconditions", {{"uid", op->uid}}}};
      if (opts_.evict_mode == EvictMode::Eviction) {
        req.path = fmt::format("/api/v1/namespaces/{}/pods/{}/eviction", op->ns, op->name);
        json b = {{"apiVersion", "policy/v1"},
                  {"kind", "Eviction"},
                  {"metadata", {{"name", op->name}, {"namespace", op->ns}}}};
        if (!pre.empty()) b["deleteOptions"] = pre;
        req.body = b.dump();
      } else {
        req.method = "DELETE";
        req.path = fmt::format("/api/v1/namespaces/{}/pods/{}", op->ns, op->name);
        if (!pre.empty()) req.body = pre.dump();
      }
      break;
    }
    case Op::PodGroupStatus:
    case Op::QueueStatus: {
      bool pg = op->kind == Op::PodGroupStatus;
      bool sub = !op->main_object && (pg ? podgroup_status_subresource_ : queue_status_subresource_);
      op->main_object = !sub;
      req.method = "PATCH";
      req.content_type = "application/merge-patch+json";
      req.path = pg ? fmt::format("{}/namespaces/{}/podgroups/{}", kVolcanoApi, op->ns, op->name)
                    : fmt::format("{}/queues/{}", kVolcanoApi, op->name);
      if (sub) req.path += "/status";
      req.body = json{{"status", op->body}}.dump();
      break;
    }
    case Op::PodCondition: {
      req.method = "PATCH";
      // Conditions merge by type under a strategic merge patch, so this replaces only
      // PodScheduled, as kube-scheduler's status update does.
      req.content_type = "application/strategic-merge-patch+json";
      req.path = fmt::format("/api/v1/namespaces/{}/pods/{}/status", op->ns, op->name);
      json cond = {{"type", "PodScheduled"},
                   {"status", "False"},
                   {"reason", op->reason},
                   {"message", op->message},
                   {"lastTransitionTime", format_time(unix_seconds())},
                   {"lastProbeTime", nullptr}};
      json b = {{"status", {{"conditions", json::array({cond})}}}};
      if (!op->node.empty()) b["status"]["nominatedNodeName"] = op->node;
      if (!op->uid.empty()) b["metadata"] = {{"uid", op->uid}};
      req.body = b.dump();
      break;
    }
    case Op::Event:
      req.path = fmt::format("/api/v1/namespaces/{}/events", op->ns);
      req.body = op->body.dump();
      break;
  }
  ++in_flight_;
  http_.send(std::move(req), [this, op](HttpResponse&& r) mutable {
    --in_flight_;
    if (stopping_) {
      maybe_closed();
      return;
    }
    finished(std::move(op), std::move(r));
    pump();
  });
}

void Writer::finished(std::shared_ptr<Op> op, HttpResponse&& r) {
  switch (op->kind) {
    case Op::Bind:
      if (op->volumes_written < op->volumes.size()) {
        if (r.ok()) {
          ++op->volumes_written;
          op->attempts = 0;
          enqueue(std::move(op), true);  // the next write, then the bind
          return;
        }
        if (!transient(r.status)) {
          // 409: the object changed since the session read it (another binder, the PV
          // controller); 404: it is gone. Either way the decision no longer holds.
          give_up(op, r.describe());
          return;
        }
        break;
      }
      if (r.ok()) {
        ++stats_.binds_ok;
        // Volcano's (and kube-scheduler's) Normal "Scheduled" event of a bound pod.
        enqueue_event(op->ns, op->name,
                      event_body("Pod", "v1", op->ns, op->name, op->uid, "Scheduled",
                                 fmt::format("Successfully assigned {}/{} to {}", op->ns,
                                             op->name, op->node),
                                 "Normal"));
        if (hooks_.bound) hooks_.bound(op->ns + "/" + op->name, op->node);
        return;
      }
      if (r.status == 409) {
        ++stats_.binds_conflict;
        after_bind_conflict(std::move(op));
        return;
      }
      break;
    case Op::Evict:
      if (r.ok() || r.status == 404) {  // 404: already gone, which is what was wanted
        ++stats_.evictions_ok;
        return;
      }
      if (disruption_budget_refusal(r)) {
        ++stats_.evictions_refused;
        spdlog::info("kubernetes: eviction of {}/{} refused for now by a PodDisruptionBudget",
                     op->ns, op->name);
        if (hooks_.evict_failed)
          hooks_.evict_failed(op->ns + "/" + op->name, "refused by a PodDisruptionBudget");
        return;
      }
      break;
    case Op::PodGroupStatus:
    case Op::QueueStatus:
      if (r.ok()) {
        ++stats_.status_writes;
        if (op->main_object) {
          bool& flag = op->kind == Op::PodGroupStatus ? podgroup_status_subresource_
                                                      : queue_status_subresource_;
          if (flag) {
            flag = false;
            spdlog::info("kubernetes: the {} CRD has no status subresource; status is patched "
                         "on the object",
                         op->kind == Op::PodGroupStatus ? "PodGroup" : "Queue");
          }
        }
        return;
      }
      if (r.status == 404 && !op->main_object) {
        // Volcano's PodGroup CRD serves no /status: write it on the object itself.
        op->main_object = true;
        enqueue(std::move(op), true);
        return;
      }
      if (r.status == 404) return;  // the object is gone
      if (r.status == 409) {
        // A merge patch carries no resourceVersion, so the API server itself does not
        // answer it with a conflict; an admission webhook or a proxy may. The owner forgets
        // what it assumed written, and the next session writes the status again from the
        // cache, which the watch keeps current: the re-read, without a GET of its own.
        ++stats_.status_conflicts;
        spdlog::info("kubernetes: {}: 409 Conflict; written again at the next session",
                     op->describe());
        if (hooks_.status_failed)
          hooks_.status_failed(op->kind == Op::PodGroupStatus ? "podgroup" : "queue",
                               op->ns.empty() ? op->name : op->ns + "/" + op->name);
        return;
      }
      break;
    case Op::PodCondition:
      if (r.ok()) {
        ++stats_.conditions;
        return;
      }
      if (r.status == 404 || r.status == 409) return;  // gone, or a namesake (uid differs)
      break;
    case Op::Event:
      if (r.ok() || r.status == 409) {
        ++stats_.events;
        return;
      }
      break;
  }
  if (transient(r.status)) {
    retry(std::move(op), r.retry_after);
    return;
  }
  give_up(op, r.describe());
}

void Writer::after_bind_conflict(std::shared_ptr<Op> op) {
  HttpRequest req;
  req.path = fmt::format("/api/v1/namespaces/{}/pods/{}", op->ns, op->name);
  ++in_flight_;
  http_.send(std::move(req), [this, op](HttpResponse&& r) {
    --in_flight_;
    if (stopping_) {
      maybe_closed();
      return;
    }
    std::string key = op->ns + "/" + op->name;
    if (!r.ok()) {
      give_up(op, "409 Conflict, and the pod could not be read again: " + r.describe());
      pump();
      return;
    }
    json pod = parse_server_json(r.body);
    if (!pod.is_object()) {
      give_up(op, "409 Conflict, and the pod read again is not an object");
      pump();
      return;
    }
    if (hooks_.pod_read) hooks_.pod_read(pod);
    ObjectMeta m = read_meta(pod);
    std::string node;
    if (auto s = pod.find("spec"); s != pod.end() && s->is_object())
      node = json_string(*s, "nodeName");
    if (node == op->node) {
      // An earlier try went through (its answer was lost): nothing is missing.
      ++stats_.binds_ok;
      if (hooks_.bound) hooks_.bound(key, node);
    } else if (!node.empty()) {
      give_up(op, "409 Conflict: already bound to " + node);
    } else if ((op->uid.empty() || m.uid == op->uid) && !op->conflict_retried) {
      op->conflict_retried = true;
      enqueue(op, true);
    } else {
      give_up(op, m.uid != op->uid ? "409 Conflict: the pod was replaced by a namesake"
                                   : "409 Conflict twice");
    }
    pump();
  });
}

void Writer::retry(std::shared_ptr<Op> op, double retry_after) {
  ++op->attempts;
  if (op->attempts >= opts_.max_attempts) {
    give_up(op, fmt::format("no success after {} attempts", op->attempts));
    return;
  }
  ++stats_.retries;
  double delay = std::max(retry_after, 0.2 * std::pow(2.0, op->attempts - 1));
  auto* t = new RetryTimer;
  t->op = op;
  t->writer = this;
  t->timer.data = t;
  uv_timer_init(loop_, &t->timer);
  live_timers_.insert(t);
  ++timers_;
  uv_timer_start(
      &t->timer,
      [](uv_timer_t* h) {
        auto* rt = static_cast<RetryTimer*>(h->data);
        Writer* w = rt->writer;
        auto op2 = std::move(rt->op);
        w->live_timers_.erase(rt);
        uv_close(reinterpret_cast<uv_handle_t*>(h), [](uv_handle_t* hh) {
          auto* r2 = static_cast<RetryTimer*>(hh->data);
          Writer* w2 = r2->writer;
          delete r2;
          --w2->timers_;
          w2->maybe_closed();
        });
        if (!w->stopping_) w->enqueue(std::move(op2), true);
      },
      static_cast<uint64_t>(delay * 1000), 0);
}

void Writer::give_up(const std::shared_ptr<Op>& op, const std::string& why) {
  switch (op->kind) {
    case Op::Bind:
      ++stats_.binds_failed;
      spdlog::warn("kubernetes: {} failed: {}; the pod stays pending", op->describe(), why);
      if (hooks_.bind_failed) hooks_.bind_failed(op->ns + "/" + op->name, op->node, why);
      break;
    case Op::Evict:
      ++stats_.evictions_failed;
      spdlog::warn("kubernetes: {} failed: {}", op->describe(), why);
      if (hooks_.evict_failed) hooks_.evict_failed(op->ns + "/" + op->name, why);
      break;
    case Op::PodGroupStatus:
    case Op::QueueStatus:
      ++stats_.status_failed;
      spdlog::warn("kubernetes: {} failed: {}", op->describe(), why);
      if (hooks_.status_failed)
        hooks_.status_failed(op->kind == Op::PodGroupStatus ? "podgroup" : "queue",
                             op->ns.empty() ? op->name : op->ns + "/" + op->name);
      break;
    case Op::PodCondition:
      spdlog::debug("kubernetes: {} failed: {}", op->describe(), why);
      if (hooks_.status_failed) hooks_.status_failed("pod", op->ns + "/" + op->name);
      break;
    case Op::Event:
      spdlog::debug("kubernetes: {} failed: {}", op->describe(), why);
      break;
  }
}

void Writer::drop_queued() {
  auto binds = std::move(binds_);
  binds_.clear();
  others_.clear();
  for (const auto& op : binds)
    if (hooks_.bind_failed) hooks_.bind_failed(op->ns + "/" + op->name, op->node, "not sent");
}

void Writer::stop(std::function<void()> closed) {
  stopping_ = true;
  closed_ = std::move(closed);
  binds_.clear();
  others_.clear();
  for (RetryTimer* t : std::exchange(live_timers_, {})) {
    uv_timer_stop(&t->timer);
    uv_close(reinterpret_cast<uv_handle_t*>(&t->timer), [](uv_handle_t* h) {
      auto* r = static_cast<RetryTimer*>(h->data);
      Writer* w = r->writer;
      delete r;
      --w->timers_;
      w->maybe_closed();
    });
  }
  // Requests in flight are cancelled by the HTTP client's close; they do not count here.
  in_flight_ = 0;
  maybe_closed();
}

void Writer::maybe_closed() {
  if (stopping_ && timers_ == 0 && closed_ && !closed_called_) {
    closed_called_ = true;
    auto cb = std::move(closed_);
    cb();
  }
}

}  // namespace caldera::k8s
