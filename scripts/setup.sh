#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds Caldera into ./build.
# Used by scripts/demo and scripts/test; safe to run again (it only does what is needed).
# BUILD_DIR and MESON_ARGS choose another build (scripts/test --sanitize sets both).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(meson ninja-build g++ make pkg-config libtomlplusplus-dev libspdlog-dev libfmt-dev
          libuv1-dev libboost-dev libboost-filesystem-dev libcli11-dev nlohmann-json3-dev
          libgtest-dev libgmock-dev libcurl4-openssl-dev libyaml-cpp-dev libssl-dev
          libcivetweb-dev groff-base
          etcd-server   # the Kubernetes integration test (tests/integration/k8s)
          chromium)     # renders the results report in a test (tests/integration/report)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

build_dir="${BUILD_DIR:-build}"
if [ ! -f "$build_dir/build.ninja" ]; then
  # shellcheck disable=SC2086
  meson setup "$build_dir" ${MESON_ARGS:-} >/dev/null
fi
ninja -C "$build_dir" >/dev/null || ninja -C "$build_dir"
