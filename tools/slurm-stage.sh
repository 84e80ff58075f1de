#!/usr/bin/env bash
# tools/slurm-stage.sh STAGE_BINARY ARGS... -- one stage command as a Slurm job (srun, blocking):
# `make SLURM=1` runs every stage command through it, so Make stays the record of what is done
# (an artifact exists or not; each stage writes it atomically), `make -jN` keeps N jobs queued,
# and a job that is cancelled, fails or dies leaves no artifact: the next `make` runs it again.
#   GPU stages (kb-sanity-check, kb-verify-distributions, kb-memory-profile, kb-baseline-time,
#   kb-fidelity): --gres=gpu:1; inside the job CUDA_VISIBLE_DEVICES holds the one GPU Slurm gave,
#   so the stage's --gpus becomes 0 and its GPU lock is keyed by the physical GPU
#   (KB_LOCK_DIR=/tmp/kb-locks/gpu<SLURM_STEP_GPUS>): jobs on different GPUs never wait for each
#   other, two on the same GPU (a shared node) still never time at once.
#   CPU stages (kb-compile, kb-aggregate, anything else): one task, one CPU.
# Settings (environment): SLURM_PARTITION (default: the cluster's), SLURM_STAGE_TIME (a job's
# time limit, default 60 minutes), SLURM_GPU_GRES (default gpu:1; "none" asks for no GPU, for a
# node whose GPUs Slurm does not manage), SLURM_STAGE_ARGS (more srun options, word-split).
# The artifacts directory must be on a filesystem every node sees (it is the same path there).
set -uo pipefail
if [ $# -lt 1 ] || [ "$1" = --help ] || [ "$1" = -h ]; then
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -lt 1 ] && exit 2 || exit 0
fi
command -v srun >/dev/null || { echo "slurm-stage: srun not found: SLURM=1 needs a Slurm client (or run without SLURM=1)" >&2; exit 2; }
stage=${1##*/}
opts=(--ntasks=1 --nodes=1 --quit-on-interrupt --kill-on-bad-exit=1 --job-name="kb-${stage#kb-}"
      --time="${SLURM_STAGE_TIME:-60}")
[ -n "${SLURM_PARTITION:-}" ] && opts+=(--partition="$SLURM_PARTITION")
gpu=0
case $stage in
kb-sanity-check | kb-verify-distributions | kb-memory-profile | kb-baseline-time | kb-fidelity) gpu=1 ;;
esac
args=("$@")
if [ $gpu = 1 ]; then
    gres=${SLURM_GPU_GRES:-gpu:1}
    [ "$gres" != none ] && opts+=(--gres="$gres")
    opts+=(--cpus-per-task=2) # the stage and its child
    if [ "$gres" != none ]; then
        for ((i = 1; i < ${#args[@]} - 1; i++)); do
            [ "${args[$i]}" = --gpus ] && args[$((i + 1))]=0 # the job sees only its own GPU
        done
    fi
else
    opts+=(--cpus-per-task=1)
fi
# shellcheck disable=SC2206
extra=(${SLURM_STAGE_ARGS:-})
exec srun "${opts[@]}" "${extra[@]}" bash -c '
if [ -n "${SLURM_STEP_GPUS:-${SLURM_JOB_GPUS:-}}" ]; then
    export KB_LOCK_DIR=/tmp/kb-locks/gpu${SLURM_STEP_GPUS:-$SLURM_JOB_GPUS}
    mkdir -p "$KB_LOCK_DIR"
fi
exec "$@"' kb-slurm-stage "${args[@]}"
