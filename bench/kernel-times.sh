#!/usr/bin/env bash
# bench/kernel-times.sh OUTDIR PROBLEM... -- where a fidelity ratio comes from: every kernel that
# kb-fidelity's two children (PyTorch eager and the C baseline) run for each PROBLEM (for
# example level1/039_l2_norm), with its GPU duration, traced by the CUPTI injection library
# build/lib/libkb-kerneltrace.so (bench/trace/kerneltrace.c). Two problems at a time, each in its
# own artifact tree under OUTDIR (the real artifacts are not touched):
#   OUTDIR/<level>_<problem>/trace.<pid>   raw kernel lines per process
#   OUTDIR/kernel-times.txt                per process and kernel: launches, median and min us
# The tracer adds launch overhead, so the stage's own ratios in these runs are not the ones to
# quote: the per-kernel GPU durations are what this is for.
set -euo pipefail
out=${1:?usage: bench/kernel-times.sh OUTDIR PROBLEM...}; shift
[ $# -gt 0 ] || { echo "usage: bench/kernel-times.sh OUTDIR PROBLEM..." >&2; exit 2; }
lib=$PWD/build/lib/libkb-kerneltrace.so
make --no-print-directory build/lib/libkb-kerneltrace.so build >/dev/null
mkdir -p "$out"
one() {
    local p=$1 d=$out/${1//\//_}
    rm -rf "$d"; mkdir -p "$d"
    CUDA_INJECTION64_PATH=$lib KB_KERNELTRACE=$d/trace make --no-print-directory PROTOCOL=paper ARTIFACTS="$d/art" \
        "$d/art/paper/baseline/$p/fidelity.h5" 2>&1 | grep -v '^kb:' | tail -2
}
export -f one; export out lib
printf '%s\n' "$@" | xargs -P 2 -I{} bash -c 'one {}'
# per trace file: launches, median and min duration per (kernel, grid, block)
for f in "$out"/*/trace.*; do
    echo "== $f: $(head -1 "$f" | cut -c1-160)"
    tail -n +2 "$f" | sort -k4,4 -k2,2 -k3,3 -k1,1n | awk '
        { key = $4 " " $2 " " $3; if (key != last) { flush(); last = key; n = 0 } d[++n] = $1 }
        function flush() { if (n) printf "%6d  median %10.1f us  min %10.1f us  %s\n", n, d[int((n + 1) / 2)] / 1e3, d[1] / 1e3, last }
        END { flush() }' | sort -k3,3gr | head -25
done > "$out/kernel-times.txt"
echo "kernel times: $out/kernel-times.txt"
