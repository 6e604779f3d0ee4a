#!/usr/bin/env bash
# The Kubernetes integration test (meson test k8s-integration): etcd and kube-apiserver on
# loopback, Caldera against them, driven by the Go program in ./driver.
#
#   run.sh CALDERA_BINARY SOURCE_ROOT [driver options: -run NAME, -bench, -bench-nodes N ...]
#
# Exits 77 (meson's SKIP) with the reason when etcd, openssl, Go or kube-apiserver cannot
# be had; on a machine that has them the tests really run. kube-apiserver is built once
# from the Go module proxy (build_apiserver.sh) and cached in ~/.cache/caldera; the first
# build takes many minutes. Set CALDERA_K8S_KEEP=1 to keep the scratch folder (logs of
# etcd, the API servers and every Caldera process) after a run.
set -uo pipefail

skip() {
  echo "k8s-integration: SKIP: $*"
  exit 77
}

if [[ $# -lt 2 ]]; then
  echo "usage: $0 CALDERA_BINARY SOURCE_ROOT [driver options]" >&2
  exit 2
fi
caldera="$(realpath "$1")"
source_root="$(realpath "$2")"
shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

command -v openssl >/dev/null 2>&1 || skip "openssl is not installed"
if ! command -v etcd >/dev/null 2>&1; then
  # Debian's etcd-server; scripts/setup.sh installs it, this covers a machine set up before.
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "k8s-integration: installing etcd-server"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null 2>&1; }
  fi
  command -v etcd >/dev/null 2>&1 || skip "etcd is not installed and could not be (Debian package etcd-server)"
fi
command -v go >/dev/null 2>&1 || skip "no Go toolchain to build kube-apiserver and the test driver"

apiserver="$("$here/build_apiserver.sh")"
rc=$?
if [[ $rc -ne 0 || -z "$apiserver" ]]; then
  skip "kube-apiserver could not be built from the Go module proxy (build_apiserver.sh exit $rc)"
fi

cache="${CALDERA_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}"
driver="$cache/k8s-test-driver"
if ! (cd "$here" && CGO_ENABLED=0 GOFLAGS="-p=2 -mod=readonly -buildvcs=false" go build -o "$driver" ./driver); then
  echo "k8s-integration: the test driver does not build" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/caldera-k8s.XXXXXX")"
cleanup() {
  if [[ "${CALDERA_K8S_KEEP:-}" == "1" ]]; then
    echo "k8s-integration: logs kept in $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# Certificates: a CA, the API server's serving certificate (127.0.0.1), a client
# certificate for Caldera's user, and the service-account signing key.
(
  cd "$work" || exit 1
  "$here/make_certs.sh" "$work" caldera-test-ca &&
  openssl req -newkey rsa:2048 -nodes -keyout caldera-client.key -out caldera-client.csr \
    -subj "/CN=caldera-scheduler" 2>/dev/null &&
  printf 'extendedKeyUsage=clientAuth\n' >client.ext &&
  openssl x509 -req -in caldera-client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile client.ext -out caldera-client.crt 2>/dev/null &&
  # The fault-injecting proxy's certificate names only caldera-proxy.test, so Caldera
  # reaches it at 127.0.0.1 only through the kubeconfig's tls-server-name.
  openssl req -newkey rsa:2048 -nodes -keyout proxy.key -out proxy.csr \
    -subj "/CN=caldera-proxy" 2>/dev/null &&
  printf 'subjectAltName=DNS:caldera-proxy.test\nextendedKeyUsage=serverAuth\n' >proxy.ext &&
  openssl x509 -req -in proxy.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile proxy.ext -out proxy.crt 2>/dev/null &&
  # token,user,uid,"groups": the driver is cluster admin; Caldera has deploy/rbac.yaml's role.
  printf '%s\n' 'admin-token,admin,admin,"system:masters"' \
    'caldera-token,caldera-scheduler,caldera-scheduler' >tokens.csv
) || { echo "k8s-integration: generating certificates failed" >&2; exit 1; }

"$driver" -work "$work" -etcd "$(command -v etcd)" -apiserver "$apiserver" \
  -caldera "$caldera" -source "$source_root" "$@"
