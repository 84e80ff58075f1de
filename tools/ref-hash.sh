#!/usr/bin/env bash
# tools/ref-hash.sh OUT PROBLEM_OBJ OPS_OBJ... -- the content hash of one problem's reference code
# in the op library, written to OUT only when it changes (so Make re-runs a problem's baselines and
# cells exactly when the op-library code its reference runs has changed, not when a file is touched
# or a comment edited; a problem's own source is covered by its .so).
#
# What is hashed: the op-library objects the problem reaches (its undefined symbols, then theirs,
# to a fixed point, from nm), and for each the source file it is built from and the project
# headers it includes (its .d file; a family's own kb/ref/<family>.h only where that family is
# reached), each with comments and blank space stripped (the compiler's
# -fpreprocessed pass: tokens only, macros not expanded). The granularity is the op source file:
# an edit to ops/pool.cu re-runs the pooling problems and nothing else.
set -euo pipefail
out=$1 pobj=$2
shift 2
cache=$(dirname "$out")/.src
mkdir -p "$cache"

declare -A def
for o in "$@"; do
    while read -r sym; do def[$sym]=$o; done < <(nm --defined-only -g "$o" 2>/dev/null | awk 'NF == 3 { print $3 }')
done

declare -A seen
queue=("$pobj")
objs=()
while [ ${#queue[@]} -gt 0 ]; do
    o=${queue[0]}
    queue=("${queue[@]:1}")
    while read -r sym; do
        d=${def[$sym]:-}
        if [ -n "$d" ] && [ -z "${seen[$d]:-}" ]; then
            seen[$d]=1
            objs+=("$d")
            queue+=("$d")
        fi
    done < <(nm -u "$o" 2>/dev/null | awk '{ print $NF }')
done

# stripped-content hash of one file, cached by its raw content
stripped() {
    local f=$1 raw key
    raw=$(sha256sum < "$f" | cut -c1-64)
    key=$cache/$(tr '/' '_' <<< "$f")
    if [ -f "$key" ] && [ "$(cut -d' ' -f1 "$key")" = "$raw" ]; then
        cut -d' ' -f2 "$key"
        return
    fi
    local h
    h=$(gcc -fpreprocessed -dD -E -P -x c++ "$f" 2>/dev/null | tr -s ' \t\n' | sha256sum | cut -c1-64)
    echo "$raw $h" > "$key"
    echo "$h"
}

{
    for o in "${objs[@]}"; do
        stem=${o##*/}
        stem=${stem%.o}
        src=
        for c in ops/"$stem".cu ops/"$stem".c; do [ -f "$c" ] && src=$c && break; done
        [ -n "$src" ] || { echo "ref-hash: no source for $o" >&2; exit 1; }
        files=("$src")
        dfile=${o%.o}.d
        if [ -f "$dfile" ]; then
            while read -r h; do files+=("$h"); done < <(tr -s ' \\' '\n\n' < "$dfile" | grep -E '^(include/kb/|ops/).*\.(h|cuh)$' | sort -u || true)
        fi
        for f in "${files[@]}"; do
            # a family's header (kb/ref/<family>.h) counts for the problems that reach that family
            # only: every op source includes all of them through kb/ref.h (a header with no source
            # of its name, like conv.h whose ops live in dnn.cu, always counts)
            case $f in include/kb/ref/*.h)
                fam=${f##*/}; fam=${fam%.h}
                [ -f "ops/$fam.cu" ] || [ -f "ops/$fam.c" ] || { echo "$f $(stripped "$f")"; continue; }
                in_closure=
                for x in "${objs[@]}"; do [ "${x##*/}" = "$fam.o" ] && in_closure=1; done
                [ -n "$in_closure" ] || continue ;;
            esac
            echo "$f $(stripped "$f")"
        done
    done
} | sort -u > "$out.new"

if cmp -s "$out.new" "$out"; then
    rm -f "$out.new"
else
    mv "$out.new" "$out"
fi
