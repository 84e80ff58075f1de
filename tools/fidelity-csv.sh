#!/usr/bin/env bash
# fidelity-csv.sh ARTIFACTS/<protocol> OUT.csv [PLOTS_DIR] -- the fidelity report: for every
# baseline/levelN/NNN_name/fidelity.h5 (kb-fidelity), one row per math mode and timer:
#   level,problem,mode,timer,ours_ms,torch_ms,ratio,max_abs_err,max_rel_err,tau_req
# ratio = C baseline time / PyTorch eager time (same timer, same run); the errors are the C
# baseline's output against PyTorch's on the same inputs and parameters (max_rel_err = max abs
# error / max |PyTorch output|; tau_req = the smallest allclose(atol = rtol = tau) that passes).
# Prints the geometric mean ratio per mode and timer and every problem above 1.05; with
# PLOTS_DIR, also writes fidelity.dat there and renders plots/fidelity.gp (if gnuplot exists).
set -euo pipefail
A=${1:?usage: tools/fidelity-csv.sh ARTIFACTS/<protocol> OUT.csv [PLOTS_DIR]}
out=${2:?usage: tools/fidelity-csv.sh ARTIFACTS/<protocol> OUT.csv [PLOTS_DIR]}
plots=${3:-}
get=${BUILD:-build}/bin/kb-h5get
mkdir -p "$(dirname "$out")"
tmp=$out.tmp.$$
echo "level,problem,mode,timer,ours_ms,torch_ms,ratio,max_abs_err,max_rel_err,tau_req" > "$tmp"
n=0
for f in "$A"/baseline/level*/*/fidelity.h5; do
    [ -f "$f" ] || continue
    rel=${f#"$A"/baseline/}
    level=${rel%%/*}; level=${level#level}
    problem=$(basename "$(dirname "$f")")
    for mode in fp32 tf32; do
        ae=$($get "$f" /$mode max_abs_err); re=$($get "$f" /$mode max_rel_err); tr=$($get "$f" /$mode tau_req)
        for timer in paper robust; do
            echo "$level,$problem,$mode,$timer,$($get "$f" /$mode/$timer ours_ms),$($get "$f" /$mode/$timer torch_ms),$($get "$f" /$mode/$timer ratio),$ae,$re,$tr" >> "$tmp"
        done
    done
    n=$((n + 1))
done
mv "$tmp" "$out"
[ "$n" -gt 0 ] || { echo "fidelity-csv.sh: no fidelity.h5 under $A/baseline (make fidelity)" >&2; exit 1; }
awk -F, 'NR > 1 && $7 + 0 > 0 { k = $3 "/" $4; s[k] += log($7); c[k]++; if (m[k] < $7) { m[k] = $7; w[k] = $2 } }
         NR > 1 && $7 + 0 > 1.05 { slow = slow sprintf("  above 1.05: %s %s/%s ratio %.3f\n", $2, $3, $4, $7) }
         END { for (k in s) printf "fidelity %-13s geomean ours/torch %.4f over %d problems; max %.4f (%s)\n", k, exp(s[k] / c[k]), c[k], m[k], w[k];
               printf "%s", slow }' "$out"
echo "fidelity: $out ($n problems)"
if [ -n "$plots" ]; then
    mkdir -p "$plots"
    awk -F, 'NR > 1 && $4 == "robust" { r[$2 "," $3] = $7; p[$2] = 1 }
             END { for (q in p) printf "%s %s %s\n", q, (r[q ",fp32"] == "" ? "nan" : r[q ",fp32"]), (r[q ",tf32"] == "" ? "nan" : r[q ",tf32"]) }' "$out" | sort > "$plots/fidelity.dat"
    if command -v gnuplot >/dev/null; then
        gnuplot -e "dir='$plots'" plots/fidelity.gp && echo "figure: $plots/fidelity.png"
    else
        echo "gnuplot not found: figure skipped (install gnuplot-nox)"
    fi
fi
