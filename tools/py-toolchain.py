"""tools/py-toolchain.py -- one line naming the Python toolchain a .py sample's extensions are
built for: the interpreter's ABI tag (cpython-312), its real path, and the torch it finds (version,
read from torch/version.py without importing torch: this runs on every make that reads .py
samples, in ~30 ms). The Makefile keeps it in build/stamps/py-toolchain.stamp, rewritten only
when it changes, and every .py sample's compile record depends on that stamp: a new Python or torch
rebuilds the samples (an extension imports only into the Python and torch it was built against).
"""
import importlib.util
import os
import re
import sys

spec = importlib.util.find_spec("torch")
torch_dir = os.path.dirname(spec.origin) if spec and spec.origin else ""
version = "none"
if torch_dir:
    try:
        with open(os.path.join(torch_dir, "version.py")) as f:
            m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", f.read(), re.M)
        version = m.group(1) if m else "unknown"
    except OSError:
        version = "unreadable"
print(sys.implementation.cache_tag, os.path.realpath(sys.executable), "torch", version, os.path.realpath(torch_dir) if torch_dir else "-")
