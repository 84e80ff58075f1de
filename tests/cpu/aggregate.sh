#!/usr/bin/env bash
# aggregate.sh -- kb-aggregate end to end on generated fixture artifacts (no GPU).
#
# The fixture tree is written by `test_metrics --write-fixtures` (tests/cpu/test_metrics.c, whose
# header lists the data set and the hand-computed metrics checked below); then kb-aggregate runs
# on it and summary.csv and the other tables are checked against those numbers. Then: a missing
# artifact must give a warning (not a crash) and change exactly the metrics that need it; a
# corrupt .h5 must give a clear error naming the file (exit 1, tables still written); an empty
# tree must give empty tables and placeholder plots.
#
# Run by `make test-sh` from the repository root with BUILD set.
set -euo pipefail

BUILD=${BUILD:-build}
AGG=$BUILD/bin/kb-aggregate
FIX=$BUILD/tests/test_metrics
make -s --no-print-directory BUILD="$BUILD" "$AGG" "$FIX" >/dev/null

tmp=$(mktemp -d /tmp/kb_aggregate_test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL (aggregate.sh): $*" >&2; exit 1; }

"$FIX" --write-fixtures "$tmp" || fail "could not write the fixture artifacts"
A=$tmp/artifacts/paper
T=$A/tables
P=$tmp/plots
PROBLEMS='level1/001_a level1/002_b level2/003_c'
aggregate() {
    "$AGG" --artifacts "${1:-$A}" --problems "$PROBLEMS" --models-csv "$tmp/models.csv" \
        --reference-csv reference/paper-tables.csv --out "$T" --plots "$P" >"$tmp/stdout" 2>"$tmp/stderr"
}

# A CSV cell: file, key column values (col=value ...), wanted column. Quoted fields (which may hold
# commas) are read as such: awk splits the line after blanking the quoted parts' commas.
cell() {
    local file=$1 want=$2
    shift 2
    local keys
    keys=$(printf '%s\037' "$@")
    awk -v want="$want" -v keys="$keys" '
        function splitcsv(line, out,   n, i, c, q, f) {
            n = 0; f = ""; q = 0
            for (i = 1; i <= length(line); i++) {
                c = substr(line, i, 1)
                if (c == "\"") { q = !q; continue }
                if (c == "," && !q) { out[++n] = f; f = ""; continue }
                f = f c
            }
            out[++n] = f
            return n
        }
        NR == 1 { n = splitcsv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; nk = split(keys, kv, "\037") - 1; next }
        {
            splitcsv($0, f)
            ok = 1
            for (k = 1; k <= nk; k++) { e = index(kv[k], "="); if (f[col[substr(kv[k], 1, e - 1)]] != substr(kv[k], e + 1)) ok = 0 }
            if (ok) { print f[col[want]]; found = 1; exit }
        }
        END { if (!found) exit 1 }' "$file"
}

# expect FILE WANT EXPECTED KEY=VALUE...: numeric within 1e-9 (relative), or NaN, or exact text.
expect() {
    local file=$1 want=$2 expected=$3
    shift 3
    local got
    got=$(cell "$file" "$want" "$@") || fail "$(basename "$file"): no row with $*"
    if [[ $expected =~ ^-?[0-9.]+(e-?[0-9]+)?$ ]]; then
        awk -v g="$got" -v e="$expected" 'BEGIN {
            if (g !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) exit 1
            d = g - e; if (d < 0) d = -d; s = e < 0 ? -e : e; if (s < 1) s = 1
            exit !(d <= 1e-9 * s) }' ||
            fail "$(basename "$file") [$*] $want = '$got', expected $expected"
    elif [[ $got != "$expected" ]]; then
        fail "$(basename "$file") [$*] $want = '$got', expected '$expected'"
    fi
}

S=$T/summary.csv
third=0.3333333333333333
twothirds=0.6666666666666666

# ---- 1. the whole fixture ---------------------------------------------------------------------
aggregate || fail "kb-aggregate failed on a complete fixture tree: $(cat "$tmp/stderr")"
# results.json: every table, its columns as in the CSV, units where a number has one
J=$T/results.json
[ -s "$J" ] || fail "no results.json"
for t in summary problems cells tolerance reach distributions verdicts flags; do
    grep -q "\"$t\": {" "$J" || fail "results.json lacks table $t"
done
if command -v python3 >/dev/null; then
    python3 - "$J" "$T" <<'PYEOF' || fail "results.json does not match the CSVs"
import csv, json, math, sys
d = json.load(open(sys.argv[1]))
for name, t in d["tables"].items():
    rows = list(csv.reader(open(f"{sys.argv[2]}/{name}.csv")))
    assert [c["name"] for c in t["columns"]] == rows[0], name
    body = [r for r in rows[1:] if any(r)]
    assert len(t["rows"]) == len(body), (name, len(t["rows"]), len(body))
    for got, want in zip(t["rows"], body):
        for g, w in zip(got, want):
            if g is None:
                assert w == "" or w.lower() in ("nan", "inf", "-inf"), (name, w)
            elif isinstance(g, (int, float)):
                assert math.isclose(g, float(w)), (name, g, w)
            else:
                assert g == w, (name, g, w)
units = {c["name"]: c["unit"] for c in d["tables"]["cells"]["columns"]}
assert units["kernel_ms"] == "ms" and units["peak_bytes"] == "bytes" and units["model"] is None, units
assert units["kernel_ci_lo_ms"] == "ms", units
PYEOF
fi
for f in summary.csv problems.csv cells.csv tolerance.csv reach.csv distributions.csv verdicts.csv flags.csv \
    tables.md tables.tex warnings.txt; do
    [[ -s $T/$f || $f == warnings.txt ]] || fail "missing or empty output $T/$f"
done
for f in speedup_conditions fastp speedup_memory hidden_failures roofline; do
    [[ -s $P/$f.dat ]] || fail "missing plot data $P/$f.dat"
done

# model order: models.csv order (beta 1, alpha 2), then models it does not list
order=$(awk -F, 'NR > 1 && $1 != last { printf "%s ", $1; last = $1 }' "$S")
[[ $order == "beta alpha unlisted " ]] || fail "summary.csv model order is '$order', expected 'beta alpha unlisted '"
grep -q '^alpha,"Alpha, the first",' "$S" || fail "display names with commas must be quoted (libcsv)"
# the models table cites each model as models.csv describes it, in both formats
grep -qF '| Beta Model | OpenAI | 2026-05-14 | temperature=1.0, top_p=1.0 | 5 | kernelbench | GPT-5.5 |' "$T/tables.md" ||
    fail "tables.md: no models table row for Beta Model with its provider, date, sampling, N, style and paper name"
grep -qF 'Beta Model & OpenAI & 2026-05-14 & temperature=1.0, top\_p=1.0 & 5 & kernelbench & GPT-5.5 \\' "$T/tables.tex" ||
    fail "tables.tex: no models table row for Beta Model"
rows=$(($(wc -l <"$S") - 1))
[[ $rows -eq 36 ]] || fail "summary.csv has $rows rows, expected 3 models x 3 levels (level1 level2 all) x 4 conditions = 36"

# alpha, FP32 x standard, pooled: 001_a s1 (5x), 002_b s1 (1.0x: not fast@1), 003_c s1 (correct, untimed)
k="model=alpha level=all condition=fp32-standard"
expect "$S" n_problems 3 $k
expect "$S" correctness 1 $k
expect "$S" n_speedup 2 $k
expect "$S" speedup 2.23606797749979 $k
expect "$S" fast_1 $third $k
expect "$S" fast_0.8 $twothirds $k
expect "$S" mem_eff 1 $k
expect "$S" mem_eff_pct $third $k
expect "$S" mem_increase $third $k
expect "$S" samples 6 $k
expect "$S" compiled 5 $k
expect "$S" compile_rate 0.8333333333333334 $k
expect "$S" std_rejected 2 $k
expect "$S" ver_rejected 3 $k
# alpha, TF32 x verified (the headline)
k="model=alpha level=all condition=tf32-verified"
expect "$S" speedup 0.4330127018922193 $k
expect "$S" correctness 1 $k
expect "$S" fast_0.5 $third $k
expect "$S" fast_1 0 $k
expect "$S" mem_eff 1.5874010519681994 $k
expect "$S" mem_eff_pct $twothirds $k
expect "$S" mem_increase 0 $k
expect "$S" speedup NaN model=alpha level=level2 condition=fp32-standard
expect "$S" correctness 1 model=alpha level=level2 condition=fp32-standard
# beta: no samples for 001_a (a failure); a tie on 002_b (the earlier sample, peak 400)
k="model=beta level=all condition=fp32-standard"
expect "$S" correctness $twothirds $k
expect "$S" speedup 3.4641016151377544 $k
expect "$S" fast_2 $third $k
expect "$S" mem_eff 2 $k
expect "$S" fast_2 0 model=beta level=level1 condition=fp32-standard
expect "$S" correctness 0.5 model=beta level=level1 condition=fp32-standard
k="model=beta level=all condition=tf32-verified"
expect "$S" speedup 0.8660254037844386 $k
expect "$S" fast_1 $third $k
expect "$S" mem_eff 1.1547005383792515 $k
expect "$S" mem_eff_pct $third $k
expect "$S" mem_increase 0.5 $k
expect "$S" speedup 1.224744871391589 model=beta level=all condition=fp32-verified
expect "$S" speedup 2.449489742783178 model=beta level=all condition=tf32-standard
# a model with no samples at all
expect "$S" correctness 0 model=unlisted level=all condition=tf32-verified
expect "$S" speedup NaN model=unlisted level=all condition=tf32-verified
expect "$S" compile_rate NaN model=unlisted level=all condition=tf32-verified

# per problem, per cell, reach, tolerance, distributions, verdicts, flags
Pr=$T/problems.csv
expect "$Pr" best_standard_sample s1 model=alpha problem=level1/001_a
expect "$Pr" best_verified_sample s0 model=alpha problem=level1/001_a
expect "$Pr" speedup_tf32_verified 0.1875 model=alpha problem=level1/001_a
expect "$Pr" speedup_fp32_standard 5 model=alpha problem=level1/001_a
expect "$Pr" reason no_submission model=beta problem=level1/001_a
expect "$Pr" best_verified_sample s0 model=beta problem=level1/002_b
expect "$Pr" roofline_base_fp32 0.09302325581395349 model=beta problem=level1/001_a
expect "$T/cells.csv" reason "fails D4" model=alpha problem=level1/001_a sample=s1
expect "$T/cells.csv" dists_failed "D1 D2 D4" model=alpha problem=level2/003_c sample=s0
expect "$T/cells.csv" compile compile_error model=alpha problem=level1/002_b sample=s0
expect "$T/reach.csv" category tf32-only problem=level1/001_a
expect "$T/reach.csv" tf32_models alpha problem=level1/001_a
expect "$T/reach.csv" category neither problem=level1/002_b
expect "$T/reach.csv" category hidden-only problem=level2/003_c
expect "$T/reach.csv" hidden_models beta problem=level2/003_c
Tl=$T/tolerance.csv
expect "$Tl" correctness $twothirds model=alpha level=all tau=0.0001 gate=standard baseline=fp32
expect "$Tl" speedup 5 model=alpha level=all tau=0.0001 gate=standard baseline=fp32
expect "$Tl" undetermined_samples 1 model=alpha level=all tau=0.01 gate=standard baseline=fp32
expect "$Tl" speedup 0.4330127018922193 model=alpha level=all tau=0.001 gate=verified baseline=tf32
expect "$Tl" speedup 2 model=beta level=all tau=0.0001 gate=verified baseline=tf32
expect "$T/distributions.csv" failed 2 model=alpha scope=all distribution=D4
expect "$T/distributions.csv" failed 1 model=alpha scope=best distribution=D4
expect "$T/distributions.csv" skipped 1 model=beta scope=all distribution=D2
expect "$T/distributions.csv" failed 2 model=all scope=all distribution=D4
expect "$T/verdicts.csv" samples 1 model=alpha check=verified verdict=rejected "reason=fails D4"
expect "$T/verdicts.csv" samples 4 model=alpha check=standard verdict=accepted
expect "$T/verdicts.csv" samples 1 model=alpha check=standard verdict=rejected reason=compile_error
expect "$T/verdicts.csv" protocol paper model=beta check=verified verdict=rejected "reason=fails D2"
expect "$T/flags.csv" samples 1 model=alpha level=all kind=flag category=other_stream
expect "$T/flags.csv" samples 1 model=beta level=all kind=library category=calls_library

# the paper's numbers side by side for the model models.csv maps to one
grep -q '| GPT-5.5 (paper) | 0.900 / 99.0% / 52.0% | 0.850 / 99.0% / 64.9% |' "$T/tables.md" ||
    fail "tables.md lacks the paper's headline row for GPT-5.5 next to beta"
grep -q '| Alpha, the first | 0.433 / 100.0% / 0.0% |' "$T/tables.md" || fail "tables.md headline row of alpha is wrong"
grep -q 'textit{paper: GPT-5.5}' "$T/tables.tex" || fail "tables.tex lacks the paper rows"
grep -q '\\toprule' "$T/tables.tex" || fail "tables.tex is not booktabs"
grep -q 'alpha: 1 problem directories not in --problems' "$T/warnings.txt" || fail "warnings.txt lacks the ignored problem"
grep -q '^#points: [1-9]' "$P/speedup_conditions.dat" || fail "speedup_conditions.dat has no points"

# the figures, where gnuplot is installed
if command -v gnuplot >/dev/null; then
    for g in plots/*.gp; do
        gnuplot -e "dir='$P'" "$g" 2>"$tmp/gp.err" || fail "$g failed: $(cat "$tmp/gp.err")"
        b=$(basename "$g" .gp)
        [[ -s $P/$b.png && -s $P/$b.svg ]] || fail "$g wrote no $P/$b.png / .svg"
    done
else
    echo "aggregate.sh: gnuplot not installed: figures not checked (apt-get install gnuplot-nox)"
fi

# ---- 1b. responses that gave no sample (submissions/<model>/extraction.csv) count as failures --
# alpha: two failed responses of 001_a (s2 truncated, s3 no_code_block) beside its passing s0, s1;
# 002_b s0 (artifacts of compile_error) is now a failed response: counted once, as the failure;
# an ok row (its sample has artifacts) adds nothing; a problem outside the list is left out.
# gamma (a row in models.csv, no artifacts): its only response failed, and it is still a model.
SUBS=$tmp/subs
mkdir -p "$SUBS/alpha" "$SUBS/gamma"
cat >"$SUBS/alpha/extraction.csv" <<'CSV'
problem,sample,outcome,reason,source
level1/001_a,s0,ok,python block at lines 3-32,r/001_a/s0.txt
level1/001_a,s2,truncated,"the python fence ``` opened at line 1 never closes: the output was cut off",r/001_a/s2.txt
level1/001_a,s3,no_code_block,no fenced code block (``` or ~~~) in 1220 bytes,r/001_a/s3.txt
level1/002_b,s0,wrong_name,no top-level class ModelNew in the python block at lines 1-31,r/002_b/s0.txt
level3/009_z,s0,empty,an empty response,r/009_z/s0.txt
CSV
printf 'problem,sample,outcome,reason,source\nlevel1/002_b,s0,several_blocks,2 candidate blocks,r/s0.txt\n' >"$SUBS/gamma/extraction.csv"
aggregate_subs() { # extra options of kb-aggregate
    "$AGG" --artifacts "$A" --problems "$PROBLEMS" --models-csv "${MODELS_CSV:-$tmp/models.csv}" --submissions "$SUBS" \
        --reference-csv reference/paper-tables.csv --out "$T" --plots "$P" >"$tmp/stdout" 2>"$tmp/stderr"
}
aggregate_subs || fail "kb-aggregate with --submissions failed: $(cat "$tmp/stderr")"
k="model=alpha level=all condition=fp32-standard"
expect "$S" samples 8 $k
expect "$S" compiled 5 $k
expect "$S" compile_rate 0.625 $k
expect "$S" std_rejected 4 $k
expect "$S" ver_rejected 5 $k
expect "$S" correctness 1 $k
expect "$S" speedup 2.23606797749979 $k
expect "$S" samples 6 model=alpha level=level1 condition=fp32-standard
expect "$Pr" best_standard_sample s1 model=alpha problem=level1/001_a
expect "$Pr" best_verified_sample s0 model=alpha problem=level1/001_a
expect "$T/cells.csv" compile extract:truncated model=alpha problem=level1/001_a sample=s2
expect "$T/cells.csv" compiled 0 model=alpha problem=level1/001_a sample=s2
expect "$T/cells.csv" reason 'the python fence ``` opened at line 1 never closes: the output was cut off' model=alpha problem=level1/001_a sample=s2
expect "$T/cells.csv" compile extract:no_code_block model=alpha problem=level1/001_a sample=s3
expect "$T/cells.csv" compile extract:wrong_name model=alpha problem=level1/002_b sample=s0
expect "$T/verdicts.csv" samples 1 model=alpha check=standard verdict=rejected reason=extract:truncated
expect "$T/verdicts.csv" samples 1 model=alpha check=standard verdict=rejected reason=extract:no_code_block
expect "$T/verdicts.csv" samples 1 model=alpha check=verified verdict=rejected reason=standard:\ extract:truncated
[[ $(grep -c '^alpha,level1/002_b,s0,' "$T/cells.csv") == 1 ]] || fail "alpha 002_b s0 (artifacts and a failed response) is not one sample"
grep -q 'alpha/level1/002_b/s0 holds its artifacts from an earlier extraction' "$T/warnings.txt" ||
    fail "warnings.txt does not name the stale artifacts of a failed response"
grep -q 'alpha/extraction.csv: 1 failed responses of problems not in --problems are ignored' "$T/warnings.txt" ||
    fail "warnings.txt does not count the failed response outside the list"
k="model=gamma level=all condition=tf32-verified"
expect "$S" samples 1 $k
expect "$S" compiled 0 $k
expect "$S" correctness 0 $k
expect "$T/cells.csv" compile extract:several_blocks model=gamma problem=level1/002_b sample=s0
# a third failed response of 001_a: 5 samples, and alpha's samples_per_problem is 4
echo 'level1/001_a,s4,empty,an empty response,r/001_a/s4.txt' >>"$SUBS/alpha/extraction.csv"
rm -rf "$T"
rc=0; aggregate_subs || rc=$?
[[ $rc -eq 1 ]] || fail "5 samples of a problem with samples_per_problem 4 must exit 1 (got $rc)"
grep -q 'alpha/level1/001_a (with its failed responses): 5 samples of one problem, but .*models.csv:3 says model alpha has samples_per_problem 4' "$tmp/stderr" ||
    fail "the refusal does not name the problem and the limit: $(cat "$tmp/stderr")"
[ ! -e "$T" ] || fail "tables written despite the refusal"
sed -i '$d' "$SUBS/alpha/extraction.csv"
# an unknown outcome word: an error with file and line
sed -i 's/,no_code_block,/,no_code,/' "$SUBS/alpha/extraction.csv"
rc=0; aggregate_subs || rc=$?
[[ $rc -eq 1 ]] && grep -q "$SUBS/alpha/extraction.csv:4: column 'outcome': 'no_code' is not one of ok," "$tmp/stderr" ||
    fail "a malformed extraction.csv (exit $rc): $(cat "$tmp/stderr")"
sed -i 's/,no_code,/,no_code_block,/' "$SUBS/alpha/extraction.csv"
# a model with an extraction.csv and no row in models.csv: refused, with the row to add
mkdir -p "$SUBS/delta" && cp "$SUBS/gamma/extraction.csv" "$SUBS/delta/"
rc=0; aggregate_subs || rc=$?
[[ $rc -eq 1 ]] && grep -q "models.csv describes no model delta: add a row" "$tmp/stderr" &&
    grep -q '^  model,display_name,paper_name,order,provider,date,sampling,samples_per_problem,prompt_style$' "$tmp/stderr" &&
    grep -q '^  delta,delta,,,PROVIDER,YYYY-MM-DD,' "$tmp/stderr" || fail "a model without a row (exit $rc): $(cat "$tmp/stderr")"
rm -rf "$SUBS/delta"
# a model directory of the tree without a row: refused too
grep -v '^unlisted,' "$tmp/models.csv" >"$tmp/models-short.csv"
rc=0; MODELS_CSV=$tmp/models-short.csv aggregate_subs || rc=$?
[[ $rc -eq 1 ]] && grep -q "models-short.csv describes no model unlisted" "$tmp/stderr" ||
    fail "an artifact tree's model without a row (exit $rc): $(cat "$tmp/stderr")"
# a malformed models.csv: file, line, column, what is valid
sed 's/,2026-11-29,/,2026-11-31,/' "$tmp/models.csv" >"$tmp/models-bad.csv"
rc=0; MODELS_CSV=$tmp/models-bad.csv aggregate_subs || rc=$?
[[ $rc -eq 1 ]] && grep -q "models-bad.csv:3: column 'date': '2026-11-31' is not a date: YYYY-MM-DD" "$tmp/stderr" ||
    fail "a malformed models.csv (exit $rc): $(cat "$tmp/stderr")"
aggregate || fail "kb-aggregate without --submissions after 1b: $(cat "$tmp/stderr")"

# ---- 2. a stage not run: a warning, and only the metrics that need it change ----------------
rm "$A/beta/level2/003_c/s0/memory-profile.h5"
aggregate || fail "a missing artifact must not fail kb-aggregate: $(cat "$tmp/stderr")"
grep -q 'beta/level2/003_c/s0/memory-profile.h5: missing' "$T/warnings.txt" || fail "warnings.txt does not name the missing artifact"
grep -q 'memory-profile.h5: missing' "$tmp/stderr" || fail "the missing artifact is not reported on stderr"
k="model=beta level=all condition=tf32-verified"
expect "$S" n_mem 1 $k
expect "$S" mem_eff 2 $k
expect "$S" mem_eff_pct $third $k
expect "$S" speedup 0.8660254037844386 $k

# ---- 3. a corrupt artifact: a clear error naming the file, exit 1, tables still written ------
echo "this is not HDF5" >"$A/alpha/level1/001_a/s0/sanity-check.h5"
set +e
aggregate
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "a corrupt artifact must exit 1 (got $rc)"
grep -q 'alpha/level1/001_a/s0/sanity-check.h5' "$tmp/stderr" || fail "the error does not name the corrupt file: $(cat "$tmp/stderr")"
grep -q 'delete it and re-run make' "$tmp/stderr" || fail "the error does not say what to do: $(cat "$tmp/stderr")"
grep -q '^error: .*sanity-check.h5' "$T/warnings.txt" || fail "warnings.txt lacks the error"
# the unreadable standard check counts as not run: alpha loses 001_a under TF32 x verified
k="model=alpha level=all condition=tf32-verified"
expect "$S" correctness $twothirds $k
expect "$S" speedup 1 $k

# ---- 4. no artifacts at all: empty tables, placeholder figures -------------------------------
rm -rf "$T" "$P"
# a tree that does not exist: refused (exit 4), nothing written
rc=0; aggregate "$tmp/nothing/paper" || rc=$?
[ $rc -eq 4 ] || fail "a missing --artifacts must exit 4, got $rc"
grep -q "no such directory" "$tmp/stderr" || fail "a missing --artifacts is not named: $(cat "$tmp/stderr")"
[ ! -e "$T" ] && [ ! -e "$P" ] || fail "a missing --artifacts wrote tables"
mkdir -p "$tmp/nothing/paper"
aggregate "$tmp/nothing/paper" || fail "an empty tree must not fail kb-aggregate: $(cat "$tmp/stderr")"
[[ $(wc -l <"$S") -eq 1 ]] || fail "summary.csv of an empty tree must be the header only"
grep -q 'no artifacts yet' "$T/warnings.txt" || fail "warnings.txt does not say the tree is empty"
grep -q '^#points: 0' "$P/fastp.dat" || fail "fastp.dat of an empty tree must have no points"
if command -v gnuplot >/dev/null; then
    for g in plots/*.gp; do
        gnuplot -e "dir='$P'" "$g" 2>"$tmp/gp.err" || fail "$g failed without data: $(cat "$tmp/gp.err")"
        [[ -s $P/$(basename "$g" .gp).png ]] || fail "$g drew no placeholder"
    done
    rm -rf "$tmp/nodat" && mkdir "$tmp/nodat"
    for g in plots/*.gp; do
        gnuplot -e "dir='$tmp/nodat'" "$g" 2>"$tmp/gp.err" || fail "$g failed with no .dat files: $(cat "$tmp/gp.err")"
    done
fi

# ---- 5. the command line ------------------------------------------------------------------------
"$AGG" --help >/dev/null || fail "--help must exit 0"
set +e
"$AGG" --artifacts "$A" --problems "$PROBLEMS" --models-csv "$tmp/models.csv" --plots "$P" >/dev/null 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "a missing --out must exit 2 (got $rc)"
set +e
"$AGG" --artifacts "$A" --problems "$PROBLEMS" --models-csv "$tmp/no-such.csv" --out "$T" --plots "$P" >/dev/null 2>"$tmp/stderr"
rc=$?
set -e
[[ $rc -ne 0 ]] || fail "an unreadable models.csv must fail"
grep -q 'no-such.csv' "$tmp/stderr" || fail "the error does not name models.csv"

echo "aggregate.sh: all checks passed"
