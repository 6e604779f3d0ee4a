#!/bin/sh
# Runs every scenario file of the given folders with the real binary, then checks that
# decisions are deterministic: a second run with --json must print the same bytes. A folder
# that does not exist (../shared outside a full checkout) is skipped with a note.
caldera="$1"; shift
files=""
for dir in "$@"; do
  if [ -d "$dir" ]; then
    for f in "$dir"/*.toml; do [ -f "$f" ] && files="$files $f"; done
  else
    echo "note: no scenario folder $dir"
  fi
done
[ -n "$files" ] || { echo "no scenario files"; exit 1; }
# shellcheck disable=SC2086
"$caldera" scenario run $files
status=$?
tmp=$(mktemp -d)
# shellcheck disable=SC2086
"$caldera" scenario run --json $files >"$tmp/a" 2>/dev/null
# shellcheck disable=SC2086
"$caldera" scenario run --json $files >"$tmp/b" 2>/dev/null
if cmp -s "$tmp/a" "$tmp/b"; then
  echo "PASS determinism: two --json runs of $(echo $files | wc -w) files printed the same decisions"
else
  echo "FAIL determinism: two --json runs differ:"
  diff "$tmp/a" "$tmp/b" | head -20
  status=1
fi
rm -rf "$tmp"
exit $status
