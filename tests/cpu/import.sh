#!/usr/bin/env bash
# tests/cpu/import.sh -- kb-import end to end on tests/fixtures/import/from/ (no GPU), in a scratch
# directory: its own submissions root, copies of models.csv (tests/fixtures/import/models.csv: its
# columns in another order, one more column, no newline at its end; and the repository's), the
# repository's problems/.
#
#   1. The fixture (every layout; bad names, an unknown problem, level 4, KernelBench's records, a
#      prompt, an answer beside its kernel, a duplicate, two different files of one sample, a file
#      that is no KernelBench format, an answer with two blocks) gives exactly the tree
#      tests/fixtures/import/expected/ (the samples and extraction.csv) and the report
#      tests/fixtures/import/expected-report.txt (every file not taken with its reason, the failed
#      samples, the summary, the models.csv row); exit 1, for the two files of one sample.
#   2. Every sample is its source file byte for byte; models.csv gained one row and lost no byte;
#      kb-aggregate --check-models accepts the model and tools/check-layout.awk the tree.
#   3. A second import changes nothing: no byte and no mtime, models.csv included.
#   4. A file's bytes are kept (CRLF line ends, a byte-order mark), a NUL byte is a not_text row; a
#      kernel file removed deletes its sample, and the answer beside it is then extracted.
#   5. One of the two files of a sample removed: exit 0. A row whose samples_per_problem is too
#      small: exit 1, the tree written, models.csv untouched. An absent --models-csv is created.
#   6. Refused, nothing written: a model directory not made by an import or extraction (1), a
#      malformed models.csv (1), a FROM without a sample (1; an earlier import's tree stays), a
#      missing FROM (4), a bad model name (2).
#   7. make import: the command for a new MODEL (dry run); FROM and MODEL are required.
#   8. The checks can fail: a planted byte in a copy of the tree, a changed line of the report.
# `bash tests/cpu/import.sh --update` rewrites the expected tree and report (review the diff).
# Run from the repository root with BUILD set (make test-sh does both).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
X=$B/bin/kb-import
FIX=$ROOT/tests/fixtures/import
make -s --no-print-directory BUILD="$B" "$X" "$B/bin/kb-aggregate" >/dev/null || { echo "FAIL: cannot build kb-import"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-import.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }
cd "$tmp"
cp -r "$FIX/from" from
ln -s "$ROOT/problems" problems
cp "$FIX/models.csv" models.csv
imp() { # from model [models.csv] -> stdout in out.txt, stderr in err.txt, status in $rc
    "$X" --from "$1" --model "$2" --models-csv "${3:-models.csv}" --submissions submissions --problems problems > out.txt 2> err.txt
    rc=$?
}
snapshot() { find submissions models*.csv -type f -printf '%p %s %T@\n' 2>/dev/null | sort; }
same_tree() { diff -r "$1" "$2" > diff.txt; } # the comparison of section 1 (section 8 checks it can fail)

# ---- 1. the fixture: the expected tree and report ------------------------------------------------------
imp from imp
if [ "${1:-}" = --update ]; then
    rm -rf "$FIX/expected" && cp -r submissions/imp "$FIX/expected" && cp out.txt "$FIX/expected-report.txt" &&
        echo "updated $FIX/expected and $FIX/expected-report.txt (exit $rc)"
    exit 0
fi
[ $rc = 1 ] && grep -q "those samples were not written; keep one file of each and import again" err.txt ||
    FAIL "the fixture: exit $rc (1 expected: two files claim level1/022_tanh s0): $(cat err.txt)"
if same_tree "$FIX/expected" submissions/imp; then
    echo "ok: the fixture gives the expected tree: $(grep -c ',ok,' submissions/imp/extraction.csv) samples, $(tail -n +2 submissions/imp/extraction.csv | grep -vc ',ok,') failed ones with their reasons"
else
    FAIL "the tree differs from $FIX/expected (intended? bash tests/cpu/import.sh --update):"; head -30 diff.txt
fi
if diff "$FIX/expected-report.txt" out.txt > diff.txt; then
    echo "ok: the report is the expected one: $(grep -c ': not taken: ' out.txt) files not taken, each with its reason"
else
    FAIL "the report differs from $FIX/expected-report.txt (intended? bash tests/cpu/import.sh --update):"; head -30 diff.txt
fi
# the reasons the brief of the tool promises, word for word
for want in "run/level_1_problem_101_sample_0_kernel.py: not taken: level 1 has no problem 101 (problems/level1/ holds 001-100)" \
    "run/level_4_problem_1_sample_0_kernel.py: not taken: level 4: KernelBench's levels are 1, 2 and 3" \
    "run/eval_results.json: not taken: KernelBench's eval results (the pipeline measures its own" \
    "not taken: duplicate of level1/019_relu s0 (the same bytes as from/flat/myrun_level_1_problem_19_sample_0_kernel.py)" \
    "not taken: two different files claim level1/022_tanh s0: from/generated_kernels/level_1_problem_22.py and from/per_problem/level_1/problem_22/kernel.py; keep one and import again" \
    "level1/019_relu s3: wrong_name: no top-level class ModelNew in the file (its classes: Model)" \
    "level1/024_log_softmax s1: several_blocks: 2 candidate blocks"; do
    grep -qF -- "$want" out.txt || FAIL "the report lacks: $want"
done

# ---- 2. the bytes, models.csv, what the pipeline reads ------------------------------------------------------
n=0
while IFS=, read -r problem sample outcome; do
    src=$(grep "^$problem,$sample,ok," submissions/imp/extraction.csv | awk -F, '{ print $NF }')
    case $src in *.txt) continue ;; esac # an answer's sample is its block (section 1 pins it)
    cmp -s "$src" "submissions/imp/$problem/$sample.py" || FAIL "$problem $sample is not the bytes of $src"
    n=$((n + 1))
done < <(awk -F, 'NR > 1 && $3 == "ok" { print $1 "," $2 "," $3 }' submissions/imp/extraction.csv)
echo "ok: $n samples are their files byte for byte"
# appended(old, new, row): new is old's bytes, a newline if old lacks one at its end, and row
appended() {
    [ "$(cat "$2")" = "$(cat "$1"; [ -z "$(tail -c1 "$1")" ] || echo; echo "$3")" ] && cmp -s <(head -c "$(stat -c %s "$1")" "$2") "$1"
}
if appended "$FIX/models.csv" models.csv "imp,imp,unknown,,,unknown,unknown,5,kernelbench,"; then
    echo "ok: models.csv: every byte kept, one row added in its header's order: $(tail -1 models.csv)"
else
    FAIL "models.csv: not the old bytes and one row:"; diff "$FIX/models.csv" models.csv | head
fi
grep -q "models.csv:3: a row for imp added" out.txt && grep -q "fill in (docs/metrics.md): display_name" out.txt ||
    FAIL "the report does not say which row was added and what to fill in"
"$B/bin/kb-aggregate" --check-models --models-csv models.csv --submissions submissions --model imp > check.txt 2>&1 ||
    FAIL "kb-aggregate --check-models refuses the imported model: $(cat check.txt)"
stray=$(find submissions -mindepth 1 -printf '%y %p\n' | LC_ALL=C awk -f "$ROOT/tools/check-layout.awk")
[ -z "$stray" ] || FAIL "the layout check refuses the tree: $stray"
[ $fail = 0 ] && echo "ok: the layout check and kb-aggregate --check-models accept the imported model"

# ---- 3. a second import changes nothing -------------------------------------------------------------------------
snapshot > before.txt
sleep 1
imp from imp
snapshot > after.txt
if [ $rc = 1 ] && diff before.txt after.txt > /dev/null && grep -q "(0 written, 11 unchanged).*(unchanged)$" out.txt &&
   grep -q "models.csv:3 already describes imp: left as it is" out.txt; then
    echo "ok: a second import writes nothing and keeps every mtime (models.csv included)"
else
    FAIL "a second import changed something:"; diff before.txt after.txt | head; cat out.txt | tail -3
fi

# ---- 4. bytes kept, a NUL, stale samples -------------------------------------------------------------------------
mkdir -p from/per_problem/level_1/problem_26
printf '\xef\xbb\xbf# CRLF line ends and a byte-order mark\r\nimport torch\r\n\r\nclass ModelNew(torch.nn.Module):\r\n    def forward(self, x):\r\n        return torch.nn.functional.gelu(x)\r\n' \
    > from/per_problem/level_1/problem_26/kernel.py
printf 'class ModelNew:\n    x = 1\0\n' > from/generated_kernels/level_1_problem_21_sample_1.py
snapshot > before.txt
imp from imp
cmp -s from/per_problem/level_1/problem_26/kernel.py submissions/imp/level1/026_gelu/s0.py ||
    FAIL "a CRLF file with a byte-order mark was not written byte for byte"
grep -q '^level1/021_sigmoid,s1,not_text,a NUL byte at offset 25: not a text file,' submissions/imp/extraction.csv &&
    [ ! -e submissions/imp/level1/021_sigmoid/s1.py ] || FAIL "a NUL byte: no not_text row, or a sample written"
[ "$(snapshot | grep -v 'extraction.csv\|026_gelu')" = "$(grep -v 'extraction.csv\|026_gelu' before.txt)" ] ||
    FAIL "adding two files touched other samples"
rm -r from/per_problem/level_1/problem_26 from/generated_kernels/level_1_problem_21_sample_1.py
mv from/run/level_1_problem_19_sample_1_kernel.py kernel-s1.py
imp from imp
if [ ! -e submissions/imp/level1/026_gelu ] && [ ! -e submissions/imp/level1/019_relu/s1.py ] &&
   grep -q '^level1/019_relu,s1,wrong_name,"KernelBench.s raw answer, no kernel file beside it: no top-level class ModelNew' submissions/imp/extraction.csv &&
   grep -q "2 stale samples deleted" out.txt; then
    echo "ok: CRLF and a byte-order mark kept, a NUL byte is not_text; removed files delete their samples, and an answer left alone is extracted"
else
    FAIL "stale samples:"; cat out.txt | tail -3; grep 019_relu submissions/imp/extraction.csv
fi
mv kernel-s1.py from/run/level_1_problem_19_sample_1_kernel.py
imp from imp
same_tree "$FIX/expected" submissions/imp || { FAIL "the files put back do not give the expected tree again"; head diff.txt; }

# ---- 5. exit 0; a row too small; a new models.csv ---------------------------------------------------------------
mv from/generated_kernels/level_1_problem_22.py tanh.py
imp from imp
[ $rc = 0 ] && [ -s submissions/imp/level1/022_tanh/s0.py ] && [ ! -s err.txt ] ||
    FAIL "with one file for level1/022_tanh s0: exit $rc, $(cat err.txt)"
sed -i 's/^imp,imp,unknown,,,unknown,unknown,5,kernelbench,$/imp,imp,unknown,,,unknown,unknown,2,kernelbench,/' models.csv
cp models.csv small.csv
snapshot > before.txt
mv from/responses from-responses # a change of the tree, so that it is written again
imp from imp
if [ $rc = 1 ] && cmp -s models.csv small.csv && [ ! -e submissions/imp/level1/024_log_softmax ] &&
   grep -q "5 samples of one problem, but models.csv:3 says model imp has samples_per_problem 2" err.txt &&
   grep -q "the tree is written and models.csv was left as it is" err.txt &&
   grep -q "note: the samples go up to s4, its samples_per_problem is 2" out.txt; then
    echo "ok: a row whose samples_per_problem is too small: exit 1, the tree written, models.csv untouched, what to change said"
else
    FAIL "a row too small: exit $rc"; cat err.txt
fi
mv from-responses from/responses
mv tanh.py from/generated_kernels/level_1_problem_22.py
cp "$ROOT/models.csv" real.csv
imp from fresh real.csv
appended "$ROOT/models.csv" real.csv "fresh,fresh,,,unknown,unknown,unknown,5,kernelbench" ||
    { FAIL "a copy of the repository's models.csv: not its bytes and one row"; diff "$ROOT/models.csv" real.csv | head; }
imp from fresh new.csv
[ $rc = 1 ] && [ "$(cat new.csv)" = "$(printf 'model,display_name,paper_name,order,provider,date,sampling,samples_per_problem,prompt_style\nfresh,fresh,,,unknown,unknown,unknown,5,kernelbench')" ] ||
    FAIL "an absent --models-csv is not created with the header and the row: $(cat new.csv)"
[ $fail = 0 ] && echo "ok: exit 0 once one file is left for a sample; the repository's models.csv gets a row; an absent one is made"

# ---- 6. refused, nothing written --------------------------------------------------------------------------------
mkdir -p submissions/hand/level1/019_relu && echo '// by hand' > submissions/hand/level1/019_relu/s0.cu
cp "$ROOT/models.csv" models.csv
snapshot > before.txt
imp from hand
[ $rc = 1 ] && grep -q "not made by an extraction or an import" err.txt && [ "$(snapshot)" = "$(cat before.txt)" ] ||
    FAIL "a model directory not made by an import: exit $rc: $(cat err.txt)"
sed 's/^demo-tuned,demo-tuned,,3,this project,[0-9-]*,/demo-tuned,demo-tuned,,3,this project,29.11.2026,/' "$ROOT/models.csv" > bad.csv
imp from other bad.csv
[ $rc = 1 ] && grep -q "column 'date': '29.11.2026' is not a date" err.txt && grep -q "nothing written: correct bad.csv first" err.txt &&
    [ ! -e submissions/other ] && cmp -s bad.csv <(sed 's/^demo-tuned,demo-tuned,,3,this project,[0-9-]*,/demo-tuned,demo-tuned,,3,this project,29.11.2026,/' "$ROOT/models.csv") ||
    FAIL "a malformed models.csv: exit $rc: $(cat err.txt)"
mkdir -p nothing/run && cp from/run/notes.md from/run/eval_results.json nothing/run/
imp nothing imp
[ $rc = 1 ] && grep -q "no file is a sample (2 files seen" err.txt && grep -q "notes.md: not taken" out.txt &&
    [ "$(snapshot)" = "$(cat before.txt)" ] || FAIL "a FROM without a sample: exit $rc: $(cat err.txt)"
imp nowhere x
[ $rc = 4 ] && [ ! -e submissions/x ] || FAIL "a missing FROM: exit $rc"
imp from 'a b'
[ $rc = 2 ] && [ "$(snapshot)" = "$(cat before.txt)" ] || FAIL "a model name with a space: exit $rc"
[ $fail = 0 ] && echo "ok: refused with nothing written: a hand-made model (1), a malformed models.csv (1), no sample (1), no FROM (4), a bad name (2)"

# ---- 7. make import ------------------------------------------------------------------------------------------------
cd "$ROOT"
dry=$(make -n --no-print-directory BUILD="$B" import FROM="$tmp/from" MODEL=brand-new-model MODELS_CSV="$tmp/models.csv" 2>&1)
grep -q "kb-import --from $tmp/from --model brand-new-model --models-csv $tmp/models.csv" <<< "$dry" ||
    FAIL "make -n import MODEL=brand-new-model: $dry"
make -s --no-print-directory BUILD="$B" import MODEL=x > "$tmp/make.txt" 2>&1
[ $? -ne 0 ] && grep -q "make import needs FROM=dir" "$tmp/make.txt" || FAIL "make import without FROM: $(cat "$tmp/make.txt")"
[ $fail = 0 ] && echo "ok: make import runs kb-import for a new model; FROM is required"

# ---- 8. the checks can fail ------------------------------------------------------------------------------------------
cd "$tmp"
cp -r "$FIX/expected" planted && printf ' ' >> planted/level1/019_relu/s0.py
same_tree "$FIX/expected" planted && FAIL "the tree comparison misses a byte added to a sample"
sed '1s/not taken/taken/' "$FIX/expected-report.txt" > planted.txt
diff -q "$FIX/expected-report.txt" planted.txt > /dev/null && FAIL "the report comparison misses a changed line"
[ $fail = 0 ] && echo "import: the fixture's tree and report as expected, bytes kept, idempotent, models.csv appended, bad input refused"
exit $fail
