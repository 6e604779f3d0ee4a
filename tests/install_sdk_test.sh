#!/bin/sh
# Installs the build into a staging folder (DESTDIR), builds the contrib plugin
# plugins/contrib/spread with its own Makefile against the staged SDK only (pkg-config with
# the staged prefix), installs it into the staged plugin folder, and checks that the staged
# `caldera` loads it next to the shipped plugins.
#
# usage: install_sdk_test.sh BUILD_DIR SOURCE_ROOT
set -eu
build=$1
src=$2

for tool in make cc c++ pkg-config; do
  command -v "$tool" >/dev/null 2>&1 || { echo "skip: $tool not found"; exit 77; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/caldera-install-test-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
stage="$work/stage"

meson install -C "$build" --no-rebuild --quiet --destdir "$stage"

pc=$(find "$stage" -name caldera-sdk.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: caldera-sdk.pc was not installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc")
staged_prefix="$stage$prefix"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
pkgconfig="pkg-config --define-variable=prefix=$staged_prefix"

# The SDK headers are installed where the .pc file says.
cflags=$($pkgconfig --cflags caldera-sdk)
incdir=$(echo "$cflags" | sed -n 's/^-I\([^ ]*\).*/\1/p')
for h in plugin.h sdk.hpp resources.hpp option_family.hpp gpu_requests.hpp; do
  [ -f "$incdir/caldera/$h" ] || { echo "FAIL: $incdir/caldera/$h missing (cflags: $cflags)"; exit 1; }
done
# The C++ layer's language flag, apart from --cflags (which C plugins use too).
cxxflags=$($pkgconfig --variable=cxxflags caldera-sdk)
[ "$cxxflags" = "-std=c++20" ] || { echo "FAIL: cxxflags variable is '$cxxflags', not -std=c++20"; exit 1; }
printf '#include <caldera/sdk.hpp>\nint main() { return 0; }\n' > "$work/cxx_check.cpp"
# shellcheck disable=SC2086  # the flags are words
c++ $cflags $cxxflags -fsyntax-only "$work/cxx_check.cpp" ||
  { echo "FAIL: caldera/sdk.hpp does not compile with --cflags and the cxxflags variable"; exit 1; }

# One source for the ABI version: CAL_ABI_MAJOR / CAL_ABI_MINOR of plugin.h. The .pc file's
# abi_major / abi_minor say the same, for the source header and the installed one.
abi_of() { sed -n "s/^#define $2 \([0-9][0-9]*\)[[:space:]]*\$/\1/p" "$1"; }
hdr="$src/sdk/c-abi/caldera/plugin.h"
h_abi="$(abi_of "$hdr" CAL_ABI_MAJOR).$(abi_of "$hdr" CAL_ABI_MINOR)"
i_abi="$(abi_of "$incdir/caldera/plugin.h" CAL_ABI_MAJOR).$(abi_of "$incdir/caldera/plugin.h" CAL_ABI_MINOR)"
pc_abi="$($pkgconfig --variable=abi_major caldera-sdk).$($pkgconfig --variable=abi_minor caldera-sdk)"
case "$h_abi" in [0-9]*.[0-9]*) ;; *) echo "FAIL: no ABI version found in $hdr"; exit 1;; esac
[ "$pc_abi" = "$h_abi" ] ||
  { echo "FAIL: caldera-sdk.pc says ABI $pc_abi, plugin.h says $h_abi"; exit 1; }
[ "$i_abi" = "$h_abi" ] ||
  { echo "FAIL: the installed plugin.h says ABI $i_abi, the source says $h_abi"; exit 1; }
plugindir=$($pkgconfig --variable=plugindir caldera-sdk)
[ -d "$plugindir" ] || { echo "FAIL: plugin folder $plugindir (from the .pc file) missing"; exit 1; }

# Build out of the tree, from a copy, with nothing of the tree on the include path.
cp -R "$src/plugins/contrib/spread" "$work/spread"
make -s -C "$work/spread" PKG_CONFIG="$pkgconfig"
make -s -C "$work/spread" PKG_CONFIG="$pkgconfig" install
[ -f "$plugindir/spread.so" ] || { echo "FAIL: make install did not put spread.so in $plugindir"; exit 1; }

caldera="$staged_prefix/bin/caldera"
[ -x "$caldera" ] || { echo "FAIL: $caldera not installed"; exit 1; }

# Plugins are held in sealed memory files, not copied anywhere: nothing lands in TMPDIR.
mkdir -p "$work/tmp"

out=$(TMPDIR="$work/tmp" "$caldera" --plugin-dir "$plugindir" plugins list)
echo "$out"
echo "$out" | grep -q '^spread  *1\.0\.0  *1\.[0-9]*  .*spread\.so  *node_order$' ||
  { echo "FAIL: spread not listed by caldera plugins list"; exit 1; }
echo "$out" | head -n 1 | grep -q "^host ABI $h_abi " ||
  { echo "FAIL: caldera plugins list does not say host ABI $h_abi first"; exit 1; }
echo "$out" | grep -q '^binpack ' || { echo "FAIL: the shipped plugins are not listed"; exit 1; }
if echo "$out" | grep -q 'failed to load'; then echo "FAIL: some plugin failed to load"; exit 1; fi

leftover=$(find "$work/tmp" -mindepth 1)
[ -z "$leftover" ] || { echo "FAIL: caldera left $leftover behind in TMPDIR"; exit 1; }

desc=$("$caldera" --plugin-dir "$plugindir" plugins describe spread)
echo "$desc"
echo "$desc" | grep -q 'spread.weight  *int  *1 ' || { echo "FAIL: spread.weight not described"; exit 1; }

# Its decisions: the scenario beside it, run with the staged plugin folder.
"$caldera" --plugin-dir "$plugindir" scenario run "$src"/plugins/contrib/spread/scenarios/*.toml ||
  { echo "FAIL: spread's scenario"; exit 1; }

# `caldera new-plugin`: a C and a C++ plugin folder, each built with its Makefile's one
# pkg-config line (caldera-sdk, caldera-sdk-cpp) against the staged SDK, and its scenario
# run with the staged caldera (make check).
for lang in c cpp; do
  "$caldera" new-plugin "fresh-$lang" --lang "$lang" --dir "$work/fresh-$lang" >/dev/null ||
    { echo "FAIL: caldera new-plugin fresh-$lang --lang $lang"; exit 1; }
  make -s -C "$work/fresh-$lang" PKG_CONFIG="$pkgconfig" ||
    { echo "FAIL: the scaffolded $lang plugin does not build against the installed SDK"; exit 1; }
  make -s -C "$work/fresh-$lang" PKG_CONFIG="$pkgconfig" CALDERA="$caldera" check ||
    { echo "FAIL: the scaffolded $lang plugin's scenario"; exit 1; }
done
grep -q -- '--cflags caldera-sdk)' "$work/fresh-c/Makefile" &&
  grep -q -- '--cflags caldera-sdk-cpp)' "$work/fresh-cpp/Makefile" ||
  { echo "FAIL: the scaffolded Makefiles do not build with one pkg-config line"; exit 1; }
[ "$(readlink "$staged_prefix/bin/vc-scheduler")" = caldera ] ||
  { echo "FAIL: vc-scheduler is not installed as a link to caldera"; exit 1; }

# Man pages: one per command, each rendering without a warning (groff -ww).
mandir="$staged_prefix/share/man/man1"
for page in caldera caldera-run caldera-scenario-run caldera-new-plugin caldera-plugins-list; do
  [ -f "$mandir/$page.1" ] || { echo "FAIL: man page $page.1 not installed"; exit 1; }
done
if command -v groff >/dev/null 2>&1; then
  for f in "$mandir"/*.1; do
    warnings=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
    [ -z "$warnings" ] || { echo "FAIL: $f renders with warnings: $warnings"; exit 1; }
  done
  groff -man -Tascii -P-bcu "$mandir/caldera-run.1" 2>/dev/null | grep -q -- "--scheduler-conf" ||
    { echo "FAIL: caldera-run.1 does not list --scheduler-conf"; exit 1; }
else
  echo "note: groff not found; man pages checked for presence only"
fi
# Bash completion: subcommands, options and file names where an option takes a value.
comp="$staged_prefix/share/bash-completion/completions/caldera"
[ -f "$comp" ] || { echo "FAIL: bash completion not installed"; exit 1; }
if command -v bash >/dev/null 2>&1; then
  got=$(bash -c '. "$1"; shift
    complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _caldera; echo "${COMPREPLY[*]}"; }
    echo "$(complete_words caldera plugins li)|$(complete_words caldera run --sched)|$(complete_words caldera new-plugin --la)|$(complete_words caldera run --config "$1/fresh-c/Makef")"' \
    _ "$comp" "$work")
  want="list|--scheduler-conf --schedule-period --scheduler-name|--lang|$work/fresh-c/Makefile"
  [ "$got" = "$want" ] || { echo "FAIL: completion gave '$got', expected '$want'"; exit 1; }
fi

echo "PASS: contrib plugin built against the installed SDK, loaded, and its scenario passes;"
echo "      scaffolded C and C++ plugins built with one pkg-config line each and checked;"
echo "      man pages render, bash completion completes"
