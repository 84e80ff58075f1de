#!/usr/bin/env bash
# CPU suite, fast tier: kill -9 of `make compile` at a random moment, then `make compile`, gives
# the same compile records as an uninterrupted run (tests/kill_resume.sh does the work), with
# kb-compile running a stand-in nvcc (tests/fixtures/fake-nvcc: a real shared object from gcc,
# written slowly enough that the kill lands inside compiles) on six problems of demo-naive.
# KILL_STRICT=1: the kill must interrupt the run, and a planted partial record must be caught.
# First a kill within 20 ms of the start, before make has made any artifact directory: the
# harness must count that as nothing done, not stop on it.
# The same with the real nvcc over every demo-naive cell: kill_resume_compile.sh (slow tier).
set -euo pipefail
cd "$(dirname "$0")/../.."
fake="NVCC=$PWD/tests/fixtures/fake-nvcc"
MAKEARGS="MODEL=demo-naive PROBLEM=level1/001,level1/003 $fake" \
    KILL_MIN=0.005 KILL_MAX=0.02 tests/kill_resume.sh compile
MAKEARGS="MODEL=demo-naive PROBLEM=level1/001,level1/003,level1/019,level1/023,level1/040,level1/095 $fake" \
    KILL_MIN=0.25x KILL_MAX=0.8x KILL_STRICT=1 exec tests/kill_resume.sh compile
