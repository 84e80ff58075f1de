#!/usr/bin/env bash
# tests/cpu/baseline_torch.sh -- BASELINE=c|torch, the speedups' denominator (docs/metrics.md,
# "Which baseline"), no GPU. A small artifact tree: the fixture of tests/cpu/test_metrics.c (its C
# baselines: FP32 10 / 4 / 6 ms, TF32 1.5 / 4 / 3 ms) and, beside each baseline, a real fidelity.h5
# of the H200 run archived in results/2026-12-04-fidelity (PyTorch eager's times in both math modes
# under both timers). Then:
#   1. kb-aggregate --baseline c divides by the C baseline's times, --baseline torch by eager's in
#      the same math mode under the timer of fidelity.h5's /config (read back with kb-h5get);
#   2. every output says which: summary.csv, problems.csv, cells.csv, tolerance.csv, reach.csv
#      (baseline_impl), results.json ("baseline"), tables.md and tables.tex (titles), the plot data
#      (#baseline);
#   3. --baseline torch without a fidelity.h5 of a problem that has samples is an error (exit 4,
#      nothing written) naming the file and the make command that makes it; a bad value is refused;
#   4. the Makefile: BASELINE=torch's tables depend on fidelity.h5 and go to tables-torch/ (never
#      beside the C ones); `make report BASELINE=torch` over a real tree (archived cells of
#      019_relu) stops with that error without fidelity.h5 and divides by eager's time with it;
#      BASELINE=tf32 is refused before any work.
# Run from the repository root with BUILD set (make test does).
set -uo pipefail
BUILD=${BUILD:-build}
AGG=$BUILD/bin/kb-aggregate
H5GET=$BUILD/bin/kb-h5get
FIX=$BUILD/tests/test_metrics
make -s --no-print-directory BUILD="$BUILD" "$AGG" "$H5GET" "$FIX" > /dev/null || { echo "FAIL: cannot build the tools"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-baseline-torch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }

"$FIX" --write-fixtures "$tmp" || { echo "FAIL: the fixture tree"; exit 1; }
A=$tmp/artifacts/paper
PROBLEMS='level1/001_a level1/002_b level2/003_c'
mkdir -p "$tmp/fid" && tar xzf results/2026-12-04-fidelity/artifacts.tgz -C "$tmp/fid" || { echo "FAIL: the fidelity archive"; exit 1; }
F=$tmp/fid/artifacts/paper/baseline
set -- level1/001_square_matmul level1/019_relu level2/009_matmul_subtract_multiply_relu
for p in $PROBLEMS; do cp "$F/$1/fidelity.h5" "$A/baseline/$p/fidelity.h5" || FAIL "no $F/$1/fidelity.h5"; shift; done
timer=$("$H5GET" "$A/baseline/level1/002_b/fidelity.h5" /config timer)
[ "$timer" = paper ] || FAIL "the archived fidelity.h5 was made with the $timer timer, not the paper protocol's"

agg() { # BASELINE OUT
    "$AGG" --artifacts "$A" --problems "$PROBLEMS" --models-csv "$tmp/models.csv" --baseline "$1" \
        --out "$tmp/$2/tables" --plots "$tmp/$2/plots" > "$tmp/$2.log" 2>&1
}
# a CSV cell: FILE COLUMN KEY=VALUE...
cell() {
    python3 - "$@" <<'PY'
import csv, sys
f, col, keys = sys.argv[1], sys.argv[2], dict(k.split("=", 1) for k in sys.argv[3:])
for r in csv.DictReader(open(f)):
    if all(r[k] == v for k, v in keys.items()):
        print(r[col]); sys.exit(0)
sys.exit(1)
PY
}
# near A B: equal to 1e-12 (relative)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(a != "" && d <= 1e-12 * (s > 1 ? s : 1)) }'; }

agg c c || FAIL "kb-aggregate --baseline c: $(tail -3 "$tmp/c.log")"
agg torch torch || FAIL "kb-aggregate --baseline torch: $(tail -3 "$tmp/torch.log")"

# ---- 1. the denominators ----------------------------------------------------------------------
# beta's 002_b: best sample s0, 2 ms (both gates); alpha's 001_a s1 (standard only): 2 ms
for mode in fp32 tf32; do
    eager=$("$H5GET" "$A/baseline/level1/002_b/fidelity.h5" /$mode/$timer torch_ms)
    c=4 # 002_b's C baseline, both modes
    got=$(cell "$tmp/c/tables/problems.csv" base_${mode}_ms model=beta problem=level1/002_b)
    near "$got" "$c" || FAIL "BASELINE=c: problems.csv base_${mode}_ms of 002_b is '$got', not the C baseline's $c"
    got=$(cell "$tmp/torch/tables/problems.csv" base_${mode}_ms model=beta problem=level1/002_b)
    near "$got" "$eager" || FAIL "BASELINE=torch: problems.csv base_${mode}_ms of 002_b is '$got', not eager's $eager (fidelity.h5 /$mode/$timer @torch_ms)"
    for t in c torch; do
        want=$([ $t = c ] && echo "$c / 2" || echo "$eager / 2")
        want=$(awk "BEGIN { printf \"%.17g\", $want }")
        got=$(cell "$tmp/$t/tables/problems.csv" speedup_${mode}_verified model=beta problem=level1/002_b)
        near "$got" "$want" || FAIL "BASELINE=$t: speedup_${mode}_verified of beta's 002_b is '$got', expected $want"
        got=$(cell "$tmp/$t/tables/cells.csv" speedup_$mode model=beta problem=level1/002_b sample=s0)
        near "$got" "$want" || FAIL "BASELINE=$t: cells.csv speedup_$mode of beta's 002_b/s0 is '$got', expected $want"
    done
done
e1=$("$H5GET" "$A/baseline/level1/001_a/fidelity.h5" /fp32/$timer torch_ms)
want=$(awk "BEGIN { printf \"%.17g\", $e1 / 2 }")
got=$(cell "$tmp/torch/tables/problems.csv" speedup_fp32_standard model=alpha problem=level1/001_a)
near "$got" "$want" || FAIL "BASELINE=torch: alpha's 001_a FP32 x standard speedup is '$got', expected eager $e1 / 2 ms = $want"
got=$(cell "$tmp/c/tables/problems.csv" speedup_fp32_standard model=alpha problem=level1/001_a)
near "$got" 5 || FAIL "BASELINE=c: alpha's 001_a FP32 x standard speedup is '$got', expected 10 / 2 = 5"
# the memory ratio is the C baseline's memory profile under either baseline
for t in c torch; do
    got=$(cell "$tmp/$t/tables/problems.csv" base_tf32_peak_bytes model=beta problem=level1/002_b)
    [ "$got" = 800 ] || FAIL "BASELINE=$t: base_tf32_peak_bytes of 002_b is '$got', not the C baseline's memory profile (800)"
done
[ $fail = 0 ] && echo "ok: BASELINE=c divides by the C baseline's times, BASELINE=torch by eager's of fidelity.h5 (002_b: FP32 $("$H5GET" "$A/baseline/level1/002_b/fidelity.h5" /fp32/$timer torch_ms) ms, $timer timer), both math modes; the peaks are the C baseline's"

# ---- 2. every output says which -----------------------------------------------------------------
for t in c torch; do
    for f in summary problems cells tolerance reach; do
        vals=$(python3 -c "import csv,sys; print(' '.join(sorted({r['baseline_impl'] for r in csv.DictReader(open(sys.argv[1]))})))" "$tmp/$t/tables/$f.csv" 2>&1)
        [ "$vals" = "$t" ] || FAIL "BASELINE=$t: $f.csv's baseline_impl column is '$vals'"
    done
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['baseline']==sys.argv[2], d['baseline']" "$tmp/$t/tables/results.json" $t ||
        FAIL "BASELINE=$t: results.json's baseline"
    for f in fastp roofline speedup_conditions speedup_memory hidden_failures; do
        grep -qx "#baseline: $t" "$tmp/$t/plots/$f.dat" || FAIL "BASELINE=$t: $f.dat has no '#baseline: $t' line"
    done
done
grep -q "^# KernelBench-Verified tables: protocol paper, speedups against PyTorch eager (BASELINE=torch)" "$tmp/torch/tables/tables.md" || FAIL "tables.md's title does not say BASELINE=torch"
grep -q "^# KernelBench-Verified tables: protocol paper, speedups against the C baseline (BASELINE=c)" "$tmp/c/tables/tables.md" || FAIL "tables.md's title does not say BASELINE=c"
grep -q "speedups against PyTorch eager (BASELINE=torch)" "$tmp/torch/tables/tables.tex" || FAIL "tables.tex's header does not say BASELINE=torch"
grep -q 'Speedups against PyTorch eager.}' "$tmp/torch/tables/tables.tex" || FAIL "tables.tex's captions do not say PyTorch eager"
grep -q "PyTorch eager: fidelity.h5 /<fp32|tf32>/$timer @torch_ms" "$tmp/torch/tables/results.json" || FAIL "results.json does not say where eager's time was read"
[ $fail = 0 ] && echo "ok: the CSV tables (baseline_impl), results.json, tables.md, tables.tex and the plot data say which baseline"

# ---- 3. a missing fidelity.h5, a bad value --------------------------------------------------------
rm "$A/baseline/level1/002_b/fidelity.h5"
agg torch missing; rc=$?
[ $rc -eq 4 ] || FAIL "--baseline torch without 002_b's fidelity.h5: exit $rc, not 4"
for want in "$A/baseline/level1/002_b/fidelity.h5" "make fidelity PROBLEM=level1/002" "BASELINE=c" "Nothing was written"; do
    grep -qF -- "$want" "$tmp/missing.log" || FAIL "the error of a missing fidelity.h5 does not say '$want': $(cat "$tmp/missing.log")"
done
[ -e "$tmp/missing/tables" ] && FAIL "tables were written without eager's time"
# a problem nobody has a sample for needs none: beta has no 001_a sample, alpha none outside the list
agg c c2 || FAIL "--baseline c with a fidelity.h5 missing: $(tail -2 "$tmp/c2.log")"
agg tf32 bad; rc=$?
[ $rc -eq 2 ] && grep -q "must be c (the C baseline) or torch" "$tmp/bad.log" || FAIL "--baseline tf32: exit $rc: $(cat "$tmp/bad.log")"
[ $fail = 0 ] && echo "ok: --baseline torch without a fidelity.h5 stops (exit 4, nothing written): $(grep -o 'run `make fidelity[^`]*`' "$tmp/missing.log")"

# ---- 4. the Makefile ------------------------------------------------------------------------------
out=$(KB_SKIP_GPU_CHECK=1 make --no-print-directory -n all BUILD="$BUILD" ARTIFACTS="$tmp/mk" MODEL=demo-naive PROBLEM=1/19 BASELINE=torch 2>&1)
grep -q -- "bin/kb-fidelity --.*019_relu" <<< "$out" || FAIL "make -n all BASELINE=torch: no fidelity stage for 019_relu"
grep -q -- "--baseline torch --out $tmp/mk/paper/tables-torch-1_19 --plots plots/paper-torch-1_19" <<< "$out" ||
    FAIL "make -n all BASELINE=torch: the tables are not made with --baseline torch into tables-torch-1_19/: $(grep -o -- '--out [^ ]*' <<< "$out" | tail -1)"
out=$(KB_SKIP_GPU_CHECK=1 make --no-print-directory -n all BUILD="$BUILD" ARTIFACTS="$tmp/mk" MODEL=demo-naive PROBLEM=1/19 2>&1)
grep -q -- "--baseline c --out $tmp/mk/paper/tables-1_19 " <<< "$out" || FAIL "make -n all: the C tables are not in tables-1_19/"
# make report over a real tree (demo-naive's 019_relu cells and baselines of
# results/2026-12-02-full-level1, whose run made fidelity.h5 too): without fidelity.h5 it stops with
# the command to run; with it, it divides by eager's time
mkdir -p "$tmp/full" && tar xf results/2026-12-02-full-level1/artifacts.txz -C "$tmp/full" || FAIL "the full-level1 archive"
R=$tmp/mk2/paper
mkdir -p "$R/demo-naive/level1" "$R/baseline/level1" &&
    cp -r "$tmp/full/artifacts/paper/demo-naive/level1/019_relu" "$R/demo-naive/level1/" &&
    cp -r "$tmp/full/artifacts/paper/baseline/level1/019_relu" "$R/baseline/level1/" || FAIL "the tree of 019_relu"
rm -f "$R/baseline/level1/019_relu/fidelity.h5" # the run made it: put back below
report() {
    make --no-print-directory report BUILD="$BUILD" ARTIFACTS="$tmp/mk2" REPORT_INPUTS=live BASELINE=torch PROBLEM=1/19 \
        TABLES_DIR="$tmp/rep/tables" PLOTS_DIR="$tmp/rep/plots" > "$tmp/report.log" 2>&1
}
report && FAIL "make report BASELINE=torch over a tree without fidelity.h5 passed"
grep -qF 'run `make fidelity PROBLEM=level1/019`' "$tmp/report.log" || FAIL "make report BASELINE=torch without fidelity.h5: $(tail -3 "$tmp/report.log")"
[ -e "$tmp/rep/tables/summary.csv" ] && FAIL "make report BASELINE=torch without fidelity.h5 wrote tables"
cp "$tmp/full/artifacts/paper/baseline/level1/019_relu/fidelity.h5" "$R/baseline/level1/019_relu/"
report || FAIL "make report BASELINE=torch with fidelity.h5: $(tail -3 "$tmp/report.log")"
want=$("$H5GET" "$R/baseline/level1/019_relu/fidelity.h5" /tf32/paper torch_ms)
got=$(cell "$tmp/rep/tables/problems.csv" base_tf32_ms model=demo-naive problem=level1/019_relu 2>/dev/null)
near "$got" "$want" || FAIL "make report BASELINE=torch: 019_relu's TF32 baseline is '$got', not eager's $want"
out=$(make --no-print-directory -n report BASELINE=tf32 2>&1) && FAIL "make report BASELINE=tf32 accepted"
grep -q "BASELINE=tf32: must be c" <<< "$out" || FAIL "BASELINE=tf32: $out"
[ $fail = 0 ] && echo "ok: make: BASELINE=torch's tables wait for fidelity.h5 and go to tables-torch/; make report stops without it and reads eager's time with it; BASELINE=tf32 is refused before any work"

[ $fail = 0 ] && echo "baseline_torch: BASELINE=c divides by the C baseline, BASELINE=torch by PyTorch eager (fidelity.h5), and every output says which"
exit $fail
