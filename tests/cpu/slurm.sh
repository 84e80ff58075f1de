#!/usr/bin/env bash
# CPU suite: the Slurm path (SLURM=1, tools/slurm-stage.sh) against a running Slurm (CI starts a
# single-node one with tools/slurm-local.sh; KB_REQUIRE_SLURM=1 makes its absence a failure,
# otherwise the test says SKIP and why):
#   1. make compile SLURM=1 runs each compile as its own Slurm job (one job output file each) and
#      gives the same compile outcomes as a run without Slurm (each with compile records of its
#      own: SUBS= apart, so neither copies the other's);
#   2. make report SLURM=1 makes the tables through a job;
#   3. a GPU-stage job cancelled while it runs (scancel) leaves no artifact and a non-zero status;
#      run again, it writes the artifact (what `make` does on its next run);
#   4. SLURM=2 is refused before any work.
set -uo pipefail
BUILD=${BUILD:-build}
if ! command -v srun >/dev/null || ! sinfo -h >/dev/null 2>&1; then
    if [ "${KB_REQUIRE_SLURM:-}" = 1 ]; then
        echo "FAIL: KB_REQUIRE_SLURM=1 but no Slurm answers (srun: $(command -v srun || echo none); SLURM_CONF=${SLURM_CONF:-unset})"
        exit 1
    fi
    echo "SKIP: no Slurm here (start one with tools/slurm-local.sh start, then export SLURM_CONF=/tmp/kb-slurm/slurm.conf)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'scancel -n kb-baseline-time >/dev/null 2>&1; rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
P=level1/019_relu,level1/001_square_matmul
mk() { make --no-print-directory -j2 MODEL=demo-naive PROBLEM=$P "$@"; }

t0=$(date +%s)
mkdir -p "$tmp/jobs"
SLURM_STAGE_ARGS="--output=$tmp/jobs/%j.out" mk compile SLURM=1 ARTIFACTS="$tmp/slurm" SUBS="$tmp/sub-slurm" > "$tmp/slurm.log" 2>&1 ||
    bad "make compile SLURM=1 failed: $(tail -5 "$tmp/slurm.log")"
n_art=$(find "$tmp/slurm/paper/demo-naive" -name compile.h5 | wc -l)
n_jobs=$(find "$tmp/jobs" -name '*.out' | wc -l)
[ "$n_art" = 4 ] && [ "$n_jobs" = 4 ] && ok "4 compile records from 4 Slurm jobs in $(( $(date +%s) - t0 )) s" ||
    bad "compile records $n_art, Slurm jobs $n_jobs (expected 4 and 4)"
mk compile ARTIFACTS="$tmp/local" SUBS="$tmp/sub-local" > "$tmp/local.log" 2>&1 || bad "make compile without Slurm failed"
for f in $(cd "$tmp/local/paper" && find demo-naive -name compile.h5 | sort); do
    a=$("$BUILD/bin/kb-h5get" "$tmp/local/paper/$f" / outcome 2>&1)
    b=$("$BUILD/bin/kb-h5get" "$tmp/slurm/paper/$f" / outcome 2>&1)
    [ -n "$a" ] && [ "$a" = "$b" ] || bad "$f: outcome '$b' through Slurm, '$a' without"
done
ok "the same compile outcomes with and without Slurm"

SLURM_STAGE_ARGS="--output=$tmp/jobs/%j.out" make --no-print-directory report SLURM=1 MODEL=demo-naive PROBLEM=$P \
    ARTIFACTS="$tmp/slurm" SUBS="$tmp/sub-slurm" TABLES_DIR="$tmp/tables" PLOTS_DIR="$tmp/plots" > "$tmp/report.log" 2>&1 ||
    bad "make report SLURM=1 failed: $(tail -5 "$tmp/report.log")"
[ -s "$tmp/tables/tables.md" ] && [ "$(find "$tmp/jobs" -name '*.out' | wc -l)" = 5 ] &&
    ok "make report SLURM=1: tables.md from a fifth job" || bad "make report SLURM=1: no tables.md or no job: $(tail -5 "$tmp/report.log")"

# a stand-in GPU stage: sleeps $KB_FAKE_SLEEP s, then writes --out (the environment reaches the job)
mkdir -p "$tmp/bin"
cat > "$tmp/bin/kb-baseline-time" <<'EOF'
#!/usr/bin/env bash
out=; gpus=
while [ $# -gt 0 ]; do case $1 in --out) out=$2;; --gpus) gpus=$2;; esac; shift; done
sleep "${KB_FAKE_SLEEP:-0}"
echo "gpus=$gpus" > "$out.tmp" && mv "$out.tmp" "$out"
EOF
chmod +x "$tmp/bin/kb-baseline-time"
KB_FAKE_SLEEP=60 SLURM_GPU_GRES=none tools/slurm-stage.sh "$tmp/bin/kb-baseline-time" --gpus 0 --out "$tmp/cancel.h5" \
    > "$tmp/cancel.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
    [ "$(squeue -h -n kb-baseline-time -o %t 2>/dev/null)" = R ] && break
    sleep 0.2
done
scancel -n kb-baseline-time
wait $pid
rc=$?
[ $rc != 0 ] && [ ! -e "$tmp/cancel.h5" ] && ok "a cancelled job: status $rc, no artifact" ||
    bad "a cancelled job: status $rc, artifact $(ls "$tmp/cancel.h5" 2>&1)"
KB_FAKE_SLEEP=0 SLURM_GPU_GRES=none tools/slurm-stage.sh "$tmp/bin/kb-baseline-time" --gpus 0 --out "$tmp/cancel.h5" \
    > "$tmp/again.log" 2>&1 && [ "$(cat "$tmp/cancel.h5")" = gpus=0 ] && ok "run again: the artifact" ||
    bad "run again: $(cat "$tmp/again.log")"

if make --no-print-directory compile SLURM=2 MODEL=demo-naive ARTIFACTS="$tmp/bad" > "$tmp/knob.log" 2>&1; then
    bad "SLURM=2 was accepted"
elif grep -q "SLURM" "$tmp/knob.log" && [ ! -d "$tmp/bad" ]; then
    ok "SLURM=2 refused before any work: $(grep -o 'SLURM[^;]*' "$tmp/knob.log" | head -1)"
else
    bad "SLURM=2: $(cat "$tmp/knob.log")"
fi
[ $fail = 0 ] && echo "slurm: PASS ($(( $(date +%s) - t0 )) s)" || echo "slurm: FAIL"
exit $fail
