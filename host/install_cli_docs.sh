#!/bin/sh
# `meson install` step: the man pages and the bash completion, written by the installed
# program itself from its command-line definition (host/cli/cli_docs.hpp).
#   install_cli_docs.sh CALDERA MANDIR COMPLETIONSDIR   (dirs relative to the prefix)
set -eu
caldera=$1
root=${MESON_INSTALL_DESTDIR_PREFIX:?run by meson install}
"$caldera" manpages "$root/$2/man1"
mkdir -p "$root/$3"
"$caldera" completion bash > "$root/$3/caldera"
