#!/usr/bin/env bash
# tests/cpu/summary_diff.sh -- tools/summary-diff.py: the archived tables' regression check.
# On the committed archive (results/2026-11-29-demo-models: artifacts and the tables made from
# them), `make report` over the archive's problems must give the committed summaries row for row;
# and the tool itself must tell equal tables from different ones.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-sumdiff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }
printf 'model,level,condition,speedup\na,level1,c,1.5\nb,level1,c,2\n' > "$tmp/x.csv"
printf 'model,level,condition,speedup,extra\na,level1,c,1.5,9\nb,level1,c,2\nz,level1,c,3,1\n' > "$tmp/y.csv"
printf 'model,level,condition,speedup\na,level1,c,1.5\nb,level1,c,2.5\n' > "$tmp/w.csv"
python3 tools/summary-diff.py "$tmp/x.csv" "$tmp/y.csv" > "$tmp/xy.txt"; rc=$?
[ "$rc" = 0 ] || FAIL "equal common rows: exit $rc, want 0"
grep -q 'only in the second: 1' "$tmp/xy.txt" || FAIL "a row only in the second not counted: $(cat "$tmp/xy.txt")"
python3 tools/summary-diff.py "$tmp/x.csv" "$tmp/w.csv" > "$tmp/xw.txt"; rc=$?
[ "$rc" = 1 ] || FAIL "a differing row: exit $rc, want 1"
grep -q '^b,level1,c: speedup 2 -> 2.5$' "$tmp/xw.txt" || FAIL "the differing row not listed: $(cat "$tmp/xw.txt")"
R=results/2026-11-29-demo-models
if [ -d $R/artifacts/paper/baseline ] && [ -f $R/tables/paper/summary.csv ]; then
    P=$(ls $R/artifacts/paper/baseline/level1 | sed 's/_.*//;s|^|level1/|' | paste -sd,)
    for p in paper strict; do
        make --no-print-directory report PROBLEM="$P" ARTIFACTS=$R/artifacts TABLES_DIR="$tmp/t/$p" \
            PLOTS_DIR="$tmp/p/$p" PROTOCOL=$p > "$tmp/report-$p.log" 2>&1 || { FAIL "make report ($p) exited $?"; tail -5 "$tmp/report-$p.log"; }
        python3 tools/summary-diff.py $R/tables/$p/summary.csv "$tmp/t/$p/summary.csv" > "$tmp/d-$p.txt"
        n=$(sed -n 's/^common rows that differ: \([0-9]*\) of.*/\1/p' "$tmp/d-$p.txt")
        [ "$n" = 0 ] || { FAIL "$p: $n archived summary rows differ, want 0"; cat "$tmp/d-$p.txt"; }
        echo "make report on the archive ($p): $(tail -1 "$tmp/d-$p.txt")"
    done
else
    echo "archive check SKIPPED: $R/artifacts or its tables missing"
fi
[ "$fail" = 0 ] && echo "summary_diff: ok"
exit $fail
