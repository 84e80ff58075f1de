#!/usr/bin/env bash
# Harness overhead (kb-bench-overhead): per-call cost of timing an empty kernel in process and in
# the sandboxed child, and the cost of each phase of a cell on L1/19 ReLU (child start, inputs,
# reference, calls, comparison, both timers, close), with demo-naive's ReLU as the submission.
# Usage: bench/overhead.sh OUT.csv      (GPU; after make build)
set -euo pipefail
out=${1:?usage: bench/overhead.sh OUT.csv}
BUILD=${BUILD:-build}
bin=$BUILD/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$bin/kb-compile --src bench/fixtures/empty.cu --out-so "$tmp/empty.so" --out "$tmp/empty.h5" --model bench \
    --problem level1/019_relu --sample s0 >/dev/null
$bin/kb-compile --src submissions/demo-naive/level1/019_relu/s1.cu --out-so "$tmp/relu.so" --out "$tmp/relu.h5" \
    --model bench --problem level1/019_relu --sample s1 >/dev/null
$bin/kb-bench-overhead --problem $BUILD/problems/level1/019_relu.so --empty "$tmp/empty.so" \
    --submission "$tmp/relu.so" --runner $bin/kb-runner --out "$out"
