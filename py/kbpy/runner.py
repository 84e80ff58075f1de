"""The GPU stages' child for a KernelBench-format (.py) target: the same kb-runner, hosted by Python.

  python3 py/kbpy/runner.py --lib build/lib/libkbrunner.so --problem P.so --spec problems/levelN/X.py \
      --submission DIR/kernel.py [--class ModelNew] [--float64 1]

Started by the GPU stages (gpu/session.c) with the protocol pipes on fds 3 and 4, never by hand.
`import torch` happens here, first, outside the sandbox; then kb_runner_main (gpu/runner.c) runs
the protocol, calling the hooks of kbpy.runtime.Target: setup (trusted), the sandbox, load (the
file's module: its own code, confined), then forward/collect per request. The exit status is
kb_runner_main's; Python's own shutdown (and anything the file registered with atexit) is skipped.
For the PyTorch baseline the target is the problem's own spec: --submission = --spec, --class Model.
--float64 1 (the witness stage's reference, docs/mutation.md): the model and its floating-point
inputs in float64 for each call, every output rounded once to the problem's dtype.
"""
import ctypes
import os
import sys
import time

T0 = time.monotonic()  # the child's start, for the start-up trace in its log

sys.dont_write_bytecode = True  # a .pyc would be a write: the sandbox refuses it
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
os.environ.setdefault("TORCH_EXTENSIONS_DIR", "/nonexistent/kb-runner-never-builds")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402  trusted set-up, before the sandbox
import torch.nn  # noqa: E402,F401
import torch.nn.functional  # noqa: E402,F401
import torch.utils.cpp_extension  # noqa: E402,F401

from kbpy import runtime  # noqa: E402

runtime.T0 = T0
runtime.trace("imports (torch, torch.utils.cpp_extension, kbpy)")
runtime.preimport()
runtime.trace("torch._dynamo and the dispatch machinery imported")

MAX_DIMS = 8


class KbInput(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_DIMS), ("data", ctypes.c_void_p)]


class KbArgs(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("n_inputs", ctypes.c_uint32), ("inputs", ctypes.POINTER(KbInput)),
                ("n_outputs", ctypes.c_uint32), ("outputs", ctypes.POINTER(KbInput)), ("stream", ctypes.c_void_p)]


SETUP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(KbArgs), ctypes.POINTER(ctypes.c_int32),
                         ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)
LOAD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
VOIDF = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
FORWARD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
NOTE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
PEAK = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)
MATH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)


class KbTarget(ctypes.Structure):
    _fields_ = [("user", ctypes.c_void_p), ("setup", SETUP), ("load", LOAD), ("before_call", VOIDF),
                ("forward", FORWARD), ("collect", LOAD), ("note", NOTE), ("alloc_peak", PEAK),
                ("alloc_reset", VOIDF), ("set_math", MATH)]


def put(buf, n, text):
    """text into the C buffer buf of n bytes, NUL-terminated."""
    if not buf or n == 0:
        return
    b = text.encode("utf-8", "replace")[: n - 1]
    ctypes.memmove(buf, b + b"\0", len(b) + 1)


def main(argv):
    opts = {"--class": "ModelNew"}
    i = 1
    while i + 1 < len(argv):
        opts[argv[i]] = argv[i + 1]
        i += 2
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return 0
    for k in ("--lib", "--problem", "--spec", "--submission"):
        if k not in opts:
            sys.stderr.write("kbpy runner: missing %s (started by the GPU stages, not by hand)\n" % k)
            return 2
    target = runtime.Target(opts["--submission"], opts["--spec"], opts["--class"], opts["--problem"],
                            float64=opts.get("--float64") == "1")

    def setup(_u, args, roles, mm_tf32, cudnn_tf32, err, n):
        try:
            a = args.contents
            tensors = []
            for k in range(a.n_inputs):
                t = a.inputs[k]
                tensors.append((t.name.decode(), roles[k], t.dtype, list(t.shape[: t.ndim]), t.data or 0, False))
            for k in range(a.n_outputs):
                t = a.outputs[k]
                tensors.append((t.name.decode(), 2, t.dtype, list(t.shape[: t.ndim]), t.data or 0, True))
            target.setup(tensors, a.stream or 0, mm_tf32, cudnn_tf32)
            return 0
        except BaseException as e:  # our own failure: the stage reports it as a harness error
            put(err, n, "%s: %s" % (type(e).__name__, e))
            return 1

    def load(_u, err, n):
        kind, msg = target.load()
        if kind:
            put(err, n, msg)
        return kind

    def forward(_u):
        return target.forward()

    def collect(_u, err, n):
        try:
            msg = target.collect()
        except BaseException as e:
            msg = "output: " + runtime._exc_line(e)
        if msg:
            put(err, n, msg)
            return 1
        return 0

    def note(_u, buf, n):
        put(buf, n, target.note())

    def before_call(_u):
        target.before_call()

    def set_math(_u, mm_tf32, cudnn_tf32, err, n):
        try:
            target.set_math(mm_tf32, cudnn_tf32)
            return 0
        except BaseException as e:
            put(err, n, "%s: %s" % (type(e).__name__, e))
            return 1

    hooks = KbTarget(None, SETUP(setup), LOAD(load), VOIDF(before_call), FORWARD(forward), LOAD(collect),
                     NOTE(note), PEAK(lambda _u: target.alloc_peak()), VOIDF(lambda _u: target.alloc_reset()),
                     MATH(set_math))
    # PyDLL: the GIL stays held across the call (one thread runs Python; the callbacks need it)
    lib = ctypes.PyDLL(opts["--lib"])
    lib.kb_runner_main.restype = ctypes.c_int
    lib.kb_runner_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(KbTarget)]
    cargv = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
    rc = lib.kb_runner_main(len(argv), cargv, ctypes.byref(hooks))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
