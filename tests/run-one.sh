#!/usr/bin/env bash
# tests/run-one.sh DIR NAME COMMAND... -- one test of a tier (mk/test.mk runs each through this):
# COMMAND's output goes to DIR/NAME.log, its exit status and wall time to DIR/NAME.result
# ("STATUS SECONDS"), and one line says how it went. Exits 0 whatever the test did: the tier goes
# on, and tests/report.sh counts. The test runs as from a shell in the repository root with BUILD
# set (as tests/README.md says to run one alone): the makes it runs are top-level ones (no
# MAKELEVEL: no "Entering directory" lines in what they print), and none of make's own flags (-j,
# -k, the job server) reach them, only variables given on make's command line (KB_TEST_MAKEFLAGS).
set -u
dir=$1 name=$2
shift 2
mkdir -p "$dir"
log=$dir/$name.log
rm -f "$dir/$name.result"
unset MFLAGS MAKEFLAGS MAKELEVEL MAKE_TERMOUT MAKE_TERMERR
[ -n "${KB_TEST_MAKEFLAGS:-}" ] && export MAKEFLAGS=$KB_TEST_MAKEFLAGS
unset KB_TEST_MAKEFLAGS
t0=$(date +%s.%N)
"$@" > "$log" 2>&1 < /dev/null
rc=$?
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
echo "$rc $wall" > "$dir/$name.result.tmp" && mv "$dir/$name.result.tmp" "$dir/$name.result"
if [ "$rc" = 0 ]; then
    printf 'ok    %-28s %7s s\n' "$name" "$wall"
else
    printf 'FAIL  %-28s %7s s  exit %s: %s\n' "$name" "$wall" "$rc" "$log"
fi
exit 0
