#!/usr/bin/env bash
# tests/cpu/extract.sh -- kb-extract end to end on the corpus of tests/fixtures/extract/ (no GPU).
#
#   1. The corpus (expected.tsv lists each response, its outcome and why; two more are made here:
#      a NUL byte and a 1 MB response) gives exactly the trees tests/fixtures/extract/expected-<style>/:
#      the samples and extraction.csv, byte for byte.
#   2. A second extraction changes nothing: no file written, every mtime kept.
#   3. The tree is what the Makefile reads: the layout check passes and the samples it would
#      discover are the manifest's ok rows.
#   4. Responses gone or now failing delete their stale samples; the others are left alone.
#   5. Refused, with nothing written: an entry that is no response, an unknown problem, a model
#      directory not made by an extraction; a missing responses directory is exit 4.
#   6. make extract: a new MODEL is accepted (dry run), RESPONSES is required.
# `bash tests/cpu/extract.sh --update` rewrites the expected trees (review the diff).
# Run from the repository root with BUILD set (make test-sh does both).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
X=$B/bin/kb-extract
FIX=$ROOT/tests/fixtures/extract
make -s --no-print-directory BUILD="$B" "$X" >/dev/null || { echo "FAIL: cannot build kb-extract"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
cd "$tmp"
cp -r "$FIX/responses-kernelbench" kb && cp -r "$FIX/responses-abi" abi
printf '```python\nclass ModelNew:\n    x = 1\0\n```\n' > kb/level1/019_relu/s10.txt
{ awk 'BEGIN { while (n < 1048576) { l = sprintf("Line %d of a long explanation, with `inline code` and ``` in a line.", NR++); print l; n += length(l) + 1 } }'
  printf '```python\nclass ModelNew:\n    pass\n```\n'; } > kb/level1/019_relu/s11.txt
[ "$(stat -c %s kb/level1/019_relu/s11.txt)" -gt 1048576 ] || { echo "FAIL: the 1 MB response is $(stat -c %s kb/level1/019_relu/s11.txt) bytes"; fail=1; }
extract() { # responses model style -> stdout in out.txt, status in $rc
    "$X" --responses "$1" --model "$2" --style "$3" --problems "$ROOT/problems" --submissions submissions > out.txt 2>&1
    rc=$?
}
snapshot() { find submissions -type f -printf '%p %s %T@\n' | sort; } # files: a directory's date is no file's

# ---- 1. the expected trees --------------------------------------------------------------------------
for style in kernelbench abi; do
    r=$([ $style = abi ] && echo abi || echo kb)
    extract $r $r $style
    [ $rc = 0 ] || { echo "FAIL: kb-extract $style exited $rc:"; cat out.txt; fail=1; continue; }
    if [ "${1:-}" = --update ]; then
        rm -rf "$FIX/expected-$style" && cp -r "submissions/$r" "$FIX/expected-$style" && echo "updated $FIX/expected-$style"
        continue
    fi
    if diff -r "$FIX/expected-$style" "submissions/$r" > diff.txt; then
        n=$(tail -n +2 "submissions/$r/extraction.csv" | wc -l)
        echo "ok: $style: $n responses -> the expected tree ($(grep -c ',ok,' "submissions/$r/extraction.csv") samples, the rest failures with reasons)"
    else
        echo "FAIL: $style: the tree differs from $FIX/expected-$style (intended? bash tests/cpu/extract.sh --update):"
        head -30 diff.txt
        fail=1
    fi
done
[ "${1:-}" = --update ] && exit 0
grep -q '^level1/019_relu,s10,not_text,' submissions/kb/extraction.csv &&
    grep -q '^level1/019_relu,s11,ok,' submissions/kb/extraction.csv || { echo "FAIL: the NUL and 1 MB rows"; fail=1; }

# ---- 2. a second extraction changes nothing --------------------------------------------------------
snapshot > before.txt
sleep 1
extract kb kb kernelbench
extract abi abi abi
snapshot > after.txt
if [ $rc = 0 ] && diff before.txt after.txt > /dev/null && grep -q "(0 written, 3 unchanged).*(unchanged)$" out.txt; then
    echo "ok: a second extraction writes nothing and keeps every mtime"
else
    echo "FAIL: a second extraction changed the tree:"; diff before.txt after.txt | head; cat out.txt; fail=1
fi

# ---- 3. what the Makefile reads ----------------------------------------------------------------------
# (the tree as it is, extraction.csv included: tools/check-layout.awk accepts it)
stray=$(find submissions -mindepth 1 -printf '%y %p\n' | LC_ALL=C awk -f "$ROOT/tools/check-layout.awk")
[ -z "$stray" ] || { echo "FAIL: the layout check refuses the tree: $stray"; fail=1; }
for m in kb abi; do
    found=$(ls submissions/$m/level[1-3]/*/*.py submissions/$m/level[1-3]/*/*.cu 2>/dev/null | sed "s|^submissions/$m/||; s|\.[a-z]*$||" | sort)
    oks=$(awk -F, 'NR > 1 && $3 == "ok" { print $1 "/" $2 }' submissions/$m/extraction.csv | sort)
    [ "$found" = "$oks" ] || { echo "FAIL: $m: the samples the Makefile finds are not the ok rows:"; diff <(echo "$oks") <(echo "$found"); fail=1; }
done
[ -z "$stray" ] && echo "ok: the layout check accepts the trees; the samples found are exactly the ok rows"

# ---- 4. stale samples ----------------------------------------------------------------------------------
snapshot > before.txt
rm kb/level1/019_relu/s0.txt
: > kb/level1/019_relu/s1.txt
extract kb kb kernelbench
if [ $rc = 0 ] && [ ! -e submissions/kb/level1/019_relu/s0.py ] && [ ! -e submissions/kb/level1/019_relu/s1.py ] &&
   grep -q '^level1/019_relu,s1,empty,' submissions/kb/extraction.csv && ! grep -q '^level1/019_relu,s0,' submissions/kb/extraction.csv &&
   grep -q "2 stale samples deleted" out.txt &&
   [ "$(snapshot | grep -v 'kb/extraction.csv\|019_relu/s[01]\.py')" = "$(grep -v 'kb/extraction.csv\|019_relu/s[01]\.py' before.txt)" ]; then
    echo "ok: a removed response and a now-empty one delete their samples; nothing else is touched"
else
    echo "FAIL: stale samples:"; cat out.txt; ls submissions/kb/level1/019_relu; fail=1
fi

# ---- 5. refused, nothing written ---------------------------------------------------------------------
snapshot > before.txt
touch kb/level1/019_relu/S1.txt
mkdir -p kb/level1/999_nope kb/Level2
extract kb kb kernelbench
if [ $rc = 1 ] && grep -q "kb/level1/019_relu/S1.txt (not a response" out.txt && grep -q "kb/level1/999_nope (names no problem" out.txt &&
   grep -q "kb/Level2 (not a level directory" out.txt && [ "$(snapshot)" = "$(cat before.txt)" ]; then
    echo "ok: entries that are no responses are listed, exit 1, nothing written"
else
    echo "FAIL: bad entries: exit $rc"; cat out.txt; fail=1
fi
rm -r kb/level1/019_relu/S1.txt kb/level1/999_nope kb/Level2
mkdir -p submissions/hand/level1/019_relu && echo '// by hand' > submissions/hand/level1/019_relu/s0.cu
extract abi hand abi
[ $rc = 1 ] && grep -q "not made by an extraction" out.txt && [ ! -e submissions/hand/extraction.csv ] &&
    [ "$(cat submissions/hand/level1/019_relu/s0.cu)" = "// by hand" ] ||
    { echo "FAIL: a model directory not made by an extraction: exit $rc"; cat out.txt; fail=1; }
extract nowhere x kernelbench
[ $rc = 4 ] || { echo "FAIL: a missing responses directory: exit $rc"; fail=1; }
extract kb 'a b' kernelbench
[ $rc = 2 ] || { echo "FAIL: a model name with a space: exit $rc"; fail=1; }
[ $fail = 0 ] && echo "ok: a hand-made model is refused (exit 1), a missing directory is exit 4, a bad name exit 2"

# ---- 6. make extract ------------------------------------------------------------------------------------
cd "$ROOT"
dry=$(make -n --no-print-directory BUILD="$B" extract RESPONSES="$tmp/kb" MODEL=brand-new-model 2>&1)
grep -q "kb-extract --responses $tmp/kb --model brand-new-model --style kernelbench" <<< "$dry" ||
    { echo "FAIL: make -n extract MODEL=brand-new-model: $dry"; fail=1; }
make -s --no-print-directory BUILD="$B" extract MODEL=x > "$tmp/make.txt" 2>&1
[ $? -ne 0 ] && grep -q "needs RESPONSES=dir" "$tmp/make.txt" || { echo "FAIL: make extract without RESPONSES: $(cat "$tmp/make.txt")"; fail=1; }
[ $fail = 0 ] && echo "extract: the corpus as expected, idempotent, what the Makefile reads, stale samples deleted, bad input refused"
exit $fail
