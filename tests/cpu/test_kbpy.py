"""CPU tests of py/kbpy (static extraction, load_inline normalisation, flag whitelist, manifests,
and, when torch imports, real builds). Run by tests/cpu/kbpy.sh; KB_PY_TESTS=skip skips the
torch-dependent ones."""

import concurrent.futures
import importlib.util
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "py"))
FIX = os.path.join(ROOT, "tests", "fixtures", "kbpy")

from kbpy import build, extract, loadinline  # noqa: E402

try:
    HAVE_TORCH = importlib.util.find_spec("torch") is not None and os.environ.get("KB_PY_TESTS") != "skip"
except Exception:
    HAVE_TORCH = False


def ex(text):
    return extract.extract(text=textwrap.dedent(text))


def mktmp():
    d = tempfile.mkdtemp(prefix="kbpy-test-", dir="/tmp")
    os.chmod(d, 0o755)
    return d


# ------------------------------------------------------------------------------------------------
class TestLoadInline(unittest.TestCase):
    def test_bind_and_normalize(self):
        n = loadinline.normalize_call(("e", "int f();", "__global__ void k(){}"), {"functions": "f"})
        self.assertEqual(n["cpp_sources"], ["int f();"])
        self.assertEqual(n["cuda_sources"], ["__global__ void k(){}"])
        self.assertEqual(n["functions"], ["f"])
        self.assertEqual(n["extra_cflags"], [])
        self.assertIsNone(n["with_cuda"])
        self.assertTrue(loadinline.effective_with_cuda(n))
        self.assertNotIn("verbose", n)
        n2 = loadinline.normalize_call((), {"name": "e", "cpp_sources": ["int f();"],
                                            "cuda_sources": ["__global__ void k(){}"], "functions": ["f"],
                                            "verbose": True, "build_directory": "/x", "use_pch": True})
        self.assertEqual(loadinline.source_key(n), loadinline.source_key(n2))
        self.assertEqual(loadinline.normalize_call(("e", "x", ""), {})["cuda_sources"], [])

    def test_errors(self):
        for a, k in [((), {}), (("e",), {}), (("e", "x"), {"nope": 1}), (("e", "x"), {"name": "f"}),
                     (("e", "x"), {"extra_cflags": "-O3"}), (("e", 3), {}),
                     (("e", "x"), {"functions": 3})]:
            with self.assertRaises(loadinline.CallError, msg=(a, k)):
                loadinline.normalize_call(a, k)

    def test_key_sensitivity(self):
        base = loadinline.normalize_call(("e", "x"), {"functions": {"a": "1", "b": "2"}})
        other = loadinline.normalize_call(("e", "x"), {"functions": {"b": "2", "a": "1"}})
        self.assertNotEqual(loadinline.source_key(base), loadinline.source_key(other))
        self.assertNotEqual(loadinline.source_key(base),
                            loadinline.source_key(loadinline.normalize_call(("e", "x "), {"functions": {"a": "1", "b": "2"}})))
        self.assertRegex(loadinline.source_key(base), r"^[0-9a-f]{64}$")

    def test_generate(self):
        n = loadinline.normalize_call(("e", ["a", "b"], "c"), {"functions": ["f", "g"]})
        cpp, cu = loadinline.generate_sources(n)
        self.assertEqual(cpp, "#include <torch/extension.h>\na\nb\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                              'm.def("f", torch::wrap_pybind_function(f), "f");\n'
                              'm.def("g", torch::wrap_pybind_function(g), "g");\n}')
        self.assertEqual(cu, "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\nc")
        n = loadinline.normalize_call(("e", "a"), {"no_implicit_headers": True,
                                                   "with_pytorch_error_handling": False, "functions": {"f": "doc"}})
        cpp, cu = loadinline.generate_sources(n)
        self.assertEqual(cpp, 'a\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\nm.def("f", f, "doc");\n}')
        self.assertIsNone(cu)


# ------------------------------------------------------------------------------------------------
class TestToolchainMismatch(unittest.TestCase):
    """A built extension imports only into its own Python and torch: the runtime's check."""

    MAN = {"extensions": [{"name": "e", "so": "ext/k/e.so"}],
           "built_for": {"python": "cpython-311", "torch": "2.11.0+cu130"}}

    def test_same_toolchain(self):
        self.assertEqual(loadinline.toolchain_mismatch(self.MAN, "cpython-311", "2.11.0+cu130"), "")

    def test_other_python(self):
        why = loadinline.toolchain_mismatch(self.MAN, "cpython-312", "2.11.0+cu130")
        self.assertIn("python cpython-311 (here cpython-312)", why)
        self.assertIn("rebuild", why)

    def test_other_torch(self):
        why = loadinline.toolchain_mismatch(self.MAN, "cpython-311", "2.12.0+cu130")
        self.assertIn("torch 2.11.0+cu130 (here 2.12.0+cu130)", why)
        self.assertNotIn("python", why.split(":")[0])

    def test_unrecorded_build(self):
        man = {"extensions": [{"name": "e", "so": "ext/k/e.so"}]}
        self.assertIn("before the build recorded", loadinline.toolchain_mismatch(man, "cpython-311", "2.11.0"))

    def test_nothing_built(self):
        for man in ({"extensions": []}, {"extensions": [{"name": "e", "so": None, "status": "compile_error"}]}):
            self.assertEqual(loadinline.toolchain_mismatch(man, "cpython-399", "0"), "")


class TestExtract(unittest.TestCase):
    def test_fixture(self):
        r = extract.extract(os.path.join(FIX, "relu_ok.py"))
        self.assertTrue(r["model_new"])
        self.assertEqual(len(r["calls"]), 1)
        c = r["calls"][0]
        self.assertTrue(c["static"])
        self.assertEqual(c["name"], "relu_ext")
        self.assertFalse(c["guarded"])
        self.assertEqual(c["norm"]["extra_cuda_cflags"], ["-O3", "--use_fast_math"])
        self.assertEqual(r["source_hints"]["launches_without_stream"], 1)
        self.assertEqual(r["source_hints"]["global_kernels"], 1)

    def test_aliases_and_evaluator(self):
        r = ex('''
            import textwrap
            import torch.utils.cpp_extension as ce
            from torch.utils.cpp_extension import load_inline as li
            import torch
            N = 256
            HDR = "#include <cuda_runtime.h>"
            body = textwrap.dedent(f"""
                __global__ void k(float* x) {{ x[threadIdx.x] *= {N}; }}
            """)
            src = HDR + "\\n" + body
            src += "// tail"
            parts = ["a", "b"]
            joined = "\\n".join(parts + ["c"])
            fmt = "int f{}() {{ return {n}; }}".format(1, n=N)
            a = li("one", [joined, fmt], src.strip(), functions=["f1"])
            b = ce.load_inline(name="two", cpp_sources="x", cuda_sources="%s y" % HDR)
            c = torch.utils.cpp_extension.load_inline(**dict(name="three", cpp_sources=["z"]))
            class ModelNew(torch.nn.Module):
                pass
        ''')
        self.assertTrue(r["model_new"])
        names = [c["name"] for c in r["calls"]]
        self.assertEqual(names, ["one", "two", "three"])
        for c in r["calls"]:
            self.assertTrue(c["static"], c)
        one = r["calls"][0]["norm"]
        self.assertEqual(one["cpp_sources"], ["a\nb\nc", "int f1() { return 256; }"])
        self.assertTrue(one["cuda_sources"][0].startswith("#include <cuda_runtime.h>\n\n__global__"))
        self.assertTrue(one["cuda_sources"][0].endswith("// tail"))
        self.assertIn("x[threadIdx.x] *= 256", one["cuda_sources"][0])
        self.assertEqual(r["calls"][1]["norm"]["cuda_sources"], ["#include <cuda_runtime.h> y"])

    def test_last_assignment_before_call(self):
        r = ex('''
            from torch.utils.cpp_extension import load_inline
            s = "first"
            s = "second"
            e = load_inline("x", s)
            s = "third"
            class ModelNew: pass
        ''')
        self.assertEqual(r["calls"][0]["norm"]["cpp_sources"], ["second"])

    def test_function_locals_and_guard(self):
        r = ex('''
            import torch
            from torch.utils.cpp_extension import load_inline
            SRC = "int f() { return 1; }"
            def _build():
                extra = ["-O3"]
                return load_inline("x", SRC, functions=["f"], extra_cflags=extra)
            try:
                ext = _build()
            except Exception:
                ext = None
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    try:
                        self.e = load_inline("y", SRC)
                    except RuntimeError:
                        self.e = None
        ''')
        self.assertEqual([c["guarded"] for c in r["calls"]], [True, True])
        self.assertEqual(r["calls"][0]["norm"]["extra_cflags"], ["-O3"])
        self.assertEqual(r["calls"][1]["in"], "ModelNew.__init__")

    def test_not_static(self):
        r = ex('''
            import os
            from torch.utils.cpp_extension import load_inline
            cpp = "int f();"
            def mk(n):
                return load_inline(name="p", cpp_sources=n)
            src = open("k.cu").read()
            e = load_inline(name="x", cpp_sources=cpp, cuda_sources=src, verbose=os.environ.get("V") == "1")
            e2 = load_inline(name="y", cpp_sources=cpp, extra_cflags=["-O" + os.environ["O"]])
            class ModelNew: pass
        ''')
        p, x, y = r["calls"]
        self.assertFalse(p["static"])
        self.assertEqual(p["not_static"][0]["arg"], "cpp_sources")
        self.assertFalse(x["static"])
        self.assertEqual([n["arg"] for n in x["not_static"]], ["cuda_sources"])   # verbose is harmless
        self.assertEqual(x["not_static"][0]["line"], 7)
        self.assertEqual(x["name"], "x")
        self.assertFalse(y["static"])

    def test_size_bomb(self):
        r = ex('''
            from torch.utils.cpp_extension import load_inline
            s = "x" * (10 ** 12)
            e = load_inline("a", s)
        ''')
        self.assertFalse(r["calls"][0]["static"])

    def test_unsupported_and_hints(self):
        r = extract.extract(os.path.join(FIX, "triton_kernel.py"))
        self.assertEqual(r["unsupported"], ["triton"])
        r = ex('''
            import threading
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            from numba import cuda
            import cupy as cp
            from torch.utils.cpp_extension import load
            k = cp.RawKernel("x", "k")
            m = load(name="m", sources=["m.cu"])
            s = torch.cuda.Stream()
            g = torch.cuda.CUDAGraph()
            class ModelNew(nn.Module):
                def forward(self, x):
                    return F.relu(torch.matmul(x, x)) + nn.functional.gelu(x)
        ''')
        self.assertIn("numba.cuda", r["unsupported"])
        self.assertIn("cupy", r["unsupported"])
        self.assertIn("cupy RawKernel", r["unsupported"])
        self.assertIn("torch.utils.cpp_extension.load of source files", r["unsupported"])
        self.assertEqual(r["python_hints"], ["threading", "torch.cuda.CUDAGraph", "torch.cuda.Stream"])
        for op in ("F.relu", "torch.matmul", "nn.Module", "F.gelu", "torch.cuda.Stream"):
            self.assertIn(op, r["torch_ops"])
        self.assertEqual(r["torch_ops"], sorted(r["torch_ops"]))

    def test_source_hints(self):
        h = extract.source_hints('''
            cudaStream_t s; cudaStreamCreate(&s); cudaStreamCreateWithFlags(&s, 1);
            cublasHandle_t h; cublasCreate(&h); cublasSgemm(h);
            std::thread t([]{});
            k<<<grid, block, 0, s>>>(a, b);
            k<<<dim3(1, 2), block>>>(a);   // k<<<1,2,3,4>>> in a comment
            k<<<g, b, smem>>>(a);
            auto st = at::cuda::getCurrentCUDAStream();
        ''')
        self.assertEqual(h["launches_with_stream"], 1)
        self.assertEqual(h["launches_without_stream"], 2)
        self.assertEqual(h["calls"]["cudaStreamCreate"], 1)
        self.assertEqual(h["calls"]["cudaStreamCreateWithFlags"], 1)
        self.assertEqual(h["calls"]["cublasCreate"], 1)
        self.assertEqual(h["calls"]["std::thread"], 1)
        self.assertEqual(h["calls"]["getCurrentCUDAStream"], 1)
        self.assertTrue(extract.has_custom_kernel("cublasSgemm(h, ...)"))
        self.assertFalse(extract.has_custom_kernel("// __global__\ntorch::Tensor f();"))

    def test_syntax_and_model(self):
        r = extract.extract(os.path.join(FIX, "syntax_error.py"))
        self.assertEqual(r["syntax_error"]["line"], 4)
        self.assertFalse(extract.extract(os.path.join(FIX, "no_model.py"))["model_new"])
        # a ModelNew nested in a function is not at module level
        self.assertFalse(ex("def f():\n    class ModelNew: pass\n")["model_new"])

    def test_never_runs(self):
        d = mktmp()
        flag = os.path.join(d, "ran")
        p = os.path.join(d, "evil.py")
        with open(p, "w") as f:
            f.write(f"open({flag!r}, 'w').write('x')\nimport os\nos.system('touch {flag}')\n"
                    f"class ModelNew: pass\n")
        extract.extract(p)
        build.build_sample(p, os.path.join(d, "out"), os.path.join(d, "cache"))
        self.assertFalse(os.path.exists(flag))
        shutil.rmtree(d)


# ------------------------------------------------------------------------------------------------
FAKE_TC = {"torch_dir": "/opt/torch", "cuda_home": "/usr/local/cuda", "python_include": "/usr/include/python3.11",
           "torch_lib": "/opt/torch/lib"}


class TestFlags(unittest.TestCase):
    def ok(self, which, flags):
        build.prelim_check({"extra_cflags": [], "extra_cuda_cflags": [], "extra_ldflags": [],
                            "extra_include_paths": [], which: flags}, FAKE_TC)

    def bad(self, which, flags):
        with self.assertRaises(build.FlagError, msg=flags) as cm:
            self.ok(which, flags)
        self.assertIn(f"flag not allowed in {which}", str(cm.exception))

    def test_allowed(self):
        self.ok("extra_cflags", ["-O3", "-std=c++17", "-DFOO=1", "-UBAR", "-Wall", "-w", "-ffast-math",
                                 "-march=native", " -O2 ", "-fopenmp"])
        self.ok("extra_cuda_cflags", ["-O3", "--use_fast_math", "-lineinfo", "--expt-relaxed-constexpr",
                                      "--expt-extended-lambda", "-Xptxas", "-v,-O3", "-Xptxas=-v",
                                      "--ptxas-options=-v", "-maxrregcount=64", "-arch=sm_90",
                                      "-gencode=arch=compute_90,code=sm_90", "-Xcompiler", "-O3,-fPIC",
                                      "-std=c++17", "-DNDEBUG", "-Xptxas -dlcm=ca", "-res-usage"])
        self.ok("extra_ldflags", ["-lcublas", "-lcublasLt", "-lcudnn", "-L/usr/local/cuda/lib64",
                                  "-L/usr/local/cuda-12.4/lib64", "-lcuda", "-lcurand"])
        self.ok("extra_include_paths", ["/usr/local/cuda/include"])

    def test_refused(self):
        for f in ["-o", "-Wl,-rpath,/x", "@/etc/passwd", "-B/tmp", "-specs=/tmp/x", "-fplugin=/tmp/x.so",
                  "-include/etc/shadow", "-save-temps", "-I/etc", "-I/root", "-O3; rm -rf /",
                  "$(id)", "-Wp,-MD,/tmp/x", "-fdump-tree-all", "-iquote/etc", "-isystem/etc"]:
            self.bad("extra_cflags", [f])
        for f in ["--keep", "-keep", "-o", "-Xlinker", "-Xcompiler", "-ccbin=/tmp/x", "-arch=sm_80",
                  "--dryrun", "-rdc=true", "-Xcompiler -Wl,-x", "-odir", "-Xptxas /tmp/x", "-I/etc"]:
            self.bad("extra_cuda_cflags", [f])
        for f in ["-Wl,-Map=/tmp/x", "-L/tmp", "-l/tmp/x", "-lfoo", "/tmp/x.so", "-shared", "-o"]:
            self.bad("extra_ldflags", [f])
        self.bad("extra_include_paths", ["/etc"])
        self.bad("extra_include_paths", ["relative/dir"])
        self.bad("extra_include_paths", ["/usr/local/cuda/include/../../../etc"])


# ------------------------------------------------------------------------------------------------
class TestManifestNoBuild(unittest.TestCase):
    """Manifests that need no compiler (and no torch)."""

    @classmethod
    def setUpClass(cls):
        cls.d = mktmp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d, ignore_errors=True)

    def run_cli(self, fixture, *extra):
        out = os.path.join(self.d, os.path.basename(fixture) + ".out")
        r = subprocess.run([sys.executable, "-m", "kbpy.build", "--src", os.path.join(FIX, fixture),
                            "--out-dir", out, "--cache", os.path.join(self.d, "cache")] + list(extra),
                           env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "py")),
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "manifest.json")) as f:
            m = json.load(f)
        with open(os.path.join(FIX, fixture), "rb") as f, open(os.path.join(out, "kernel.py"), "rb") as g:
            self.assertEqual(f.read(), g.read())
        self.assertEqual(m["schema"], 1)
        self.assertEqual(m["kind"], "py")
        self.assertEqual(m["class"], "ModelNew")
        self.assertNotIn("\n", m["reason"])
        return m

    def test_syntax_error(self):
        m = self.run_cli("syntax_error.py")
        self.assertEqual(m["status"], "compile_error")
        self.assertTrue(m["reason"].startswith("syntax error at line 4: "), m["reason"])

    def test_no_model(self):
        m = self.run_cli("no_model.py")
        self.assertEqual((m["status"], m["reason"]), ("compile_error", "no class ModelNew defined at module level"))

    def test_runtime_sources(self):
        m = self.run_cli("runtime_sources.py")
        self.assertEqual(m["status"], "compile_error")
        self.assertTrue(m["reason"].startswith("sources computed at run time: load_inline(name='dyn_ext') "
                                               "argument cuda_sources at line 7 is not a constant expression"),
                        m["reason"])

    def test_triton(self):
        m = self.run_cli("triton_kernel.py")
        self.assertEqual((m["status"], m["reason"]), ("unsupported", "unsupported: triton"))

    def test_pure_torch(self):
        m = self.run_cli("pure_torch.py")
        self.assertEqual(m["status"], "ok")
        self.assertFalse(m["custom_kernel"])
        self.assertEqual(m["extensions"], [])
        self.assertIn("nn.Conv2d", m["extract"]["torch_ops"])

    def test_bad_flag(self):
        m = self.run_cli("bad_flag.py")
        self.assertEqual(m["status"], "compile_error")
        self.assertTrue(m["reason"].startswith("flag not allowed in extra_ldflags: -Wl,-Map=/tmp/x (allowed: "),
                        m["reason"])

    def test_usage(self):
        r = subprocess.run([sys.executable, "-m", "kbpy.build", "--src", "x.py"],
                           env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "py")), capture_output=True)
        self.assertEqual(r.returncode, 2)


# ------------------------------------------------------------------------------------------------
@unittest.skipUnless(HAVE_TORCH, "torch not importable (KB_PY_TESTS=skip or no torch)")
class TestTorchEquivalence(unittest.TestCase):
    """Our generated sources and flags are torch's own (no compiler run)."""

    def test_sources_and_flags(self):
        import torch.utils.cpp_extension as ce
        os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0+PTX")
        calls = [
            (("e1", "torch::Tensor f(torch::Tensor x);", "__global__ void k(){}"),
             {"functions": ["f"], "extra_cuda_cflags": ["-O3", "--use_fast_math"], "extra_cflags": ["-O3"]}),
            (("e2", ["int a;", "int b();"]), {"functions": {"b": "doc b"}, "with_pytorch_error_handling": False}),
            (("e3", "int a;"), {"cuda_sources": ["int x;", "int y;"], "no_implicit_headers": True,
                                "extra_cuda_cflags": ["-arch=sm_90", "-std=c++20"], "extra_ldflags": ["-lcublas"],
                                "extra_include_paths": ["/usr/local/cuda/include"]}),
        ]
        d = mktmp()
        cache = os.path.join(d, "cache")
        tc = build.toolchain(cache, "9.0", sys.executable)
        for args, kw in calls:
            bd = tempfile.mkdtemp(dir=d)
            captured = {}
            orig = ce._jit_compile

            def fake(name, sources, *a, **k):
                captured["sources"] = sources
                return None
            norm = loadinline.normalize_call(args, kw)   # torch mutates a list it is given
            ce._jit_compile = fake
            try:
                import copy
                ce.load_inline(*copy.deepcopy(args), build_directory=bd, **copy.deepcopy(kw))
            finally:
                ce._jit_compile = orig
            cpp, cu = loadinline.generate_sources(norm)
            with open(os.path.join(bd, "main.cpp")) as f:
                self.assertEqual(f.read(), cpp)
            if cu is None:
                self.assertFalse(os.path.exists(os.path.join(bd, "cuda.cu")))
            else:
                with open(os.path.join(bd, "cuda.cu")) as f:
                    self.assertEqual(f.read(), cu)
            # torch's ninja file for the same call
            with_cuda = loadinline.effective_with_cuda(norm)
            ce._write_ninja_file_to_build_library(
                path=os.path.join(bd, "build.ninja"), name=norm["name"], sources=captured["sources"],
                extra_cflags=norm["extra_cflags"], extra_cuda_cflags=norm["extra_cuda_cflags"],
                extra_sycl_cflags=[], extra_ldflags=ce._prepare_ldflags(list(norm["extra_ldflags"]), with_cuda,
                                                                          False, False, False),
                extra_include_paths=norm["extra_include_paths"], with_cuda=with_cuda, with_sycl=False,
                is_standalone=False)
            vars_ = {}
            with open(os.path.join(bd, "build.ninja")) as f:
                for line in f:
                    if " = " in line and not line.startswith(" "):
                        k, v = line.rstrip("\n").split(" = ", 1)
                        vars_[k] = v
            import shlex
            cmds = build.commands(tc, norm["name"], norm)
            pyinc = tc["python_include_used"]

            def ours(argv, drop_head, drop_tail):
                return [a if a != pyinc else tc["python_include"] for a in argv[drop_head:len(argv) - drop_tail]]
            self.assertEqual(ours(cmds["cxx"], 1, 4), shlex.split(vars_["cflags"]))
            if cu is not None:
                self.assertEqual(ours(cmds["nvcc"], 1, 4), shlex.split(vars_["cuda_cflags"]))
                self.assertEqual(vars_["nvcc"], tc["nvcc_path"])
            objs = 2 if cu is not None else 1
            self.assertEqual(ours(cmds["link"], 1 + objs, 2), shlex.split(vars_["ldflags"]))
        shutil.rmtree(d, ignore_errors=True)


@unittest.skipUnless(HAVE_TORCH, "torch not importable (KB_PY_TESTS=skip or no torch)")
class TestBuild(unittest.TestCase):
    """Real builds (C++ extensions, then one CUDA extension), one shared cache."""

    @classmethod
    def setUpClass(cls):
        cls.d = mktmp()
        cls.cache = os.path.join(cls.d, "cache")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d, ignore_errors=True)

    def build(self, src, out=None, **kw):
        out = out or os.path.join(self.d, os.path.basename(src) + ".out")
        m = build.build_sample(src, out, self.cache, python=sys.executable, **kw)
        with open(os.path.join(out, "manifest.json")) as f:
            self.assertEqual(json.load(f), json.loads(json.dumps(m)))
        return m, out

    def load(self, out, ext):
        code = ("import sys, torch, importlib.util as u\n"
                f"s = u.spec_from_file_location({ext['module']!r}, {os.path.join(out, ext['so'])!r})\n"
                "m = u.module_from_spec(s); s.loader.exec_module(m)\n"
                "print(' '.join(sorted(n for n in dir(m) if not n.startswith('_'))))\n")
        if ext["module"] == "scale_ext":
            code += "print(m.scale_add(torch.ones(3), 2.0).tolist())\n"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.split("\n")

    def test_1_cpp_ext_cache_and_key(self):
        src = os.path.join(FIX, "cpu_ok.py")
        m, out = self.build(src)
        self.assertEqual(m["status"], "ok", m["reason"])
        e = m["extensions"][0]
        self.assertEqual(e["status"], "ok")
        self.assertEqual(e["pch"], "used")
        self.assertEqual(e["light_header"], "used")
        self.assertFalse(m["custom_kernel"])       # C++ only: no __global__, no cuBLAS
        # bound to this interpreter: the runtime refuses it under any other Python or torch
        import torch
        self.assertEqual(m["built_for"], {"python": sys.implementation.cache_tag, "torch": torch.__version__})
        self.assertEqual(loadinline.toolchain_mismatch(m, sys.implementation.cache_tag, torch.__version__), "")
        self.assertEqual(self.load(out, e)[:2], ["scale_add", "[3.0, 3.0, 3.0]"])
        # the key the runtime computes from the real call
        body = textwrap.dedent("""
            torch::Tensor scale_add(torch::Tensor x, double s) {
                return x * s + 1.0;
            }
        """)
        key = loadinline.source_key(loadinline.normalize_call(
            ("scale_ext", "\n".join(["#include <vector>", body.strip()])),
            {"functions": {"scale_add": "scale then add one"}, "extra_cflags": ["-O3"], "verbose": False}))
        self.assertEqual(e["key"], key)
        # cache hit
        m2, out2 = self.build(src, os.path.join(self.d, "again"))
        self.assertTrue(m2["extensions"][0]["cached"])
        self.assertLess(m2["core_s"], 2.0)
        self.assertEqual(self.load(out2, m2["extensions"][0])[:2], ["scale_add", "[3.0, 3.0, 3.0]"])

    def test_2_torch_builds_it_too(self):
        """torch's own load_inline on the same call: both import and agree."""
        code = textwrap.dedent(f"""
            import sys, tempfile, textwrap, torch
            from torch.utils.cpp_extension import load_inline
            body = textwrap.dedent('''
                torch::Tensor scale_add(torch::Tensor x, double s) {{
                    return x * s + 1.0;
                }}
            ''')
            m = load_inline("scale_ext", "\\n".join(["#include <vector>", body.strip()]),
                            functions={{"scale_add": "scale then add one"}}, extra_cflags=["-O3"],
                            build_directory=tempfile.mkdtemp(dir={self.d!r}))
            print(m.scale_add(torch.ones(3), 2.0).tolist())
        """)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, MAX_JOBS="2"))
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertEqual(r.stdout.strip(), "[3.0, 3.0, 3.0]")

    def test_3_guarded_failure_and_error(self):
        m, _ = self.build(os.path.join(FIX, "guarded_fail.py"))
        self.assertEqual(m["status"], "ok")
        self.assertTrue(m["fallback_guard"])
        e = m["extensions"][0]
        self.assertEqual(e["status"], "compile_error")
        self.assertTrue(e["reason"].startswith("build failed: extension 'broken_ext': main.cpp: "), e["reason"])
        self.assertIn("this_does_not_exist", e["reason"])
        # the same, unguarded
        d = mktmp()
        p = os.path.join(d, "s.py")
        with open(os.path.join(FIX, "guarded_fail.py")) as f:
            txt = f.read()
        txt = txt.replace("try:\n    ext =", "if True:\n    ext =").replace("except Exception:", "else:")
        with open(p, "w") as f:
            f.write(txt)
        m, _ = self.build(p)
        self.assertEqual(m["status"], "compile_error")
        self.assertFalse(m["fallback_guard"])
        self.assertIn("this_does_not_exist", m["reason"])
        shutil.rmtree(d)

    def test_4_cannot_read_shadow(self):
        m, _ = self.build(os.path.join(FIX, "read_secret.py"))
        self.assertEqual(m["status"], "compile_error")
        self.assertEqual(m["reason"], "source not allowed: extension 'secret_ext': #include \"/etc/shadow\": "
                                      "include outside the torch/CUDA/Python include trees not allowed")

    @unittest.skipUnless(os.geteuid() == 0, "the compilers run as uid 65534 only when the build runs as root")
    def test_4b_compilers_run_as_nobody(self):
        d = mktmp()
        tc = build.toolchain(self.cache, "9.0", sys.executable)
        res, ok = build.run_steps([[("id", ["id", "-u"])]], d, tc, 1e18, 2, os.path.join(d, "log"))
        res2, ok2 = build.run_steps([[("pp", [tc["cxx_path"], "-E", "-x", "c++", "/etc/shadow"])]], d, tc, 1e18, 2,
                                    os.path.join(d, "log"))
        self.assertEqual((ok, ok2), (True, False))
        out = {r["what"]: r for r in res + res2}
        self.assertNotEqual(out["pp"]["rc"], 0)
        self.assertIn("Permission denied", out["pp"]["out"])
        self.assertEqual(out["id"]["out"].strip(), "65534")
        shutil.rmtree(d)

    def test_4c_timeout(self):
        d = mktmp()
        tc = build.toolchain(self.cache, "9.0", sys.executable)
        import time as _t
        t0 = _t.monotonic()
        with self.assertRaises(build.Timeout):
            build.run_steps([[("sleep", ["sh", "-c", "sleep 30 & sleep 30"])]], d, tc, _t.monotonic() + 1, 1,
                            os.path.join(d, "log"))
        self.assertLess(_t.monotonic() - t0, 10)
        shutil.rmtree(d)

    def test_5_concurrent_same_key(self):
        d = mktmp()
        p = os.path.join(d, "s.py")
        with open(os.path.join(FIX, "cpu_ok.py")) as f:
            txt = f.read().replace("x * s + 1.0", "x * s + 2.0")
        with open(p, "w") as f:
            f.write(txt)
        outs = [os.path.join(d, f"o{i}") for i in range(2)]
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "py"))
        procs = [subprocess.Popen([sys.executable, "-m", "kbpy.build", "--src", p, "--out-dir", o,
                                   "--cache", self.cache, "--jobs", "1"], env=env) for o in outs]
        self.assertEqual([pr.wait(timeout=300) for pr in procs], [0, 0])
        ms = []
        for o in outs:
            with open(os.path.join(o, "manifest.json")) as f:
                ms.append(json.load(f))
        self.assertEqual([x["status"] for x in ms], ["ok", "ok"])
        self.assertEqual(sorted(x["extensions"][0]["cached"] for x in ms), [False, True])
        sos = []
        for o, x in zip(outs, ms):
            with open(os.path.join(o, x["extensions"][0]["so"]), "rb") as f:
                sos.append(f.read())
        self.assertEqual(sos[0], sos[1])
        self.assertEqual(os.listdir(os.path.join(self.cache, "tmp")), [])
        shutil.rmtree(d)

    def test_5b_light_headers_are_torchs(self):
        """the shadowed ATen/Functions.h is torch's, less operator #includes only; the light sources
        name every operator the sources name"""
        tc = build.toolchain(self.cache, "9.0", sys.executable)
        light = build.ensure_light(self.cache, tc, 1e18)
        self.assertIsNotNone(light)
        for rel, suffix in (("Functions.h", ""), ("NativeFunctions.h", "_native")):
            with open(os.path.join(tc["torch_dir"], "include", "ATen", rel)) as f:
                real = f.read().splitlines()
            with open(os.path.join(light["shadow"], "ATen", rel)) as f:
                ours = f.read().splitlines()[1:]            # less the banner
            gone = [ln for ln in real if ln not in ours]
            self.assertGreater(len(gone), 1000)
            self.assertTrue(all(re.fullmatch(r"#include <ATen/ops/\w+%s\.h>" % suffix, ln) for ln in gone), gone[:3])
            self.assertEqual([ln for ln in real if ln in ours], ours)   # order kept
        self.assertIn("empty_like", light["base"])
        self.assertNotIn("matmul", light["base"])
        main_cpp = "#include <torch/extension.h>\n#include <torch/extension.h>\nauto f(at::Tensor x) { return at::matmul(x, x); }"
        cuda_cu = "#include <torch/types.h>\n#include <cuda.h>\n  # include <torch/extension.h>\n// cumsum\n"
        lm, lc = build.light_sources(main_cpp, cuda_cu, light)
        self.assertEqual(lm.splitlines()[:3], ["#include <kbpy_light_main.h> /* kbpy: light build of torch/extension.h */",
                                               "#include <ATen/ops/cumsum.h>", "#include <ATen/ops/matmul.h>"])
        self.assertNotIn("<torch/extension.h>", lm.replace("of torch/extension.h", ""))
        self.assertEqual(lc.splitlines()[:5], ["#include <torch/types.h>", "#include <ATen/ops/cumsum.h>",
                                               "#include <ATen/ops/matmul.h>", "#include <cuda.h>",
                                               "#include <torch/types.h> /* kbpy: light build of torch/extension.h */"])
        self.assertIsNone(build.light_sources("#include <vector>\n", None, light))   # no_implicit_headers

    def test_5c_light_falls_back(self):
        m, out = self.build(os.path.join(FIX, "needs_frontend.py"))
        self.assertEqual(m["status"], "ok", m["reason"])
        e = m["extensions"][0]
        self.assertEqual(e["light_header"], "fell back")
        self.assertIn("main.cpp (light header, failed)", [s["what"] for s in e["steps"]])
        self.assertIn("frontend_relu", self.load(out, e)[0])

    def test_6_cuda_ext(self):
        m, out = self.build(os.path.join(FIX, "relu_ok.py"))
        self.assertEqual(m["status"], "ok", m["reason"])
        e = m["extensions"][0]
        self.assertTrue(m["custom_kernel"])
        self.assertEqual(e["light_header"], "used")
        self.assertEqual(sorted(s["what"] for s in e["steps"] if s["what"] != "pch"), ["cuda.cu", "link", "main.cpp"])
        self.assertIn("relu_cuda", self.load(out, e)[0])
        r = subprocess.run(["nm", "-D", "--defined-only", os.path.join(out, e["so"])], capture_output=True, text=True)
        self.assertIn("PyInit_relu_ext", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
