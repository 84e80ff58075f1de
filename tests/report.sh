#!/usr/bin/env bash
# tests/report.sh TIER DIR NAME... -- the end of a tier (mk/test.mk): every test of NAME... that
# failed or did not run (a prerequisite failed to build), with its log's path and last lines; the
# slowest ten; and, as the last line, "N passed, N failed". Reads DIR/NAME.result
# (tests/run-one.sh) and DIR/started (when the tier began). Exit 1 if any test failed or did not run.
set -u
tier=$1 dir=$2
shift 2
TAIL=${KB_TEST_TAIL:-15}
pass=0 failed=0
fails=() times=()
for n in "$@"; do
    if [ -f "$dir/$n.result" ]; then
        read -r rc wall < "$dir/$n.result"
        times+=("$wall $n")
        if [ "$rc" = 0 ]; then pass=$((pass + 1)); else failed=$((failed + 1)); fails+=("$n|exit $rc, $wall s"); fi
    else
        failed=$((failed + 1)); fails+=("$n|did not run (a prerequisite failed to build: see make's output above)")
    fi
done
total=""
[ -f "$dir/started" ] && total=$(awk -v a="$(cat "$dir/started")" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
echo
echo "== $tier tier: $# tests${total:+ in $total s (build included)}, logs in $dir/"
for f in "${fails[@]+"${fails[@]}"}"; do
    n=${f%%|*}
    echo
    echo "FAILED: $n (${f#*|}): $dir/$n.log"
    [ -f "$dir/$n.log" ] && tail -n "$TAIL" "$dir/$n.log" | sed 's/^/    /'
done
if [ ${#times[@]} -gt 0 ]; then
    echo
    echo "slowest ten:"
    printf '%s\n' "${times[@]}" | sort -rn | head -10 | awk '{ printf "  %7.1f s  %s\n", $1, $2 }'
fi
echo
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
