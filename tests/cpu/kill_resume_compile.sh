#!/usr/bin/env bash
# CPU suite: kill -9 of `make compile` at a random moment, then `make compile`, gives the same
# compile records as an uninterrupted run (tests/kill_resume.sh does the work). Over demo-naive's
# Level-1 samples (103, compiled twice: ~8 minutes on 2 cores); adding its 100 generated Level-2
# ones doubled the time and tests nothing more (compile_all builds them).
set -euo pipefail
MAKEARGS="MODEL=demo-naive LEVELS=level1" KILL_MIN=2 KILL_MAX=6 exec tests/kill_resume.sh compile
