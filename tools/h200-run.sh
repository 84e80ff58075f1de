#!/usr/bin/env bash
# h200-run.sh PHASE [SECONDS] -- what one device call runs, within SECONDS (default 560):
# logs and tarballs go to $OUT (the device tool returns at most 8 files). Steps that would
# overrun are cut by `timeout`; artifacts are atomic, so a cut run resumes in the next call.
#   one  build; the paper-protocol pipeline for every model; GPU unit test; benchmarks
#        (timer accuracy, memory accounting, harness overhead)
#   two  both protocols' pipelines (strict: every model but demo-faults); benchmarks (timer
#        accuracy, memory accounting, reproducibility); the GPU suite (verdict and fault tables,
#        kill -9 / resume)
#   four the robust timer's power state: GPU timer test, bench/power-state.sh, timer accuracy,
#        reproducibility (two fresh runs, the second in reverse problem order)
#   five the strict pipeline again (paced, clock-guarded robust timer); reproducibility (run 1 =
#        its baselines); timer accuracy; the GPU suite; bench/power-state.sh
#   six  re-time the strict cell below the reported-time floor; harness overhead
#   smoke the sandbox (issue #10): CPU sandbox test there, demo-libs with the warden's audit log,
#        demo-faults (paper)
#   ten  both protocols' pipelines with the sandbox, its cost against the archived run, the GPU
#        suite on that tree
#   ab   the sandbox's cost side by side (bench/sandbox-ab.sh)
#   check the sandbox mode each artifact records, with the warden and flags-only
#   py4, py5, py6 (issue #11, session 5): the light builds' cost, both protocols, the GPU suite
#   s6a (prepared in session 5 for the next): the TIMED-reply fix on its cell, PROBLEM= with progress
#   s6b: the 100 Level-1 baselines against PyTorch eager (fidelity), one problem at a time
#   s7a (prepared for session 7): make PROBLEM=level1/019 MODEL=demo-naive; fidelity of every
#       problem, resumable (carry the previous call's $OUT/fidelity.tgz as .h200-carry/fidelity.tgz)
#   s7p: kb-fidelity's start-up trace on six problems; s7c: make -j2 fidelity over every problem,
#       then (S7_ALL=1) make all MODEL=demo-naive in the time left
#   s8 (prepared for session 8): fidelity of all 101, make all MODEL=demo-naive, the GPU suite,
#       resumable across calls (carry the previous call's $OUT/s8.tgz as .h200-carry/s8.tgz)
#   s8a: per-kernel times of the outliers (bench/kernel-times.sh), the rest as s8
#   s8b: the fidelity of every problem in one call (make -j4), then per-kernel times
#   s9 (prepared for session 9): bench/trace/ipc-write.cu, the fidelity of every problem in one
#       call, per-kernel times of the depthwise convolutions
#   s10 (session 9): the fidelity of every problem in one call, then per-kernel times of 091, 092
#   s11 (session 9): the fidelity of 091, 092, 097 after their fixes; the GPU suite over L1/019
#   s12 (prepared for session 10): the contract fidelity run, then traces of 083 and 093
#   s13 (prepared for session 10): make all MODEL=demo-naive, resumable; S13_SUITE=1 adds the suite
#   s14 (session 10): s13 resumed to its end, then make all MODEL=demo-extract (#16: samples
#       extracted from responses/demo-extract, built here: .h200-carry/extract.txz), then the
#       GPU suite over L1/019 in the time left
#   s15 (prepared in session 10 for session 11): every call of that session; see its branch
#   s16 (session 11, #15): the TF32 rule on the GEMM and softmax samples, both protocols; the GPU suite
#   s17 (prepared in session 11 for the next): the bf16/fp16 GEMMs, make all demo-naive PROTOCOL=strict
#   s18 (session 12, #15): the bf16/fp16 GEMMs; a first mutation trial: kb-witness (fp64 pool) and both
#       protocols' checks (NO_TIMING=1) on the mutants of 019, 023, 040 (MUTATE_PER_RULE=1)
#   s19 (session 13, #15): the mutation report over 12 problems (make mutation, CALL_TIMEOUT=5; the
#       .cu mutants carried compiled, the .py ones built here while the 10 problems without .py
#       mutants run), and beside it the strict checks of the bf16/fp16 GEMMs, the one-pass LayerNorm,
#       the unstable softmax and the honest centring problems (S7); resumable over calls
#       (.h200-carry/mutation.tgz = the previous call's $OUT/mutation.tgz)
#   s20 (session 13, #15): s19 without the special checks (done in s19's first call), resumable the same way
#   s22 (session 14, #15): the strict checks of the 10 problems' witnessed mutants and origins in
#       the time left (s21's restore had re-run the witnesses: stamps are now made before it)
#   s23 (session 15, #15): everything of #15's report left after s21 (023/040 built and witnessed,
#       both protocols' checks, the special cells), resumable over calls; see its branch
#   s26 (session 16): the child's wait for its output copies (02e1f78, re-applied) on the GPU: a
#       fresh build here (deps and mutants from the carry), the standard checks of the 99 .cu
#       cells of 019/023/026 (their mutants and origins, 6 GiB outputs) at -j12 in one tree, the
#       load that lost 10 stages in s25 (S26_MEMTEST=0 skips it); then the GPU suite over L1/019
#   s25 (session 16, #15): s24 from s23's artifacts alone (a new checkout: no .py build directories):
#       the 35 .py samples of 023/040 built (CPU) while make mutation's checks of the 10 other
#       problems use the GPU, then the two witnesses alone, then make mutation over the 12; the same
#       command again on the warm machine goes on where it stopped (artifacts/ is kept there)
#   s24 (session 15, #15): s23 with the witnesses of 023/040 alone first (beside the checks they ran
#       out of device memory; saved at once), then make mutation over the 12; see its branch. Give
#       it a budget 60 s under the call's limit (session 15's call at 500 of 560 s lost everything)
#   s21 (session 14, #15): the witnesses one problem at a time (WITNESS_MEMORY=48; the .py mutants of
#       023 and 040 built here meanwhile and witnessed last), then make mutation's checks and report
#       over all 12 problems; S21_SPECIAL=1 adds the special checks of s19; resumable like s19
set -uo pipefail
phase=${1:?usage: h200-run.sh one|two|three|four|five [seconds]}
budget=${2:-560}
start=$(date +%s)
OUT=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH DEPS_PREFIX=${DEPS_PREFIX:-.deps}
J=$(nproc)
left() { echo $(( budget - ($(date +%s) - start) )); }
t() { local s=$(date +%s); "$@"; local rc=$?; echo "[$(( $(date +%s) - s )) s, rc $rc] $*"; return $rc; }
# fidelity.h5 of each problem given, one at a time, skipping those done, until time runs short
fidelity_loop() {
    for p in "$@"; do
        [ -f artifacts/paper/baseline/$p/fidelity.h5 ] && continue
        reserve=25 lim make --no-print-directory PROTOCOL=paper artifacts/paper/baseline/$p/fidelity.h5 2>&1 | grep -v '^kb:' | tail -2
        [ "$(left)" -gt 40 ] || break
    done
}
lim() { local l=$(( $(left) - ${reserve:-15} )); [ "$l" -gt 5 ] || { echo "[skipped, no time] $*"; return 124; }; t timeout -k 5 "$l" "$@"; }
# #15's mutation state over calls (s22-s24): the 12 problems, the .py ones, the special cells
MUT_P12=level1/001,level1/003,level1/019,level1/023,level1/026,level1/033,level1/040,level1/042,level1/047,level1/055,level1/057,level1/095
MUT_PY2=level1/023,level1/040
MUT_SPP=level1/001,level1/003,level1/023,level1/024,level1/034,level1/035,level1/040
MUT_SP="demo-hacks/level1/001_square_matmul/s2 demo-hacks/level1/001_square_matmul/s3 demo-hacks/level1/040_layernorm/s0 demo-hacks/level1/040_layernorm/s1 demo-hacks/level1/023_softmax/s1 demo-naive/level1/024_log_softmax/s0 demo-naive/level1/034_instancenorm/s0 demo-naive/level1/035_groupnorm/s0 demo-tuned/level1/001_square_matmul/s0 demo-tuned/level1/003_batched_matmul/s0"
mut_pycells() { (cd submissions && find mutants/level1/023_softmax mutants/level1/040_layernorm demo-kernelbench/level1/023_softmax demo-kernelbench/level1/040_layernorm -name 's*.py' | sed 's/\.py$//' | sort -V); }
# mut_restore ARCHIVE (a previous call's $OUT/mutation.tgz, or its xz): on a fresh machine only.
# The knob stamps first (written at a parse; s21's restore re-ran every witness because its stamp
# was newer than the restored artifacts), then the archive's files, all touched to one time after
# them; a .py sample's record without its build directory is dropped, so it is built again.
mut_restore() {
    [ ! -d artifacts/mutation ] && [ -f "$1" ] || return 0
    local P c now
    for P in strict paper; do
        make -q --no-print-directory checks ARTIFACTS=artifacts/mutation NO_TIMING=1 PROTOCOL=$P PROBLEM=$MUT_P12 CALL_TIMEOUT=5 >/dev/null 2>&1
        make -q --no-print-directory checks ARTIFACTS=artifacts/special NO_TIMING=1 PROTOCOL=$P PROBLEM=$MUT_SPP ONLY_CELLS="$MUT_SP" >/dev/null 2>&1
    done
    make -q --no-print-directory witness PROBLEM=$MUT_P12 CALL_TIMEOUT=5 >/dev/null 2>&1
    make -q --no-print-directory compile MODEL=mutants PROBLEM=$MUT_PY2 >/dev/null 2>&1
    sleep 1.1
    tar xf "$1" && sleep 1.1 && now=$(date +%s.%N)
    tar tf "$1" | while read -r c; do [ -f "$c" ] && touch -d "@$now" "$c"; done
    for c in $(mut_pycells); do [ -f build/sub/$c/compile.h5 ] && [ ! -f build/sub/$c/manifest.json ] && rm -f build/sub/$c/compile.h5; done
    echo "restored $(find artifacts -name '*.h5' | wc -l) artifacts, $(ls build/sub/mutants/level1/*/s*/manifest.json 2>/dev/null | wc -l) built .py mutants"
}
# the whole state as $OUT/mutation.tgz (the .py samples' build directories too: they take ~185 s to build)
mut_save() {
    tar czf "$OUT/mutation.tgz" artifacts/mutation artifacts/special $(for c in $(mut_pycells); do [ -f build/sub/$c/compile.h5 ] && echo build/sub/$c; done) 2>/dev/null
    ls -la "$OUT/mutation.tgz"
}
# s8 phases: artifacts carried between calls as .h200-carry/s8.tgz (the previous call's $OUT/s8.tgz)
# with the reference and tool hashes they were made with: restored artifacts are touched newer
# than this call's stamps, then every hash file that differs from the saved one is touched newer
# still, so make re-runs exactly what a changed reference or stage binary invalidates
board() { nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | head -1; }
s8_restore() {
    if [ -d artifacts/paper ]; then
        echo "artifacts of an earlier call on this (warm) machine: kept"
    elif [ -f .h200-carry/s8.tgz ]; then
        tar xzf .h200-carry/s8.tgz || return 1
    else
        return 0
    fi
    # in make's order: this call's stamps and relinked objects (its first make) < the compile
    # records (build/sub, the previous call's) < the artifacts (made from them)
    # one time stamp per group (touch -d): a plain touch stamps each file with the clock of its own
    # call, so a target touched a tick before its prerequisite in find's order ran again (session
    # 11: 001_square_matmul s0's three stages re-ran in s15's third call)
    sleep 1.1; [ ! -d build/sub ] || find build/sub -type f -exec touch -d "@$(date +%s.%N)" {} +
    sleep 1.1; find artifacts -type f -exec touch -d "@$(date +%s.%N)" {} +
    echo "restored $(find artifacts -name '*.h5' | wc -l) artifacts, $(find build/sub -name compile.h5 2>/dev/null | wc -l) compile records"
    # a timed artifact of another board is never compared with this one's (the tables leave it out)
    local uuid; uuid=$(board)
    if [ -f artifacts/.board ] && [ "$(cat artifacts/.board)" != "$uuid" ]; then
        echo "== WARNING: this is board $uuid, the carried artifacts were timed on $(cat artifacts/.board): their times and this call's never meet in one table"
    fi
    [ -d s8-hashes ] || { echo "no saved hashes (a call before they were kept): nothing touched"; return 0; }
    sleep 1.1
    local f n=0
    for f in build/refhash/level*/*.hash build/stamps/tools/*.sha; do
        cmp -s "$f" "s8-hashes/$f" || { touch "$f"; n=$((n + 1)); }
    done
    echo "hash files changed since the carried artifacts: $n"
}
s8_save() {
    [ -d artifacts ] && board > artifacts/.board
    rm -rf s8-hashes && mkdir -p s8-hashes && cp -a --parents build/refhash build/stamps/tools s8-hashes/
    tar czf "$OUT/s8.tgz" artifacts s8-hashes $(find build/sub -name '*.log' -prune -o -type f -print 2>/dev/null) 2>/dev/null; ls -la "$OUT/s8.tgz"
}
# the fidelity of every problem in one call (make -j4, keeping RESERVE seconds), its CSV and
# artifacts ($OUT/fidelity-TAG.tgz)
fidelity_all() {
    reserve=$2 lim make -j4 -k --no-print-directory PROTOCOL=paper fidelity 2>&1 | grep -v '^kb:'
    tools/fidelity-csv.sh artifacts/paper "$OUT/fidelity.csv" 2>&1 | tail -30
    tar czf "$OUT/fidelity-$1.tgz" $(find artifacts/paper/baseline -name 'fidelity.h5*') 2>/dev/null
}
# per-kernel times of the problems given in the time left ($OUT/kt.tgz)
traces() {
    reserve=8 lim bench/kernel-times.sh "$OUT/kt" "$@"
    tar czf "$OUT/kt.tgz" -C "$OUT" kt && rm -rf "$OUT/kt"
}
# the carry of s25 unpacked: on a fresh machine deps, mutants and the prebuilt build/ (touched newer
# than the copied tree, so make rebuilds nothing); on a warm one (build/.carried) the tree was copied
# again, perhaps newer than build/: build/, then build/sub, then artifacts/ touched in make's
# order, one time per group, so that nothing made in the previous call looks stale
carry_unpack() {
    if [ ! -f build/.carried ]; then
        tar xJf .h200-carry/deps.txz && tar xJf .h200-carry/mutants.txz && sleep 1.1 && tar xf .h200-carry/build.txz || return 1
        find build -type f -exec touch -d "@$(date +%s.%N)" {} + && touch build/.carried
        echo "carry unpacked: $(find build/sub -name compile.h5 | wc -l) compile records"
    else
        find build -path build/sub -prune -o -type f -exec touch -d "@$(date +%s.%N)" {} +; sleep 1.1
        [ ! -d build/sub ] || find build/sub -type f -exec touch -d "@$(date +%s.%N)" {} +; sleep 1.1
        [ ! -d artifacts ] || find artifacts -type f -exec touch -d "@$(date +%s.%N)" {} +
        echo "warm machine: $(find artifacts -name '*.h5' 2>/dev/null | wc -l) artifacts kept"
    fi
}
mkdir -p "$OUT"
log=$OUT/run-$phase.txt
exec > >(tee -a "$log") 2>&1
echo "== $(date -u) phase $phase: $(nvidia-smi -L 2>&1 | head -1); $J cores"
[ "$phase" != s25 ] || carry_unpack || exit 1
[ "$phase" != s26 ] || { { [ -d .deps ] || tar xJf .h200-carry/deps.txz; } && { [ -d submissions/mutants ] || tar xJf .h200-carry/mutants.txz; }; } || exit 1
t make -j"$J" build build/tests/gpu/test_generators build/tests/gpu/test_timer build/tests/test_sandbox > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build: $(grep -c -E '^(gcc|g\+\+|ar|/usr/local/cuda/bin/nvcc|nvcc) ' "$OUT/build.log") commands run"
build/bin/kb-gpuinfo
if [ "$phase" = one ]; then
    t build/tests/gpu/test_generators
    reserve=200 lim make -j6 cells baselines PROTOCOL=paper
    lim build/bin/kb-bench-timer-accuracy --out "$OUT/timer-accuracy.csv"
    lim bench/memory-accounting.sh "$OUT/memory-accounting.csv"
    lim bench/overhead.sh "$OUT/overhead.csv"
    tar czf "$OUT/artifacts-paper.tgz" artifacts/paper
elif [ "$phase" = two ]; then
    # everything, after the fixes of the first call: both protocols, benchmarks, the GPU suite
    t build/tests/gpu/test_generators
    reserve=290 lim make -j6 cells baselines PROTOCOL=paper
    for m in demo-naive demo-hacks demo-relu-hack demo-tuned; do
        reserve=115 lim make -j6 cells baselines PROTOCOL=strict MODEL=$m
    done
    lim build/bin/kb-bench-timer-accuracy --out "$OUT/timer-accuracy.csv"
    reserve=100 lim bench/memory-accounting.sh "$OUT/memory-accounting.csv"
    RUN1_paper=artifacts/paper/baseline RUN1_robust=artifacts/strict/baseline reserve=45 \
        lim bench/reproducibility.sh "$OUT/reproducibility.csv"
    GPU_SUITE_SKIP_PIPELINE=1 reserve=12 lim tests/gpu/run.sh
    cp artifacts/verdicts.csv artifacts/faults.csv "$OUT/" 2>/dev/null
    tar czf "$OUT/artifacts.tgz" artifacts/paper artifacts/strict
elif [ "$phase" = three ]; then
    # after the fixes of the second call: the strict pipeline again (magnitude floor, memory
    # admission), the robust timer's calibration, the GPU suite against the carried paper tree
    reserve=60 lim make -j6 cells baselines PROTOCOL=strict MODEL=demo-hacks
    for m in demo-naive demo-relu-hack demo-tuned; do
        reserve=45 lim make -j6 cells baselines PROTOCOL=strict MODEL=$m
    done
    lim build/bin/kb-bench-timer-accuracy --out "$OUT/timer-accuracy.csv"
    GPU_SUITE_SKIP_PIPELINE=1 reserve=8 lim tests/gpu/run.sh
    cp artifacts/verdicts.csv artifacts/faults.csv "$OUT/" 2>/dev/null
    tar czf "$OUT/artifacts-strict.tgz" artifacts/strict
elif [ "$phase" = four ]; then
    # session 2: the robust timer's power state (clock stamps, pacing, clock guard)
    t build/tests/gpu/test_timer
    KEEP_DIR=/tmp/ps lim bench/power-state.sh "$OUT/power-state.csv"
    lim build/bin/kb-bench-timer-accuracy --out "$OUT/timer-accuracy.csv"
    KEEP_DIR=/tmp/rp reserve=10 lim bench/reproducibility.sh "$OUT/reproducibility.csv"
    tar czf "$OUT/raw-four.tgz" -C /tmp ps rp
elif [ "$phase" = five ]; then
    # session 2, the archive: the strict tree with the paced, clock-guarded robust timer; the
    # benchmarks; the GPU suite against the committed paper tree and this strict tree
    mkdir -p artifacts && cp -a results/h200/artifacts/paper artifacts/
    for m in demo-hacks demo-naive demo-relu-hack demo-tuned; do
        reserve=260 lim make -j6 cells baselines PROTOCOL=strict MODEL=$m
    done
    tar czf "$OUT/artifacts-strict.tgz" artifacts/strict
    RUN1_robust=artifacts/strict/baseline reserve=150 lim bench/reproducibility.sh "$OUT/reproducibility.csv"
    reserve=40 lim build/bin/kb-bench-timer-accuracy --out "$OUT/timer-accuracy.csv"
    GPU_SUITE_SKIP_PIPELINE=1 reserve=25 lim tests/gpu/run.sh
    cp artifacts/verdicts.csv artifacts/faults.csv "$OUT/" 2>/dev/null
    IDLE_S=3 HEAT_TRIALS=300 reserve=5 lim bench/power-state.sh "$OUT/power-state.csv"
elif [ "$phase" = six ]; then
    # session 2: re-time the one strict cell whose robust time fell below the empty-kernel
    # overhead (demo-hacks gelu s0, no work on its stream) under the reported-time floor; the
    # rest of the committed strict tree is reused as is (make -n must list only that cell)
    mkdir -p artifacts && cp -a results/h200/artifacts/strict artifacts/
    make -j"$J" compile PROTOCOL=strict MODEL=demo-hacks > "$OUT/compile.log" 2>&1
    sleep 1.1; stamp=$(date +%Y%m%d%H%M.%S)
    find artifacts -type f -exec touch -t "$stamp" {} +
    rm artifacts/strict/demo-hacks/level1/026_gelu/s0/sanity-check.h5
    make -n cells baselines PROTOCOL=strict MODEL=demo-hacks > "$OUT/plan.txt" 2>&1
    n=$(grep -cE 'kb-(sanity-check|verify-distributions|memory-profile|baseline-time) ' "$OUT/plan.txt")
    grep -E 'kb-(sanity-check|verify-distributions|memory-profile|baseline-time) ' "$OUT/plan.txt" | grep -vc 026_gelu/s0 > /tmp/others || true
    echo "plan: $n stage commands, $(cat /tmp/others) for other cells"
    if [ "$(cat /tmp/others)" = 0 ]; then
        lim make -j6 cells baselines PROTOCOL=strict MODEL=demo-hacks
        tar czf "$OUT/gelu-s0.tgz" artifacts/strict/demo-hacks/level1/026_gelu/s0
    fi
    lim bench/overhead.sh "$OUT/overhead.csv"
elif [ "$phase" = smoke ]; then
    # session 3 (issue #10): the sandbox on the GPU machine before the full runs: the CPU sandbox
    # test on that kernel, the library-calling submissions with every warden decision logged, the
    # fault zoo (paper protocol)
    t build/tests/test_sandbox 2>&1 | tail -25
    rm -f /tmp/kb-fault-*
    KB_SANDBOX_AUDIT=1 lim make -j4 cells PROTOCOL=paper MODEL=demo-libs
    lim make -j6 cells PROTOCOL=paper MODEL=demo-faults
    for f in artifacts/paper/demo-faults/level1/019_relu/s*/sanity-check.h5 artifacts/paper/demo-libs/level1/*/s0/sanity-check.h5; do
        echo "$f: $(build/bin/kb-h5get "$f" / outcome) | $(build/bin/kb-h5get "$f" / outcome_detail | head -c 200) | $(build/bin/kb-h5get "$f" / sandbox)"
    done
    ls -la /tmp/kb-fault-* 2>&1
    tar czf "$OUT/smoke-logs.tgz" $(find artifacts/paper -name '*.log')
elif [ "$phase" = ten ]; then
    # session 3 (issue #10): both protocols' pipelines over every model with the new sandbox; the
    # sandbox's cost against the archived run; verdict and fault tables; GPU unit tests
    rm -f /tmp/kb-fault-*
    reserve=${RESERVE_STRICT:-230} lim make -j6 cells baselines PROTOCOL=paper
    reserve=40 lim make -j6 cells baselines PROTOCOL=strict
    lim bench/sandbox-cost.sh artifacts results/h200/artifacts "$OUT/sandbox-cost.csv"
    GPU_SUITE_SKIP_PIPELINE=1 reserve=5 lim tests/gpu/run.sh
    cp artifacts/verdicts.csv artifacts/faults.csv artifacts/faults-strict.csv "$OUT/" 2>/dev/null
    tar czf "$OUT/artifacts.tgz" artifacts/paper artifacts/strict
elif [ "$phase" = ab ]; then
    # session 3 (issue #10): the sandbox's cost side by side: every demo-naive and demo-tuned cell's
    # standard check sandboxed and unsandboxed, alternating, both protocols
    for p in strict paper; do lim make -j"$J" compile PROTOCOL=$p MODEL=demo-naive > /dev/null; lim make -j"$J" compile PROTOCOL=$p MODEL=demo-tuned > /dev/null; done
    reserve=5 lim bench/sandbox-ab.sh artifacts "$OUT/sandbox-ab.csv"
elif [ "$phase" = check ]; then
    # session 3: the sandbox mode recorded in both modes (warden; flags-only, KB_SANDBOX_FLAGS_ONLY=1)
    t build/tests/test_sandbox 2>&1 | tail -3
    for mode in warden flags-only; do
        if [ $mode = flags-only ]; then export KB_SANDBOX_FLAGS_ONLY=1; else unset KB_SANDBOX_FLAGS_ONLY; fi
        lim make -j4 cells PROTOCOL=paper MODEL=demo-libs ARTIFACTS=/tmp/a-$mode > /tmp/$mode.log 2>&1 || tail -20 /tmp/$mode.log
        for f in /tmp/a-$mode/paper/demo-libs/level1/*/s0/*.h5; do
            case $f in *compile.h5) continue;; esac
            echo "$mode ${f#/tmp/a-$mode/paper/}: $(build/bin/kb-h5get "$f" / outcome) | $(build/bin/kb-h5get "$f" / sandbox)"
        done
    done
elif [ "$phase" = py1 ]; then
    # session 4 (issue #11): the .py kind's first run: the interpreter, the builds on 16 cores
    # (cold cache), one cell of each kind by hand with the warden's audit, fidelity of two
    # problems, then the paper pipeline of demo-kernelbench in the time left
    python3 -c 'import sys, torch, sysconfig; print(sys.executable, torch.__version__, torch.version.cuda, sysconfig.get_paths()["include"])'
    which ninja nvcc; ls "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h"
    rm -rf build/kbpy-cache build/sub/demo-kernelbench
    t make -j"$J" compile MODEL=demo-kernelbench > "$OUT/compile-py.log" 2>&1; grep "\[compile" "$OUT/compile-py.log"
    tail -30 "$OUT/compile-py.log" | grep -v "\[compile"
    tar czf "$OUT/sub-manifests.tgz" $(find build/sub/demo-kernelbench -name manifest.json -o -name build.log) 2>/dev/null
    c=demo-kernelbench/level1/019_relu/s0
    KB_SANDBOX_AUDIT=1 lim build/bin/kb-sanity-check --runner build/bin/kb-runner --problem build/problems/level1/019_relu.so \
        --submission build/sub/$c/kernel.py --compile build/sub/$c/compile.h5 --model demo-kernelbench --sample s0 --out /tmp/sc.h5
    grep -v "sandbox: allow" /tmp/sc.h5.log | tail -30; grep -c "sandbox: allow" /tmp/sc.h5.log
    grep "sandbox: " /tmp/sc.h5.log | grep -v allow | head; build/bin/kb-h5get /tmp/sc.h5 --dataset /trials/calls/note | head -3
    for p in level1/019_relu level1/001_square_matmul; do
        lim build/bin/kb-fidelity --runner build/bin/kb-runner --problem build/problems/$p.so --spec problems/$p.py --out /tmp/fid-${p#level1/}.h5 || tail -30 /tmp/fid-${p#level1/}.h5.log
    done
    reserve=20 lim make -j8 cells MODEL=demo-kernelbench PROTOCOL=paper > "$OUT/cells-paper.log" 2>&1; grep "^\[" "$OUT/cells-paper.log" | tail -70
    tar czf "$OUT/artifacts-py1.tgz" artifacts/paper/demo-kernelbench /tmp/fid-*.h5* /tmp/sc.h5* 2>/dev/null
elif [ "$phase" = py2 ]; then
    # issue #11: cold builds of every .py on 16 cores (the build-cost figures), demo-kernelbench
    # through both protocols, the two .py faults, the verdict table
    rm -rf build/kbpy-cache build/sub/demo-kernelbench /tmp/kb-fault-*
    t make -j"$J" compile MODEL=demo-kernelbench > "$OUT/compile-py.log" 2>&1; grep "\[compile" "$OUT/compile-py.log"
    for f in build/sub/demo-kernelbench/level1/*/*/compile.h5; do
        echo "$(build/bin/kb-h5get $f / core_s) $(build/bin/kb-h5get $f / wall_s) ${f#build/sub/}"
    done > "$OUT/build-cost.txt"
    awk '$1 > 1 { print $1 }' "$OUT/build-cost.txt" | sort -g | awk '{ a[NR] = $1 } END { printf "build cost: %d built samples, median %.1f core-s, p90 %.1f core-s\n", NR, (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[int(0.9 * NR + 0.999)] }'
    tar czf "$OUT/manifests.tgz" $(find build/sub/demo-kernelbench -name manifest.json) 2>/dev/null
    reserve=330 lim make -j8 cells MODEL=demo-kernelbench PROTOCOL=paper > "$OUT/cells-paper.log" 2>&1; grep "^\[" "$OUT/cells-paper.log" | grep -v compile
    F=artifacts/paper/demo-faults/level1/019_relu
    reserve=290 lim make $F/s18/sanity-check.h5 $F/s19/sanity-check.h5 2>&1 | grep "^\[" ; ls /tmp/kb-fault-* 2>&1
    for s in s18 s19; do echo "fault $s: $(build/bin/kb-h5get $F/$s/sanity-check.h5 / outcome) | $(build/bin/kb-h5get $F/$s/sanity-check.h5 / outcome_detail | cut -c1-200)"; done
    a=artifacts/paper/demo-kernelbench/level1/019_relu
    echo "default-stream known duration: s2 $(build/bin/kb-h5get $a/s2/sanity-check.h5 /timing/kernel reported_ms) ms, s0 $(build/bin/kb-h5get $a/s0/sanity-check.h5 /timing/kernel reported_ms) ms"
    reserve=25 lim make -j8 cells MODEL=demo-kernelbench PROTOCOL=strict > "$OUT/cells-strict.log" 2>&1; grep "^\[" "$OUT/cells-strict.log" | grep -v compile
    tools/verdicts.sh artifacts "$OUT/verdicts.csv" 2>&1 | grep -v "^model" | grep -i "kernelbench\|verdicts" | head -40
    tar czf "$OUT/artifacts-py2.tgz" artifacts/paper/demo-kernelbench artifacts/strict/demo-kernelbench artifacts/paper/demo-faults 2>/dev/null
elif [ "$phase" = py3 ]; then
    # issue #11: the fidelity report (12 problems, both modes, both timers) and the three-way timing
    reserve=200 lim make fidelity > "$OUT/fidelity.log" 2>&1; grep "^\[fid\|fidelity\|above" "$OUT/fidelity.log"
    cp artifacts/paper/tables/fidelity.csv plots/paper/fidelity.png plots/paper/fidelity.svg "$OUT/" 2>/dev/null
    t make -j"$J" compile MODEL=demo-kernelbench > /dev/null 2>&1
    t make -j"$J" compile MODEL=demo-tuned > /dev/null 2>&1; t make -j"$J" compile MODEL=demo-naive > /dev/null 2>&1
    reserve=10 lim bench/three-way.sh "$OUT/three-way.csv"
    tar czf "$OUT/fidelity-artifacts.tgz" artifacts/paper/baseline/*/*/fidelity.h5 2>/dev/null
elif [ "$phase" = py4 ]; then
    # session 5 (issue #11): cold builds of every .py with the light build, 8 builds x 2 compilers
    # on the 16 cores (the build-cost figures), then both protocols over every model (the GPU
    # suite's pipeline step), saved for py5
    rm -rf build/kbpy-cache build/sub/demo-kernelbench /tmp/kb-fault-*
    t make -j8 compile MODEL=demo-kernelbench > "$OUT/compile-py.log" 2>&1; grep "\[compile" "$OUT/compile-py.log" | tail -3
    for f in build/sub/demo-kernelbench/level1/*/*/compile.h5; do
        echo "$(build/bin/kb-h5get $f / core_s) $(build/bin/kb-h5get $f / wall_s) ${f#build/sub/}"
    done > "$OUT/build-cost.txt"
    awk '$1 > 1 { print $1 }' "$OUT/build-cost.txt" | sort -g | awk '{ a[NR] = $1 } END { printf "build cost: %d built samples, median %.1f core-s, p90 %.1f core-s\n", NR, (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[int(0.9 * NR + 0.999)] }'
    tar czf "$OUT/manifests.tgz" $(find build/sub/demo-kernelbench -name manifest.json) 2>/dev/null
    t make -j"$J" compile > "$OUT/compile-all.log" 2>&1 || tail -20 "$OUT/compile-all.log"
    reserve=${RESERVE_STRICT:-200} lim make -j6 cells baselines PROTOCOL=paper > "$OUT/cells-paper.log" 2>&1; grep -c "^\[" "$OUT/cells-paper.log"
    reserve=20 lim make -j6 cells baselines PROTOCOL=strict > "$OUT/cells-strict.log" 2>&1; grep -c "^\[" "$OUT/cells-strict.log"
    tar czf "$OUT/artifacts.tgz" artifacts/paper artifacts/strict
elif [ "$phase" = py5 ]; then
    # session 5 (issue #11): finish both protocols (make resumes; a cold machine restores py4's
    # tree from the carried .h200-carry/artifacts.tgz, stamped newer than the fresh build), then
    # the GPU suite on that tree
    if [ ! -d artifacts/strict ] && [ -f .h200-carry/artifacts.tgz ]; then
        tar xzf .h200-carry/artifacts.tgz && t make -j"$J" compile > /dev/null 2>&1
        sleep 1.1; stamp=$(date +%Y%m%d%H%M.%S); find artifacts -type f -exec touch -t "$stamp" {} +
    fi
    rm -f /tmp/kb-fault-*
    reserve=330 lim make -j6 cells baselines PROTOCOL=paper > "$OUT/cells-paper.log" 2>&1; grep -c "^\[" "$OUT/cells-paper.log"
    reserve=300 lim make -j6 cells baselines PROTOCOL=strict > "$OUT/cells-strict.log" 2>&1; grep -c "^\[" "$OUT/cells-strict.log"
    GPU_SUITE_SKIP_PIPELINE=1 reserve=5 lim tests/gpu/run.sh
    cp artifacts/verdicts.csv artifacts/faults.csv artifacts/faults-strict.csv artifacts/paper/tables/fidelity.csv "$OUT/" 2>/dev/null
    tar czf "$OUT/artifacts.tgz" artifacts/paper artifacts/strict
elif [ "$phase" = py6 ]; then
    # session 5 (issue #11): the strict tree that py5 could not finish (make resumes), then the
    # GPU suite on both trees
    rm -f /tmp/kb-fault-*
    reserve=${RESERVE_SUITE:-150} lim make -j6 cells baselines PROTOCOL=strict > "$OUT/cells-strict.log" 2>&1; grep -c "^\[" "$OUT/cells-strict.log"
    GPU_SUITE_SKIP_PIPELINE=1 reserve=5 lim tests/gpu/run.sh
    cp artifacts/verdicts.csv artifacts/faults.csv artifacts/faults-strict.csv "$OUT/" 2>/dev/null
    tar czf "$OUT/artifacts.tgz" artifacts/paper artifacts/strict
elif [ "$phase" = s6a ]; then
    # for session 6 (issues #11 follow-up, #12): the TIMED-reply fix on the cell it broke (demo-hacks
    # 095 s0, strict), the timer test, one problem with progress and its end summary, make list
    t build/tests/gpu/test_timer 2>&1 | tail -6
    C=artifacts/strict/demo-hacks/level1/095_cross_entropy/s0
    lim make PROTOCOL=strict $C/sanity-check.h5 $C/verify-distributions.h5 2>&1 | tail -4
    echo "095 s0 strict: $(build/bin/kb-h5get $C/sanity-check.h5 / outcome) | $(build/bin/kb-h5get $C/sanity-check.h5 / outcome_detail | cut -c1-160) | $(build/bin/kb-h5get $C/verify-distributions.h5 / outcome_detail | cut -c1-160)"
    reserve=60 lim make PROBLEM=level1/019 MODEL=demo-naive 2>&1 | tee "$OUT/problem-019.txt" | tail -30
    make list PROBLEM=level1/019 2>&1 | tail -5
    # the README's main job, with progress and its end summary (issue #12)
    reserve=80 lim make all MODEL=demo-naive 2>&1 | tee "$OUT/make-all.txt" | tail -40
    make list MODEL=demo-naive 2>&1 | tail -16
    GPU_SUITE_SKIP_PIPELINE=1 reserve=10 lim tests/gpu/run.sh 2>&1 | tail -12
    mkdir -p "$OUT/tables" && cp -r tables/* "$OUT/tables/" 2>/dev/null
    tar czf "$OUT/s6a-artifacts.tgz" artifacts/strict/demo-hacks artifacts/paper/demo-naive artifacts/paper/baseline/level1/019_relu 2>/dev/null
elif [ "$phase" = s6b ]; then
    # issue #13, first H200 look at the 100 Level-1 problems: the C baselines against PyTorch eager
    # (kb-fidelity: both math modes, both timers, outputs compared), one problem at a time in an
    # order that covers every op family early (a killed call resumes with the same command); the
    # archived 12 problems come last (measured before)
    ORDER="${S6B_ORDER:-}"
    t make -j"$J" build/tests/check_problems > /dev/null 2>&1
    build/tests/check_problems problems build/problems $(find build/problems -name '*.so' | sort) | grep -v '^ok' | head -20
    fidelity_loop $ORDER
    tools/fidelity-csv.sh artifacts/paper "$OUT/fidelity-s6b.csv" 2>&1 | tail -3
    tar czf "$OUT/s6b-fidelity.tgz" $(find artifacts/paper/baseline -name 'fidelity.h5*') 2>/dev/null
elif [ "$phase" = s7a ]; then
    # for session 7: issue #12's last transcript, then issue #13's fidelity of every problem, the
    # ones session 6 found broken or slow first (048 094 096 segfaulted; 089 050 043 005 fixed
    # since), then the rest; resumable: call again with the same phase (make skips what is done;
    # restore a previous call's tree from .h200-carry/fidelity.tgz when the machine is fresh)
    [ -f .h200-carry/fidelity.tgz ] && [ ! -d artifacts/paper/baseline ] && tar xzf .h200-carry/fidelity.tgz
    if [ ! -f "$OUT/problem-019.txt" ] && [ -z "${S7_SKIP_019:-}" ]; then
        reserve=60 lim make PROBLEM=level1/019 MODEL=demo-naive 2>&1 | tee "$OUT/problem-019.txt" | tail -25
    fi
    first="level1/048_mean_dim level1/094_mse_loss level1/096_huber_loss level1/089_cumsum level1/050_conv2d_alexnet_conv1 level1/043_maxpool3d level1/005_matrix_scalar_mul level1/093_masked_cumsum"
    rest=$(ls problems/level1/*.c problems/level2/*.c | sed 's|problems/||; s|\.c$||')
    # the user's command (make fidelity), the ones to check first as explicit goals before it
    reserve=30 lim make -k --no-print-directory PROTOCOL=paper $(for p in $first; do echo artifacts/paper/baseline/$p/fidelity.h5; done) 2>&1 | grep -v '^kb:'
    reserve=30 lim make -k --no-print-directory PROTOCOL=paper fidelity 2>&1 | grep -v '^kb:'
    tools/fidelity-csv.sh artifacts/paper "$OUT/fidelity.csv" 2>&1 | tail -8
    tar czf "$OUT/fidelity.tgz" $(find artifacts/paper/baseline -name 'fidelity.h5*') 2>/dev/null
elif [ "$phase" = s7c ]; then
    # session 7, issue #13: the fidelity report of every problem in one make run (-j2: the next
    # problem's children import torch while this one holds the GPU), then, with the time left,
    # make all MODEL=demo-naive (resumable: a cut run goes on in the next call)
    reserve=${S7_RESERVE:-20} lim make -j${S7_J:-2} -k --no-print-directory PROTOCOL=paper fidelity 2>&1 | grep -v '^kb:'
    tools/fidelity-csv.sh artifacts/paper "$OUT/fidelity.csv" 2>&1 | tail -12
    tar czf "$OUT/fidelity.tgz" $(find artifacts/paper/baseline -name 'fidelity.h5*') 2>/dev/null
    if [ -n "${S7_ALL:-}" ]; then
        reserve=10 lim make -j6 -k all MODEL=demo-naive 2>&1 | tee "$OUT/make-all-demo-naive.txt" | grep -v '^kb:' | tail -30
        tar czf "$OUT/demo-naive.tgz" artifacts/paper/demo-naive artifacts/paper/baseline artifacts/paper/tables 2>/dev/null
    fi
elif [ "$phase" = s8 ]; then
    # prepared in session 7 for session 8 (issue #13's must-shows), resumable across calls with
    # the SAME carried build (.h200-carry/build.tgz unchanged between calls): a previous call's
    # $OUT/s8.tgz carried as .h200-carry/s8.tgz is restored and touched newer than this call's
    # stamps (they describe the same binaries; make then re-runs only what is missing).
    #   1. make -j2 fidelity over all 101 problems, fidelity.csv
    #   2. make -j6 all MODEL=demo-naive (paper), its transcript with progress and summary
    #   3. (S8_SUITE=1) the GPU suite over its 12 problems
    s8_restore
    # two problems first (a matmul and an elementwise op): if the two-children protocol fails
    # there, say why and stop rather than spend the call on 99 failures
    probe="artifacts/paper/baseline/level1/001_square_matmul/fidelity.h5 artifacts/paper/baseline/level1/019_relu/fidelity.h5"
    reserve=60 lim make -j2 -k --no-print-directory PROTOCOL=paper $probe 2>&1 | grep -v '^kb:'
    for f in $probe; do
        [ -f "$f" ] || { echo "== probe failed: $f"; tail -40 "$f.log"; exit 1; }
    done
    reserve=${S8_RESERVE:-60} lim make -j2 -k --no-print-directory PROTOCOL=paper fidelity 2>&1 | grep -v '^kb:'
    tools/fidelity-csv.sh artifacts/paper "$OUT/fidelity.csv" 2>&1 | tail -12
    reserve=25 lim make -j6 -k all MODEL=demo-naive 2>&1 | tee -a "$OUT/make-all-demo-naive.txt" | grep -v '^kb:' | tail -25
    if [ -n "${S8_SUITE:-}" ]; then
        reserve=10 lim tests/gpu/run.sh 2>&1 | tail -40
    fi
    s8_save
elif [ "$phase" = s8b ]; then
    # session 8, the contract run: the fidelity of every problem from this one call (no carried
    # artifacts), make -j4 so that it fits one call; then per-kernel times of the convolutions
    # still above 1.05 and of L1/39 (the offset-path fix) in the time left
    fidelity_all s8b "${S8B_RESERVE:-40}"
    traces level1/067_conv1d level1/039_l2_norm level1/063_conv2d_16to128 level1/074_conv_transpose1d_dilated
elif [ "$phase" = s9 ]; then
    # prepared in session 8 for session 9's first call: does writing into CUDA-IPC-imported
    # memory cost more (the cause session 8's traces point at, fixed in 728e73a)? Then the
    # fidelity of every problem in this one call (make -j4), then per-kernel times of the
    # depthwise convolutions (ours ~10% faster than eager) and of L1/39 and 67 (the IPC fix)
    # (session 9: first the fidelity, its children now say HELLO before the GPU is taken; then
    # the cell stages of two demo-naive problems, which session 8 reworked without a GPU)
    fidelity_all s9 "${S9_RESERVE:-75}"
    t build/bin/kb-bench-ipc-write 2048 | tee "$OUT/ipc-write.csv"
    reserve=40 lim make -j4 -k --no-print-directory PROTOCOL=paper MODEL=demo-naive PROBLEM=level1/019_relu,level1/001_square_matmul cells 2>&1 | grep -v '^kb:' | tail -12
    grep -h "kb-stage:" $(find artifacts/paper/demo-naive -name '*.log') | head -6
    traces level1/082_depthwise_conv2d level1/039_l2_norm level1/067_conv1d
elif [ "$phase" = s10 ]; then
    # session 9, the contract run: the fidelity of every problem in this one call, after the flip
    # (index_offset_kernel) and cat (32-bit index) fixes; then per-kernel times of 091 and 092
    fidelity_all s10 "${S10_RESERVE:-25}"
    traces level1/091_cumsum_reverse level1/092_cumsum_exclusive
elif [ "$phase" = s11 ]; then
    # session 9, last call: the fidelity of 091, 092 (cat as parallel_cat) and 097 (exact-FP32
    # attention), then the GPU suite over one problem (019: every demo model, both protocols, the
    # .py path, HELLO before the lock, kill -9 / resume) in the time left
    ps="level1/091_cumsum_reverse level1/092_cumsum_exclusive level1/097_sdpa"
    reserve=300 lim make -j3 -k --no-print-directory PROTOCOL=paper $(for p in $ps; do echo artifacts/paper/baseline/$p/fidelity.h5; done) 2>&1 | grep -v '^kb:'
    tar czf "$OUT/fidelity-s11.tgz" $(find artifacts/paper/baseline -name 'fidelity.h5*') 2>/dev/null
    GPU_SUITE_PROBLEMS=level1/019_relu reserve=12 lim tests/gpu/run.sh > "$OUT/gpu-suite.txt" 2>&1
    tail -45 "$OUT/gpu-suite.txt"
elif [ "$phase" = s12 ]; then
    # prepared in session 9 for session 10's first call: #13's contract run (every problem, one
    # call, ~515 s at -j4 in s10), then per-kernel times of the two problems where ours is fastest
    fidelity_all s12 "${S12_RESERVE:-25}"
    traces level1/083_depthwise_conv2d_asym_kernel level1/093_masked_cumsum
elif [ "$phase" = s13 ]; then
    # prepared in session 9: make all MODEL=demo-naive over every problem (paper), its transcript
    # with progress lines and summary; resumable across calls (carry $OUT/s8.tgz as
    # .h200-carry/s8.tgz with the same build); then, with S13_SUITE=1, the GPU suite
    s8_restore
    reserve=${S13_RESERVE:-25} lim make -j6 -k all MODEL=demo-naive 2>&1 | tee -a "$OUT/make-all-demo-naive.txt" | grep -v '^kb:' | tail -30
    if [ -n "${S13_SUITE:-}" ]; then
        reserve=10 lim tests/gpu/run.sh > "$OUT/gpu-suite.txt" 2>&1
        tail -40 "$OUT/gpu-suite.txt"
    fi
    s8_save
elif [ "$phase" = s14 ]; then
    s8_restore
    # the demo-extract samples as built here by kb-compile (torch 2.11.0+cu130): kept only if the
    # torch here is the same build, else the compile stage builds them again
    if [ -f .h200-carry/extract.txz ]; then
        tar xJf .h200-carry/extract.txz && find build/sub/demo-extract -type f -exec touch -d "@$(date +%s)" {} +
        v=$(/opt/torch/.venv/bin/python3 -c 'import torch; print(torch.__version__)' 2>&1 | tail -1)
        echo "torch here: $v"; [ "$v" = 2.11.0+cu130 ] || rm -rf build/sub/demo-extract
    fi
    reserve=${S14_RESERVE:-230} lim make -j6 -k all MODEL=demo-naive 2>&1 | tee -a "$OUT/make-all-demo-naive.txt" | grep -v '^kb:' | tail -30
    reserve=150 lim make -j6 -k all MODEL=demo-extract 2>&1 | tee "$OUT/make-all-demo-extract.txt" | grep -v '^kb:' | tail -30
    cp artifacts/paper/tables/summary.csv "$OUT/summary-demo-extract.csv" 2>/dev/null
    GPU_SUITE_PROBLEMS=level1/019_relu reserve=20 lim tests/gpu/run.sh > "$OUT/gpu-suite.txt" 2>&1
    tail -45 "$OUT/gpu-suite.txt"
    s8_save
elif [ "$phase" = s15 ]; then
    # prepared in session 10 for session 11, run as it is by every call of that session: each call
    # goes on where the last stopped (a warm machine keeps artifacts/ and build/; run the next call
    # at once, or the next is another board, whose times no table mixes with these: see the
    # WARNING line). Device command of each call (extract the carried build only once):
    #   [ -f build/.carried ] || { tar xf .h200-carry/build.txz && find build -type f -exec touch -d "@$(date +%s)" {} + && touch build/.carried; }; bash tools/h200-run.sh s15 570
    #   1. the fidelity of the problems changed since s12 (082-086: 1024-thread depthwise blocks;
    #      093: the dynamic-cast mul), by their reference hashes
    #   2. make all MODEL=demo-naive (paper) to its end: the must-show run, on one board
    #   3. make all MODEL=demo-extract: its .py samples built here, for this Python
    #   4. the GPU suite over L1/019
    s8_restore
    ps="level1/082_depthwise_conv2d level1/083_depthwise_conv2d_asym_kernel level1/084_depthwise_conv2d_asym_input level1/085_depthwise_conv2d_asym level1/086_depthwise_separable_conv2d level1/093_masked_cumsum"
    reserve=400 lim make -j3 -k --no-print-directory PROTOCOL=paper $(for p in $ps; do echo artifacts/paper/baseline/$p/fidelity.h5; done) 2>&1 | grep -v '^kb:'
    tar czf "$OUT/fidelity-s15.tgz" $(for p in $ps; do ls artifacts/paper/baseline/$p/fidelity.h5* 2>/dev/null; done) 2>/dev/null
    reserve=${S15_RESERVE:-60} lim make -j6 -k all MODEL=demo-naive 2>&1 | tee -a "$OUT/make-all-demo-naive.txt" | grep -v '^kb:' | tail -30
    reserve=40 lim make -j6 -k all MODEL=demo-extract 2>&1 | tee -a "$OUT/make-all-demo-extract.txt" | grep -v '^kb:' | tail -30
    GPU_SUITE_PROBLEMS=level1/019_relu reserve=20 lim tests/gpu/run.sh > "$OUT/gpu-suite.txt" 2>&1
    tail -45 "$OUT/gpu-suite.txt"
    tar czf "$OUT/tables.tgz" artifacts/paper/tables 2>/dev/null
    s8_save
elif [ "$phase" = s16 ]; then
    # session 11, issue #15: the strict protocol's TF32 rule on the GEMMs (demo-hacks 001 s0/s1
    # TF32 cuBLAS/WMMA, s2 bf16, s3 fp16 operands; demo-tuned's TF32 GEMMs; demo-naive's exact
    # ones) and the softmax hacks (023 s1: no max subtracted), both protocols for the verdict
    # table; then the GPU suite over L1/019. Build carried (CARRY_SUBS='demo-hacks demo-tuned demo-naive')
    ps=level1/001_square_matmul,level1/003_batched_matmul,level1/023_softmax
    for p in strict paper; do
        reserve=$([ $p = strict ] && echo 300 || echo 250) lim make -j6 -k cells baselines PROTOCOL=$p PROBLEM=$ps \
            MODEL="demo-hacks demo-tuned demo-naive" 2>&1 | tee -a "$OUT/tf32-$p.txt" | grep -v '^kb:' | grep -vE '^\[.*(compile|sanity-check|memory|baseline-time) ' | tail -40
    done
    for f in artifacts/strict/demo-*/level1/{001_square_matmul,003_batched_matmul,023_softmax}/s*/verify-distributions.h5; do
        [ -f "$f" ] || continue
        echo "$f"
        for a in verified reason tf32_rule verified_tf32 reason_tf32 excess_max tf32_excess_max; do printf '  %s=%s' $a "$(build/bin/kb-h5get "$f" / $a 2>/dev/null)"; done; echo
        for a in precision_downgrade precision_distance_ratio precision_downgrade_bf16 precision_distance_ratio_bf16 fp16_range_fail fp16_range_excess stale_cache stale_cache_tf32; do printf '  %s=%s' $a "$(build/bin/kb-h5get "$f" /probes $a 2>/dev/null)"; done; echo
    done | tee "$OUT/tf32-verdicts.txt"
    VERDICT_PROBLEMS="level1/001_square_matmul level1/023_softmax" tools/verdicts.sh artifacts "$OUT/verdicts-tf32.csv"
    tar czf "$OUT/s16-artifacts.tgz" artifacts 2>/dev/null
    GPU_SUITE_PROBLEMS=level1/019_relu reserve=15 lim tests/gpu/run.sh > "$OUT/gpu-suite.txt" 2>&1
    tail -40 "$OUT/gpu-suite.txt"
elif [ "$phase" = s17 ]; then
    # prepared in session 11 for the next (#15), run as it is by every call, each going on where
    # the last stopped (warm calls back to back: one board): (1) the bf16 / fp16-operand GEMMs
    # (demo-hacks 001 s2, s3: expected FP32 verdict fail; TF32 verdict "precision downgrade
    # (bf16)" or a failed draw, "precision downgrade (fp16 range)"); (2) make all
    # MODEL=demo-naive PROTOCOL=strict over all 100 problems: the false-rejection rate of every
    # strict check at full scale (tools/false-rejections.sh); several calls
    s8_restore
    a=artifacts/strict/demo-hacks/level1/001_square_matmul
    reserve=60 lim make -j2 --no-print-directory PROTOCOL=strict $a/s2/verify-distributions.h5 $a/s3/verify-distributions.h5 2>&1 | grep -v '^kb:'
    for s in 2 3; do
        f=$a/s$s/verify-distributions.h5; [ -f "$f" ] || continue
        echo "$f"; for x in verified reason tf32_rule verified_tf32 reason_tf32 excess_max tf32_excess_max; do printf '  %s=%s' $x "$(build/bin/kb-h5get "$f" / $x 2>/dev/null)"; done; echo
        for x in precision_distance_ratio_bf16 fp16_range_fail fp16_range_excess; do printf '  %s=%s' $x "$(build/bin/kb-h5get "$f" /probes $x 2>/dev/null)"; done; echo
    done | tee -a "$OUT/bf16-fp16.txt"
    reserve=${S17_RESERVE:-40} lim make -j6 -k all MODEL=demo-naive PROTOCOL=strict 2>&1 | tee -a "$OUT/make-all-demo-naive-strict.txt" | grep -v '^kb:' | tail -30
    tools/false-rejections.sh "$OUT/false-rejections.csv" artifacts/strict | tee "$OUT/false-rejections.txt"
    tar czf "$OUT/tables.tgz" artifacts/strict/tables 2>/dev/null
    s8_save
elif [ "$phase" = s18 ]; then
    s8_restore
    a=artifacts/strict/demo-hacks/level1/001_square_matmul
    reserve=400 lim make -j2 --no-print-directory PROTOCOL=strict $a/s2/verify-distributions.h5 $a/s3/verify-distributions.h5 2>&1 | grep -v '^kb:' | tail -6
    for s in 0 2 3; do
        f=$a/s$s/verify-distributions.h5; [ -f "$f" ] || continue
        echo "$f"; for x in verified reason tf32_rule verified_tf32 reason_tf32 excess_max tf32_excess_max; do printf '  %s=%s' $x "$(build/bin/kb-h5get "$f" / $x 2>/dev/null)"; done; echo
        for x in precision_distance_ratio_bf16 fp16_range_fail fp16_range_excess; do printf '  %s=%s' $x "$(build/bin/kb-h5get "$f" /probes $x 2>/dev/null)"; done; echo
    done | tee "$OUT/bf16-fp16.txt"
    M=PROBLEM=level1/019,level1/023,level1/040
    make --no-print-directory mutants $M MUTATE_FROM='demo-naive demo-tuned demo-kernelbench/level1/023_softmax/s0.py' MUTATE_PER_RULE=1 MUTATE_CHECK=0 | tail -2
    origins=$(awk -F, 'NR>1 {print $3}' submissions/mutants/mutants.csv | sort -u | tr '\n' ' ')
    reserve=330 lim make -j$J -k --no-print-directory compile MODEL=mutants $M 2>&1 | grep -v '^kb:' | tail -4
    reserve=320 lim make -j$J -k --no-print-directory compile ONLY_CELLS="$origins" $M 2>&1 | grep -v '^kb:' | tail -4
    W=artifacts/mutation/witness
    for p in level1/019_relu level1/023_softmax level1/040_layernorm; do
        mkdir -p $W/level1
        for c in $(printf '%s\n' $origins | grep "/$p/") $(cd submissions && ls -d mutants/$p/s*.* | sed 's/\.[a-z]*$//' | sort -V); do
            k=kernel.so; [ -f submissions/$c.py ] && k=kernel.py
            printf '%s\t%s\t%s\n' "$c" "build/sub/$c/$k" "build/sub/$c/compile.h5"
        done > $W/$p.list
        ( wl=$(( $(left) - 150 )); [ $wl -gt 30 ] || wl=30; t timeout $wl build/bin/kb-witness --problem build/problems/$p.so --spec problems/$p.py --samples $W/$p.list --out $W/$p.h5 ) &
    done
    wait
    for P in paper strict; do
        reserve=90 lim make -j12 -k --no-print-directory checks MODEL=mutants $M ARTIFACTS=artifacts/mutation NO_TIMING=1 PROTOCOL=$P 2>&1 | grep -v '^kb:' | tail -3
        reserve=60 lim make -j12 -k --no-print-directory checks ONLY_CELLS="$origins" $M ARTIFACTS=artifacts/mutation NO_TIMING=1 PROTOCOL=$P 2>&1 | grep -v '^kb:' | tail -3
    done
    tar czf "$OUT/mutation-trial.tgz" artifacts/mutation submissions/mutants/mutants.csv $(find build/sub/mutants -name compile.h5) 2>/dev/null
    s8_save
elif [ "$phase" = s19 ] || [ "$phase" = s20 ]; then
    if [ ! -d artifacts/mutation ] && [ -f .h200-carry/mutation.tgz ]; then
        tar xzf .h200-carry/mutation.tgz && sleep 1.1 && find artifacts -type f -exec touch -d "@$(date +%s.%N)" {} +
        echo "restored $(find artifacts -name '*.h5' | wc -l) artifacts"
    fi
    P12=level1/001,level1/003,level1/019,level1/023,level1/026,level1/033,level1/040,level1/042,level1/047,level1/055,level1/057,level1/095
    P10=level1/001,level1/003,level1/019,level1/026,level1/033,level1/042,level1/047,level1/055,level1/057,level1/095
    PY2=level1/023,level1/040
    pyo=$(awk -F, 'NR > 1 && $3 ~ /kernelbench/ { print $3 }' submissions/mutants/mutants.csv | sort -u | tr '\n' ' ')
    ( t make -j8 -k --no-print-directory compile MODEL=mutants PROBLEM=$PY2; t make -j2 -k --no-print-directory compile ONLY_CELLS="$pyo" PROBLEM=$PY2 ) > "$OUT/compile-py.log" 2>&1 &
    cpid=$!
    if [ "$phase" = s20 ]; then SP=; fi
    [ "$phase" = s20 ] || SP="demo-hacks/level1/001_square_matmul/s2 demo-hacks/level1/001_square_matmul/s3 demo-hacks/level1/040_layernorm/s0 demo-hacks/level1/040_layernorm/s1 demo-hacks/level1/023_softmax/s1 demo-naive/level1/024_log_softmax/s0 demo-naive/level1/034_instancenorm/s0 demo-naive/level1/035_groupnorm/s0"
    [ -z "$SP" ] || ( for P in strict paper; do reserve=100 lim make -j4 -k --no-print-directory checks ONLY_CELLS="$SP" PROBLEM=level1/001,level1/023,level1/024,level1/034,level1/035,level1/040 ARTIFACTS=artifacts/special NO_TIMING=1 PROTOCOL=$P; done ) > "$OUT/special.log" 2>&1 &
    spid=$!
    reserve=${S19_RESERVE:-60} lim make -j12 -k --no-print-directory mutation PROBLEM=$P10 CALL_TIMEOUT=5 > "$OUT/mutation-10.log" 2>&1; grep -v "^kb:" "$OUT/mutation-10.log" | grep -v "^\[.*compile" | tail -8
    wait $cpid; grep "^\[\|==" "$OUT/compile-py.log" | tail -4
    reserve=45 lim make -j16 -k --no-print-directory mutation PROBLEM=$PY2 CALL_TIMEOUT=5 > "$OUT/mutation-2.log" 2>&1; grep -v "^kb:" "$OUT/mutation-2.log" | tail -5
    wait $spid; [ -z "$SP" ] || grep "verify-dists" "$OUT/special.log"
    for f in $(find artifacts/special -name verify-distributions.h5 | sort); do
        printf '%s' "$f"; for x in verified reason verified_tf32 reason_tf32 excess_max tf32_excess_max; do printf ' %s=%s' $x "$(build/bin/kb-h5get "$f" / $x 2>/dev/null)"; done
        for x in precision_distance_ratio_bf16 fp16_range_fail fp16_range_excess; do printf ' %s=%s' $x "$(build/bin/kb-h5get "$f" /probes $x 2>/dev/null)"; done; echo
    done | tee "$OUT/special.txt"
    reserve=8 lim make -k --no-print-directory mutation PROBLEM=$P12 CALL_TIMEOUT=5 2>&1 | grep "^\[mutation" | tail -3
    cp -r artifacts/mutation/report "$OUT/" 2>/dev/null
    tar czf "$OUT/mutation.tgz" artifacts/mutation artifacts/special $(find build/sub -name compile.h5 -newer build/.carried) 2>/dev/null; ls -la "$OUT/mutation.tgz"
elif [ "$phase" = s21 ]; then
    if [ ! -d artifacts/mutation ] && [ -f .h200-carry/mutation.tgz ]; then
        tar xzf .h200-carry/mutation.tgz && sleep 1.1 && find artifacts -type f -exec touch -d "@$(date +%s.%N)" {} +
        echo "restored $(find artifacts -name '*.h5' | wc -l) artifacts"
    fi
    P12=level1/001,level1/003,level1/019,level1/023,level1/026,level1/033,level1/040,level1/042,level1/047,level1/055,level1/057,level1/095
    PY2=level1/023,level1/040
    pyo=$(awk -F, 'NR > 1 && $3 ~ /kernelbench/ { print $3 }' submissions/mutants/mutants.csv | sort -u | tr '\n' ' ')
    rm -f "$OUT/.pydone"
    ( t make -j8 -k --no-print-directory compile MODEL=mutants PROBLEM=$PY2; t make -j2 -k --no-print-directory compile ONLY_CELLS="$pyo" PROBLEM=$PY2; touch "$OUT/.pydone" ) > "$OUT/compile-py.log" 2>&1 &
    pywait() { while [ ! -f "$OUT/.pydone" ] && [ "$(left)" -gt 60 ]; do sleep 2; done; }
    wit() { reserve=${3:-100} lim make -k --no-print-directory witness PROBLEM=$1 CALL_TIMEOUT=5 WITNESS_MEMORY=$2 2>&1 | grep -v '^kb:' | tee -a "$OUT/witness.log" | grep "^\[\|witness" | tail -20; }
    # one at a time: two witnesses of 6 GiB problems side by side could each wait for the other's memory
    ( for p in 001 003 047 095 019 026 033 042 055 057; do wit level1/$p 48; done; pywait; wit level1/023 48; wit level1/040 48 ) > "$OUT/lane.txt" 2>&1
    cat "$OUT/lane.txt"
    grep "^\[" "$OUT/compile-py.log" | tail -4
    # after the witnesses: their memory and the checks' never meet
    if [ "${S21_SPECIAL:-0}" = 1 ]; then
        SP="demo-hacks/level1/001_square_matmul/s2 demo-hacks/level1/001_square_matmul/s3 demo-hacks/level1/040_layernorm/s0 demo-hacks/level1/040_layernorm/s1 demo-hacks/level1/023_softmax/s1 demo-naive/level1/024_log_softmax/s0 demo-naive/level1/034_instancenorm/s0 demo-naive/level1/035_groupnorm/s0 demo-tuned/level1/001_square_matmul/s0 demo-tuned/level1/003_batched_matmul/s0"
        ( for P in strict paper; do reserve=100 lim make -j4 -k --no-print-directory checks ONLY_CELLS="$SP" PROBLEM=level1/001,level1/003,level1/023,level1/024,level1/034,level1/035,level1/040 ARTIFACTS=artifacts/special NO_TIMING=1 PROTOCOL=$P; done ) > "$OUT/special.log" 2>&1
        for f in $(find artifacts/special -name verify-distributions.h5 | sort); do
            printf '%s' "$f"; for x in verified reason verified_tf32 reason_tf32 excess_max tf32_excess_max; do printf ' %s=%s' $x "$(build/bin/kb-h5get "$f" / $x 2>/dev/null)"; done
            for x in precision_distance_ratio_bf16 fp16_range_fail fp16_range_excess; do printf ' %s=%s' $x "$(build/bin/kb-h5get "$f" /probes $x 2>/dev/null)"; done; echo
        done > "$OUT/special.txt"
    fi
    reserve=12 lim make -j12 -k --no-print-directory mutation PROBLEM=$P12 CALL_TIMEOUT=5 WITNESS_JOBS=1 WITNESS_MEMORY=48 > "$OUT/mutation.log" 2>&1
    grep -v "^kb:" "$OUT/mutation.log" | grep -v "^\[.*\(compile\|sanity-check\|verify-dists\)" | tail -12
    cp -r artifacts/mutation/report "$OUT/" 2>/dev/null
    tar czf "$OUT/mutation.tgz" artifacts/mutation artifacts/special $(find build/sub -name compile.h5 -newer build/.carried) 2>/dev/null; ls -la "$OUT/mutation.tgz"
elif [ "$phase" = s22 ]; then
    # s21's restore re-ran every witness (mut_restore says why)
    P10=level1/001,level1/003,level1/019,level1/026,level1/033,level1/042,level1/047,level1/055,level1/057,level1/095
    mut_restore .h200-carry/mutation.tgz
    wit=$(ls artifacts/mutation/witness/level1/*.h5 | tr '\n' ' ')
    build/bin/kb-mutation-report --manifest submissions/mutants/mutants.csv --witness "$wit" --list-witnessed artifacts/mutation/witnessed.txt
    orig=$(awk -F, 'NR > 1 && $2 !~ /02[3]|040/ && $3 !~ /kernelbench/ { print $3 }' submissions/mutants/mutants.csv | sort -u | tr '\n' ' ')
    w=$(grep '^mutants/' artifacts/mutation/witnessed.txt | tr '\n' ' ')
    M="ARTIFACTS=artifacts/mutation NO_TIMING=1 PROTOCOL=strict PROBLEM=$P10 CALL_TIMEOUT=5"
    reserve=20 lim make -j12 -k --no-print-directory checks $M ONLY_CELLS="$orig" 2>&1 | grep -v '^kb:' | tail -2
    reserve=20 lim make -j12 -k --no-print-directory checks CHECK_STAGES=sanity-check MODEL=mutants $M ONLY_CELLS="$w" 2>&1 | grep -v '^kb:' | tail -2
    pw=""; for c in $w; do f=artifacts/mutation/strict/$c/sanity-check.h5; [ "$(build/bin/kb-h5get $f / outcome 2>/dev/null)" = ok ] && [ "$(build/bin/kb-h5get $f / correct 2>/dev/null)" = 1 ] && pw="$pw $c"; done
    echo "strict standard check passed by: $pw"
    [ -z "$pw" ] || reserve=10 lim make -j12 -k --no-print-directory checks CHECK_STAGES=verify-distributions MODEL=mutants $M ONLY_CELLS="$pw" 2>&1 | grep -v '^kb:' | tail -2
    build/bin/kb-mutation-report --manifest submissions/mutants/mutants.csv --witness "$wit" --strict artifacts/mutation/strict --out artifacts/mutation/report | tail -2
    cp -r artifacts/mutation/report "$OUT/" 2>/dev/null
    tar czf "$OUT/mutation.tgz" artifacts/mutation build/stamps/witness.stamp 2>/dev/null; ls -la "$OUT/mutation.tgz"
elif [ "$phase" = s23 ]; then
    # session 15 (#15), resumable over calls (.h200-carry/mutation.tgz = the last call's
    # $OUT/mutation.tgz, which holds the .py samples' build directories too): the knob stamps
    # first, then the restore (newer); the .py mutants of 023/040 built and witnessed in one lane,
    # then the special cells (S23_SPECIAL=0 skips them), while make mutation runs the checks of the
    # 10 other problems (strict, then paper); then make mutation over all 12 and its report
    P12=$MUT_P12 PY2=$MUT_PY2 SPP=$MUT_SPP SP=$MUT_SP
    P10=level1/001,level1/003,level1/019,level1/026,level1/033,level1/042,level1/047,level1/055,level1/057,level1/095
    mut_restore .h200-carry/mutation.tgz
    pyo=$(awk -F, 'NR > 1 && $3 ~ /kernelbench/ { print $3 }' submissions/mutants/mutants.csv | sort -u | tr '\n' ' ')
    (
        t make -j10 -k --no-print-directory compile MODEL=mutants PROBLEM=$PY2 | grep -v '^kb:' | tail -3
        t make -j2 -k --no-print-directory compile ONLY_CELLS="$pyo" PROBLEM=$PY2 | grep -v '^kb:' | tail -3
        for p in 023 040; do reserve=70 lim make -k --no-print-directory witness PROBLEM=level1/$p CALL_TIMEOUT=5 WITNESS_MEMORY=40 2>&1 | grep -v '^kb:' | tail -6; done
        if [ "${S23_SPECIAL:-1}" = 1 ]; then
            for P in strict paper; do reserve=40 lim make -j4 -k --no-print-directory checks ONLY_CELLS="$SP" PROBLEM=$SPP ARTIFACTS=artifacts/special NO_TIMING=1 PROTOCOL=$P 2>&1 | grep -v '^kb:' | tail -3; done
            for f in $(find artifacts/special -name verify-distributions.h5 | sort); do
                printf '%s' "$f"; for x in verified reason verified_tf32 reason_tf32 excess_max tf32_excess_max; do printf ' %s=%s' $x "$(build/bin/kb-h5get "$f" / $x 2>/dev/null)"; done
                for x in precision_distance_ratio_bf16 fp16_range_fail fp16_range_excess; do printf ' %s=%s' $x "$(build/bin/kb-h5get "$f" /probes $x 2>/dev/null)"; done; echo
            done > "$OUT/special.txt"
        fi
    ) > "$OUT/lane-py.txt" 2>&1 &
    lpid=$!
    reserve=${S23_RESERVE:-50} lim make -j12 -k --no-print-directory mutation PROBLEM=$P10 CALL_TIMEOUT=5 WITNESS_JOBS=1 WITNESS_MEMORY=48 > "$OUT/mutation-10.log" 2>&1
    echo "[mutation P10 at $(( $(date +%s) - start )) s]"; grep -v "^kb:" "$OUT/mutation-10.log" | grep -v "^\[.*\(compile\|sanity-check\|verify-dists\)" | tail -6
    wait $lpid; cat "$OUT/lane-py.txt"
    reserve=14 lim make -j12 -k --no-print-directory mutation PROBLEM=$P12 CALL_TIMEOUT=5 WITNESS_JOBS=1 WITNESS_MEMORY=48 > "$OUT/mutation.log" 2>&1
    grep -v "^kb:" "$OUT/mutation.log" | grep -v "^\[.*\(compile\|sanity-check\|verify-dists\)" | tail -12
    for P in strict paper; do echo "$P: $(find artifacts/mutation/$P -name sanity-check.h5 2>/dev/null | wc -l) sanity-check, $(find artifacts/mutation/$P -name verify-distributions.h5 2>/dev/null | wc -l) verify-distributions"; done
    cp -r artifacts/mutation/report "$OUT/" 2>/dev/null
    mut_save
elif [ "$phase" = s24 ]; then
    # session 15's last call (#15): s23's first call ran the lane of 023/040 beside make mutation's
    # checks, and the witnesses' reference and children ran out of device memory (no artifact, no
    # result): now the restore as s23, the two witnesses alone (034's strict check beside them),
    # then make mutation over all 12; the report is made off the device from the tgz
    MT=.h200-carry/mutation.txz  # (xz: 1.0 MB where gzip took 8.5: the carry has 64 MiB with the tracked tree)
    P12=$MUT_P12 PY2=$MUT_PY2
    S34="ONLY_CELLS=demo-naive/level1/034_instancenorm/s0 PROBLEM=level1/034 ARTIFACTS=artifacts/special NO_TIMING=1 PROTOCOL=strict"
    mut_restore "$MT"
    reserve=30 lim make -j2 -k --no-print-directory checks $S34 > "$OUT/special-034.log" 2>&1 &
    t make -j4 -k --no-print-directory compile MODEL=mutants PROBLEM=$PY2 2>&1 | grep -v '^kb:' | tail -2
    for p in 023 040; do reserve=200 lim make -k --no-print-directory witness PROBLEM=level1/$p CALL_TIMEOUT=5 WITNESS_MEMORY=48 2>&1 | grep -v '^kb:' | tail -4; done
    wait; grep 'verify-dists\|sanity' "$OUT/special-034.log" | tail -2
    mut_save # at once: session 15's s24 call was cut by its limit after these and lost them
    reserve=12 lim make -j12 -k --no-print-directory mutation PROBLEM=$P12 CALL_TIMEOUT=5 WITNESS_JOBS=1 WITNESS_MEMORY=48 > "$OUT/mutation.log" 2>&1
    grep -v "^kb:" "$OUT/mutation.log" | grep -v "^\[.*\(compile\|sanity-check\|verify-dists\)" | tail -8
    for P in strict paper; do echo "$P: $(find artifacts/mutation/$P -name sanity-check.h5 2>/dev/null | wc -l) sanity-check, $(find artifacts/mutation/$P -name verify-distributions.h5 2>/dev/null | wc -l) verify-distributions"; done
    mut_save
elif [ "$phase" = s25 ]; then
    MT=.h200-carry/mutation.txz
    P12=$MUT_P12 PY2=$MUT_PY2
    P10=level1/001,level1/003,level1/019,level1/026,level1/033,level1/042,level1/047,level1/055,level1/057,level1/095
    S34="ONLY_CELLS=demo-naive/level1/034_instancenorm/s0 PROBLEM=level1/034 ARTIFACTS=artifacts/special NO_TIMING=1 PROTOCOL=strict"
    mut_restore "$MT"
    pyo=$(awk -F, 'NR > 1 && $3 ~ /kernelbench/ { print $3 }' submissions/mutants/mutants.csv | sort -u | tr '\n' ' ')
    ( t make -j12 -k --no-print-directory compile MODEL=mutants PROBLEM=$PY2 2>&1 | grep -v '^kb:' | tail -3 &
      t make -j2 -k --no-print-directory compile ONLY_CELLS="$pyo" PROBLEM=$PY2 2>&1 | grep -v '^kb:' | tail -3 & wait ) > "$OUT/compile-py.log" 2>&1 &
    cpid=$!
    # the GPU meanwhile: the checks the 10 witnessed problems still lack (not past ~230 s: the witnesses follow)
    ( reserve=$(( budget - 230 )) lim make -j8 -k --no-print-directory mutation PROBLEM=$P10 CALL_TIMEOUT=5 WITNESS_JOBS=1 WITNESS_MEMORY=48 > "$OUT/mutation-10.log" 2>&1
      reserve=30 lim make -j2 -k --no-print-directory checks $S34 > "$OUT/special-034.log" 2>&1 ) &
    mpid=$!
    wait $cpid; cat "$OUT/compile-py.log"; wait $mpid
    echo "[lanes done at $(( $(date +%s) - start )) s]"; grep -v "^kb:" "$OUT/mutation-10.log" | grep -v "^\[.*\(compile\|sanity-check\|verify-dists\)" | tail -4
    grep 'verify-dists\|sanity' "$OUT/special-034.log" | tail -2
    f=artifacts/special/strict/demo-naive/level1/034_instancenorm/s0/verify-distributions.h5
    [ -f $f ] && for x in verified reason excess_max; do printf ' %s=%s' $x "$(build/bin/kb-h5get $f / $x 2>/dev/null)"; done; echo
    for p in 023 040; do reserve=15 lim make -k --no-print-directory witness PROBLEM=level1/$p CALL_TIMEOUT=5 WITNESS_MEMORY=48 2>&1 | grep -v '^kb:' | tail -4; done
    mut_save
    reserve=20 lim make -j${S25_JOBS:-12} -k --no-print-directory mutation PROBLEM=$P12 CALL_TIMEOUT=5 WITNESS_JOBS=1 WITNESS_MEMORY=48 > "$OUT/mutation.log" 2>&1
    grep -v "^kb:" "$OUT/mutation.log" | grep -v "^\[.*\(compile\|sanity-check\|verify-dists\)" | tail -8
    for P in strict paper; do echo "$P: $(find artifacts/mutation/$P -name sanity-check.h5 2>/dev/null | wc -l) sanity-check, $(find artifacts/mutation/$P -name verify-distributions.h5 2>/dev/null | wc -l) verify-distributions"; done
    mut_save
elif [ "$phase" = s26 ]; then
    P3=level1/019,level1/023,level1/026
    cells=$(awk -F, 'NR > 1 && ($2 ~ /^level1\/(019|023|026)_/) && $3 !~ /kernelbench/ { print "mutants/" $2 "/" $1; o[$3] } END { for (c in o) print c }' submissions/mutants/mutants.csv | sort -V | tr '\n' ' ')
    echo "$(echo $cells | wc -w) cells"
    [ "${S26_MEMTEST:-1}" = 1 ] && t make -j$J -k --no-print-directory compile MODEL=mutants ONLY_CELLS="$(printf '%s\n' $cells | grep '^mutants/' | tr '\n' ' ')" PROBLEM=$P3 2>&1 | grep -v '^kb:' | tail -2
    [ "${S26_MEMTEST:-1}" = 1 ] && t make -j$J -k --no-print-directory compile ONLY_CELLS="$(printf '%s\n' $cells | grep -v '^mutants/' | tr '\n' ' ')" PROBLEM=$P3 2>&1 | grep -v '^kb:' | tail -2
    [ "${S26_MEMTEST:-1}" = 1 ] && for m in mutants other; do
        if [ $m = mutants ]; then M="MODEL=mutants"; c=$(printf '%s\n' $cells | grep '^mutants/' | tr '\n' ' '); else M=; c=$(printf '%s\n' $cells | grep -v '^mutants/' | tr '\n' ' '); fi
        reserve=300 lim make -j12 -k --no-print-directory checks CHECK_STAGES=sanity-check $M ONLY_CELLS="$c" PROBLEM=$P3 ARTIFACTS=artifacts/memtest NO_TIMING=1 PROTOCOL=paper CALL_TIMEOUT=5 >> "$OUT/memtest.log" 2>&1
    done
    echo "memtest: $(find artifacts/memtest -name sanity-check.h5 | wc -l) sanity-check artifacts of $(echo $cells | wc -w) cells; lines: $(grep -c 'out of memory' "$OUT/memtest.log") 'out of memory', $(grep -c 'kb-runner: waiting up to' "$OUT/memtest.log") child waits, $(grep -c 'waiting for .* GiB of device memory' "$OUT/memtest.log") admission waits"
    grep -v '^kb:' "$OUT/memtest.log" | grep 'ran .* stage commands\|out of memory\|kb-runner: waiting' | head -12
    GPU_SUITE_PROBLEMS=level1/019_relu reserve=10 lim tests/gpu/run.sh > "$OUT/gpu-suite.txt" 2>&1
    echo "GPU suite rc $?"; grep -E '^(== |FAIL|ok|PASS)' "$OUT/gpu-suite.txt" | tail -14
elif [ "$phase" = s8a ]; then
    # session 8, first look: per-kernel GPU times of the problems whose ratio rose above 1.05 in
    # call s8 (and 047, a reduction that did not), then the fidelity of the problems that call
    # did not reach, then make all MODEL=demo-naive in the time left (resumable as s8)
    s8_restore
    reserve=400 lim bench/kernel-times.sh "$OUT/kt" level1/036_rmsnorm level1/037_frobenius_norm level1/038_l1_norm \
        level1/039_l2_norm level1/050_conv2d_alexnet_conv1 level1/063_conv2d_16to128 level1/067_conv1d level1/047_sum_dim
    reserve=230 lim make -j2 -k --no-print-directory PROTOCOL=paper fidelity 2>&1 | grep -v '^kb:'
    tools/fidelity-csv.sh artifacts/paper "$OUT/fidelity.csv" 2>&1 | tail -12
    reserve=25 lim make -j6 -k all MODEL=demo-naive 2>&1 | tee -a "$OUT/make-all-demo-naive.txt" | grep -v '^kb:' | tail -25
    tar czf "$OUT/kt.tgz" -C "$OUT" kt && rm -rf "$OUT/kt"
    s8_save
elif [ "$phase" = s7p ]; then
    # session 7: the start-up trace of kb-fidelity's children (where its ~9 s per problem go) and
    # the re-mirrored elementwise (softplus), scan (cumsum) and offset-path (conv bias) kernels
    ps="level1/029_softplus level1/089_cumsum level1/093_masked_cumsum level1/050_conv2d_alexnet_conv1 level1/019_relu level1/001_square_matmul"
    reserve=10 lim make -k --no-print-directory PROTOCOL=paper $(for p in $ps; do echo artifacts/paper/baseline/$p/fidelity.h5; done) 2>&1 | grep -v '^kb:'
    for p in $ps; do echo "== $p"; grep -E '^(kbpy|kb-fidelity|==)' artifacts/paper/baseline/$p/fidelity.h5.log; done
    tar czf "$OUT/fidelity-s7p.tgz" $(find artifacts/paper/baseline -name 'fidelity.h5*') 2>/dev/null
fi
echo "== done in $(( $(date +%s) - start )) s"
