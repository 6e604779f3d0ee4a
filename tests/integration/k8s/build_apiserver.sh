#!/usr/bin/env bash
# Builds kube-apiserver once from the Go module proxy (module k8s.io/kubernetes at the release
# pinned in go.mod) and caches the binary outside the repository, so later runs
# reuse it. Prints the binary's path on success.
#
#   build_apiserver.sh            build if missing, print the path
#   build_apiserver.sh --check    print the path if already built, exit 1 otherwise
#
# The first build takes many minutes on 2 cores (GOFLAGS=-p=2); run it in the background
# (nohup) when working by hand. Exit codes: 0 built/found, 1 not built (--check), 2 no Go,
# 3 the build failed (its log is kept next to the binary).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
k8s_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v[0-9]/ && $0 !~ /=>/ {print $2; exit}' "$here/go.mod")"
if [[ -z "$k8s_version" ]]; then
  echo "build_apiserver: cannot read the k8s.io/kubernetes version from $here/go.mod" >&2
  exit 3
fi
cache="${CALDERA_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}"
bin="$cache/kube-apiserver-$k8s_version"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
if [[ "${1:-}" == "--check" ]]; then
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  echo "build_apiserver: no Go toolchain on PATH" >&2
  exit 2
fi

mkdir -p "$cache"
log="$cache/kube-apiserver-$k8s_version.build.log"
# One build at a time: a second caller waits for the first one's result.
exec 9>"$cache/kube-apiserver.lock"
flock 9
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

major="${k8s_version#v}"; major="${major%%.*}"
minor="${k8s_version#v*.}"; minor="${minor%%.*}"
# The version is stamped the way Kubernetes' own build (hack/lib/version.sh) does: the
# server compares its emulation/compatibility version against it, and /version reports it.
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

echo "build_apiserver: building kube-apiserver $k8s_version into $bin (log: $log)" >&2
tmp="$bin.tmp.$$"
if ! (cd "$here" && CGO_ENABLED=0 GOFLAGS="-p=2 -mod=readonly -buildvcs=false" \
        go build -trimpath -ldflags "$ldflags" -o "$tmp" k8s.io/kubernetes/cmd/kube-apiserver) \
        >"$log" 2>&1; then
  rm -f "$tmp"
  echo "build_apiserver: the build failed; see $log" >&2
  tail -20 "$log" >&2
  exit 3
fi
mv "$tmp" "$bin"
echo "$bin"
