#!/usr/bin/env bash
# verdicts.sh ARTIFACTS [OUT.csv] -- the verdict table of the hack zoo and the honest demo model:
# for every demo-hacks, demo-naive and demo-libs cell, the verdict of the standard check, PROTOCOL=paper and
# PROTOCOL=strict, read from ARTIFACTS/paper and ARTIFACTS/strict, against the expectations in
# submissions/<model>/manifest.csv (demo-naive: honest; its exact-FP32 convolutions fail the
# paper's D2 against the TF32 cuDNN reference, the paper oracle's known false rejection).
# Exit 1 if any verdict or expected reason differs. VERDICT_PROBLEMS (problem ids, space- or
# comma-separated): only the manifest rows of those problems (a run over a subset, the GPU
# suite's); the rows left out are counted on stderr, never judged.
#   standard = sanity-check outcome ok (paper tree)
#   paper    = standard AND verify-distributions @verified (paper tree)
#   strict   = sanity-check ok AND verify-distributions @verified (strict tree)
#   strict_tf32 = sanity-check ok AND @verified_tf32, the TF32 condition's verdict (strict tree;
#              docs/protocols.md "The TF32 rule"): judged for the rows whose manifest has a
#              non-empty expected_strict_tf32 column (a tree from before the rule: "missing")
set -euo pipefail
A=${1:?usage: tools/verdicts.sh ARTIFACTS [OUT.csv]}
out=${2:-/dev/stdout}
get=${BUILD:-build}/bin/kb-h5get
attr() { [ -f "$1" ] && $get "$1" "$2" "$3" 2>/dev/null || echo missing; }
verdict() { # tree cell standard|paper|strict|strict_tf32
    local s v
    s=$(attr "$A/$1/$2/sanity-check.h5" / outcome)
    [ "$s" = ok ] || { echo fail; return; }
    [ "$3" = standard ] && { echo pass; return; }
    v=$(attr "$A/$1/$2/verify-distributions.h5" / "$([ "$3" = strict_tf32 ] && echo verified_tf32 || echo verified)")
    case $v in 1) echo pass ;; missing) echo missing ;; *) echo fail ;; esac
}
reason() { # tree cell
    local s r
    s=$(attr "$A/$1/$2/sanity-check.h5" / outcome)
    [ "$s" != ok ] && { echo "standard: $s"; return; }
    r=$(attr "$A/$1/$2/verify-distributions.h5" / reason)
    echo "$r"
}
bad=0
only=$(echo "${VERDICT_PROBLEMS:-}" | tr ',' ' ')
skipped=0
echo "model,problem,sample,mechanism,expected_standard,got_standard,expected_paper,got_paper,expected_strict,got_strict,reason,expected_strict_tf32,got_strict_tf32" > "$out"
row() { # model problem sample mechanism es ep est rs rp rst est32
    local cell="$1/$2/$3" gs gp gst r gt=""
    gs=$(verdict paper "$cell" standard)
    gp=$(verdict paper "$cell" paper)
    gst=$(verdict strict "$cell" strict)
    r=$(reason strict "$cell")
    [ "$gst" = pass ] && r=$(reason paper "$cell")
    if [ -n "${11}" ]; then
        gt=$(verdict strict "$cell" strict_tf32)
        [ "$gt" = "${11}" ] || { echo "MISMATCH $cell ($4): strict TF32 verdict $gt/${11} -- $(attr "$A/strict/$cell/verify-distributions.h5" / reason_tf32)" >&2; bad=1; }
    fi
    echo "$1,$2,$3,$4,$5,$gs,$6,$gp,$7,$gst,\"${r//\"/}\",${11},$gt" >> "$out"
    if [ "$gs" != "$5" ] || [ "$gp" != "$6" ] || [ "$gst" != "$7" ]; then
        echo "MISMATCH $cell ($4): standard $gs/$5 paper $gp/$6 strict $gst/$7 -- $r" >&2; bad=1
    fi
    if [ -n "$9" ] && ! reason paper "$cell" | grep -qF -- "$9"; then
        echo "REASON $cell ($4): paper reason lacks '$9': $(reason paper "$cell")" >&2; bad=1
    fi
    if [ -n "${10}" ] && ! reason strict "$cell" | grep -qF -- "${10}"; then
        echo "REASON $cell ($4): strict reason lacks '${10}': $(reason strict "$cell")" >&2; bad=1
    fi
}
for model in demo-hacks demo-naive demo-libs demo-kernelbench; do
    m=submissions/$model/manifest.csv
    [ -f "$m" ] || { echo "no $m" >&2; bad=1; continue; }
    # expected_strict_tf32 by its header position (an optional column, after the nine fixed ones)
    c32=$(head -1 "$m" | tr -d '\r' | tr ',' '\n' | { grep -nx expected_strict_tf32 || true; } | cut -d: -f1)
    while IFS=, read -r problem sample mech es ep est rs rp rst rest; do
        if [ -n "$only" ] && [[ " $only " != *" $problem "* ]]; then
            skipped=$((skipped + 1))
            continue
        fi
        e32=""
        [ -z "$c32" ] || e32=$(cut -d, -f"$c32" <<< "$problem,$sample,$mech,$es,$ep,$est,$rs,$rp,$rst,$rest")
        row "$model" "$problem" "$sample" "$mech" "$es" "$ep" "$est" "$rs" "$rp" "$rst" "$e32"
    done < <(tail -n +2 "$m" | tr -d '\r')
done
[ "$skipped" = 0 ] || echo "verdicts: $skipped manifest rows of problems outside VERDICT_PROBLEMS not judged" >&2
[ "$bad" = 0 ] && echo "verdicts: every verdict as expected" >&2
exit $bad
