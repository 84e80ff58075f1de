#!/usr/bin/env bash
# tests/cpu/compile_py.sh -- kb-compile on KernelBench-format (.py) samples that need no compiler,
# end to end (the builds themselves are tests/cpu/kbpy.sh's): the outcome, the reason and the
# marks it records, against what the demo manifests say.
#   pure PyTorch rewrite        ok, /symbols reasons pure_pytorch, verdict rejected
#   a Triton file               unsupported: triton
#   a linker flag writing /tmp  compile_error "flag not allowed", and no file written
#   no ModelNew / syntax error  compile_error with the reason
set -uo pipefail
B=${BUILD:-build}
get=$B/bin/kb-h5get
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-compile-py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
printf 'import torch\nclass Model(torch.nn.Module):\n    pass\n' > "$tmp/nomodel.py"
printf 'import torch\nclass ModelNew(torch.nn.Module:\n' > "$tmp/syntax.py"
check() { # src expected_outcome detail_pattern reasons_pattern
    local o="$tmp/$(basename "$1" .py)-$RANDOM"
    $B/bin/kb-compile --src "$1" --out-so "$o/kernel.py" --out "$o/compile.h5" --model m --problem level1/019_relu \
        --sample s0 --py-cache "$tmp/cache" > "$o.log" 2>&1 || { echo "FAIL: kb-compile $1 exited $?"; cat "$o.log"; fail=1; return; }
    local out det rs
    out=$($get "$o/compile.h5" / outcome); det=$($get "$o/compile.h5" / outcome_detail)
    rs=$($get "$o/compile.h5" /symbols reasons)
    if [ "$out" != "$2" ] || ! grep -q -- "$3" <<<"$det" || ! grep -q -- "$4" <<<"$rs"; then
        echo "FAIL: $1: outcome '$out' (want $2), detail '$det' (want /$3/), reasons '$rs' (want /$4/)"; fail=1
    else
        echo "ok: $(basename "$1"): $out${det:+: $det}${rs:+ [$rs]}" | cut -c1-160
    fi
    [ "$($get "$o/compile.h5" / submission_kind)" = py ] || { echo "FAIL: $1: submission_kind not py"; fail=1; }
}
rm -f /tmp/kb-fault-s19
check submissions/demo-kernelbench/level1/019_relu/s1.py ok "" pure_pytorch
check submissions/demo-kernelbench/level1/019_relu/s4.py unsupported triton ""
check submissions/demo-faults/level1/019_relu/s19.py compile_error "flag not allowed" ""
check "$tmp/nomodel.py" compile_error "ModelNew" ""
check "$tmp/syntax.py" compile_error "syntax error" ""
[ -e /tmp/kb-fault-s19 ] && { echo "FAIL: s19 wrote /tmp/kb-fault-s19"; fail=1; }
# the builder itself failing is the harness's problem, not the sample's: a stage error, no record
# (so that make retries once it is fixed), with what went wrong
o=$tmp/broken
if KB_PYTHON=/nonexistent/python3 $B/bin/kb-compile --src submissions/demo-kernelbench/level1/019_relu/s0.py \
        --out-so "$o/kernel.py" --out "$o/compile.h5" --model m --problem level1/019_relu --sample s0 \
        --py-cache "$tmp/cache" > "$o.log" 2>&1; then
    echo "FAIL: kb-compile succeeded without a Python"; fail=1
elif [ -e "$o/compile.h5" ] || ! grep -q "the .py builder failed" "$o.log"; then
    echo "FAIL: a builder failure left a record or no message: $(tail -2 "$o.log")"; fail=1
else
    echo "ok: no Python: stage error, no record ($(grep -o 'the .py builder failed.*' "$o.log" | cut -c1-80))"
fi
exit $fail
