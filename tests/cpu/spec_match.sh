#!/usr/bin/env bash
# tests/cpu/spec_match.sh -- every problem's .py (the KernelBench file a .py submission runs
# against) agrees with its C descriptor: forward() arguments, parameter names and shapes, outputs,
# and the runner's binding of its Model, taken unchanged as a ModelNew, to the descriptor's
# parameters (by name, every one); every demo-kernelbench sample's ModelNew binds to its problem's
# descriptor, and the files of tests/fixtures/kbpy/bind get the param_mismatch they name
# (tests/cpu/spec_match.py, on torch's meta device). Needs a python with torch (KB_PYTHON, default
# python3) and the problem objects; run from the repository root with BUILD set (make test-sh).
set -uo pipefail
BUILD=${BUILD:-build}
PY=${KB_PYTHON:-python3}
if ! "$PY" -c 'import torch' >/dev/null 2>&1; then
    echo "spec_match.sh: torch not importable by $PY: install it (pip install torch) or set KB_PYTHON" >&2
    exit 1
fi
make -s --no-print-directory BUILD="$BUILD" "$BUILD/tests/check_problems" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-spec-match.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mapfile -t sos < <(find "$BUILD/problems" -name '[0-9][0-9][0-9]_*.so' | LC_ALL=C sort)
[ ${#sos[@]} -gt 0 ] || { echo "spec_match.sh: no problem objects under $BUILD/problems (make problems)" >&2; exit 1; }
"$BUILD/tests/check_problems" specs "${sos[@]}" > "$tmp/specs.tsv" || { cat "$tmp/specs.tsv"; exit 1; }
"$PY" tests/cpu/spec_match.py "$tmp/specs.tsv" problems --samples submissions/demo-kernelbench \
    --mismatches tests/fixtures/kbpy/bind
