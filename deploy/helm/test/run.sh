#!/usr/bin/env bash
# The Helm chart's render test (meson test helm-chart): renders deploy/helm/caldera-scheduler
# with Helm's own library (helm.sh/helm/v4, pinned in go.mod) as `helm template` does, and
# checks the objects, the shipped config (caldera check-config) and the arguments (Caldera's
# vc-scheduler entry point). main.go says what each case checks.
#
#   run.sh CALDERA_BINARY SOURCE_ROOT
#
# The test program is built once (CGO_ENABLED=0, -mod=readonly: go.sum is committed) and
# cached in ~/.cache/caldera, rebuilt when its sources change. Exits 77 (meson's SKIP) with
# the reason when there is no Go toolchain or its modules cannot be had (no module proxy).
set -uo pipefail

skip() {
  echo "helm-chart: SKIP: $*"
  exit 77
}

if [[ $# -ne 2 ]]; then
  echo "usage: $0 CALDERA_BINARY SOURCE_ROOT" >&2
  exit 2
fi
caldera="$(realpath "$1")"
source_root="$(realpath "$2")"
here="$source_root/deploy/helm/test"

command -v go >/dev/null 2>&1 || skip "no Go toolchain to build the render test (helm.sh/helm/v4)"

cache="${CALDERA_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/caldera}"
mkdir -p "$cache" || { echo "helm-chart: cannot create $cache" >&2; exit 1; }
# Named after its sources, so an edit of main.go or go.mod builds anew and an unchanged
# tree reuses the binary without asking Go.
key="$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)"
driver="$cache/helm-render-test-$key"
if [[ ! -x "$driver" ]]; then
  export CGO_ENABLED=0 GOFLAGS="-p=2 -mod=readonly -buildvcs=false"
  # The modules first, apart: failing here means no module proxy (or no network), a SKIP;
  # failing to build afterwards is the test's own fault.
  if ! (cd "$here" && go mod download 2>"$cache/helm-render-test.download.log"); then
    tail -3 "$cache/helm-render-test.download.log" >&2
    skip "the Go modules of deploy/helm/test cannot be downloaded (module proxy unreachable?); see $cache/helm-render-test.download.log"
  fi
  start=$SECONDS
  if ! (cd "$here" && go build -o "$driver.$$" .); then
    echo "helm-chart: the render test does not build" >&2
    exit 1
  fi
  mv "$driver.$$" "$driver"
  echo "helm-chart: built the render test in $((SECONDS - start)) s ($driver)"
  # Older builds of the test are of no use any more.
  find "$cache" -maxdepth 1 -name 'helm-render-test-????????????????' ! -name "helm-render-test-$key" -delete
fi

exec "$driver" -caldera "$caldera" -source "$source_root"
