"""Static reading of a KernelBench-format submission (a hostile .py): never imported, never run.

extract(path) -> dict (JSON-serialisable): syntax, class ModelNew, every load_inline call with its
arguments evaluated by a small safe evaluator (constants, module-level or function-local names,
string/list concatenation, f-strings, literals, textwrap.dedent, "sep".join, str.strip & co.),
unsupported kernel languages, PyTorch ops referenced, stream/graph/thread hints.
Stdlib only.
"""

import ast
import re
import string
import sys

from . import loadinline

MAX_STR = 8 << 20          # a value larger than this is "not static" (str * 10**9 and the like)
MAX_DEPTH = 64

LOAD_INLINE = "torch.utils.cpp_extension.load_inline"
LOAD = "torch.utils.cpp_extension.load"

# import roots -> what the report calls them
KERNEL_LANGS = (
    ("triton", "triton"),
    ("cutlass", "cutlass/cute"),
    ("cuda.cooperative", "cuda.cooperative"),
    ("tilelang", "tilelang"),
    ("numba.cuda", "numba.cuda"),
    ("cupy", "cupy"),
    ("pycuda", "pycuda"),
    ("thunderkittens", "thunderkittens"),
    ("tvm", "tvm"),
    ("jax", "jax"),
    ("mojo", "mojo"),
)

PY_HINTS = (
    "torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream", "torch.cuda.set_stream",
    "torch.cuda.graph", "torch.cuda.CUDAGraph", "torch.cuda.make_graphed_callables",
    "torch.cuda.graphs", "torch.compile", "torch.jit", "threading", "concurrent.futures",
    "multiprocessing", "asyncio", "os.fork", "subprocess", "ctypes",
)

SRC_HINTS = {
    "cudaStreamCreate": r"\bcudaStreamCreate\s*\(",
    "cudaStreamCreateWithFlags": r"\bcudaStreamCreateWithFlags\b",
    "cudaStreamCreateWithPriority": r"\bcudaStreamCreateWithPriority\b",
    "cudaGraph": r"\bcudaGraph\w*",
    "cudaStreamBeginCapture": r"\bcudaStreamBeginCapture\b",
    "std::thread": r"\bstd::thread\b",
    "std::async": r"\bstd::async\b",
    "pthread_create": r"\bpthread_create\b",
    "cublasCreate": r"\bcublasCreate\w*",
    "cublasLtCreate": r"\bcublasLtCreate\b",
    "cudnnCreate": r"\bcudnnCreate\b",
    "getCurrentCUDAStream": r"\bgetCurrentCUDAStream\b",
    "getStreamFromPool": r"\bgetStreamFromPool\b",
    "cudaDeviceSynchronize": r"\bcudaDeviceSynchronize\b",
    "cudaLaunchHostFunc": r"\bcudaLaunchHostFunc\b",
    "cudaMallocAsync": r"\bcudaMallocAsync\b",
    "cudaLaunchKernel": r"\bcudaLaunchKernel\w*",
    "cudaLaunchCooperativeKernel": r"\bcudaLaunchCooperativeKernel\b",
    "at::": r"\bat::(?:matmul|mm|bmm|addmm|conv\w*|linear|relu|softmax|\w+_out)\b",
}
KERNEL_RE = re.compile(r"\b__global__\b")
LIBCALL_RE = re.compile(r"\b(?:cublas|cublasLt|cudnn)[A-Z]\w*\s*\(")


class NotStatic(Exception):
    def __init__(self, why, node=None):
        super().__init__(why)
        self.why = why
        self.line = getattr(node, "lineno", None)


def _qualify(node, aliases):
    """Dotted name of a Name/Attribute chain with its root resolved through imports, or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    root = aliases.get(node.id, node.id)
    return ".".join([root] + parts[::-1])


def _collect_aliases(tree):
    aliases = {}
    star = []
    imports = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                imports.append(a.name)
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
            for a in n.names:
                imports.append(f"{n.module}.{a.name}")
                if a.name == "*":
                    star.append(n.module)
                else:
                    aliases[a.asname or a.name] = f"{n.module}.{a.name}"
    return aliases, star, imports


class _Scopes:
    """Assignments per scope (module or function), in source order, not entering nested defs."""

    def __init__(self, tree):
        self.parent = {}
        for p in ast.walk(tree):
            for c in ast.iter_child_nodes(p):
                self.parent[c] = p
        self.assigns = {}   # scope node -> {name: [(lineno, expr or None)]}
        self.params = {}
        for scope in [tree] + [n for n in ast.walk(tree)
                               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            self.assigns[scope] = self._scan(scope)
            if scope is not tree:
                a = scope.args
                self.params[scope] = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | \
                    ({a.vararg.arg} if a.vararg else set()) | ({a.kwarg.arg} if a.kwarg else set())

    def _scan(self, scope):
        out = {}

        def add(name, line, expr):
            out.setdefault(name, []).append((line, expr))

        def visit(stmts):
            for s in stmts:
                if isinstance(s, ast.Assign):
                    for t in s.targets:
                        if isinstance(t, ast.Name):
                            add(t.id, s.lineno, s.value)
                        else:
                            for n in ast.walk(t):
                                if isinstance(n, ast.Name):
                                    add(n.id, s.lineno, None)
                elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
                    add(s.target.id, s.lineno, s.value)
                elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                    prev = out.get(s.target.id, [])
                    if isinstance(s.op, ast.Add) and prev and prev[-1][1] is not None:
                        syn = ast.copy_location(ast.BinOp(left=prev[-1][1], op=ast.Add(), right=s.value), s)
                        self.parent[syn] = s
                        add(s.target.id, s.lineno, syn)
                    else:
                        add(s.target.id, s.lineno, None)
                elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    add(s.name, s.lineno, None)
                elif isinstance(s, (ast.Import, ast.ImportFrom)):
                    for a in s.names:
                        add((a.asname or a.name).split(".")[0], s.lineno, None)
                elif isinstance(s, (ast.For, ast.AsyncFor)):
                    for n in ast.walk(s.target):
                        if isinstance(n, ast.Name):
                            add(n.id, s.lineno, None)
                    visit(s.body)
                    visit(s.orelse)
                elif isinstance(s, (ast.With, ast.AsyncWith)):
                    for it in s.items:
                        if it.optional_vars is not None:
                            for n in ast.walk(it.optional_vars):
                                if isinstance(n, ast.Name):
                                    add(n.id, s.lineno, None)
                    visit(s.body)
                elif isinstance(s, (ast.If, ast.While)):
                    visit(s.body)
                    visit(s.orelse)
                elif isinstance(s, ast.Try) or (sys.version_info >= (3, 11) and isinstance(s, ast.TryStar)):
                    visit(s.body)
                    for h in s.handlers:
                        if h.name:
                            add(h.name, h.lineno, None)
                        visit(h.body)
                    visit(s.orelse)
                    visit(s.finalbody)
            # walrus targets anywhere in this scope
        visit(scope.body)
        for n in ast.walk(scope):
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                add(n.target.id, n.lineno, n.value)
        for v in out.values():
            v.sort(key=lambda t: t[0])
        return out

    def enclosing(self, node):
        out = []
        p = self.parent.get(node)
        while p is not None:
            if isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                out.append(p)
            p = self.parent.get(p)
        return out

    def lookup(self, name, at_node, tree):
        """The expression a name refers to at at_node, or raise NotStatic."""
        line = getattr(at_node, "lineno", 0)
        for sc in self.enclosing(at_node):
            if isinstance(sc, (ast.ClassDef, ast.Lambda)):
                if isinstance(sc, ast.Lambda):
                    raise NotStatic(f"name '{name}' inside a lambda", at_node)
                continue  # class bodies are not visible from methods
            if name in self.params.get(sc, set()):
                raise NotStatic(f"'{name}' is a function parameter", at_node)
            if name in self.assigns.get(sc, {}):
                return self._pick(name, self.assigns[sc][name], line, at_node)
        entries = self.assigns[tree].get(name)
        if not entries:
            raise NotStatic(f"name '{name}' is not assigned at module level", at_node)
        return self._pick(name, entries, line, at_node)

    @staticmethod
    def _pick(name, entries, line, at_node):
        before = [e for e in entries if e[0] < line]
        if before:
            chosen = before[-1]
        elif len(entries) == 1:
            chosen = entries[0]   # a constant defined after the function that uses it
        else:
            raise NotStatic(f"name '{name}' is assigned more than once after its use", at_node)
        if chosen[1] is None:
            raise NotStatic(f"name '{name}' is bound by something other than a plain assignment "
                            f"(line {chosen[0]})", at_node)
        return chosen[1]


class Evaluator:
    def __init__(self, tree, aliases, scopes):
        self.tree = tree
        self.aliases = aliases
        self.scopes = scopes
        self.active = set()

    def ev(self, node, depth=0, ctx=None):
        if depth > MAX_DEPTH:
            raise NotStatic("expression nested too deeply", node)
        ctx = ctx or node
        d = depth + 1
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, int, float, bool)) or node.value is None:
                return node.value
            raise NotStatic(f"constant of type {type(node.value).__name__}", node)
        if isinstance(node, ast.Name):
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            key = (node.id, id(ctx))
            if key in self.active:
                raise NotStatic(f"name '{node.id}' refers to itself", node)
            expr = self.scopes.lookup(node.id, ctx, self.tree)
            self.active.add(key)
            try:
                # names inside the assigned expression resolve at the assignment's position
                return self.ev(expr, d, expr if hasattr(expr, "lineno") else ctx)
            finally:
                self.active.discard(key)
        if isinstance(node, (ast.List, ast.Tuple)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = self.ev(e.value, d, ctx)
                    if not isinstance(v, (list, tuple)):
                        raise NotStatic("starred non-sequence", e)
                    out.extend(v)
                else:
                    out.append(self.ev(e, d, ctx))
            return out if isinstance(node, ast.List) else tuple(out)
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    m = self.ev(v, d, ctx)
                    if not isinstance(m, dict):
                        raise NotStatic("** of a non-dict", v)
                    out.update(m)
                else:
                    kk = self.ev(k, d, ctx)
                    if not isinstance(kk, (str, int, float, bool)) and kk is not None:
                        raise NotStatic("unhashable dict key", k)
                    out[kk] = self.ev(v, d, ctx)
            return out
        if isinstance(node, ast.BinOp):
            left = self.ev(node.left, d, ctx)
            right = self.ev(node.right, d, ctx)
            if isinstance(node.op, ast.Add):
                if type(left) is type(right) and isinstance(left, (str, list, tuple)):
                    return self._cap(left + right, node)
                if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (left, right)):
                    return left + right
            if isinstance(node.op, ast.Mult):
                seq, n = (left, right) if isinstance(right, int) else (right, left)
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and not isinstance(n, bool):
                    if len(seq) * max(n, 0) > MAX_STR:
                        raise NotStatic("value too large", node)
                    return seq * n
                if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (left, right)):
                    return left * right
            if isinstance(node.op, ast.Mod) and isinstance(left, str):
                if isinstance(right, (str, int, float)) or (
                        isinstance(right, tuple) and all(isinstance(x, (str, int, float)) for x in right)):
                    try:
                        return self._cap(left % right, node)
                    except (TypeError, ValueError, KeyError) as e:
                        raise NotStatic(f"% formatting fails: {e}", node)
            if isinstance(node.op, (ast.Sub, ast.FloorDiv)) and all(
                    isinstance(x, int) and not isinstance(x, bool) for x in (left, right)):
                if isinstance(node.op, ast.Sub):
                    return left - right
                if right != 0:
                    return left // right
            raise NotStatic(f"operator {type(node.op).__name__} on {type(left).__name__} and "
                            f"{type(right).__name__}", node)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(v.value)
                elif isinstance(v, ast.FormattedValue):
                    val = self.ev(v.value, d, ctx)
                    if not isinstance(val, (str, int, float, bool)) and val is not None:
                        raise NotStatic("f-string part is not a str or number", v)
                    if v.conversion == ord("r"):
                        val = repr(val)
                    elif v.conversion == ord("s"):
                        val = str(val)
                    elif v.conversion == ord("a"):
                        val = ascii(val)
                    spec = self.ev(v.format_spec, d, ctx) if v.format_spec is not None else ""
                    try:
                        parts.append(format(val, spec))
                    except (TypeError, ValueError) as e:
                        raise NotStatic(f"f-string format fails: {e}", v)
                else:
                    raise NotStatic("f-string part", v)
            return self._cap("".join(parts), node)
        if isinstance(node, ast.Call):
            return self._call(node, d, ctx)
        raise NotStatic(f"{type(node).__name__} expression", node)

    def _cap(self, v, node):
        if isinstance(v, str) and len(v) > MAX_STR:
            raise NotStatic("value too large", node)
        return v

    def _call(self, node, d, ctx):
        fq = _qualify(node.func, self.aliases)
        if fq in ("textwrap.dedent", "inspect.cleandoc"):
            if len(node.args) != 1 or node.keywords:
                raise NotStatic(f"{fq} with unusual arguments", node)
            s = self.ev(node.args[0], d, ctx)
            if not isinstance(s, str):
                raise NotStatic(f"{fq} of a non-str", node)
            import textwrap
            import inspect
            return textwrap.dedent(s) if fq == "textwrap.dedent" else inspect.cleandoc(s)
        if fq == "dict" and not node.args:
            out = {}
            for kw in node.keywords:
                if kw.arg is None:
                    m = self.ev(kw.value, d, ctx)
                    if not isinstance(m, dict):
                        raise NotStatic("dict(**x) of a non-dict", node)
                    out.update(m)
                else:
                    out[kw.arg] = self.ev(kw.value, d, ctx)
            return out
        if fq in ("str", "list", "tuple") and len(node.args) <= 1 and not node.keywords:
            v = self.ev(node.args[0], d, ctx) if node.args else ""
            if fq == "str" and isinstance(v, (str, int, float, bool)):
                return str(v)
            if fq in ("list", "tuple") and isinstance(v, (list, tuple)):
                return list(v) if fq == "list" else tuple(v)
            raise NotStatic(f"{fq}() of {type(v).__name__}", node)
        if isinstance(node.func, ast.Attribute):
            meth = node.func.attr
            recv_node = node.func.value
            if meth in ("strip", "lstrip", "rstrip", "join", "replace", "format", "upper", "lower",
                        "splitlines", "split"):
                recv = self.ev(recv_node, d, ctx)
                if not isinstance(recv, str):
                    raise NotStatic(f".{meth}() on a {type(recv).__name__}", node)
                args = [self.ev(a, d, ctx) for a in node.args if not isinstance(a, ast.Starred)]
                if any(isinstance(a, ast.Starred) for a in node.args):
                    raise NotStatic(f".{meth}(*args)", node)
                kwargs = {}
                for kw in node.keywords:
                    if kw.arg is None:
                        raise NotStatic(f".{meth}(**kwargs)", node)
                    kwargs[kw.arg] = self.ev(kw.value, d, ctx)
                if meth == "format":
                    for _lit, field, _spec, _conv in string.Formatter().parse(recv):
                        if field is not None and not re.fullmatch(r"[A-Za-z_0-9]*", field):
                            raise NotStatic(".format() with attribute or index fields", node)
                    for v in list(args) + list(kwargs.values()):
                        if not isinstance(v, (str, int, float, bool)) and v is not None:
                            raise NotStatic(".format() of a non-scalar", node)
                elif meth == "join":
                    if len(args) != 1 or kwargs or not isinstance(args[0], (list, tuple)) or \
                            not all(isinstance(x, str) for x in args[0]):
                        raise NotStatic("str.join of something other than a list of str", node)
                else:
                    if kwargs or not all(isinstance(a, (str, int)) and not isinstance(a, bool)
                                         or a is None for a in args):
                        raise NotStatic(f".{meth}() with unusual arguments", node)
                    if meth == "replace" and len(args) >= 2 and isinstance(args[1], str) and \
                            len(args[1]) > 1 and isinstance(args[0], str) and len(args[0]) == 0:
                        raise NotStatic("replace of the empty string", node)
                try:
                    out = getattr(recv, meth)(*args, **kwargs)
                except (TypeError, ValueError, KeyError, IndexError) as e:
                    raise NotStatic(f".{meth}() fails: {e}", node)
                if isinstance(out, str):
                    return self._cap(out, node)
                return out
        raise NotStatic(f"call of {fq or type(node.func).__name__}", node)


def _strip_comments(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def launch_counts(src):
    """(launches with a 4th launch argument (stream), launches without) of <<<...>>> in C++/CUDA."""
    with_stream = without = 0
    for m in re.finditer(r"<<<(.*?)>>>", _strip_comments(src), flags=re.S):
        depth, n = 0, 1
        for ch in m.group(1):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 0:
                n += 1
        if n >= 4:
            with_stream += 1
        else:
            without += 1
    return with_stream, without


def source_hints(text):
    t = _strip_comments(text)
    hints = {}
    for k, rx in SRC_HINTS.items():
        c = len(re.findall(rx, t))
        if c:
            hints[k] = c
    ws, wo = launch_counts(text)
    return {"calls": hints, "launches_with_stream": ws, "launches_without_stream": wo,
            "global_kernels": len(KERNEL_RE.findall(t)), "library_calls": len(LIBCALL_RE.findall(t))}


def has_custom_kernel(text):
    t = _strip_comments(text)
    return bool(KERNEL_RE.search(t) or LIBCALL_RE.search(t))


def _torch_display(fq):
    for pre, short in (("torch.nn.functional.", "F."), ("torch.nn.", "nn.")):
        if fq.startswith(pre):
            return short + fq[len(pre):]
    return fq


def extract(path=None, text=None):
    """The static report of a submission file (path) or of its text."""
    if text is None:
        with open(path, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return {"syntax_error": {"line": 0, "message": f"not UTF-8: {e}"}, "model_new": False,
                    "calls": [], "unsupported": [], "torch_ops": [], "python_hints": [],
                    "source_hints": {}, "load_calls": [], "imports": []}
    rep = {"syntax_error": None, "model_new": False, "calls": [], "unsupported": [],
           "torch_ops": [], "python_hints": [], "source_hints": {}, "load_calls": [], "imports": []}
    try:
        tree = ast.parse(text, filename=path or "<submission>")
    except (SyntaxError, ValueError) as e:
        rep["syntax_error"] = {"line": getattr(e, "lineno", 0) or 0, "message": getattr(e, "msg", str(e))}
        return rep
    except (RecursionError, MemoryError):
        rep["syntax_error"] = {"line": 0, "message": "file too deeply nested to parse"}
        return rep
    rep["model_new"] = any(isinstance(s, ast.ClassDef) and s.name == "ModelNew" for s in tree.body)

    aliases, star, imports = _collect_aliases(tree)
    rep["imports"] = sorted(set(imports))
    star_ce = any(m in ("torch.utils.cpp_extension",) for m in star)
    scopes = _Scopes(tree)
    ev = Evaluator(tree, aliases, scopes)

    unsupported = set()
    for imp in imports + [m + ".*" for m in star]:
        for root, label in KERNEL_LANGS:
            if imp == root or imp.startswith(root + "."):
                unsupported.add(label)
        if imp.startswith("numba.cuda") or imp == "numba.cuda":
            unsupported.add("numba.cuda")
    # `from numba import cuda` is caught above (numba.cuda); cupy.RawKernel: any cupy import

    # try-guarded regions and module-level functions called inside a try body
    guarded_nodes = set()
    guarded_calls_of = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Try) or (sys.version_info >= (3, 11) and isinstance(n, ast.TryStar)):
            if not n.handlers:
                continue
            for s in n.body:
                for m in ast.walk(s):
                    guarded_nodes.add(m)
                    if isinstance(m, ast.Call):
                        q = _qualify(m.func, aliases)
                        if q:
                            guarded_calls_of.add(q.split(".")[-1])

    ops = set()
    pyhints = set()
    outer_attrs = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute):
            if isinstance(n.value, (ast.Attribute, ast.Name)):
                outer_attrs.add(n.value)
    all_strings = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            all_strings.append(n.value)
        if isinstance(n, (ast.Attribute, ast.Name)) and n not in outer_attrs:
            if isinstance(n, ast.Name) and n.id not in aliases:
                continue
            fq = _qualify(n, aliases)
            if not fq:
                continue
            if fq.startswith("torch.") and not fq.startswith("torch.utils.cpp_extension") and \
                    fq not in ("torch.nn", "torch.nn.functional"):
                ops.add(_torch_display(fq))
            for h in PY_HINTS:
                if fq == h or fq.startswith(h + "."):
                    pyhints.add(h)
            if fq.startswith("cupy.") and fq.split(".")[1] in ("RawKernel", "RawModule", "ElementwiseKernel"):
                unsupported.add("cupy RawKernel")
    rep["torch_ops"] = sorted(ops)

    for n in ast.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        fq = _qualify(n.func, aliases)
        if fq is None:
            continue
        is_li = fq == LOAD_INLINE or (fq == "load_inline") or fq.endswith("cpp_extension.load_inline")
        is_load = fq == LOAD or fq.endswith("cpp_extension.load") or (fq == "load" and star_ce)
        if is_load:
            rep["load_calls"].append({"line": n.lineno})
            unsupported.add("torch.utils.cpp_extension.load of source files")
            continue
        if not is_li:
            continue
        encl = scopes.enclosing(n)
        where = ".".join(s.name for s in reversed(encl) if hasattr(s, "name")) or None
        top_fn = None
        for s in encl:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                top_fn = s.name
        guarded = n in guarded_nodes or any(
            isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in guarded_calls_of for s in encl)
        call = {"line": n.lineno, "col": n.col_offset, "in": where, "guarded": bool(guarded),
                "static": True, "not_static": [], "name": None, "error": None, "norm": None}
        args, kwargs = [], {}
        for i, a in enumerate(n.args):
            pname = loadinline.PARAM_NAMES[i] if i < len(loadinline.PARAM_NAMES) else f"arg{i}"
            try:
                if isinstance(a, ast.Starred):
                    v = ev.ev(a.value)
                    if not isinstance(v, (list, tuple)):
                        raise NotStatic("*args of a non-sequence", a)
                    args.extend(v)
                else:
                    args.append(ev.ev(a))
            except NotStatic as e:
                call["not_static"].append({"arg": pname, "line": e.line or a.lineno, "why": e.why})
                args.append(None)
            except RecursionError:
                call["not_static"].append({"arg": pname, "line": a.lineno, "why": "too deeply nested"})
                args.append(None)
        for kw in n.keywords:
            try:
                if kw.arg is None:
                    v = ev.ev(kw.value)
                    if not isinstance(v, dict) or not all(isinstance(k, str) for k in v):
                        raise NotStatic("**kwargs of a non-dict", kw.value)
                    kwargs.update(v)
                else:
                    kwargs[kw.arg] = ev.ev(kw.value)
            except NotStatic as e:
                call["not_static"].append({"arg": kw.arg or "**kwargs", "line": e.line or kw.value.lineno,
                                           "why": e.why})
                if kw.arg:
                    kwargs[kw.arg] = None
            except RecursionError:
                call["not_static"].append({"arg": kw.arg or "**kwargs", "line": kw.value.lineno,
                                           "why": "too deeply nested"})
        nm = kwargs.get("name", args[0] if args else None)
        call["name"] = nm if isinstance(nm, str) else None
        # arguments that do not change what is built may be dynamic (verbose=flag, build_directory=...)
        harmless = set(loadinline.DROPPED)
        call["not_static"] = [x for x in call["not_static"] if x["arg"] not in harmless]
        if call["not_static"]:
            call["static"] = False
        else:
            for h in harmless:
                if h in kwargs:
                    kwargs[h] = None if h != "verbose" else False
            try:
                norm = loadinline.normalize_call(tuple(args), kwargs)
                call["norm"] = norm
                call["key"] = loadinline.source_key(norm)
                if norm["sycl_sources"] or norm["with_sycl"]:
                    unsupported.add("SYCL sources")
                if not norm["is_python_module"]:
                    unsupported.add("load_inline(is_python_module=False)")
            except loadinline.CallError as e:
                call["error"] = str(e)
        rep["calls"].append(call)
    rep["calls"].sort(key=lambda c: (c["line"], c["col"]))

    rep["unsupported"] = sorted(unsupported)
    for imp in imports:
        for h in PY_HINTS:
            if imp == h or imp.startswith(h + "."):
                pyhints.add(h)
    rep["python_hints"] = sorted(pyhints)
    src_text = []
    for c in rep["calls"]:
        if c["norm"]:
            src_text += c["norm"]["cpp_sources"] + c["norm"]["cuda_sources"]
    # sources of calls we could not evaluate still show in the file's string constants
    rep["source_hints"] = source_hints("\n".join(src_text if all(c["static"] for c in rep["calls"])
                                                 else all_strings))
    return rep


def public(rep):
    """The report without the (large) normalized calls: what the manifest keeps."""
    out = dict(rep)
    out["calls"] = []
    for c in rep["calls"]:
        c = dict(c)
        c.pop("norm", None)
        out["calls"].append(c)
    return out


if __name__ == "__main__":
    import json
    print(json.dumps(public(extract(sys.argv[1])), indent=1))
