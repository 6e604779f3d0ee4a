#!/usr/bin/env bash
# Builds KWOK's controller (sigs.k8s.io/kwok/cmd/kwok) once from the Go module proxy, at the
# release pinned below, and caches the binary outside the repository (next to the
# kube-apiserver that ../k8s/build_apiserver.sh caches), so later runs reuse it. Prints the
# binary's path on success.
#
#   build_kwok.sh            build if missing, print the path
#   build_kwok.sh --check    print the path if already built, exit 1 otherwise
#
# `go install module@version` builds with KWOK's own go.mod and go.sum (checked against the
# Go checksum database), so the result does not depend on this repository's modules. The
# first build takes a few minutes on 2 cores (GOFLAGS=-p=2).
# Exit codes: 0 built/found, 1 not built (--check), 2 no Go, 3 the build failed (its log is
# kept next to the binary).
set -euo pipefail

kwok_version="v0.8.0" # KWOK 0.8.0 needs Go >= 1.26 (its go.mod)
cache="${CALDERA_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}"
bin="$cache/kwok-$kwok_version"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
if [[ "${1:-}" == "--check" ]]; then
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  echo "build_kwok: no Go toolchain on PATH" >&2
  exit 2
fi

mkdir -p "$cache"
log="$cache/kwok-$kwok_version.build.log"
# One build at a time: a second caller waits for the first one's result.
exec 9>"$cache/kwok.lock"
flock 9
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

echo "build_kwok: building kwok $kwok_version into $bin (log: $log)" >&2
gobin="$(mktemp -d "$cache/kwok-build.XXXXXX")"
# Outside any module (cd to the scratch folder), so `go install pkg@version` is not
# confused by a go.work or go.mod above the current directory.
if ! (cd "$gobin" && GOBIN="$gobin" CGO_ENABLED=0 GOWORK=off GOFLAGS="-p=2 -buildvcs=false" \
        go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$kwok_version") >"$log" 2>&1; then
  rm -rf "$gobin"
  echo "build_kwok: the build failed; see $log" >&2
  tail -20 "$log" >&2
  exit 3
fi
mv "$gobin/kwok" "$bin"
rm -rf "$gobin"
echo "$bin"
