#!/usr/bin/env bash
# Builds kube-apiserver once from the Go module proxy (k8s.io/kubernetes at the release
# pinned in go.mod) and caches it (build_component.sh). Prints the binary's path.
#
#   build_apiserver.sh            build if missing, print the path
#   build_apiserver.sh --check    print the path if already built, exit 1 otherwise
#
# The first build takes many minutes on 2 cores; run it in the background (nohup) when
# working by hand. Exit codes: 0 built/found, 1 not built (--check), 2 no Go, 3 the build
# failed (its log is kept next to the binary).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/build_component.sh" kube-apiserver "$here" "$@"
