#!/usr/bin/env bash
# tests/cpu/false_rejections.sh -- tools/false-rejections.sh on the committed strict trees
# (results/2026-11-29-demo-models/artifacts and results/2026-12-02-tf32-rule/artifacts.tgz): every honest sample it finds
# there passes (23 exact FP32 and 4 TF32 in these two trees; 36 and 4 with the four of docs/protocols.md),
# the TF32 GEMMs by the TF32 verdict; and a sample that fails is counted against the check its
# reason names (a TF32 hack's artifact planted as an honest exact sample: "value bound (fails S2)").
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-falserej.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }
make --no-print-directory build/bin/kb-h5get > /dev/null || { echo "FAIL: build"; exit 1; }
tar xzf results/2026-12-02-tf32-rule/artifacts.tgz -C "$tmp"
out=$(tools/false-rejections.sh "$tmp/fr.csv" results/2026-11-29-demo-models/artifacts/strict "$tmp/artifacts/strict") || FAIL "exit $?"
echo "$out" | sed 's/^/  /'
grep -q '^rejected: 0 of 23 exact, 0 of 4 TF32$' <<< "$out" || FAIL "the committed trees: want 0 of 23 exact, 0 of 4 TF32"
grep -q ',no_tf32_verdict,' "$tmp/fr.csv" && FAIL "a TF32 sample without a TF32 verdict where the TF32-rule run has one"
# the failing path: the TF32-rule run's demo-hacks 001 s0 (cuBLAS TF32, fails S2 by the FP32 bound) as an honest exact sample
mkdir -p "$tmp/w/submissions/demo-naive" "$tmp/w/tree/demo-naive/level1/001_square_matmul/s0"
printf 'problem,sample,mechanism\nlevel1/001_square_matmul,s0,honest\n' > "$tmp/w/submissions/demo-naive/manifest.csv"
cp "$tmp/artifacts/strict/demo-hacks/level1/001_square_matmul/s0/verify-distributions.h5" "$tmp/w/tree/demo-naive/level1/001_square_matmul/s0/"
out=$(cd "$tmp/w" && H5GET="$OLDPWD/build/bin/kb-h5get" "$OLDPWD/tools/false-rejections.sh" fr.csv tree) || FAIL "planted: exit $?"
grep -q '^rejected: 1 of 1 exact' <<< "$out" && grep -q '^  value bound (fails S2): 1 exact, 0 TF32$' <<< "$out" \
    || FAIL "a planted failing sample not counted against its check: $out"
[ $fail = 0 ] && echo "ok: false rejections counted per check; none among the committed honest samples"
exit $fail
