#!/usr/bin/env bash
# tests/cpu/compile_all.sh -- every submission compiles as expected (the real nvcc, 250-odd runs,
# and the real builds of every KernelBench-format .py sample: the slow tier; that every problem
# object loads and validates is tests/cpu/problems_load.sh's). Run from the repository root with
# BUILD set (make test-slow does both); needs $BUILD/bin/kb-compile and nvcc, no GPU; the .py
# samples need a python with torch ($KB_PYTHON, which make sets from PYTHON).
#
# kb-compile runs on every submissions/<model>/levelN/<problem>/<sample>.cu and .py into a
# temporary directory (in parallel, one job per CPU; a .py through kbpy.build, with the light
# headers, docs/py-build.md). For demo-* models the outcome must be "ok", unless
# submissions/<model>/manifest.csv lists the sample with another expected outcome: a CSV whose
# header names the columns problem, sample and expected_compile (in any order, among others; an
# empty value means ok; a manifest without expected_compile expects ok everywhere). Other models'
# outcomes are reported, not judged (an LLM's sample may legitimately fail to compile). A table of
# every sample is printed. The outcomes are read by tests/cpu/check_problems.c (built here).
#   COMPILE_ONLY=REGEX   only the samples whose path (submissions/...) matches (grep -E)
#   KB_PY_CACHE=DIR      the .py builds' shared cache (default: a fresh one in the temporary
#                        directory, so every .py is really built; build/kbpy-cache reuses make's)
set -uo pipefail

BUILD=${BUILD:-build}
if [ ! -f Makefile ] || [ ! -d problems ]; then
    echo "compile_all.sh: run from the repository root" >&2
    exit 1
fi
BUILD_ABS=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "compile_all.sh: no build directory $BUILD" >&2; exit 1; }
KB_COMPILE=$BUILD_ABS/bin/kb-compile
if [ ! -x "$KB_COMPILE" ]; then
    echo "compile_all.sh: $KB_COMPILE missing (make $BUILD/bin/kb-compile)" >&2
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-compile-all.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

# ---- the submissions -------------------------------------------------------------------------------
if ! make -s --no-print-directory BUILD="$BUILD" "$BUILD/tests/check_problems" >"$tmp/make.log" 2>&1; then
    cat "$tmp/make.log"
    echo "FAIL: cannot build the outcome reader ($BUILD/tests/check_problems)"
    exit 1
fi
echo "== submissions"
mapfile -t subs < <(find submissions \( -path 'submissions/*/level*/*/*.cu' -o -path 'submissions/*/level*/*/*.py' \) \
    -type f | LC_ALL=C sort | grep -E -- "${COMPILE_ONLY:-.}")
if [ "${#subs[@]}" -eq 0 ]; then
    echo "FAIL: no submissions found under submissions/${COMPILE_ONLY:+ matching $COMPILE_ONLY}"
    exit 1
fi
PY_CACHE=${KB_PY_CACHE:-$tmp/kbpy-cache}
mkdir -p "$PY_CACHE"
chmod 755 "$tmp" "$PY_CACHE" # as root the builder's compilers run as uid 65534 and must reach the cache
PY_CACHE=$(cd "$PY_CACHE" && pwd)
n_py=$(printf '%s\n' "${subs[@]}" | grep -c '\.py$' || true)
if [ "$n_py" -gt 0 ] && ! "${KB_PYTHON:-python3}" -c 'import torch' >/dev/null 2>&1; then
    echo "FAIL: $n_py .py samples and no torch in ${KB_PYTHON:-python3} (set KB_PYTHON or PYTHON to a python with torch)"
    exit 1
fi

# expected outcome of a cell from its model's manifest (default ok)
expected_for() {
    local m=submissions/$1/manifest.csv
    [ -f "$m" ] || { echo ok; return; }
    awk -v p="$2" -v s="$3" '
        # RFC 4180 fields: quoted fields may hold commas and doubled quotes
        function split_csv(line, f,    n, i, c, q, cur) {
            n = 0; cur = ""; q = 0
            for (i = 1; i <= length(line); i++) {
                c = substr(line, i, 1)
                if (q) {
                    if (c == "\"" && substr(line, i + 1, 1) == "\"") { cur = cur c; i++ }
                    else if (c == "\"") q = 0
                    else cur = cur c
                } else if (c == "\"") q = 1
                else if (c == ",") { f[++n] = cur; cur = "" }
                else if (c != "\r") cur = cur c
            }
            f[++n] = cur
            for (i = 1; i <= n; i++) gsub(/^ +| +$/, "", f[i])
            return n
        }
        { delete f; split_csv($0, f) }
        NR == 1 { for (i in f) col[f[i]] = i
                  if (!col["expected_compile"]) { print "ok"; bad = 1; exit } # no compile expectations: all ok
                  if (!col["problem"] || !col["sample"]) { print "BADMANIFEST"; bad = 1; exit }
                  next }
        f[col["problem"]] == p && f[col["sample"]] == s { v = f[col["expected_compile"]]; print (v == "" ? "ok" : v); found = 1; exit }
        END { if (!found && !bad) print "ok" }' "$m"
}

# compile in parallel: one job per sample
compile_one() {
    local src=$1 cell=${1#submissions/}
    cell=${cell%.*}
    local model=${cell%%/*} rest=${cell#*/}
    local problem=${rest%/*} sample=${rest##*/}
    mkdir -p "$tmp/sub/$cell"
    if [ "${src##*.}" = py ]; then
        "$KB_COMPILE" --py-cache "$PY_CACHE" --py-dir py --src "$src" --out-so "$tmp/sub/$cell/kernel.py" \
            --out "$tmp/sub/$cell/compile.h5" --model "$model" --problem "$problem" --sample "$sample" \
            >"$tmp/sub/$cell/stdout" 2>&1
    else
        "$KB_COMPILE" --include include --src "$src" --out-so "$tmp/sub/$cell/kernel.so" --out "$tmp/sub/$cell/compile.h5" \
            --model "$model" --problem "$problem" --sample "$sample" >"$tmp/sub/$cell/stdout" 2>&1
    fi
    echo $? >"$tmp/sub/$cell/rc"
}
export -f compile_one
export KB_COMPILE tmp PY_CACHE
t0=$(date +%s)
printf '%s\0' "${subs[@]}" | xargs -0 -n 1 -P "$(nproc)" bash -c 'compile_one "$0"'
t1=$(date +%s)

printf '%-16s %-28s %-6s %-14s %-9s %-28s %6s  %s\n' model problem sample outcome verdict reasons wall_s check
n_ok=0
n_bad=0
for src in "${subs[@]}"; do
    cell=${src#submissions/}
    cell=${cell%.*}
    model=${cell%%/*}
    rest=${cell#*/}
    problem=${rest%/*}
    sample=${rest##*/}
    d=$tmp/sub/$cell
    rc=$(cat "$d/rc" 2>/dev/null || echo 99)
    if [ "$rc" != 0 ]; then
        printf '%-16s %-28s %-6s %-14s\n' "$model" "$problem" "$sample" "HARNESS-FAIL"
        sed 's/^/    /' "$d/stdout"
        fail=1
        n_bad=$((n_bad + 1))
        continue
    fi
    IFS=$'\t' read -r outcome verdict reasons wall detail < <("$BUILD_ABS/tests/check_problems" outcomes "$d/compile.h5")
    left=$(find "$d" -name '*.tmp.*')
    if [ -n "$left" ]; then
        echo "FAIL $cell: temporary files left: $left"
        fail=1
    fi
    check="-"
    case $model in
    demo-*)
        want=$(expected_for "$model" "$problem" "$sample")
        if [ "$want" = BADMANIFEST ]; then
            check="FAIL (submissions/$model/manifest.csv has expected_compile but no problem/sample columns)"
            fail=1
        elif [ "$outcome" = "$want" ]; then
            check="ok"
            [ "$want" = ok ] || check="ok (expected $want)"
        else
            check="FAIL (want $want)"
            fail=1
        fi
        ;;
    esac
    case $check in FAIL*) n_bad=$((n_bad + 1)) ;; *) n_ok=$((n_ok + 1)) ;; esac
    printf '%-16s %-28s %-6s %-14s %-9s %-28s %6s  %s\n' "$model" "$problem" "$sample" "$outcome" "$verdict" "$reasons" "$wall" "$check"
    case $check in FAIL*)
        echo "    detail: $detail"
        { grep -m 8 -i 'error' "$d/stdout" || sed -n '1,5p' "$d/stdout"; } | sed 's/^/    /' ;;
    esac
done
echo "compiled ${#subs[@]} samples in $((t1 - t0)) s: $n_ok as expected, $n_bad not"
exit $fail
