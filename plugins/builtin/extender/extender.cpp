// extender: Volcano's HTTP extender protocol, so that users keep their out-of-process
// extenders. Each configured verb is a POST of JSON to <extender.urlPrefix>/<verb>, whose
// answer takes part in the session like a plugin's.
//
// Follows Volcano's pkg/scheduler/plugins/extender (extender.go, argument.go at ed72c7c):
//   onSessionOpenVerb   sent at open with every job, node and queue; when it fails and the
//                       extender is not ignorable, the extender takes no part this session
//   predicateVerb       {task, node} -> {status: message, code}: a message refuses the node
//                       with the code (0 read as Error), as Volcano does
//   prioritizeVerb      {task, nodes} -> {nodeScore: {node: score}, errorMessage}
//   preemptableVerb,    {evictor, evictees} -> {status: 1 permit / 0 abstain / -1 reject,
//   reclaimableVerb      victims: [task...]}: the victims, matched to the evictees by UID
//   jobEnqueueableVerb  {job} -> {status}
//   jobEnqueuedVerb     {job}, answer ignored
//   queueOverusedVerb   {queue} -> {overused}
//   jobReadyVerb        {job} -> {status: bool}
//   allocateFuncVerb,   {task}, sent on allocate / deallocate; an errorMessage is logged
//   deallocateFuncVerb   (Volcano marks the event failed; Caldera's notifications cannot fail)
//   onSessionCloseVerb  sent at close, answer ignored
// A task is sent only when the extender manages one of its resources (extender.managedResources,
// comma-separated; none: every task), as Kubernetes' IsInterested; otherwise its predicate
// passes, its scores are none and its victim votes abstain.
//
// Faults are contained as a plugin's are: every call has extender.httpTimeout (default 1s);
// an answer that is not HTTP 200, not JSON of the right shape, larger than 10 MB, a score that
// is not a finite number, a code or vote out of range, or a victim that is not among the
// evictees is a failed call. A failed call with extender.ignorable is ignored (predicate
// passes, no scores, permit with no victims, enqueue permitted, not overused, ready);
// without, it counts against (the node is refused with the error, no scores, reject, not
// enqueued, overused, not ready), as in Volcano. Every failure is logged with the verb and
// the reason.
//
// What is sent: the objects as Go's encoding/json writes Volcano's api.TaskInfo, NodeInfo,
// JobInfo and QueueInfo (Go field names), the fields Caldera models (README.md lists them).
#include <curl/curl.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "caldera/sdk.hpp"

namespace {

namespace sdk = caldera::sdk;
using json = nlohmann::json;

constexpr size_t kMaxBody = size_t{10} << 20;  // Volcano's maxBodySize

// Volcano's TaskStatus bits (api/types.go: Pending = 1 << 0 ... Unknown = 1 << 9), in
// cal_task_status order.
int volcano_status(cal_task_status s) { return 1 << static_cast<int>(s); }

class Extender {
 public:
  static constexpr const char* kName = "extender";
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription =
      "Volcano's HTTP extender: predicate, prioritize, preemptable, reclaimable, enqueue, "
      "overused, ready and event verbs answered by an out-of-process server";
  static constexpr sdk::Hooks kHooks = sdk::hooks(
      sdk::Hook::predicate, sdk::Hook::batch_node_order, sdk::Hook::preemptable,
      sdk::Hook::reclaimable, sdk::Hook::job_enqueueable, sdk::Hook::job_enqueued,
      sdk::Hook::overused, sdk::Hook::job_ready, sdk::Hook::on_allocate,
      sdk::Hook::on_deallocate, sdk::Hook::on_close, sdk::Hook::check_args);

  static constexpr sdk::String kUrlPrefix{"extender.urlPrefix", nullptr,
                                          "the extender's address: http://host:port[/path]"};
  static constexpr sdk::Duration kTimeout{"extender.httpTimeout", "1s",
                                          "the time limit of each call"};
  static constexpr sdk::String kOpen{"extender.onSessionOpenVerb", nullptr, "verb sent at open"};
  static constexpr sdk::String kClose{"extender.onSessionCloseVerb", nullptr, "verb sent at close"};
  static constexpr sdk::String kPredicate{"extender.predicateVerb", nullptr, "predicate verb"};
  static constexpr sdk::String kPrioritize{"extender.prioritizeVerb", nullptr, "node scores verb"};
  static constexpr sdk::String kPreemptable{"extender.preemptableVerb", nullptr, "preempt victims verb"};
  static constexpr sdk::String kReclaimable{"extender.reclaimableVerb", nullptr, "reclaim victims verb"};
  static constexpr sdk::String kOverused{"extender.queueOverusedVerb", nullptr, "queue overused verb"};
  static constexpr sdk::String kEnqueueable{"extender.jobEnqueueableVerb", nullptr, "enqueue verb"};
  static constexpr sdk::String kEnqueued{"extender.jobEnqueuedVerb", nullptr, "job enqueued verb"};
  static constexpr sdk::String kReady{"extender.jobReadyVerb", nullptr, "job ready verb"};
  static constexpr sdk::String kAllocate{"extender.allocateFuncVerb", nullptr, "allocate event verb"};
  static constexpr sdk::String kDeallocate{"extender.deallocateFuncVerb", nullptr,
                                           "deallocate event verb"};
  static constexpr sdk::Bool kIgnorable{"extender.ignorable", false,
                                        "a failed call is ignored instead of counting against"};
  static constexpr sdk::String kManaged{
      "extender.managedResources", nullptr,
      "resource names, comma-separated: only tasks requesting one of them are sent"};
  static constexpr auto kOptions =
      sdk::options(kUrlPrefix, kTimeout, kOpen, kClose, kPredicate, kPrioritize, kPreemptable,
                   kReclaimable, kOverused, kEnqueueable, kEnqueued, kReady, kAllocate,
                   kDeallocate, kIgnorable, kManaged);

  static sdk::Status check_args(const sdk::Args& a) {
    const std::string url = a.get(kUrlPrefix);
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
      return sdk::Status::error({kUrlPrefix.name, " must be an http:// or https:// address, got '",
                                 url, "'"});
    if (!(a.get(kTimeout) > 0))
      return sdk::Status::error({kTimeout.name, " must be a positive duration"});
    return sdk::Status::ok();
  }

  Extender(sdk::Session s, const sdk::Args& a)
      : ssn_(s), url_(a.get(kUrlPrefix)), ignorable_(a.get(kIgnorable)) {
    while (!url_.empty() && url_.back() == '/') url_.pop_back();
    timeout_ms_ = static_cast<long>(std::ceil(a.get(kTimeout) * 1000));
    auto verb = [&](const sdk::String& o) { return std::string(a.get(o)); };
    open_ = verb(kOpen);
    close_ = verb(kClose);
    predicate_ = verb(kPredicate);
    prioritize_ = verb(kPrioritize);
    preemptable_ = verb(kPreemptable);
    reclaimable_ = verb(kReclaimable);
    overused_ = verb(kOverused);
    enqueueable_ = verb(kEnqueueable);
    enqueued_ = verb(kEnqueued);
    ready_ = verb(kReady);
    allocate_ = verb(kAllocate);
    deallocate_ = verb(kDeallocate);
    std::stringstream managed(verb(kManaged));
    for (std::string r; std::getline(managed, r, ',');) {
      const size_t b = r.find_first_not_of(" \t"), e = r.find_last_not_of(" \t");
      if (b != std::string::npos) managed_.insert(r.substr(b, e - b + 1));
    }
    curl_ = curl_easy_init();
    if (!open_.empty()) {
      json req = {{"Jobs", json::object()}, {"Nodes", json::object()}, {"Queues", json::object()},
                  {"NamespaceInfo", json::object()}, {"RevocableNodes", json::object()},
                  {"NodeList", json::array()}};
      for (size_t i = 0; i < s.job_count(); ++i) {
        const sdk::Job j = s.job(i);
        req["Jobs"][std::string(j.name())] = job_json(j);
      }
      for (size_t i = 0; i < s.node_count(); ++i) {
        const sdk::Node n = s.node(i);
        req["Nodes"][std::string(n.name())] = node_json(n);
        req["NodeList"].push_back(std::string(n.name()));
      }
      for (size_t i = 0; i < s.queue_count(); ++i) {
        const sdk::Queue q = s.queue(i);
        req["Queues"][std::string(q.name())] = queue_json(q);
      }
      std::string err;
      if (!send(open_, req, nullptr, &err)) {
        warn(open_, err);
        if (!ignorable_) inert_ = true;  // Volcano returns before registering anything
      }
    }
  }

  ~Extender() {
    if (curl_) curl_easy_cleanup(curl_);
  }
  Extender(const Extender&) = delete;
  Extender& operator=(const Extender&) = delete;

  sdk::Status predicate(sdk::Task t, sdk::Node n) {
    if (!active(predicate_) || !interested(t)) return sdk::Status::ok();
    json resp;
    std::string err;
    if (!send(predicate_, {{"task", task_json(t)}, {"node", node_json(n)}}, &resp, &err) ||
        !shape(resp, {{"status", json::value_t::string}, {"code", json::value_t::number_integer}},
               &err)) {
      warn(predicate_, err);
      return ignorable_ ? sdk::Status::ok() : sdk::Status::error(err);
    }
    const std::string message = resp.value("status", "");
    if (message.empty()) return sdk::Status::ok();
    int64_t code = resp.value("code", int64_t{0});
    if (code == CAL_SUCCESS) code = CAL_ERROR;  // Volcano: a message without a code is an Error
    if (code < CAL_ERROR || code > CAL_SKIP) {
      warn(predicate_, "code " + std::to_string(code) + " is not a status code (0 to 5)");
      return ignorable_ ? sdk::Status::ok() : sdk::Status::error("extender: bad status code");
    }
    if (code == CAL_SKIP) return sdk::Status::ok();
    return sdk::Status{static_cast<cal_code>(code), message};
  }

  void batch_node_order(sdk::Task t, const cal_node* const* nodes, size_t n, double* scores) {
    if (!active(prioritize_) || !interested(t)) return;
    json list = json::array();
    for (size_t i = 0; i < n; ++i) list.push_back(node_json(sdk::Node(nodes[i], ssn_.resource_count())));
    json resp;
    std::string err;
    if (!send(prioritize_, {{"task", task_json(t)}, {"nodes", std::move(list)}}, &resp, &err) ||
        !shape(resp, {{"nodeScore", json::value_t::object}, {"errorMessage", json::value_t::string}},
               &err)) {
      warn(prioritize_, err);
      return;  // Volcano: no scores either way (an error only logged)
    }
    if (!resp.value("errorMessage", "").empty() || !resp.contains("nodeScore")) {
      warn(prioritize_, "errorMessage: " + resp.value("errorMessage", std::string("no nodeScore")));
      return;
    }
    std::map<std::string, double> got;
    for (const auto& [name, v] : resp["nodeScore"].items()) {
      if (!v.is_number() || !std::isfinite(v.get<double>())) {
        warn(prioritize_, "nodeScore[" + name + "] is not a finite number");
        return;
      }
      got[name] = v.get<double>();
    }
    for (size_t i = 0; i < n; ++i) {
      auto it = got.find(std::string(sdk::Node(nodes[i], 0).name()));
      if (it != got.end()) scores[i] += it->second;
    }
  }

  cal_vote preemptable(sdk::Task t, const std::vector<sdk::Task>& c, std::vector<uint8_t>& v) {
    return victims(preemptable_, t, c, v);
  }
  cal_vote reclaimable(sdk::Task t, const std::vector<sdk::Task>& c, std::vector<uint8_t>& v) {
    return victims(reclaimable_, t, c, v);
  }

  cal_vote job_enqueueable(sdk::Job j) {
    if (!active(enqueueable_)) return CAL_ABSTAIN;
    json resp;
    std::string err;
    if (!send(enqueueable_, {{"job", job_json(j)}}, &resp, &err) ||
        !shape(resp, {{"status", json::value_t::number_integer}}, &err) || !vote(resp, &err)) {
      warn(enqueueable_, err);
      return ignorable_ ? CAL_PERMIT : CAL_REJECT;
    }
    return static_cast<cal_vote>(resp.value("status", 0));
  }

  void job_enqueued(sdk::Job j) {
    if (!active(enqueued_)) return;
    std::string err;
    if (!send(enqueued_, {{"job", job_json(j)}}, nullptr, &err)) warn(enqueued_, err);
  }

  bool overused(sdk::Queue q) {
    if (!active(overused_)) return false;
    json resp;
    std::string err;
    if (!send(overused_, {{"queue", queue_json(q)}}, &resp, &err) ||
        !shape(resp, {{"overused", json::value_t::boolean}}, &err)) {
      warn(overused_, err);
      return !ignorable_;
    }
    return resp.value("overused", false);
  }

  bool job_ready(sdk::Job j) {
    if (!active(ready_)) return true;
    json resp;
    std::string err;
    if (!send(ready_, {{"job", job_json(j)}}, &resp, &err) ||
        !shape(resp, {{"status", json::value_t::boolean}}, &err)) {
      warn(ready_, err);
      return ignorable_;
    }
    return resp.value("status", false);
  }

  void on_allocate(sdk::Task t) { event(allocate_, t); }
  void on_deallocate(sdk::Task t) { event(deallocate_, t); }

  void on_close() {
    if (close_.empty()) return;  // sent even when the open verb failed, as Volcano does
    std::string err;
    if (!send(close_, json::object(), nullptr, &err)) warn(close_, err);
  }

 private:
  bool active(const std::string& verb) const { return !inert_ && !verb.empty(); }

  // IsInterested: no managed resources, or the task asks for one of them.
  bool interested(const sdk::Task& t) const {
    if (managed_.empty()) return true;
    const sdk::Res req = t.init_request();
    for (size_t i = 0; i < req.size(); ++i)
      if (req[i] > 0 && managed_.count(std::string(ssn_.resource_name(i)))) return true;
    return false;
  }

  cal_vote victims(const std::string& verb, const sdk::Task& evictor,
                   const std::vector<sdk::Task>& evictees, std::vector<uint8_t>& marked) {
    if (!active(verb)) return CAL_ABSTAIN;
    if (!interested(evictor)) return CAL_ABSTAIN;
    json list = json::array();
    std::map<std::string, size_t> by_uid;
    for (size_t i = 0; i < evictees.size(); ++i) {
      list.push_back(task_json(evictees[i]));
      by_uid[std::string(evictees[i].name())] = i;
    }
    json resp;
    std::string err;
    bool ok = send(verb, {{"evictor", task_json(evictor)}, {"evictees", std::move(list)}}, &resp,
                   &err) &&
              shape(resp, {{"status", json::value_t::number_integer},
                           {"victims", json::value_t::array}},
                    &err) &&
              vote(resp, &err);
    std::vector<size_t> chosen;
    if (ok && resp.contains("victims") && resp["victims"].is_array())
      for (const json& v : resp["victims"]) {
        const std::string uid = v.is_object() ? v.value("UID", "") : "";
        auto it = by_uid.find(uid);
        if (it == by_uid.end()) {
          ok = false;
          err = "victim '" + uid + "' is not one of the evictees";
          break;
        }
        chosen.push_back(it->second);
      }
    if (!ok) {
      warn(verb, err);
      return ignorable_ ? CAL_PERMIT : CAL_REJECT;
    }
    for (size_t i : chosen) marked[i] = 1;
    return static_cast<cal_vote>(resp.value("status", 0));
  }

  void event(const std::string& verb, const sdk::Task& t) {
    if (!active(verb) || !interested(t)) return;
    json resp;
    std::string err;
    if (!send(verb, {{"task", task_json(t)}}, &resp, &err) ||
        !shape(resp, {{"errorMessage", json::value_t::string}}, &err)) {
      warn(verb, err);
      return;
    }
    if (!resp.value("errorMessage", "").empty()) warn(verb, resp.value("errorMessage", ""));
  }

  // A vote in {-1, 0, 1}.
  static bool vote(const json& resp, std::string* err) {
    const int64_t s = resp.value("status", int64_t{0});
    if (s >= -1 && s <= 1) return true;
    *err = "status " + std::to_string(s) + " is not a vote (-1, 0 or 1)";
    return false;
  }

  // The answer is an object whose listed fields, where present, have the listed types (an
  // integer for a number field may also be written as an unsigned one).
  static bool shape(const json& resp, std::initializer_list<std::pair<const char*, json::value_t>> f,
                    std::string* err) {
    if (!resp.is_object()) {
      *err = "the answer is not a JSON object";
      return false;
    }
    for (const auto& [key, type] : f) {
      if (!resp.contains(key) || resp[key].is_null()) continue;
      const json::value_t got = resp[key].type();
      const bool ok = got == type ||
                      (type == json::value_t::number_integer && got == json::value_t::number_unsigned) ||
                      (type == json::value_t::object && key == std::string_view("nodeScore") &&
                       got == json::value_t::object);
      if (!ok) {
        *err = std::string("field '") + key + "' has the wrong type (" + resp[key].type_name() + ")";
        return false;
      }
    }
    return true;
  }

  static size_t collect(char* data, size_t size, size_t n, void* out) {
    std::string& body = *static_cast<std::string*>(out);
    if (body.size() + size * n > kMaxBody) return 0;  // stops the transfer: an error
    body.append(data, size * n);
    return size * n;
  }

  // POSTs the request to <urlPrefix>/<verb>; with `out`, parses the answer. False with the
  // reason on any failure.
  bool send(const std::string& verb, const json& request, json* out, std::string* err) {
    if (curl_ == nullptr) {
      *err = "no HTTP client";
      return false;
    }
    const std::string url = url_ + "/" + verb;
    const std::string body = request.dump();
    std::string answer;
    curl_easy_reset(curl_);
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, timeout_ms_);
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &Extender::collect);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &answer);
    const CURLcode rc = curl_easy_perform(curl_);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
      *err = rc == CURLE_WRITE_ERROR ? "the answer is larger than 10 MB"
                                     : std::string(curl_easy_strerror(rc)) + " (" + url + ")";
      return false;
    }
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
      *err = "failed " + verb + " with extender at URL " + url + ", code " + std::to_string(status);
      return false;
    }
    if (out == nullptr) return true;
    *out = json::parse(answer, nullptr, false);
    if (out->is_discarded()) {
      *err = "the answer is not JSON";
      return false;
    }
    return true;
  }

  void warn(const std::string& verb, const std::string& why) const {
    sdk::log(CAL_LOG_WARN, kName,
             verb + " failed: " + why + (ignorable_ ? " (ignorable: ignored)" : ""));
  }

  // Go's encoding/json of Volcano's api.Resource.
  json resource_json(const sdk::Res& r, int32_t max_tasks = 0) const {
    json scalars = json::object();
    double cpu = 0, mem = 0;
    for (size_t i = 0; i < r.size(); ++i) {
      const std::string_view name = ssn_.resource_name(i);
      if (name == "cpu") cpu = r[i];
      else if (name == "memory") mem = r[i];
      else if (name != "pods" && r[i] != 0) scalars[std::string(name)] = r[i];
    }
    return {{"MilliCPU", cpu}, {"Memory", mem}, {"ScalarResources", scalars},
            {"MaxTaskNum", max_tasks}};
  }

  static json string_map(size_t n, const std::function<std::pair<std::string_view, std::string_view>(size_t)>& at) {
    json m = json::object();
    for (size_t i = 0; i < n; ++i) {
      const auto [k, v] = at(i);
      m[std::string(k)] = std::string(v);
    }
    return m;
  }

  json task_json(const sdk::Task& t) const {
    const std::string uid(t.name());
    const size_t slash = uid.find('/');
    const std::string ns = uid.substr(0, slash), name = uid.substr(slash + 1);
    const sdk::Node node = t.node();
    const sdk::Pod pod = t.pod();
    json labels = pod ? string_map(pod.label_count(), [&](size_t i) {
      return std::make_pair(pod.label_key(i), pod.label_value(i));
    }) : json::object();
    json requests = json::object();
    const sdk::Res req = t.request();
    for (size_t i = 0; i < req.size(); ++i)
      if (req[i] > 0) requests[std::string(ssn_.resource_name(i))] = req[i];
    return {{"UID", uid},
            {"Job", std::string(t.job().name())},
            {"Name", name},
            {"Namespace", ns},
            {"TaskRole", std::string(t.role())},
            {"Resreq", resource_json(t.request())},
            {"InitResreq", resource_json(t.init_request())},
            {"NodeName", node ? std::string(node.name()) : std::string()},
            {"Status", volcano_status(t.status())},
            {"Priority", t.priority()},
            {"Preemptable", t.preemptable()},
            {"BestEffort", t.best_effort()},
            {"Pod", {{"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
                     {"spec", {{"nodeName", node ? std::string(node.name()) : std::string()},
                               {"priority", t.priority()}}},
                     {"status", {{"phase", pod_phase(t.status())}}}}}};
  }

  static const char* pod_phase(cal_task_status s) {
    switch (s) {
      case CAL_TASK_RUNNING: case CAL_TASK_RELEASING: return "Running";
      case CAL_TASK_SUCCEEDED: return "Succeeded";
      case CAL_TASK_FAILED: return "Failed";
      default: return "Pending";
    }
  }

  json node_json(const sdk::Node& n) const {
    const std::string name(n.name());
    json labels = string_map(n.label_count(), [&](size_t i) {
      return std::make_pair(n.label_key(i), n.label_value(i));
    });
    json tasks = json::object();
    for (size_t i = 0; i < n.task_count(); ++i) {
      const sdk::Task t = n.task(i);
      tasks[std::string(t.name())] = task_json(t);
    }
    return {{"Name", name},
            {"Node", {{"metadata", {{"name", name}, {"labels", labels}}},
                      {"spec", {{"unschedulable", n.unschedulable()}}}}},
            {"State", {{"Phase", "Ready"}, {"Reason", ""}}},
            {"Releasing", resource_json(n.releasing())},
            {"Pipelined", resource_json(n.pipelined())},
            {"Idle", resource_json(n.idle())},
            {"Used", resource_json(n.used())},
            {"Allocatable", resource_json(n.allocatable(), n.pods_max())},
            {"Capability", resource_json(n.allocatable(), n.pods_max())},
            {"Tasks", tasks}};
  }

  json job_json(const sdk::Job& j) const {
    static constexpr const char* kPhases[] = {"Pending", "Inqueue", "Running", "Unknown",
                                              "Completed"};
    const std::string uid(j.name());
    const std::string name = uid.substr(uid.find('/') + 1);
    json tasks = json::object();
    for (size_t i = 0; i < j.task_count(); ++i) {
      const sdk::Task t = j.task(i);
      tasks[std::string(t.name())] = task_json(t);
    }
    const sdk::Res min = j.min_resources();
    return {{"UID", uid},
            {"Name", name},
            {"Namespace", std::string(j.ns())},
            {"Queue", std::string(j.queue().name())},
            {"Priority", j.priority()},
            {"MinAvailable", j.min_available()},
            {"TotalRequest", resource_json(j.total_request())},
            {"Allocated", resource_json(j.allocated())},
            {"Tasks", tasks},
            {"PodGroup", {{"metadata", {{"name", name}, {"namespace", std::string(j.ns())}}},
                          {"spec", {{"minMember", j.min_available()},
                                    {"queue", std::string(j.queue().name())},
                                    {"minResources", min ? resource_json(min) : json(nullptr)}}},
                          {"status", {{"phase", kPhases[j.phase()]}}}}}};
  }

  json queue_json(const sdk::Queue& q) const {
    const std::string name(q.name());
    return {{"UID", name},
            {"Name", name},
            {"Weight", q.weight()},
            {"Queue", {{"metadata", {{"name", name}}},
                       {"spec", {{"weight", q.weight()}, {"reclaimable", q.reclaimable()}}}}}};
  }

  sdk::Session ssn_;
  std::string url_;
  bool ignorable_;
  long timeout_ms_ = 1000;
  std::string open_, close_, predicate_, prioritize_, preemptable_, reclaimable_, overused_,
      enqueueable_, enqueued_, ready_, allocate_, deallocate_;
  std::set<std::string> managed_;
  CURL* curl_ = nullptr;
  bool inert_ = false;
};

}  // namespace

CALDERA_PLUGIN(Extender)
