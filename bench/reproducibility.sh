#!/usr/bin/env bash
# Run-to-run reproducibility of the baselines: every Level-1 baseline is timed by kb-baseline-time
# in two separate runs (separate processes, same binaries), with each timer; the CSV holds the
# median of each run and |delta| / run1. Run 1 may be the pipeline's own baselines:
# RUN1_paper=artifacts/paper/baseline RUN1_robust=artifacts/strict/baseline (default protocol
# settings of each tree), so that only the second run is made here.
# Usage: bench/reproducibility.sh OUT.csv [TIMER...]      (GPU; after make build)
set -euo pipefail
out=${1:?usage: bench/reproducibility.sh OUT.csv [paper|robust ...]}
shift
timers=${*:-paper robust}
BUILD=${BUILD:-build}
bin=$BUILD/bin
# KEEP_DIR=DIR keeps the raw artifacts there
if [ -n "${KEEP_DIR:-}" ]; then
    root=$KEEP_DIR
    mkdir -p "$root"
else
    root=$(mktemp -d)
    trap 'rm -rf "$root"' EXIT
fi
echo "problem,timer,median_ms_run1,median_ms_run2,rel_delta" | tee "$out"
for timer in $timers; do
    reuse_var=RUN1_$timer
    reuse=${!reuse_var:-}
    for run in 1 2; do
        if [ "$run" = 1 ] && [ -n "$reuse" ]; then
            mkdir -p "$root/$timer/1"
            cp -r "$reuse"/level1 "$root/$timer/1/"
            for d in "$root/$timer/1"/level1/*/; do mv "$d/baseline-time.h5" "${d%/}.h5"; rm -rf "$d"; done
            continue
        fi
        # run 2 goes through the problems in reverse order, so that each baseline follows
        # different work (and a different GPU power state) than in run 1
        sos=$(ls $BUILD/problems/level1/*.so)
        [ "$run" = 2 ] && sos=$(echo "$sos" | tac)
        for so in $sos; do
            id=level1/$(basename "$so" .so)
            # each timer with its protocol's settings: paper timer = paper, robust = strict
            proto=paper
            [ "$timer" = robust ] && proto=strict
            $bin/kb-baseline-time --protocol $proto --timer "$timer" --problem "$so" \
                --out "$root/$timer/$run/$id.h5" --runner $bin/kb-runner >/dev/null
        done
    done
    for f in "$root/$timer/1"/level1/*.h5; do
        id=level1/$(basename "$f" .h5)
        for mode in fp32 tf32; do
            a=$($bin/kb-h5get "$f" /$mode/timing median_ms)
            b=$($bin/kb-h5get "$root/$timer/2/$id.h5" /$mode/timing median_ms)
            awk -v p="$id@$mode" -v t="$timer" -v a="$a" -v b="$b" \
                'BEGIN { d = (b - a) / a; if (d < 0) d = -d; printf "%s,%s,%.6f,%.6f,%.6f\n", p, t, a, b, d }' | tee -a "$out"
        done
    done
done
# distribution summary: median and 95th percentile of |delta| per timer
for timer in $timers; do
    grep ",$timer," "$out" | cut -d, -f5 | sort -g | awk -v t="$timer" '
        { v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; p = v[int(0.95 * NR + 0.999)];
          printf "timer %s: |delta median| median %.4f%%  p95 %.4f%%  (n=%d)\n", t, 100 * m, 100 * p, NR }'
done
