#!/bin/sh
# The C++ SDK's compile-time checks of a plugin class (caldera/sdk.hpp, kHooks): compiles
# tests/sdk/hook_check.cpp once as written correctly, which must build (so the test itself
# works), then with each mistake, which must NOT build and must fail with the SDK's message.
#
# usage: compile_checks.sh SOURCE SDK_C_INCLUDE SDK_CPP_INCLUDE COMPILER...
set -u
src=$1
cinc=$2
cppinc=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/caldera-sdk-checks-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
fail=0

std=-std=c++20
compile() {  # VARIANT -> exit status; output in $work/VARIANT.log
  "$@" "$std" -fsyntax-only -I"$cinc" -I"$cppinc" -D"$variant" "$src" >"$work/$variant.log" 2>&1
}

variant=CORRECT
if compile "$@"; then
  echo "ok: the correct plugin compiles"
else
  echo "FAIL: the correct plugin does not compile:"; cat "$work/$variant.log"; fail=1
fi

check() {  # VARIANT MESSAGE
  variant=$1
  msg=$2
  shift 2
  if compile "$@"; then
    echo "FAIL: $variant compiled, but must not"; fail=1
  elif grep -qF "$msg" "$work/$variant.log"; then
    echo "ok: $variant fails to compile with: $msg"
  else
    echo "FAIL: $variant fails to compile, but without the SDK's message '$msg':"
    cat "$work/$variant.log"; fail=1
  fi
}

check MISSPELT "caldera::sdk: the plugin lists Hook::node_order in kHooks but has no public method double node_order(Task, Node)" "$@"
check WRONG_SIGNATURE "caldera::sdk: the plugin lists Hook::node_order in kHooks but has no public method double node_order(Task, Node)" "$@"
check UNLISTED "caldera::sdk: the plugin has a method named job_ready but does not list Hook::job_ready in kHooks" "$@"
check NO_HOOKS "caldera::sdk: a plugin class lists the extension methods it defines" "$@"
# Without C++20 the header says what it needs, instead of pages of template errors.
std=-std=c++17
check CORRECT "caldera/sdk.hpp needs C++20: compile with -std=c++20" "$@"
exit $fail
