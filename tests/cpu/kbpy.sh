#!/usr/bin/env bash
# CPU tests of py/kbpy (the .py submission builder), tests/cpu/test_kbpy.py less its real builds
# (class TestBuild: compilers for minutes, tests/cpu/kbpy_build.sh in the slow tier). Needs a
# python with torch for the torch-equivalence tests:
#   KB_PYTHON=/path/to/python tests/cpu/kbpy.sh      (default: python3)
#   KB_PY_TESTS=skip tests/cpu/kbpy.sh               (torch-free tests only)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${KB_PYTHON:-python3}
export PYTHONPATH="$PWD/py${PYTHONPATH:+:$PYTHONPATH}"
if [ "${KB_PY_TESTS:-}" = skip ]; then
  echo "kbpy: KB_PY_TESTS=skip: torch-dependent build tests skipped"
elif ! "$PY" -c 'import torch' >/dev/null 2>&1; then
  echo "torch not importable by $PY: install it (pip install torch)" >&2
  exit 1
fi
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0+PTX}
# every test class of the module but TestBuild
exec "$PY" - <<'PYEOF'
import sys, unittest
import tests.cpu.test_kbpy as t
loader = unittest.defaultTestLoader
suite = unittest.TestSuite(loader.loadTestsFromTestCase(c) for n, c in sorted(vars(t).items())
                           if isinstance(c, type) and issubclass(c, unittest.TestCase) and c is not t.TestBuild)
sys.exit(not unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful())
PYEOF
