#!/usr/bin/env bash
# tests/cpu/make_models.sh -- `make cells MODEL=x` stops before any work (no compile, no stage)
# when models.csv does not describe x, when models.csv is malformed, or when a problem of x holds
# more samples (files and failed responses of its extraction.csv) than its samples_per_problem;
# each time with a message that says what to add or change. A model that is described passes the
# check; and `make baselines MODEL=x` plans the baselines of the problems x has samples for, failed
# responses included. Real runs of make (the GPU stages replaced by a recorder, tests/fixtures/fake-stage.sh),
# on a throw-away model in submissions/ (removed on exit) and copies of models.csv (MODELS_CSV=).
# Run from the repository root with BUILD set (make test-sh does).
set -uo pipefail
export KB_SKIP_GPU_CHECK=1
BUILD=${BUILD:-build}
m=zz-models-test-$$
d=submissions/$m/level1/019_relu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-make-models.XXXXXX")
trap 'rm -rf "submissions/$m" "$tmp" "$BUILD/sub/$m" "$BUILD/stamps/models/$m.ok"' EXIT
mkdir -p "$d"
cp submissions/demo-naive/level1/019_relu/s0.cu "$d/s0.cu"
cp submissions/demo-naive/level1/019_relu/s1.cu "$d/s1.cu"
export KB_FAKE_STAGE_LOG=$tmp/stages.log
fail=0
# run_cells MODELS_CSV: a real `make cells` of the throw-away model; its output in $tmp/out
run_cells() {
    : > "$KB_FAKE_STAGE_LOG"
    make --no-print-directory BUILD="$BUILD" ARTIFACTS="$tmp/art" MODEL=$m MODELS_CSV="$1" \
        STAGE_RUN="$PWD/tests/fixtures/fake-stage.sh" cells > "$tmp/out" 2>&1
}
# refused WHAT MODELS_CSV PATTERN...: make fails, says every PATTERN, and did no work
refused() {
    local what=$1 csv=$2 p
    shift 2
    if run_cells "$csv"; then
        echo "FAIL: $what: make cells accepted it"; fail=1; return
    fi
    for p in "$@"; do
        grep -qF -- "$p" "$tmp/out" || { echo "FAIL: $what: the message lacks '$p':"; sed 's/^/    /' "$tmp/out" | tail -8; fail=1; return; }
    done
    if [ -s "$KB_FAKE_STAGE_LOG" ] || [ -e "$BUILD/sub/$m" ] || grep -q '\[compile\]' "$tmp/out"; then
        echo "FAIL: $what: work was done before the refusal"; fail=1; return
    fi
    echo "ok: $what: refused before any work: $(grep -o 'kb-aggregate: .*' "$tmp/out" | head -1 | cut -c1-110)"
}

# 1. the model has no row
cp models.csv "$tmp/models.csv"
refused "a model models.csv does not describe" "$tmp/models.csv" \
    "$tmp/models.csv describes no model $m" \
    "model,display_name,paper_name,order,provider,date,sampling,samples_per_problem,prompt_style" \
    "$m,$m,,,PROVIDER,YYYY-MM-DD,"

# 2. models.csv malformed (a row of another model): every evaluation stops
sed 's/^demo-tuned,demo-tuned,,3,this project,[0-9-]*,/demo-tuned,demo-tuned,,3,this project,29.11.2026,/' models.csv > "$tmp/bad.csv"
echo "$m,Test,,99,this project,2026-01-01,-,5,hand-written" >> "$tmp/bad.csv"
grep -q '29.11.2026' "$tmp/bad.csv" || { echo "FAIL: the malformed copy of models.csv was not made"; fail=1; }
refused "a malformed models.csv" "$tmp/bad.csv" "$tmp/bad.csv:4: column 'date': '29.11.2026' is not a date: YYYY-MM-DD"

# 3. more samples than samples_per_problem: two files and a failed response, for 2
cp models.csv "$tmp/two.csv"
echo "$m,Test,,99,this project,2026-01-01,-,2,hand-written" >> "$tmp/two.csv"
printf 'problem,sample,outcome,reason,source\nlevel1/019_relu,s0,ok,x,r/s0.txt\nlevel1/019_relu,s1,ok,x,r/s1.txt\nlevel1/019_relu,s2,truncated,cut off,r/s2.txt\n' \
    > "submissions/$m/extraction.csv"
refused "3 samples of a problem, samples_per_problem 2" "$tmp/two.csv" \
    "submissions/$m/level1/019_relu: 3 samples of one problem" "samples_per_problem 2"

# 4. an unknown outcome in extraction.csv
sed -i 's/,truncated,/,cut_off,/' "submissions/$m/extraction.csv"
refused "an unknown outcome word in extraction.csv" "$tmp/two.csv" "submissions/$m/extraction.csv:4: column 'outcome': 'cut_off'"
rm "submissions/$m/extraction.csv"

# 5. described: the check passes (its stamp is made), and a second make does not run it again
cp models.csv "$tmp/good.csv"
echo "$m,Test,,99,this project,2026-01-01,-,2,hand-written" >> "$tmp/good.csv"
if make --no-print-directory BUILD="$BUILD" MODEL=$m MODELS_CSV="$tmp/good.csv" "$BUILD/stamps/models/$m.ok" > "$tmp/out" 2>&1 &&
   [ -e "$BUILD/stamps/models/$m.ok" ] &&
   make -q --no-print-directory BUILD="$BUILD" MODEL=$m MODELS_CSV="$tmp/good.csv" "$BUILD/stamps/models/$m.ok" 2>/dev/null; then
    echo "ok: a described model passes the check, once"
else
    echo "FAIL: a described model: $(tail -5 "$tmp/out")"; fail=1
fi
# 6. the baselines of a model are those of the problems it has samples for, as the tables count
# them: files, and failed responses of its extraction.csv (a problem with no file here)
printf 'problem,sample,outcome,reason,source\nlevel1/019_relu,s0,ok,x,r/s0.txt\nlevel1/019_relu,s1,ok,x,r/s1.txt\nlevel1/050_conv2d_alexnet_conv1,s0,truncated,cut off,r/s2.txt\n' \
    > "submissions/$m/extraction.csv"
got=$(make -n --no-print-directory BUILD="$BUILD" ARTIFACTS="$tmp/art" MODEL=$m MODELS_CSV="$tmp/good.csv" baselines 2>&1 |
    grep -- 'bin/kb-baseline-time --' | grep -o 'problems/level[^ ]*\.so' | sort | tr '\n' ' ')
if [ "$got" = "problems/level1/019_relu.so problems/level1/050_conv2d_alexnet_conv1.so " ]; then
    echo "ok: make baselines MODEL=x times the baselines of its sample files' and its failed responses' problems only"
else
    echo "FAIL: make -n baselines MODEL=$m (files of 019_relu, a failed response of 050): baseline-time for '$got'"; fail=1
fi
rm "submissions/$m/extraction.csv"
[ $fail = 0 ] && echo "make_models: models.csv is checked before any work"
exit $fail
