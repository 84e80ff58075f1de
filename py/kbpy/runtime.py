"""What a KernelBench-format file meets inside the sandboxed runner.

kbpy/runner.py calls these in order (gpu/kb_runner.h has the C side):

  Target.setup()    before the sandbox (trusted): torch's CUDA state on the harness's device
                    and stream, the math mode, cuBLAS/cuBLASLt/cuDNN warmed, the harness's
                    tensors wrapped as torch tensors (no copy), the problem's spec read, the
                    sample's source and manifest read, load_inline replaced
  Target.load()     inside the sandbox: the file's module is executed (its top level
                    included); load_inline returns the extension the compile stage built (never
                    builds); ModelNew(*get_init_inputs()) is constructed and its parameters are
                    bound to the harness's (by name where the names agree, the rest by shape
                    and order; a mismatch is a named failure; how they were bound is said in
                    the first call's note)
  Target.forward()  the timed call: model(*inputs), nothing else
  Target.collect()  untimed: the returned tensors copied into the harness's output buffers
  Target.note()     what the last call did: extension calls, the PyTorch ops it dispatched (first
                    call), or the exception

Nothing here trusts the file: its exceptions become named failures, its return values are
checked, and it never sees the reference.
"""

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import time
import traceback
import types

import torch

from kbpy import loadinline

# kb_dtype (include/kb/submission.h) -> torch dtype, element size
DTYPES = {0: (torch.float32, 4), 1: (torch.float16, 2), 2: (torch.bfloat16, 2), 3: (torch.float64, 8),
          4: (torch.int64, 8), 5: (torch.int32, 4), 6: (torch.bool, 1)}
# the same dtype as a __cuda_array_interface__ typestr (bf16 has none: wrapped as int16, viewed)
TYPESTR = {torch.float32: "<f4", torch.float16: "<f2", torch.bfloat16: "<i2", torch.float64: "<f8",
           torch.int64: "<i8", torch.int32: "<i4", torch.bool: "|b1"}
ROLE_INPUT, ROLE_PARAM, ROLE_STATE = 0, 1, 3

# outcome kinds the load hook may return (lib/core/kb_artifact.h, kb_outcome)
OUT_LOAD_ERROR = 10

# ATen ops that run in a vendor library on CUDA float tensors (what "library calls through PyTorch
# ops" counts); anything else is PyTorch's own kernel
LIBRARY_OPS = {
    "cublas": ("mm", "addmm", "bmm", "baddbmm", "addbmm", "addmv", "mv", "dot", "vdot", "_addmm_activation",
               "addr", "matmul", "_scaled_mm", "linear"),
    "cudnn": ("convolution", "_convolution", "cudnn_convolution", "cudnn_convolution_transpose",
              "cudnn_batch_norm", "_cudnn_rnn", "cudnn_grid_sampler", "cudnn_affine_grid_generator",
              "conv2d", "conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"),
}


class RuntimeBuild(RuntimeError):
    """The file asked for an extension the compile stage did not build."""


class _Tensor:
    """A device buffer of the harness, presented to torch.as_tensor without a copy."""

    def __init__(self, ptr, shape, dtype):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": TYPESTR[dtype], "data": (ptr, False),
                                         "version": 3, "strides": None, "stream": None}


def wrap(ptr, shape, dtype):
    if ptr == 0:  # an empty tensor has no buffer
        return torch.empty(tuple(shape), dtype=dtype, device="cuda")
    t = torch.as_tensor(_Tensor(ptr, shape, dtype), device="cuda")
    return t.view(torch.bfloat16) if dtype == torch.bfloat16 else t


class _CountingModule:
    """The extension module as the file sees it: every function it exports counts its calls, so
    a forward that never calls its own kernel (a fallback, a pure PyTorch rewrite) is seen."""

    def __init__(self, mod, counter):
        self._mod = mod
        self._counter = counter

    def __getattr__(self, name):
        v = getattr(self._mod, name)
        if callable(v) and not isinstance(v, type):
            counter = self._counter

            def counted(*a, **k):
                counter[0] += 1
                return v(*a, **k)

            counted.__name__ = getattr(v, "__name__", name)
            counted.__doc__ = getattr(v, "__doc__", None)
            self.__dict__[name] = counted
            return counted
        return v

    def __dir__(self):
        return dir(self._mod)


def _exc_line(e):
    s = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    # no source lines: looking them up would open files, inside the sandbox
    tb = traceback.StackSummary.extract(traceback.walk_tb(e.__traceback__), lookup_lines=False)
    here = [f for f in tb if f.filename.endswith("kernel.py")]
    if here:
        s += " (kernel.py line %d)" % here[-1].lineno
    return s[:480]


def exec_file(path, modname, source=None):
    """The Python file at `path` (or `source`, read from it before) executed as module `modname`."""
    if source is None:
        with open(path, "rb") as f:
            source = f.read()
    mod = types.ModuleType(modname)
    mod.__file__ = path
    sys.modules[modname] = mod
    exec(compile(source, path, "exec"), mod.__dict__)
    return mod


def install_prebuilt(manifest, base, counter):
    """Replaces torch.utils.cpp_extension.load_inline (and load) by a loader of the extensions
    the compile stage built (manifest.json in `base`): the same call finds its extension by the
    key of its arguments; an unknown one is a RuntimeBuild (the runner never builds); a failed
    build raises as torch would (a file may catch it and fall back). Calls of the returned
    module's functions are counted in counter[0]."""
    import torch.utils.cpp_extension as cpp
    built = {e["key"]: e for e in manifest.get("extensions", [])}

    def load_inline(*args, **kwargs):
        norm = loadinline.normalize_call(args, kwargs)
        key = loadinline.source_key(norm)
        e = built.get(key)
        if e is None:
            raise RuntimeBuild("runtime_build: load_inline(name=%r) with sources the compile stage did not "
                               "see (computed at run time?); the runner never builds" % norm.get("name"))
        if e.get("status") != "ok":
            raise RuntimeError("Error building extension '%s': %s" % (e.get("name"), e.get("reason", "")))
        so = os.path.join(base, e["so"])
        module = e.get("module", e["name"])  # torch versions a repeated name: name_v1
        loader = importlib.machinery.ExtensionFileLoader(module, so)
        spec = importlib.util.spec_from_file_location(module, so, loader=loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        return _CountingModule(mod, counter)

    def load(*args, **kwargs):
        raise RuntimeBuild("runtime_build: torch.utils.cpp_extension.load() of source files is not supported; "
                           "use load_inline")

    cpp.load_inline = load_inline
    cpp.load = load


T0 = time.monotonic()  # runner.py sets the process's start


def trace(what):
    """One start-up step into the child's log: seconds since the process started."""
    sys.stderr.write("kbpy +%.2f s  %s\n" % (time.monotonic() - T0, what))


def preimport():
    """The CPU-only part of the rehearsal, run before INIT (the stage may start this child before
    it holds its GPU): torch._dynamo (pulled in lazily by torch.manual_seed and by the first
    Module call, ~2-4 s on the H200) and the dispatch-mode machinery. Skipping the rehearsal for
    the PyTorch baseline only moved those seconds into its first call, under the GPU lock
    (on the H200: 10-14 s of work per problem instead of ~2)."""
    import torch._dynamo  # noqa: F401
    import torch.utils._python_dispatch  # noqa: F401


def _shape(t):
    return list(t.shape)


def module_state(model):
    """The module's state as the harness names it: every registered buffer (named_buffers()'s
    names and order), then every plain tensor attribute of every submodule ("h0", "blk.mask"),
    as [(name, owner, attribute, tensor)]."""
    out, seen = [], set()
    for prefix, mod in model.named_modules():
        for k, b in mod._buffers.items():
            if b is not None and id(b) not in seen:
                seen.add(id(b))
                out.append(((prefix + "." if prefix else "") + k, mod, k, b))
    for prefix, mod in model.named_modules():
        for k, v in vars(mod).items():
            if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) and id(v) not in seen:
                seen.add(id(v))
                out.append(((prefix + "." if prefix else "") + k, mod, k, v))
    return out


def bind_state(model, want, cls="ModelNew"):
    """Which of the module's state takes which of the harness's (want: [(name, tensor)], the
    problem's state in its descriptor's order). As bind_parameters: by name where the module has
    that name with that shape and dtype, the rest by shape and order among the module's state left.
    Unlike a parameter, state the module does not have is no error: a ModelNew may compute without
    it (a fused BatchNorm that keeps no running statistics); its outputs are checked all the same.
    Returns (pairs [(owner, attribute, tensor)], binding): "name" when every piece was bound by
    name, else the others as "shape(a<-x,...)", "order(b<-y,...)" (module's name <- problem's)
    and "unbound(z,...)" (the module has nothing of that shape and dtype left)."""
    mine = module_state(model)
    by_name = {n: (o, a, t) for n, o, a, t in mine}

    def fits(t, h):
        return _shape(t) == _shape(h) and t.dtype == h.dtype

    pairs, rest, used = [], [], set()
    for n, h in want:
        m = by_name.get(n)
        if m and fits(m[2], h):
            pairs.append((m[0], m[1], h))
            used.add(n)
        else:
            rest.append((n, h))
    free = [(n, o, a, t) for n, o, a, t in mine if n not in used and n not in dict(want)]
    how = {"shape": [], "order": [], "unbound": []}
    for n, h in rest:
        k = next((i for i, f in enumerate(free) if fits(f[3], h)), None)
        if k is None:
            how["unbound"].append(n)
            continue
        f = free.pop(k)
        pairs.append((f[1], f[2], h))
        several = sum(1 for _, x in rest if fits(x, h)) > 1
        how["order" if several else "shape"].append("%s<-%s" % (f[0], n))
    return pairs, ",".join("%s(%s)" % (k, ",".join(v)) for k, v in how.items() if v) if rest else "name"


def bind_parameters(mine, want, cls="ModelNew"):
    """Which of the module's parameters takes which of the harness's. mine: [(name, parameter)], the
    module's named_parameters() (its own parameters first, then its submodules', each in
    registration order); want: [(name, tensor)], the problem's parameters in its descriptor's
    order (KB_INPUTS, the spec's named_parameters()).

    Each of the problem's names that the module also has with that shape is bound by name. Each
    parameter left is bound by shape, and where several left have one shape, by their order: the
    k-th of the module's of that shape takes the k-th of the problem's. That is the pairing
    KernelBench's seeded construction makes when a file keeps the problem's structure (parameters
    created in the same order draw the same values), so a file that renames and also reorders
    parameters of one shape gets the other one's values, as it would there, and its binding says
    that order chose. Never a reshape or a re-initialisation.

    Returns (pairs, binding, error): pairs [(parameter, tensor)] in the descriptor's order;
    binding "name" when every parameter was bound by name, else the pairs that were not, as
    "shape(a<-x,...)" (the only one of its shape left) and "order(b<-y,...)" (chosen by order
    among several of one shape), module's name <- problem's; error "" or "param_mismatch: ..."
    saying which parameter cannot take which."""
    mine_d = dict(mine)
    same = {n for n, t in want if n in mine_d and _shape(mine_d[n]) == _shape(t)}
    rest_mine = [(n, p) for n, p in mine if n not in same]
    rest_want = [(n, t) for n, t in want if n not in same]

    def mismatch(why):
        # a name both have with another shape says the most: said first
        renamed = ["%s.%s is %s, the problem's %s is %s" % (cls, n, _shape(mine_d[n]), n, _shape(t))
                   for n, t in want if n in mine_d and n not in same]
        return ("param_mismatch: %s; %s has [%s], the problem [%s]; the harness binds the problem's parameters by "
                "name, the rest by shape and order, and never re-initialises" % (
                    "; ".join(renamed + [why]), cls, ", ".join("%s%s" % (n, _shape(p)) for n, p in mine),
                    ", ".join("%s%s" % (n, _shape(t)) for n, t in want)))[:480]

    if len(rest_mine) != len(rest_want):
        return [], "", mismatch("%s has %d parameters, the problem %d (not bound by name: %s's [%s], the problem's "
                                "[%s])" % (cls, len(mine), len(want), cls, ", ".join(n for n, _ in rest_mine),
                                           ", ".join(n for n, _ in rest_want)))
    free = list(rest_mine)
    taken = {}
    for m, t in rest_want:
        k = next((i for i, (_, p) in enumerate(free) if _shape(p) == _shape(t)), None)
        if k is None:
            return [], "", mismatch("the problem's %s %s has no parameter of that shape in %s (left: [%s])" % (
                m, _shape(t), cls, ", ".join("%s%s" % (n, _shape(p)) for n, p in free)))
        taken[m] = free.pop(k)
    named = [(n, mine_d[n]) if n in same else taken[n] for n, _ in want]
    for (n, p), (m, t) in zip(named, want):
        if p.dtype != t.dtype:
            return [], "", mismatch("%s.%s is %s, the problem's %s is %s" % (cls, n, p.dtype, m, t.dtype))
    pairs = [(p, t) for (_, p), (_, t) in zip(named, want)]
    if not rest_want:
        return pairs, "name", ""
    shapes = [tuple(_shape(t)) for _, t in rest_want]
    how = {"shape": [], "order": []}
    for m, t in rest_want:
        how["shape" if shapes.count(tuple(_shape(t))) == 1 else "order"].append("%s<-%s" % (taken[m][0], m))
    return pairs, ",".join("%s(%s)" % (k, ",".join(v)) for k, v in how.items() if v), ""


class Target:
    def __init__(self, submission, spec, cls, problem_id, float64=False):
        self.submission = submission  # DIR/kernel.py (the compile stage's snapshot) or the spec
        self.spec_path = spec         # problems/levelN/NNN_name.py
        self.cls_name = cls           # "ModelNew" or, for the PyTorch baseline, "Model"
        self.problem_id = problem_id
        self.ext_calls = [0]
        self.calls = 0
        self.ret = None
        self.last_error = ""
        self.ops = None
        self.model = None
        self.in_call = False
        self.ext_before = 0
        self.binding = None  # how its parameters were bound (bind_parameters), said in the first call's note
        self.params, self.state = [], []  # (name, tensor) of the harness, in the descriptor's order (setup)
        self.float64 = float64  # the witness stage's fp64 reference: model and inputs in float64

    # ---- before the sandbox ---------------------------------------------------------------------
    def setup(self, tensors, stream_ptr, matmul_tf32, cudnn_tf32):
        """tensors: (name, role, kb_dtype, shape, ptr) in kb_args order: inputs, then outputs."""
        trace("INIT received")
        torch.cuda.init()
        self.device = torch.device("cuda", torch.cuda.current_device())
        trace("torch.cuda.init")
        self.stream = torch.cuda.ExternalStream(stream_ptr, device=self.device)
        torch.cuda.set_stream(self.stream)
        self.set_math(matmul_tf32, cudnn_tf32)
        self.inputs, self.params, self.state, self.outputs = [], [], [], []
        for name, role, dt, shape, ptr, is_out in tensors:
            dtype = DTYPES[dt][0]
            t = wrap(ptr, shape, dtype)
            (self.outputs if is_out else self.params if role == ROLE_PARAM else self.state if role == ROLE_STATE
             else self.inputs).append((name, t))
        self._warm()
        trace("cuBLAS, cuBLASLt, cuDNN warmed")
        # the problem's spec (our own file): its get_init_inputs, and its Model for the baseline
        self.spec = exec_file(self.spec_path, "kb_spec")
        self.init_inputs = list(self.spec.get_init_inputs()) if hasattr(self.spec, "get_init_inputs") else []
        self.scalars = self._scalar_arguments()
        if os.path.realpath(self.submission) != os.path.realpath(self.spec_path):
            with open(self.submission, "rb") as f:
                self.source = f.read()
            mpath = os.path.join(os.path.dirname(self.submission), "manifest.json")
            with open(mpath) as f:
                self.manifest = json.load(f)
            if self.manifest.get("source_sha256") not in (None, hashlib.sha256(self.source).hexdigest()):
                raise RuntimeError("kernel.py does not match its manifest: rebuild (make compile)")
            why = loadinline.toolchain_mismatch(self.manifest, sys.implementation.cache_tag, torch.__version__)
            if why:
                raise RuntimeError("%s: %s" % (self.submission, why))
        else:
            self.source, self.manifest = None, {"extensions": []}
        self._patch_cpp_extension()
        trace("spec and manifest read")
        self._rehearse()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        trace("rehearsal (%s once, a dispatch-mode call)" % self.cls_name)

    def set_math(self, matmul_tf32, cudnn_tf32):
        """PyTorch's two flags, as the paper sets them (matmul TF32 = set_float32_matmul_precision);
        at set-up, and again when the stage switches mode (KB_MSG_MATH)."""
        torch.backends.cuda.matmul.allow_tf32 = bool(matmul_tf32)
        torch.set_float32_matmul_precision("high" if matmul_tf32 else "highest")
        torch.backends.cudnn.allow_tf32 = bool(cudnn_tf32)
        self.math = (bool(matmul_tf32), bool(cudnn_tf32))

    def _scalar_arguments(self):
        """The forward() arguments get_inputs() gives as Python numbers (L1/5's `s = 3.14`): the
        harness holds them as 0-d tensors, and the model is called with the number itself, as
        KernelBench calls it (a 0-d CUDA tensor would take PyTorch's slower broadcast path and
        break an extension that takes a float). {position: int or float}."""
        out = {}
        if not hasattr(self.spec, "get_inputs"):
            return out
        try:
            with torch.device("meta"):
                sample = list(self.spec.get_inputs())
        except Exception:
            return out
        for i, v in enumerate(sample):
            if isinstance(v, (int, float)) and not isinstance(v, bool) and i < len(self.inputs) and \
                    self.inputs[i][1].dim() == 0:
                out[i] = type(v)
        return out

    def _refresh_scalars(self):
        """The numbers from the harness's 0-d tensors (untimed: before a call, after a re-draw)."""
        for i, kind in self.scalars.items():
            self.args[i] = kind(self.inputs[i][1].item())

    def _rehearse(self):
        """What load() and the first call touch in torch, once, before the sandbox: torch imports
        much lazily (torch.manual_seed pulls in torch._dynamo, which opens a socket when it is
        imported), and every lazy import inside the sandbox is a round of file opens through the
        warden, or a violation."""
        import torch._dynamo  # noqa: F401  (imported before INIT already: preimport())
        from torch.utils._python_dispatch import TorchDispatchMode

        torch.manual_seed(0)
        if hasattr(self.spec, "Model"):
            m = self.spec.Model(*self.init_inputs)
            m.to(self.device)
            del m

        class Rec(TorchDispatchMode):
            def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        with torch.no_grad(), Rec():
            torch.relu(torch.ones(4, device=self.device))

    def _warm(self):
        """cuBLAS, cuBLASLt, cuDNN initialised on the harness's stream, as in any PyTorch process
        before its first kernel (their one-time set-up is not the submission's)."""
        a = torch.ones(64, 64, device=self.device)
        torch.mm(a, a)
        torch.addmm(a[0], a, a)
        torch.bmm(a.view(1, 64, 64), a.view(1, 64, 64))
        x = torch.ones(1, 4, 8, 8, device=self.device)
        w = torch.ones(4, 4, 3, 3, device=self.device)
        torch.nn.functional.conv2d(x, w)
        torch.nn.functional.conv_transpose2d(x, w)
        torch.nn.functional.batch_norm(x, None, None, torch.ones(4, device=self.device),
                                       torch.zeros(4, device=self.device), training=True)
        torch.cuda.synchronize()

    def _patch_cpp_extension(self):
        install_prebuilt(self.manifest, os.path.dirname(self.submission), self.ext_calls)

    # ---- inside the sandbox -----------------------------------------------------------------------
    def load(self):
        """Returns (0, "") or (outcome kind, message)."""
        try:
            if self.source is None:
                mod = self.spec
            else:
                mod = exec_file(self.submission, "kb_submission", self.source)
        except RuntimeBuild as e:
            return OUT_LOAD_ERROR, str(e)
        except BaseException as e:  # SystemExit included: the file's top level is its own
            return OUT_LOAD_ERROR, "import: " + _exc_line(e)
        cls = getattr(mod, self.cls_name, None)
        if cls is None:
            return OUT_LOAD_ERROR, "the file defines no class %s" % self.cls_name
        try:
            torch.manual_seed(0)
            model = cls(*self.init_inputs)
        except BaseException as e:
            return OUT_LOAD_ERROR, "%s(*get_init_inputs()): %s" % (self.cls_name, _exc_line(e))
        if not isinstance(model, torch.nn.Module):
            return OUT_LOAD_ERROR, "%s is not a torch.nn.Module" % self.cls_name
        msg = self._bind(model)
        if msg:
            return OUT_LOAD_ERROR, msg
        try:
            model.to(self.device)  # buffers and anything not bound (parameters are the harness's)
        except BaseException as e:
            return OUT_LOAD_ERROR, "%s.to(cuda): %s" % (self.cls_name, _exc_line(e))
        if self.float64:
            try:
                model.double()  # its buffers (running statistics); the parameters follow each call
            except BaseException as e:
                return OUT_LOAD_ERROR, "%s.double(): %s" % (self.cls_name, _exc_line(e))
        self.model = model
        self.args = [t for _, t in self.inputs]
        self._refresh_scalars()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        trace("loaded: %s built and bound (binding=%s)" % (self.cls_name, self.binding))
        return 0, ""

    def _bind(self, model):
        """The harness's parameters become the module's (no copy): bind_parameters. Returns "" or
        the mismatch."""
        pairs, how, err = bind_parameters(list(model.named_parameters()), self.params, self.cls_name)
        if err:
            return err
        self.bound = pairs
        self.binding = how
        for p, t in pairs:
            p.data = t
            p.requires_grad_(False)
        if self.state:
            # module state (buffers, tensor attributes): the harness's memory becomes the module's,
            # so an in-place update (BatchNorm's running statistics) lands where the harness put it
            spairs, show = bind_state(model, self.state, self.cls_name)
            for owner, attr, t in spairs:
                if attr in owner._buffers:
                    owner._buffers[attr] = t
                else:
                    setattr(owner, attr, t)  # a plain tensor attribute (an RNN's h0)
            self.binding = "%s; state %s" % (how, show)
        return ""

    def before_call(self):
        self.in_call = True
        self.ext_before = self.ext_calls[0]
        if self.scalars:
            self._refresh_scalars()

    def forward(self):
        try:
            with torch.no_grad():
                if self.float64:
                    self.ret = self._forward_float64()
                elif self.in_call and self.ops is None:
                    self.ret = self._forward_recording()
                else:
                    self.ret = self.model(*self.args)
            self.last_error = ""
            return 0
        except BaseException as e:
            self.ret = None
            self.last_error = "exception: " + _exc_line(e)
            return 1
        finally:
            self.calls += 1
            self.in_call = False

    def _forward_float64(self):
        """One call in float64: the harness's parameters and floating-point inputs as float64
        copies of this draw's values (the harness re-draws them in place between calls)."""
        for p, t in getattr(self, "bound", []):
            p.data = t.double() if t.is_floating_point() else t
        args = [a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in self.args]
        return self.model(*args)

    def _forward_recording(self):
        """The first call also records which ATen ops it dispatched (untimed: stages time with
        TIME, never with the first CALL)."""
        from torch.utils._python_dispatch import TorchDispatchMode
        ops = {}

        class Rec(TorchDispatchMode):
            def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
                n = func.__name__.split(".")[0]
                ops[n] = ops.get(n, 0) + 1
                return func(*args, **(kwargs or {}))

        try:
            with Rec():
                r = self.model(*self.args)
        finally:
            self.ops = ops
        return r

    def collect(self):
        """Returns "" or why the returned value cannot be the problem's output."""
        r, self.ret = self.ret, None
        outs = list(r) if isinstance(r, (tuple, list)) else [r]
        if len(outs) != len(self.outputs):
            return "output: forward returned %d tensors, the problem has %d outputs" % (len(outs), len(self.outputs))
        for (name, dst), got in zip(self.outputs, outs):
            if not isinstance(got, torch.Tensor):
                return "output %s: forward returned %s, not a tensor" % (name, type(got).__name__)
            if tuple(got.shape) != tuple(dst.shape):
                return "output %s: shape %s, expected %s" % (name, list(got.shape), list(dst.shape))
            if self.float64 and got.dtype == torch.float64 and dst.is_floating_point():
                got = got.to(dst.dtype)  # rounded once
            if got.dtype != dst.dtype:
                return "output %s: dtype %s, expected %s" % (name, got.dtype, dst.dtype)
            if got.device.type != "cuda":
                return "output %s: on %s, not on the GPU" % (name, got.device)
            dst.copy_(got)
        return ""

    def note(self):
        if self.last_error:
            return self.last_error
        s = "ext_calls=%d" % (self.ext_calls[0] - self.ext_before)
        if self.ops is not None and not getattr(self, "_ops_said", False):
            self._ops_said = True
            libs = {lib: sum(c for o, c in self.ops.items() if o in names) for lib, names in LIBRARY_OPS.items()}
            if self.binding:
                s += " binding=" + self.binding[:200]
            s += " " + " ".join("%s=%d" % kv for kv in libs.items())
            s += " ops=" + ",".join("%s:%d" % kv for kv in sorted(self.ops.items()))
        return s

    def alloc_peak(self):
        return int(torch.cuda.max_memory_allocated(self.device))

    def alloc_reset(self):
        torch.cuda.reset_peak_memory_stats(self.device)
