#!/usr/bin/env bash
# kill_resume.sh TARGET... -- `kill -9` of make at a random moment, then `make` again, gives
# the same results as an uninterrupted run, and no partial file is ever taken as done.
# Runs the given make targets (with the caller's variables in MAKEARGS) into two artifact
# roots: once uninterrupted, once killed (the whole process group, SIGKILL) after a random
# delay in [KILL_MIN, KILL_MAX] seconds and then resumed. Checks: the same set of artifacts,
# every artifact opens and has an outcome, the same outcome per artifact, and, for the
# deterministic records (compile outcome, correctness verdicts), the same values.
# KILL_MIN and KILL_MAX may also be fractions of the reference run's time (0.25x, 0.85x).
# KILL_STRICT=1 also fails a vacuous run and checks the checker: the kill must come before the
# last artifact is done, and a planted partial record (a compile.h5 cut in half, newer than its
# sources, as a writer that is not atomic would leave it) must make the checks fail.
# Used by the CPU suite (compile stage: the real nvcc in the slow tier, a stand-in in the fast
# one) and the GPU suite (GPU stages).
set -euo pipefail
# a step that fails under set -e says which, instead of ending the test with a bare exit 1
trap 'echo "FAIL: tests/kill_resume.sh line $LINENO: \`$BASH_COMMAND\` exited $?" >&2' ERR
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
secs() { case $1 in *x) awk -v f="${1%x}" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", f * (b - a) }' ;; *) echo "$1" ;; esac; }
delay=$(awk -v a="$(secs "$KILL_MIN")" -v b="$(secs "$KILL_MAX")" -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", a + (b - a) * rand() }')
setsid bash -c "make --no-print-directory BUILD='$BUILD' ARTIFACTS='$root/cut' SUBS='$root/cut.sub' $MAKEARGS $* > '$root/cut1.log' 2>&1" &
pid=$!
sleep "$delay"
kill -9 -- -"$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
# count what the kill left: an early kill leaves no tree at all (none is 0, not an error)
count() { local d have=()
    for d in "${@:2}"; do [ -d "$d" ] && have+=("$d"); done
    [ ${#have[@]} = 0 ] && { echo 0; return; }
    find "${have[@]}" -name "$1" | wc -l; }
n_before=$(count '*.h5' "$root/cut")
n_tmp=$(count '*.tmp.*' "$root/cut" "$root/cut.sub")
run "$root/cut" "$@" > "$root/cut2.log" 2>&1
echo "reference run $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; killed after ${delay} s with $n_before artifacts done and $n_tmp partial files; resumed"

# check TREE: the checks of TREE against the reference; prints each failure, returns 1 on any
check() {
    local tree=$1 fail=0 f a b x y attr cut_list pending
    shift
    cut_list=$(cd "$tree" && find . -name '*.h5' | sort)
    if [ "$ref_list" != "$cut_list" ]; then
        echo "FAIL: different artifact sets"; diff <(echo "$ref_list") <(echo "$cut_list") || true; fail=1
    fi
    for f in $ref_list; do
        a=$($get "$root/ref/$f" / outcome)
        b=$($get "$tree/$f" / outcome 2>/dev/null || echo unreadable)
        [ "$a" = "$b" ] || { echo "FAIL: $f: outcome $a uninterrupted, $b resumed"; fail=1; }
        for attr in correct verified compiled trials_passed dists_passed; do
            x=$($get "$root/ref/$f" / $attr 2>/dev/null || echo -)
            y=$($get "$tree/$f" / $attr 2>/dev/null || echo -)
            [ "$x" = "$y" ] || { echo "FAIL: $f: $attr $x vs $y"; fail=1; }
        done
    done
    # make must consider the resumed tree complete: one more real run (commands shown, V=1) runs no
    # stage. Not a dry run: `make -n` cannot see through the content-hash stamps of the tools
    # (tools/content-hash.sh keeps a stamp's date when a rebuild changed no code), so after such a
    # rebuild it lists every stage; and the phony GPU check is always listed, so `make -q` cannot
    # be used either.
    pending=$(make --no-print-directory V=1 BUILD="$BUILD" ARTIFACTS="$tree" SUBS="$root/cut.sub" $MAKEARGS "$@" 2>&1 |
        grep -v 'content-hash.sh' | grep -c 'bin/kb-\(compile\|sanity-check\|verify-distributions\|memory-profile\|baseline-time\) ' || true)
    if [ "$pending" != 0 ]; then
        echo "FAIL: make still ran $pending stage commands on the resumed tree"; fail=1
    fi
    return $fail
}
fail=0
ref_list=$(cd "$root/ref" && find . -name '*.h5' | sort)
check "$root/cut" "$@" || fail=1
[ "$fail" = 0 ] && echo "kill -9 / resume: $(echo "$ref_list" | wc -w) artifacts, identical outcomes and verdicts"
if [ "${KILL_STRICT:-}" = 1 ]; then
    n_all=$(echo "$ref_list" | wc -w)
    [ "$n_before" -lt "$n_all" ] ||
        { echo "FAIL: the kill came after all $n_all artifacts were done: nothing was interrupted (KILL_MAX too late)"; fail=1; }
    # the checker must catch what a writer that is not atomic would leave: a record cut in half
    # that make takes as done (newer than everything it depends on)
    cp -a "$root/cut" "$root/planted"
    victim=$(cd "$root/planted" && find . -name compile.h5 | sort | head -1)
    if [ -z "$victim" ]; then
        echo "FAIL: KILL_STRICT=1: no compile.h5 to plant a partial record in"; fail=1
    else
        size=$(stat -c %s "$root/planted/$victim")
        truncate -s $((size / 2)) "$root/planted/$victim" && touch "$root/planted/$victim"
        if check "$root/planted" "$@" > "$root/planted.log" 2>&1; then
            echo "FAIL: a planted partial record ($victim, $((size / 2)) of $size bytes) passed the checks"; fail=1
        else
            echo "self-check: a planted partial record ($victim cut to $((size / 2)) of $size bytes) is caught: $(grep -m1 FAIL "$root/planted.log")"
        fi
    fi
fi
exit $fail
