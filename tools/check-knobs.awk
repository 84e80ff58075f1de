# check-knobs.awk -- the Makefile's parse-time check of config.mk's knobs (before any goal runs).
# What each knob must be comes from the settings table (lib/core/kb_settings.def, through
# tools/settings.awk): -v checks='check:NAME=class=lo=hi ...' protocols='paper strict'
# timers='paper robust'. Values come from the environment (KB_K_<NAME>); prints one line per bad
# knob, saying what it must be, and nothing when all are good.
function num(v) { return v ~ /^[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
function int_(v) { return v ~ /^[+]?[0-9]+$/ }
function bad(name, want) { printf "%s=%s: %s; ", name, ENVIRON["KB_K_" name], want; nbad++ }
function oneof(name, set, n, a, i, ok) {
    v = ENVIRON["KB_K_" name]; n = split(set, a, "|"); ok = 0
    for (i = 1; i <= n; i++) if (v == a[i]) ok = 1
    if (!ok) bad(name, "must be one of " set)
}
function check(name, class, lo, hi,   v, isnum) {
    v = ENVIRON["KB_K_" name]
    if (class == "oneof") { oneof(name, name == "TIMER" ? timer_set : proto_set); return }
    if (class == "pos" && (!num(v) || v + 0 <= 0)) { bad(name, "must be a number > 0"); return }
    if (class == "nneg" && !num(v)) { bad(name, "must be a number >= 0"); return }
    if (class == "ipos" && (!int_(v) || v + 0 < 1)) { bad(name, "must be a whole number >= 1"); return }
    if (class == "inneg" && !int_(v)) { bad(name, "must be a whole number >= 0"); return }
    # the range the stages accept (kb_settings.def's lo..hi)
    if (lo != "" && (v + 0 < lo + 0 || v + 0 > hi + 0)) bad(name, "must be in [" lo ", " hi "]")
}
BEGIN {
    proto_set = protocols; gsub(/ +/, "|", proto_set)
    timer_set = timers; gsub(/ +/, "|", timer_set)
    n = split(checks, c, " ")
    for (i = 1; i <= n; i++) {
        sub(/^check:/, "", c[i]); split(c[i], f, "=")
        check(f[1], f[2], f[3], f[4])
    }
    if (ENVIRON["KB_K_SLURM"] !~ /^(0|1)?$/) bad("SLURM", "must be 1 (stage commands as Slurm jobs), 0 or empty")
    if (ENVIRON["KB_K_BASELINE"] !~ /^(c|torch)$/)
        bad("BASELINE", "must be c (the C baseline's time: baseline-time.h5) or torch (PyTorch eager's, timed by the fidelity stage: the paper's denominator)")
    g = ENVIRON["KB_K_GPUS"]
    if (g !~ /^[0-9]+(,[0-9]+)*$/) bad("GPUS", "must be CUDA ordinals separated by commas, e.g. 0 or 0,1")
    if (int_(ENVIRON["KB_K_MIN_SAMPLES"]) && int_(ENVIRON["KB_K_MAX_SAMPLES"]) && ENVIRON["KB_K_MIN_SAMPLES"] + 0 > ENVIRON["KB_K_MAX_SAMPLES"] + 0)
        bad("MIN_SAMPLES", "must not exceed MAX_SAMPLES=" ENVIRON["KB_K_MAX_SAMPLES"])
}
