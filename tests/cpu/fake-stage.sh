#!/usr/bin/env bash
# tests/cpu/fake-stage.sh STAGE_BINARY ARGS... -- stands in for a GPU stage in tests of the Make
# graph (STAGE_RUN=tests/cpu/fake-stage.sh): records the invocation in $KB_FAKE_STAGE_LOG and
# writes an empty file where the stage would write its artifact (--out PATH).
set -uo pipefail
echo "${1##*/} ${*:2}" >> "${KB_FAKE_STAGE_LOG:?KB_FAKE_STAGE_LOG must name the log}"
out=
while [ $# -gt 0 ]; do
    [ "$1" = --out ] && out=$2
    shift
done
[ -n "$out" ] && mkdir -p "$(dirname "$out")" && : > "$out"
exit 0
