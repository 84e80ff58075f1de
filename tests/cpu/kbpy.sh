#!/usr/bin/env bash
# CPU tests of py/kbpy (the .py submission builder). Needs a python with torch for the build tests:
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
# the build tests compile for sm_90 without a GPU
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0+PTX}
exec nice "$PY" -m unittest -v tests.cpu.test_kbpy
