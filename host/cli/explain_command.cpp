// `caldera explain NAMESPACE/POD [--address HOST:PORT]`: asks a running scheduler (its
// /debug/explain, served beside /metrics with --enable-metrics) what its last session
// decided about the pod and why, and prints it: bound, pipelined or pending, the pending
// reason and the job's, and the best-scored nodes with each plugin's score.
#include <civetweb.h>
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "host/cli/commands.hpp"
#include "host/metrics/http_endpoints.hpp"
#include "host/util/input_error.hpp"
#include "host/util/url_escape.hpp"

namespace caldera::cli {

namespace {

// GET http://host:port/path; fills status and body, or returns the connection error.
std::string http_get(const std::string& host, int port, const std::string& path, int& status,
                     std::string& body) {
  mg_init_library(0);
  char err[256] = "";
  mg_connection* c = mg_download(host.c_str(), port, 0, err, sizeof err,
                                 "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path.c_str(), host.c_str());
  if (!c) return err[0] ? err : "cannot connect";
  const mg_response_info* ri = mg_get_response_info(c);
  status = ri ? ri->status_code : 0;
  char buf[8192];
  for (int n; (n = mg_read(c, buf, sizeof buf)) > 0;) body.append(buf, static_cast<size_t>(n));
  mg_close_connection(c);
  return "";
}

std::string number(double v) {
  return v == static_cast<double>(static_cast<long long>(v)) ? fmt::format("{:.0f}", v)
                                                             : fmt::format("{:.2f}", v);
}

}  // namespace

int explain(const std::string& pod, const std::string& address) {
  if (pod.find('/') == std::string::npos) {
    std::cerr << "caldera explain: " << pod << ": name the pod as NAMESPACE/NAME\n";
    return 2;
  }
  // Volcano's address forms, checked as the scheduler checks its --listen-address: ":8080"
  // (this machine), "HOST:PORT", "[::1]:8080".
  std::string listen;
  try {
    listen = metrics::HttpEndpoints::civetweb_port(address, "--address");
  } catch (const InputError& e) {
    std::cerr << "caldera explain: " << e.what() << "\n";
    return 2;
  }
  const size_t colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? "" : listen.substr(0, colon);
  const std::string port_text = listen.substr(colon == std::string::npos ? 0 : colon + 1);
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int status = 0;
  std::string body;
  const std::string err =
      http_get(host, std::stoi(port_text), "/debug/explain?pod=" + url_escape(pod), status, body);
  if (!err.empty()) {
    std::cerr << "caldera explain: " << address << ": " << err
              << " (is the scheduler running with --enable-metrics, --listen-address "
              << address << "?)\n";
    return 1;
  }
  // Ordered: the plugins in the policy's order, as the scheduler wrote them.
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    std::cerr << "caldera explain: " << address << " answered HTTP " << status
              << " with something that is not Caldera's JSON (another server there?)\n";
    return 1;
  }
  if (status != 200) {
    std::cout << pod << ": " << j.value("error", "unknown")
              << fmt::format(" (last session {} at t={})\n", j.value("session", 0),
                             number(j.value("time", 0.0)));
    return 1;
  }
  // When the decision was taken, and how many sessions ago.
  const uint64_t decided = j.value("decided_in_session", uint64_t{0});
  const uint64_t last = j.value("session", uint64_t{0});
  std::string when = fmt::format("session {} at t={}", decided, number(j.value("decided_at", 0.0)));
  if (last > decided) when += fmt::format("; {} session{} since", last - decided, last - decided == 1 ? "" : "s");
  const std::string state = j.value("state", "");
  std::cout << pod << ": " << state;
  if (j.contains("node")) std::cout << " on " << j["node"].get<std::string>();
  std::cout << " (" << when << ")\n";
  if (j.contains("job")) std::cout << "  job: " << j["job"].get<std::string>() << "\n";
  if (j.contains("reason")) std::cout << "  why pending: " << j["reason"].get<std::string>() << "\n";
  if (j.contains("job_reason"))
    std::cout << "  the job's reasons: " << j["job_reason"].get<std::string>() << "\n";
  const auto& top = j["top_nodes"];
  if (top.is_array() && !top.empty()) {
    const uint64_t scored = j.value("scored_in_session", decided);
    std::cout << "  best-scored nodes of its last scoring"
              << (scored != decided ? fmt::format(" (session {})", scored) : std::string()) << ":\n";
    for (const auto& n : top) {
      std::string parts;
      for (const auto& [plugin, score] : n["plugins"].items())
        parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", plugin, number(score.get<double>()));
      std::cout << fmt::format("    {:<24} {:>8}   {}\n", n["node"].get<std::string>(),
                               number(n["total"].get<double>()), parts);
    }
  } else if (state != "pending") {
    std::cout << "  (no scores: a single feasible node, or a placement that did not score)\n";
  }
  return 0;
}

}  // namespace caldera::cli
