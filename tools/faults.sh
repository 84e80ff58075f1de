#!/usr/bin/env bash
# faults.sh ARTIFACTS/<protocol> [OUT.csv] -- the fault table: every demo-faults cell's outcome
# (sanity-check.h5, the first stage that runs it) against its manifest, and whether the other
# cells of the same run (demo-naive) are unaffected (all ok), and that no fault left a file
# (/tmp/kb-fault-*: remove them before the run). Exit 1 on any mismatch.
set -euo pipefail
A=${1:?usage: tools/faults.sh ARTIFACTS/<protocol> [OUT.csv]}
out=${2:-/dev/stdout}
get=${BUILD:-build}/bin/kb-h5get
others=ok
for f in "$A"/demo-naive/level*/*/*/sanity-check.h5; do
    [ -f "$f" ] || { others=missing; break; }
    o=$($get "$f" / outcome)
    [ "$o" = ok ] || { others="no ($f: $o)"; echo "demo-naive cell not ok: $f $o" >&2; }
done
bad=0
echo "submission,fault,expected_outcome,got_outcome,other_cells_ok,detail" > "$out"
while IFS=, read -r sample fault expected notes; do
    f=$(ls "$A"/demo-faults/level1/*/"$sample"/sanity-check.h5 2>/dev/null | head -1 || true)
    if [ -n "$f" ]; then
        got=$($get "$f" / outcome)
        detail=$($get "$f" / outcome_detail | tr ',"\n' ';  ' | cut -c1-160)
    else
        got=missing
        detail=""
    fi
    echo "$sample,$fault,$expected,$got,$others,\"$detail\"" >> "$out"
    [ "$got" = "$expected" ] || { echo "MISMATCH $sample ($fault): got $got, expected $expected" >&2; bad=1; }
done < <(tail -n +2 submissions/demo-faults/manifest.csv | tr -d '\r')
[ "$others" = ok ] || bad=1
# Contained means no trace outside the cell: none of the faults' files may exist.
for t in /tmp/kb-fault-*; do
    [ -e "$t" ] || continue
    echo "TRACE $t exists: a fault escaped the sandbox ($(head -c 80 "$t" | tr '\n' ' '))" >&2
    bad=1
done
[ "$bad" = 0 ] && echo "faults: every fault classified as expected; other cells unaffected" >&2
exit $bad
