#!/usr/bin/env bash
# tests/cpu/baseline_scope.sh -- baselines only for the problems the evaluated models have samples
# for (docs/metrics.md, "Problems without a baseline"), no GPU:
#   1. the plan (`make -n`, no GPU): with MODEL= the baseline stages (baseline-time and the
#      baseline's memory-profile; with BASELINE=torch the fidelity stage instead of baseline-time)
#      are scheduled for exactly the problems that model has samples for; PROBLEM= names them
#      explicitly; no MODEL means every problem;
#   2. the tables: kb-aggregate over a real archived tree (results/2026-12-02-full-level1, one model
#      with samples for 5 of its 101 problems) gives the same summary, tolerance and reach tables
#      with the baselines of those 5 problems only as with all 101, says in one note how many
#      problems have no baseline, and judges such a problem's excluded flag by --excluded.
# Run from the repository root with BUILD set (make test does).
set -uo pipefail
export KB_SKIP_GPU_CHECK=1
BUILD=${BUILD:-build}
AGG=$BUILD/bin/kb-aggregate
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-baseline-scope.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }

# ---- 1. the plan ---------------------------------------------------------------------------------
plan() { make --no-print-directory -n BUILD="$BUILD" ARTIFACTS="$tmp/none" "$@" 2>/dev/null; }
# the problems of a plan's commands of one stage (its --problem objects), sorted
planned() { grep -- "bin/kb-$1 --" | grep -o -- '--problem [^ ]*' | sed 's|--problem [^ ]*/problems/||; s|\.so$||' | sort -u; }
m=demo-kernelbench
want=$(find submissions/$m -name 's[0-9]*.cu' -o -name 's[0-9]*.py' | sed 's|^submissions/[^/]*/||; s|/[^/]*$||' | sort -u)
nwant=$(grep -c . <<< "$want")
all=$(ls problems/level*/[0-9][0-9][0-9]_*.c | sed 's|^problems/||; s|\.c$||' | sort)
nall=$(grep -c . <<< "$all")
out=$(plan cells baselines MODEL=$m)
for s in baseline-time memory-profile; do
    got=$(grep -- '--baseline' <<< "$out" | planned "$s"; [ "$s" = baseline-time ] && planned "$s" <<< "$out")
    got=$(sort -u <<< "$got")
    [ "$got" = "$want" ] || FAIL "make -n cells baselines MODEL=$m: $s for $(grep -c . <<< "$got") problems, not the $nwant it has samples for: $(diff <(echo "$want") <(echo "$got") | head -4 | tr '\n' ' ')"
done
n_before=$((2 * nall))
n_after=$(grep -c "bin/kb-\(baseline-time\|memory-profile\) --.*--baseline\|bin/kb-baseline-time --" <<< "$out")
[ "$n_after" -eq $((2 * nwant)) ] || FAIL "MODEL=$m: $n_after baseline stage commands, expected $((2 * nwant))"
grep -q "baselines=$nwant " <<< "$out" || FAIL "MODEL=$m: the kb: line does not say baselines=$nwant: $(grep '^kb:' <<< "$out")"
out=$(plan all MODEL=$m BASELINE=torch)
got=$(planned fidelity <<< "$out")
[ "$got" = "$want" ] || FAIL "make -n all MODEL=$m BASELINE=torch: fidelity for $(grep -c . <<< "$got") problems, not its $nwant"
grep -q -- 'bin/kb-baseline-time --' <<< "$out" && FAIL "make -n all BASELINE=torch schedules the C baseline's timing, which its tables do not read"
grep -q -- "--baseline torch --out $tmp/none/paper/tables-torch " <<< "$out" || FAIL "make -n all BASELINE=torch: the tables do not go to tables-torch/ with --baseline torch"
out=$(plan baselines)
n=$(planned baseline-time <<< "$out" | grep -c .)
[ "$n" -eq "$nall" ] || FAIL "make -n baselines (no MODEL): baseline-time for $n problems, not all $nall"
out=$(plan baselines MODEL=$m PROBLEM=1/1,1/19)
got=$(planned baseline-time <<< "$out" | tr '\n' ' ')
[ "$got" = "level1/001_square_matmul level1/019_relu " ] || FAIL "make -n baselines MODEL=$m PROBLEM=1/1,1/19: baseline-time for '$got', not the two problems PROBLEM names"
[ $fail = 0 ] && echo "ok: make -n cells baselines MODEL=$m: baseline stages for its $nwant problems ($n_after commands, not $n_before); BASELINE=torch: fidelity for the same; no MODEL: all $nall; PROBLEM= names them"

# ---- 2. the tables -------------------------------------------------------------------------------
make -s --no-print-directory BUILD="$BUILD" "$AGG" > /dev/null || { echo "FAIL: cannot build $AGG"; exit 1; }
tar xf results/2026-12-02-full-level1/artifacts.txz -C "$tmp" || { echo "FAIL: the archive does not unpack"; exit 1; }
src=$tmp/artifacts/paper
rec=$src/report-inputs
m=demo-extract
mine=$(ls -d "$src/$m"/level*/*/ | sed "s|^$src/$m/||; s|/$||")
nmine=$(grep -c . <<< "$mine")
for t in full scoped; do
    mkdir -p "$tmp/$t/paper/baseline" && cp -r "$src/$m" "$tmp/$t/paper/"
done
cp -r "$src/baseline/." "$tmp/full/paper/baseline/"
for p in $mine; do mkdir -p "$tmp/scoped/paper/baseline/${p%/*}" && cp -r "$src/baseline/$p" "$tmp/scoped/paper/baseline/$p"; done
problems=$(cat "$rec/problems.txt")
nprob=$(grep -c . <<< "$problems")
x=level1/050_conv2d_alexnet_conv1 # flagged excluded here: in the scoped tree no artifact says otherwise
y=level1/019_relu                 # "flagged" too, but its baseline-time.h5 says it is not: the artifact wins
agg() {
    "$AGG" --artifacts "$tmp/$1/paper" --problems "$problems" --models-csv "$rec/models.csv" --submissions "$rec/submissions" \
        --reference-csv "$rec/paper-tables.csv" --excluded "${2:-}" --out "$tmp/$1/t" --plots "$tmp/$1/p" > "$tmp/$1.log" 2>&1
}
agg full || FAIL "kb-aggregate over the full tree: $(tail -3 "$tmp/full.log")"
agg scoped || FAIL "kb-aggregate over the scoped tree: $(tail -3 "$tmp/scoped.log")"
for f in summary tolerance reach cells; do
    cmp -s "$tmp/full/t/$f.csv" "$tmp/scoped/t/$f.csv" ||
        FAIL "$f.csv differs between all $nprob baselines and the $nmine of $m's problems: $(diff "$tmp/full/t/$f.csv" "$tmp/scoped/t/$f.csv" | head -3 | tr '\n' ' ')"
done
# problems.csv: the same rows, less the baseline columns of the problems without a sample
lost=$(python3 - "$tmp/full/t/problems.csv" "$tmp/scoped/t/problems.csv" "$mine" <<'PY'
import csv, sys
a = list(csv.DictReader(open(sys.argv[1]))); b = list(csv.DictReader(open(sys.argv[2]))); mine = set(sys.argv[3].split())
base = ["title", "flops", "bytes", "base_fp32_ms", "base_tf32_ms", "base_fp32_peak_bytes", "base_tf32_peak_bytes",
        "roofline_base_fp32", "roofline_base_tf32"]
assert len(a) == len(b), (len(a), len(b))
n = 0
for x, y in zip(a, b):
    for k in x:
        if k in base and x["problem"] not in mine:
            assert y[k] in ("", "NaN"), (x["problem"], k, y[k])
        else:
            assert x[k] == y[k], (x["problem"], k, x[k], y[k])
    n += x["problem"] not in mine
print(n)
PY
) || FAIL "problems.csv: more than the baseline columns of the problems without a sample differ"
note="$((nprob - nmine)) of the $nprob problems have no baseline artifacts and no sample of any model"
grep -qF "$note" "$tmp/scoped/t/warnings.txt" || FAIL "warnings.txt does not say '$note'"
[ "$(grep -c 'the baseline stages have not run' "$tmp/scoped/t/warnings.txt")" -eq 0 ] || FAIL "a warning per problem without a baseline, not one note"
grep -qF "$((nprob - nmine)) of the $nprob problems have no baseline: no model has a sample for them" "$tmp/scoped/t/tables.md" || FAIL "tables.md does not say how many problems have no baseline"
grep -qF "# $((nprob - nmine)) problems have no baseline" "$tmp/scoped/p/roofline.dat" || FAIL "roofline.dat does not say how many problems have no baseline"
# the excluded flag of a problem without a baseline comes from --excluded; an artifact's wins
agg scoped "$x $y" || FAIL "kb-aggregate --excluded: $(tail -3 "$tmp/scoped.log")"
n1=$(awk -F, 'NR > 1 && $1 == "demo-extract" && $4 == "level1" && $5 == "fp32-standard" { print $9; exit }' "$tmp/scoped/t/summary.csv")
[ "$n1" = 99 ] || FAIL "with --excluded '$x $y': level1 of demo-extract counts $n1 problems, expected 99 (100 less $x; $y's artifact says it counts)"
grep -qF "$x is flagged excluded" "$tmp/scoped/t/warnings.txt" || FAIL "no note that $x is excluded"
[ $fail = 0 ] && echo "ok: $m's tables with the baselines of its $nmine problems equal those with all $nprob (problems.csv less the baseline columns of the other $lost); one note says so; --excluded judges a problem without a baseline"
[ $fail = 0 ] && echo "baseline_scope: baselines are scheduled for the problems with samples, and the tables need no others"
exit $fail
