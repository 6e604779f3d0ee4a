#!/usr/bin/env bash
# The end-to-end test (meson test e2e-volcano, issue 19): Volcano's own controllers
# (vc-controller-manager) and KWOK's simulated kubelet on etcd + kube-apiserver on loopback,
# with Caldera as the scheduler, then with volcano-scheduler as the reference; driven by
# the Go program in ./driver (README.md says what it runs and checks).
#
#   run.sh CALDERA_BINARY SOURCE_ROOT [driver options: -run NAME, -schedulers caldera ...,
#                                      -fleet, -backlog (benchmarks)]
#
# Exits 77 (meson's SKIP) with the reason when etcd, openssl, Go, kube-apiserver,
# kube-controller-manager, KWOK or ../shared/volcano cannot be had (with -backlog, a missing
# ../shared/volcano only takes volcano-scheduler's column away). kube-apiserver
# (../k8s/build_apiserver.sh), kube-controller-manager (build_kcm.sh) and KWOK
# (build_kwok.sh) are built once from the Go module proxy and cached in ~/.cache/caldera;
# the first builds take many minutes. Set CALDERA_E2E_KEEP=1 to keep the scratch folder
# (the logs of every process of both rigs) after a run.
set -uo pipefail

skip() {
  echo "e2e-volcano: SKIP: $*"
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
command -v etcd >/dev/null 2>&1 || skip "etcd is not installed (Debian package etcd-server; scripts/setup.sh installs it)"
command -v go >/dev/null 2>&1 || skip "no Go toolchain to build kube-apiserver, kube-controller-manager, KWOK and the test driver"

# Without Volcano's binaries the suite and the fleet benchmark cannot run (they skip); the
# backlog benchmark runs Caldera alone and says why volcano-scheduler has no column.
backlog=0
for a in "$@"; do
  case "$a" in -backlog | --backlog | -backlog=true | --backlog=true) backlog=1 ;; esac
done
shared="$source_root/../shared/volcano"
no_volcano=""
if [[ ! -x "$shared/unpack.sh" ]]; then
  no_volcano="$shared is absent (Volcano's controllers, scheduler and CRDs)"
elif ! volcano="$("$shared/unpack.sh")"; then
  no_volcano="$shared/unpack.sh could not unpack Volcano's binaries"
else
  for b in vc-controller-manager vc-scheduler; do
    [[ -x "$volcano/$b" ]] || { no_volcano="$volcano/$b is missing after unpack.sh"; break; }
  done
fi
if [[ -z "$no_volcano" ]]; then
  volcano_args=(-vc-controller-manager "$volcano/vc-controller-manager" -vc-scheduler "$volcano/vc-scheduler")
elif [[ $backlog -eq 1 ]]; then
  echo "e2e-volcano: $no_volcano: the backlog benchmark runs Caldera alone"
  volcano_args=(-no-volcano "$no_volcano")
else
  skip "$no_volcano"
fi

apiserver="$("$source_root/tests/integration/k8s/build_apiserver.sh")"
rc=$?
if [[ $rc -ne 0 || -z "$apiserver" ]]; then
  skip "kube-apiserver could not be built from the Go module proxy (build_apiserver.sh exit $rc)"
fi
kcm="$("$here/build_kcm.sh")"
rc=$?
if [[ $rc -ne 0 || -z "$kcm" ]]; then
  skip "kube-controller-manager could not be built from the Go module proxy (build_kcm.sh exit $rc)"
fi
kwok="$("$here/build_kwok.sh")"
rc=$?
if [[ $rc -ne 0 || -z "$kwok" ]]; then
  skip "KWOK could not be built from the Go module proxy (build_kwok.sh exit $rc)"
fi

cache="${CALDERA_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}"
mkdir -p "$cache"
driver="$cache/e2e-test-driver"
if ! (cd "$here" && CGO_ENABLED=0 GOFLAGS="-p=2 -mod=readonly -buildvcs=false" go build -o "$driver" ./driver); then
  echo "e2e-volcano: the test driver does not build" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/caldera-e2e.XXXXXX")"
cleanup() {
  if [[ "${CALDERA_E2E_KEEP:-}" == "1" ]]; then
    echo "e2e-volcano: logs kept in $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# Certificates: a CA, the API server's serving certificate (127.0.0.1) and the
# service-account signing key; users are bearer tokens.
(
  cd "$work" || exit 1
  "$source_root/tests/integration/k8s/make_certs.sh" "$work" caldera-e2e-ca &&
  # token,user,uid,"groups": the driver, KWOK and Volcano's components are cluster admin;
  # Caldera has deploy/rbac.yaml's role.
  printf '%s\n' 'admin-token,admin,admin,"system:masters"' \
    'caldera-token,caldera-scheduler,caldera-scheduler' >tokens.csv
) || { echo "e2e-volcano: generating certificates failed" >&2; exit 1; }

"$driver" -work "$work" -etcd "$(command -v etcd)" -apiserver "$apiserver" \
  -kube-controller-manager "$kcm" -kwok "$kwok" \
  "${volcano_args[@]}" -caldera "$caldera" -source "$source_root" "$@"
