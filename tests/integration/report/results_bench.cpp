// caldera-results-bench: what collecting a run's results costs per session, and what writing
// the files costs at the end (host/results/). A cluster of NODES nodes (64 cpu, 256 GB,
// 8 GPUs), 10 queues, PODS running pods (2 cpu, 4 GB, 1 GPU; 4 per job); the collector
// records SESSIONS sessions of it, then every file is written to a temporary folder.
//
//   caldera-results-bench [NODES PODS SESSIONS]     (default 1000 20000 200)
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "host/results/collector.hpp"
#include "host/results/results_files.hpp"

int main(int argc, char** argv) {
  using namespace caldera;
  using Clock = std::chrono::steady_clock;
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int pods = argc > 2 ? std::atoi(argv[2]) : 20000;
  const int sessions = argc > 3 ? std::atoi(argv[3]) : 200;
  if (nodes < 1 || pods < 0 || sessions < 1) {
    fmt::print(stderr, "usage: caldera-results-bench [NODES PODS SESSIONS]\n");
    return 2;
  }
  Cache cache;
  for (int q = 0; q < 10; ++q) {
    QueueSpec qs;
    qs.name = fmt::format("q{}", q);
    cache.upsert_queue(qs);
  }
  for (int n = 0; n < nodes; ++n) {
    NodeSpec ns;
    ns.name = fmt::format("node-{:05d}", n);
    ns.allocatable = {{"cpu", 64000}, {"memory", 256e9}, {"nvidia.com/gpu", 8000}};
    cache.upsert_node(ns);
  }
  for (int j = 0; j < (pods + 3) / 4; ++j) {
    PodGroupSpec pg;
    pg.name = fmt::format("job-{:06d}", j);
    pg.queue = fmt::format("q{}", j % 10);
    cache.upsert_podgroup(pg);
  }
  for (int p = 0; p < pods; ++p) {
    PodSpec ps;
    ps.name = fmt::format("job-{:06d}-task-{}", p / 4, p % 4);
    ps.podgroup = fmt::format("job-{:06d}", p / 4);
    ps.requests = {{"cpu", 2000}, {"memory", 4e9}, {"nvidia.com/gpu", 1000}};
    ps.node = fmt::format("node-{:05d}", p % nodes);
    ps.phase = PodPhase::Running;
    cache.upsert_pod(ps);
  }

  ResultsCollector collector(cache);
  auto t0 = Clock::now();
  for (int s = 0; s < sessions; ++s) collector.record_session(s, SessionResult{}, cache);
  double collect = std::chrono::duration<double>(Clock::now() - t0).count();

  auto dir = std::filesystem::temp_directory_path() / fmt::format("caldera-results-bench-{}", ::getpid());
  prepare_results_dir(dir);
  t0 = Clock::now();
  write_results(dir, collector.results());
  double write = std::chrono::duration<double>(Clock::now() - t0).count();
  uintmax_t bytes = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) bytes += f.file_size();
  std::filesystem::remove_all(dir);

  fmt::print("results: {} nodes, {} pods, {} sessions\n", nodes, pods, sessions);
  fmt::print("  collect  {:8.3f} ms per session  ({:.0f} ns per pod)\n", collect / sessions * 1e3,
             pods ? collect / sessions / pods * 1e9 : 0.0);
  fmt::print("  write    {:8.3f} s for every file  ({:.1f} MB)\n", write, bytes / 1e6);
  return 0;
}
