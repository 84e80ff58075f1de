#!/usr/bin/env bash
# tests/cpu/demo_conv_generated.sh -- demo-naive's convolution samples are tools/demo-conv/'s
# output: each one is byte for byte what the template makes of its samples.csv row, and every file
# under submissions/ that calls itself a copy of the template ("only the constants below differ")
# has a row. A hand edit to one copy, or a new copy made by hand, would drift from the others
# unseen. No GPU, no nvcc, no build; run from the repository root.
set -euo pipefail
name=demo_conv_generated.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-demo-conv.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
if ! python3 tools/demo-conv/generate.py --out "$tmp" >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    echo "$name: FAIL (tools/demo-conv/generate.py failed)"
    exit 1
fi
mapfile -t generated < <(cd "$tmp" && find submissions -type f | LC_ALL=C sort)
for f in "${generated[@]}"; do
    if [ ! -f "$f" ]; then
        echo "FAIL: $f: tools/demo-conv/samples.csv has it, the repository does not"
        fail=$((fail + 1))
    elif ! diff -u --label "$f (committed)" --label "$f (generated)" "$f" "$tmp/$f"; then
        echo "FAIL: $f differs from the template's output (edit tools/demo-conv/, then run python3 tools/demo-conv/generate.py)"
        fail=$((fail + 1))
    fi
done
mapfile -t marked < <(grep -rl 'only the constants below' submissions | LC_ALL=C sort)
for f in "${marked[@]}"; do
    if [ ! -f "$tmp/$f" ]; then
        echo "FAIL: $f says it is a copy of the convolution template, but tools/demo-conv/samples.csv does not generate it"
        fail=$((fail + 1))
    fi
done
if [ "$fail" -eq 0 ]; then
    echo "$name: PASS (${#generated[@]} generated samples match, ${#marked[@]} marked files all generated)"
else
    echo "$name: FAIL ($fail file(s), above)"
    exit 1
fi
