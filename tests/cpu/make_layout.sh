#!/usr/bin/env bash
# tests/cpu/make_layout.sh -- Make refuses a submissions/ tree it would otherwise misread, before
# any work: a file in a problem's directory that is no sample (it would be silently left out),
# a sample present as both .cu and .py, and a .py under a problem that does not exist; and it
# takes a .py sample as a cell of its own. Uses a throw-away model, removed on exit.
set -uo pipefail
m=zz-layout-test-$$
d=submissions/$m/level1/019_relu
trap 'rm -rf "submissions/$m"' EXIT
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
echo "notes" > "$d/s1.txt"
expect_error "a stray file" "files that are not samples"
rm "$d/s1.txt"
cp submissions/demo-naive/level1/019_relu/s0.cu "$d/s0.cu"
expect_error "one sample as .cu and .py" "exist as both .cu and .py"
rm "$d/s0.cu"
mkdir -p "submissions/$m/level1/999_nothing" && cp "$d/s0.py" "submissions/$m/level1/999_nothing/s0.py"
expect_error "a .py for a problem that does not exist" "name no problem"
exit $fail
