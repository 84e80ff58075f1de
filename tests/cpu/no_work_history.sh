#!/usr/bin/env bash
# tests/cpu/no_work_history.sh -- the product speaks of itself only: no tracked file names a work
# period ("session" and a number) or an issue by number ("issue #" and a number; any case, also
# split over two lines). History lives in git and in the issue tracker; code, comments, docs, tests
# and file names say the fact itself ("measured on the H200: 4.2 ms", "docs/protocols.md").
# Another project's issue, named with it ("KernelBench issue #N", "upstream issue #N": the
# problem list and the paper's facts in reference/), is a citation, not this project's history.
# Binary files are not read. No build, no GPU.
# Prints each hit as file:line: text, then PASS or FAIL.
set -euo pipefail
cd "$(dirname "$0")/../.."
# (bracketed so that this file does not match itself)
pattern='[s]ession [0-9]|[i]ssue #[0-9]'
hits=$(git grep -I -n -i -E "$pattern" -- . | awk '
    { l = tolower($0); gsub(/(kernelbench|upstream) issue #[0-9]+/, "", l) }
    l ~ /session [0-9]|issue #[0-9]/' || [ $? = 1 ])
# the same split over two lines: a line ending in the word, the next starting (after comment
# leaders) with the number
split=$(git grep -I -n -i -E -A1 '([s]ession|[i]ssue #)$' -- . | awk '
    /^[^ ]*:[0-9]+:/ { held = $0; next }
    held != "" { t = $0; sub(/^[^ ]*-[0-9]+-/, "", t); sub(/^[[:space:]#*\/;-]*/, "", t)
                 if (t ~ /^[0-9]/) print held " ..."; held = "" }' || [ $? = 1 ])
if [ -n "$split" ]; then hits=$(printf '%s\n%s' "$hits" | sed '/^$/d'; printf '%s\n' "$split"); fi
names=$(git ls-files | grep -i -E "$pattern" || [ $? = 1 ])
n=0
if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | cut -c1-200
    n=$((n + $(printf '%s\n' "$hits" | wc -l)))
fi
if [ -n "$names" ]; then
    printf '%s\n' "$names" | sed 's/$/: (the file name)/'
    n=$((n + $(printf '%s\n' "$names" | wc -l)))
fi
if [ $n = 0 ]; then
    echo "PASS: no work-period or issue number in the tracked files"
    exit 0
fi
echo "FAIL: $n lines name a work period or an issue number (say the fact itself; the history is git's)"
exit 1
