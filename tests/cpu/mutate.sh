#!/usr/bin/env bash
# kb-mutate on two real samples (a .cu and a KernelBench .py): every family yields a mutant; two
# runs give byte-identical trees and manifests (and the second touches nothing); the layout check
# accepts the tree with its mutants.csv; a handful of .cu mutants compile, and a stillborn one is
# recorded with nvcc's first error line.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
M=$B/bin/kb-mutate
T=$(mktemp -d "${TMPDIR:-/tmp}/kbt-mutate-XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
die() { echo "FAIL: $*"; fail=1; }
# rows of a manifest whose column `col` (0-based) equals `val` (RFC 4180 fields: python's csv reads them)
count() { python3 -c 'import csv,sys; print(sum(1 for r in list(csv.reader(open(sys.argv[1])))[1:] if eval(sys.argv[2])))' "$1" "$2"; }
ORIG="submissions/demo-naive/level1/001_square_matmul/s0.cu submissions/demo-kernelbench/level1/033_batchnorm/s0.py"
"$M" --origin "$ORIG" --out "$T/a/mutants" >/dev/null || die "kb-mutate exits $?"
"$M" --origin "$ORIG" --out "$T/b/mutants" >/dev/null || die "kb-mutate (second tree) exits $?"
diff -r "$T/a/mutants" "$T/b/mutants" >/dev/null || die "two runs gave different trees"
man=$T/a/mutants/mutants.csv
[ "$(head -1 "$man")" = "sample,problem,origin,family,rule,line,before,after,compiled,compile_error" ] || die "manifest header: $(head -1 "$man")"
for f in boundary sync precision indexing arithmetic semantics; do
    n=$(count "$man" "r[3] == '$f'")
    [ "$n" -gt 0 ] || die "family $f: no mutant"
done
rows=$(($(wc -l < "$man") - 1))
files=$(find "$T/a/mutants" -name 's*.cu' -o -name 's*.py' | wc -l)
[ "$rows" = "$files" ] || die "$rows manifest rows, $files mutant files"
grep -q ',demo-kernelbench/level1/033_batchnorm/s0,' "$man" || die "no mutant of the .py"
# a rerun over an existing tree rewrites nothing
before=$(find "$T/a/mutants" -type f -printf '%p %T@\n' | sort)
out=$("$M" --origin "$ORIG" --out "$T/a/mutants") || die "rerun exits $?"
grep -q "0 written, $rows unchanged" <<< "$out" || die "rerun: $out"
[ "$before" = "$(find "$T/a/mutants" -type f -printf '%p %T@\n' | sort)" ] || die "the rerun touched files"
# the layout check accepts a mutants tree with its manifest
stray=$( (cd "$T/a" && mkdir -p submissions && cp -r mutants submissions/ && find submissions -mindepth 1 -printf '%y %p\n') |
    LC_ALL=C awk -f tools/check-layout.awk)
[ -z "$stray" ] || die "check-layout: $stray"
# a tree not made by kb-mutate is refused
mkdir -p "$T/other" && touch "$T/other/x"
"$M" --origin "$ORIG" --out "$T/other" >/dev/null 2>&1 && die "an unrelated --out was written over"
# compile a handful (the cache makes the second pass free), plus one made stillborn on purpose
if command -v "${NVCC:-/usr/local/cuda/bin/nvcc}" >/dev/null 2>&1; then
    out=$("$M" --origin "$ORIG" --out "$T/a/mutants" --compile-check --limit 6 --jobs 2 --cache "$T/cache.tsv" \
          --nvcc "${NVCC:-/usr/local/cuda/bin/nvcc}" --gencode '-gencode=arch=compute_90,code=sm_90') || die "compile check exits $?"
    checked=$(count "$man" "r[8] != ''")
    [ "$checked" = 6 ] || die "$checked mutants checked (want 6): $out"
    ok=$(count "$man" "r[8] == '1'")
    [ "$ok" -ge 4 ] || die "only $ok of 6 checked .cu mutants compile: $(grep ',0,' "$man" | head -3)"
    out=$("$M" --origin "$ORIG" --out "$T/a/mutants" --compile-check --limit 6 --jobs 2 --cache "$T/cache.tsv" \
          --nvcc "${NVCC:-/usr/local/cuda/bin/nvcc}" --gencode '-gencode=arch=compute_90,code=sm_90') || die "compile check 2 exits $?"
    grep -q "from the cache" <<< "$out" && [ "$(count "$man" "r[8] != ''")" = 12 ] || die "second check: $out"
    mkdir -p "$T/s/m/level1/019_relu"
    printf '__global__ void k(float *y) { y[0] = undeclared + 1.0f; }\n' > "$T/s/m/level1/019_relu/s0.cu"
    "$M" --origin "$T/s/m/level1/019_relu/s0.cu" --out "$T/s/mutants" --compile-check \
        --nvcc "${NVCC:-/usr/local/cuda/bin/nvcc}" --gencode '-gencode=arch=compute_90,code=sm_90' >/dev/null || die "stillborn run exits $?"
    [ "$(count "$T/s/mutants/mutants.csv" "r[8] == '0' and r[9].startswith('s0.cu(1): error: identifier \"undeclared\" is undefined')")" -ge 1 ] ||
        die "stillborn not recorded: $(sed -n 2p "$T/s/mutants/mutants.csv")"
else
    echo "mutate: nvcc not found: the compile check is skipped"
fi
# kb-witness's sample list (make's witness/<problem>.list): a mutant's 4th column names its origin,
# which must be listed before it (the early stop at the witnessing entry reads the origin's row);
# the list is refused before any GPU work
W=$B/bin/kb-witness
printf 'demo-naive/level1/001_square_matmul/s0\tk.so\tc.h5\t\nmutants/level1/001_square_matmul/s0\tk.so\tc.h5\tdemo-naive/level1/001_square_matmul/s1\n' > "$T/w.list"
out=$("$W" --problem "$T/none.so" --spec none.py --samples "$T/w.list" --out "$T/w.h5" 2>&1); rc=$?
[ $rc != 0 ] && grep -q "names the origin demo-naive/level1/001_square_matmul/s1, which is not listed before it" <<< "$out" ||
    die "witness list with an unlisted origin: rc $rc: $out"
[ ! -e "$T/w.h5" ] || die "witness wrote an artifact for a bad list"
printf 'demo-naive/level1/001_square_matmul/s0\tk.so\tc.h5\t\nmutants/level1/001_square_matmul/s0\tk.so\tc.h5\tdemo-naive/level1/001_square_matmul/s0\n' > "$T/w.list"
out=$("$W" --problem "$T/none.so" --spec none.py --samples "$T/w.list" --out "$T/w.h5" 2>&1)
grep -q "origin" <<< "$out" && die "a good list refused: $out"
[ $fail = 0 ] && echo "mutate: $rows mutants of a .cu and a .py, every family; deterministic; reruns touch nothing; compile check records stillborn mutants"
exit $fail
