# settings.awk -- lib/core/kb_settings.def (the settings, timer and protocol tables) as the Makefile
# reads it, with no binary built: one line of tokens
#   knob:NAME  opt:NAME=option  check:NAME=class=lo=hi  stamp:STAGE:NAME (NAME?robust: only with
#   TIMER=robust)  protocol:NAME  ptimer:PROTOCOL=TIMER (its default timer)  timer:NAME
# -v tsv=1 prints the settings as `kb-<stage> --print-settings` does instead (tests/cpu/settings.sh
# compares the two). Run: awk -f tools/settings.awk lib/core/kb_settings.def
function args(line, out,   s, n, i, c, q, cur) {
    sub(/^[A-Z_]+\(/, "", line); sub(/\)[ \t]*$/, "", line)
    n = 0; q = 0; cur = ""
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") { q = !q; continue }
        if (c == "," && !q) { out[++n] = trim(cur); cur = ""; continue }
        cur = cur c
    }
    out[++n] = trim(cur)
    return n
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function opt(k,   o) { o = tolower(k); gsub(/_/, "-", o); return o }
function num(v) { return sprintf("%.17g", v + 0) }
/^KB_SETTING\(/ {
    args($0, a)  # KNOB, field, TYPE, lo, hi, default, check, when, stages, help
    if (tsv) { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a[1], a[3], num(a[4]), num(a[5]), a[6], a[7], a[8], a[9]; next }
    out = out " knob:" a[1] " opt:" a[1] "=" opt(a[1]) " check:" a[1] "=" a[7] "=" (a[3] ~ /F64|INT/ ? num(a[4]) "=" num(a[5]) : "=")
    ns = split(a[9], st, " ")
    for (i = 1; i <= ns; i++) out = out " stamp:" st[i] ":" a[1] (a[8] != "" ? "?" a[8] : "")
    next
}
/^KB_TIMER\(/ { args($0, a); out = out " timer:" a[1]; next }
/^KB_PROTOCOL\(/ {
    args($0, a)  # name, ID, timer (KB_TIMER_X), ...
    t = a[3]; sub(/^KB_TIMER_/, "", t)
    out = out " protocol:" a[1] " ptimer:" a[1] "=" tolower(t); next
}
END { if (!tsv) print substr(out, 2) }
