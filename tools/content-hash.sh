#!/usr/bin/env bash
# tools/content-hash.sh FILE OUT -- the content hash of a built binary or library, written to OUT
# only when it changes: what its code and data are, without its debug information and build id
# (a comment edited in a header shifts line numbers in the debug sections only). The artifacts of
# a stage depend on this hash of the stage's binaries, not on their dates: a rebuild that changes
# no code re-runs nothing.
set -euo pipefail
f=$1 out=$2
tmp=$(mktemp "${TMPDIR:-/tmp}/kb-chash.XXXXXX")
trap 'rm -f "$tmp"' EXIT
objcopy --strip-debug --remove-section=.note.gnu.build-id --remove-section=.gnu_debuglink "$f" "$tmp" 2>/dev/null ||
    cp "$f" "$tmp"
h="$(sha256sum < "$tmp" | cut -c1-64) ${f##*/}"
[ "$(cat "$out" 2>/dev/null)" = "$h" ] || echo "$h" > "$out"
