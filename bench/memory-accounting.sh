#!/usr/bin/env bash
# Memory accounting on known allocation patterns (bench/mem/patterns.csv): each fixture is
# compiled and profiled by the real stages (kb-compile, kb-memory-profile) on level1/019_relu,
# and the measured peak extra bytes are compared with the expected ones, exactly.
# Prints and writes CSV: pattern,expected_bytes,measured_bytes,kept_bytes,exact
# Usage: bench/memory-accounting.sh OUT.csv   (GPU; run from the repository root after make build)
set -euo pipefail
out=${1:?usage: bench/memory-accounting.sh OUT.csv}
BUILD=${BUILD:-build}
bin=$BUILD/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
problem=$BUILD/problems/level1/019_relu.so
echo "pattern,expected_bytes,measured_bytes,kept_bytes,exact" | tee "$out"
fail=0
tail -n +2 bench/mem/patterns.csv | while IFS=, read -r pattern file expected what; do
    $bin/kb-compile --src bench/mem/$file --out-so $tmp/$pattern.so --out $tmp/$pattern.compile.h5 \
        --model bench --problem level1/019_relu --sample s0 >/dev/null
    $bin/kb-memory-profile --problem $problem --submission $tmp/$pattern.so --compile $tmp/$pattern.compile.h5 \
        --model bench --sample s0 --out $tmp/$pattern.mem.h5 --runner $bin/kb-runner >/dev/null
    outcome=$($bin/kb-h5get $tmp/$pattern.mem.h5 /memory outcome)
    measured=$($bin/kb-h5get $tmp/$pattern.mem.h5 /memory extra_bytes)
    kept=$($bin/kb-h5get $tmp/$pattern.mem.h5 /memory kept_bytes)
    exact=$([ "$outcome" = ok ] && [ "$measured" = "$expected" ] && echo yes || echo "no ($outcome)")
    echo "$pattern,$expected,$measured,$kept,$exact" | tee -a "$out"
done
grep -q ',no' "$out" && { echo "memory accounting: NOT exact on every pattern" >&2; exit 1; }
echo "memory accounting: exact on every pattern"
