#!/usr/bin/env bash
# tools/gpu-host.sh JOB [VAR=value ...] -- run one job on a GPU host, from the repository root,
# within a wall-clock budget, and leave its logs and one compressed tarball in OUT.
#
#   build                  make build and the GPU tests' binaries (DEPS_PREFIX below)
#   suite                  build, then make test-gpu (tests/gpu/run.sh); its log and CSVs kept
#   all MODEL=x [VAR=..]   build, then make -k all with the given make variables (PROTOCOL=,
#                          PROBLEM=, any other): the artifacts tree and its tables archived
#   fidelity [PROBLEM=..]  build, then make -k fidelity: the fidelity artifacts and fidelity.csv
#   carry                  on the machine WITHOUT a GPU, before the device command: bundles the
#                          host libraries the GPU host lacks (tools/bundle-deps.sh .deps) and says
#                          what to name in the device tool's carry list
#
# Environment:
#   OUT     where logs and the tarball go (default /tmp/gpu-host-out): JOB.log, build-make.log,
#           JOB.txz; fewer than 8 files, flat (what a device tool returns)
#   BUDGET  wall seconds for the whole job (default 540): make runs under `timeout` and stops
#           with what is done, leaving 20 s to archive; give it 60 s under the command's limit
#   JOBS    make -j of the job (default 6 for all, 4 for fidelity and the suite); the build
#           always runs with one job per core
#   DEPS_PREFIX  the bundled host libraries (default .deps, used when that directory exists)
# A job cut by BUDGET resumes when run again on the same machine: artifacts are written
# atomically, and make redoes only what is missing. If the tree was copied again unchanged
# (same content, newer times), build/ and artifacts/ are first moved after it in time.
# Exit status: the job's make (124 when cut by BUDGET); 2 on bad usage.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
usage() { sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; }
job=${1:-}; [ $# -gt 0 ] && shift
case $job in
    -h|--help) usage; exit 0 ;;
    build|suite|all|fidelity|carry) ;;
    *) usage >&2; exit 2 ;;
esac
for a in "$@"; do [[ $a == *=* ]] || { echo "gpu-host: '$a' is not VAR=value" >&2; exit 2; }; done
[ "$job" = all ] && ! printf '%s\n' "$@" | grep -q '^MODEL=' && { echo "gpu-host: all needs MODEL=..." >&2; exit 2; }

if [ "$job" = carry ]; then
    tools/bundle-deps.sh .deps || exit 1
    tree=$(git ls-files -z 2>/dev/null | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
    deps=$(du -sb .deps | cut -f1)
    echo "carry: name .deps in the device tool's carry list (on the GPU host: tools/gpu-host.sh JOB finds it)"
    echo "carry: .deps $((deps >> 20)) MiB + tracked tree $((${tree:-0} >> 20)) MiB of the 64 MiB a device command takes"
    exit 0
fi

OUT=${OUT:-/tmp/gpu-host-out}; BUDGET=${BUDGET:-540}; RESERVE=20
start=$(date +%s); mkdir -p "$OUT"
exec > >(tee -a "$OUT/$job.log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
d=${DEPS_PREFIX:-.deps}
if [ -d "$d" ]; then DEPS_PREFIX=$(cd "$d" && pwd); export DEPS_PREFIX; else unset DEPS_PREFIX; fi
left() { echo $(( BUDGET - ($(date +%s) - start) )); }
# t CMD...: run a step, print its wall time and exit status
t() { local s rc; s=$(date +%s); "$@"; rc=$?; echo "[$(( $(date +%s) - s )) s, rc $rc] $*"; return $rc; }
# lim CMD...: t under timeout, keeping RESERVE seconds for the archive
lim() { local l=$(( $(left) - RESERVE )); [ "$l" -gt 5 ] || { echo "[skipped: budget spent] $*"; return 124; }; t timeout -k 5 "$l" "$@"; }

echo "== $(date -u) gpu-host $job $*: $(nvidia-smi -L 2>&1 | head -1); $(nproc) cores; budget ${BUDGET} s; DEPS_PREFIX=${DEPS_PREFIX:-<system>}"

# the tree's files (NUL-separated), its content's fingerprint, its newest time
tree_files() {
    git ls-files -co --exclude-standard -z 2>/dev/null || find . \( -path ./build -o -path ./artifacts -o -path ./.deps \
        -o -path ./.git -o -path ./plots/paper -o -path ./plots/strict -o -name __pycache__ \) -prune -o -type f -print0
}
fp=$(tree_files | sort -z | xargs -0r sha1sum 2>/dev/null | sha1sum | cut -d' ' -f1)
# The same content as the last build here, copied again with newer times: every file of build/
# and artifacts/ moved forward by one offset, so all come after the sources and keep their order
# among themselves (a stage left stale by a cut run stays stale)
if [ -f build/.gpu-host-tree ] && [ "$(cat build/.gpu-host-tree)" = "$fp" ]; then
    src=$(tree_files | xargs -0r stat -c %Y 2>/dev/null | sort -n | tail -1)
    old=$(find build artifacts -type f -printf '%Ts\n' 2>/dev/null | sort -n | head -1)
    if [ -n "$src" ] && [ -n "$old" ] && [ "$src" -ge "$old" ]; then
        find build artifacts -type f -printf '%T@ %p\n' 2>/dev/null | awk -v d=$((src - old + 2)) '{ t = $1; sub(/^[^ ]+ /, ""); printf "%.9f %s\n", t + d, $0 }' |
            while read -r m f; do touch -d "@$m" "$f"; done
        echo "same tree as the last build here, copied anew: build/ and artifacts/ moved $((src - old + 2)) s forward"
    fi
fi

gpu_tests=$(ls tests/gpu/test_*.c | sed 's|^tests/gpu/\(.*\)\.c$|build/tests/gpu/\1|')
lim make -j"$(nproc)" build $gpu_tests > "$OUT/build-make.log" 2>&1; rc=$?
build_s=$(( $(date +%s) - start ))
echo "build: $(grep -cE '^(gcc|g\+\+|cc|ar|nvcc|/usr/local/cuda/bin/nvcc) ' "$OUT/build-make.log") commands in ${build_s} s, rc $rc (log: $OUT/build-make.log)"
[ $rc = 0 ] || { tail -30 "$OUT/build-make.log"; echo "gpu-host: $job rc=$rc in ${build_s} s (build failed)"; exit $rc; }
echo "$fp" > build/.gpu-host-tree
build/bin/kb-gpuinfo || true

art=artifacts
for a in "$@"; do case $a in ARTIFACTS=*) art=${a#ARTIFACTS=} ;; esac; done
files=()
case $job in
    build) rc=0 ;;
    suite)
        lim make --no-print-directory test-gpu "$@"; rc=$?
        mapfile -t files < <(ls "$art"/verdicts.csv "$art"/faults*.csv 2>/dev/null) ;;
    all)
        lim make --no-print-directory -j"${JOBS:-6}" -k all "$@"; rc=$?
        files=("$art"); for p in plots/paper plots/strict; do [ -d $p ] && files+=("$p"); done ;;
    fidelity)
        lim make --no-print-directory -j"${JOBS:-4}" -k fidelity "$@"; rc=$?
        mapfile -t files < <(find "$art" \( -name 'fidelity.h5*' -o -name fidelity.csv \) 2>/dev/null | sort) ;;
esac
if [ ${#files[@]} -gt 0 ]; then
    pack() { tar cf - "$@" | xz -T0 -6 > "$OUT/$job.txz"; }
    t pack "${files[@]}"
    size=$(du -b "$OUT/$job.txz" | cut -f1)
    [ "$size" -le $((16 << 20)) ] || echo "gpu-host: WARNING $OUT/$job.txz is $((size >> 20)) MiB, over the 16 MiB a device tool returns"
    archive="$OUT/$job.txz ($((size >> 10)) KiB)"
else
    archive="none"
fi
echo "gpu-host: $job rc=$rc in $(( $(date +%s) - start )) s (build ${build_s} s); archive: $archive; log: $OUT/$job.log"
exit $rc
