#!/usr/bin/env bash
# three-way.sh [OUT.csv] -- one KernelBench-format sample per problem (demo-kernelbench sK.py,
# a port of a C ABI kernel named in its header) timed three ways in one run, back to back:
#   py_ms     our timer (TIMER=paper) through the .py path (kb-sanity-check on the .py cell)
#   cu_ms     our timer (TIMER=paper) on the C ABI original (kb-sanity-check on the .cu cell)
#   loop_ms   the paper's own loop under plain PyTorch (bench/paper-loop.py: events, 3 warm-ups,
#             100 trials, mean), with the extension the compile stage built
# and prints their ratios. Needs the cells compiled (make compile MODEL=demo-kernelbench, and the
# ports' models) and a GPU. Artifacts go to a temporary tree, not artifacts/.
set -euo pipefail
out=${1:-/dev/stdout}
B=${BUILD:-build}
PY=${PYTHON:-python3}
export KB_PYTHON=$PY KB_PYRUNNER=$PWD/py/kbpy/runner.py KB_PROBLEMS_DIR=$PWD/problems
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-three-way.XXXXXX")
flags="--protocol paper --timer paper --warmup 3 --trials 100 --runner $B/bin/kb-runner"
echo "problem,py_sample,cu_port,py_ms,cu_ms,loop_ms,py_over_cu,py_over_loop,cu_over_loop" > "$tmp/t.csv"
for f in submissions/demo-kernelbench/level1/*/s0.py; do
    pdir=$(dirname "$f"); problem=level1/$(basename "$pdir")
    port=$(grep -o "submissions/demo-[a-z]*/level1/[0-9a-z_]*/s[0-9]*\.cu" "$f" | head -1)
    [ -n "$port" ] || { echo "no port named in $f" >&2; continue; }
    pycell=${f#submissions/}; pycell=${pycell%.py}
    cucell=${port#submissions/}; cucell=${cucell%.cu}
    for c in "$pycell" "$cucell"; do
        [ -f "$B/sub/$c/compile.h5" ] || { echo "not compiled: $c (make compile)" >&2; exit 1; }
    done
    $B/bin/kb-sanity-check $flags --problem $B/problems/$problem.so --submission $B/sub/$pycell/kernel.py \
        --compile $B/sub/$pycell/compile.h5 --model m --sample s0 --out "$tmp/$pycell/sc.h5" > /dev/null
    $B/bin/kb-sanity-check $flags --problem $B/problems/$problem.so --submission $B/sub/$cucell/kernel.so \
        --compile $B/sub/$cucell/compile.h5 --model m --sample s0 --out "$tmp/$cucell/sc.h5" > /dev/null
    pyms=$($B/bin/kb-h5get "$tmp/$pycell/sc.h5" /timing/kernel reported_ms 2>/dev/null || echo nan)
    cums=$($B/bin/kb-h5get "$tmp/$cucell/sc.h5" /timing/kernel reported_ms 2>/dev/null || echo nan)
    loop=$($PY bench/paper-loop.py "$B/sub/$pycell" "problems/$problem.py" 100 2>/dev/null | awk '/^paper_loop_ms/ {print $2}')
    echo "$problem,$(basename "$f"),$port,$pyms,$cums,${loop:-nan}" | \
        awk -F, -v OFS=, '{ r = function_ratio } { printf "%s,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f\n", $1,$2,$3,$4,$5,$6, ($5>0?$4/$5:0), ($6>0?$4/$6:0), ($6>0?$5/$6:0) }' >> "$tmp/t.csv"
    tail -1 "$tmp/t.csv" >&2
done
cp "$tmp/t.csv" "$out"
awk -F, 'NR > 1 { for (i = 7; i <= 9; i++) { d = $i - 1; if (d < 0) d = -d; if (d > m[i]) m[i] = d } }
         END { printf "three-way: max |ratio - 1|: py/cu %.2f%%, py/loop %.2f%%, cu/loop %.2f%%\n", 100*m[7], 100*m[8], 100*m[9] }' "$tmp/t.csv" >&2
rm -rf "$tmp"
