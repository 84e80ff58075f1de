#!/usr/bin/env bash
# docs/artifacts.md against what a stage writes (no GPU: kb-compile's record of a demo .cu): every
# root attribute the doc promises for every file is there, every root attribute and /config knob
# the file has is documented, and the doc's /config list is what the file holds; time_start is the
# stage's start (before time_end, milliseconds); a compile record's protocol is "any".
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
D=docs/artifacts.md
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
"$B"/bin/kb-compile --src submissions/demo-naive/level1/019_relu/s0.cu --out-so "$t/kernel.so" --out "$t/compile.h5" \
    --model demo-naive --problem level1/019_relu --sample s0 --include include > "$t/log" 2>&1 ||
    { echo "FAIL: kb-compile: $(tail -3 "$t/log")"; exit 1; }
# the attributes directly on a group: ATTRIBUTE lines at brace depth 2 (HDF5 {, GROUP {) of h5dump's listing
attrs() { h5dump -A -g "$2" "$1" 2>/dev/null | awk '
    /ATTRIBUTE "/ && depth == 2 { a = $2; gsub(/"/, "", a); print a }
    { o = gsub(/{/, "{"); c = gsub(/}/, "}"); depth += o - c }' | sort -u; }
root=$(attrs "$t/compile.h5" /)
conf=$(attrs "$t/compile.h5" /config)
[ -n "$root" ] && [ -n "$conf" ] || { echo "FAIL: could not read $t/compile.h5 with h5dump"; exit 1; }
# the doc's "every file" table, less the GPU stages' `ran`
every=$(awk '/^## Root attributes \(every file\)/ { on = 1; next } on && /^##/ { on = 0 } on && /^\| [a-z_]/ && $2 != "attribute" { print $2 }' "$D" |
    tr -d ',' | sed 's/time_start/time_start time_end/' | tr ' ' '\n' | grep -v '^time_end,\?$' | sort -u)
every="$every
time_end"
for a in $every; do
    [ "$a" = ran ] && continue
    grep -qx "$a" <<< "$root" || { echo "FAIL: $D promises root attribute '$a' for every file; compile.h5 lacks it"; fail=1; }
done
for a in $root; do
    grep -q "\b$a\b" "$D" || { echo "FAIL: compile.h5 has root attribute '$a', which $D does not document"; fail=1; }
done
doc_conf=$(awk '/^Group `\/config`/ { on = 1 } on { print } on && /\.$/ { exit }' "$D" | sed 's/.*as an attribute://' |
    tr ',.' '\n\n' | tr -d ' ' | grep -v '^$' | sort -u)
[ "$doc_conf" = "$conf" ] || { echo "FAIL: /config: the doc lists [$(echo $doc_conf)], the file holds [$(echo $conf)]"; fail=1; }
ts=$("$B"/bin/kb-h5get "$t/compile.h5" / time_start) te=$("$B"/bin/kb-h5get "$t/compile.h5" / time_end)
[[ $ts =~ \.[0-9]{3}Z$ ]] && [[ "$ts" < "$te" ]] || { echo "FAIL: time_start $ts, time_end $te"; fail=1; }
p=$("$B"/bin/kb-h5get "$t/compile.h5" / protocol)
[ "$p" = any ] || { echo "FAIL: a compile record's protocol is '$p', not any"; fail=1; }
[ $fail = 0 ] && echo "artifact_doc: compile.h5's $(wc -w <<< "$root") root attributes and $(wc -w <<< "$conf") /config knobs match $D; time_start $ts < time_end $te"
exit $fail
