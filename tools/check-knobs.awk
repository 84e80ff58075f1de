# check-knobs.awk -- the Makefile's parse-time check of config.mk's knobs (before any goal runs).
# Values come from the environment (KB_K_<NAME>); prints one line per bad knob, saying what it
# must be, and nothing when all are good. Run: env KB_K_TAU=1e-3 ... awk -f tools/check-knobs.awk
function num(v) { return v ~ /^[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
function int_(v) { return v ~ /^[+]?[0-9]+$/ }
function bad(name, want) { printf "%s=%s: %s; ", name, ENVIRON["KB_K_" name], want; nbad++ }
function pos(name)  { v = ENVIRON["KB_K_" name]; if (!num(v) || v + 0 <= 0) bad(name, "must be a number > 0") }
function nneg(name) { v = ENVIRON["KB_K_" name]; if (!num(v)) bad(name, "must be a number >= 0") }
function ipos(name) { v = ENVIRON["KB_K_" name]; if (!int_(v) || v + 0 < 1) bad(name, "must be a whole number >= 1") }
function inneg(name) { v = ENVIRON["KB_K_" name]; if (!int_(v)) bad(name, "must be a whole number >= 0") }
function oneof(name, set, n, a, i, ok) {
    v = ENVIRON["KB_K_" name]; n = split(set, a, "|"); ok = 0
    for (i = 1; i <= n; i++) if (v == a[i]) ok = 1
    if (!ok) bad(name, "must be one of " set)
}
BEGIN {
    oneof("PROTOCOL", "paper|strict"); oneof("TIMER", "paper|robust")
    pos("TAU"); pos("TAU_LOWP"); pos("NOISE"); pos("MAX_TIME"); pos("CALL_TIMEOUT"); pos("COMPILE_TIMEOUT")
    nneg("CLOCK_TOL"); nneg("PACE")
    ipos("STD_TRIALS"); ipos("TRIALS"); ipos("MIN_SAMPLES"); ipos("MAX_SAMPLES"); inneg("WARMUP"); inneg("SEED")
    g = ENVIRON["KB_K_GPUS"]
    if (g !~ /^[0-9]+(,[0-9]+)*$/) bad("GPUS", "must be CUDA ordinals separated by commas, e.g. 0 or 0,1")
    if (int_(ENVIRON["KB_K_MIN_SAMPLES"]) && int_(ENVIRON["KB_K_MAX_SAMPLES"]) && ENVIRON["KB_K_MIN_SAMPLES"] + 0 > ENVIRON["KB_K_MAX_SAMPLES"] + 0)
        bad("MIN_SAMPLES", "must not exceed MAX_SAMPLES=" ENVIRON["KB_K_MAX_SAMPLES"])
}
