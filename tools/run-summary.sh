#!/usr/bin/env bash
# run-summary.sh PROGRESS_FILE ARTIFACT_TREE -- the end of a make run: what ran (per stage), what
# did not pass and where its logs are. PROGRESS_FILE holds one line per stage command of the run
# (lib/core/kb_util.h kb_progress_tag): stage, model, problem, sample, result.
f=$1 tree=$2
[ -s "$f" ] || { echo "== nothing to run: everything is up to date ($tree)"; exit 0; }
t0=${KB_PROGRESS_T0:-}
el=""
[ -n "$t0" ] && el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { s = b - a; printf " in %dm%02ds", s / 60, s % 60 }')
awk -F'\t' -v tree="$tree" -v el="$el" '
    { n++; per[$1]++; r = $5
      if (r != "ok" && r != "PASS" && r != "VERIFIED") {
          bad++
          lg = ($1 == "sanity-check" ? "sanity-check" : $1 == "verify-dists" ? "verify-distributions" : $1 == "memory" ? "memory-profile" : $1)
          where = ($2 == "baseline" ? tree "/baseline/" $3 : tree "/" $2 "/" $3 "/" $4)
          lines[bad] = sprintf("  %-13s %-16s %-28s %-4s %-18s %s/%s.h5.log", $1, $2, $3, $4, r, where, lg)
      } }
    END {
        printf "== ran %d stage commands%s:", n, el
        for (s in per) printf " %s %d", s, per[s]
        printf "\n"
        if (bad) {
            printf "== %d did not pass (an outcome, recorded in its artifact; the log says more):\n", bad
            for (i = 1; i <= bad && i <= 60; i++) print lines[i]
            if (bad > 60) printf "  ... and %d more: make list\n", bad - 60
        } else print "== every stage command passed"
    }' "$f"
