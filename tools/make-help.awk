# make-help.awk -- `make help`, generated: the targets from the Makefile's "#: target  text" lines,
# the knobs from config.mk (every "NAME ?= default"); a knob of the settings table
# (lib/core/kb_settings.def) is described by its row's help, any other by the comment block just above
# its line in config.mk.
# Run: awk -f tools/make-help.awk Makefile config.mk  (it reads lib/core/kb_settings.def itself)
BEGIN {
    while ((getline line < "lib/core/kb_settings.def") > 0) {
        if (line !~ /^KB_SETTING\(/) continue
        name = line; sub(/^KB_SETTING\(/, "", name); sub(/,.*/, "", name)
        h = line; sub(/"\)[ \t]*$/, "", h); sub(/.*, "/, "", h)
        table[name] = h
    }
    close("lib/core/kb_settings.def")
}
FNR == 1 { file++ }
file == 1 && /^#: / {
    sub(/^#: /, ""); t = $1; sub(/^[^ ]+ +/, "")
    targets[++nt] = sprintf("  make %-22s %s", t, $0)
    next
}
file == 2 {
    if (/^# ----/) { sect = $0; sub(/^# -+ */, "", sect); sub(/ *-+$/, "", sect); block = ""; next }
    if (/^#/) { line = $0; sub(/^# ?/, "", line); block = block (block == "" ? "" : " ") line; next }
    if (match($0, /^[A-Z_][A-Z0-9_]* \?=/)) {
        name = substr($0, 1, RLENGTH - 3); def = substr($0, RLENGTH + 2)
        if (sect != lastsect) { knobs[++nk] = "  [" sect "]"; lastsect = sect }
        knobs[++nk] = sprintf("  %-16s default: %s", name, def == "" ? "(empty)" : def)
        if (name in table) knobs[++nk] = wrap(table[name]) # the settings table's row: the one description
        else if (block != "") knobs[++nk] = wrap(block)   # knobs that follow share the text above
        block = ""
        next
    }
    block = ""
}
function wrap(text,   out, n, w, i, len) {
    n = split(text, w, " "); out = "      "; len = 6
    for (i = 1; i <= n; i++) {
        if (len + length(w[i]) + 1 > 100) { out = out "\n      "; len = 6 }
        out = out w[i] " "; len += length(w[i]) + 1
    }
    return out
}
END {
    print "KernelBench-Verified pipeline. Targets:"
    for (i = 1; i <= nt; i++) print targets[i]
    print ""
    print "Knobs (config.mk; set any on the command line: make all MODEL=demo-naive PROTOCOL=strict):"
    for (i = 1; i <= nk; i++) print knobs[i]
}
