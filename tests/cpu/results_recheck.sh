#!/usr/bin/env bash
# tests/cpu/results_recheck.sh -- every committed results folder re-makes what it derives from its
# archived artifacts with today's code, byte for byte (no GPU):
#   - a folder with tables/<protocol>/: `make report` over its archive, from the inputs recorded
#     in the archive (tools/results-report.sh says what is compared and the one provenance field
#     left out);
#   - a folder with fidelity.csv and artifacts.tgz: tools/fidelity-csv.sh over the archive gives
#     fidelity.csv and the figure's data (fidelity.dat); likewise fidelity-<name>.csv from
#     artifacts-<name>.tgz (a later run of some of its problems);
#   - a folder with verdicts.csv / faults.csv / faults-strict.csv and artifacts.tgz: every committed
#     row comes back from tools/verdicts.sh / tools/faults.sh over the archive (rows that today's
#     manifests added since are not in the committed tables);
#   - the mutation report is tests/cpu/mutation_results.sh's.
# Then the check itself must be able to fail: a committed table with one changed byte is reported.
# Needs kb-aggregate and kb-h5get (BUILD, default build).
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
export BUILD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-recheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }
n=0
for d in results/*/; do
    d=${d%/}
    if [ -d "$d/tables" ]; then
        bash tools/results-report.sh "$d" || fail=1
        n=$((n + 1))
    fi
    # fidelity.csv from artifacts.tgz, fidelity-<name>.csv from artifacts-<name>.tgz
    for c in "$d"/fidelity*.csv; do
        [ -f "$c" ] || continue
        c=${c##*/}; suffix=${c#fidelity}; suffix=${suffix%.csv}
        set -- "$c" "artifacts$suffix.tgz"
        [ -f "$d/$1" ] && [ -f "$d/$2" ] || continue
        x=$tmp/${d##*/}-$1
        mkdir -p "$x" && tar xzf "$d/$2" -C "$x" || { FAIL "$d/$2 does not unpack"; continue; }
        bash tools/fidelity-csv.sh "$x/artifacts/paper" "$x/out.csv" "$x" > "$x/log" 2>&1 || { FAIL "$d: tools/fidelity-csv.sh failed"; tail -3 "$x/log"; continue; }
        cmp -s "$x/out.csv" "$d/$1" || { FAIL "$d/$1 is not what tools/fidelity-csv.sh makes of $2"; diff "$d/$1" "$x/out.csv" | head -5; }
        if [ "$1" = fidelity.csv ] && [ -f "$d/fidelity.dat" ]; then
            cmp -s "$x/fidelity.dat" "$d/fidelity.dat" || FAIL "$d/fidelity.dat is not what tools/fidelity-csv.sh makes of $2"
        fi
        [ $fail = 1 ] || echo "ok: $d/$1: tools/fidelity-csv.sh over $2 gives it byte for byte"
        n=$((n + 1))
    done
done
# the verdict and fault tables (tools/verdicts.sh, tools/faults.sh over artifacts.tgz): they judge
# against today's manifests, whose rows added since have no artifact in an older run (reported as
# missing), so the check is that every committed row comes back, column for column
subset() { # committed.csv new.csv: every row of the first in the second (by the first's columns)
    python3 - "$1" "$2" <<'PY'
import csv, sys
old = list(csv.reader(open(sys.argv[1]))); new = list(csv.reader(open(sys.argv[2])))
idx = [new[0].index(c) for c in old[0]]
have = {tuple(r[i] for i in idx) for r in new[1:]}
miss = [r for r in old[1:] if tuple(r) not in have]
for r in miss[:5]: print("  not re-made:", ",".join(r))
sys.exit(1 if miss or len(old) < 2 else 0)
PY
}
for d in results/*/; do
    d=${d%/}
    [ -f "$d/artifacts.tgz" ] && [ ! -d "$d/tables" ] || continue
    [ -f "$d/verdicts.csv" ] || [ -f "$d/faults.csv" ] || continue
    x=$tmp/${d##*/}-judged
    mkdir -p "$x" && tar xzf "$d/artifacts.tgz" -C "$x" || { FAIL "$d/artifacts.tgz does not unpack"; continue; }
    for t in verdicts faults faults-strict; do
        [ -f "$d/$t.csv" ] || continue
        case $t in
            verdicts) bash tools/verdicts.sh "$x/artifacts" "$x/$t.csv" > /dev/null 2>&1 ;;
            faults) bash tools/faults.sh "$x/artifacts/paper" "$x/$t.csv" > /dev/null 2>&1 ;;
            faults-strict) bash tools/faults.sh "$x/artifacts/strict" "$x/$t.csv" > /dev/null 2>&1 ;;
        esac
        if subset "$d/$t.csv" "$x/$t.csv"; then
            echo "ok: $d/$t.csv: every row comes back from tools/${t%-strict}.sh over artifacts.tgz"
        else
            FAIL "$d/$t.csv is not what tools/${t%-strict}.sh makes of artifacts.tgz"
        fi
        n=$((n + 1))
    done
done
[ $n -gt 0 ] || FAIL "no results folder with tables or a fidelity report found"
# the check can fail: a copy of a folder whose archive is a tarball (so that the tables name it
# as they do in place) passes as it is, and fails on one changed byte of its summary
src=$(ls -d results/*/artifacts.t?z 2>/dev/null | while read -r a; do [ -d "${a%/*}/tables" ] && echo "${a%/*}"; done | head -1)
if [ -n "$src" ]; then
    c=$tmp/copy/${src##*/}
    mkdir -p "$tmp/copy" && cp -r "$src" "$tmp/copy/"
    bash tools/results-report.sh "$c" > "$tmp/copy.log" 2>&1 || { FAIL "an unchanged copy of $src does not pass:"; tail -5 "$tmp/copy.log"; }
    f=$(ls "$c"/tables/*/summary.csv | head -1)
    sed -i '2s/[0-9]/X/' "$f"
    out=$(bash tools/results-report.sh "$c" 2>&1)
    grep -q "^diff -r .*/summary.csv " <<< "$out" || FAIL "a changed committed table was not reported: $out"
else
    FAIL "no results folder with tables and a tarball to check the check on"
fi
[ $fail = 0 ] && echo "results_recheck: $n derived results re-made from their archives (tables and fidelity reports byte for byte, verdict and fault tables row for row); a changed table is caught"
exit $fail
