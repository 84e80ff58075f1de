#!/usr/bin/env bash
# tests/cpu/mutation_results.sh -- the committed mutation report is what kb-mutation-report
# makes of the committed artifacts: results/2026-12-03-mutation/artifacts.txz (the witnesses, both
# protocols' checks and the special cells, as the H200 made them) and its mutants.csv
# (the manifest) give back its mutation.csv, mutation-detail.csv and mutation-summary.md
# byte for byte; the report keeps its contract (the issue's columns, >= 300 witnessed over >= 12
# problems and all six families, strict >= 99% with no origin rejected); tools/false-rejections.sh
# finds no honest sample rejected in that strict tree. A report tool that changes what it counts,
# or a committed file edited by hand, fails here.
set -uo pipefail
cd "$(dirname "$0")/../.."
R=results/2026-12-03-mutation
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-mutres.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }
make --no-print-directory build/bin/kb-mutation-report build/bin/kb-h5get > /dev/null || { echo "FAIL: build"; exit 1; }
bin=$PWD/build/bin
mkdir -p "$tmp/submissions/mutants"
cp $R/mutants.csv "$tmp/submissions/mutants/mutants.csv"
tar xJf $R/artifacts.txz -C "$tmp" || { echo "FAIL: $R/artifacts.txz does not unpack"; exit 1; }
(
    cd "$tmp" || exit 1
    wit=$(ls artifacts/mutation/witness/level1/*.h5 | tr '\n' ' ')
    "$bin/kb-mutation-report" --manifest submissions/mutants/mutants.csv --witness "$wit" \
        --paper artifacts/mutation/paper --strict artifacts/mutation/strict --out report
) > "$tmp/report.log" 2>&1 || FAIL "kb-mutation-report: $(tail -3 "$tmp/report.log")"
for f in mutation.csv mutation-detail.csv mutation-summary.md; do
    cmp -s "$tmp/report/$f" "$R/$f" || FAIL "$R/$f is not what kb-mutation-report makes of the committed artifacts: $(diff "$tmp/report/$f" "$R/$f" | head -4)"
done
m=$R/mutation.csv
[ "$(head -1 $m)" = "problem,family,rule,witnessed,killed_standard,killed_paper,killed_strict,reason" ] || FAIL "$m: columns $(head -1 $m)"
# the contract's figures, counted from the CSV itself (reason is quoted and may hold commas: fields 1-7 are not)
read -r wit probs fams strict_k strict_n <<< "$(awk -F, 'NR > 1 && $4 == 1 { w++; p[$1]; f[$2]; if ($7 != "") { n++; k += $7 } }
    END { np = 0; for (x in p) np++; nf = 0; for (x in f) nf++; print w, np, nf, k, n }' $m)"
echo "  $wit witnessed over $probs problems, $fams families; strict kills $strict_k of $strict_n"
[ "$wit" -ge 300 ] || FAIL "$wit witnessed mutants (the issue wants >= 300)"
[ "$probs" -ge 12 ] || FAIL "$probs problems (>= 12)"
[ "$fams" -eq 6 ] || FAIL "$fams families witnessed (all 6)"
[ "$strict_n" -eq "$wit" ] || FAIL "strict artifacts for $strict_n of $wit witnessed"
[ $(( strict_k * 100 )) -ge $(( wit * 99 )) ] || FAIL "strict kills $strict_k of $wit (< 99%)"
grep -q '^False rejections of the 29 origins: standard 0, paper [0-9]*, strict 0\.$' $R/mutation-summary.md ||
    FAIL "the summary does not say strict rejects none of the 29 origins"
out=$(tools/false-rejections.sh "$tmp/fr.csv" "$tmp/artifacts/mutation/strict" "$tmp/artifacts/special/strict") ||
    FAIL "false-rejections: exit $?"
echo "$out" | sed 's/^/  /'
grep -q '^rejected: 0 of 28 exact, 0 of 4 TF32$' <<< "$out" || FAIL "honest samples of the mutation tree: want 0 of 28 exact, 0 of 4 TF32"
[ $fail = 0 ] && echo "ok: the committed mutation report is the report of the committed artifacts, and keeps its contract"
exit $fail
