#!/usr/bin/env bash
# Builds one Kubernetes component (cmd/COMPONENT of k8s.io/kubernetes, at the release pinned
# in MODULE_DIR/go.mod) once from the Go module proxy and caches the binary outside the
# repository, so later runs reuse it. Prints the binary's path on success. Used by
# build_apiserver.sh (kube-apiserver) and ../e2e/build_kcm.sh (kube-controller-manager).
#
#   build_component.sh COMPONENT MODULE_DIR            build if missing, print the path
#   build_component.sh COMPONENT MODULE_DIR --check    print the path if built, else exit 1
#
# A first build takes many minutes on 2 cores (GOFLAGS=-p=2); a second component finds most
# packages in Go's build cache. Exit codes: 0 built/found, 1 not built (--check), 2 no Go,
# 3 the build failed (its log is kept next to the binary).
set -euo pipefail

component="$1"
dir="$2"
mode="${3:-}"
say() { echo "build $component: $*" >&2; }

k8s_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v[0-9]/ && $0 !~ /=>/ {print $2; exit}' "$dir/go.mod")"
if [[ -z "$k8s_version" ]]; then
  say "cannot read the k8s.io/kubernetes version from $dir/go.mod"
  exit 3
fi
cache="${CALDERA_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}"
bin="$cache/$component-$k8s_version"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
if [[ "$mode" == "--check" ]]; then
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  say "no Go toolchain on PATH"
  exit 2
fi

mkdir -p "$cache"
log="$cache/$component-$k8s_version.build.log"
# One build at a time: a second caller waits for the first one's result.
exec 9>"$cache/$component.lock"
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

say "building $k8s_version into $bin (log: $log)"
tmp="$bin.tmp.$$"
if ! (cd "$dir" && CGO_ENABLED=0 GOFLAGS="-p=2 -mod=readonly -buildvcs=false" \
        go build -trimpath -ldflags "$ldflags" -o "$tmp" "k8s.io/kubernetes/cmd/$component") \
        >"$log" 2>&1; then
  rm -f "$tmp"
  say "the build failed; see $log"
  tail -20 "$log" >&2
  exit 3
fi
mv "$tmp" "$bin"
echo "$bin"
