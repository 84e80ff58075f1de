#!/usr/bin/env bash
# list.sh ARTIFACTS_TREE 'PROBLEMS' 'MODELS' [KB_H5GET] -- `make list`: every problem with its
# status per model, from the submissions and what the artifacts tree holds (no GPU):
#   n        samples submitted (submissions/<model>/<problem>/sK.{cu,py})
#   c        compiled (compile.h5 outcome ok)
#   s        passed the standard check (sanity-check.h5 correct = 1)
#   v        verified (verify-distributions.h5 outcome ok)
# shown as "v/s/c/n"; "-" where the model has no sample for the problem, "?" for a stage not yet
# run on every sample. The baseline column: "ok" when its time is measured.
set -uo pipefail
tree=$1 problems=$2 models=$3 get=${4:-build/bin/kb-h5get}
attr() { [ -f "$1" ] && "$get" "$1" / "$2" 2>/dev/null; }
printf '%-32s %-9s' problem baseline
for m in $models; do printf ' %14s' "$m"; done
printf '\n'
for p in $problems; do
    b=$(attr "$tree/baseline/$p/baseline-time.h5" outcome)
    printf '%-32s %-9s' "$p" "${b:-?}"
    for m in $models; do
        n=0 c=0 s=0 v=0 missing=0
        for f in submissions/"$m"/"$p"/s*.cu submissions/"$m"/"$p"/s*.py; do
            [ -f "$f" ] || continue
            n=$((n + 1))
            k=$(basename "$f"); d="$tree/$m/$p/${k%.*}"
            [ -f "$d/compile.h5" ] || missing=1
            [ "$(attr "$d/compile.h5" outcome)" = ok ] && c=$((c + 1))
            [ -f "$d/sanity-check.h5" ] || missing=1
            [ "$(attr "$d/sanity-check.h5" correct)" = 1 ] && s=$((s + 1))
            [ -f "$d/verify-distributions.h5" ] || missing=1
            [ "$(attr "$d/verify-distributions.h5" outcome)" = ok ] && v=$((v + 1))
        done
        if [ $n = 0 ]; then cell=-; else cell="$v/$s/$c/$n"; [ $missing = 1 ] && cell="$cell?"; fi
        printf ' %14s' "$cell"
    done
    printf '\n'
done
echo "(v/s/c/n: verified / standard pass / compiled / samples; ? = some stage not run yet; tree $tree)"
