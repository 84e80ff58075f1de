#!/usr/bin/env bash
# tests/cpu/prompts.sh -- kb-prompts and `make prompts` (docs/prompts.md), no GPU.
#
#   1. The bytes of six prompts are pinned: L1/19 ReLU, L1/100 hinge loss (input-blind) and L2/1
#      (parameters, constructor arguments), each in both styles, against tests/fixtures/prompts/.
#      An intended change (a template, an example, include/kb/submission.h, a problem's .py):
#      `bash tests/cpu/prompts.sh --update` rewrites the fixtures; review the diff.
#   2. Reproducible: the same prompt twice is the same bytes, and a re-run leaves the file (and
#      its mtime) alone.
#   3. Input-blind: L1/90 and L1/100 show no get_inputs / get_init_inputs / constants, state the
#      constructor and shapes; --input-blind off brings them back; every problem can be rendered
#      in both styles, and input-blind too.
#   4. make prompts writes the files, and a second make prompts has nothing to do.
#   5. The worked examples are real: the .cu compiles (kb-compile, nvcc), the .py has a static
#      ModelNew and load_inline call (py/kbpy/extract.py).
# Run from the repository root with BUILD set (make test-sh does both).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
P=$B/bin/kb-prompts
FIX=tests/fixtures/prompts
GOLDEN="level1/019_relu level1/100_hinge_loss level2/001_conv2d_relu_biasadd"
make -s --no-print-directory BUILD="$B" "$P" "$B/bin/kb-compile" $(ls problems/level*/*.c | sed "s|^problems/|$B/problems/|; s|\.c$|.so|") >/dev/null ||
    { echo "FAIL: cannot build kb-prompts and the problems"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-prompts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
prompt() { # style id out [extra options]
    local s=$1 id=$2 out=$3
    shift 3
    "$P" --style "$s" --problem "$B/problems/$id.so" --spec "problems/$id.py" --out "$out" "$@"
}

# ---- 1. pinned bytes -----------------------------------------------------------------------------
for s in kernelbench abi; do
    for id in $GOLDEN; do
        if [ "${1:-}" = --update ]; then
            mkdir -p "$FIX/$s/$(dirname "$id")" && prompt $s $id "$FIX/$s/$id.txt" && echo "updated $FIX/$s/$id.txt"
            continue
        fi
        prompt $s $id "$tmp/p.txt" || { echo "FAIL: kb-prompts $s $id exited $?"; fail=1; continue; }
        if cmp -s "$tmp/p.txt" "$FIX/$s/$id.txt"; then
            echo "ok: $s $id: $(wc -c < "$tmp/p.txt") bytes as pinned"
        else
            echo "FAIL: $s $id differs from $FIX/$s/$id.txt (intended? bash tests/cpu/prompts.sh --update):"
            diff "$FIX/$s/$id.txt" "$tmp/p.txt" | head -20
            fail=1
        fi
    done
done
[ "${1:-}" = --update ] && exit 0

# ---- 2. reproducible, and left alone -------------------------------------------------------------
prompt abi level1/100_hinge_loss "$tmp/a.txt" && prompt abi level1/100_hinge_loss - > "$tmp/b.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || { echo "FAIL: two renders of one prompt differ"; fail=1; }
touch -d '2001-01-01' "$tmp/a.txt"
prompt abi level1/100_hinge_loss "$tmp/a.txt"
[ "$(stat -c %Y "$tmp/a.txt")" = "$(date -d 2001-01-01 +%s)" ] || { echo "FAIL: an unchanged prompt was rewritten"; fail=1; }
echo "x" >> "$tmp/a.txt"
prompt abi level1/100_hinge_loss "$tmp/a.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || { echo "FAIL: a changed prompt file was not rewritten"; fail=1; }
echo "ok: reproducible byte for byte; an unchanged prompt keeps its mtime, a changed one is rewritten"

# ---- 3. input-blind --------------------------------------------------------------------------------
spec_part() { awk '/^The model to make faster:/ {on = 1} on' "$1"; }
for s in kernelbench abi; do
    prompt $s level1/090_cumprod "$tmp/b90.txt" || { echo "FAIL: $s L1/90 exited $?"; fail=1; }
    prompt $s level1/100_hinge_loss "$tmp/b100.txt"
    prompt $s level1/100_hinge_loss "$tmp/o100.txt" --input-blind off
    for f in b90 b100; do
        spec_part "$tmp/$f.txt" | grep -q "get_inputs\|get_init_inputs\|batch_size\|input_shape\|^dim = " &&
            { echo "FAIL: $s $f: the input-blind prompt shows the inputs:"; spec_part "$tmp/$f.txt" | grep "get_\|batch_size\|input_shape\|^dim"; fail=1; }
    done
    grep -q "constructs .*Model(dim=1)" "$tmp/b90.txt" || { echo "FAIL: $s L1/90: no Model(dim=1)"; fail=1; }
    grep -q "constructs .*Model()" "$tmp/b100.txt" || { echo "FAIL: $s L1/100: no Model()"; fail=1; }
    grep -q "(32768, 32768)" "$tmp/b100.txt" && grep -q "(32768,)" "$tmp/b100.txt" ||
        { echo "FAIL: $s L1/100: the shapes are not stated"; fail=1; }
    grep -q "for any values" "$tmp/b100.txt" || { echo "FAIL: $s L1/100: no word on the values"; fail=1; }
    spec_part "$tmp/o100.txt" | grep -q "def get_inputs" || { echo "FAIL: $s --input-blind off: no get_inputs"; fail=1; }
    spec_part "$tmp/o100.txt" | grep -q "for any values" && { echo "FAIL: $s --input-blind off: input-blind prose"; fail=1; }
done
echo "ok: L1/90 and L1/100 input-blind in both styles (constructor and shapes in prose); --input-blind off restores the file"
ls problems/level*/*.py | sed 's|^problems/||; s|\.py$||' > "$tmp/ids"
for mode in auto on; do
    for s in kernelbench abi; do
        [ $mode = on ] && [ $s = abi ] && continue # the blind spec is the same for both styles
        # forced input-blind (on): a problem whose class itself uses a module constant (L3/33's
        # hidden state from the module's batch_size, as KernelBench's) is refused by design; that
        # refusal is noted, not failed, since such a problem without the flag is never shown blind
        # (with the flag, the auto sweep renders it blind and fails on it)
        xargs -P "$(nproc)" -I{} sh -c "e=\$('$P' --style $s --problem '$B/problems/{}.so' --spec 'problems/{}.py' --input-blind $mode --out - 2>&1 >/dev/null) ||
            { case \"\$e\" in *'uses the module constant'*) [ $mode = on ] && { echo '{}' >> '$tmp/sweep.const'; exit 0; } ;; esac;
              echo '{} $s $mode' >> '$tmp/sweep.bad'; echo \"\$e\" >> '$tmp/sweep.err'; }" < "$tmp/ids"
    done
done
if [ -s "$tmp/sweep.bad" ]; then
    echo "FAIL: prompts that cannot be made:"; cat "$tmp/sweep.bad" "$tmp/sweep.err" | head -20; fail=1
else
    echo "ok: all $(wc -l < "$tmp/ids") problems render in both styles, and input-blind$([ -s "$tmp/sweep.const" ] &&
        echo " (but $(sort -u "$tmp/sweep.const" | tr '\n' ' ')whose class uses a module constant: not input-blind problems)")"
fi

# ---- 4. make prompts -------------------------------------------------------------------------------
if make -s --no-print-directory BUILD="$B" ARTIFACTS="$tmp/art" PROBLEM=level1/019,level1/090 prompts > "$tmp/make.log" 2>&1 &&
   [ "$(find "$tmp/art/prompts" -name '*.txt' | wc -l)" = 4 ] &&
   cmp -s "$tmp/art/prompts/kernelbench/level1/019_relu.txt" "$FIX/kernelbench/level1/019_relu.txt"; then
    # a second real run writes no prompt (not `make -q`: in a tree whose binaries were relinked
    # with unchanged code, the tools' content hashes keep their old dates, and only a real run
    # can tell that nothing depends on them having changed)
    again=$(make --no-print-directory V=1 BUILD="$B" ARTIFACTS="$tmp/art" PROBLEM=level1/019,level1/090 prompts 2>&1)
    ! grep -q 'bin/kb-prompts ' <<< "$again" &&
        echo "ok: make prompts writes artifacts/prompts/<style>/levelN/NNN_name.txt; a second make has nothing to do" ||
        { echo "FAIL: make prompts is not up to date after a run"; fail=1; }
else
    echo "FAIL: make prompts:"; cat "$tmp/make.log"; find "$tmp/art" -type f; fail=1
fi

# ---- 5. the worked examples ------------------------------------------------------------------------
if "$B/bin/kb-compile" --src prompts/example/muladd.cu --out-so "$tmp/ex/k.so" --out "$tmp/ex/compile.h5" --model example \
     --problem level1/019_relu --sample s0 > "$tmp/ex.log" 2>&1 &&
   [ "$("$B/bin/kb-h5get" "$tmp/ex/compile.h5" / outcome)" = ok ] &&
   [ "$("$B/bin/kb-h5get" "$tmp/ex/compile.h5" /symbols verdict)" = clean ]; then
    echo "ok: prompts/example/muladd.cu compiles against the ABI, symbol scan clean"
else
    echo "FAIL: prompts/example/muladd.cu does not compile cleanly:"; cat "$tmp/ex.log"; fail=1
fi
py=$(command -v python3 || true)
if [ -n "$py" ]; then
    rep=$(cd py && "$py" -m kbpy.extract ../prompts/example/muladd_new.py)
    grep -q '"model_new": true' <<< "$rep" && grep -q '"static": true' <<< "$rep" && grep -q '"launches_without_stream": 0' <<< "$rep" &&
        echo "ok: prompts/example/muladd_new.py: static ModelNew and load_inline, every launch on a stream" ||
        { echo "FAIL: prompts/example/muladd_new.py: $rep" | head -20; fail=1; }
fi
[ $fail = 0 ] && echo "prompts: pinned, reproducible, input-blind where flagged, made by make, examples real"
exit $fail
