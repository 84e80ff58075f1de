#!/usr/bin/env bash
# tools/results-report.sh FOLDER [--write] -- re-make a committed results folder's tables from its
# archived artifacts with today's `make report`, and compare them with the committed ones.
#
# FOLDER is results/<date>-<topic>/ with tables/<protocol>/ (and plots/<protocol>/) made from its
# archive: artifacts/ (a tree) or artifacts.tgz / artifacts.txz (holding artifacts/<protocol>/).
# Each protocol tree carries report-inputs/ (docs/artifacts.md): the problem set and the other
# inputs its tables were made from, so the report is made from the record, never from today's
# problems, models.csv or extraction records (REPORT_INPUTS=recorded).
#
# The tables name the tree they were made from and the harness revision that made them: a
# tarball's tree is named as it unpacks in place (results/<date>-<topic>/artifacts/<protocol>),
# and results.json's harness_rev is left out of the comparison (it is the checkout's, not the
# archive's). Everything else must be byte for byte: every table file, and the figures' data
# (plots/<protocol>/*.dat; the PNG and SVG depend on the gnuplot build and are not compared).
# tables/<protocol>-torch/ (and plots/<protocol>-torch/) are that tree's tables with BASELINE=torch
# (speedups against PyTorch eager: docs/metrics.md), re-made the same way.
# --write replaces the committed tables and figures with today's (after an intended change).
# Exit: 0 equal (or written), 1 a difference or a failed report, 2 bad usage.
set -uo pipefail
cd "$(dirname "$0")/.."
folder=${1:?usage: tools/results-report.sh results/<date>-<topic> [--write]}
folder=${folder%/}
write=0; [ "${2:-}" = --write ] && write=1
[ -d "$folder/tables" ] || { echo "results-report: $folder has no tables/" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb-results-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -d "$folder/artifacts" ]; then
    arch=$folder/artifacts
else
    tarball=$(ls "$folder"/artifacts.tgz "$folder"/artifacts.txz 2>/dev/null | head -1)
    [ -n "$tarball" ] || { echo "results-report: $folder has tables but no artifacts/ or artifacts.t?z" >&2; exit 1; }
    mkdir -p "$tmp/u" && tar xf "$tarball" -C "$tmp/u" || { echo "results-report: $tarball does not unpack" >&2; exit 1; }
    arch=$tmp/u/artifacts
fi
fail=0
for t in "$folder"/tables/*/; do
    p=$(basename "$t")
    proto=${p%-torch} baseline=c
    [ "$proto" = "$p" ] || baseline=torch
    [ -f "$arch/$proto/report-inputs/problems.txt" ] || { echo "FAIL: $folder: $proto tree has no report-inputs/ (the record its tables are made from)"; fail=1; continue; }
    out=$tmp/out/$p
    if ! make --no-print-directory report REPORT_INPUTS=recorded PROTOCOL="$proto" BASELINE=$baseline ARTIFACTS="$arch" \
        TABLES_DIR="$out/tables" PLOTS_DIR="$out/plots" > "$tmp/report-$p.log" 2>&1; then
        echo "FAIL: $folder: make report ($p) failed:"; tail -5 "$tmp/report-$p.log"; fail=1; continue
    fi
    # the tree as it unpacks in place
    [ "$arch" = "$folder/artifacts" ] || grep -rlF "$arch" "$out" | xargs -r sed -i "s|$arch|results/${folder##*/}/artifacts|g"
    if [ $write = 1 ]; then
        rm -rf "$folder/tables/$p" "$folder/plots/$p" && mkdir -p "$folder/plots" &&
            cp -r "$out/tables" "$folder/tables/$p" && cp -r "$out/plots" "$folder/plots/$p" || fail=1
        echo "results-report: $folder/tables/$p and plots/$p written"
        continue
    fi
    # harness_rev aside, byte for byte
    for d in committed new; do
        src=$folder/tables/$p; [ $d = new ] && src=$out/tables
        mkdir -p "$tmp/cmp/$d/$p" && cp -r "$src/." "$tmp/cmp/$d/$p/"
        src=$folder/plots/$p; [ $d = new ] && src=$out/plots
        for f in "$src"/*.dat; do [ -f "$f" ] && cp "$f" "$tmp/cmp/$d/$p/plot-$(basename "$f")"; done
        sed -i 's/"harness_rev": "[^"]*"/"harness_rev": "-"/' "$tmp/cmp/$d/$p/results.json" 2>/dev/null
    done
    if diff -r "$tmp/cmp/committed/$p" "$tmp/cmp/new/$p" > "$tmp/diff-$p.txt"; then
        echo "ok: $folder/tables/$p: today's make report over its archive gives the committed tables ($(ls "$tmp/cmp/new/$p" | wc -l) files, $(wc -l < "$arch/$proto/report-inputs/problems.txt") problems)"
    else
        echo "FAIL: $folder/tables/$p differs from today's make report over its archive:"; head -20 "$tmp/diff-$p.txt"; fail=1
    fi
done
exit $fail
