// How to reach the API server: a kubeconfig file (the --kubeconfig option, else the
// KUBECONFIG variable, else ~/.kube/config) or, inside a pod, the service account's
// credentials. The rules follow client-go's clientcmd (loading order, merging of several
// KUBECONFIG files: the first file to define a name or the current context wins; paths
// inside a file are relative to that file) and rest.InClusterConfig.
#pragma once

#include <filesystem>
#include <string>

namespace caldera::k8s {

struct ClusterAccess {
  std::string server;        // "https://host:port" (no trailing slash)
  std::string ca_pem;        // CA bundle in PEM; empty: the system's roots
  bool insecure = false;     // insecure-skip-tls-verify
  std::string tls_server_name;
  std::string token;                  // a static bearer token
  std::filesystem::path token_file;   // or a file holding one, re-read as it rotates
  std::string client_cert_pem;        // client certificate and key (PEM)
  std::string client_key_pem;
  std::string username, password;     // basic auth (old clusters)
  std::string ns = "default";         // the context's namespace (in-cluster: the pod's)
  std::string origin;                 // for logs: "kubeconfig F, context C" or "in-cluster"
};

// Reads a kubeconfig (several files separated by ':' are merged as client-go does) and
// returns the access of `context` (empty: the current context). Throws InputError naming
// the file and the missing or malformed entry. exec and auth-provider plugins are not
// supported and say so.
ClusterAccess load_kubeconfig(const std::string& files, const std::string& context = "");

// The service account mounted into a pod (KUBERNETES_SERVICE_HOST / _PORT and
// /var/run/secrets/kubernetes.io/serviceaccount). Throws InputError outside a pod.
ClusterAccess in_cluster_access(
    const std::filesystem::path& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// The loading order: `kubeconfig` (the option), else $KUBECONFIG, else in-cluster when
// KUBERNETES_SERVICE_HOST is set, else ~/.kube/config. Throws InputError.
ClusterAccess resolve_access(const std::string& kubeconfig, const std::string& context);

// Standard base64 (RFC 4648, padding optional, whitespace ignored); nullopt-like failure
// is reported by returning false.
bool base64_decode(const std::string& in, std::string& out);

}  // namespace caldera::k8s
