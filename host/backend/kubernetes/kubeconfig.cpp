// Kubeconfig and in-cluster credentials. Follows client-go's
// tools/clientcmd/loader.go (precedence and merge of KUBECONFIG files, relative paths) and
// rest/config.go InClusterConfig. YAML is read with yaml-cpp.
#include "host/backend/kubernetes/kubeconfig.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "host/util/input_error.hpp"

namespace caldera::k8s {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p, const std::string& what) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read {}", p.string(), what));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One named entry (cluster, user or context) and the file it came from, since paths in
// it are relative to that file.
struct Entry {
  YAML::Node node;
  fs::path file;
};

struct Merged {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  fs::path current_context_file;
  std::vector<fs::path> files;
};

std::string str(const YAML::Node& n, const char* key) {
  if (!n || !n.IsMap()) return "";
  YAML::Node v = n[key];
  if (!v || v.IsNull()) return "";
  if (!v.IsScalar())
    throw InputError(fmt::format("'{}' must be a string (line {})", key, v.Mark().line + 1));
  return v.as<std::string>();
}

bool flag(const YAML::Node& n, const char* key) {
  if (!n || !n.IsMap()) return false;
  YAML::Node v = n[key];
  if (!v || v.IsNull()) return false;
  try {
    return v.as<bool>();
  } catch (const YAML::Exception&) {
    throw InputError(fmt::format("'{}' must be true or false (line {})", key, v.Mark().line + 1));
  }
}

void merge_file(const fs::path& file, Merged& m) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    throw InputError(fmt::format("{}: cannot read the kubeconfig", file.string()));
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}:{}: not a valid kubeconfig: {}", file.string(),
                                 e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  m.files.push_back(file);
  if (root.IsNull()) return;  // an empty file is allowed, as client-go allows it
  if (!root.IsMap())
    throw InputError(fmt::format("{}: a kubeconfig must be a YAML mapping", file.string()));
  auto take = [&](const char* list_key, const char* item_key, std::map<std::string, Entry>& into) {
    YAML::Node list = root[list_key];
    if (!list || list.IsNull()) return;
    if (!list.IsSequence())
      throw InputError(fmt::format("{}:{}: '{}' must be a list", file.string(),
                                   list.Mark().line + 1, list_key));
    for (const YAML::Node& item : list) {
      std::string name;
      try {
        name = str(item, "name");
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: {}: {}", file.string(), list_key, e.what()));
      }
      if (name.empty())
        throw InputError(fmt::format("{}:{}: an entry of '{}' has no name", file.string(),
                                     item.Mark().line + 1, list_key));
      // The first file to define a name wins (clientcmd's merge rule).
      if (!into.count(name)) into[name] = Entry{item[item_key], file};
    }
  };
  take("clusters", "cluster", m.clusters);
  take("users", "user", m.users);
  take("contexts", "context", m.contexts);
  if (m.current_context.empty()) {
    try {
      m.current_context = str(root, "current-context");
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", file.string(), e.what()));
    }
    if (!m.current_context.empty()) m.current_context_file = file;
  }
}

// A value given inline (base64 "-data") or as a file path (relative to the kubeconfig).
std::string data_or_file(const Entry& e, const char* data_key, const char* file_key,
                         const std::string& what) {
  std::string data = str(e.node, data_key);
  if (!data.empty()) {
    std::string out;
    if (!base64_decode(data, out))
      throw InputError(fmt::format("{}: {}: '{}' is not valid base64", e.file.string(), what,
                                   data_key));
    return out;
  }
  std::string path = str(e.node, file_key);
  if (path.empty()) return "";
  fs::path p = path;
  if (p.is_relative()) p = e.file.parent_path() / p;
  return read_file(p, fmt::format("{} '{}' named in {}", what, file_key, e.file.string()));
}

std::vector<std::string> split_paths(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ':') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

bool base64_decode(const std::string& in, std::string& out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;  // '-' and '_': the URL-safe alphabet
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  out.clear();
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (char c : in) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    if (padding) return false;  // data after padding
    int v = value(c);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return bits < 6;  // a single leftover sextet cannot be a whole byte
}

ClusterAccess load_kubeconfig(const std::string& files, const std::string& context) {
  Merged m;
  for (const std::string& f : split_paths(files)) {
    if (!fs::exists(f) && split_paths(files).size() > 1) continue;  // clientcmd skips missing ones
    merge_file(f, m);
  }
  if (m.files.empty()) throw InputError(fmt::format("kubeconfig: no file in '{}'", files));
  std::string where = m.files.size() == 1 ? m.files[0].string() : files;

  std::string ctx_name = context.empty() ? m.current_context : context;
  if (ctx_name.empty())
    throw InputError(fmt::format("{}: no current-context and no --context given", where));
  auto ctx = m.contexts.find(ctx_name);
  if (ctx == m.contexts.end())
    throw InputError(fmt::format("{}: context '{}' not found", where, ctx_name));
  std::string cluster_name, user_name, ns;
  try {
    cluster_name = str(ctx->second.node, "cluster");
    user_name = str(ctx->second.node, "user");
    ns = str(ctx->second.node, "namespace");
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: context '{}': {}", ctx->second.file.string(), ctx_name,
                                 e.what()));
  }
  auto cl = m.clusters.find(cluster_name);
  if (cl == m.clusters.end())
    throw InputError(fmt::format("{}: context '{}' names cluster '{}', which is not defined",
                                 ctx->second.file.string(), ctx_name, cluster_name));

  ClusterAccess a;
  a.origin = fmt::format("kubeconfig {}, context {}", where, ctx_name);
  if (!ns.empty()) a.ns = ns;
  const Entry& c = cl->second;
  try {
    a.server = str(c.node, "server");
    a.insecure = flag(c.node, "insecure-skip-tls-verify");
    a.tls_server_name = str(c.node, "tls-server-name");
    a.ca_pem = data_or_file(c, "certificate-authority-data", "certificate-authority",
                            "cluster '" + cluster_name + "'");
    if (!str(c.node, "proxy-url").empty())
      throw InputError("proxy-url is not supported; reach the server directly");
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: cluster '{}': {}", c.file.string(), cluster_name, e.what()));
  }
  if (a.server.empty())
    throw InputError(fmt::format("{}: cluster '{}' has no server", c.file.string(), cluster_name));
  while (!a.server.empty() && a.server.back() == '/') a.server.pop_back();
  if (a.server.rfind("https://", 0) != 0 && a.server.rfind("http://", 0) != 0)
    a.server = "https://" + a.server;  // clientcmd's default scheme

  if (!user_name.empty()) {
    auto us = m.users.find(user_name);
    if (us == m.users.end())
      throw InputError(fmt::format("{}: context '{}' names user '{}', which is not defined",
                                   ctx->second.file.string(), ctx_name, user_name));
    const Entry& u = us->second;
    try {
      if (u.node && u.node.IsMap() && (u.node["exec"] || u.node["auth-provider"]))
        throw InputError(
            "exec and auth-provider credential plugins are not supported; use a token, a "
            "token file or a client certificate");
      a.token = str(u.node, "token");
      std::string tf = str(u.node, "tokenFile");
      if (!tf.empty()) {
        fs::path p = tf;
        a.token_file = p.is_relative() ? u.file.parent_path() / p : p;
      }
      a.client_cert_pem = data_or_file(u, "client-certificate-data", "client-certificate",
                                       "user '" + user_name + "'");
      a.client_key_pem =
          data_or_file(u, "client-key-data", "client-key", "user '" + user_name + "'");
      a.username = str(u.node, "username");
      a.password = str(u.node, "password");
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: user '{}': {}", u.file.string(), user_name, e.what()));
    }
    if (a.client_cert_pem.empty() != a.client_key_pem.empty())
      throw InputError(fmt::format("{}: user '{}': a client certificate needs its key and the "
                                   "key its certificate",
                                   u.file.string(), user_name));
    // Credentials never travel in the clear.
    if (a.server.rfind("http://", 0) == 0 &&
        (!a.token.empty() || !a.token_file.empty() || !a.password.empty()))
      throw InputError(fmt::format("{}: user '{}': a bearer token or password would be sent in "
                                   "the clear to {}; use https",
                                   u.file.string(), user_name, a.server));
  }
  // client-go's rules: a CA with insecure-skip-tls-verify is a contradiction and refused;
  // insecure alone is allowed, and said.
  if (a.insecure && !a.ca_pem.empty())
    throw InputError(fmt::format("{}: cluster '{}': insecure-skip-tls-verify together with a "
                                 "certificate authority is not allowed (as in client-go): "
                                 "remove one of them",
                                 c.file.string(), cluster_name));
  if (a.insecure)
    spdlog::warn("kubernetes: {}: cluster '{}': insecure-skip-tls-verify: the API server's "
                 "certificate is not checked",
                 c.file.string(), cluster_name);
  return a;
}

ClusterAccess in_cluster_access(const fs::path& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port)
    throw InputError(
        "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not "
        "running in a pod); give --kubeconfig");
  ClusterAccess a;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  a.server = fmt::format("https://{}:{}", h, port);
  a.token_file = sa_dir / "token";
  if (!fs::exists(a.token_file))
    throw InputError(fmt::format("in-cluster: {} is missing", a.token_file.string()));
  a.ca_pem = read_file(sa_dir / "ca.crt", "the service account's CA");
  if (fs::exists(sa_dir / "namespace")) {
    std::string ns = read_file(sa_dir / "namespace", "the pod's namespace");
    while (!ns.empty() && (ns.back() == '\n' || ns.back() == ' ')) ns.pop_back();
    if (!ns.empty()) a.ns = ns;
  }
  a.origin = "in-cluster service account";
  return a;
}

ClusterAccess resolve_access(const std::string& kubeconfig, const std::string& context) {
  if (!kubeconfig.empty()) return load_kubeconfig(kubeconfig, context);
  if (const char* env = std::getenv("KUBECONFIG"); env && *env) return load_kubeconfig(env, context);
  if (const char* h = std::getenv("KUBERNETES_SERVICE_HOST"); h && *h) return in_cluster_access();
  const char* home = std::getenv("HOME");
  fs::path def = fs::path(home ? home : "") / ".kube" / "config";
  if (fs::exists(def)) return load_kubeconfig(def.string(), context);
  throw InputError(
      "no cluster to connect to: give --kubeconfig, set KUBECONFIG, run in a pod, or create "
      "~/.kube/config");
}

}  // namespace caldera::k8s
