// The benchmark's cases and how one is measured.
//
// A case runs in a child process of its own (fork), so that its peak memory is its own
// and a case that runs too long can be stopped; the child reports each stage as one JSON
// line on a pipe as soon as it is measured (fill, fused, session), so a case stopped in
// its session still reports its cache and fused-loop figures.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/cluster_gen.hpp"
#include "host/session/policy.hpp"

namespace caldera::bench {

struct CaseDef {
  std::string name;
  std::string summary;   // one line, for the table's legend
  bool preempt = false;  // PreemptShape and the preempt policy; else BacklogShape
  BacklogShape backlog;
  PreemptShape preempt_shape;
  // Also written as a scenario file and read back (the cost of `caldera scenario run`'s
  // load).
  bool parse = true;
  // Where that file is kept (--write-scenarios); empty: a temporary file, removed.
  std::filesystem::path scenario_dir;
  // Run only when named (--case): the cases beyond today's clusters take tens of minutes.
  bool on_request = false;
};

// Every case, sizes multiplied by `scale` (at least one node, one pod).
std::vector<CaseDef> all_cases(double scale, uint64_t seed);

struct Policies {
  std::shared_ptr<const Policy> allocation;  // the default config (or --config)
  std::shared_ptr<const Policy> preempt;     // the preempt case's config; may be null
  // Their config files (absolute), named by the scenario files the cases are written as.
  std::filesystem::path allocation_file, preempt_file;
};

// Runs one case here, merging each stage's figures into `out` (the case's JSON object).
// Throws on errors.
void run_case(const CaseDef& def, const Policies& policies, nlohmann::json& out);

// Limits on a case run in a child process; 0: none. The wall-clock limit stops it after
// that long; the CPU limit (RLIMIT_CPU, so whole seconds) after that much work, however
// busy the machine is.
struct Limits {
  double wall_seconds = 0;
  double cpu_seconds = 0;
};

// Runs one case in a child process. A case stopped by a limit reports "timed_out": true,
// an "error" saying which limit, and whatever stages finished. Errors become "error".
nlohmann::json run_case_forked(const CaseDef& def, const Policies& policies, const Limits& limits);

}  // namespace caldera::bench
