#!/usr/bin/env bash
# sandbox-cost.sh NEW_ARTIFACTS OLD_ARTIFACTS [OUT.csv] -- what the sandbox costs in measured time:
# the reported kernel time (sanity-check.h5 /timing/kernel reported_ms) of every demo-naive and
# demo-tuned cell in both protocols' trees, NEW against OLD (the archived run made before the
# sandbox moved ahead of the submission's load), with the relative difference. Prints the median
# and the largest |delta| per protocol last.
set -euo pipefail
new=${1:?usage: bench/sandbox-cost.sh NEW_ARTIFACTS OLD_ARTIFACTS [OUT.csv]}
old=${2:?usage: bench/sandbox-cost.sh NEW_ARTIFACTS OLD_ARTIFACTS [OUT.csv]}
out=${3:-/dev/stdout}
get=${BUILD:-build}/bin/kb-h5get
echo "protocol,model,problem,sample,old_ms,new_ms,delta_pct" > "$out"
for p in paper strict; do
    for f in "$new"/$p/demo-naive/level*/*/*/sanity-check.h5 "$new"/$p/demo-tuned/level*/*/*/sanity-check.h5; do
        [ -f "$f" ] || continue
        rel=${f#"$new"/}
        o="$old/$rel"
        [ -f "$o" ] || continue
        [ "$($get "$f" / outcome)" = ok ] && [ "$($get "$o" / outcome)" = ok ] || continue
        a=$($get "$o" /timing/kernel reported_ms) b=$($get "$f" /timing/kernel reported_ms)
        IFS=/ read -r _ model lvl prob sample _ <<< "$rel"
        awk -v p="$p" -v m="$model" -v pr="$lvl/$prob" -v s="$sample" -v a="$a" -v b="$b" \
            'BEGIN { printf "%s,%s,%s,%s,%.6g,%.6g,%.3f\n", p, m, pr, s, a, b, 100 * (b - a) / a }' >> "$out"
    done
done
[ "$out" = /dev/stdout ] && exit 0
for p in paper strict; do
    d=$(awk -F, -v p="$p" 'NR > 1 && $1 == p { d = $7 < 0 ? -$7 : $7; print d, $2, $3, $4 }' "$out" | sort -g)
    n=$(printf '%s' "$d" | grep -c . || true)
    [ "$n" -gt 0 ] || { echo "$p: no cells"; continue; }
    med=$(printf '%s\n' "$d" | sed -n "$(( (n + 1) / 2 ))p" | cut -d' ' -f1)
    echo "$p: $n cells, median |delta| ${med}%, largest $(printf '%s\n' "$d" | tail -1 | awk '{print $1 "% (" $2 " " $3 " " $4 ")"}')"
done
