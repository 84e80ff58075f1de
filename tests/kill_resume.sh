#!/usr/bin/env bash
# kill_resume.sh TARGET... -- `kill -9` of make at a random moment, then `make` again, gives
# the same results as an uninterrupted run, and no partial file is ever taken as done.
# Runs the given make targets (with the caller's variables in MAKEARGS) into two artifact
# roots: once uninterrupted, once killed (the whole process group, SIGKILL) after a random
# delay in [KILL_MIN, KILL_MAX] seconds and then resumed. Checks: the same set of artifacts,
# every artifact opens and has an outcome, the same outcome per artifact, and, for the
# deterministic records (compile outcome, correctness verdicts), the same values.
# Used by the CPU suite (compile stage) and the GPU suite (GPU stages).
set -euo pipefail
: "${BUILD:=build}"
KILL_MIN=${KILL_MIN:-1}
KILL_MAX=${KILL_MAX:-4}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
get=$BUILD/bin/kb-h5get
# each tree gets its own compiled objects (SUBS), so the killed run really redoes the work
run() { make --no-print-directory BUILD="$BUILD" ARTIFACTS="$1" SUBS="$1.sub" $MAKEARGS "${@:2}"; }

t0=$(date +%s.%N)
run "$root/ref" "$@" > "$root/ref.log" 2>&1
t1=$(date +%s.%N)
delay=$(awk -v a="$KILL_MIN" -v b="$KILL_MAX" -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", a + (b - a) * rand() }')
setsid bash -c "make --no-print-directory BUILD='$BUILD' ARTIFACTS='$root/cut' SUBS='$root/cut.sub' $MAKEARGS $* > '$root/cut1.log' 2>&1" &
pid=$!
sleep "$delay"
kill -9 -- -"$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
n_before=$(find "$root/cut" -name '*.h5' 2>/dev/null | wc -l)
n_tmp=$(find "$root/cut" -name '*.tmp.*' 2>/dev/null | wc -l)
run "$root/cut" "$@" > "$root/cut2.log" 2>&1
echo "reference run $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; killed after ${delay} s with $n_before artifacts done and $n_tmp partial files; resumed"

fail=0
ref_list=$(cd "$root/ref" && find . -name '*.h5' | sort)
cut_list=$(cd "$root/cut" && find . -name '*.h5' | sort)
if [ "$ref_list" != "$cut_list" ]; then
    echo "FAIL: different artifact sets"; diff <(echo "$ref_list") <(echo "$cut_list") || true; fail=1
fi
for f in $ref_list; do
    a=$($get "$root/ref/$f" / outcome)
    b=$($get "$root/cut/$f" / outcome 2>/dev/null || echo unreadable)
    [ "$a" = "$b" ] || { echo "FAIL: $f: outcome $a uninterrupted, $b resumed"; fail=1; }
    for attr in correct verified compiled trials_passed dists_passed; do
        x=$($get "$root/ref/$f" / $attr 2>/dev/null || echo -)
        y=$($get "$root/cut/$f" / $attr 2>/dev/null || echo -)
        [ "$x" = "$y" ] || { echo "FAIL: $f: $attr $x vs $y"; fail=1; }
    done
done
# make must consider the resumed tree complete: a dry run lists no stage to run (the phony
# GPU check is always listed, so `make -q` cannot be used here)
pending=$(make -n --no-print-directory BUILD="$BUILD" ARTIFACTS="$root/cut" SUBS="$root/cut.sub" $MAKEARGS "$@" 2>/dev/null | grep -c 'bin/kb-\(compile\|sanity-check\|verify-distributions\|memory-profile\|baseline-time\)' || true)
if [ "$pending" != 0 ]; then
    echo "FAIL: make would still run $pending stage commands on the resumed tree"; fail=1
fi
[ "$fail" = 0 ] && echo "kill -9 / resume: $(echo "$ref_list" | wc -w) artifacts, identical outcomes and verdicts"
exit $fail
