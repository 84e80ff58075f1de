#!/usr/bin/env bash
# tests/cpu/demo_l2_generated.sh -- demo-naive's Level-2 samples are tools/demo-l2/'s output: each
# committed submissions/demo-naive/level2/NNN_name/s0.cu is byte for byte what generate.py makes
# of problems/level2/NNN_name.c and the kit, nothing else lies under that folder, every Level-2
# problem has its sample, and every sample its row in submissions/demo-naive/manifest.csv. A hand
# edit to one sample, a kit change not regenerated, or a new problem without a sample would
# otherwise drift unseen. No GPU, no nvcc, no build; run from the repository root.
set -euo pipefail
name=demo_l2_generated.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-demo-l2.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
if ! python3 tools/demo-l2/generate.py --out "$tmp" >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    echo "$name: FAIL (tools/demo-l2/generate.py failed)"
    exit 1
fi
dir=submissions/demo-naive/level2
mapfile -t generated < <(cd "$tmp" && find "$dir" -type f | LC_ALL=C sort)
for f in "${generated[@]}"; do
    if [ ! -f "$f" ]; then
        echo "FAIL: $f: tools/demo-l2/generate.py writes it, the repository does not have it (run python3 tools/demo-l2/generate.py)"
        fail=$((fail + 1))
    elif ! diff -u --label "$f (committed)" --label "$f (generated)" "$f" "$tmp/$f"; then
        echo "FAIL: $f differs from the generator's output (edit tools/demo-l2/, then run python3 tools/demo-l2/generate.py)"
        fail=$((fail + 1))
    fi
done
if [ -d "$dir" ]; then
    mapfile -t committed < <(find "$dir" -type f | LC_ALL=C sort)
    for f in "${committed[@]}"; do
        if [ ! -f "$tmp/$f" ]; then
            echo "FAIL: $f is not written by tools/demo-l2/generate.py (a hand-made file among the generated ones)"
            fail=$((fail + 1))
        fi
    done
fi
for p in problems/level2/[0-9][0-9][0-9]_*.c; do
    stem=$(basename "$p" .c)
    if [ ! -f "$dir/$stem/s0.cu" ]; then
        echo "FAIL: $p has no demo-naive sample ($dir/$stem/s0.cu)"
        fail=$((fail + 1))
    fi
    if ! grep -q "^level2/$stem,s0," submissions/demo-naive/manifest.csv; then
        echo "FAIL: level2/$stem,s0 has no row in submissions/demo-naive/manifest.csv"
        fail=$((fail + 1))
    fi
done
if [ "$fail" -eq 0 ]; then
    echo "$name: PASS (${#generated[@]} generated Level-2 samples match, one per problem, each in the manifest)"
else
    echo "$name: FAIL ($fail problem(s), above)"
    exit 1
fi
