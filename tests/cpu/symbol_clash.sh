#!/usr/bin/env bash
# tests/cpu/symbol_clash.sh -- no harness binary defines a symbol the op library exports. A problem
# object calls the op library (kb_mean, kb_sum, ...) through the dynamic linker, and a stage
# executable's own function of the same name interposes on it: the H200 fidelity run of L1/48
# segfaulted because lib/core/stats.c's kb_mean(const double *, size_t) took the place of the op
# library's kb_mean(kb_ref *, ...). Run from the repository root with BUILD set (make test-sh).
set -uo pipefail
BUILD=${BUILD:-build}
ops=$BUILD/lib/libkbops.so
[ -f "$ops" ] || { echo "symbol_clash.sh: $ops missing (make build)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-syms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$ops" | awk '{ print $NF }' | sort -u > "$tmp/ops"
fail=0 n=0
for b in "$BUILD"/bin/kb-* "$BUILD"/lib/libkbrunner.so; do
    [ -f "$b" ] || continue
    n=$((n + 1))
    nm --defined-only "$b" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ { print $NF }' | sort -u > "$tmp/b"
    c=$(comm -12 "$tmp/ops" "$tmp/b" | tr '\n' ' ')
    if [ -n "$c" ]; then
        echo "FAIL: $b defines what the op library exports: $c"
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "symbol_clash.sh: no binaries under $BUILD/bin" >&2; exit 1; }
[ "$fail" = 0 ] && echo "ok: $n harness binaries, none defines one of the op library's $(wc -l < "$tmp/ops") exported symbols"
exit $fail
