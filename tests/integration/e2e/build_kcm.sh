#!/usr/bin/env bash
# Builds kube-controller-manager once from the Go module proxy (k8s.io/kubernetes at the
# release pinned in kcm/go.mod, the same as ../k8s/go.mod's kube-apiserver) and caches it
# (../k8s/build_component.sh). Prints the binary's path. The end-to-end test runs only its
# deployment, replicaset and garbagecollector controllers.
#
#   build_kcm.sh            build if missing, print the path
#   build_kcm.sh --check    print the path if already built, exit 1 otherwise
#
# After kube-apiserver is built most packages are in Go's build cache; the rest takes a few
# minutes on 2 cores. Exit codes: 0 built/found, 1 not built (--check), 2 no Go, 3 the build
# failed (its log is kept next to the binary).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../k8s/build_component.sh" kube-controller-manager "$here/kcm" "$@"
