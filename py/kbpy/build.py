"""Ahead-of-time build of a KernelBench-format submission, without running it.

  python -m kbpy.build --src S.py --out-dir DIR --cache CACHE [--timeout 600] [--arch 9.0] [--jobs 2]

Reads the file with kbpy.extract (ast only), builds every load_inline call itself with the same
generated sources and compile/link flags as torch 2.11's ninja build, and writes DIR/kernel.py (a
byte copy), DIR/ext/<key>/<module>.so and DIR/manifest.json. See docs/py-build.md.
Only stdlib here; torch is imported once per toolchain, in a child process, to learn its flags.
"""

import argparse
import errno
import fcntl
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import extract as kx
from . import loadinline

SCHEMA = 1
PROBE_VERSION = 2  # the toolchain probe's fields (2: python_tag); part of the toolchain's hash
NOBODY = 65534
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
SHELL_META = set(";|&$`<>()\\\n\r\t*?[]~#'\"!{}")


class Infra(Exception):
    """Not the submission's fault: no manifest, exit 1."""


# ------------------------------------------------------------------------------------------------
# small utilities

def _sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        b = p if isinstance(p, bytes) else str(p).encode("utf-8", "surrogateescape")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def _atomic_write(path, data):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix="-" + os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class FileLock:
    """flock on CACHE/locks/<name>.lock; waits until deadline (monotonic) or forever."""

    def __init__(self, cache, name, deadline=None):
        d = os.path.join(cache, "locks")
        os.makedirs(d, exist_ok=True)
        self.path = os.path.join(d, name + ".lock")
        self.deadline = deadline
        self.fd = None

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
            if self.deadline is not None and time.monotonic() > self.deadline:
                os.close(self.fd)
                raise TimeoutError(self.path)
            time.sleep(0.1)

    def __exit__(self, *a):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _is_root():
    return os.geteuid() == 0


def _chown_tree(path, uid, gid):
    for root, dirs, files in os.walk(path):
        os.chown(root, uid, gid)
        for n in dirs + files:
            os.lchown(os.path.join(root, n), uid, gid)


def _other_traversable(path):
    p = os.path.realpath(path)
    while True:
        st = os.stat(p)
        if not st.st_mode & 0o001:
            return p
        if p == "/":
            return None
        p = os.path.dirname(p)


# ------------------------------------------------------------------------------------------------
# toolchain: torch's flags, learned once per toolchain hash (import torch in a child, trusted)

TOOLCHAIN_PROBE = r"""
import json, os, sys, sysconfig
import torch
import torch.utils.cpp_extension as ce
out = {
    "python_tag": sys.implementation.cache_tag,
    "torch_version": torch.__version__, "torch_cuda": torch.version.cuda,
    "cuda_home": ce.CUDA_HOME, "cudnn_home": ce.CUDNN_HOME, "cxx": ce.get_cxx_compiler(),
    "nvcc": ce._join_cuda_home("bin", "nvcc"),
    "includes_cuda": ce.include_paths("cuda"), "includes_cpu": ce.include_paths("cpu"),
    "python_include": sysconfig.get_path("include", scheme="posix_prefix"),
    "common_nvcc_flags": list(ce.COMMON_NVCC_FLAGS), "arch_flags": ce._get_cuda_arch_flags(),
    "ldflags_cuda": ce._prepare_ldflags([], True, False, False, False),
    "ldflags_cpu": ce._prepare_ldflags([], False, False, False, False),
    "shared_flag": ce.SHARED_FLAG, "torch_lib": ce.TORCH_LIB_PATH, "torch_dir": ce._TORCH_PATH,
    "pybind_abi_flags": ce._get_pybind11_abi_build_flags(),
}
json.dump(out, sys.stdout)
"""


def _torch_dir(python):
    # find_spec of a top-level package locates it without importing it
    r = subprocess.run([python, "-c", "import importlib.util as u, os; s = u.find_spec('torch'); "
                        "print(os.path.dirname(s.origin) if s and s.origin else '')"],
                       capture_output=True, text=True, timeout=60)
    return r.stdout.strip()


def _stat_sig(path):
    try:
        st = os.stat(path)
        return f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return f"{path}:missing"


def toolchain(cache, arch, python):
    # a bare name is resolved on the caller's PATH, not on the compilers' clean one
    python = shutil.which(python) or python
    tdir = _torch_dir(python)
    if not tdir:
        raise Infra(f"torch not importable by {python}: install it (pip install torch)")
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    cxx = shutil.which(os.environ.get("CXX", "c++"), path=_clean_path(cuda_home)) or "c++"
    sig = [SCHEMA, PROBE_VERSION, arch, python, os.path.realpath(python), tdir, cuda_home, cxx,
           _stat_sig(os.path.join(tdir, "version.py")),
           _stat_sig(os.path.join(tdir, "utils", "cpp_extension.py")),
           _stat_sig(os.path.join(tdir, "lib", "libtorch_cpu.so")),
           _stat_sig(os.path.join(tdir, "include", "torch", "extension.h")),
           _stat_sig(os.path.join(cuda_home, "bin", "nvcc")),
           _stat_sig(os.path.join(cuda_home, "include", "cuda_runtime.h")),
           _stat_sig(cxx), _stat_sig(os.path.realpath(cxx))]
    h = _sha(json.dumps(sig))[:16]
    path = os.path.join(cache, f"toolchain-{h}.json")
    if not os.path.exists(path):
        with FileLock(cache, f"toolchain-{h}"):
            if not os.path.exists(path):
                env = {"PATH": _clean_path(cuda_home), "CUDA_HOME": cuda_home, "HOME": cache,
                       "TORCH_CUDA_ARCH_LIST": arch + "+PTX", "LC_ALL": "C"}
                r = subprocess.run([python, "-c", TOOLCHAIN_PROBE], capture_output=True, text=True,
                                   env=env, timeout=600)
                if r.returncode != 0:
                    raise Infra(f"could not learn torch's build flags with {python}: "
                                f"{r.stderr.strip().splitlines()[-1:]}")
                tc = json.loads(r.stdout)
                tc["hash"] = h
                tc["arch"] = arch
                tc["cxx_path"] = shutil.which(tc["cxx"], path=_clean_path(cuda_home)) or tc["cxx"]
                tc["nvcc_path"] = tc["nvcc"]
                _atomic_write(path, json.dumps(tc, indent=1))
    with open(path) as f:
        tc = json.load(f)
    tc["python_include_used"] = _python_include(cache, tc)
    return tc


def _clean_path(cuda_home):
    return f"{cuda_home}/bin:/usr/local/bin:/usr/bin:/bin"


def _python_include(cache, tc):
    """Python.h's directory, readable by uid 65534 (a copy in the cache if it is not)."""
    src = tc["python_include"]
    if not _is_root() or _other_traversable(src) is None:
        return src
    dst = os.path.join(cache, "sysinc", tc["hash"], os.path.basename(src.rstrip("/")))
    if not os.path.isdir(dst):
        with FileLock(cache, f"sysinc-{tc['hash']}"):
            if not os.path.isdir(dst):
                tmp = _mktmp(cache)
                shutil.copytree(src, os.path.join(tmp, "d"), symlinks=False)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                for root, dirs, files in os.walk(tmp):
                    os.chmod(root, 0o755)
                    for n in files:
                        os.chmod(os.path.join(root, n), 0o644)
                os.rename(os.path.join(tmp, "d"), dst)
                shutil.rmtree(tmp, ignore_errors=True)
    return dst


# ------------------------------------------------------------------------------------------------
# the flag whitelist (the file is hostile: its flags reach the compilers)

_OPT = r"-O[0-3sgz]?|-Ofast"
_STD = r"-std=(?:c|gnu)\+\+(?:11|14|17|20|23|1y|1z|2a|2b|03|98)"
_MACRO = r"-[DU][A-Za-z_][A-Za-z0-9_]*(?:=[^\s]*)?"
_WARN = r"-w|-W(?!l,|a,|p,)(?:no-)?[a-z0-9][a-z0-9+=-]*|-pedantic|-Werror"
_CXX_F = (r"-fPIC|-fpic|-ffast-math|-fno-math-errno|-funroll-loops|-fno-strict-aliasing|-fopenmp|"
          r"-fno-exceptions|-fexceptions|-fvisibility=(?:hidden|default)|-fomit-frame-pointer|"
          r"-fno-omit-frame-pointer|-fno-fast-math|-ffp-contract=(?:fast|on|off)|-fno-finite-math-only|"
          r"-fstrict-aliasing|-fno-trapping-math|-ftree-vectorize|-fno-tree-vectorize|-fpermissive|"
          r"-march=(?:native|x86-64(?:-v[234])?|haswell|skylake|skylake-avx512|icelake-server|sapphirerapids|znver[1-4])|"
          r"-mtune=(?:native|generic)|-mavx|-mavx2|-mavx512f|-mavx512bw|-mavx512vl|-mfma|-mf16c|"
          r"-msse[234]?|-msse4\.[12]|-mbmi2?|-g|-g[0-3]|-DNDEBUG|-pthread")
CXX_FLAG = re.compile(rf"(?:{_OPT}|{_STD}|{_MACRO}|{_WARN}|{_CXX_F})\Z")
NVCC_SINGLE = re.compile(
    rf"(?:{_OPT}|{_STD}|{_MACRO}|{_WARN}|-?-use_fast_math|-lineinfo|--generate-line-info|"
    r"--expt-relaxed-constexpr|-expt-relaxed-constexpr|--expt-extended-lambda|-expt-extended-lambda|"
    r"--extended-lambda|-extended-lambda|--restrict|-restrict|-G|-g|--ftz=(?:true|false)|"
    r"-ftz=(?:true|false)|--prec-div=(?:true|false)|-prec-div=(?:true|false)|"
    r"--prec-sqrt=(?:true|false)|-prec-sqrt=(?:true|false)|--fmad=(?:true|false)|-fmad=(?:true|false)|"
    r"-res-usage|--resource-usage|-Xptxas=[A-Za-z0-9_=,.+-]+|--ptxas-options=[A-Za-z0-9_=,.+-]+|"
    r"-maxrregcount=\d+|--maxrregcount=\d+|--diag-suppress=[\w,]+|-diag-suppress=[\w,]+|"
    r"--display-error-number|--threads=?\d*|-t\d+|"
    r"-arch=(?:sm_90a?|compute_90a?)|--gpu-architecture=(?:sm_90a?|compute_90a?)|-code=(?:sm_90a?|compute_90a?)|"
    r"-gencode=arch=compute_90a?,code=(?:sm_90a?|compute_90a?|\[(?:sm_90a?|compute_90a?)(?:,(?:sm_90a?|compute_90a?))*\])|"
    r"--compiler-options=[^\s]+|-Xcompiler=[^\s]+)\Z")
NVCC_PAIR = {"-Xptxas": r"[A-Za-z0-9_=,.+-]+", "--ptxas-options": r"[A-Za-z0-9_=,.+-]+",
             "-maxrregcount": r"\d+", "--maxrregcount": r"\d+", "-Xcompiler": None,
             "--compiler-options": None, "-arch": r"sm_90a?|compute_90a?",
             "--gpu-architecture": r"sm_90a?|compute_90a?", "-code": r"sm_90a?|compute_90a?",
             "-gencode": r"arch=compute_90a?,code=(?:sm_90a?|compute_90a?|\[[a-z_0-9,]+\])",
             "-Xcudafe": r"--diag_suppress=[\w,]+|--display_error_number", "--threads": r"\d+", "-t": r"\d+"}
LD_LIBS = ("cublas", "cublasLt", "cudnn", "curand", "cufft", "cusparse", "cusolver", "cuda", "cudart",
           "c10", "c10_cuda", "torch", "torch_cpu", "torch_cuda", "torch_python", "gomp", "nvrtc")
CUDA_LIB_RE = re.compile(r"/usr/local/cuda(?:-[0-9.]+)?/(?:lib64|lib|targets/x86_64-linux/lib)/?\Z")

ALLOWED_TEXT = {
    "extra_cflags": "-O*, -std=c++NN, -D/-U macros, -W warnings, -w, -g, -fPIC, -ffast-math, -march=native and similar -f/-m options",
    "extra_cuda_cflags": "-O*, -std=, -D/-U, --use_fast_math, -lineinfo, --expt-relaxed-constexpr, "
                         "--expt-extended-lambda, -Xptxas/--ptxas-options/-maxrregcount values, warnings, "
                         "-arch/-gencode for sm_90/compute_90, -Xcompiler with allowed host flags",
    "extra_ldflags": "-l" + "/-l".join(LD_LIBS[:8]) + ", -L<CUDA toolkit lib64>, -fopenmp",
    "extra_include_paths": "directories inside the torch, CUDA or Python include trees",
}


class FlagError(Exception):
    def __init__(self, which, flag):
        super().__init__(f"flag not allowed in {which}: {flag} (allowed: {ALLOWED_TEXT[which]})")


def _tokens(which, flags):
    out = []
    for raw in flags:
        f = raw.strip()
        if any(c in SHELL_META for c in f) or "\x00" in f:
            raise FlagError(which, f)
        if f.startswith("@"):
            raise FlagError(which, f)
        out += f.split()
    return out


def _inc_ok(path, roots):
    if not os.path.isabs(path):
        return False
    rp = os.path.realpath(path)
    return any(rp == r or rp.startswith(r.rstrip("/") + "/") for r in roots)


def _include_roots(tc):
    roots = [os.path.realpath(os.path.join(tc["torch_dir"], "include")),
             os.path.realpath(os.path.join(tc["cuda_home"], "include")),
             os.path.realpath(os.path.join(tc["cuda_home"], "targets")),
             os.path.realpath(tc["python_include"])]
    return roots


def check_cxx(tokens, tc, which="extra_cflags"):
    roots = _include_roots(tc)
    for t in tokens:
        if t.startswith("-I") and len(t) > 2 and _inc_ok(t[2:], roots):
            continue
        if not CXX_FLAG.match(t):
            raise FlagError(which, t)


def check_nvcc(tokens, tc):
    roots = _include_roots(tc)
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in NVCC_PAIR:
            if i + 1 >= len(tokens):
                raise FlagError("extra_cuda_cflags", t)
            v = tokens[i + 1]
            rx = NVCC_PAIR[t]
            if rx is None:
                check_cxx([x for x in v.split(",") if x], tc, "extra_cuda_cflags")
            elif not re.fullmatch(rx, v):
                raise FlagError("extra_cuda_cflags", f"{t} {v}")
            i += 2
            continue
        if t.startswith("-Xcompiler=") or t.startswith("--compiler-options="):
            check_cxx([x for x in t.split("=", 1)[1].split(",") if x], tc, "extra_cuda_cflags")
        elif t.startswith("-I") and len(t) > 2 and _inc_ok(t[2:], roots):
            pass
        elif not NVCC_SINGLE.match(t):
            raise FlagError("extra_cuda_cflags", t)
        i += 1


def check_ld(tokens, tc):
    libdirs = [os.path.realpath(os.path.join(tc["cuda_home"], d)) for d in ("lib64", "lib")]
    libdirs.append(os.path.realpath(tc["torch_lib"]))
    for t in tokens:
        if t.startswith("-l") and t[2:] in LD_LIBS:
            continue
        if t.startswith("-L") and (os.path.realpath(t[2:]) in libdirs or CUDA_LIB_RE.match(t[2:])):
            continue
        if t in ("-fopenmp", "-pthread", "-lpthread", "-lm", "-ldl"):
            continue
        raise FlagError("extra_ldflags", t)


def check_includes(paths, tc):
    roots = _include_roots(tc)
    for p in paths:
        p = p.strip()
        if not _inc_ok(p, roots):
            raise FlagError("extra_include_paths", p)


INCLUDE_RE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(include|include_next|import|embed)\b[ \t]*(.*)$", re.M)


def check_source_reads(text, tc):
    """The compilers run as uid 65534, which still reads world-readable files; a source may only
    #include <...>/"..." names inside the include trees (no absolute path outside them, no '..', no
    computed #include) and may not .incbin a file into its object. Returns a reason or None."""
    t = text.replace("\\\r\n", "").replace("\\\n", "")
    t = re.sub(r"/\*.*?\*/", " ", t, flags=re.S)
    roots = _include_roots(tc)
    for m in INCLUDE_RE.finditer(t):
        arg = re.sub(r"//.*", "", m.group(2)).strip()
        mm = re.fullmatch(r'<([^<>]*)>|"([^"]*)"', arg)
        if not mm:
            return f"#{m.group(1)} {arg[:80]}: computed or malformed include not allowed"
        name = mm.group(1) if mm.group(1) is not None else mm.group(2)
        if ".." in name.replace("\\", "/").split("/"):
            return f"#{m.group(1)} {arg[:80]}: '..' in an include path not allowed"
        if name.startswith("/") and not _inc_ok(name, roots):
            return f"#{m.group(1)} {arg[:80]}: include outside the torch/CUDA/Python include trees not allowed"
    if re.search(r"\.incbin\b|\bincbin\b", t):
        return ".incbin (reads a file into the object) not allowed"
    return None


# ------------------------------------------------------------------------------------------------
# commands: the same as torch 2.11's build.ninja for this extension (see _write_ninja_file_to_build_library)

def prelim_check(norm, tc):
    """The whitelist on a call's extra flags; returns (cflags, cuda_cflags, ldflags) tokens."""
    cf = _tokens("extra_cflags", norm["extra_cflags"])
    ccf = _tokens("extra_cuda_cflags", norm["extra_cuda_cflags"])
    ldf = _tokens("extra_ldflags", norm["extra_ldflags"])
    check_cxx(cf, tc)
    check_nvcc(ccf, tc)
    check_ld(ldf, tc)
    check_includes(norm["extra_include_paths"], tc)
    return cf, ccf, ldf


def prelim_tc():
    """Paths for the whitelist before the toolchain is known (no torch import)."""
    import importlib.util
    import sysconfig
    try:
        spec = importlib.util.find_spec("torch")
        tdir = os.path.dirname(spec.origin) if spec and spec.origin else "/nonexistent-torch"
    except (ImportError, ValueError):
        tdir = "/nonexistent-torch"
    return {"torch_dir": tdir, "torch_lib": os.path.join(tdir, "lib"),
            "cuda_home": os.environ.get("CUDA_HOME") or "/usr/local/cuda",
            "python_include": sysconfig.get_path("include")}


def commands(tc, module, norm, pch_dir=None, light=None):
    """{'cxx': argv, 'nvcc': argv or None, 'link': argv} to run in the build dir; raises FlagError.
    light: the light build's directories (ensure_light), put first on both include paths."""
    with_cuda = loadinline.effective_with_cuda(norm)
    ccf_raw = [f.strip() for f in norm["extra_cuda_cflags"]]
    cf, ccf, ldf = prelim_check(norm, tc)
    user_inc = [os.path.abspath(p.strip()) for p in norm["extra_include_paths"]]
    sys_inc = list(tc["includes_cuda"] if with_cuda else tc["includes_cpu"])
    sys_inc.append(tc["python_include_used"])
    common = [f"-DTORCH_EXTENSION_NAME={module}", "-DTORCH_API_INCLUDE_EXTENSION_H"]
    common += [f"-I{p}" for p in user_inc]
    for p in sys_inc:
        common += ["-isystem", p]
    pch = ["-I" + pch_dir, "-Winvalid-pch"] if pch_dir else []
    shadow = ["-I" + light["shadow"]] if light else []
    common = shadow + common
    cxx = [tc["cxx_path"]] + pch + common + ["-fPIC", "-std=c++17"] + cf + ["-c", "main.cpp", "-o", "main.o"]
    objs = ["main.o"]
    nvcc = None
    if with_cuda and norm["cuda_sources"]:
        arch = [] if any("arch" in f for f in norm["extra_cuda_cflags"]
                         if "TORCH_EXTENSION_NAME" not in f) else list(tc["arch_flags"])
        cu = common + list(tc["common_nvcc_flags"]) + arch + ["--compiler-options", "-fPIC"] + ccf
        if not any(f.startswith("-std=") for f in ccf_raw):
            cu.append("-std=c++17")
        nvcc = [tc["nvcc_path"]] + cu + ["-c", "cuda.cu", "-o", "cuda.cuda.o"]
        objs.append("cuda.cuda.o")
    ld = list(ldf) + list(tc["ldflags_cuda"] if with_cuda else tc["ldflags_cpu"])
    link = [tc["cxx_path"]] + objs + [tc["shared_flag"]] + ld + ["-o", f"{module}.so"]
    return {"cxx": cxx, "nvcc": nvcc, "link": link}


def pch_flags_sig(cxx_cmd):
    """The flags a PCH for main.cpp depends on: all but the extension name and the PCH options.
    -D/-U are left out too: gcc itself rejects (and warns under -Winvalid-pch) a PCH whose macros
    disagree with the compile, then reads the real header."""
    out = []
    skip = False
    for i, t in enumerate(cxx_cmd[1:]):
        if skip:
            skip = False
            continue
        if t in ("-c", "-o"):
            skip = True
            continue
        if t.startswith("-DTORCH_EXTENSION_NAME=") or t == "-Winvalid-pch" or t.startswith("-I") and "/pch/" in t:
            continue
        if (t.startswith("-D") or t.startswith("-U")) and t != "-DTORCH_API_INCLUDE_EXTENSION_H":
            continue
        out.append(t)
    return out


# ------------------------------------------------------------------------------------------------
# running compilers: clean env, own process group, uid 65534 when root, killed at the deadline

class Timeout(Exception):
    pass


def _env(tc, home):
    return {"PATH": _clean_path(tc["cuda_home"]), "CUDA_HOME": tc["cuda_home"], "CUDA_PATH": tc["cuda_home"],
            "HOME": home, "TMPDIR": home, "TMP": home, "TEMP": home, "LC_ALL": "C", "LANG": "C"}


def run_steps(steps, cwd, tc, deadline, jobs, log_path):
    """Run [(what, argv)] (a list of groups; each group's steps run concurrently up to `jobs`).
    Returns [{'what','wall_s','core_s','cmd','rc'}]; raises Timeout."""
    results = []
    drop = _is_root()
    with open(log_path, "ab") as log:
        for group in steps:
            pending = list(group)
            running = {}
            failed = False
            while pending or running:
                while pending and len(running) < max(1, jobs) and not failed:
                    what, argv = pending.pop(0)
                    out_path = os.path.join(cwd, f".{what}.out")
                    outf = open(out_path, "wb")
                    kw = dict(cwd=cwd, env=_env(tc, cwd), stdin=subprocess.DEVNULL, stdout=outf,
                              stderr=subprocess.STDOUT, close_fds=True, process_group=0)
                    if drop:
                        kw.update(user=NOBODY, group=NOBODY, extra_groups=[])
                    p = subprocess.Popen(argv, **kw)
                    outf.close()
                    running[p.pid] = (p, what, argv, time.monotonic(), out_path)
                if failed and not running:
                    break
                done_any = False
                for pid in list(running):
                    p, what, argv, t0, out_path = running[pid]
                    wpid, status, ru = os.wait4(pid, os.WNOHANG)
                    if wpid == 0:
                        continue
                    done_any = True
                    p.returncode = os.waitstatus_to_exitcode(status)
                    del running[pid]
                    with open(out_path, "rb") as f:
                        out = f.read()
                    log.write(b"$ " + " ".join(argv).encode() + b"\n" + out + b"\n")
                    log.flush()
                    results.append({"what": what, "wall_s": round(time.monotonic() - t0, 3),
                                    "core_s": round(ru.ru_utime + ru.ru_stime, 3), "cmd": argv,
                                    "rc": p.returncode, "out": out.decode("utf-8", "replace")})
                    if p.returncode != 0:
                        failed = True
                        # the build has failed: its sibling compile is wasted work
                        for opid in list(running):
                            try:
                                os.killpg(opid, signal.SIGKILL)
                            except ProcessLookupError:
                                pass
                            os.wait4(opid, 0)
                            running[opid][0].returncode = -signal.SIGKILL
                            del running[opid]
                        break
                if time.monotonic() > deadline:
                    for pid, (p, *_r) in running.items():
                        try:
                            os.killpg(pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                        os.wait4(pid, 0)
                        p.returncode = -signal.SIGKILL
                    log.write(b"build timed out\n")
                    raise Timeout()
                if not done_any and running:
                    time.sleep(0.05)
            if failed:
                return results, False
    return results, True


def first_error(results, tmpdir):
    for r in results:
        if r["rc"] == 0:
            continue
        lines = r["out"].splitlines()
        pick = None
        for ln in lines:
            if re.search(r"\berror\b", ln, re.I) and "warning" not in ln.lower()[:40]:
                pick = ln
                break
        if pick is None:
            pick = next((ln for ln in lines if ln.strip()), f"{r['what']} exited with status {r['rc']}")
        pick = pick.replace(tmpdir + "/", "").strip()
        return f"{r['what']}: {pick}"[:400]
    return "unknown failure"


# ------------------------------------------------------------------------------------------------
# the PCH for main.cpp's #include <torch/extension.h>

def ensure_pch(cache, tc, cxx_cmd, deadline, steps_out, light=None):
    """The directory holding torch/extension.h and its .gch for main.cpp's flags (or, with light,
    kbpy_light_main.h and its .gch), built once under a lock; None when gcc cannot build it."""
    sig = pch_flags_sig(cxx_cmd)
    if light:
        rel, text = LIGHT_MAIN, light["main_header"]
        k = _sha(tc["hash"], json.dumps(sig), LIGHT_VERSION)[:24]
    else:
        rel = os.path.join("torch", "extension.h")
        with open(os.path.join(tc["torch_dir"], "include", "torch", "extension.h")) as f:
            text = f.read()
        k = _sha(tc["hash"], json.dumps(sig))[:24]
    d = os.path.join(cache, "pch", k)
    gch = os.path.join(d, rel + ".gch")
    if os.path.exists(gch):
        return d
    if os.path.exists(os.path.join(cache, "pch", k + ".failed")):
        return None
    with FileLock(cache, "pch-" + k, deadline):
        if os.path.exists(gch):
            return d
        tmp = _mktmp(cache)
        try:
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
            argv = [cxx_cmd[0]] + sig + ["-x", "c++-header", rel, "-o", rel + ".gch"]
            if _is_root():
                _chown_tree(tmp, NOBODY, NOBODY)
            res, ok = run_steps([[("pch", argv)]], tmp, tc, deadline, 1, os.path.join(tmp, ".pch.log"))
            for r in res:
                steps_out.append({k2: r[k2] for k2 in ("what", "wall_s", "core_s", "cmd")})
            if not ok:
                os.makedirs(os.path.join(cache, "pch"), exist_ok=True)
                _atomic_write(os.path.join(cache, "pch", k + ".failed"), res[-1]["out"][-4000:])
                return None
            for n in os.listdir(tmp):
                if n.startswith("."):
                    os.unlink(os.path.join(tmp, n))
            _seal(tmp)
            os.makedirs(os.path.join(cache, "pch"), exist_ok=True)
            os.chmod(os.path.join(cache, "pch"), 0o755)
            os.rename(tmp, d)
            tmp = None
            return d
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)


def _pch_or_none(cache, tc, cxx_cmd, deadline, steps_out, light):
    try:
        return ensure_pch(cache, tc, cxx_cmd, deadline, steps_out, light=light)
    except TimeoutError:      # another build holds its lock past our deadline: compile without
        return None


def _mktmp(cache):
    t = os.path.join(cache, "tmp")
    os.makedirs(t, exist_ok=True)
    os.chmod(t, 0o755)
    d = tempfile.mkdtemp(dir=t, prefix="b-")
    os.chmod(d, 0o755)
    return d


def _seal(path):
    """Cache entries belong to us (root when root), read-only to the compilers."""
    if _is_root():
        _chown_tree(path, 0, 0)
    for root, dirs, files in os.walk(path):
        os.chmod(root, 0o755)
        for n in files:
            os.chmod(os.path.join(root, n), 0o644)


# ------------------------------------------------------------------------------------------------
# one extension

# The light build. nvcc parses a .cu's headers three times (cudafe++, cicc, the host compiler)
# and torch/types.h, which every CUDA source of load_inline starts with, includes ATen/Functions.h:
# the declarations of all 1,300 ATen operators (ATen/NativeFunctions.h likewise), most of the
# parse. The light build compiles both sources against torch's own headers with three of them
# shadowed, generated from torch's own files (ensure_light):
#   ATen/Functions.h, ATen/NativeFunctions.h   torch's, with their per-operator #includes cut to
#       the operators that torch's other headers in the closure of torch/types.h name (`base`);
#   torch/library.h                             empty (operator registration, TORCH_LIBRARY);
# and every operator the sources name (any identifier that is an ATen operator, comments
# included) included by its own header ATen/ops/<op>.h, which declares all of its overloads.
# main.cpp's torch/extension.h (the C++ frontend + torch/python.h) becomes kbpy_light_main.h
# (torch/types.h + the pybind11 casters + wrap_pybind_function), precompiled per flag set.
# So every name the sources can see means what it means under torch's headers; a source that
# needs more (torch::nn, TORCH_LIBRARY, an operator only reached through a macro) fails to
# compile and is then built again exactly as torch builds it (`light_header: "fell back"`), so
# what builds under torch builds here and a failure carries torch's own error.

LIGHT_VERSION = "light-2"
LIGHT_MAIN = "kbpy_light_main.h"
EXT_RE = re.compile(r'^([ \t]*#[ \t]*include[ \t]*[<"]torch/extension\.h[>"])', re.M)
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
AT_NAME_RE = re.compile(r"\bat::(?:symint::)?([A-Za-z_][A-Za-z0-9_]*)")
OPS_INC_RE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<ATen/ops/([A-Za-z0-9_]+)\.h>[ \t]*$")
LIGHT_PROBE = "#include <torch/types.h>\n#include <torch/csrc/utils/pybind.h>\n#include <torch/csrc/Exceptions.h>\n"
LIGHT_MAIN_TEXT = ("/* kbpy light build of torch/extension.h for main.cpp: see py/kbpy/build.py */\n"
                   "#pragma once\n" + LIGHT_PROBE)


def _op_names(torch_inc):
    """Every ATen/ops/<name>.h (the operators, and at::tensor, at::from_blob, which have no
    dispatcher entry; an identifier naming one of the others, abs_native, costs one header)."""
    return {n[:-2] for n in os.listdir(os.path.join(torch_inc, "ATen", "ops")) if n.endswith(".h")}


def _cut_ops(text, keep, suffix):
    out = []
    for ln in text.splitlines(keepends=True):
        m = OPS_INC_RE.match(ln.rstrip("\n"))
        if m and m.group(1).endswith(suffix):
            op = m.group(1)[:len(m.group(1)) - len(suffix)] if suffix else m.group(1)
            if op not in keep:
                continue
        out.append(ln)
    return "".join(out)


def ensure_light(cache, tc, deadline):
    """The light build's generated headers for this toolchain, made once under a lock:
    {'dir', 'shadow', 'ops', 'base', 'main_header'}; None when they do not compile (recorded in
    CACHE/light/<k>.failed; every build then compiles as torch does)."""
    k = _sha(tc["hash"], LIGHT_VERSION)[:24]
    d = os.path.join(cache, "light", k)
    meta = os.path.join(d, "light.json")

    def load():
        with open(meta) as f:
            m = json.load(f)
        return {"dir": d, "shadow": os.path.join(d, "shadow"), "ops": set(m["ops"]), "base": set(m["base"]),
                "main_header": LIGHT_MAIN_TEXT}
    if os.path.exists(meta):
        return load()
    if os.path.exists(d + ".failed"):
        return None
    with FileLock(cache, "light-" + k, deadline):
        if os.path.exists(meta):
            return load()
        if os.path.exists(d + ".failed"):
            return None
        torch_inc = os.path.join(tc["torch_dir"], "include")
        inc = []
        for p in list(tc["includes_cuda"]) + [tc["python_include_used"]]:
            inc += ["-isystem", p]
        env = _env(tc, cache)
        # the headers the light sources reach, as torch's own headers are
        r = subprocess.run([tc["cxx_path"], "-M", "-std=c++17"] + inc + ["-x", "c++", "-"], input=LIGHT_PROBE,
                           capture_output=True, text=True, env=env, timeout=max(10, min(600, deadline - time.monotonic())))
        if r.returncode != 0:
            return _light_failed(cache, d, "closure of torch/types.h: " + r.stderr[-2000:])
        deps = {os.path.realpath(t) for t in r.stdout.replace("\\\n", " ").split()[1:] if t.endswith(".h")}
        ops = _op_names(torch_inc)
        ops_dir = os.path.realpath(os.path.join(torch_inc, "ATen", "ops")) + os.sep
        fun = os.path.realpath(os.path.join(torch_inc, "ATen", "Functions.h"))
        nat = os.path.realpath(os.path.join(torch_inc, "ATen", "NativeFunctions.h"))
        base = set()
        for p in sorted(deps):
            if p.startswith(ops_dir) or p == nat:
                continue
            with open(p, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if p == fun:      # its own inline helpers (at::var(self, int), ...): what they call
                text = "".join(ln for ln in text.splitlines(keepends=True) if not OPS_INC_RE.match(ln.rstrip("\n")))
            base.update(n for n in AT_NAME_RE.findall(text) if n in ops)
            base.update(m.group(1) for m in map(OPS_INC_RE.match, text.splitlines()) if m and m.group(1) in ops)
        tmp = _mktmp(cache)
        try:
            sh = os.path.join(tmp, "shadow")
            os.makedirs(os.path.join(sh, "ATen"))
            os.makedirs(os.path.join(sh, "torch"))
            with open(fun) as f:
                ftext = f.read()
            with open(nat) as f:
                ntext = f.read()
            banner = "/* kbpy light build: torch's {} with its operator #includes cut (py/kbpy/build.py) */\n"
            with open(os.path.join(sh, "ATen", "Functions.h"), "w") as f:
                f.write(banner.format("ATen/Functions.h") + _cut_ops(ftext, base, ""))
            with open(os.path.join(sh, "ATen", "NativeFunctions.h"), "w") as f:
                f.write(banner.format("ATen/NativeFunctions.h") + _cut_ops(ntext, base, "_native"))
            with open(os.path.join(sh, "torch", "library.h"), "w") as f:
                f.write("/* kbpy light build: torch/library.h left out (operator registration) */\n#pragma once\n")
            # they must compile before any build relies on them
            r = subprocess.run([tc["cxx_path"], "-fsyntax-only", "-std=c++17", "-I" + sh] + inc + ["-x", "c++", "-"],
                               input=LIGHT_PROBE, capture_output=True, text=True, env=env,
                               timeout=max(10, min(600, deadline - time.monotonic())))
            if r.returncode != 0:
                return _light_failed(cache, d, "light headers do not compile: " + r.stderr[-3000:])
            with open(os.path.join(tmp, "light.json"), "w") as f:
                json.dump({"version": LIGHT_VERSION, "toolchain": tc["hash"], "base": sorted(base),
                           "ops": sorted(ops)}, f)
            _seal(tmp)
            os.makedirs(os.path.join(cache, "light"), exist_ok=True)
            os.chmod(os.path.join(cache, "light"), 0o755)
            os.rename(tmp, d)
            tmp = None
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
    return load()


def _light_failed(cache, d, why):
    os.makedirs(os.path.dirname(d), exist_ok=True)
    _atomic_write(d + ".failed", why)
    return None


def light_sources(main_cpp, cuda_cu, light):
    """(main.cpp, cuda.cu) for the light build, or None when main.cpp does not start with torch's
    implicit include (no_implicit_headers)."""
    first, _, rest = main_cpp.partition("\n")
    if first.strip() != "#include <torch/extension.h>":
        return None
    named = set(IDENT_RE.findall(main_cpp)) | set(IDENT_RE.findall(cuda_cu or ""))
    extra = "".join(f"#include <ATen/ops/{n}.h>\n" for n in sorted((named & light["ops"]) - light["base"]))
    tag = "/* kbpy: light build of torch/extension.h */"
    lm = f"#include <{LIGHT_MAIN}> {tag}\n" + extra + EXT_RE.sub(f"#include <{LIGHT_MAIN}> {tag}", rest)
    lc = None
    if cuda_cu:
        cfirst, _, crest = cuda_cu.partition("\n")
        lc = cfirst + "\n" + extra + EXT_RE.sub(f"#include <torch/types.h> {tag}", crest)
    return lm, lc


def build_extension(cache, tc, norm, module, out_dir, key, deadline, jobs, use_pch=True, use_cache=True,
                    use_light=True):
    t0 = time.monotonic()
    ext = {"name": norm["name"], "module": module, "key": key, "so": None,
           "functions": loadinline.function_names(norm), "status": "ok", "reason": "", "cached": False,
           "wall_s": 0.0, "core_s": 0.0, "steps": [], "log": None, "pch": None, "light_header": None}
    edir = os.path.join(out_dir, "ext", key)
    os.makedirs(edir, exist_ok=True)
    main_cpp, cuda_cu = loadinline.generate_sources(norm)
    try:
        base = commands(tc, module, norm)
    except FlagError as e:
        ext.update(status="compile_error", reason=str(e))
        return ext
    bad = check_source_reads(main_cpp + "\n" + (cuda_cu or ""), tc)
    if bad:
        ext.update(status="compile_error", reason=f"source not allowed: extension '{norm['name']}': {bad}")
        return ext
    okey = _sha(tc["hash"], json.dumps(base), main_cpp, cuda_cu or "", str(use_pch),
                LIGHT_VERSION if use_light else "")
    odir = os.path.join(cache, "obj", okey)
    so_name = f"{module}.so"

    def take(from_dir, cached):
        shutil.copyfile(os.path.join(from_dir, so_name), os.path.join(edir, so_name))
        shutil.copyfile(os.path.join(from_dir, "build.log"), os.path.join(edir, "build.log"))
        os.chmod(os.path.join(edir, so_name), 0o755)
        ext["so"] = os.path.relpath(os.path.join(edir, so_name), out_dir)
        ext["log"] = os.path.relpath(os.path.join(edir, "build.log"), out_dir)
        ext["cached"] = cached
        if cached:
            try:
                with open(os.path.join(from_dir, "steps.json")) as f:
                    built = json.load(f)
                ext["built_steps"] = built.get("steps", built) if isinstance(built, dict) else built
                if isinstance(built, dict):
                    ext["light_header"], ext["pch"] = built.get("light_header"), built.get("pch")
            except OSError:
                pass

    if use_cache and os.path.exists(os.path.join(odir, so_name)):
        take(odir, True)
        ext["wall_s"] = round(time.monotonic() - t0, 3)
        return ext
    lock = FileLock(cache, "obj-" + okey, deadline) if use_cache else None
    try:
        if lock:
            lock.__enter__()
    except TimeoutError:
        raise Timeout()
    tmp = None

    def attempt(cmds, srcs, label):
        """compile (concurrently) and link; returns ok, the step results kept in ext['steps']"""
        for name, text in srcs:
            with open(os.path.join(tmp, name), "w", encoding="utf-8", newline="") as f:
                f.write(text)
        if _is_root():
            _chown_tree(tmp, NOBODY, NOBODY)
        group = [("main.cpp", cmds["cxx"])] + ([("cuda.cu", cmds["nvcc"])] if cmds["nvcc"] else [])
        res, ok = run_steps([group, [("link", cmds["link"])]], tmp, tc, deadline, jobs, log)
        ok = ok and os.path.exists(os.path.join(tmp, so_name))
        for r in res:
            ext["steps"].append({"what": r["what"] + label(ok), "wall_s": r["wall_s"], "core_s": r["core_s"],
                                 "cmd": r["cmd"]})
        return ok, res

    def pch_note(res):
        pout = next((r["out"] for r in res if r["what"] == "main.cpp"), "")
        return ("not used: " + pout.split("not used because", 1)[1].split("\n")[0].strip()
                if "not used because" in pout else "used")

    try:
        if use_cache and os.path.exists(os.path.join(odir, so_name)):
            take(odir, True)
            return ext
        tmp = _mktmp(cache)
        log = os.path.join(tmp, "build.log")
        srcs = [("main.cpp", main_cpp)] + ([("cuda.cu", cuda_cu)] if base["nvcc"] else [])
        try:
            light = ensure_light(cache, tc, deadline) if use_light and not norm["no_implicit_headers"] else None
        except (TimeoutError, subprocess.TimeoutExpired):
            raise Timeout()
        lsrc = light_sources(main_cpp, cuda_cu, light) if light else None
        ok, res = False, []
        if lsrc:
            lpch = _pch_or_none(cache, tc, commands(tc, module, norm, light=light)["cxx"], deadline, ext["steps"],
                                light) if use_pch else None
            lcmds = commands(tc, module, norm, lpch, light=light)
            ok, res = attempt(lcmds, [("main.cpp", lsrc[0])] + ([("cuda.cu", lsrc[1])] if base["nvcc"] else []),
                              lambda good: "" if good else " (light header, failed)")
            ext["light_header"] = "used" if ok else "fell back"
            if ok and lpch:
                ext["pch"] = pch_note(res)
        if not ok:
            # as torch builds it (a light build that failed: the source needs more of torch's headers)
            pch_dir = None
            if use_pch and not norm["no_implicit_headers"]:
                pch_dir = _pch_or_none(cache, tc, base["cxx"], deadline, ext["steps"], None)
            ok, res = attempt(commands(tc, module, norm, pch_dir) if pch_dir else base, srcs, lambda good: "")
            ext["pch"] = pch_note(res) if pch_dir else None
        if not ok:
            shutil.copyfile(log, os.path.join(edir, "build.log"))
            ext["log"] = os.path.relpath(os.path.join(edir, "build.log"), out_dir)
            ext.update(status="compile_error",
                       reason=f"build failed: extension '{norm['name']}': {first_error(res, tmp)}")
            return ext
        keep = {so_name, "build.log"}
        for n in os.listdir(tmp):
            if n not in keep:
                os.unlink(os.path.join(tmp, n))
        with open(os.path.join(tmp, "steps.json"), "w") as f:
            json.dump({"steps": ext["steps"], "light_header": ext["light_header"], "pch": ext["pch"]}, f)
        _seal(tmp)
        if use_cache:
            os.makedirs(os.path.join(cache, "obj"), exist_ok=True)
            os.chmod(os.path.join(cache, "obj"), 0o755)
            try:
                os.rename(tmp, odir)
                tmp = None
                take(odir, False)
            except OSError:      # someone else's identical result landed first: use either
                take(tmp, False)
        else:
            take(tmp, False)
        return ext
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        if lock:
            lock.__exit__(None, None, None)
        ext["wall_s"] = round(time.monotonic() - t0, 3)
        ext["core_s"] = round(sum(s["core_s"] for s in ext["steps"]), 3)


# ------------------------------------------------------------------------------------------------
# the sample

def _not_static_reason(call):
    ns = call["not_static"][0]
    nm = f"name='{call['name']}'" if call["name"] else f"at line {call['line']}"
    return (f"sources computed at run time: load_inline({nm}) argument {ns['arg']} at line {ns['line']} "
            f"is not a constant expression ({ns['why']})")


def build_sample(src, out_dir, cache, timeout=600.0, arch="9.0", jobs=2, python=None,
                 use_pch=True, use_cache=True, use_light=True):
    t_start = time.monotonic()
    deadline = t_start + timeout
    r_self0 = resource.getrusage(resource.RUSAGE_SELF)
    r_ch0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    os.makedirs(out_dir, exist_ok=True)
    os.makedirs(cache, exist_ok=True)
    with open(src, "rb") as f:
        raw = f.read()
    _atomic_write(os.path.join(out_dir, "kernel.py"), raw)
    man = {"schema": SCHEMA, "kind": "py", "status": "ok", "reason": "", "class": "ModelNew",
           "source_sha256": hashlib.sha256(raw).hexdigest(), "extensions": [], "extract": None,
           "custom_kernel": False, "fallback_guard": False, "wall_s": 0.0, "core_s": 0.0,
           "toolchain": None, "arch": arch}
    rep = kx.extract(text=raw.decode("utf-8", "surrogateescape")) if _utf8(raw) else kx.extract(path=src)
    man["extract"] = kx.public(rep)
    man["fallback_guard"] = any(c["guarded"] for c in rep["calls"])

    def finish(status, reason):
        if status != "ok" and man["status"] == "ok":
            man["status"], man["reason"] = status, reason
        r_self1 = resource.getrusage(resource.RUSAGE_SELF)
        r_ch1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        man["wall_s"] = round(time.monotonic() - t_start, 3)
        man["core_s"] = round((r_ch1.ru_utime - r_ch0.ru_utime) + (r_ch1.ru_stime - r_ch0.ru_stime) +
                              (r_self1.ru_utime - r_self0.ru_utime) + (r_self1.ru_stime - r_self0.ru_stime), 3)
        _atomic_write(os.path.join(out_dir, "manifest.json"), json.dumps(man, indent=1) + "\n")
        return man

    se = rep["syntax_error"]
    if se:
        return finish("compile_error", f"syntax error at line {se['line']}: {se['message']}")
    if not rep["model_new"]:
        return finish("compile_error", "no class ModelNew defined at module level")
    if rep["unsupported"]:
        return finish("unsupported", "unsupported: " + ", ".join(rep["unsupported"]))
    if not rep["calls"]:
        return finish("ok", "")

    # everything that needs no compiler first (torch-free): a file that cannot build fails fast
    ptc = prelim_tc()
    for call in rep["calls"]:
        reason = None
        if not call["static"]:
            reason = _not_static_reason(call)
        elif call["error"]:
            reason = f"load_inline(line {call['line']}): {call['error']}"
        elif not NAME_RE.match(call["name"]):
            reason = f"extension name {call['name']!r} is not a valid identifier"
        else:
            try:
                prelim_check(call["norm"], ptc)
                mc, cu = loadinline.generate_sources(call["norm"])
                bad = check_source_reads(mc + "\n" + (cu or ""), ptc)
                if bad:
                    reason = f"source not allowed: extension '{call['name']}': {bad}"
            except FlagError as e:
                reason = str(e)
        if reason and not call["guarded"]:
            man["extensions"].append({"name": call["name"], "line": call["line"], "guarded": False,
                                      "key": call.get("key"), "status": "compile_error", "reason": reason,
                                      "so": None, "cached": False, "wall_s": 0.0, "core_s": 0.0, "steps": [],
                                      "log": None, "functions": []})
            return finish("compile_error", reason)
    tc = None
    if any(c["static"] and not c["error"] for c in rep["calls"]):
        tc = toolchain(cache, arch, python or os.environ.get("KB_PYTHON") or sys.executable)
        man["toolchain"] = tc["hash"]
        man["built_for"] = loadinline.built_for(tc["python_tag"], tc["torch_version"])
    if tc and _is_root():
        bad = _other_traversable(cache)
        if bad:
            raise Infra(f"the cache {cache} is not reachable by uid {NOBODY} ({bad} lacks o+x): "
                        "put it under a world-traversable directory")
        # the compilers run as uid 65534: torch's headers and CUDA's must be readable by it (Python's
        # are copied into the cache when they are not: _python_include)
        for what, d in (("torch", tc.get("torch_dir")), ("the CUDA toolkit", tc.get("cuda_home"))):
            bad = _other_traversable(d) if d and os.path.exists(d) else None
            if bad:
                raise Infra(f"{what} at {d} is not readable by uid {NOBODY}, as which the builder runs the "
                            f"compilers when started as root ({bad} lacks o+x): install it where everyone can "
                            "read it (e.g. a venv under /opt), or run as an ordinary user")
    names_seen = {}
    keys_done = {}
    for call in rep["calls"]:
        entry = {"name": call["name"], "line": call["line"], "guarded": call["guarded"], "key": call.get("key"),
                 "status": "ok", "reason": "", "so": None, "cached": False, "wall_s": 0.0, "core_s": 0.0,
                 "steps": [], "log": None, "functions": []}
        if not call["static"]:
            entry.update(status="compile_error", reason=_not_static_reason(call))
        elif call["error"]:
            entry.update(status="compile_error", reason=f"load_inline(line {call['line']}): {call['error']}")
        elif not NAME_RE.match(call["name"]):
            entry.update(status="compile_error",
                         reason=f"extension name {call['name']!r} is not a valid identifier")
        elif call["key"] in keys_done:
            prev = keys_done[call["key"]]
            entry = dict(prev, line=call["line"], guarded=call["guarded"], duplicate_of_line=prev["line"])
        else:
            norm = call["norm"]
            # torch's JIT versioner: the same name with other sources in one process -> name_v1, ...
            versions = names_seen.setdefault(norm["name"], [])
            module = norm["name"] if not versions else f"{norm['name']}_v{len(versions)}"
            versions.append(call["key"])
            try:
                ext = build_extension(cache, tc, norm, module, out_dir, call["key"], deadline, jobs,
                                      use_pch=use_pch, use_cache=use_cache, use_light=use_light)
            except Timeout:
                man["extensions"].append(dict(entry, status="compile_error",
                                              reason=f"build timed out after {timeout:g} s"))
                return finish("compile_error", f"build timed out after {timeout:g} s")
            ext.update(line=call["line"], guarded=call["guarded"])
            entry = ext
            if ext["status"] == "ok":
                main_cpp, cuda_cu = loadinline.generate_sources(norm)
                if kx.has_custom_kernel(main_cpp + "\n" + (cuda_cu or "")):
                    man["custom_kernel"] = True
            keys_done[call["key"]] = entry
        man["extensions"].append(entry)
        if entry["status"] != "ok" and not call["guarded"]:
            return finish(entry["status"], entry["reason"])
    return finish("ok", "")


def _utf8(raw):
    try:
        raw.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m kbpy.build", description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--arch", default="9.0")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--python", default=None, help="python with torch, for the toolchain probe "
                    "(default: $KB_PYTHON, else this python)")
    ap.add_argument("--no-pch", action="store_true", help="measurement: no precompiled header")
    ap.add_argument("--no-light", action="store_true", help="measurement: cuda.cu with torch/extension.h as written "
                    "(no light-header attempt)")
    ap.add_argument("--no-cache", action="store_true", help="measurement: no object cache")
    a = ap.parse_args(argv)
    if a.arch not in ("9.0", "9.0a") or a.timeout <= 0 or a.jobs < 1:
        ap.error("--arch must be 9.0 (or 9.0a), --timeout > 0, --jobs >= 1")
    if not os.path.isfile(a.src):
        ap.error(f"--src {a.src}: no such file")
    try:
        m = build_sample(os.path.abspath(a.src), os.path.abspath(a.out_dir), os.path.abspath(a.cache),
                         a.timeout, a.arch, a.jobs, a.python, use_pch=not a.no_pch, use_cache=not a.no_cache,
                         use_light=not a.no_light)
    except Infra as e:
        print(f"kbpy.build: {e}", file=sys.stderr)
        return 1
    print(f"{a.src}: {m['status']}{': ' + m['reason'] if m['reason'] else ''} "
          f"(wall {m['wall_s']:.1f} s, core {m['core_s']:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
