#!/usr/bin/env bash
# tests/cpu/make_layout.sh -- Make refuses a submissions/ tree it would otherwise misread, before
# any work, naming each entry and where it should go: a file in a problem's directory that is no
# sample, a sample at the wrong depth (levelN/019_relu.cu, 019_relu/v2/s0.cu), Level1/, s0.CU, a
# name with a space, a model with no level directory, a model named baseline or tables-*, a file
# at the top of submissions/, a sample present as both .cu and .py, a problem that does not exist (with the closest names);
# goals that read no submission (help, report, test-unit) still work meanwhile; a .py sample is
# a cell of its own. Uses throw-away entries, removed on exit.
set -uo pipefail
# `make -n all` here is a plan, not a run: no GPU needed (the Makefile's up-front GPU check off)
export KB_SKIP_GPU_CHECK=1
m=zz-layout-test-$$
d=submissions/$m/level1/019_relu
trap 'rm -rf "submissions/$m" "submissions/$m-empty" "submissions/$m.cu" "submissions/tables-$m"' EXIT
mkdir -p "$d"
fail=0
expect_error() { # what, grep pattern
    local out
    if out=$(make -n all MODEL=$m 2>&1); then
        echo "FAIL: $1: make accepted it"; fail=1
    elif ! grep -q "$2" <<<"$out"; then
        echo "FAIL: $1: no clear message: $out"; fail=1
    else
        echo "ok: $1: $(grep -o "$2.*" <<<"$out" | head -1 | cut -c1-120)"
    fi
}
cp submissions/demo-kernelbench/level1/019_relu/s1.py "$d/s0.py"
out=$(make -n all MODEL=$m 2>&1) && grep -q "cells=1 " <<<"$out" && grep -q "kernel.py" <<<"$out" \
    && echo "ok: a .py sample is a cell, run from its snapshot kernel.py" || { echo "FAIL: .py cell: $out" | head -5; fail=1; }
printf 'problem,sample,outcome,reason,source\n' > "submissions/$m/extraction.csv"
out=$(make -n all MODEL=$m 2>&1) && grep -q "cells=1 " <<<"$out" \
    && echo "ok: a model's extraction.csv (make extract) is part of the layout" || { echo "FAIL: extraction.csv refused: $out" | head -5; fail=1; }
mv "submissions/$m/extraction.csv" "submissions/$m/level1/extraction.csv"
expect_error "extraction.csv in a level directory" "level1/extraction.csv (not a problem directory"
rm "submissions/$m/level1/extraction.csv"
echo "notes" > "$d/s1.txt"
expect_error "a stray file" "$d/s1.txt (not a sample"
rm "$d/s1.txt"
layout() { # what, path to create (file; a trailing / makes a directory), expected text[, what to remove]
    case $2 in */) mkdir -p "$2" ;; *) mkdir -p "$(dirname "$2")"; echo x > "$2" ;; esac
    expect_error "$1" "$3"
    rm -rf "${4:-$2}"
}
layout "a sample beside the problem directories" "submissions/$m/level1/019_relu.cu" "019_relu.cu (not a problem directory"
layout "a sample one level too deep" "$d/v2/s0.cu" "v2/s0.cu (too deep" "$d/v2"
layout "Level1 in capitals" "submissions/$m/Level1/" "Level1 (levels are level1, level2, level3, in lower case"
layout "an upper-case extension" "$d/s3.CU" "s3.CU (a sample is sK.cu or sK.py (lower-case extension)"
layout "a space in a name" "$d/s 4.cu" "s 4.cu (a name with white space"
layout "a sample not named sK" "$d/kernel.cu" "kernel.cu (not a sample"
layout "a file at the top of submissions/" "submissions/$m.cu" "$m.cu (not a model directory"
layout "a model with no level directory" "submissions/$m-empty/" "$m-empty (a model with no level1/"
# the artifact tree's own directories (baseline/, tables/, a scoped run's tables-<scope>/, the
# tables' recorded inputs report-inputs/) are no
# model names: such a model's artifacts would be skipped by the tables or read as another's
layout "a model named like the tables of a scoped run" "submissions/tables-$m/level1/" "tables-$m (a name the artifact tree keeps" "submissions/tables-$m"
layout "a model named like the tables' recorded inputs" "submissions/report-inputs/level1/" "report-inputs (a name the artifact tree keeps" "submissions/report-inputs"
if [ ! -e submissions/baseline ]; then
    layout "a model named baseline" "submissions/baseline/level1/" "baseline (a name the artifact tree keeps" "submissions/baseline"
fi
cp submissions/demo-naive/level1/019_relu/s0.cu "$d/s0.cu"
expect_error "one sample as .cu and .py" "exist as both .cu and .py"
rm "$d/s0.cu"
mkdir -p "submissions/$m/level1/999_nothing" && cp "$d/s0.py" "submissions/$m/level1/999_nothing/s0.py"
expect_error "a .py for a problem that does not exist" "name no problem"
rm -rf "submissions/$m/level1/999_nothing"
mkdir -p "submissions/$m/level1/019_rlu" && cp "$d/s0.py" "submissions/$m/level1/019_rlu/s0.py"
expect_error "a misspelled problem: the closest name" "019_rlu/s0.\* (closest: level1/019_relu)"
for goal in help report test-unit; do
    make -n $goal > /dev/null 2>&1 || { echo "FAIL: make -n $goal fails while a misspelled problem exists"; fail=1; }
done
[ $fail = 0 ] && echo "ok: make help, report and test-unit unaffected by a bad submissions/ tree"
exit $fail
