#!/usr/bin/env bash
# Errors up front: knob values are checked when the Makefile is read, for every goal but
# help/deps (a bad one stops `make` at once, nothing built, nothing written, with what the knob
# must be); `make report` on an ARTIFACTS without the protocol's tree is refused and writes nothing.
set -uo pipefail
cd "$(dirname "$0")/../.."
fail=0
bad() { # "expected text" KNOB=VALUE...
    local want=$1 out rc
    shift
    out=$(make -n report "$@" 2>&1); rc=$?
    if [ $rc -eq 0 ] || ! grep -q "bad knob value: .*$want" <<< "$out"; then
        echo "FAIL: make report $* (rc $rc): $(head -c 300 <<< "$out")"; fail=1
    else
        echo "ok: make report $*: $want"
    fi
}
bad "TAU=abc: must be a number > 0" TAU=abc
bad "TAU=-1: must be a number > 0" TAU=-1
bad "TRIALS=abc: must be a whole number >= 1" TRIALS=abc
bad "TRIALS=2.5: must be a whole number >= 1" TRIALS=2.5
bad "GPUS=abc: must be CUDA ordinals" GPUS=abc
bad "GPUS=0,: must be CUDA ordinals" GPUS=0,
bad "PROTOCOL=Strict: must be one of paper|strict" PROTOCOL=Strict
bad "TIMER=fast: must be one of paper|robust" TIMER=fast
bad "PACE=-0.5: must be a number >= 0" PACE=-0.5
bad "MIN_SAMPLES=30: must not exceed MAX_SAMPLES=10" MIN_SAMPLES=30 MAX_SAMPLES=10
for goal in compile cells all; do
    out=$(make -n $goal CALL_TIMEOUT=0 2>&1) && { echo "FAIL: make -n $goal CALL_TIMEOUT=0 passed"; fail=1; } ||
        grep -q "CALL_TIMEOUT=0: must be a number > 0" <<< "$out" || { echo "FAIL: $goal: $out" | head -3; fail=1; }
done
make help TAU=abc > /dev/null 2>&1 || { echo "FAIL: make help with a bad knob"; fail=1; }
out=$(make -n report TAU=1e-4 GPUS=0,1 PACE=0 CLOCK_TOL=0 SEED=0 WARMUP=0 2>&1) || { echo "FAIL: good knobs refused: $out" | head -3; fail=1; }
# PROBLEM=1/19: the cells and baselines of that problem only, the tables beside the full ones
out=$(KB_SKIP_GPU_CHECK=1 make -n all PROBLEM=1/19 MODEL=demo-naive 2>&1)
if ! grep -q "cells=2 problems=1 " <<< "$out" || grep -- "--problem build/problems/" <<< "$out" | grep -qv 019_relu ||
   ! grep -q -- "--out artifacts/paper/tables-1_19 " <<< "$out"; then
    echo "FAIL: make -n all PROBLEM=1/19: $(grep '^kb:' <<< "$out")"; fail=1
else
    echo "ok: make all PROBLEM=1/19 MODEL=demo-naive: 2 cells, baselines of 019_relu only, tables in tables-1_19"
fi
# no goal: with PROBLEM= (or MODEL=) the main job runs, as the issue's `make PROBLEM=level1/019
# MODEL=demo-naive` is typed; a bare `make` prints the help
out=$(KB_SKIP_GPU_CHECK=1 make -n PROBLEM=level1/019 MODEL=demo-naive 2>&1)
if ! grep -q "cells=2 problems=1 " <<< "$out" || ! grep -q -- "bin/kb-sanity-check .*019_relu" <<< "$out"; then
    echo "FAIL: make PROBLEM=level1/019 MODEL=demo-naive (no goal) does not run the problem: $(head -3 <<< "$out")"; fail=1
else
    echo "ok: make PROBLEM=level1/019 MODEL=demo-naive with no goal runs that problem's cells"
fi
make 2>&1 | grep -q "^KernelBench-Verified pipeline. Targets:" || { echo "FAIL: a bare make does not print the help: $(make 2>&1 | head -3)"; fail=1; }
out=$(make -n compile PROBLEM=level1/177 2>&1) && { echo "FAIL: PROBLEM=level1/177 accepted"; fail=1; }
grep -q "PROBLEM=level1/177 names no problem.*Problems: level1/001" <<< "$out" || { echo "FAIL: bad PROBLEM message: $out"; fail=1; }
# make help: every knob of config.mk with its default, every target the Makefile documents, and
# no Makefile text
h=$(make help 2>&1)
for k in $(sed -n 's/^\([A-Z_][A-Z0-9_]*\) ?=.*/\1/p' config.mk); do
    grep -q "^  $k  *default:" <<< "$h" || { echo "FAIL: make help lacks knob $k"; fail=1; }
done
for t in all compile cells baselines report fidelity build problems gpu-check test test-gpu deps help; do
    grep -q "^  make $t " <<< "$h" || { echo "FAIL: make help lacks target $t"; fail=1; }
done
grep -q "include config.mk\|^\s*@" <<< "$h" && { echo "FAIL: make help prints Makefile text"; fail=1; }
echo "ok: make help lists $(grep -c 'default:' <<< "$h") knobs and $(grep -c '^  make ' <<< "$h") targets"
# a GPU goal on a machine without an NVIDIA driver: refused when the Makefile is read, with what
# works instead (on a GPU machine this part is skipped)
if [ ! -e /dev/nvidiactl ]; then
    out=$(make all MODEL=demo-naive BUILD=/tmp/kb-nogpu-$$ 2>&1) && { echo "FAIL: make all without a GPU passed"; fail=1; }
    grep -q "no NVIDIA driver or GPU on this machine.*make compile" <<< "$out" || { echo "FAIL: no-GPU message: $out"; fail=1; }
    [ ! -e /tmp/kb-nogpu-$$ ] || { echo "FAIL: make all built something before saying there is no GPU"; fail=1; rm -rf /tmp/kb-nogpu-$$; }
    echo "ok: make all without a GPU: $(grep -o "no NVIDIA driver[^:]*" <<< "$out")"
fi
# make report on ARTIFACTS=<tree>/paper (a level too deep): refused, nothing written
t=$(mktemp -d)
out=$(make report ARTIFACTS=results/2026-11-29-demo-models/artifacts/paper TABLES_DIR="$t/tables" PLOTS_DIR="$t/plots" 2>&1) &&
    { echo "FAIL: make report on a tree without paper/ passed"; fail=1; }
grep -q "try ARTIFACTS=results/2026-11-29-demo-models/artifacts PROTOCOL=paper" <<< "$out" || { echo "FAIL: report message: $out"; fail=1; }
[ -z "$(ls -A "$t")" ] || { echo "FAIL: make report wrote $(ls "$t") for a missing tree"; fail=1; }
rm -rf "$t"
[ $fail = 0 ] && echo "make_knobs: every bad knob refused at parse time; make help unaffected; good values pass"
exit $fail
