#!/usr/bin/env bash
# sandbox-ab.sh ARTIFACTS OUT.csv [MODELS] -- what the sandbox costs, side by side in one run: the
# standard check (kb-sanity-check, the stage that times the kernel) of every cell of MODELS
# (default demo-naive demo-tuned) in both protocols, run twice per cell, sandboxed and with
# KB_BENCH_UNSANDBOXED=1 (benchmark only: that artifact records sandbox = none), the order
# alternating from cell to cell (AB, BA, ...). ARTIFACTS must hold the cells' compile records
# (make compile). Columns: protocol,model,problem,sample,sandboxed_ms,unsandboxed_ms,delta_pct
# (the reported kernel time, /timing/kernel reported_ms). Prints the median and largest |delta|.
set -euo pipefail
A=${1:?usage: bench/sandbox-ab.sh ARTIFACTS OUT.csv [MODELS]}
out=${2:?usage: bench/sandbox-ab.sh ARTIFACTS OUT.csv [MODELS]}
models=${3:-demo-naive demo-tuned}
get=${BUILD:-build}/bin/kb-h5get
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "protocol,model,problem,sample,sandboxed_ms,unsandboxed_ms,delta_pct" > "$out"
k=0
for p in strict paper; do
    for m in $models; do
        # the stage commands exactly as make runs them, into a scratch tree
        make -s -n cells PROTOCOL=$p MODEL=$m ARTIFACTS="$tmp/plan" 2>/dev/null | grep -E '^\S*kb-sanity-check ' |
            sed "s#$tmp/plan/#$A/#g" > "$tmp/cmds"
        while read -r cmd; do
            outp=$(sed -E 's/.* --out ([^ ]+).*/\1/' <<< "$cmd")
            cell=${outp#"$A/$p/"}; cell=${cell%/sanity-check.h5}
            base=${cmd% --out *}
            run() { # tag env
                env $2 $base --out "$tmp/$1.h5" > "$tmp/$1.log" 2>&1 || { echo "failed: $cell ($1)" >&2; tail -5 "$tmp/$1.log" >&2; }
            }
            if (( k++ % 2 )); then run b KB_BENCH_UNSANDBOXED=1; run a KB_BENCH_X=0; else run a KB_BENCH_X=0; run b KB_BENCH_UNSANDBOXED=1; fi
            [ "$($get "$tmp/a.h5" / sandbox)" != none ] && [ "$($get "$tmp/b.h5" / sandbox)" = none ] ||
                { echo "sandbox attribute wrong for $cell" >&2; exit 1; }
            a=$($get "$tmp/a.h5" /timing/kernel reported_ms) b=$($get "$tmp/b.h5" /timing/kernel reported_ms)
            IFS=/ read -r model lvl prob sample <<< "$cell"
            awk -v p="$p" -v m="$model" -v pr="$lvl/$prob" -v s="$sample" -v a="$a" -v b="$b" \
                'BEGIN { printf "%s,%s,%s,%s,%.6g,%.6g,%.3f\n", p, m, pr, s, a, b, 100 * (a - b) / b }' >> "$out"
        done < "$tmp/cmds"
    done
done
for p in strict paper; do
    d=$(awk -F, -v p="$p" 'NR > 1 && $1 == p { d = $7 < 0 ? -$7 : $7; print d, $7, $2, $3, $4 }' "$out" | sort -g)
    n=$(printf '%s' "$d" | grep -c . || true)
    [ "$n" -gt 0 ] || { echo "$p: no cells"; continue; }
    med=$(printf '%s\n' "$d" | sed -n "$(( (n + 1) / 2 ))p" | cut -d' ' -f1)
    mean=$(awk -F, -v p="$p" 'NR > 1 && $1 == p { s += $7; n++ } END { printf "%.3f", s / n }' "$out")
    echo "$p: $n cells, sandboxed vs unsandboxed: mean delta ${mean}%, median |delta| ${med}%, largest $(printf '%s\n' "$d" | tail -1 | awk '{print $2 "% (" $3 " " $4 " " $5 ")"}')"
done
