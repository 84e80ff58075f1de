#!/usr/bin/env bash
# The settings table (lib/core/kb_settings.def) has two readers: C (every binary's --print-settings)
# and awk (tools/settings.awk, what the Makefile reads before anything is built). They must agree,
# and config.mk's "NAME ?= default" lines (what `make help` shows and a user edits) must agree
# with the table's defaults.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
fail=0
want=$(awk -v tsv=1 -f tools/settings.awk lib/core/kb_settings.def)
[ "$(wc -l <<< "$want")" -ge 10 ] || { echo "FAIL: tools/settings.awk read $(wc -l <<< "$want") settings"; fail=1; }
for s in compile sanity-check verify-distributions baseline-time memory-profile fidelity aggregate; do
    got=$("$B/bin/kb-$s" --print-settings 2>&1)
    [ "$got" = "$want" ] || { echo "FAIL: kb-$s --print-settings differs from tools/settings.awk:"; diff <(echo "$want") <(echo "$got") | head; fail=1; }
done
while IFS=$'\037' read -r knob type lo hi def check when stages; do
    mk=$(sed -n "s/^$knob ?= *//p" config.mk)
    [ -n "$mk" ] || { echo "FAIL: config.mk has no '$knob ?='"; fail=1; continue; }
    if [ -n "$def" ] && [ "$mk" != "$def" ]; then echo "FAIL: $knob: config.mk says '$mk', the table '$def'"; fail=1; fi
    # each stage's --help lists exactly the knobs that name it as a reader
    opt=$(tr 'A-Z_' 'a-z-' <<< "$knob")
    for s in compile sanity-check verify-distributions baseline-time memory-profile fidelity; do
        listed=$("$B/bin/kb-$s" --help | grep -c "^  --$opt ")
        reads=$(grep -cw -- "$s" <<< "$stages")
        [ "$listed" = "$reads" ] || { echo "FAIL: kb-$s --help lists --$opt $listed times; the table says it reads it: $reads"; fail=1; }
    done
done <<< "$(tr '\t' '\037' <<< "$want")"
# each protocol's default timer in Make is its row's (settings.awk's ptimer:PROTOCOL=TIMER)
for pt in $(awk -f tools/settings.awk lib/core/kb_settings.def | tr ' ' '\n' | sed -n 's/^ptimer://p'); do
    p=${pt%%=*}; t=${pt#*=}
    row=$(grep "^KB_PROTOCOL($p," lib/core/kb_settings.def | cut -d, -f3 | tr -d ' ' | sed 's/^KB_TIMER_//' | tr A-Z a-z)
    got=$(KB_SKIP_GPU_CHECK=1 make -s -n --no-print-directory baselines PROTOCOL="$p" 2>&1 | sed -n 's/.*TIMER=\([a-z]*\).*/\1/p' | head -1)
    [ "$t" = "$row" ] && [ "$got" = "$row" ] || { echo "FAIL: PROTOCOL=$p: its row's timer is '$row', settings.awk says '$t', Make uses '$got'"; fail=1; }
done
# one description per knob: `make help` prints the row's help for every table knob, and config.mk
# keeps no text of its own for them (a comment right above a table knob's line would be a second one)
help=$(make -s --no-print-directory help 2>/dev/null | tr -s ' \n' '  ')
while IFS= read -r row; do
    knob=${row#KB_SETTING(}; knob=${knob%%,*}
    h=${row%\")*}; h=${h##*, \"}
    [[ "$help" == *"$(echo "$h" | tr -s ' ' ' ' | cut -c1-60)"* ]] || { echo "FAIL: make help lacks $knob's row help: '${h:0:60}'"; fail=1; }
    above=$(grep -B1 "^$knob ?=" config.mk | head -1)
    [[ "$above" == \#* ]] && [[ "$above" != "# ----"* ]] && [[ "$above" != *"settings table"* ]] && [[ "$above" != *"where Make starts"* ]] &&
        { echo "FAIL: config.mk describes $knob itself ('$above'): its description is the table row's"; fail=1; }
done < <(grep '^KB_SETTING(' lib/core/kb_settings.def)
[ $fail = 0 ] && echo "settings: $(wc -l <<< "$want") settings; C and awk readers agree; config.mk defaults agree; each --help lists its stage's knobs; make help describes each by its row alone"
exit $fail
