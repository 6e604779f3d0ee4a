#!/usr/bin/env bash
# Builds kube-controller-manager once from the Go module proxy (k8s.io/kubernetes at the
# release pinned in kcm/go.mod, the same as ../k8s/go.mod's kube-apiserver) and caches the
# binary outside the repository. Prints the binary's path on success. The end-to-end test
# runs only its deployment, replicaset and garbagecollector controllers.
#
#   build_kcm.sh            build if missing, print the path
#   build_kcm.sh --check    print the path if already built, exit 1 otherwise
#
# After kube-apiserver is built most packages are in Go's build cache; the rest takes a
# few minutes on 2 cores (GOFLAGS=-p=2). Exit codes: 0 built/found, 1 not built (--check),
# 2 no Go, 3 the build failed (its log is kept next to the binary).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/kcm"
k8s_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v[0-9]/ && $0 !~ /=>/ {print $2; exit}' "$here/go.mod")"
if [[ -z "$k8s_version" ]]; then
  echo "build_kcm: cannot read the k8s.io/kubernetes version from $here/go.mod" >&2
  exit 3
fi
cache="${CALDERA_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}"
bin="$cache/kube-controller-manager-$k8s_version"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
if [[ "${1:-}" == "--check" ]]; then
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  echo "build_kcm: no Go toolchain on PATH" >&2
  exit 2
fi

mkdir -p "$cache"
log="$cache/kube-controller-manager-$k8s_version.build.log"
exec 9>"$cache/kube-controller-manager.lock"
flock 9
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

major="${k8s_version#v}"; major="${major%%.*}"
minor="${k8s_version#v*.}"; minor="${minor%%.*}"
# Stamped as Kubernetes' own build does (hack/lib/version.sh), as build_apiserver.sh does.
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

echo "build_kcm: building kube-controller-manager $k8s_version into $bin (log: $log)" >&2
tmp="$bin.tmp.$$"
if ! (cd "$here" && CGO_ENABLED=0 GOFLAGS="-p=2 -mod=readonly -buildvcs=false" \
        go build -trimpath -ldflags "$ldflags" -o "$tmp" k8s.io/kubernetes/cmd/kube-controller-manager) \
        >"$log" 2>&1; then
  rm -f "$tmp"
  echo "build_kcm: the build failed; see $log" >&2
  tail -20 "$log" >&2
  exit 3
fi
mv "$tmp" "$bin"
echo "$bin"
