#!/usr/bin/env bash
# CPU suite: kill -9 of `make compile` at a random moment, then `make compile`, gives the same
# compile records as an uninterrupted run (tests/kill_resume.sh does the work).
set -euo pipefail
MAKEARGS="MODEL=demo-naive" KILL_MIN=2 KILL_MAX=6 exec tests/kill_resume.sh compile
