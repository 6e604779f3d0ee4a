#!/usr/bin/env bash
# The image of deploy/Dockerfile (meson test docker-image): built from the source tree with
# the container engine the machine runs (docker or podman), then started as the cluster
# would start it: read-only root, not root, no writable folder. It must list every built-in
# plugin (each loaded from its sealed memfd, with nowhere to write) and load the installed
# default config and Volcano's shipped default as vc-scheduler's --scheduler-conf would.
#
#   image_test.sh SOURCE_ROOT
#
# Exits 77 (meson's SKIP) with the reason when no container engine is running.
set -uo pipefail
source_root="$(realpath "$1")"

skip() {
  echo "docker-image: SKIP: $*"
  exit 77
}

engine=""
for e in docker podman; do
  if command -v "$e" >/dev/null 2>&1 && timeout 20 "$e" info >/dev/null 2>&1; then
    engine="$e"
    break
  fi
done
[[ -n "$engine" ]] || skip "no container engine is running (docker or podman: 'info' fails or neither is installed)"

tag="caldera-scheduler:test-$$"
cleanup() { "$engine" rmi -f "$tag" >/dev/null 2>&1 || true; }
trap cleanup EXIT

echo "docker-image: building $tag with $engine"
if ! "$engine" build -q -f "$source_root/deploy/Dockerfile" -t "$tag" "$source_root"; then
  echo "docker-image: FAIL: the image does not build" >&2
  exit 1
fi

run() {  # the entry point and arguments, as the Deployment's securityContext runs them
  "$engine" run --rm --read-only --user 65532:65532 --cap-drop ALL "$@"
}
fail=0
plugins=$(run --entrypoint /usr/local/bin/caldera "$tag" plugins list 2>&1)
for p in binpack capacity cdp conformance drf extender gang nodegroup nodeorder overcommit pdb \
         predicates priority proportion resourcequota; do
  if ! grep -qE "^$p +[0-9]" <<<"$plugins"; then
    echo "docker-image: FAIL: plugin $p not listed in the image:" >&2
    echo "$plugins" | tail -5 >&2
    fail=1
  fi
done
if ! run --entrypoint /usr/local/bin/caldera "$tag" check-config /usr/local/etc/caldera/caldera.toml; then
  echo "docker-image: FAIL: the installed default config does not load" >&2
  fail=1
fi
conf="$source_root/../shared/volcano/configs/volcano-scheduler.conf"
if [[ -f "$conf" ]]; then
  if ! run -v "$conf:/etc/volcano/volcano-scheduler.conf:ro" --entrypoint /usr/local/bin/caldera \
       "$tag" check-config /etc/volcano/volcano-scheduler.conf; then
    echo "docker-image: FAIL: Volcano's shipped config does not load in the image" >&2
    fail=1
  fi
fi
if [[ $fail -eq 0 ]]; then echo "docker-image: ok"; fi
exit $fail
