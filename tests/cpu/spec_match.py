"""Every problem's .py spec against its C descriptor (tests/cpu/spec_match.sh runs it).

  spec_match.py SPECS.tsv PROBLEMS_DIR [--samples DIR]... [--mismatches DIR]...

For each problem, from the descriptor (check_problems specs) and the .py (on torch's meta device:
no memory, no GPU):
  - forward() arguments: get_inputs() gives as many, with the descriptor's shapes and dtypes (a
    Python number is a 0-d float32 or int64 input);
  - parameters: Model(*get_init_inputs()).named_parameters() are the descriptor's params, same
    names, order and shapes;
  - state: the Model's named_buffers() then its plain tensor attributes (kbpy.runtime.module_state)
    are the descriptor's state, same names, order, shapes and dtypes, and the runner's
    bind_state of the unchanged Model binds every one by name;
  - binding: the runner's own binding (kbpy.runtime.bind_parameters) of the spec's Model, taken
    unchanged as a submission's ModelNew, to the harness's parameters as the descriptor lists them
    (names, shapes, KB_INPUTS order) binds every one by name;
  - outputs: forward() on the meta inputs returns the descriptor's outputs (shape and dtype).
--samples DIR (a model's folder, DIR/levelN/NNN_name/sK.py): every sample whose manifest row, if
any, expects it to compile is executed here with load_inline stubbed (our own demo files only:
this runs their top level outside any sandbox), ModelNew(*get_init_inputs()) built on the meta
device and bound to its problem's descriptor the same way; it must bind, and the line says how
(a file with a line "# expect: binding=..." must bind exactly so).
--mismatches DIR (same layout): files that must NOT bind; each names the start of the message it
must get on a line "# expect: param_mismatch: ...".
Prints one line per problem and sample and exits 1 if any differs.
"""
import csv
import glob
import importlib.util
import os
import sys
import types

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "py"))
from kbpy import runtime  # noqa: E402

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
          "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}


def load(path):
    spec = importlib.util.spec_from_file_location("kb_spec_" + path.replace("/", "_").replace(".", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def shape_str(s):
    return ",".join(str(d) for d in s)


def describe(x):
    if isinstance(x, torch.Tensor):
        return str(x.dtype).replace("torch.", ""), shape_str(x.shape)
    if isinstance(x, bool):
        return "bool", ""
    if isinstance(x, int):
        return "int64", ""
    if isinstance(x, float):
        return "float32", ""
    return type(x).__name__, "?"


def harness_params(rows, kind="param"):
    """The harness's parameter (or state) list as the runner gets it: the descriptor's, in its order."""
    return [(r[2], torch.empty(tuple(int(d) for d in r[4].split(",") if d), dtype=DTYPES[r[3]], device="meta"))
            for r in rows if r[1] == kind]


def check(pid, rows, pyfile):
    ins = [r for r in rows if r[1] == "input"]
    params = [r for r in rows if r[1] == "param"]
    outs = [r for r in rows if r[1] == "output"]
    errs = []
    mod = load(pyfile)
    with torch.device("meta"):
        torch.manual_seed(0)
        args = list(mod.get_inputs())
        init = list(mod.get_init_inputs()) if hasattr(mod, "get_init_inputs") else []
        model = mod.Model(*init)
    if len(args) != len(ins):
        errs.append("get_inputs() gives %d arguments, the descriptor %d" % (len(args), len(ins)))
    for a, r in zip(args, ins):
        dt, sh = describe(a)
        if (dt, sh) != (r[3], r[4]):
            errs.append("input %s: .py %s (%s), descriptor %s (%s)" % (r[2], dt, sh, r[3], r[4]))
    mine = [(n, shape_str(p.shape), str(p.dtype).replace("torch.", "")) for n, p in model.named_parameters()]
    want = [(r[2], r[4], r[3]) for r in params]
    if mine != want:
        errs.append("parameters: .py %s, descriptor %s" % (mine, want))
    mine_s = [(n, shape_str(t.shape), str(t.dtype).replace("torch.", "")) for n, _, _, t in runtime.module_state(model)]
    want_s = [(r[2], r[4], r[3]) for r in rows if r[1] == "state"]
    if mine_s != want_s:
        errs.append("state (buffers, tensor attributes): .py %s, descriptor %s" % (mine_s, want_s))

    class ModelNew(mod.Model):  # the spec's Model as a submission would take it unchanged
        pass

    with torch.device("meta"):
        torch.manual_seed(0)
        same = ModelNew(*init)
    _, how, err = runtime.bind_parameters(list(same.named_parameters()), harness_params(rows))
    if err or how != "name":
        errs.append("binding of the unchanged Model: %s" % (err or how))
    _, show = runtime.bind_state(same, harness_params(rows, "state"))
    if show != "name":
        errs.append("state binding of the unchanged Model: %s" % show)
    if not errs:
        try:
            with torch.no_grad():
                ret = model(*args)
            rets = list(ret) if isinstance(ret, (tuple, list)) else [ret]
            if len(rets) != len(outs):
                errs.append("forward returns %d tensors, the descriptor has %d outputs" % (len(rets), len(outs)))
            for t, r in zip(rets, outs):
                dt, sh = describe(t)
                if (dt, sh) != (r[3], r[4]):
                    errs.append("output %s: .py %s (%s), descriptor %s (%s)" % (r[2], dt, sh, r[3], r[4]))
        except Exception as e:  # an op without a meta kernel: say so, do not fail on it
            print("note %s: forward on meta tensors: %s" % (pid, str(e).splitlines()[0][:160]))
    return errs


class _Unbuilt:
    """What the stubbed load_inline returns: the module's functions exist but are never called here."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, fn):
        def never(*a, **k):
            raise RuntimeError("%s.%s: not built in this test" % (self._name, fn))
        return never


def bind_sample(path, rows, problems_dir, pid):
    """ModelNew of the sample at `path` built on the meta device (load_inline stubbed) and bound
    to the descriptor's parameters: (binding, error)."""
    import torch.utils.cpp_extension as cpp
    saved = cpp.load_inline, cpp.load
    cpp.load_inline = lambda *a, **k: _Unbuilt(k.get("name", a[0] if a else "?"))
    cpp.load = cpp.load_inline
    try:
        spec = load("%s/%s.py" % (problems_dir, pid))
        init = list(spec.get_init_inputs()) if hasattr(spec, "get_init_inputs") else []
        with torch.device("meta"):
            mod = runtime.exec_file(path, "kb_sample_" + pid.replace("/", "_"))
            torch.manual_seed(0)
            model = mod.ModelNew(*init)
    finally:
        cpp.load_inline, cpp.load = saved
    _, how, err = runtime.bind_parameters(list(model.named_parameters()), harness_params(rows))
    return how, err


def expected_compile(root):
    """{(problem, sample): expected_compile} from root/manifest.csv (missing: every sample ok)."""
    m = os.path.join(root, "manifest.csv")
    if not os.path.exists(m):
        return {}
    with open(m, newline="") as f:
        return {(r["problem"], r["sample"]): (r.get("expected_compile") or "ok").strip() for r in csv.DictReader(f)}


def samples(root):
    for path in sorted(glob.glob(os.path.join(root, "level[0-9]", "*", "*.py"))):
        rel = os.path.relpath(path, root)
        level, problem, sample = rel.split(os.sep)
        yield path, "%s/%s" % (level, problem), sample[:-3]


def expectations(path):
    """The file's "# expect: ..." lines (what spec_match must find: a binding, or a mismatch's message)."""
    with open(path) as f:
        return [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("# expect:")]


def check_samples(roots, mismatches, by_id, problems_dir):
    bad = 0
    for root in roots:
        exp = expected_compile(root)
        for path, pid, sample in samples(root):
            name = os.path.relpath(path)
            if exp.get((pid, sample), "ok") != "ok":
                print("skip %s (expected_compile %s)" % (name, exp[(pid, sample)]))
                continue
            if pid not in by_id:
                print("FAIL %s: no descriptor for %s" % (name, pid))
                bad = 1
                continue
            try:
                how, err = bind_sample(path, by_id[pid], problems_dir, pid)
            except Exception as e:
                how, err = "", "ModelNew(*get_init_inputs()) on the meta device: %s" % str(e).splitlines()[0][:200]
            want = expectations(path)
            if not err and want and want != ["binding=" + how]:
                err = "binding=%s, the file expects %s" % (how, want[0])
            print("%-4s %s%s" % ("FAIL" if err else "ok", name, "\n     " + err if err else "  binding=" + how))
            bad |= bool(err)
    for root in mismatches:
        found = 0
        for path, pid, sample in samples(root):
            found += 1
            name = os.path.relpath(path)
            want = expectations(path)
            try:
                how, err = bind_sample(path, by_id[pid], problems_dir, pid)
            except Exception as e:
                how, err = "", "does not load: %s" % str(e).splitlines()[0][:200]
            ok = len(want) == 1 and err.startswith(want[0])
            print("%-4s %s must not bind: %s" % ("ok" if ok else "FAIL", name, err or "bound, binding=" + how))
            if not ok:
                print("     expected a message starting %r" % (want[0] if want else "(no '# expect:' line)"))
            bad |= not ok
        if not found:
            print("FAIL %s: no files" % root)
            bad = 1
    return bad


def main(spec_tsv, problems_dir, roots=(), mismatches=()):
    by_id = {}
    with open(spec_tsv) as f:
        for line in f:
            r = line.rstrip("\n").split("\t")
            if r[0] == "FAIL":
                print("FAIL %s: %s" % (r[1], r[2]))
                return 1
            by_id.setdefault(r[0], []).append(r)
    bad = 0
    for pid, rows in sorted(by_id.items()):
        try:
            errs = check(pid, rows, "%s/%s.py" % (problems_dir, pid))
        except Exception as e:
            errs = ["the .py does not load: %s" % str(e).splitlines()[0][:200]]
        print("%-4s %s%s" % ("FAIL" if errs else "ok", pid, "".join("\n     " + e for e in errs)))
        bad |= bool(errs)
    print("%d problems: %s" % (len(by_id), "a .py and its descriptor differ" if bad else
                                "every .py matches its descriptor and its Model binds by name"))
    if roots or mismatches:
        sbad = check_samples(roots, mismatches, by_id, problems_dir)
        print("samples: %s" % ("a sample binds other than expected" if sbad else "every sample binds as expected"))
        bad |= sbad
    return 1 if bad else 0


def parse(argv):
    if len(argv) < 3 or len(argv) % 2 == 0:
        sys.exit("usage: spec_match.py SPECS.tsv PROBLEMS_DIR [--samples DIR]... [--mismatches DIR]...")
    roots, mismatches = [], []
    for opt, val in zip(argv[3::2], argv[4::2]):
        if opt not in ("--samples", "--mismatches"):
            sys.exit("spec_match.py: unknown option %s" % opt)
        (roots if opt == "--samples" else mismatches).append(val)
    return argv[1], argv[2], roots, mismatches


if __name__ == "__main__":
    sys.exit(main(*parse(sys.argv)))
