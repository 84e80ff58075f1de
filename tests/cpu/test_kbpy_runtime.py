"""CPU tests of py/kbpy/runtime.py: what a KernelBench-format file meets in the runner, without a
GPU: the prebuilt-extension loader (a call the compile stage never saw is refused, a failed
build raises as torch would so a file can fall back), parameter binding (by name where the names
agree, the rest by order and shape, parameters of one shape included; a mismatch named, never a
re-initialisation), and the checks on returned values."""
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
        self.assertEqual(t.binding, "name")
        self.assertEqual(m.conv2d.weight.data_ptr(), h[0][1].data_ptr())  # no copy
        h[0][1].fill_(9.0)  # new values at the same address reach the module
        self.assertEqual(float(m.conv2d.weight[0, 0, 0, 0]), 9.0)

    def test_by_order_and_shape(self):
        h = self.harness()
        t, m = target(h), Renamed()
        self.assertEqual(t._bind(m), "")
        self.assertEqual(t.binding, "shape(w<-conv2d.weight,b<-conv2d.bias)")
        self.assertEqual(m.b.data_ptr(), h[1][1].data_ptr())

    def test_mismatch_is_named(self):
        t, m = target([("conv2d.weight", torch.zeros(3, 2, 3, 3))]), Net()
        msg = t._bind(m)
        self.assertTrue(msg.startswith("param_mismatch"), msg)
        self.assertIn("conv2d.bias", msg)

    def test_no_parameters_anywhere(self):
        self.assertEqual(target([])._bind(nn.ReLU()), "")


ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
L2_021 = os.path.join(ROOT, "problems", "level2", "021_conv2d_add_scale_sigmoid_groupnorm.py")


class BindSameShapes(unittest.TestCase):
    """L2/21 (conv, bias and scale both (32, 1, 1), GroupNorm): five parameters, two pairs of one
    shape, so order and shape alone cannot tell bias from scale. The harness's list is the spec's
    named_parameters() (tests/cpu/spec_match.sh pins it to the C descriptor: names, order, shapes),
    each tensor filled with its own index so every pairing can be read back."""

    @classmethod
    def setUpClass(cls):
        cls.spec = runtime.exec_file(L2_021, "kb_spec_021")
        cls.init = cls.spec.get_init_inputs()

    def harness(self):
        with torch.device("meta"):
            m = self.spec.Model(*self.init)
        return [(n, torch.full(tuple(p.shape), float(i))) for i, (n, p) in enumerate(m.named_parameters())]

    def bind(self, model):
        h = self.harness()
        t = target(h)
        msg = t._bind(model)
        got = {n: int(p.flatten()[0]) for n, p in model.named_parameters()} if not msg else {}
        return t, msg, got, {n: i for i, (n, _) in enumerate(h)}

    def module(self, order, rename=None):
        """A ModelNew with the spec's parameters registered in `order` (spec names), renamed by `rename`."""
        rename = rename or {}
        in_c, out_c, k, groups, bias_shape, scale_shape = self.init
        make = {"conv": lambda: nn.Conv2d(in_c, out_c, k), "bias": lambda: nn.Parameter(torch.randn(bias_shape)),
                "scale": lambda: nn.Parameter(torch.randn(scale_shape)),
                "group_norm": lambda: nn.GroupNorm(groups, out_c)}
        m = nn.Module()
        for n in order:
            setattr(m, rename.get(n, n), make[n]())
        return m

    def test_model_unchanged(self):
        class ModelNew(self.spec.Model):
            pass
        t, msg, got, want = self.bind(ModelNew(*self.init))
        self.assertEqual((msg, t.binding), ("", "name"))
        self.assertEqual(got, want)

    def test_reordered_same_names(self):
        t, msg, got, want = self.bind(self.module(["group_norm", "scale", "bias", "conv"]))
        self.assertEqual((msg, t.binding), ("", "name"))
        self.assertEqual(got, want)

    def test_renamed_module_reordered_parameters(self):
        """conv renamed, scale registered before bias: bias and scale by name, the conv by shape.
        (Bound by order alone, scale would take the problem's bias.)"""
        t, msg, got, want = self.bind(self.module(["conv", "scale", "bias", "group_norm"], {"conv": "conv2d"}))
        self.assertEqual(msg, "")
        self.assertEqual(t.binding, "shape(conv2d.weight<-conv.weight,conv2d.bias<-conv.bias)")
        self.assertEqual((got["bias"], got["scale"]), (want["bias"], want["scale"]))
        self.assertEqual((got["conv2d.weight"], got["conv2d.bias"]), (want["conv.weight"], want["conv.bias"]))

    def test_renamed_same_order(self):
        t, msg, got, want = self.bind(self.module(["conv", "bias", "scale", "group_norm"],
                                                  {"bias": "b", "scale": "s", "group_norm": "gn"}))
        self.assertEqual(msg, "")
        self.assertEqual(t.binding, "order(b<-bias,s<-scale,gn.weight<-group_norm.weight,gn.bias<-group_norm.bias)")
        self.assertEqual((got["b"], got["s"], got["gn.weight"]),
                         (want["bias"], want["scale"], want["group_norm.weight"]))

    def test_renamed_and_reordered(self):
        """Renamed AND registered scale first: nothing tells them apart but the order, so they are
        bound as KernelBench's seeded construction binds them (its first (32, 1, 1) parameter gets
        the values the problem's bias gets), and the binding says so."""
        t, msg, got, want = self.bind(self.module(["conv", "scale", "bias", "group_norm"],
                                                  {"bias": "b", "scale": "s"}))
        self.assertEqual(msg, "")
        self.assertEqual(t.binding, "order(s<-bias,b<-scale)")
        self.assertEqual((got["s"], got["b"]), (want["bias"], want["scale"]))

    def test_flat_bias_is_named(self):
        """bias and scale as (32,) (the same values under KernelBench's seeding): not bound, and
        the message names the parameter and both shapes."""
        m = self.module(["conv", "bias", "scale", "group_norm"])
        m.bias = nn.Parameter(torch.randn(32))
        m.scale = nn.Parameter(torch.randn(32))
        t, msg, _, _ = self.bind(m)
        self.assertTrue(msg.startswith("param_mismatch: ModelNew.bias is [32], the problem's bias is [32, 1, 1]; "
                                       "ModelNew.scale is [32], the problem's scale is [32, 1, 1]"), msg)

    def test_extra_parameter_is_named(self):
        m = self.module(["conv", "bias", "scale", "group_norm"])
        m.fused = nn.Parameter(torch.zeros(32))
        t, msg, _, _ = self.bind(m)
        self.assertIn("ModelNew has 7 parameters, the problem 6 (not bound by name: ModelNew's [fused], the "
                      "problem's [])", msg)

    def test_note_says_binding(self):
        t, msg, _, _ = self.bind(self.module(["conv", "bias", "scale", "group_norm"], {"conv": "c"}))
        t.ops, t.ext_calls, t.ext_before = {"convolution": 1}, [1], 0
        self.assertTrue(t.note().startswith("ext_calls=1 binding=shape(c.weight<-conv.weight,c.bias<-conv.bias) "
                                            "cublas=0 cudnn=1"), t.note())


class BindOwnLinear(unittest.TestCase):
    """L2/33 (gemm = nn.Linear, scale, bn = nn.BatchNorm1d; scale, gemm.bias, bn.weight and bn.bias
    all (8192,)): the spec's named_parameters() put its own scale before the submodules', so a
    ModelNew that writes the Linear as its own weight and bias registers them in another order. On
    the meta device: the pairs are read from bind_parameters itself."""

    def test_flattened_linear(self):
        spec = runtime.exec_file(os.path.join(ROOT, "problems", "level2", "033_gemm_scale_batchnorm.py"), "kb_spec_033")
        in_f, out_f, scale_shape = spec.get_init_inputs()

        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(torch.empty(out_f, in_f))
                self.bias = nn.Parameter(torch.empty(out_f))
                self.scale = nn.Parameter(torch.randn(scale_shape))
                self.bn = nn.BatchNorm1d(out_f)

        with torch.device("meta"):
            want = list(spec.Model(in_f, out_f, scale_shape).named_parameters())
            m = ModelNew()
        self.assertEqual([n for n, _ in want], ["scale", "gemm.weight", "gemm.bias", "bn.weight", "bn.bias"])
        pairs, how, err = runtime.bind_parameters(list(m.named_parameters()), want)
        self.assertEqual((err, how), ("", "shape(weight<-gemm.weight,bias<-gemm.bias)"))
        got = {id(p): n for n, p in m.named_parameters()}
        self.assertEqual([got[id(p)] for p, _ in pairs], ["scale", "weight", "bias", "bn.weight", "bn.bias"])
        self.assertEqual([t for _, t in pairs], [t for _, t in want])


class BnNet(nn.Module):
    """state as KernelBench's networks hold it: BatchNorm buffers, a registered mask, an RNN's h0"""

    def __init__(self, h0_name="h0"):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.register_buffer("mask", torch.tril(torch.ones(4, 4)))
        setattr(self, h0_name, torch.randn(2, 4))

    def forward(self, x):
        return self.bn(self.conv(x))


def harness_state():
    """the problem's state in its descriptor's order (named_buffers(), then tensor attributes)"""
    return [("mask", torch.full((4, 4), 7.0)), ("bn.running_mean", torch.full((8,), 1.0)),
            ("bn.running_var", torch.full((8,), 2.0)), ("bn.num_batches_tracked", torch.zeros((), dtype=torch.long)),
            ("h0", torch.full((2, 4), 3.0))]


class BindState(unittest.TestCase):
    """module state (KB_ROLE_STATE) is bound to the harness's memory: by name, the rest by shape and
    order; state the module does not have is left unbound (no error); an in-place update lands in
    the harness's tensor, as eager's BatchNorm updates its running statistics."""

    def test_module_state_order(self):
        self.assertEqual([n for n, _, _, _ in runtime.module_state(BnNet())],
                         ["mask", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked", "h0"])

    def test_by_name(self):
        m, want = BnNet(), harness_state()
        t = target([])
        t.params = [(n, torch.zeros_like(p)) for n, p in m.named_parameters()]
        t.state = want
        self.assertEqual(t._bind(m), "")
        self.assertEqual(t.binding, "name; state name")
        self.assertIs(m.bn.running_mean, want[1][1])
        self.assertIs(m.h0, want[4][1])
        self.assertEqual(float(m.mask[0, 0]), 7.0)
        m.train()
        m(torch.randn(2, 3, 6, 6))  # training mode: the running statistics are updated in place
        self.assertNotEqual(float(want[1][1][0]), 1.0)
        self.assertEqual(int(want[3][1]), 1)

    def test_renamed_and_missing(self):
        m = BnNet(h0_name="hidden")
        del m.mask  # a ModelNew that builds its mask in forward
        pairs, how = runtime.bind_state(m, harness_state())
        self.assertEqual(how, "shape(hidden<-h0),unbound(mask)")
        self.assertEqual(len(pairs), 4)


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
