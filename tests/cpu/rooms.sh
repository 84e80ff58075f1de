#!/usr/bin/env bash
# tests/cpu/rooms.sh -- the code's rooms stay as lib/README.md says (no build needed):
#   1. lib/ has no file outside its folders, and every folder is one of the table's;
#   2. a lib/ folder includes only the folders it may (core: core only; compile, sandbox, llm,
#      mutation: core; report: core and llm), so core never reaches into report, mutation or llm;
#   3. no file of lib/ is over 1,000 lines;
#   4. every main() of stages/, campaign/, tools/ and bench/ is under 150 lines;
#   5. stages/ holds the pipeline's stages and their child only.
# Run from the repository root. KB_ROOMS_ROOT=dir checks another tree (the test's own self-check).
set -uo pipefail
root=${KB_ROOMS_ROOT:-.}
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }
declare -A may=([core]="core" [compile]="core compile" [sandbox]="core sandbox" [llm]="core llm"
                [mutation]="core mutation" [report]="core report llm")
for f in "$root"/lib/*; do
    n=${f##*/}
    [ "$n" = README.md ] && continue
    [ -d "$f" ] || { FAIL "lib/$n is outside the folders (lib/README.md)"; continue; }
    [ -n "${may[$n]+x}" ] || FAIL "lib/$n/ is not a folder of lib/README.md's table"
done
for d in "${!may[@]}"; do
    [ -d "$root/lib/$d" ] || continue
    while IFS=: read -r file line inc; do
        to=${inc#*\"}; to=${to%%/*}
        grep -qw -- "$to" <<< "${may[$d]}" || FAIL "${file#"$root"/}:$line: lib/$d/ includes $to/ (${inc#*#include }); lib/$d may include: ${may[$d]}"
    done < <(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z]*/' "$root/lib/$d"/* 2>/dev/null | grep -v '"kb/')
done
while read -r n file; do
    [ "$n" -le 1000 ] || FAIL "${file#"$root"/} has $n lines (at most 1,000: split it by concern)"
done < <(find "$root/lib" -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \) -exec wc -l {} + | grep -v ' total$')
for f in "$root"/stages/*.c "$root"/campaign/*.c "$root"/tools/*.c "$root"/bench/*.c; do
    [ -f "$f" ] || continue
    n=$(awk '/^int main\(/ { s = NR } s && /^}/ { print NR - s + 1; exit }' "$f")
    [ -z "$n" ] || [ "$n" -lt 150 ] || FAIL "${f#"$root"/}: main() has $n lines (under 150: move the work into functions or lib/)"
done
stages="aggregate baseline-time compile fidelity memory-profile runner sanity-check verify-distributions"
for f in "$root"/stages/*; do
    n=${f##*/}; n=${n%.c}
    grep -qw -- "$n" <<< "$stages" || FAIL "stages/${f##*/} is not a pipeline stage (campaign tools go in campaign/, small tools in tools/)"
done
# the checks must be able to fail: a copy with core reaching into report, a file outside the
# folders and a long main must be refused
if [ -z "${KB_ROOMS_ROOT:-}" ]; then
    t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
    mkdir -p "$t/lib/core" "$t/stages"
    printf '#include "report/kb_tables.h"\n' > "$t/lib/core/x.c"
    : > "$t/lib/loose.c"
    { echo 'int main(void)'; echo '{'; for i in $(seq 150); do echo '    ;'; done; echo '}'; } > "$t/stages/compile.c"
    out=$(KB_ROOMS_ROOT=$t bash "$0" 2>&1)
    for want in "lib/core/ includes report/" "loose.c is outside the folders" "main() has 153 lines"; do
        grep -qF -- "$want" <<< "$out" || FAIL "the self-check's planted fault was not reported: $want"
    done
fi
[ -n "${KB_ROOMS_ROOT:-}" ] || { [ $fail = 0 ] && echo "rooms: lib/ folders and their includes as lib/README.md says; files <= 1000 lines; mains < 150 lines; stages/ only the pipeline's"; }
exit $fail
