// The session result's byte format (result_codec.hpp):
//
//   "CALRES01" | u64 length of the body | body | "CALEND01"
//
// Binds streamed during the session (encode_binds) come first, each in a frame of the same
// shape headed "CALBND01".
//
// The body is a sequence of fields in a fixed order; a string is a u32 length and its
// bytes, a list a u32 count and its items, a number a little-endian u32 / u64 / double.
#include "host/supervisor/result_codec.hpp"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <vector>

namespace caldera {

namespace {

constexpr std::string_view kHead = "CALRES01";
constexpr std::string_view kBindsHead = "CALBND01";
constexpr std::string_view kTail = "CALEND01";
// No list or string of a sane result comes near these; a larger count is corruption, not
// a big cluster, and is refused before anything is allocated for it.
constexpr uint32_t kMaxCount = 50'000'000;

class Writer {
 public:
  void u32(uint32_t v) { raw(&v, sizeof v); }
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void pair(const std::pair<std::string, std::string>& p) {
    str(p.first);
    str(p.second);
  }
  template <class C, class F>
  void list(const C& items, F each) {
    u32(static_cast<uint32_t>(items.size()));
    for (const auto& i : items) each(i);
  }
  std::string& out() { return out_; }

 private:
  void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class Reader {
 public:
  Reader(std::string_view in, size_t base) : in_(in), base_(base) {}
  uint32_t u32() { return num<uint32_t>("a 4-byte number"); }
  uint64_t u64() { return num<uint64_t>("an 8-byte number"); }
  double f64() { return num<double>("a floating-point number"); }
  std::string str(const char* what) {
    const uint32_t n = u32();
    need(n, what);
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  std::pair<std::string, std::string> pair(const char* what) {
    std::string a = str(what);
    std::string b = str(what);
    return {std::move(a), std::move(b)};
  }
  uint32_t count(const char* what) {
    const size_t at = at_;
    const uint32_t n = u32();
    // Each item takes at least 4 bytes: a count beyond what is left is corruption.
    if (n > kMaxCount || n > (in_.size() - at_) / 4 + 1)
      fail(at, fmt::format("a count of {} {} with {} bytes left", n, what, in_.size() - at_));
    return n;
  }
  bool done() const { return at_ == in_.size(); }
  size_t offset() const { return base_ + at_; }
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    throw ResultError(fmt::format("session result spoiled at byte {}: {}", base_ + at, what));
  }

 private:
  template <class T>
  T num(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  void need(size_t n, const char* what) const {
    if (in_.size() - at_ < n)
      fail(at_, fmt::format("{} needs {} bytes, {} left", what, n, in_.size() - at_));
  }
  std::string_view in_;
  size_t base_;
  size_t at_ = 0;
};

using Pairs = std::vector<std::pair<std::string, std::string>>;

void write_pairs(Writer& w, const Pairs& v) {
  w.list(v, [&](const auto& p) { w.pair(p); });
}
template <class M>
void write_map(Writer& w, const M& m) {
  w.list(m, [&](const auto& p) {
    w.str(p.first);
    w.str(p.second);
  });
}

Pairs read_pairs(Reader& r, const char* what) {
  Pairs v;
  const uint32_t n = r.count(what);
  v.reserve(n);
  for (uint32_t i = 0; i < n; ++i) v.push_back(r.pair(what));
  return v;
}
template <class M>
M read_map(Reader& r, const char* what) {
  M m;
  const uint32_t n = r.count(what);
  for (uint32_t i = 0; i < n; ++i) {
    auto [k, v] = r.pair(what);
    m.insert_or_assign(std::move(k), std::move(v));
  }
  return m;
}

}  // namespace

namespace {

std::string framed(std::string_view head, const std::string& body) {
  std::string out;
  out.reserve(body.size() + 24);
  out.append(head);
  const uint64_t n = body.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(body);
  out.append(kTail);
  return out;
}

}  // namespace

std::string encode_result(const WorkerResult& wr) {
  const SessionResult& r = wr.result;
  Writer w;
  write_pairs(w, r.binds);
  w.list(r.evictions, [&](const std::string& s) { w.str(s); });
  write_pairs(w, r.pipelined);
  write_pairs(w, r.nominated);
  write_pairs(w, r.allocated);
  w.list(r.podgroup_phases, [&](const auto& p) {
    w.str(p.first);
    w.u32(static_cast<uint32_t>(p.second));
  });
  write_map(w, r.pending);
  write_map(w, r.job_pending);
  write_map(w, r.podgroup_unschedulable);
  write_map(w, r.podgroup_conditions);
  write_map(w, r.eviction_reasons);
  w.list(r.bind_annotations, [&](const auto& p) {
    w.str(p.first);
    write_map(w, p.second);
  });
  w.list(r.volume_bindings, [&](const auto& p) {
    w.str(p.first);
    write_pairs(w, p.second);
  });
  // The scoring plugins' names once, then each score as an index into them: a big
  // backlog's session keeps three nodes times every scorer for each of its tasks.
  std::vector<std::string> scorers;
  std::map<std::string, uint32_t> scorer_index;
  for (const auto& [_, nodes] : r.top_scores)
    for (const NodeScore& n : nodes)
      for (const auto& [plugin, _s] : n.plugins)
        if (scorer_index.emplace(plugin, static_cast<uint32_t>(scorers.size())).second)
          scorers.push_back(plugin);
  w.list(scorers, [&](const std::string& name) { w.str(name); });
  w.list(r.top_scores, [&](const auto& p) {
    w.str(p.first);
    w.list(p.second, [&](const NodeScore& n) {
      w.str(n.node);
      w.f64(n.total);
      w.list(n.plugins, [&](const auto& s) {
        w.u32(scorer_index.at(s.first));
        w.f64(s.second);
      });
    });
  });
  w.list(r.plugin_states, [&](const auto& p) {
    w.str(p.first);
    w.str(p.second.file_id);
    w.str(*p.second.bytes);
  });
  w.list(r.stats.plugin_seconds, [&](const SessionStats::PluginTime& t) {
    w.str(t.plugin);
    w.str(t.point);
    w.f64(t.seconds);
  });
  w.u64(r.stats.preemption_attempts);
  w.u64(static_cast<uint64_t>(r.stats.preemption_victims));
  w.list(r.stats.eviction_transactions, [&](const auto& p) {
    w.str(p.first);
    w.u64(p.second);
  });
  w.list(r.stats.fair_shares, [&](const auto& p) {
    w.str(p.first);
    w.str(p.second.plugin);
    w.u32(p.second.has_deserved ? 1 : 0);
    w.list(p.second.deserved, [&](const auto& d) {
      w.str(d.first);
      w.f64(d.second);
    });
    w.f64(p.second.share);
  });
  w.f64(wr.timings.open_seconds);
  w.list(wr.timings.action_seconds, [&](const auto& p) {
    w.str(p.first);
    w.f64(p.second);
  });
  w.f64(wr.timings.close_seconds);
  write_pairs(w, wr.said);
  w.u64(wr.errors_logged);
  w.list(wr.first_errors, [&](const std::string& e) { w.str(e); });

  return framed(kHead, w.out());
}

bool frame_complete(std::string_view bytes) {
  const size_t frame = kHead.size() + sizeof(uint64_t) + kTail.size();
  if (bytes.size() < kHead.size() + sizeof(uint64_t)) return false;
  uint64_t n;
  std::memcpy(&n, bytes.data() + kHead.size(), sizeof n);
  return n <= bytes.size() && bytes.size() - n >= frame;
}

WorkerResult decode_result(std::string_view bytes) {
  const size_t frame = kHead.size() + sizeof(uint64_t) + kTail.size();
  if (bytes.size() < frame || bytes.substr(0, kHead.size()) != kHead)
    throw ResultError(fmt::format("session result spoiled: {} bytes without the header {}",
                                  bytes.size(), kHead));
  uint64_t n;
  std::memcpy(&n, bytes.data() + kHead.size(), sizeof n);
  if (n != bytes.size() - frame)
    throw ResultError(fmt::format("session result spoiled: the header says {} bytes of body, "
                                  "{} arrived",
                                  n, bytes.size() - frame));
  if (bytes.substr(bytes.size() - kTail.size()) != kTail)
    throw ResultError("session result spoiled: the trailer is missing");

  const size_t base = kHead.size() + sizeof n;
  Reader rd(bytes.substr(base, n), base);
  WorkerResult wr;
  SessionResult& r = wr.result;
  r.binds = read_pairs(rd, "binds");
  for (uint32_t i = 0, c = rd.count("evictions"); i < c; ++i)
    r.evictions.push_back(rd.str("an eviction"));
  r.pipelined = read_pairs(rd, "pipelined tasks");
  r.nominated = read_pairs(rd, "nominated nodes");
  r.allocated = read_pairs(rd, "allocated tasks");
  for (uint32_t i = 0, c = rd.count("PodGroup phases"); i < c; ++i) {
    std::string job = rd.str("a PodGroup");
    const size_t at = rd.offset();
    const uint32_t phase = rd.u32();
    if (phase > static_cast<uint32_t>(JobPhase::Completed))
      rd.fail(at - base, fmt::format("PodGroup {}: phase {} is no phase", job, phase));
    r.podgroup_phases[std::move(job)] = static_cast<JobPhase>(phase);
  }
  r.pending = read_map<std::map<std::string, std::string>>(rd, "pending reasons");
  r.job_pending = read_map<std::map<std::string, std::string>>(rd, "job pending reasons");
  r.podgroup_unschedulable =
      read_map<std::map<std::string, std::string>>(rd, "PodGroup unschedulable events");
  r.podgroup_conditions =
      read_map<std::map<std::string, std::string>>(rd, "PodGroup Unschedulable conditions");
  r.eviction_reasons =
      read_map<std::map<std::string, std::string>>(rd, "eviction reasons");
  for (uint32_t i = 0, c = rd.count("bind annotations"); i < c; ++i) {
    std::string task = rd.str("a task");
    r.bind_annotations[std::move(task)] = read_map<StringMap>(rd, "annotations");
  }
  for (uint32_t i = 0, c = rd.count("volume bindings"); i < c; ++i) {
    std::string task = rd.str("a task");
    r.volume_bindings[std::move(task)] = read_pairs(rd, "claims and volumes");
  }
  std::vector<std::string> scorers;
  for (uint32_t i = 0, c = rd.count("scoring plugins"); i < c; ++i)
    scorers.push_back(rd.str("a scoring plugin's name"));
  for (uint32_t i = 0, c = rd.count("scored tasks"); i < c; ++i) {
    std::string task = rd.str("a task");
    std::vector<NodeScore>& nodes = r.top_scores[std::move(task)];
    for (uint32_t k = 0, m = rd.count("scored nodes"); k < m; ++k) {
      NodeScore n;
      n.node = rd.str("a node name");
      n.total = rd.f64();
      for (uint32_t q = 0, np = rd.count("plugin scores"); q < np; ++q) {
        const size_t at = rd.offset();
        const uint32_t which = rd.u32();
        if (which >= scorers.size())
          rd.fail(at - base, fmt::format("scoring plugin {} of {}", which, scorers.size()));
        n.plugins.emplace_back(scorers[which], rd.f64());
      }
      nodes.push_back(std::move(n));
    }
  }
  for (uint32_t i = 0, c = rd.count("plugin states"); i < c; ++i) {
    std::string plugin = rd.str("a plugin name");
    PluginState st;
    st.file_id = rd.str("a plugin file id");
    st.bytes = std::make_shared<const std::string>(rd.str("a plugin state"));
    r.plugin_states[std::move(plugin)] = std::move(st);
  }
  for (uint32_t i = 0, c = rd.count("plugin timings"); i < c; ++i) {
    SessionStats::PluginTime t;
    t.plugin = rd.str("a plugin name");
    t.point = rd.str("a plugin point");
    t.seconds = rd.f64();
    r.stats.plugin_seconds.push_back(std::move(t));
  }
  r.stats.preemption_attempts = rd.u64();
  r.stats.preemption_victims = static_cast<int64_t>(rd.u64());
  for (uint32_t i = 0, c = rd.count("eviction transactions"); i < c; ++i) {
    std::string action = rd.str("an action");
    r.stats.eviction_transactions[std::move(action)] = rd.u64();
  }
  for (uint32_t i = 0, c = rd.count("queue fair shares"); i < c; ++i) {
    std::string queue = rd.str("a queue name");
    SessionStats::FairShare f;
    f.plugin = rd.str("a plugin name");
    f.has_deserved = rd.u32() != 0;
    for (uint32_t k = 0, n = rd.count("deserved resources"); k < n; ++k) {
      std::string res = rd.str("a resource name");
      f.deserved[std::move(res)] = rd.f64();
    }
    f.share = rd.f64();
    r.stats.fair_shares[std::move(queue)] = std::move(f);
  }
  wr.timings.open_seconds = rd.f64();
  for (uint32_t i = 0, c = rd.count("action timings"); i < c; ++i) {
    std::string a = rd.str("an action");
    wr.timings.action_seconds.emplace_back(std::move(a), rd.f64());
  }
  wr.timings.close_seconds = rd.f64();
  wr.said = read_pairs(rd, "warnings said");
  wr.errors_logged = rd.u64();
  for (uint32_t i = 0, c = rd.count("error lines"); i < c; ++i)
    wr.first_errors.push_back(rd.str("an error line"));
  if (!rd.done()) rd.fail(rd.offset() - base, "bytes left after the last field");
  return wr;
}

std::string encode_binds(const SessionResult& r, size_t from) {
  Writer w;
  const size_t count = r.binds.size() > from ? r.binds.size() - from : 0;
  w.u32(static_cast<uint32_t>(count));
  for (size_t i = from; i < r.binds.size(); ++i) {
    const auto& [task, node] = r.binds[i];
    w.str(task);
    w.str(node);
    auto a = r.bind_annotations.find(task);
    write_map(w, a == r.bind_annotations.end() ? StringMap{} : a->second);
    auto v = r.volume_bindings.find(task);
    write_pairs(w, v == r.volume_bindings.end() ? std::vector<std::pair<std::string, std::string>>{}
                                                : v->second);
  }
  return framed(kBindsHead, w.out());
}

size_t binds_frame_length(std::string_view bytes) {
  const size_t frame = kBindsHead.size() + sizeof(uint64_t) + kTail.size();
  if (bytes.size() < kBindsHead.size() + sizeof(uint64_t) ||
      bytes.substr(0, kBindsHead.size()) != kBindsHead)
    return 0;
  uint64_t n;
  std::memcpy(&n, bytes.data() + kBindsHead.size(), sizeof n);
  if (n > bytes.size() || bytes.size() - n < frame) return 0;
  return static_cast<size_t>(n) + frame;
}

SessionResult decode_binds(std::string_view bytes) {
  const size_t frame = kBindsHead.size() + sizeof(uint64_t) + kTail.size();
  if (bytes.size() < frame || bytes.substr(0, kBindsHead.size()) != kBindsHead)
    throw ResultError(fmt::format("streamed binds spoiled: {} bytes without the header {}",
                                  bytes.size(), kBindsHead));
  uint64_t n;
  std::memcpy(&n, bytes.data() + kBindsHead.size(), sizeof n);
  if (n != bytes.size() - frame || bytes.substr(bytes.size() - kTail.size()) != kTail)
    throw ResultError("streamed binds spoiled: the length or the trailer is wrong");
  const size_t base = kBindsHead.size() + sizeof n;
  Reader rd(bytes.substr(base, n), base);
  SessionResult r;
  for (uint32_t i = 0, c = rd.count("streamed binds"); i < c; ++i) {
    std::string task = rd.str("a task");
    std::string node = rd.str("a node name");
    StringMap annotations = read_map<StringMap>(rd, "annotations");
    auto volumes = read_pairs(rd, "claims and volumes");
    if (!annotations.empty()) r.bind_annotations[task] = std::move(annotations);
    if (!volumes.empty()) r.volume_bindings[task] = std::move(volumes);
    r.binds.emplace_back(std::move(task), std::move(node));
  }
  if (!rd.done()) rd.fail(rd.offset() - base, "bytes left after the last field");
  return r;
}

}  // namespace caldera
