#!/usr/bin/env bash
# py-build-cost.sh [-j N] [--torch-baseline] [--no-pch] [--no-cache] [--keep] DIR... -- what building
# KernelBench-format (.py) submissions costs with kbpy.build: every sK.py under the DIRs (found
# recursively), N builds at a time (default nproc), one COLD cache shared by this run (so the first
# build of each flag set pays the precompiled header). Prints per-file status, core-seconds (user+sys
# of every child, the build's own getrusage accounting) and wall, then the median and p90 of
# core-seconds and the total wall. --torch-baseline also builds the first 3 files that have a
# load_inline call with torch's own load_inline, one process per file, build_directory in a temp
# dir, side by side (their calls are read with kbpy.extract: the file is never run, here either).
# Env: KB_PYTHON (a python with torch; default python3), BENCH_TIMEOUT (per build, default 600).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc) baseline=0 extra=() keep=0 dirs=()
while [ $# -gt 0 ]; do
    case $1 in
        -j) jobs=$2; shift 2 ;;
        -j*) jobs=${1#-j}; shift ;;
        --torch-baseline) baseline=1; shift ;;
        --no-pch|--no-cache|--no-light) extra+=("$1"); shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        -*) echo "py-build-cost.sh: unknown option $1" >&2; exit 2 ;;
        *) dirs+=("$1"); shift ;;
    esac
done
[ ${#dirs[@]} -gt 0 ] || { echo "usage: bench/py-build-cost.sh [-j N] [--torch-baseline] [--no-pch] [--no-cache] DIR..." >&2; exit 2; }
PY=${KB_PYTHON:-python3}
"$PY" -c 'import torch' 2>/dev/null || { echo "torch not importable by $PY: install it (pip install torch)" >&2; exit 1; }
export PYTHONPATH="$PWD/py${PYTHONPATH:+:$PYTHONPATH}"
work=$(mktemp -d /tmp/py-build-cost.XXXXXX)
chmod 755 "$work"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
mapfile -t files < <(find "${dirs[@]}" -name 's[0-9]*.py' -type f | sort)
[ ${#files[@]} -gt 0 ] || { echo "no sK.py under ${dirs[*]}" >&2; exit 1; }
echo "# ${#files[@]} files, $jobs at a time, cold cache $work/cache ${extra[*]:-}"
t0=$(date +%s.%N)
i=0
for f in "${files[@]}"; do
    echo "$i $f"
    i=$((i + 1))
done | xargs -P "$jobs" -L 1 bash -c 'nice "$0" -m kbpy.build --src "$2" --out-dir "'"$work"'/out/$1" \
    --cache "'"$work"'/cache" --timeout "${BENCH_TIMEOUT:-600}" --jobs 2 '"${extra[*]:-}"' 2>/dev/null || echo "build of $2 exited $?" >&2' "$PY"
t1=$(date +%s.%N)
"$PY" - "$work" "$t0" "$t1" "${files[@]}" <<'PYEOF'
import json, os, statistics, sys
work, t0, t1, files = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
rows = []
print(f"{'status':<14} {'core_s':>8} {'wall_s':>8} {'pch_s':>7} {'cached':>6}  file")
for i, f in enumerate(files):
    try:
        with open(os.path.join(work, "out", str(i), "manifest.json")) as fh:
            m = json.load(fh)
    except OSError:
        print(f"{'no manifest':<14} {'':>8} {'':>8} {'':>7} {'':>6}  {f}")
        continue
    pch = sum(s["core_s"] for e in m["extensions"] for s in e.get("steps", []) if s["what"] == "pch")
    cached = any(e.get("cached") for e in m["extensions"])
    nbuilt = sum(1 for e in m["extensions"] if e.get("steps"))
    rows.append((m["core_s"], m["wall_s"], pch, nbuilt, f))
    print(f"{m['status']:<14} {m['core_s']:8.1f} {m['wall_s']:8.1f} {pch:7.1f} {str(cached):>6}  {f}"
          + (f"  ({m['reason'][:80]})" if m["reason"] else ""))
built = [r for r in rows if r[3] > 0]
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p * (len(v) - 1))))] if v else float("nan")
for label, sel in (("all files", rows), ("files that compiled something", built)):
    core = [r[0] for r in sel]
    nopch = [r[0] - r[2] for r in sel]
    print(f"# {label}: n={len(sel)} core-s median {q(core, .5):.1f} p90 {q(core, .9):.1f}"
          f" (without the one-off PCH builds: median {q(nopch, .5):.1f} p90 {q(nopch, .9):.1f})")
print(f"# total wall {t1 - t0:.1f} s")
PYEOF
[ "$baseline" = 1 ] || exit 0
echo "# torch baseline: torch.utils.cpp_extension.load_inline, one process per file (MAX_JOBS=2)"
n=0
for f in "${files[@]}"; do
    [ $n -lt 3 ] || break
    bd=$(mktemp -d "$work/torch.XXXXXX")
    out=$(TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0+PTX} MAX_JOBS=2 nice "$PY" - "$f" "$bd" <<'PYEOF' 2>&1 | tail -1
import os, resource, sys, time
from kbpy import extract
rep = extract.extract(sys.argv[1])
calls = [c for c in rep["calls"] if c["static"] and c["norm"]]
if not calls:
    print("skip")
    sys.exit(0)
import torch.utils.cpp_extension as ce
t = time.time()
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
me0 = resource.getrusage(resource.RUSAGE_SELF)
for i, c in enumerate(calls):
    n = dict(c["norm"])
    n.pop("sycl_sources"); n.pop("extra_sycl_cflags")
    d = os.path.join(sys.argv[2], str(i)); os.makedirs(d)
    try:
        ce.load_inline(build_directory=d, **n)
        st = "ok"
    except Exception as e:
        st = "failed"
r = resource.getrusage(resource.RUSAGE_CHILDREN)
me = resource.getrusage(resource.RUSAGE_SELF)
core = (r.ru_utime - r0.ru_utime) + (r.ru_stime - r0.ru_stime) + (me.ru_utime - me0.ru_utime) + (me.ru_stime - me0.ru_stime)
print(f"{st} {core:.1f} {time.time() - t:.1f}")
PYEOF
)
    [ "$out" = skip ] && continue
    read -r st core wall <<< "$out"
    printf '%-14s %8s %8s %7s %6s  %s (torch)\n' "$st" "$core" "$wall" "" "" "$f"
    n=$((n + 1))
done
