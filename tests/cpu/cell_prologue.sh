#!/usr/bin/env bash
# The cell stages' shared prologue (kb_cell_stage_open, gpu/gpustage.c) without a GPU: a sample
# whose compile failed gets its skipped artifact from kb-sanity-check, kb-verify-distributions
# and kb-memory-profile (ran 0, the compile's outcome, exit 0); a sample whose standard check
# ended fatally gets one from kb-verify-distributions (--sanity) even though it compiled; a
# missing compile record is an error that names it; --help needs nothing.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
get() { "$B"/bin/kb-h5get "$@" 2>&1; }
check() { [ "$2" = "$3" ] || { echo "FAIL: $1: got '$2', want '$3'"; fail=1; }; }
P=$B/problems/level1/019_relu.so
printf 'this is not CUDA\n' > "$T/bad.cu"
"$B"/bin/kb-compile --src "$T/bad.cu" --out-so "$T/bad.so" --out "$T/bad-compile.h5" --model m --problem level1/019_relu \
    --sample s0 > "$T/compile.log" 2>&1
check "the broken sample's compile outcome" "$(get "$T/bad-compile.h5" / outcome)" compile_error
for st in sanity-check verify-distributions memory-profile; do
    "$B"/bin/kb-$st --problem "$P" --submission "$T/bad.so" --compile "$T/bad-compile.h5" --out "$T/$st.h5" --model m \
        --sample s0 > "$T/$st.log" 2>&1
    check "kb-$st on a failed compile: exit" "$?" 0
    check "kb-$st on a failed compile: outcome" "$(get "$T/$st.h5" / outcome)" compile_error
    check "kb-$st on a failed compile: ran" "$(get "$T/$st.h5" / ran)" 0
done
"$B"/bin/kb-compile --src submissions/demo-naive/level1/019_relu/s0.cu --out-so "$T/ok.so" --out "$T/ok-compile.h5" \
    --model m --problem level1/019_relu --sample s0 > "$T/compile-ok.log" 2>&1
check "the good sample's compile outcome" "$(get "$T/ok-compile.h5" / outcome)" ok
# its standard check "ended" with a compile error (fatal): verify-distributions records that, no GPU
"$B"/bin/kb-verify-distributions --problem "$P" --submission "$T/ok.so" --compile "$T/ok-compile.h5" --out "$T/vd.h5" \
    --model m --sample s0 --sanity "$T/sanity-check.h5" > "$T/vd.log" 2>&1
check "kb-verify-distributions after a fatal standard check: exit" "$?" 0
check "kb-verify-distributions after a fatal standard check: outcome" "$(get "$T/vd.h5" / outcome)" compile_error
out=$("$B"/bin/kb-sanity-check --problem "$P" --submission "$T/ok.so" --compile "$T/none.h5" --out "$T/x.h5" --model m \
    --sample s0 2>&1)
rc=$?
{ [ $rc -ne 0 ] && grep -q "none.h5" <<< "$out" && [ ! -e "$T/x.h5" ]; } ||
    { echo "FAIL: a missing compile record: exit $rc, '$out'"; fail=1; }
for st in sanity-check verify-distributions; do
    h=$("$B"/bin/kb-$st --help 2>&1) || { echo "FAIL: kb-$st --help"; fail=1; }
    grep -q -- "--compile" <<< "$h" || { echo "FAIL: kb-$st --help lists no --compile"; fail=1; }
done
grep -q -- "--sanity" <<< "$("$B"/bin/kb-verify-distributions --help 2>&1)" || { echo "FAIL: verify has no --sanity"; fail=1; }
[ $fail = 0 ] && echo "cell_prologue: skipped artifacts for a failed compile (3 stages) and a fatal standard check; a missing record refused"
exit $fail
