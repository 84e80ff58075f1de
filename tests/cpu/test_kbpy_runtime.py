"""CPU tests of py/kbpy/runtime.py: what a KernelBench-format file meets in the runner, without a
GPU: the prebuilt-extension loader (a call the compile stage never saw is refused, a failed
build raises as torch would so a file can fall back), parameter binding (by name, by order and
shape, a mismatch named, never a re-initialisation), and the checks on returned values."""
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "py"))
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.utils.cpp_extension as cpp  # noqa: E402

from kbpy import loadinline, runtime  # noqa: E402

SRC = '''
import torch
from torch.utils.cpp_extension import load_inline
ext = load_inline(name="e1", cpp_sources="torch::Tensor f(torch::Tensor x);", cuda_sources="// kernel",
                  functions=["f"])
'''

FALLBACK = '''
import torch
from torch.utils.cpp_extension import load_inline
try:
    ext = load_inline(name="e1", cpp_sources="torch::Tensor f(torch::Tensor x);", cuda_sources="// kernel",
                      functions=["f"])
except Exception as e:
    ext = None
    why = str(e)
'''


def run_file(src):
    mod = types.ModuleType("t")
    exec(compile(src, "kernel.py", "exec"), mod.__dict__)
    return mod


class Loader(unittest.TestCase):
    def setUp(self):
        self.saved = cpp.load_inline, cpp.load

    def tearDown(self):
        cpp.load_inline, cpp.load = self.saved

    def key(self):
        return loadinline.source_key(loadinline.normalize_call(
            (), dict(name="e1", cpp_sources="torch::Tensor f(torch::Tensor x);", cuda_sources="// kernel",
                     functions=["f"])))

    def test_unknown_call_is_refused(self):
        runtime.install_prebuilt({"extensions": []}, "/nonexistent", [0])
        with self.assertRaises(runtime.RuntimeBuild) as c:
            run_file(SRC)
        self.assertIn("runtime_build", str(c.exception))

    def test_changed_source_is_refused(self):
        runtime.install_prebuilt({"extensions": [{"key": self.key(), "name": "e1", "status": "ok", "so": "x.so"}]},
                                 "/nonexistent", [0])
        with self.assertRaises(runtime.RuntimeBuild):
            run_file(SRC.replace("// kernel", "// kernel 2"))

    def test_failed_build_raises_like_torch(self):
        runtime.install_prebuilt({"extensions": [{"key": self.key(), "name": "e1", "status": "compile_error",
                                                  "reason": "error: x"}]}, "/nonexistent", [0])
        with self.assertRaises(RuntimeError):
            run_file(SRC)
        m = run_file(FALLBACK)  # a guarded file falls back, as under torch
        self.assertIsNone(m.ext)
        self.assertIn("Error building extension 'e1'", m.why)

    def test_load_of_files_is_refused(self):
        runtime.install_prebuilt({"extensions": []}, "/nonexistent", [0])
        with self.assertRaises(runtime.RuntimeBuild):
            cpp.load(name="x", sources=["a.cu"])


class Counting(unittest.TestCase):
    def test_calls_are_counted(self):
        c = [0]
        m = runtime._CountingModule(types.SimpleNamespace(f=lambda x: x + 1, n=3), c)
        self.assertEqual(m.f(1), 2)
        self.assertEqual(m.f(2), 3)
        self.assertEqual(m.n, 3)
        self.assertEqual(c[0], 2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv2d = nn.Conv2d(2, 3, 3, bias=True)


class Renamed(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 2, 3, 3))
        self.b = nn.Parameter(torch.randn(3))


def target(params, outputs=()):
    t = runtime.Target("k.py", "s.py", "ModelNew", "level1/x")
    t.params = params
    t.outputs = list(outputs)
    return t


class Bind(unittest.TestCase):
    def harness(self):
        return [("conv2d.weight", torch.full((3, 2, 3, 3), 7.0)), ("conv2d.bias", torch.full((3,), 5.0))]

    def test_by_name_shares_storage(self):
        h = self.harness()
        t, m = target(h), Net()
        self.assertEqual(t._bind(m), "")
        self.assertEqual(t.binding, "by name")
        self.assertEqual(m.conv2d.weight.data_ptr(), h[0][1].data_ptr())  # no copy
        h[0][1].fill_(9.0)  # new values at the same address reach the module
        self.assertEqual(float(m.conv2d.weight[0, 0, 0, 0]), 9.0)

    def test_by_order_and_shape(self):
        h = self.harness()
        t, m = target(h), Renamed()
        self.assertEqual(t._bind(m), "")
        self.assertEqual(t.binding, "by order")
        self.assertEqual(m.b.data_ptr(), h[1][1].data_ptr())

    def test_mismatch_is_named(self):
        t, m = target([("conv2d.weight", torch.zeros(3, 2, 3, 3))]), Net()
        msg = t._bind(m)
        self.assertTrue(msg.startswith("param_mismatch"), msg)
        self.assertIn("conv2d.bias", msg)

    def test_no_parameters_anywhere(self):
        self.assertEqual(target([])._bind(nn.ReLU()), "")


class Scalars(unittest.TestCase):
    """A forward() argument that get_inputs() gives as a Python number reaches the model as that
    number (KernelBench's L1/5 `A * s`), refreshed from the harness's 0-d tensor before a call."""

    def test_number_arguments(self):
        spec = types.SimpleNamespace(get_inputs=lambda: [torch.rand(4, 3), 3.14, 7])
        t = target([])
        t.spec = spec
        t.inputs = [("A", torch.zeros(4, 3)), ("s", torch.tensor(3.14)), ("k", torch.tensor(7.0))]
        t.scalars = t._scalar_arguments()
        self.assertEqual(t.scalars, {1: float, 2: int})
        t.args = [x for _, x in t.inputs]
        t.ext_calls = [0]
        t.inputs[1][1].fill_(2.5)  # a re-draw in the harness's tensor
        t.before_call()
        self.assertIsInstance(t.args[1], float)
        self.assertEqual(t.args[1], 2.5)
        self.assertEqual(t.args[2], 7)
        self.assertIs(t.args[0], t.inputs[0][1])  # tensors stay the harness's

    def test_tensor_arguments_stay(self):
        spec = types.SimpleNamespace(get_inputs=lambda: [torch.rand(2), torch.rand(())])
        t = target([])
        t.spec = spec
        t.inputs = [("x", torch.zeros(2)), ("s", torch.tensor(1.0))]
        self.assertEqual(t._scalar_arguments(), {})


class Collect(unittest.TestCase):
    def test_wrong_count_shape_dtype(self):
        t = target([], [("y", torch.zeros(2, 3))])
        t.ret = (torch.zeros(2, 3), torch.zeros(1))
        self.assertIn("2 tensors", t.collect())
        t.ret = torch.zeros(3, 2)
        self.assertIn("shape", t.collect())
        t.ret = torch.zeros(2, 3, dtype=torch.float64)
        self.assertIn("dtype", t.collect())
        t.ret = 3.0
        self.assertIn("not a tensor", t.collect())
        t.ret = torch.zeros(2, 3)  # right, but on the CPU
        self.assertIn("not on the GPU", t.collect())


class Note(unittest.TestCase):
    def test_library_ops_are_counted(self):
        t = target([])
        t.ops = {"addmm": 2, "convolution": 1, "relu": 3}
        t.ext_calls, t.ext_before = [4], 1
        n = t.note()
        self.assertIn("ext_calls=3", n)
        self.assertIn("cublas=2", n)
        self.assertIn("cudnn=1", n)
        t.last_error = "exception: ValueError: x"
        self.assertEqual(t.note(), "exception: ValueError: x")


class MathMode(unittest.TestCase):
    """kb-fidelity runs PyTorch's baseline in both math modes in one child (KB_MSG_MATH)."""

    def tearDown(self):
        runtime.Target("k.py", "s.py", "Model", "level1/x").set_math(0, 1)  # PyTorch's defaults back

    def test_both_ways(self):
        t = target([])
        t.set_math(1, 1)
        self.assertTrue(torch.backends.cuda.matmul.allow_tf32)
        self.assertEqual(torch.get_float32_matmul_precision(), "high")
        self.assertTrue(torch.backends.cudnn.allow_tf32)
        self.assertEqual(t.math, (True, True))
        t.set_math(0, 0)
        self.assertFalse(torch.backends.cuda.matmul.allow_tf32)
        self.assertEqual(torch.get_float32_matmul_precision(), "highest")
        self.assertFalse(torch.backends.cudnn.allow_tf32)
        self.assertEqual(t.math, (False, False))


if __name__ == "__main__":
    unittest.main()
