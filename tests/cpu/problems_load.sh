#!/usr/bin/env bash
# tests/cpu/problems_load.sh -- every problem object loads and validates: every
# problems/levelN/NNN_name.c of config.mk's LEVELS has its object $BUILD/problems/levelN/NNN_name.so,
# which dlopens (libkbops.so found through its rpath), exports only kb_problem_descriptor,
# validates (lib/core/problem_load.c) and carries its own id. The checker is tests/cpu/check_problems.c,
# built by the Makefile's test rule. Run from the repository root with BUILD set (make test does
# both); no GPU. (That every submission compiles as expected: compile_all.sh, slow tier.)
set -uo pipefail

BUILD=${BUILD:-build}
if [ ! -f Makefile ] || [ ! -d problems ]; then
    echo "problems_load.sh: run from the repository root" >&2
    exit 1
fi
BUILD_ABS=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "problems_load.sh: no build directory $BUILD" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-problems-load.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

echo "== problems"
if ! make -s --no-print-directory BUILD="$BUILD" "$BUILD/tests/check_problems" >"$tmp/make.log" 2>&1; then
    cat "$tmp/make.log"
    echo "FAIL: cannot build the problem checker"
    exit 1
fi
levels=$(make -s --no-print-directory -f - <<'EOF' 2>/dev/null
include config.mk
print:
	@echo $(LEVELS)
EOF
)
[ -n "$levels" ] || levels="level1 level2 level3"
sos=()
n_src=0
for lv in $levels; do
    for src in problems/"$lv"/[0-9][0-9][0-9]_*.c; do
        [ -e "$src" ] || continue
        n_src=$((n_src + 1))
        id=${src#problems/}
        id=${id%.c}
        so=$BUILD_ABS/problems/$id.so
        if [ -f "$so" ]; then
            sos+=("$so")
        else
            echo "FAIL $id: $so missing (make problems)"
            fail=1
        fi
    done
done
if [ "${#sos[@]}" -gt 0 ]; then
    "$BUILD_ABS/tests/check_problems" problems "$BUILD_ABS/problems" "${sos[@]}" || fail=1
fi
echo "checked ${#sos[@]} of $n_src problem objects"
if [ "$n_src" -eq 0 ]; then
    echo "FAIL: no problem sources found for LEVELS='$levels'"
    fail=1
fi
exit $fail
