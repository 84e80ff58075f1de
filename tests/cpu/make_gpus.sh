#!/usr/bin/env bash
# CPU suite: GPUS=0,1 (the Make graph, `make -n`, no GPU): each problem's timing stages
# (baseline-time, sanity-check) name one GPU, the same for the baseline and every cell of that
# problem, so no speedup divides times from two boards; the checks and memory profiles may take
# either GPU; both GPUs get problems; a problem's GPU does not depend on which others are picked.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
P=level1/001,level1/019,level1/023,level1/040,level1/047,level1/095
plan() { KB_SKIP_GPU_CHECK=1 make --no-print-directory -n cells baselines MODEL=demo-naive ARTIFACTS="$tmp/art" "$@" 2>/dev/null |
    awk '$1 ~ /\/kb-(sanity-check|baseline-time|verify-distributions|memory-profile)$/ {
        st = ""; g = ""; p = ""
        for (i = 1; i <= NF; i++) {
            if ($i ~ /\/kb-(sanity-check|baseline-time|verify-distributions|memory-profile)$/) { st = $i; sub(/.*\//, "", st) }
            if ($i == "--gpus") g = $(i + 1)
            if ($i == "--problem") { p = $(i + 1); sub(/.*problems\//, "", p); sub(/\.so$/, "", p) }
        }
        print st, g, p }'; }
plan GPUS=0,1 PROBLEM=$P > "$tmp/two"
n=$(wc -l < "$tmp/two")
[ "$n" -gt 0 ] || { echo "FAIL: make -n planned no GPU stage"; exit 1; }
awk '$1 ~ /sanity-check|baseline-time/ && $2 !~ /^[0-9]+$/ { print "FAIL: " $1 " of " $3 " may use --gpus " $2 " (one board expected)"; bad = 1 }
     $1 ~ /sanity-check|baseline-time/ { if (($3 in g) && g[$3] != $2) { print "FAIL: " $3 " timed on GPU " g[$3] " and " $2; bad = 1 } g[$3] = $2; used[$2] = 1 }
     $1 ~ /verify|memory/ && $2 != "0,1" { print "FAIL: " $1 " of " $3 " limited to --gpus " $2; bad = 1 }
     END { if (!("0" in used) || !("1" in used)) { print "FAIL: the timing stages use only GPU(s):"; for (u in used) print "  " u; bad = 1 }
           exit bad }' "$tmp/two" || fail=1
[ $fail = 0 ] && echo "ok: $n GPU stages planned; each problem's baseline and cells timed on one GPU, both GPUs used, checks on either"
g019=$(awk '$1 == "kb-baseline-time" && $3 == "level1/019_relu" { print $2 }' "$tmp/two")
alone=$(plan GPUS=0,1 PROBLEM=level1/019 | awk '$1 == "kb-baseline-time" { print $2 }')
[ -n "$g019" ] && [ "$g019" = "$alone" ] && echo "ok: L1/19 times on GPU $g019 with or without the other problems" ||
    { echo "FAIL: L1/19 times on GPU '$g019' among six problems, '$alone' alone"; fail=1; }
one=$(plan GPUS=0 PROBLEM=$P | awk '{ print $2 }' | sort -u | paste -sd' ')
[ "$one" = 0 ] && echo "ok: GPUS=0: every stage on GPU 0" || { echo "FAIL: GPUS=0 gave --gpus '$one'"; fail=1; }
exit $fail
