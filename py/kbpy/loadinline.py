"""The load_inline call, as data: binding, canonical form, key, generated sources.

Shared by the build (kbpy.build, which sees the call statically through kbpy.extract) and the
runtime (kbpy.runtime, which sees the file's real arguments when the module calls load_inline).
Both must agree byte for byte, so everything here is pure stdlib and deterministic; torch is never
imported. The rules mirror torch 2.11's torch/utils/cpp_extension.py (load_inline and
_jit_compile); tests/cpu/test_kbpy.py checks them against torch's own code.
"""

import hashlib
import json

# torch 2.11: load_inline(name, cpp_sources, cuda_sources=None, sycl_sources=None, functions=None,
#   extra_cflags=None, extra_cuda_cflags=None, extra_sycl_cflags=None, extra_ldflags=None,
#   extra_include_paths=None, build_directory=None, verbose=False, with_cuda=None, with_sycl=None,
#   is_python_module=True, with_pytorch_error_handling=True, keep_intermediates=True,
#   use_pch=False, no_implicit_headers=False)
PARAMS = (
    ("name", None, True),
    ("cpp_sources", None, True),
    ("cuda_sources", None, False),
    ("sycl_sources", None, False),
    ("functions", None, False),
    ("extra_cflags", None, False),
    ("extra_cuda_cflags", None, False),
    ("extra_sycl_cflags", None, False),
    ("extra_ldflags", None, False),
    ("extra_include_paths", None, False),
    ("build_directory", None, False),
    ("verbose", False, False),
    ("with_cuda", None, False),
    ("with_sycl", None, False),
    ("is_python_module", True, False),
    ("with_pytorch_error_handling", True, False),
    ("keep_intermediates", True, False),
    ("use_pch", False, False),
    ("no_implicit_headers", False, False),
)
PARAM_NAMES = tuple(p[0] for p in PARAMS)

# Dropped from the canonical form: they change where/how torch builds, not what is built.
DROPPED = ("build_directory", "verbose", "keep_intermediates", "use_pch")

KEY_SCHEMA = "kbpy-load_inline-1"


class CallError(ValueError):
    """The arguments are not a call torch's load_inline would accept (or one we support)."""


def bind(args, kwargs):
    """Bind positional/keyword arguments as Python would for load_inline's signature."""
    if len(args) > len(PARAMS):
        raise CallError(f"load_inline() takes {len(PARAMS)} positional arguments but {len(args)} were given")
    bound = {}
    for (pname, _default, _req), value in zip(PARAMS, args):
        bound[pname] = value
    for k, v in kwargs.items():
        if k not in PARAM_NAMES:
            raise CallError(f"load_inline() got an unexpected keyword argument '{k}'")
        if k in bound:
            raise CallError(f"load_inline() got multiple values for argument '{k}'")
        bound[k] = v
    for pname, default, required in PARAMS:
        if pname not in bound:
            if required:
                raise CallError(f"load_inline() missing required argument: '{pname}'")
            bound[pname] = default
    return bound


def _sources(value, what, or_empty):
    # torch: cpp_sources: str -> [str]; cuda/sycl: `x = x or []`, then str -> [str]
    if or_empty and not value:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return list(value)
    raise CallError(f"{what} must be a str or a list of str (got {type(value).__name__})")


def _flags(value, what):
    if value is None:
        return []
    if isinstance(value, (list, tuple)) and all(isinstance(s, str) for s in value):
        return list(value)
    # torch iterates a str character by character (a build that cannot be meant): refuse it
    raise CallError(f"{what} must be a list of str (got {type(value).__name__})")


def _functions(value):
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return list(value)
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return dict(value)
    raise CallError(f"functions must be a list of str or a dict of str to str (got {type(value).__name__})")


def _opt_bool(value, what):
    if value is None or isinstance(value, bool):
        return value
    raise CallError(f"{what} must be None or a bool")


def normalize_call(args, kwargs):
    """Canonical dict of a load_inline call (see module doc). Raises CallError."""
    b = bind(tuple(args), dict(kwargs))
    if not isinstance(b["name"], str):
        raise CallError("name must be a str")
    norm = {
        "name": b["name"],
        "cpp_sources": _sources(b["cpp_sources"], "cpp_sources", False),
        "cuda_sources": _sources(b["cuda_sources"], "cuda_sources", True),
        "sycl_sources": _sources(b["sycl_sources"], "sycl_sources", True),
        "functions": _functions(b["functions"]),
        "extra_cflags": _flags(b["extra_cflags"], "extra_cflags"),
        "extra_cuda_cflags": _flags(b["extra_cuda_cflags"], "extra_cuda_cflags"),
        "extra_sycl_cflags": _flags(b["extra_sycl_cflags"], "extra_sycl_cflags"),
        "extra_ldflags": _flags(b["extra_ldflags"], "extra_ldflags"),
        "extra_include_paths": _flags(b["extra_include_paths"], "extra_include_paths"),
        "with_cuda": _opt_bool(b["with_cuda"], "with_cuda"),
        "with_sycl": _opt_bool(b["with_sycl"], "with_sycl"),
        "is_python_module": bool(b["is_python_module"]),
        "with_pytorch_error_handling": bool(b["with_pytorch_error_handling"]),
        "no_implicit_headers": bool(b["no_implicit_headers"]),
    }
    return norm


def effective_with_cuda(norm):
    """torch's _jit_compile: with_cuda None -> any source is a .cu (i.e. cuda_sources non-empty)."""
    if norm["with_cuda"] is None:
        return bool(norm["cuda_sources"])
    return norm["with_cuda"]


def canonical_json(norm):
    fields = []
    for k in sorted(norm):
        v = norm[k]
        if k == "functions" and isinstance(v, dict):
            v = {"dict": [[fk, fv] for fk, fv in v.items()]}  # order matters to main.cpp
        elif k == "functions" and isinstance(v, list):
            v = {"list": v}
        fields.append([k, v])
    return json.dumps([KEY_SCHEMA, fields], ensure_ascii=True, separators=(",", ":"))


def source_key(norm):
    """sha256 hex of the canonical JSON of a normalized call."""
    return hashlib.sha256(canonical_json(norm).encode("utf-8")).hexdigest()


def generate_sources(norm):
    """(main_cpp, cuda_cu or None): the text torch's load_inline writes to main.cpp / cuda.cu."""
    cpp = list(norm["cpp_sources"])
    if not norm["no_implicit_headers"]:
        cpp.insert(0, "#include <torch/extension.h>")
    functions = norm["functions"]
    if functions is not None:
        module_def = ["PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {"]
        if isinstance(functions, list):
            functions = {f: f for f in functions}
        for fname, doc in functions.items():
            if norm["with_pytorch_error_handling"]:
                module_def.append(f'm.def("{fname}", torch::wrap_pybind_function({fname}), "{doc}");')
            else:
                module_def.append(f'm.def("{fname}", {fname}, "{doc}");')
        module_def.append("}")
        cpp += module_def
    main_cpp = "\n".join(cpp)
    cuda = list(norm["cuda_sources"])
    if not cuda:
        return main_cpp, None
    if not norm["no_implicit_headers"]:
        cuda[0:0] = ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>"]
    return main_cpp, "\n".join(cuda)


def function_names(norm):
    f = norm["functions"]
    if f is None:
        return []
    return list(f) if isinstance(f, (list, dict)) else [f]


# ---- what a build is bound to ---------------------------------------------------------------------
# A built extension imports only into the CPython (cache_tag, e.g. cpython-311) and the torch build
# it was compiled against. The build records both in the sample's manifest ("built_for"); the
# runtime compares them with its own interpreter before anything is imported, so a sample built
# under another Python or torch is a harness error (rebuild), never the sample's load_error.

def built_for(python_tag, torch_version):
    return {"python": python_tag, "torch": torch_version}


def toolchain_mismatch(manifest, python_tag, torch_version):
    """'' when the manifest's extensions may be imported by this interpreter, else why not."""
    if not any(e.get("so") for e in manifest.get("extensions", [])):
        return ""  # nothing built: nothing bound to a toolchain
    bf = manifest.get("built_for")
    if not isinstance(bf, dict):
        return ("its extensions were built before the build recorded its Python and torch: "
                "rebuild them (make compile)")
    here = built_for(python_tag, torch_version)
    diff = [f"{k} {bf.get(k)!s} (here {here[k]})" for k in ("python", "torch") if bf.get(k) != here[k]]
    if diff:
        return ("its extensions were built for " + ", ".join(diff) +
                ": rebuild them with this Python (make compile; PYTHON= names the interpreter)")
    return ""
