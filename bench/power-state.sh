#!/usr/bin/env bash
# Does a baseline's robust time depend on what the GPU did before? Each problem is timed by
# kb-baseline-time (robust timer, strict protocol) in two GPU states:
#   idle: after IDLE_S seconds with nothing running;
#   hot:  right after a heater (the same problem's reference back to back, paper timer, HEAT_TRIALS
#         calls per math mode), which drives a power-hungry call into the board's power cap;
# with each power-state setting of the robust timer (config.mk CLOCK_TOL, PACE):
#   off   --clock-tol 0    --pace 0   (the robust timer before the clock guard)
#   pace  --clock-tol 0    --pace 1
#   guard --clock-tol 0.01 --pace 0
#   both  --clock-tol 0.01 --pace 1   (the default)
# One CSV row per (problem, setting, state, math mode): the reported time, included and excluded
# samples, the per-sample mean SM clock (median and minimum over included samples), power and
# temperature. The figure of merit: |hot - idle| / idle per setting, printed at the end.
# Usage: bench/power-state.sh OUT.csv [PROBLEM...]    (GPU; after make build)
#        PROBLEM = levelN/NNN_name (default level1/055_conv2d level1/001_square_matmul)
set -euo pipefail
out=${1:?usage: bench/power-state.sh OUT.csv [levelN/NNN_name ...]}
shift
problems=${*:-level1/055_conv2d level1/001_square_matmul}
BUILD=${BUILD:-build}
bin=$BUILD/bin
IDLE_S=${IDLE_S:-4}
HEAT_TRIALS=${HEAT_TRIALS:-400}
settings="off:0:0 pace:0:1 guard:0.01:0 both:0.01:1"
# KEEP_DIR=DIR keeps the raw artifacts there
if [ -n "${KEEP_DIR:-}" ]; then
    tmp=$KEEP_DIR
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi

get() { $bin/kb-h5get "$1" "$2" "$3"; }
# median and minimum of a dataset's values where the matching `excluded` value is 0
stat_included() {
    paste <($bin/kb-h5get "$1" --dataset "$2") <($bin/kb-h5get "$1" --dataset "$3") |
        awk '$2 == 0 && $1 == $1 + 0 { print $1 }' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan,nan"; exit } printf "%.1f,%.1f\n", v[int((NR + 1) / 2)], v[1] }'
}

echo "problem,setting,state,mode,reported_ms,n,n_excluded,clock_avg_median_mhz,clock_avg_min_mhz,power_median_w,temp_first_c,recovery_s,total_s" | tee "$out"
for id in $problems; do
    so=$BUILD/problems/$id.so
    [ -f "$so" ] || { echo "bench/power-state.sh: no $so (make build)" >&2; exit 2; }
    for s in $settings; do
        IFS=: read -r name tol pace <<<"$s"
        for state in idle hot; do
            if [ "$state" = idle ]; then
                sleep "$IDLE_S"
            else
                $bin/kb-baseline-time --protocol paper --trials "$HEAT_TRIALS" --problem "$so" \
                    --out "$tmp/heat.h5" --runner $bin/kb-runner >/dev/null
            fi
            f=$tmp/${id//\//-}-$name-$state.h5
            $bin/kb-baseline-time --protocol strict --clock-tol "$tol" --pace "$pace" --problem "$so" \
                --out "$f" --runner $bin/kb-runner >/dev/null
            for mode in fp32 tf32; do
                g=/$mode/timing
                clk=$(stat_included "$f" $g/clock_avg_mhz $g/excluded)
                pw=$(stat_included "$f" $g/power_w $g/excluded | cut -d, -f1)
                t0=$($bin/kb-h5get "$f" --dataset $g/temp_c | head -1)
                printf "%s,%s,%s,%s,%.6f,%s,%s,%s,%s,%s,%s,%s\n" "$id" "$name" "$state" "$mode" \
                    "$(get "$f" $g reported_ms)" "$(get "$f" $g n)" "$(get "$f" $g n_excluded)" "$clk" "$pw" \
                    "$t0" "$(get "$f" $g recovery_s)" "$(get "$f" $g total_s)" | tee -a "$out"
            done
        done
    done
done
# |hot - idle| / idle for each problem, setting and mode
awk -F, 'NR > 1 { k = $1 "," $2 "," $4; if ($3 == "idle") i[k] = $5; else h[k] = $5 }
    END { for (k in i) if (k in h) { d = (h[k] - i[k]) / i[k]; printf "%s: idle %.4f ms, hot %.4f ms, |delta| %.2f%%\n", k, i[k], h[k], 100 * (d < 0 ? -d : d) } }' "$out" | sort
