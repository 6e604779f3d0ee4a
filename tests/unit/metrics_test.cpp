// The scheduler's metrics (host/metrics/): the text exposition as client_golang writes it,
// the series volcano-scheduler's names are given from a session, what a session counts
// (plugin timings, preemption), and the HTTP endpoints on a real socket.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>

#include "host/cache/cache.hpp"
#include "host/cli/commands.hpp"
#include "host/metrics/explanations.hpp"
#include "host/metrics/http_endpoints.hpp"
#include "host/metrics/registry.hpp"
#include "host/metrics/scheduler_metrics.hpp"
#include "host/scenario/scenario_file.hpp"
#include "host/plugins/policy.hpp"
#include "host/scheduler/run_session.hpp"
#include "host/session/session.hpp"
#include "host/util/clock.hpp"
#include "host/util/input_error.hpp"

namespace {

using namespace caldera;
using caldera::metrics::Kind;
using caldera::metrics::Registry;
namespace fs = std::filesystem;

TEST(MetricsFormat, NumbersAsGoWritesThem) {
  using caldera::metrics::format_value;
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(1), "1");
  EXPECT_EQ(format_value(-2.5), "-2.5");
  EXPECT_EQ(format_value(123456), "123456");
  EXPECT_EQ(format_value(1e6), "1e+06");
  EXPECT_EQ(format_value(6.8719476736e11), "6.8719476736e+11");
  EXPECT_EQ(format_value(0.1), "0.1");
  EXPECT_EQ(format_value(0.0001), "0.0001");
  EXPECT_EQ(format_value(0.00001), "1e-05");
  EXPECT_EQ(format_value(1.5e-7), "1.5e-07");
  EXPECT_EQ(format_value(0.035237000000000004), "0.035237000000000004");
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
}

TEST(MetricsFormat, ExponentialBucketsRangeAsClientGolang) {
  const auto b = caldera::metrics::exponential_buckets_range(1, 5000, 20);
  ASSERT_EQ(b.size(), 20u);
  EXPECT_EQ(b.front(), 1);
  EXPECT_NEAR(b.back(), 5000, 1e-9);
  EXPECT_NEAR(b[1], std::pow(5000.0, 1.0 / 19), 1e-12);
  EXPECT_THROW(caldera::metrics::exponential_buckets_range(0, 10, 3), std::logic_error);
}

TEST(MetricsRegistry, TextExposition) {
  Registry r;
  r.declare("c_total", Kind::Counter, "A counter\nwith a \\ in its help", {"result"});
  r.declare("g", Kind::Gauge, "A gauge without labels");
  r.declare("empty", Kind::Gauge, "A labelled family without series", {"x"});
  r.declare("h_ms", Kind::Histogram, "A histogram", {"stage"}, {1, 10});
  r.add("c_total", {"ok"}, 2);
  r.add("c_total", {"ok"}, 3);
  r.add("c_total", {"say \"hi\"\n\\"}, 1);
  r.observe("h_ms", {"Bound"}, 0.5);
  r.observe("h_ms", {"Bound"}, 5);
  r.observe("h_ms", {"Bound"}, 50);
  EXPECT_EQ(r.text(),
            "# HELP c_total A counter\\nwith a \\\\ in its help\n"
            "# TYPE c_total counter\n"
            "c_total{result=\"ok\"} 5\n"
            "c_total{result=\"say \\\"hi\\\"\\n\\\\\"} 1\n"
            "# HELP g A gauge without labels\n"
            "# TYPE g gauge\n"
            "g 0\n"
            "# HELP h_ms A histogram\n"
            "# TYPE h_ms histogram\n"
            "h_ms_bucket{stage=\"Bound\",le=\"1\"} 1\n"
            "h_ms_bucket{stage=\"Bound\",le=\"10\"} 2\n"
            "h_ms_bucket{stage=\"Bound\",le=\"+Inf\"} 3\n"
            "h_ms_sum{stage=\"Bound\"} 55.5\n"
            "h_ms_count{stage=\"Bound\"} 3\n");
  EXPECT_EQ(r.value("c_total", {"ok"}), 5);
  EXPECT_EQ(r.value("h_ms", {"Bound"}), 3);
}

TEST(MetricsRegistry, MisuseIsAProgrammingError) {
  Registry r;
  r.declare("g", Kind::Gauge, "g", {"a"});
  EXPECT_THROW(r.declare("g", Kind::Gauge, "again"), std::logic_error);
  EXPECT_THROW(r.declare("h", Kind::Histogram, "no buckets"), std::logic_error);
  EXPECT_THROW(r.add("g", {"x"}, 1), std::logic_error);         // a gauge, not a counter
  EXPECT_THROW(r.set("g", {}, 1), std::logic_error);            // one label value missing
  EXPECT_THROW(r.set("nope", {}, 1), std::logic_error);         // not declared
  r.declare("c", Kind::Counter, "c");
  EXPECT_THROW(r.add("c", {}, -1), std::logic_error);           // counters only grow
}

TEST(MetricsRegistry, SetAllReplacesTheFamily) {
  Registry r;
  r.declare("q", Kind::Gauge, "q", {"queue_name"});
  r.set_all("q", {{{"a"}, 1}, {{"b"}, 2}});
  r.set_all("q", {{{"b"}, 3}});
  EXPECT_EQ(r.text(), "# HELP q q\n# TYPE q gauge\nq{queue_name=\"b\"} 3\n");
  r.remove("q", {"b"});
  EXPECT_EQ(r.text(), "");  // a labelled family without series is not shown
}

PodSpec pod(std::string name, std::string podgroup, double cpu, std::string node,
            double created) {
  PodSpec p;
  p.ns = "ns";
  p.name = std::move(name);
  p.podgroup = std::move(podgroup);
  p.requests = {{"cpu", cpu}, {"memory", 1024}, {"nvidia.com/gpu", node.empty() ? 0 : 1000}};
  p.node = std::move(node);
  p.phase = p.node.empty() ? PodPhase::Pending : PodPhase::Running;
  p.created = created;
  return p;
}

// The series of one session, from a result made by hand and the cache it was committed to.
TEST(SchedulerMetrics, SeriesFromASession) {
  Cache cache;
  QueueSpec q;
  q.name = "q1";
  q.weight = 3;
  q.capability = ResourceList{{"cpu", 8000}, {"memory", 1 << 20}};
  cache.upsert_queue(q);
  PodGroupSpec pg;
  pg.ns = "ns";
  pg.name = "job";
  pg.queue = "q1";
  pg.created = 100;
  cache.upsert_podgroup(pg);
  cache.upsert_pod(pod("a", "job", 1000, "n1", 100));
  cache.upsert_pod(pod("b", "job", 2000, "n1", 101));
  cache.upsert_pod(pod("c", "job", 500, "", 102));

  SessionTimings t;
  t.open_seconds = 0.002;
  t.action_seconds = {{"allocate", 0.003}};
  t.close_seconds = 0.001;
  SessionResult r;
  r.binds = {{"ns/a", "n1"}, {"ns/b", "n1"}};
  r.pending = {{"ns/c", "0/1 nodes are unavailable"}};
  r.job_pending = {{"ns/job", "gang"}};
  r.stats.plugin_seconds = {{"gang", "OnSessionOpen", 0.0005}};
  r.stats.preemption_attempts = 2;
  r.stats.preemption_victims = 3;
  r.stats.eviction_transactions = {{"preempt", 1}, {"shuffle", 4}};
  r.stats.fair_shares["q1"] = {"proportion", true, {{"cpu", 2500}, {"memory", 1 << 19}}, 1.2};

  metrics::SchedulerMetrics m;
  m.session(t, r, cache, 104);
  const Registry& g = m.registry();
  EXPECT_EQ(g.value("volcano_e2e_scheduling_latency_milliseconds", {}), 1);
  EXPECT_EQ(g.value("volcano_action_scheduling_latency_milliseconds", {"allocate"}), 1);
  EXPECT_EQ(g.value("volcano_plugin_scheduling_latency_milliseconds", {"gang", "OnSessionOpen"}), 1);
  EXPECT_EQ(g.value("volcano_schedule_attempts_total", {"scheduled"}), 2);
  EXPECT_EQ(g.value("volcano_schedule_attempts_total", {"unschedulable"}), 1);
  EXPECT_EQ(g.value("volcano_total_preemption_attempts", {}), 2);
  EXPECT_EQ(g.value("volcano_pod_preemption_victims", {}), 3);
  EXPECT_EQ(g.value("volcano_eviction_transactions_total", {"preempt"}), 1);
  EXPECT_EQ(g.value("volcano_eviction_transactions_total", {"shuffle"}), 0);  // not Volcano's
  EXPECT_EQ(g.value("volcano_task_scheduling_latency_milliseconds", {"Bound"}), 2);
  EXPECT_EQ(g.value("volcano_e2e_job_scheduling_duration", {"job", "q1", "ns"}), 4000);
  EXPECT_EQ(g.value("volcano_e2e_job_scheduling_start_time", {"job", "q1", "ns"}), 100);
  EXPECT_EQ(g.value("volcano_e2e_job_scheduling_last_time", {"job", "q1", "ns"}), 104);
  EXPECT_EQ(g.value("volcano_unschedule_task_count", {"job"}), 1);
  EXPECT_EQ(g.value("volcano_unschedule_job_count", {}), 1);
  EXPECT_EQ(g.value("volcano_queue_allocated_milli_cpu", {"q1"}), 3000);
  EXPECT_EQ(g.value("volcano_queue_request_milli_cpu", {"q1"}), 3500);
  EXPECT_EQ(g.value("volcano_queue_allocated_scalar_resources", {"q1", "nvidia.com/gpu"}), 2000);
  EXPECT_EQ(g.value("volcano_queue_capacity_milli_cpu", {"q1"}), 8000);
  EXPECT_EQ(g.value("volcano_queue_capacity_memory_bytes", {"q1"}), 1 << 20);
  EXPECT_EQ(g.value("volcano_queue_weight", {"q1"}), 3);
  // Deserved and share as proportion worked them out.
  EXPECT_EQ(g.value("volcano_queue_deserved_milli_cpu", {"q1"}), 2500);
  EXPECT_EQ(g.value("volcano_queue_deserved_memory_bytes", {"q1"}), 1 << 19);
  EXPECT_EQ(g.value("volcano_queue_share", {"q1"}), 1.2);

  // The next session: the job is gone, so are its series; nothing pending any more.
  cache.remove_podgroup("ns/job");
  cache.remove_queue("q1");
  m.session(t, SessionResult{}, cache, 105);
  EXPECT_EQ(m.text().find("job_name=\"job\""), std::string::npos);
  EXPECT_EQ(m.text().find("job_id=\"job\""), std::string::npos);
  EXPECT_EQ(m.text().find("queue_name=\"q1\""), std::string::npos);
  EXPECT_EQ(g.value("volcano_e2e_scheduling_latency_milliseconds", {}), 2);
}

// What a real session counts: each plugin's open and close, and the preempt action's
// attempts, victims and committed eviction (the scenario's derivation says which).
TEST(SchedulerMetrics, SessionCountsPluginsAndPreemption) {
  Scenario s = load_scenario(fs::path(CALDERA_SOURCE_ROOT) / "tests" / "scenarios" /
                                 "preempt-higher-priority-job-preempts-lower.toml",
                             {CALDERA_BUILTIN_PLUGIN_DIR});
  auto policy = build_policy(s.config, PluginCatalog::scan(s.config.plugin_dirs), "");
  Runtime runtime;
  SessionTimings t;
  const SessionResult r = run_session(s.cache, policy, 0, runtime, &t);
  ASSERT_EQ(r.evictions.size(), 2u);
  // Each victim with the action that chose it (the Evict event's "because of preempt").
  for (const std::string& v : r.evictions) EXPECT_EQ(r.eviction_reasons.at(v), "preempt") << v;
  size_t opens = 0, closes = 0;
  for (const auto& p : r.stats.plugin_seconds) {
    opens += p.point == "OnSessionOpen";
    closes += p.point == "OnSessionClose";
    EXPECT_GE(p.seconds, 0);
  }
  EXPECT_EQ(opens, 4u);  // conformance, gang, priority, proportion
  EXPECT_EQ(closes, 4u);
  EXPECT_EQ(r.stats.preemption_attempts, 2u);  // high-1 and high-2, each on n1
  EXPECT_EQ(r.stats.preemption_victims, 2);    // the last node offered low-1, low-2
  EXPECT_EQ(r.stats.eviction_transactions, (std::map<std::string, uint64_t>{{"preempt", 1}}));
  // proportion's figures for q1 (the scenario's derivation): deserved min(cluster, request)
  // = 4 cpu and 6Gi (4 running + 2 pending of 1 cpu, 1Gi); at close the two victims are
  // gone and the two preemptors pipelined: allocated 4 cpu, 4Gi, share max(4/4, 4/6) = 1.
  ASSERT_EQ(r.stats.fair_shares.count("q1"), 1u);
  const SessionStats::FairShare& f = r.stats.fair_shares.at("q1");
  EXPECT_EQ(f.plugin, "proportion");
  ASSERT_TRUE(f.has_deserved);
  EXPECT_EQ(f.deserved.at("cpu"), 4000);
  EXPECT_EQ(f.deserved.at("memory"), 6.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(f.share, 1.0);
}

// ---- the endpoints on loopback ----------------------------------------------------------

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// status line and body of GET `path`.
std::pair<std::string, std::string> get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return {"no connection", ""};
  }
  const std::string req = "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n\r\n";
  (void)!::write(fd, req.data(), req.size());
  std::string resp;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) resp.append(buf, static_cast<size_t>(n));
  ::close(fd);
  const size_t eol = resp.find("\r\n"), body = resp.find("\r\n\r\n");
  return {resp.substr(0, eol), body == std::string::npos ? "" : resp.substr(body + 4)};
}

TEST(HttpEndpoints, ServeMetricsHealthAndReadiness) {
  const int mport = free_port(), hport = free_port();
  metrics::Health health;
  metrics::HttpEndpoints::Options o;
  o.metrics_address = "127.0.0.1:" + std::to_string(mport);
  o.healthz_address = "127.0.0.1:" + std::to_string(hport);
  metrics::HttpEndpoints e(o, [] { return std::string("volcano_x 1\n"); }, &health);

  auto [status, body] = get(mport, "/metrics");
  EXPECT_EQ(status, "HTTP/1.1 200 OK");
  EXPECT_EQ(body, "volcano_x 1\n");
  EXPECT_EQ(get(mport, "/healthz").first.substr(9, 3), "404");  // on the other address
  EXPECT_EQ(get(hport, "/metrics").first.substr(9, 3), "404");

  EXPECT_EQ(get(hport, "/healthz"), std::make_pair(std::string("HTTP/1.1 200 OK"), std::string("ok\n")));
  EXPECT_EQ(get(hport, "/readyz"),
            std::make_pair(std::string("HTTP/1.1 503 Service Unavailable"),
                           std::string("not ready: starting\n")));
  health.set_ready(true, "");
  EXPECT_EQ(get(hport, "/readyz").second, "ok\n");
  // No progress for longer than allowed: the liveness probe fails, and says why.
  health.progressed(monotonic_seconds() - 100, 30);
  auto [st, why] = get(hport, "/healthz");
  EXPECT_EQ(st, "HTTP/1.1 500 Internal Server Error");
  EXPECT_NE(why.find("has not moved for 100s (limit 30s)"), std::string::npos) << why;
  health.progressed(monotonic_seconds(), 30);
  EXPECT_EQ(get(hport, "/healthz").second, "ok\n");
}

TEST(HttpEndpoints, AddressesAndBindFailures) {
  using metrics::HttpEndpoints;
  EXPECT_EQ(HttpEndpoints::civetweb_port(":8080", "--listen-address"), "8080");
  EXPECT_EQ(HttpEndpoints::civetweb_port("0.0.0.0:11251", "--healthz-address"), "0.0.0.0:11251");
  EXPECT_EQ(HttpEndpoints::civetweb_port("[::1]:9090", "--listen-address"), "[::1]:9090");
  try {
    HttpEndpoints::civetweb_port("localhost", "--listen-address");
    ADD_FAILURE() << "no port accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--listen-address localhost: not an address with a port"),
              std::string::npos);
  }
  EXPECT_THROW(HttpEndpoints::civetweb_port(":99999", "--listen-address"), InputError);
  // A port already taken: refused with the flag and the address.
  const int port = free_port();
  metrics::HttpEndpoints::Options o;
  o.metrics_address = "127.0.0.1:" + std::to_string(port);
  HttpEndpoints first(o, [] { return std::string(); }, nullptr);
  try {
    HttpEndpoints second(o, [] { return std::string(); }, nullptr);
    ADD_FAILURE() << "a second server on the same port";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--listen-address 127.0.0.1:" + std::to_string(port) +
                                         ": cannot listen"),
              std::string::npos)
        << e.what();
  }
}

// ---- caldera explain ------------------------------------------------------------------

// A real session keeps each scored task's best nodes with every plugin's part when the
// runtime asks for them, and the explanation store answers for the pod. binpack-01: p-0
// (1 cpu, 1Gi) scored on n1 (empty) and n2 (2 cpu, 4Gi used), 4 cpu / 8Gi each; binpack
// weight 10, cpu 2, memory 1: n2 (2*3/4 + 1*5/8) / 3 * 100 * 10 = 708.33, n1
// (2*1/4 + 1*1/8) / 3 * 1000 = 208.33.
TEST(Explain, SessionKeepsTheBestNodesWithEachPluginsScore) {
  Scenario s = load_scenario(fs::path(CALDERA_SOURCE_ROOT) / "tests" / "scenarios" / "binpack-01.toml",
                             {CALDERA_BUILTIN_PLUGIN_DIR});
  auto policy = build_policy(s.config, PluginCatalog::scan(s.config.plugin_dirs), "");
  Runtime runtime;
  SessionTimings t;
  EXPECT_TRUE(run_session(s.cache, policy, 0, runtime, &t).top_scores.empty())
      << "nothing kept unless asked";
  runtime.set_explain_top(metrics::Explanations::kTopNodes);
  const SessionResult r = run_session(s.cache, policy, 0, runtime, &t);
  ASSERT_EQ(r.top_scores.count("c1/p-0"), 1u);
  const auto& top = r.top_scores.at("c1/p-0");
  ASSERT_EQ(top.size(), 2u);  // two nodes: both kept
  EXPECT_EQ(top[0].node, "n2");
  EXPECT_EQ(top[1].node, "n1");
  auto part = [](const NodeScore& n, const std::string& plugin) {
    for (const auto& [name, v] : n.plugins)
      if (name == plugin) return v;
    return -1.0;
  };
  EXPECT_NEAR(part(top[0], "binpack"), 708.333, 0.01);
  EXPECT_NEAR(part(top[1], "binpack"), 208.333, 0.01);
  for (const NodeScore& n : top) {
    double sum = 0;
    for (const auto& [_, v] : n.plugins) sum += v;
    EXPECT_DOUBLE_EQ(n.total, sum) << n.node;
  }

  metrics::Explanations ex;
  ex.record(r, s.cache, 42);
  auto [status, body] = ex.query("c1/p-0");
  EXPECT_EQ(status, 200);
  EXPECT_NE(body.find("\"state\":\"bound\",\"node\":\"n2\""), std::string::npos) << body;
  EXPECT_NE(body.find("\"job\":\"c1/pg1\""), std::string::npos) << body;
  EXPECT_NE(body.find("\"node\":\"n2\",\"total\":708.33"), std::string::npos) << body;
  EXPECT_EQ(ex.query("c1/r-0").first, 404) << "bound before this session: nothing decided";
}

// The route and the command: /debug/explain beside /metrics, and `caldera explain`
// printing a pending pod's reasons and a bound pod's scores.
TEST(Explain, CommandAsksTheRunningSchedulersEndpoint) {
  Cache cache;
  PodGroupSpec pg;
  pg.ns = "ns";
  pg.name = "job";
  pg.queue = "q1";
  cache.upsert_podgroup(pg);
  cache.upsert_pod(pod("a", "job", 1000, "", 100));
  cache.upsert_pod(pod("b", "job", 1000, "", 100));
  SessionResult r;
  r.binds = {{"ns/a", "n7"}};
  r.top_scores["ns/a"] = {{"n7", 150, {{"nodeorder", 100}, {"binpack", 50}}},
                          {"n3", 90.5, {{"nodeorder", 90.5}, {"binpack", 0}}}};
  r.pending = {{"ns/b", "0/2 nodes are unavailable: 2 Insufficient cpu."}};
  r.job_pending = {{"ns/job", "gang: 1/2 tasks"}};
  metrics::Explanations ex;
  ex.record(r, cache, 7);

  const int port = free_port();
  metrics::HttpEndpoints::Options o;
  o.metrics_address = "127.0.0.1:" + std::to_string(port);
  metrics::HttpEndpoints e(o, [] { return std::string(); }, nullptr,
                           [&ex](const std::string& p) { return ex.query(p); });
  EXPECT_EQ(get(port, "/debug/explain").first, "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(get(port, "/debug/explain?pod=ns%2Fzzz").first, "HTTP/1.1 404 Not Found");

  const std::string address = "127.0.0.1:" + std::to_string(port);
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli::explain("ns/b", address), 0);
  EXPECT_EQ(cli::explain("ns/a", address), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out,
            "ns/b: pending (session 1 at t=7)\n"
            "  job: ns/job\n"
            "  why pending: 0/2 nodes are unavailable: 2 Insufficient cpu.\n"
            "  the job's reasons: gang: 1/2 tasks\n"
            "ns/a: bound on n7 (session 1 at t=7)\n"
            "  job: ns/job\n"
            "  best-scored nodes of its last scoring:\n"
            "    n7                            150   nodeorder 100, binpack 50\n"
            "    n3                          90.50   nodeorder 90.50, binpack 0\n");
  // A pod the last session did not decide on, and an address nothing listens on.
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli::explain("ns/zzz", address), 1);
  EXPECT_NE(::testing::internal::GetCapturedStdout().find("no session has decided about this pod"),
            std::string::npos);
  // A later session that decides nothing about a: its bind is still explained, and says
  // how long ago; a pod gone from the cache is forgotten.
  cache.remove_pod("ns/b");
  ex.record(SessionResult{}, cache, 9);
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli::explain("ns/a", address), 0);
  EXPECT_EQ(cli::explain("ns/b", address), 1);
  const std::string later = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(later.find("ns/a: bound on n7 (session 1 at t=7; 1 session since)\n"), std::string::npos)
      << later;
  EXPECT_NE(later.find("ns/b: no session has decided about this pod"), std::string::npos) << later;
  // Pipelined with scores, bound a session later without a scoring (as preempt's
  // preemptors are): the bind is explained with the scores that chose the node.
  cache.upsert_pod(pod("c", "job", 1000, "", 100));
  SessionResult pipelined;
  pipelined.pipelined = {{"ns/c", "n3"}};
  pipelined.top_scores["ns/c"] = {{"n3", 70, {{"nodeorder", 70}}}};
  ex.record(pipelined, cache, 10);
  SessionResult bound;
  bound.binds = {{"ns/c", "n3"}};
  ex.record(bound, cache, 11);
  const std::string c = ex.query("ns/c").second;
  EXPECT_NE(c.find("\"decided_in_session\":4"), std::string::npos) << c;
  EXPECT_NE(c.find("\"state\":\"bound\",\"node\":\"n3\""), std::string::npos) << c;
  EXPECT_NE(c.find("\"top_nodes\":[{\"node\":\"n3\",\"total\":70.0"), std::string::npos) << c;
  EXPECT_NE(c.find("\"scored_in_session\":3"), std::string::npos) << c;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli::explain("ns/a", "127.0.0.1:" + std::to_string(free_port())), 1);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("--enable-metrics"), std::string::npos);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli::explain("no-namespace", address), 2);
  EXPECT_EQ(cli::explain("ns/a", "localhost"), 2);
  ::testing::internal::GetCapturedStderr();
}

}  // namespace
