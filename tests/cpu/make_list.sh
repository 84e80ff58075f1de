#!/usr/bin/env bash
# make list (tools/list.sh): a problem's status per model from the submissions and the artifacts:
# a model with two samples, one compiled, no GPU stage run yet -> "0/0/1/2?"; a model without a
# sample for the problem -> "-"; the baseline not measured -> "?".
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/submissions/m1/level1/019_relu" "$t/submissions/m2/level1/001_square_matmul" "$t/art/paper/m1/level1/019_relu/s0"
cp submissions/demo-naive/level1/019_relu/s0.cu "$t/submissions/m1/level1/019_relu/s0.cu"
cp submissions/demo-naive/level1/019_relu/s1.cu "$t/submissions/m1/level1/019_relu/s1.cu"
cp submissions/demo-naive/level1/001_square_matmul/s0.cu "$t/submissions/m2/level1/001_square_matmul/s0.cu"
"$B"/bin/kb-compile --src submissions/demo-naive/level1/019_relu/s0.cu --out-so "$t/k.so" \
    --out "$t/art/paper/m1/level1/019_relu/s0/compile.h5" --model m1 --problem level1/019_relu --sample s0 \
    --include include > "$t/log" 2>&1 || { echo "FAIL: kb-compile: $(tail -2 "$t/log")"; exit 1; }
root=$PWD
out=$(cd "$t" && bash "$root/tools/list.sh" art/paper 'level1/019_relu level1/001_square_matmul' 'm1 m2' "$root/$B/bin/kb-h5get")
line=$(grep '^level1/019_relu ' <<< "$out" | tr -s ' ')
if [ "$line" = "level1/019_relu ? 0/0/1/2? -" ]; then
    echo "make_list: $line"
else
    echo "FAIL: make list row: '$line'"; echo "$out"; exit 1
fi
