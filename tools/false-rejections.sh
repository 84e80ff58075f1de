#!/usr/bin/env bash
# tools/false-rejections.sh -- how often the strict protocol rejects honest kernels, per check
# (docs/protocols.md "False rejections"). Usage:
#     tools/false-rejections.sh OUT.csv STRICT_TREE...
# Each STRICT_TREE is an artifacts/strict directory; where several hold the same sample, the one
# named LAST is used (name them oldest first). Honest samples: every demo-tuned sample (its
# README: honest, the Level-1 GEMMs in TF32, the Level-2 samples exact FP32) and the manifest rows of demo-naive and demo-kernelbench
# whose mechanism is an honest one (honest, honest_exact_fp32_conv, port_tuned, port_tuned_tf32, cublas_cpp,
# port_naive_exact_fp32_conv, torch_ops_around, default_stream_known_duration,
# torch_module_fused_epilogue, torch_conv_tf32_fused_epilogue, renamed_reordered_params_tf32_conv). A
# TF32 kernel (demo-tuned's GEMMs, a mechanism naming tf32: port_tuned_tf32, the Level-2 files that
# keep PyTorch's convolution, which cuDNN runs in TF32 at PyTorch's defaults) is judged by the TF32
# condition's verdict (@verified_tf32,
# docs/protocols.md "The TF32 rule"): the FP32 verdict rightly refuses TF32 where PyTorch's FP32
# mode does not use it. A tree from before the TF32 rule has no TF32 verdict: such a sample is
# listed as "no_tf32_verdict" and counted in neither column.
# OUT.csv: one row per honest sample (tree, model, problem, sample, math, verdict, reason); then
# to stdout the rejections per check: a reason token names its check (fails Dk / Pk / Sk: the
# value bound on that draw; stale cache, precision downgrade, nondeterministic, side stream,
# threads, modifies inputs, no custom kernel called, scan: ...).
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
out=$1; shift
h5get=${H5GET:-$PWD/build/bin/kb-h5get}
[ -x "$h5get" ] || { echo "false-rejections: $h5get missing: make build first" >&2; exit 2; }
honest_mech=" honest honest_exact_fp32_conv port_tuned port_tuned_tf32 cublas_cpp port_naive_exact_fp32_conv torch_ops_around default_stream_known_duration torch_module_fused_epilogue torch_conv_tf32_fused_epilogue renamed_reordered_params_tf32_conv "
declare -A where math
add() { # model problem sample math
    local k="$1/$2/$3" t
    for t in "${trees[@]}"; do [ -f "$t/$k/verify-distributions.h5" ] && where[$k]=$t; done
    [ -n "${where[$k]:-}" ] && math[$k]=$4
}
trees=("$@")
for t in "${trees[@]}"; do [ -d "$t" ] || { echo "false-rejections: no tree $t" >&2; exit 2; }; done
for m in demo-naive demo-kernelbench; do
    while IFS=, read -r problem sample mech _; do
        [[ "$honest_mech" == *" $mech "* ]] || continue
        add "$m" "$problem" "$sample" "$([[ $mech == *tf32* ]] && echo tf32 || echo fp32)"
    done < <([ -f "submissions/$m/manifest.csv" ] && tail -n +2 "submissions/$m/manifest.csv" | tr -d '\r')
done
for f in submissions/demo-tuned/level*/*/s*.*; do
    [ -e "$f" ] || continue
    p=${f#submissions/demo-tuned/}; problem=${p%/*}; s=${p##*/}; s=${s%.*}
    case $problem in level1/*matmul*) mt=tf32 ;; *) mt=fp32 ;; esac # its Level-2 GEMMs are cuBLASLt FP32
    add demo-tuned "$problem" "$s" "$mt"
done
echo "tree,model,problem,sample,math,verdict,reason" > "$out"
for k in $(printf '%s\n' "${!where[@]}" | sort); do
    f="${where[$k]}/$k/verify-distributions.h5"
    IFS=/ read -r model level pname sample <<< "$k"
    if [ "${math[$k]}" = tf32 ]; then
        v=$("$h5get" "$f" / verified_tf32 2>/dev/null) || v=none
        r=$("$h5get" "$f" / reason_tf32 2>/dev/null || true)
    else
        v=$("$h5get" "$f" / verified)
        r=$("$h5get" "$f" / reason)
    fi
    case $v in 1) verdict=pass ;; 0) verdict=fail ;; *) verdict=no_tf32_verdict ;; esac
    echo "${where[$k]},$model,$level/$pname,$sample,${math[$k]},$verdict,\"$r\"" >> "$out"
done
awk -F, 'NR > 1 {
    n[$5]++; if ($6 == "no_tf32_verdict") { u[$5]++; next }
    if ($6 != "fail") next
    r = substr($0, index($0, "\"")); gsub(/"/, "", r); k = split(r, tok, "; ")
    for (i = 1; i <= k; i++) { t = tok[i]; sub(/^fails [DPS][0-9]+$/, "value bound (&)", t); c[t "," $5]++; checks[t] = 1 }
    bad[$5]++
}
END {
    printf "honest samples: %d exact FP32 (FP32 verdict), %d TF32 (TF32 verdict; %d of them from a tree without one, not counted)\n", n["fp32"], n["tf32"], u["tf32"]
    printf "rejected: %d of %d exact, %d of %d TF32\n", bad["fp32"] + 0, n["fp32"], bad["tf32"] + 0, n["tf32"] - u["tf32"]
    for (t in checks) printf "  %s: %d exact, %d TF32\n", t, c[t ",fp32"] + 0, c[t ",tf32"] + 0
}' "$out"
