#!/bin/sh
# Runs every scenario file of the given folders with the real binary. A folder that does
# not exist (../shared outside a full checkout) is skipped with a note.
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
exec "$caldera" scenario run $files
