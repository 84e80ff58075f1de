"""Every problem's .py spec against its C descriptor (tests/cpu/spec_match.sh runs it).

For each problem, from the descriptor (check_problems specs) and the .py (on torch's meta device:
no memory, no GPU):
  - forward() arguments: get_inputs() gives as many, with the descriptor's shapes and dtypes (a
    Python number is a 0-d float32 or int64 input);
  - parameters: Model(*get_init_inputs()).named_parameters() are the descriptor's params, same
    names, order and shapes;
  - outputs: forward() on the meta inputs returns the descriptor's outputs (shape and dtype).
Prints one line per problem and exits 1 if any differs.
"""
import importlib.util
import sys

import torch


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


def main(spec_tsv, problems_dir):
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
    print("%d problems: %s" % (len(by_id), "a .py and its descriptor differ" if bad else "every .py matches its descriptor"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
