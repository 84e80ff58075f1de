"""kb-compile's view of a KernelBench-format build: runs kbpy.build, then prints the manifest's
fields the C stage records, one per line as `key<TAB>value` (no JSON parser in C).

  python3 -m kbpy.compile_record --src S.py --out-dir DIR --cache CACHE --timeout SECONDS

Lines (each prefixed `kbrec<TAB>`, among the build log): status, reason, class, custom_kernel (0/1), fallback_guard (0/1), unsupported, wall_s,
core_s, torch_ops (comma-separated), then one `ext<TAB>name<TAB>status<TAB>cached<TAB>core_s<TAB>
wall_s<TAB>so (absolute)<TAB>reason` per extension. Exit status: the builder's (0 = manifest
written, whatever its status).
"""
import json
import os
import subprocess
import sys


def clean(v):
    return str(v).replace("\t", " ").replace("\n", " ").strip()


def main(argv):
    args = dict(zip(argv[1::2], argv[2::2]))
    for k in ("--src", "--out-dir", "--cache", "--timeout"):
        if k not in args:
            sys.stderr.write("usage: python3 -m kbpy.compile_record --src S.py --out-dir DIR --cache CACHE "
                             "--timeout SECONDS\n")
            return 2
    cmd = [sys.executable, "-m", "kbpy.build", "--src", args["--src"], "--out-dir", args["--out-dir"],
           "--cache", args["--cache"], "--timeout", args["--timeout"]]
    if "--jobs" in args:
        cmd += ["--jobs", args["--jobs"]]
    rc = subprocess.call(cmd, stdout=sys.stderr)
    mpath = os.path.join(args["--out-dir"], "manifest.json")
    if rc != 0 or not os.path.exists(mpath):
        sys.stderr.write("kbpy.build exited %d without a manifest\n" % rc)
        return rc or 1
    with open(mpath) as f:
        m = json.load(f)
    ex = m.get("extract", {}) or {}
    unsupported = ""
    reason = m.get("reason", "") or ""
    if m.get("status") == "unsupported":
        unsupported = reason.split(":", 1)[1].strip() if reason.startswith("unsupported:") else reason
    ops = ex.get("torch_ops") or []
    print("kbrec\tstatus\t%s" % clean(m.get("status", "compile_error")))
    print("kbrec\treason\t%s" % clean(reason))
    print("kbrec\tclass\t%s" % clean(m.get("class", "")))
    print("kbrec\tcustom_kernel\t%d" % bool(m.get("custom_kernel")))
    print("kbrec\tfallback_guard\t%d" % bool(m.get("fallback_guard")))
    print("kbrec\tunsupported\t%s" % clean(unsupported))
    print("kbrec\twall_s\t%r" % float(m.get("wall_s", 0.0) or 0.0))
    print("kbrec\tcore_s\t%r" % float(m.get("core_s", 0.0) or 0.0))
    print("kbrec\ttorch_ops\t%s" % clean(",".join(ops) if isinstance(ops, list) else ops))
    for e in m.get("extensions", []) or []:
        so = os.path.abspath(os.path.join(args["--out-dir"], e.get("so", ""))) if e.get("so") else ""
        print("kbrec\text\t%s\t%s\t%d\t%r\t%r\t%s\t%s" % (clean(e.get("name", "")), clean(e.get("status", "")),
                                                  bool(e.get("cached")), float(e.get("core_s", 0.0) or 0.0),
                                                  float(e.get("wall_s", 0.0) or 0.0), so, clean(e.get("reason", ""))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
