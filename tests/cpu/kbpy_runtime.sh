#!/usr/bin/env bash
# CPU tests of py/kbpy/runtime.py (tests/cpu/test_kbpy_runtime.py): the runner's prebuilt loader,
# parameter binding and output checks, without a GPU. Needs torch in $KB_PYTHON (make exports it;
# default python3); fails, saying so, without it.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${KB_PYTHON:-python3}
"$PY" -c 'import torch' >/dev/null 2>&1 || { echo "torch not importable by $PY: install it (pip install torch)" >&2; exit 1; }
exec "$PY" -m unittest -v tests.cpu.test_kbpy_runtime
