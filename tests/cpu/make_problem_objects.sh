#!/usr/bin/env bash
# tests/cpu/make_problem_objects.sh -- a problem's shared object stays up to date when its object
# file is gone: a fresh build used to delete the objects as intermediates, and the next make,
# reading their .d files, compiled and relinked every problem it touched, so every stage artifact
# made after a fresh build was re-run once (the GPU suite's kill/resume check found it). Now
# the objects are kept (.SECONDARY); one that is missing anyway is not remade for nothing, while
# an edited problem source still is.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=build}"
p=level1/019_relu
so=$BUILD/problems/$p.so
o=$BUILD/obj/problems/$p.o
fail=0
make --no-print-directory BUILD="$BUILD" "$o" "$so" > /dev/null || { echo "FAIL: building $so"; exit 1; }
[ -f "${o%.o}.d" ] || { echo "FAIL: ${o%.o}.d missing: the build no longer writes dependency files, so this test checks nothing"; exit 1; }
saved=$(mktemp "${TMPDIR:-/tmp}/kb-probobj.XXXXXX")
trap 'cp -p "$saved" "$o" 2>/dev/null; rm -f "$saved"' EXIT
cp -p "$o" "$saved"
rm -f "$o"
if ! make -q --no-print-directory BUILD="$BUILD" "$so" 2>/dev/null; then
    echo "FAIL: with $o missing, make would compile and relink $so (every artifact of $p would re-run)"
    fail=1
fi
[ $fail = 0 ] && echo "ok: a problem whose object is missing is not relinked"
exit $fail
