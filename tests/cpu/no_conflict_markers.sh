#!/usr/bin/env bash
# CPU suite: no tracked file holds a merge's conflict markers (a line starting "<<<<<<< " or
# ">>>>>>> "): a merge resolved in part and committed with `git add -A` leaves them in text that
# no build reads (docs, READMEs), where nothing else would notice. No build needed; run from the
# repository root.
set -uo pipefail
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "no_conflict_markers.sh: SKIP (not a git checkout)"
    exit 0
fi
hits=$(git grep -n -I -E '^(<<<<<<<|>>>>>>>) ' -- . ':!tests/cpu/no_conflict_markers.sh' || true)
if [ -n "$hits" ]; then
    echo "$hits" | head -20
    echo "FAIL: $(echo "$hits" | wc -l) conflict-marker lines in tracked files (resolve the merge: keep one side or write both)"
    exit 1
fi
echo "ok: no conflict markers in $(git ls-files | wc -l) tracked files"
