#!/usr/bin/env bash
# CPU suite, fast tier: the Make-graph steps of make_incremental.sh (1-4p: a full make compile, a
# no-op one, one touched cell, a compile knob and back, the .py samples' Python toolchain) on
# three problems, with kb-compile running a stand-in nvcc (tests/fixtures/fake-nvcc: a real shared
# object from gcc). The same steps with the real nvcc, and the GPU-stage steps 5 and 6 (edits of
# the op library, rebuilt by nvcc): make_incremental.sh, slow tier.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
INCR_SUBSET=level1/001,level1/019,level1/095 INCR_NVCC=$PWD/tests/fixtures/fake-nvcc exec bash tests/cpu/make_incremental.sh
