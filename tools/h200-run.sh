#!/usr/bin/env bash
# h200-run.sh PHASE -- what one device call runs (tools that fit the device tool's limits:
# logs and tarballs into $OUT, at most 8 files). Phases:
#   one  build; GPU unit test; benchmarks (timer accuracy, memory accounting, overhead);
#        the paper-protocol pipeline for every model
#   two  the strict-protocol pipeline; reproducibility (second baseline runs); verdict and fault
#        tables; kill -9 / resume of the GPU stages
set -uo pipefail
phase=${1:?usage: h200-run.sh one|two}
OUT=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH DEPS_PREFIX=${DEPS_PREFIX:-.deps}
J=$(nproc)
t() { local s=$(date +%s); "$@"; local rc=$?; echo "[$(( $(date +%s) - s )) s, rc $rc] $*"; return $rc; }
mkdir -p "$OUT"
{
echo "== $(date -u) phase $phase on $(hostname): $(nvidia-smi -L 2>&1 | head -1)"
if [ ! -x build/bin/kb-runner ] || [ "$phase" = one ]; then
    t make -j"$J" build build/tests/gpu/test_generators > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
build/bin/kb-gpuinfo
} 2>&1 | tee "$OUT/run-$phase.txt"
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
if [ "$phase" = one ]; then
    {
    t build/tests/gpu/test_generators
    t build/bin/kb-bench-timer-accuracy --out "$OUT/timer-accuracy.csv"
    t bench/memory-accounting.sh "$OUT/memory-accounting.csv"
    build/bin/kb-compile --src bench/fixtures/empty.cu --out-so /tmp/empty.so --out /tmp/empty.h5 --model bench \
        --problem level1/019_relu --sample s0 > /dev/null
    build/bin/kb-compile --src submissions/demo-naive/level1/019_relu/s1.cu --out-so /tmp/relu.so --out /tmp/relu.h5 \
        --model bench --problem level1/019_relu --sample s1 > /dev/null
    t build/bin/kb-bench-overhead --problem build/problems/level1/019_relu.so --empty /tmp/empty.so \
        --submission /tmp/relu.so --runner build/bin/kb-runner --out "$OUT/overhead.csv"
    t make -j6 cells baselines PROTOCOL=paper
    } 2>&1 | tee -a "$OUT/run-$phase.txt"
    tar czf "$OUT/artifacts-paper.tgz" artifacts/paper
else
    {
    t make -j6 cells baselines PROTOCOL=strict
    RUN1_paper=artifacts/paper/baseline RUN1_robust=artifacts/strict/baseline t bench/reproducibility.sh "$OUT/reproducibility.csv"
    GPU_SUITE_SKIP_PIPELINE=1 t tests/gpu/run.sh
    } 2>&1 | tee -a "$OUT/run-$phase.txt"
    tar czf "$OUT/artifacts-strict.tgz" artifacts/strict
    cp artifacts/verdicts.csv artifacts/faults.csv "$OUT/" 2>/dev/null
fi
