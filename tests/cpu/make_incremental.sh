#!/usr/bin/env bash
# tests/cpu/make_incremental.sh -- the Makefile's graph is the pipeline: it redoes exactly what
# changed and nothing else. Run from the repository root with BUILD set (make test-sh does).
#
# In a temporary copy of the repository (tracked and untracked-but-not-ignored files, mtimes
# kept) with a copy of $BUILD (binaries, libraries, problem objects; not the compiled samples or
# stamps), for MODEL=demo-naive:
#   1. `make compile` compiles every cell (real nvcc runs), one [compile] line each;
#   2. `make -q compile` then says up to date (exit 0), and a second `make compile` prints no
#      [compile] line (its time is reported);
#   3. touching one submission recompiles exactly that cell;
#   4. a knob of the compile stage (COMPILE_TIMEOUT=301) recompiles every cell, and going back
#      to the default value recompiles them again (the stamp holds the value, not a date);
#   4p. a .py sample's record depends on the Python and torch it is built for (stand-in
#      interpreters): the same one leaves it up to date, another queues every .py sample, no .cu;
#   5. GPU stages, without a GPU: the committed artifacts of
#      results/2026-11-29-demo-models/artifacts (if that directory exists) are copied in and
#      touched newer than everything; `make -n all` (over the problems the archive covers) must
#      then list no stage command;
#   6. edits by content, in real runs of `make cells baselines` with the GPU stages replaced by a
#      recorder (STAGE_RUN=tests/fixtures/fake-stage.sh; everything else, builds included, real): a
#      comment in ops/pool.cu rebuilds the library but runs no stage; a code change there runs the
#      pooling problem's stages only; touching the op-library headers rebuilds what includes them
#      and runs no stage and recompiles no submission (the stages' binaries and the references
#      count by content); touching kb/submission.h recompiles every submission.
#      5 and 6 are skipped with a message while results/2026-11-29-demo-models/artifacts does not exist.
# This is the slow tier's test (real nvcc runs). The fast tier runs steps 1-4p through
# tests/cpu/make_incremental_fake.sh, which sets:
#   INCR_SUBSET=level1/001,...  the problems of the compile steps (default: the twelve below); the
#                               touched cell of step 3 is the last sample of the last one
#   INCR_NVCC=PATH              kb-compile's nvcc (make compile NVCC=PATH), a stand-in such as
#                               tests/fixtures/fake-nvcc; steps 5 and 6 are then not run (they
#                               rebuild the op library, which needs the real nvcc)
set -uo pipefail
# `make -n all` here is a plan, not a run: no GPU needed (the Makefile's up-front GPU check off)
export KB_SKIP_GPU_CHECK=1

MODEL=demo-naive
BUILD=${BUILD:-build}
if [ ! -f Makefile ] || [ ! -d submissions/$MODEL ]; then
    echo "make_incremental.sh: run from the repository root (submissions/$MODEL needed)" >&2
    exit 1
fi
BUILD_SRC=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "make_incremental.sh: no build directory $BUILD" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-make-incr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
FAIL() { echo "FAIL: $*"; fail=1; }

# ---- the copy ----------------------------------------------------------------------------------
mkdir -p "$tmp/repo"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -xf - -C "$tmp/repo"
mkdir -p "$tmp/build"
for d in bin lib obj problems; do
    [ -d "$BUILD_SRC/$d" ] && cp -a "$BUILD_SRC/$d" "$tmp/build/"
done
B=$tmp/build
cd "$tmp/repo" || exit 1
# The compile steps run over a subset of the problems (the twelve the archived H200 artifacts
# cover): every cell of all 100 would be ~300 nvcc runs for steps 1 and 4; the graph is the same.
SUBSET=${INCR_SUBSET:-level1/001,level1/003,level1/019,level1/023,level1/026,level1/033,level1/040,level1/042,level1/047,level1/055,level1/057,level1/095}
cells=0
for p in ${SUBSET//,/ }; do
    cells=$((cells + $(find submissions/$MODEL/${p%%/*} -path "submissions/$MODEL/${p}_*/*.cu" | wc -l)))
done
echo "copy: $(find . -type f | wc -l) files, $cells $MODEL cells of $(tr ',' '\n' <<< "$SUBSET" | wc -l) problems, build copied from $BUILD_SRC"

# (a PROBLEM= on the command line of mk overrides the subset)
mk() { make --no-print-directory BUILD="$B" MODEL=$MODEL PROBLEM="$SUBSET" ${INCR_NVCC:+NVCC="$INCR_NVCC"} "$@"; }
# a stage line, after its progress tag "[k/N, ETA ...] " when make shows one
CL='^(\[[0-9]+/[0-9]+[^]]*\] )?\[compile'
compile_lines() { grep -cE "$CL" "$1" || true; }

# ---- 1. a full compile ----------------------------------------------------------------------------
t0=$(date +%s.%N)
mk compile >"$tmp/1.log" 2>&1 || { FAIL "make compile exited $?"; tail -30 "$tmp/1.log"; }
t1=$(date +%s.%N)
n=$(compile_lines "$tmp/1.log")
[ "$n" = "$cells" ] || { FAIL "first make compile printed $n [compile] lines, want $cells"; grep -E "$CL" "$tmp/1.log"; }
# progress: every line numbered k/N with N = the cells to compile, an ETA until the last; the summary
grep -qE "^\[1/$cells, ETA [0-9]+m[0-9]{2}s\] \[compile" "$tmp/1.log" && grep -qE "^\[$cells/$cells\] \[compile" "$tmp/1.log" &&
    grep -q "^== ran $cells stage commands in .*: compile $cells" "$tmp/1.log" && grep -q "^== every stage command passed" "$tmp/1.log" ||
    FAIL "make compile's progress lines or summary: $(grep -E '^\[|^==' "$tmp/1.log" | sed -n '1p;$p')"
echo "1. make compile: $n cells compiled in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"

# ---- 2. nothing to do ----------------------------------------------------------------------------
mk -q compile >"$tmp/2q.log" 2>&1
q=$?
if [ "$q" != 0 ]; then
    FAIL "make -q compile exits $q right after a complete make compile (want 0: up to date)"
    mk -n compile 2>&1 | grep -v '^kb:' | head -5 | sed 's/^/    make -n would run: /'
fi
t0=$(date +%s.%N)
mk compile >"$tmp/2.log" 2>&1 || FAIL "second make compile exited $?"
t1=$(date +%s.%N)
dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
n=$(compile_lines "$tmp/2.log")
[ "$n" = 0 ] || { FAIL "second make compile recompiled $n cells"; grep -E "$CL" "$tmp/2.log"; }
grep -q "^== nothing to run: everything is up to date" "$tmp/2.log" || FAIL "an up-to-date make compile does not say so"
awk -v t="$dt" 'BEGIN { exit !(t < 30) }' || FAIL "a no-op make compile took $dt s"
echo "2. make -q compile: exit $q; second make compile: $n cells in $dt s"

# ---- 3. one touched submission -------------------------------------------------------------------
last=${SUBSET##*,}
victim=$(find submissions/$MODEL -path "submissions/$MODEL/${last}_*/*.cu" | LC_ALL=C sort | tail -1)
cell=${victim#submissions/$MODEL/}
cell=${cell%.cu}
sleep 1.1 # coarse file systems: make compares mtimes
touch "$victim"
mk compile >"$tmp/3.log" 2>&1 || FAIL "make compile after touch exited $?"
n=$(compile_lines "$tmp/3.log")
problem=${cell%/*}
sample=${cell##*/}
if [ "$n" != 1 ] || ! grep -E "$CL" "$tmp/3.log" | grep -q "$problem .* $sample "; then
    FAIL "after touching $victim: $n [compile] lines, want exactly one naming $problem $sample"
    grep -E "$CL" "$tmp/3.log"
fi
echo "3. touch $victim: $n cell recompiled: $(grep -E "$CL" "$tmp/3.log" | tr -s ' ')"

# ---- 4. a knob ----------------------------------------------------------------------------------
mk compile COMPILE_TIMEOUT=301 >"$tmp/4.log" 2>&1 || FAIL "make compile COMPILE_TIMEOUT=301 exited $?"
n=$(compile_lines "$tmp/4.log")
[ "$n" = "$cells" ] || FAIL "COMPILE_TIMEOUT=301 recompiled $n cells, want all $cells"
mk compile COMPILE_TIMEOUT=301 >"$tmp/4b.log" 2>&1
n2=$(compile_lines "$tmp/4b.log")
[ "$n2" = 0 ] || FAIL "make compile COMPILE_TIMEOUT=301 a second time recompiled $n2 cells"
a=$(find "$B/sub/$MODEL" -name compile.h5 | head -1)
if [ -n "$a" ] && [ -x "$B/bin/kb-h5get" ]; then
    v=$("$B/bin/kb-h5get" "$a" /config compile_timeout_s 2>/dev/null)
    [ "$v" = 301 ] || FAIL "$a records compile_timeout_s=$v, want 301"
fi
mk compile >"$tmp/4c.log" 2>&1
n3=$(compile_lines "$tmp/4c.log")
[ "$n3" = "$cells" ] || FAIL "back to the default COMPILE_TIMEOUT recompiled $n3 cells, want all $cells"
echo "4. COMPILE_TIMEOUT=301: $n cells recompiled, then $n2 on a repeat, $n3 back at the default"

# ---- 4p. the Python toolchain of the .py samples -------------------------------------------------
# A .py sample's extensions import only into the Python and torch they were built for: a change of
# either must rebuild the .py samples (and no .cu one). Two stand-in interpreters name two
# toolchains (tools/py-toolchain.py's line; with -n / -q nothing else runs them); the compile
# records are stand-ins too, written after the first toolchain's stamp.
if [ -d submissions/demo-extract/level1/019_relu ]; then
    for t in A B; do
        printf '#!/bin/sh\necho "cpython-3%s /stand-in/python-%s torch 2.11.0 /stand-in/torch"\n' "$t" "$t" > "$tmp/python-$t"
        chmod +x "$tmp/python-$t"
    done
    pymk() { mk MODEL=demo-extract PROBLEM=level1/019 PYTHON="$tmp/python-$1" "${@:2}"; }
    pymk A "$B/stamps/models/demo-extract.ok" >/dev/null 2>&1 || FAIL "the demo-extract model check failed"
    pymk A -n compile >/dev/null 2>&1
    st=$B/stamps/py-toolchain.stamp
    grep -q 'python-A' "$st" 2>/dev/null || FAIL "PYTHON=python-A: $st holds '$(cat "$st" 2>/dev/null)'"
    sleep 1.1
    for s in s0 s1; do
        for d in "$B/sub" artifacts/paper; do
            mkdir -p "$d/demo-extract/level1/019_relu/$s" && touch "$d/demo-extract/level1/019_relu/$s/compile.h5"
        done
    done
    pymk A -q compile; qa=$?
    [ "$qa" = 0 ] || FAIL "make -q compile with the same Python: exit $qa, want 0 (up to date)"
    sleep 1.1
    np=$(pymk B -n compile 2>/dev/null | grep -c -- '--src submissions/demo-extract/.*\.py ' || true)
    [ "$np" = 2 ] || FAIL "another Python (stand-in B): $np .py samples queued for a rebuild, want 2"
    grep -q 'python-B' "$st" || FAIL "PYTHON=python-B: $st holds '$(cat "$st")'"
    mk -q compile PYTHON="$tmp/python-B"; qc=$?
    [ "$qc" = 0 ] || FAIL "another Python made the $MODEL (.cu) samples out of date (make -q exit $qc)"
    echo "4p. Python toolchain: same one up to date (make -q $qa); another queues $np .py samples; .cu samples unaffected (make -q $qc)"
fi

# ---- 5. GPU stages on committed artifacts --------------------------------------------------------
if [ -n "${INCR_NVCC:-}" ]; then
    echo "5, 6: not run with INCR_NVCC=$INCR_NVCC (they rebuild the op library with the real nvcc: make_incremental.sh)"
elif [ -d results/2026-11-29-demo-models/artifacts ]; then
    # the stage binaries first (a copied build older than its sources would relink them, and
    # every artifact would be older than its stage)
    mk build >"$tmp/5b.log" 2>&1 || FAIL "make build in the copy failed"
    rm -rf artifacts
    cp -a results/2026-11-29-demo-models/artifacts artifacts
    sleep 1.1
    # one timestamp for every file: touching them one by one could leave a prerequisite
    # (sanity-check.h5) a few nanoseconds newer than its dependant (verify-distributions.h5)
    stamp=$(date +%Y%m%d%H%M.%S)
    find artifacts -type f -exec touch -t "$stamp" {} +
    # the problems the archive covers (it predates the others)
    ARCHIVED=$(ls artifacts/paper/baseline/level1 | sed 's|^|level1/|' | paste -sd, -)
    stage_cmds() { grep -E 'kb-(compile|sanity-check|verify-distributions|memory-profile|baseline-time) ' "$1" || true; }
    mk -n all PROBLEM="$ARCHIVED" >"$tmp/5.log" 2>&1
    stages=$(stage_cmds "$tmp/5.log")
    if [ -n "$stages" ]; then
        FAIL "with up-to-date artifacts, make -n all would still run $(echo "$stages" | wc -l) stage commands:"
        echo "$stages" | head -5 | sed 's/^/    /'
    fi
    echo "5. make -n all on results/2026-11-29-demo-models/artifacts: $(echo -n "$stages" | grep -c . || true) stage commands"

    # ---- 6. what an edit re-runs, in real runs: the GPU stages replaced by a recorder -------------
    # (tests/fixtures/fake-stage.sh writes an empty artifact where the stage would; the builds are real)
    export KB_FAKE_STAGE_LOG=$tmp/stages.log
    FAKE=$PWD/tests/fixtures/fake-stage.sh
    run_gpu() { : > "$KB_FAKE_STAGE_LOG"; mk cells baselines PROBLEM="$ARCHIVED" STAGE_RUN="$FAKE" >"$tmp/$1.log" 2>&1 ||
        FAIL "$1: make cells baselines exited $?"; grep -c . "$KB_FAKE_STAGE_LOG" || true; }
    n=$(run_gpu 6-0)
    [ "$n" = 0 ] || { FAIL "up-to-date artifacts: a real run ran $n stages"; head -3 "$KB_FAKE_STAGE_LOG"; }
    # (a) a comment in ops/pool.cu: the library is rebuilt, no stage runs
    sleep 1.1
    sed -i '1i /* a comment added by make_incremental.sh */' ops/pool.cu
    n=$(run_gpu 6a)
    grep -q "ops/pool.cu" "$tmp/6a.log" || FAIL "a comment in ops/pool.cu did not rebuild pool.o"
    [ "$n" = 0 ] || { FAIL "a comment in ops/pool.cu ran $n stages:"; head -3 "$KB_FAKE_STAGE_LOG"; }
    echo "6a. a comment in ops/pool.cu: library rebuilt, $n stages ran"
    # (b) a code change in ops/pool.cu: the pooling problems' baselines and cells only
    sleep 1.1
    sed -i '1i #define KB_MAKE_INCREMENTAL_EDIT 1' ops/pool.cu
    n=$(run_gpu 6b)
    others=$(grep -v maxpool "$KB_FAKE_STAGE_LOG" | grep -c . || true)
    [ "$n" -gt 0 ] && [ "$others" = 0 ] ||
        { FAIL "a code edit in ops/pool.cu ran $n stages, $others of them not pooling"; grep -v maxpool "$KB_FAKE_STAGE_LOG" | head -3; }
    echo "6b. a code edit in ops/pool.cu: $n stages ran, all for the pooling problem ($(cut -d' ' -f1 "$KB_FAKE_STAGE_LOG" | sort | uniq -c | tr -s ' ' | paste -sd, -))"
    # (c) headers touched, no code changed: objects rebuilt, binaries relinked to the same code;
    # no stage runs and no submission recompiles (they include only kb/submission.h)
    sleep 1.1
    touch include/kb/ops.h include/kb/problem.h include/kb/ref.h include/kb/ref/pool.h
    n=$(run_gpu 6c)
    [ "$n" = 0 ] || { FAIL "touching headers ran $n stages:"; head -3 "$KB_FAKE_STAGE_LOG"; }
    mk compile >"$tmp/6c-compile.log" 2>&1 || FAIL "make compile after touching headers exited $?"
    nc=$(compile_lines "$tmp/6c-compile.log")
    [ "$nc" = 0 ] || FAIL "touching the op-library headers recompiled $nc submissions"
    sleep 1.1
    touch include/kb/submission.h
    mk compile >"$tmp/6d.log" 2>&1 || FAIL "make compile after touching kb/submission.h exited $?"
    n2=$(compile_lines "$tmp/6d.log")
    [ "$n2" = "$cells" ] || FAIL "touching kb/submission.h recompiled $n2 submissions, want all $cells"
    echo "6c. op-library headers touched: $n stages ran, $nc submissions recompiled; kb/submission.h touched: $n2 recompiled"
else
    echo "5. SKIPPED: results/2026-11-29-demo-models/artifacts does not exist yet (the GPU-stage check needs committed artifacts)"
fi

[ "$fail" = 0 ] && echo "make is incremental: full, no-op, one cell, knob change"
exit $fail
