# config.mk -- every knob of the pipeline, overridable on the command line (make VAR=value).
# Every artifact records the knob values it was made with (root group "config" of its HDF5
# file), and each stage's knobs live in a stamp file under $(BUILD)/stamps/$(PROTOCOL)/, so
# changing a knob re-runs exactly the stages (and cells) it affects.

# ---- what to evaluate ----------------------------------------------------------------------
# MODEL: one directory under submissions/ ("demo-naive"), or empty for every model there.
MODEL ?=
# LEVELS: which problem levels to evaluate.
LEVELS ?= level1 level2 level3
# PROBLEM: one problem (level1/019, level1/019_relu or 1/19; several comma-separated), every model
# unless MODEL says which; empty = all problems of LEVELS.
PROBLEM ?=
# BASELINE: the speedups' denominator. c = the C baseline (problems/levelN/NNN_name.c, timed by
# baseline-time: what comparing kernels needs); torch = PyTorch eager, timed in the same run by the
# same timer (the fidelity stage's fidelity.h5: the paper's denominator, what reproducing its numbers
# needs). Its tables go to tables-torch/ and plots/<protocol>-torch/, never beside the C ones.
BASELINE ?= c

# ---- protocol --------------------------------------------------------------------------------
# (The knobs of the settings table, lib/core/kb_settings.def, are described by its rows: `make help`
# and each stage's --help print them. The values here are where Make starts.)
PROTOCOL ?= paper
TAU ?= 1e-3
TAU_LOWP ?= 1e-2
STD_TRIALS ?= 5

# ---- timing ----------------------------------------------------------------------------------
TIMER ?= $(KB_PTIMER_$(PROTOCOL))
WARMUP ?= 3
TRIALS ?= 100
NOISE ?= 0.005
MIN_SAMPLES ?= 20
MAX_SAMPLES ?= 2000
MAX_TIME ?= 10
CLOCK_TOL ?= 0.01
PACE ?= 1
SEED ?= 42

# ---- process limits -----------------------------------------------------------------------------
COMPILE_TIMEOUT ?= 300
CALL_TIMEOUT ?= 20

# ---- hardware ----------------------------------------------------------------------------------
# GPUs the GPU stages may use (CUDA ordinals, comma-separated). Each GPU stage holds a lock on
# one of them for its whole run, so timings never overlap; a problem's baseline and cells are
# timed on the same one (a hash of the problem id picks it), checks run on any.
GPUS ?= 0
# SLURM=1 runs every stage command as a Slurm job (tools/slurm-stage.sh: srun, one GPU per GPU
# stage, the GPU lock keyed by the physical GPU); empty or 0: here, in this shell's processes.
SLURM ?=
# nvcc target: sm_90 machine code for the H200 plus compute_90 PTX.
CUDA_GENCODE ?= -gencode=arch=compute_90,code=[sm_90,compute_90]

# ---- locations ---------------------------------------------------------------------------------
# CUDA toolkit root.
CUDA ?= /usr/local/cuda
# Build outputs (binaries, libraries, problems, compiled submissions, stamps).
BUILD ?= build
# Artifact root: $(ARTIFACTS)/<protocol>/ holds each protocol's tree.
ARTIFACTS ?= artifacts
# Where `make report` writes the tables (CSV, Markdown, LaTeX) and the figures.
# (with PROBLEM set: tables-<problem>/ and plots/<protocol>-<problem>/, beside the full ones)
# (with BASELINE=torch: tables-torch/ and plots/<protocol>-torch/, so the two baselines' never mix)
TABLES_DIR ?= $(ARTIFACTS)/$(PROTOCOL)/tables$(BASELINE_SUFFIX)$(PROBLEM_SUFFIX)
PLOTS_DIR ?= plots/$(PROTOCOL)$(BASELINE_SUFFIX)$(PROBLEM_SUFFIX)
# What `make report` over an archived tree (any ARTIFACTS but the default) makes its tables from:
# empty = the inputs recorded in the tree when its tables were made (its report-inputs/: the problem
# set, models.csv, the extraction records, the paper's figures), so an archive gives back its own
# tables; live = today's; recorded = the record, and an error if the tree has none.
REPORT_INPUTS ?=
# Prefix of carried static dependencies (tools/bundle-deps.sh); empty = this machine's packages.
DEPS_PREFIX ?=

# ---- the KernelBench-format (.py) kind ------------------------------------------------------------
# The interpreter with torch: sK.py submissions, the PyTorch eager baseline, make fidelity.
PYTHON ?= python3
# The .py builds' shared cache (precompiled headers, light headers, objects by content).
PY_CACHE ?= $(BUILD)/kbpy-cache

# ---- mutation (make mutants; docs/mutation.md) -------------------------------------------------------
# The models (their samples of PROBLEM's problems) and single samples (<model>/levelN/NNN_name/sK.cu)
# mutated into submissions/mutants/ (one fault per mutant).
MUTATE_FROM ?= demo-naive demo-tuned demo-kernelbench
# 1: compile every .cu mutant (nvcc, cached by content in $(BUILD)/mutants/) so that the
# stillborn ones are recorded in mutants.csv; 0: leave them unchecked.
MUTATE_CHECK ?= 1
# Check at most this many not yet checked (0: all; the rest stay unchecked until a later run).
MUTATE_LIMIT ?= 0
# At most this many sites per rule and origin sample, spread evenly (0: every site); the same for
# a .py origin (each .py mutant is a 40-90 s extension build; 0: as MUTATE_PER_RULE).
MUTATE_PER_RULE ?= 0
MUTATE_PER_RULE_PY ?= 0
# Parallel nvcc processes of that check (default: one per core).
MUTATE_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# make mutation: kb-witness processes at a time (each holds its problem's PyTorch fp64 model), and
# the GiB each may hold for references and live samples (how the pool runs, not what it gives).
WITNESS_JOBS ?= 4
WITNESS_MEMORY ?= 16

# ---- building and testing ------------------------------------------------------------------------
# Host code under a sanitizer: asan, ubsan, or empty.
SAN ?=
# Extra compiler flags for the host code, e.g. WERROR=-Werror.
WERROR ?=
# Jobs `make test` and `make test-slow` run at a time, tests and builds (default: one per core).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Only these tests of the tier, by name (make test TESTS='prompts test_abi'; tests/README.md lists
# them); empty = all.
TESTS ?=
# 1: skip the Makefile's up-front check for an NVIDIA driver (the stages still ask CUDA).
KB_SKIP_GPU_CHECK ?=
