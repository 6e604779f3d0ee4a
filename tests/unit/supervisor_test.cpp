// The supervisor's parts that need no worker: the result's byte format (a round trip, and
// spoiled bytes refused with where), the check of decisions against the cache, and the
// choice of the plugin set after faults (quarantine, fallback, disable, backoff, lifting).
// The workers themselves, with a plugin per kind of fault, are in
// tests/integration/reload (fault-*, startup-fault*).
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "host/session/host_api.hpp"
#include "host/supervisor/decision_check.hpp"
#include "host/supervisor/result_codec.hpp"
#include "host/supervisor/supervisor.hpp"

namespace {

using namespace caldera;

WorkerResult sample() {
  WorkerResult w;
  SessionResult& r = w.result;
  r.binds = {{"ns/a", "n1"}, {"ns/b", "n2"}};
  r.evictions = {"ns/c"};
  r.pipelined = {{"ns/d", "n1"}};
  r.allocated = {{"ns/e", "n2"}};
  r.podgroup_phases = {{"ns/pg", JobPhase::Running}, {"ns/q", JobPhase::Inqueue}};
  r.pending = {{"ns/f", "0/2 nodes are unavailable: 2 Insufficient cpu."}};
  r.job_pending = {{"ns/pg2", "gang: 1/4 tasks"}};
  r.podgroup_unschedulable = {{"ns/pg2", "3/4 tasks in gang unschedulable: pod group is not ready"}};
  r.podgroup_conditions = {{"ns/pg2", "2/4 tasks in gang unschedulable: pod group is not ready"}};
  r.eviction_reasons = {{"ns/v", "preempt"}};
  r.bind_annotations["ns/a"] = {{"volcano.sh/gpu-index", "0;3"}};
  r.plugin_states["tdm"] = PluginState{"/p/tdm.so\nabc", std::make_shared<const std::string>("\x01\x02", 2)};
  r.stats.plugin_seconds = {{"gang", "OnSessionOpen", 0.5}, {"gang", "OnSessionClose", 0.0625}};
  r.stats.preemption_attempts = 3;
  r.stats.preemption_victims = 7;
  r.stats.eviction_transactions = {{"preempt", 2}, {"reclaim", 1}};
  r.top_scores["ns/f"] = {{"n2", 182.5, {{"nodeorder", 100.5}, {"binpack", 82}}},
                          {"n1", 90, {{"nodeorder", 90}, {"binpack", 0}}}};
  r.stats.fair_shares["q1"] = {"proportion", true, {{"cpu", 4000}, {"memory", 8e9}}, 0.75};
  r.stats.fair_shares["q2"] = {"capacity", false, {}, -1};
  w.timings.open_seconds = 0.25;
  w.timings.action_seconds = {{"allocate", 1.5}};
  w.timings.close_seconds = 0.125;
  w.said = {{"topic", "text"}};
  return w;
}

TEST(ResultCodec, RoundTripKeepsEveryField) {
  const WorkerResult in = sample();
  const WorkerResult out = decode_result(encode_result(in));
  EXPECT_EQ(out.result.binds, in.result.binds);
  EXPECT_EQ(out.result.evictions, in.result.evictions);
  EXPECT_EQ(out.result.pipelined, in.result.pipelined);
  EXPECT_EQ(out.result.allocated, in.result.allocated);
  EXPECT_EQ(out.result.podgroup_phases, in.result.podgroup_phases);
  EXPECT_EQ(out.result.pending, in.result.pending);
  EXPECT_EQ(out.result.job_pending, in.result.job_pending);
  EXPECT_EQ(out.result.podgroup_unschedulable, in.result.podgroup_unschedulable);
  EXPECT_EQ(out.result.podgroup_conditions, in.result.podgroup_conditions);
  EXPECT_EQ(out.result.eviction_reasons, in.result.eviction_reasons);
  EXPECT_EQ(out.result.bind_annotations, in.result.bind_annotations);
  ASSERT_EQ(out.result.plugin_states.count("tdm"), 1u);
  EXPECT_EQ(out.result.plugin_states.at("tdm").file_id, "/p/tdm.so\nabc");
  EXPECT_EQ(*out.result.plugin_states.at("tdm").bytes, std::string("\x01\x02", 2));
  ASSERT_EQ(out.result.stats.plugin_seconds.size(), 2u);
  EXPECT_EQ(out.result.stats.plugin_seconds[1].plugin, "gang");
  EXPECT_EQ(out.result.stats.plugin_seconds[1].point, "OnSessionClose");
  EXPECT_EQ(out.result.stats.plugin_seconds[1].seconds, 0.0625);
  EXPECT_EQ(out.result.stats.preemption_attempts, 3u);
  EXPECT_EQ(out.result.stats.preemption_victims, 7);
  ASSERT_EQ(out.result.top_scores.count("ns/f"), 1u);
  const auto& top = out.result.top_scores.at("ns/f");
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].node, "n2");
  EXPECT_EQ(top[0].total, 182.5);
  EXPECT_EQ(top[0].plugins, (std::vector<std::pair<std::string, double>>{{"nodeorder", 100.5}, {"binpack", 82}}));
  EXPECT_EQ(top[1].node, "n1");
  ASSERT_EQ(out.result.stats.fair_shares.size(), 2u);
  const auto& q1 = out.result.stats.fair_shares.at("q1");
  EXPECT_EQ(q1.plugin, "proportion");
  EXPECT_TRUE(q1.has_deserved);
  EXPECT_EQ(q1.deserved, (ResourceList{{"cpu", 4000}, {"memory", 8e9}}));
  EXPECT_EQ(q1.share, 0.75);
  EXPECT_FALSE(out.result.stats.fair_shares.at("q2").has_deserved);
  EXPECT_EQ(out.result.stats.fair_shares.at("q2").share, -1);
  EXPECT_EQ(out.result.stats.eviction_transactions, in.result.stats.eviction_transactions);
  EXPECT_EQ(out.timings.open_seconds, 0.25);
  EXPECT_EQ(out.timings.action_seconds, in.timings.action_seconds);
  EXPECT_EQ(out.timings.close_seconds, 0.125);
  EXPECT_EQ(out.said, in.said);
}

std::string decode_error(const std::string& bytes) {
  try {
    decode_result(bytes);
  } catch (const ResultError& e) {
    return e.what();
  }
  return "";
}

TEST(ResultCodec, SpoiledBytesAreRefusedWithWhere) {
  const std::string good = encode_result(sample());
  EXPECT_EQ(decode_error(""), "session result spoiled: 0 bytes without the header CALRES01");
  EXPECT_EQ(decode_error(good.substr(0, good.size() - 3)),
            "session result spoiled: the header says " + std::to_string(good.size() - 24) +
                " bytes of body, " + std::to_string(good.size() - 27) + " arrived");
  std::string tail = good;
  tail[tail.size() - 1] = 'X';
  EXPECT_EQ(decode_error(tail), "session result spoiled: the trailer is missing");
  // The first field is the bind count (bytes 16..19): a huge count is refused before
  // anything is allocated for it.
  std::string count = good;
  count[19] = '\x7f';
  EXPECT_NE(decode_error(count).find("session result spoiled at byte 16: a count of"),
            std::string::npos)
      << decode_error(count);
  // A phase past the enum: find the phase of "ns/pg" (Running = 2) and make it 9.
  std::string phase = good;
  const size_t at = phase.find("ns/pg") + 5;
  ASSERT_EQ(phase[at], '\x02');
  phase[at] = '\x09';
  EXPECT_NE(decode_error(phase).find("PodGroup ns/pg: phase 9 is no phase"), std::string::npos)
      << decode_error(phase);
}

// Binds streamed during the session: a frame of their own, read back whole, spoiled ones
// refused; the result's frame is not taken for one.
TEST(ResultCodec, StreamedBindsFrames) {
  const SessionResult r = sample().result;
  const SessionResult all = decode_binds(encode_binds(r, 0));
  EXPECT_EQ(all.binds, r.binds);
  EXPECT_EQ(all.bind_annotations, r.bind_annotations);
  const SessionResult rest = decode_binds(encode_binds(r, 1));
  EXPECT_EQ(rest.binds, (std::vector<std::pair<std::string, std::string>>{{"ns/b", "n2"}}));
  EXPECT_TRUE(rest.bind_annotations.empty());
  const std::string one = encode_binds(r, 0), two = encode_binds(r, 1);
  EXPECT_EQ(binds_frame_length(one + two), one.size());
  EXPECT_EQ(binds_frame_length(one.substr(0, one.size() - 1)), 0u);  // not whole yet
  EXPECT_EQ(binds_frame_length(encode_result(sample())), 0u);         // the result's
  std::string spoiled = one;
  spoiled[spoiled.size() - 2] = 'X';
  EXPECT_THROW(decode_binds(spoiled), ResultError);
  std::string count = one;
  count[16] = '\x7f';  // the bind count
  EXPECT_THROW(decode_binds(count), ResultError);
}

Cache small_cluster() {
  Cache c;
  NodeSpec n;
  n.name = "n1";
  n.allocatable = {{"cpu", 4000}, {"memory", 8.0 * (1 << 30)}};
  n.max_pods = 3;
  c.upsert_node(n);
  auto pod = [&](const std::string& name, double cpu, const std::string& node,
                 PodPhase phase = PodPhase::Pending) {
    PodSpec p;
    p.name = name;
    p.requests = {{"cpu", cpu}};
    p.node = node;
    p.phase = phase;
    c.upsert_pod(p);
  };
  pod("running", 2000, "n1", PodPhase::Running);
  pod("done", 4000, "n1", PodPhase::Succeeded);  // holds nothing
  pod("a", 1000, "");
  pod("b", 1000, "");
  pod("c", 1000, "");
  return c;
}

TEST(DecisionCheck, RefusesWhatTheClusterCannotTake) {
  const Cache c = small_cluster();
  SessionResult r;
  r.binds = {{"default/a", "n1"}, {"default/b", "n1"}};
  EXPECT_EQ(check_decisions(r, c), std::nullopt);  // 2 + 1 + 1 = 4 cpu, 3 pods
  r.binds.push_back({"default/c", "n1"});
  EXPECT_EQ(check_decisions(r, c), "node n1 would hold 4 pods, over its 3 allowed");
  r.binds = {{"default/a", "n1"}, {"default/a", "n1"}};
  EXPECT_EQ(check_decisions(r, c), "pod default/a is bound twice");
  // Decisions the cluster moved past (a node or pod gone, a pod bound meanwhile) are
  // skipped at commit, not refused: they take no room either.
  r.binds = {{"default/a", "n9"}, {"default/gone", "n1"}, {"default/running", "n1"},
             {"default/b", "n1"}, {"default/c", "n1"}};
  EXPECT_EQ(check_decisions(r, c), std::nullopt);
  r.binds = {};
  r.evictions = {"default/running", "default/gone"};
  EXPECT_EQ(check_decisions(r, c), std::nullopt);
  r.binds = {{"default/running", "n1"}};
  EXPECT_EQ(check_decisions(r, c), "pod default/running is bound or evicted twice");
}

TEST(DecisionCheck, RefusesABindOverAllocatable) {
  Cache c = small_cluster();
  PodSpec big;
  big.name = "big";
  big.requests = {{"cpu", 2500}};
  c.upsert_pod(big);
  SessionResult r;
  r.binds = {{"default/big", "n1"}};
  EXPECT_EQ(check_decisions(r, c),
            "node n1 would have 4500 of cpu requested, over its allocatable 4000");
}

// The cache's per-node pod index, which the check reads: kept through binds, moves,
// removals and replacements, and made anew by a copy (whose keys are its own).
TEST(DecisionCheck, PerNodePodIndex) {
  Cache c = small_cluster();
  auto keys = [](const Cache& cache, const char* node) {
    std::vector<std::string> out;
    if (const auto* on = cache.pods_on(node))
      for (std::string_view k : *on) out.emplace_back(k);
    return out;
  };
  // Every pod naming the node is listed, a finished one too (the check skips those).
  const std::vector<std::string> before = {"default/done", "default/running"};
  EXPECT_EQ(keys(c, "n1"), before);
  PodSpec p = *c.pod("default/a");
  p.node = "n1";
  c.upsert_pod(p);  // bound
  const std::vector<std::string> with_a = {"default/a", "default/done", "default/running"};
  EXPECT_EQ(keys(c, "n1"), with_a);
  p.requests = {{"cpu", 10}};
  c.upsert_pod(p);  // replaced, same node
  EXPECT_EQ(keys(c, "n1"), with_a);
  Cache copy = c;
  c.remove_pod("default/a");
  EXPECT_EQ(keys(c, "n1"), before);
  EXPECT_EQ(keys(copy, "n1"), with_a);
  p.node.clear();
  copy.upsert_pod(p);  // unbound again in the copy
  EXPECT_EQ(keys(copy, "n1"), before);
  c.remove_pod("default/running");
  c.remove_pod("default/done");
  EXPECT_EQ(c.pods_on("n1"), nullptr);
}

std::shared_ptr<const Policy> policy_of(std::initializer_list<std::pair<std::string, std::string>> plugins) {
  auto p = std::make_shared<Policy>();
  p->tiers.emplace_back();
  for (const auto& [name, sha] : plugins) {
    ConfiguredPlugin cp;
    cp.name = name;
    cp.file_id = "/plugins/" + name + ".so\n" + sha;
    p->tiers[0].push_back(cp);
  }
  return p;
}

SessionFault fault_in(const std::string& plugin, const std::string& sha) {
  SessionFault f;
  f.kind = SessionFault::Kind::Signal;
  f.what = "SIGSEGV";
  f.plugin = plugin;
  f.point = "predicate";
  f.plugin_file_id = "/plugins/" + plugin + ".so\n" + sha;
  return f;
}

TEST(SupervisorPlan, QuarantineFallsBackToTheLastGoodSetAndLiftsOnANewFile) {
  Supervisor sv;
  auto good = policy_of({{"gang", "g1"}});
  auto bad = policy_of({{"gang", "g1"}, {"evil", "e1"}});
  EXPECT_EQ(sv.plan(good).mode, "configured");
  sv.completed(good, 1);
  EXPECT_EQ(sv.plan(bad).policy, bad);
  sv.faulted(fault_in("evil", "e1"), 2);
  ASSERT_EQ(sv.quarantine().count("e1"), 1u);
  Supervisor::Plan p = sv.plan(bad);
  EXPECT_EQ(p.mode, "fallback");
  EXPECT_EQ(p.policy, good);
  EXPECT_NE(p.why.find("plugin evil is quarantined (/plugins/evil.so"), std::string::npos) << p.why;
  EXPECT_TRUE(sv.healthy());
  // The file replaced by other bytes: lifted, the configured set runs.
  auto fixed = policy_of({{"gang", "g1"}, {"evil", "e2"}});
  p = sv.plan(fixed);
  EXPECT_EQ(p.mode, "configured");
  ASSERT_EQ(p.lifted.size(), 1u);
  EXPECT_EQ(p.lifted[0], "plugin evil: /plugins/evil.so was replaced (sha256 e1 -> e2)");
  EXPECT_TRUE(sv.quarantine().empty());
}

TEST(SupervisorPlan, NoGoodSetSchedulesNothingUnlessToldToDisable) {
  auto bad = policy_of({{"gang", "g1"}, {"evil", "e1"}});
  Supervisor sv;
  sv.faulted(fault_in("evil", "e1"), 1);
  Supervisor::Plan p = sv.plan(bad);
  EXPECT_EQ(p.mode, "none");
  EXPECT_EQ(p.policy, nullptr);
  EXPECT_FALSE(sv.healthy());

  Supervisor dis(Supervisor::OnFault::Disable);
  dis.faulted(fault_in("evil", "e1"), 1);
  p = dis.plan(bad);
  EXPECT_EQ(p.mode, "without-quarantined");
  ASSERT_NE(p.policy, nullptr);
  ASSERT_EQ(p.policy->tiers[0].size(), 1u);
  EXPECT_EQ(p.policy->tiers[0][0].name, "gang");
  // A derived set is no set to go back to.
  dis.completed(p.policy, 2);
  auto other = policy_of({{"gang", "g1"}, {"evil", "e1"}, {"x", "x1"}});
  EXPECT_EQ(dis.plan(other).mode, "without-quarantined");
}

TEST(SupervisorPlan, FaultsWithoutAPluginBackOff) {
  auto p = policy_of({{"gang", "g1"}});
  Supervisor sv;
  SessionFault host;
  host.kind = SessionFault::Kind::BadResult;
  sv.faulted(host, 1);  // 1st in a row: no wait
  EXPECT_EQ(sv.plan(p).mode, "configured");
  sv.faulted(host, 2);  // 2nd: 1 period
  EXPECT_EQ(sv.plan(p).mode, "backoff");
  EXPECT_EQ(sv.plan(p).mode, "configured");
  sv.faulted(host, 3);  // 3rd: 3 periods
  for (int i = 0; i < 3; ++i) EXPECT_EQ(sv.plan(p).mode, "backoff");
  EXPECT_EQ(sv.plan(p).mode, "configured");
  sv.completed(p, 4);
  EXPECT_EQ(sv.consecutive_faults(), 0u);
  EXPECT_TRUE(sv.quarantine().empty());  // no plugin was blamed
}

TEST(SessionFaultText, NamesPluginPointNodeAndWhere) {
  SessionFault f;
  f.what = "SIGSEGV";
  f.plugin = "evil";
  f.point = "predicate";
  f.node = "n4";
  f.stage = "action allocate";
  f.task = "ns/p-0";
  EXPECT_EQ(f.text(), "plugin evil, point predicate, node n4: SIGSEGV (in action allocate, task ns/p-0)");
  SessionFault h;
  h.what = "session result spoiled: the trailer is missing";
  EXPECT_EQ(h.text(), "the session (no plugin was running): session result spoiled: the trailer is missing");
}

}  // namespace

// Plugin log output is limited per session (host/session/host_api.hpp): a plugin logging in
// a loop gets kPluginLogLines lines, then one line saying the rest are dropped; long lines
// are cut.
namespace {
TEST(PluginLog, LimitedPerSessionAndCut) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(5000);
  auto logger = std::make_shared<spdlog::logger>("plugin-log-test", sink);
  auto before = spdlog::default_logger();
  spdlog::set_default_logger(logger);
  caldera::reset_plugin_log_budget();
  const std::string long_line(5000, 'x');
  for (int i = 0; i < 1500; ++i)
    caldera::host_api()->log(CAL_LOG_WARN, "chatty", i == 0 ? long_line.c_str() : "again");
  const std::vector<std::string> lines = sink->last_formatted();
  spdlog::set_default_logger(before);
  ASSERT_EQ(lines.size(), caldera::kPluginLogLines + 1);
  EXPECT_NE(lines[0].find("[chatty] " + std::string(caldera::kPluginLogBytes, 'x') + " [cut]"),
            std::string::npos);
  EXPECT_NE(lines.back().find("[chatty] plugin log limit: 1000 lines this session; further "
                              "plugin lines are dropped until the next session"),
            std::string::npos)
      << lines.back();
  EXPECT_EQ(caldera::plugin_log_dropped(), 500u);
  caldera::reset_plugin_log_budget();
  EXPECT_EQ(caldera::plugin_log_dropped(), 0u);
}
}  // namespace
