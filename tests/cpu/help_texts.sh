#!/usr/bin/env bash
# Every binary: --help exits 0 at once (does no work, needs no GPU) and states its exit codes
# once; --version prints its name, the harness revision (from BUILD/REVISION when KB_GIT_REV is
# unset) and the artifact schema; an unknown option, even as the last argument, is called
# unknown and exits 2.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
fail=0 n=0
for b in "$B"/bin/kb-*; do
    n=$((n + 1))
    h=$(timeout 20 "$b" --help 2>&1); rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: $b --help exits $rc"; fail=1; }
    [ "$(grep -c 'Exit codes' <<< "$h")" = 1 ] || { echo "FAIL: $b --help states its exit codes $(grep -c 'Exit codes' <<< "$h") times"; fail=1; }
    v=$(env -u KB_GIT_REV timeout 20 "$b" --version 2>&1); rc=$?
    [[ $rc -eq 0 && $v =~ ^$(basename "$b")\ [^\ ]+\ \(artifact\ schema\ [0-9]+\)$ ]] && [[ $v != *" unknown "* ]] ||
        { echo "FAIL: $b --version: exit $rc: $v"; fail=1; }
    o=$(timeout 20 "$b" --bogus 2>&1); rc=$?
    case $(basename "$b") in
        kb-h5get) want="usage" ;;           # positional arguments: a usage line
        kb-runner) want="not for direct use\|protocol pipes" ;;
        *) want="unknown\|unexpected" ;;
    esac
    { [ $rc -eq 2 ] && grep -q "$want" <<< "$o"; } || { echo "FAIL: $b --bogus: exit $rc: $(head -c 200 <<< "$o")"; fail=1; }
done
[ $fail = 0 ] && echo "help_texts: $n binaries: --help exits 0 with one exit-code block; --version names the revision; --bogus is exit 2, unknown"
exit $fail
