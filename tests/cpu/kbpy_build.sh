#!/usr/bin/env bash
# The real builds of py/kbpy (tests/cpu/test_kbpy.py's class TestBuild: C++ and CUDA extensions
# through the builder and its shared cache, torch's own load_inline on the same call, failures,
# timeouts, concurrent builds of one key, the light headers): minutes of compilers, so the slow
# tier; the module's other tests are tests/cpu/kbpy.sh's. Needs torch in $KB_PYTHON (make exports
# it; default python3).
#   KB_PY_TESTS=skip tests/cpu/kbpy_build.sh          (skips them, saying so)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${KB_PYTHON:-python3}
export PYTHONPATH="$PWD/py${PYTHONPATH:+:$PYTHONPATH}"
if [ "${KB_PY_TESTS:-}" = skip ]; then
  echo "kbpy_build: KB_PY_TESTS=skip: the build tests are skipped"
elif ! "$PY" -c 'import torch' >/dev/null 2>&1; then
  echo "torch not importable by $PY: install it (pip install torch)" >&2
  exit 1
fi
# the build tests compile for sm_90 without a GPU
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0+PTX}
exec nice "$PY" -m unittest -v tests.cpu.test_kbpy.TestBuild
