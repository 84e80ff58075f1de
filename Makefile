# KernelBench-Verified pipeline. One non-recursive Makefile: the dependency graph IS the pipeline.
#
#   make deps                 install the Debian packages the build needs (root)
#   make all MODEL=<name>     evaluate one model (all models if MODEL is empty), then report
#   make report               tables and plots from the artifacts that exist (no GPU needed)
#   make test                 CPU test suite (what CI runs);  make test-gpu: GPU suite
#   make help                 every target and knob
comma := ,
include config.mk
# the goals of this invocation: `make MODEL=x` or `make PROBLEM=level1/019` with no goal runs the
# main job (all), as a KernelBench user's `level=1 problem_id=19` does; a bare `make` prints help
DEFAULT_GOAL := $(if $(MODEL)$(PROBLEM),all,help)
GOALS := $(or $(MAKECMDGOALS),$(DEFAULT_GOAL))
# Knob values are checked before any goal runs (not `make help` / `make deps`): a bad one stops
# here with what it must be, before anything is built or compiled.
NO_SUBMISSION_GOALS := help deps report test test-unit test-sh clean prompts extract
# non-empty when a goal reads submissions/: then its layout is checked (below)
READS_SUBMISSIONS := $(filter-out $(NO_SUBMISSION_GOALS),$(GOALS))
# The settings table (lib/kb_settings.def, read by awk: no binary needed) gives the knobs, their
# checks, the stage options and the stamp lists (tools/settings.awk says the token format).
SETTINGS := $(shell awk -f tools/settings.awk lib/kb_settings.def)
settings_of = $(patsubst $1:%,%,$(filter $1:%,$(SETTINGS)))
TABLE_KNOBS := $(call settings_of,knob)
$(foreach t,$(call settings_of,opt),$(eval KB_OPT_$(firstword $(subst =, ,$t)) := $(lastword $(subst =, ,$t))))
# each protocol's default timer (its row's): config.mk's TIMER default reads KB_PTIMER_$(PROTOCOL)
$(foreach t,$(call settings_of,ptimer),$(eval KB_PTIMER_$(firstword $(subst =, ,$t)) := $(lastword $(subst =, ,$t))))
KNOB_NAMES := $(TABLE_KNOBS) GPUS SLURM
ifneq ($(filter-out help deps,$(GOALS)),)
KNOB_ERR := $(shell env $(foreach k,$(KNOB_NAMES),KB_K_$(k)='$($(k))') awk -v checks='$(filter check:%,$(SETTINGS))' \
  -v protocols='$(call settings_of,protocol)' -v timers='$(call settings_of,timer)' -f tools/check-knobs.awk)
ifneq ($(strip $(KNOB_ERR)),)
$(error bad knob value: $(KNOB_ERR)set it to a valid value (config.mk says what each knob means), or leave it unset for the default)
endif
endif
# Goals that need a GPU stop here, before anything is built or compiled, on a machine without an
# NVIDIA driver (no /dev/nvidiactl). KB_SKIP_GPU_CHECK=1 skips this (a driver elsewhere); the
# stages still ask CUDA themselves.
GPU_GOALS := all cells baselines fidelity test-gpu gpu-check checks witness mutation
ifneq ($(filter $(GPU_GOALS),$(GOALS)),)
ifeq ($(KB_SKIP_GPU_CHECK)$(wildcard /dev/nvidiactl /dev/nvidia0 /proc/driver/nvidia/version),)
$(error no NVIDIA driver or GPU on this machine (no /dev/nvidiactl): '$(or $(filter $(GPU_GOALS),$(MAKECMDGOALS)),all)' needs a CUDA GPU. Without one: 'make compile' (build every submission), 'make report' (tables from existing artifacts), 'make test' (the CPU suite). KB_SKIP_GPU_CHECK=1 skips this check)
endif
endif
# Progress: the top-level make of a run counts the stage commands it will run (a dry run of the
# same goals), and every stage line then shows [k/N, ETA]; the goal's end prints a summary of what
# ran and what did not pass (tools/run-summary.sh). Quiet by default; V=1 shows the commands.
PROGRESS_GOALS := all cells baselines compile fidelity checks witness
# (not in the counting dry run itself, nor in a make that a counted run started)
ifeq ($(KB_PROGRESS_CHILD)$(KB_PROGRESS_FILE),)
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS)))$(findstring q,$(firstword -$(MAKEFLAGS))),)
ifneq ($(filter $(PROGRESS_GOALS),$(GOALS)),)
export KB_PROGRESS_TOTAL := $(shell $(MAKE) -n --no-print-directory $(MAKECMDGOALS) $(MAKEOVERRIDES) KB_PROGRESS_CHILD=1 2>/dev/null | \
  grep -c 'bin/kb-\(compile\|sanity-check\|verify-distributions\|memory-profile\|baseline-time\|fidelity\|witness\) --')
export KB_PROGRESS_T0 := $(shell date +%s.%N)
export KB_PROGRESS_FILE := $(abspath $(or $(BUILD),build))/progress/run-$(subst .,,$(KB_PROGRESS_T0))
$(shell mkdir -p $(dir $(KB_PROGRESS_FILE)) && : > $(KB_PROGRESS_FILE) && ls -1t $(dir $(KB_PROGRESS_FILE)) | tail -n +21 | sed "s|^|$(dir $(KB_PROGRESS_FILE))|" | xargs -r rm -f)
endif
endif
endif
Q := $(if $(V),,@)
# the summary, once: the recipe of the last goal given (only in a run that counts progress, so
# `make -q` still sees the goals up to date)
ifneq ($(KB_PROGRESS_FILE),)
ifneq ($(filter $(lastword $(GOALS)),all cells baselines compile),)
SUMMARY_GOAL := $(lastword $(GOALS))
endif
endif


SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:
.DEFAULT_GOAL := $(DEFAULT_GOAL)

# ---- validation of enumerated knobs ------------------------------------------------------------
PROTOCOLS := $(call settings_of,protocol)
ifeq ($(filter $(PROTOCOL),$(PROTOCOLS)),)
$(error PROTOCOL=$(PROTOCOL) is not one of: $(PROTOCOLS))
endif
SANS := asan ubsan
ifneq ($(SAN),)
ifeq ($(filter $(SAN),$(SANS)),)
$(error SAN=$(SAN) is not one of: $(SANS) (or empty))
endif
endif

# ---- toolchain -----------------------------------------------------------------------------------
NVCC := $(CUDA)/bin/nvcc
CC := gcc
CXX := g++
ARCH_LIB := /usr/lib/x86_64-linux-gnu

ifeq ($(DEPS_PREFIX),)
H5_INC := /usr/include/hdf5/serial
H5_A := $(ARCH_LIB)/hdf5/serial/lib/libhdf5.a
DEP_LIBDIR := $(ARCH_LIB)
CSV_INC :=
else
H5_INC := $(DEPS_PREFIX)/include
H5_A := $(DEPS_PREFIX)/lib/libhdf5.a
DEP_LIBDIR := $(DEPS_PREFIX)/lib
CSV_INC := -I$(DEPS_PREFIX)/include
endif
STATIC_DEPS := $(H5_A) $(DEP_LIBDIR)/libcsv.a $(DEP_LIBDIR)/libsz.a $(DEP_LIBDIR)/libaec.a $(DEP_LIBDIR)/libz.a
SECCOMP_A := $(DEP_LIBDIR)/libseccomp.a
MISSING_DEPS := $(filter-out $(wildcard $(STATIC_DEPS) $(SECCOMP_A)),$(STATIC_DEPS) $(SECCOMP_A))

# Debian's static HDF5 also references libcurl/libcrypto (its S3 driver); nothing here uses it,
# and the linker drops it with --gc-sections when the objects that need them are unreferenced.
H5_LIBS := $(H5_A) $(DEP_LIBDIR)/libsz.a $(DEP_LIBDIR)/libaec.a $(DEP_LIBDIR)/libz.a
HOST_LIBS := $(H5_LIBS) $(DEP_LIBDIR)/libcsv.a $(SECCOMP_A) -ldl -lm -lpthread

CUDA_INC := -I$(CUDA)/include -I/usr/include/x86_64-linux-gnu
CUDA_LIBDIR := $(CUDA)/lib64
CUPTI_LIBDIR := $(firstword $(wildcard $(CUDA)/extras/CUPTI/lib64) $(CUDA_LIBDIR))
GPU_LIBS := -L$(CUDA_LIBDIR) -L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) \
            -lcudart -lcupti $(SECCOMP_A)

ifeq ($(SAN),asan)
SAN_FLAGS := -fsanitize=address -fno-omit-frame-pointer
else ifeq ($(SAN),ubsan)
SAN_FLAGS := -fsanitize=undefined -fno-sanitize-recover=undefined
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS := -std=c11 -O2 -g -fPIC $(WARN) $(WERROR) $(SAN_FLAGS) -D_GNU_SOURCE -Iinclude -Ilib -Igpu \
          -I$(H5_INC) $(CSV_INC) $(CUDA_INC)
LDFLAGS := $(SAN_FLAGS) -Wl,--gc-sections
NVCCFLAGS := -std=c++17 -O3 $(CUDA_GENCODE) -Iinclude -Ilib -Igpu $(CUDA_INC) \
             -Xcompiler -fPIC,-Wall,-Wextra -Xptxas -warn-spills -lineinfo

# ---- the build -----------------------------------------------------------------------------------
OBJ := $(BUILD)/obj
BIN := $(BUILD)/bin
LIBD := $(BUILD)/lib
REFHASH := $(BUILD)/refhash

LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(OBJ)/%.o)
GPU_CSRC := $(wildcard gpu/*.c)
GPU_CUSRC := $(wildcard gpu/*.cu)
GPU_OBJ := $(GPU_CSRC:%.c=$(OBJ)/%.o) $(GPU_CUSRC:%.cu=$(OBJ)/%.o)
OPS_SRC := $(wildcard ops/*.cu ops/*.c)
OPS_OBJ := $(patsubst %,$(OBJ)/%.o,$(basename $(OPS_SRC)))

LIBKB := $(LIBD)/libkb.a
LIBKBGPU := $(LIBD)/libkbgpu.a
LIBKBOPS := $(LIBD)/libkbops.so
# the runner as a library, for the Python runner of KernelBench-format (.py) submissions
LIBKBRUNNER := $(LIBD)/libkbrunner.so

CPU_STAGES := compile aggregate h5get prompts extract mutate mutation-report
GPU_STAGES := sanity-check baseline-time verify-distributions memory-profile fidelity witness
GPU_TOOLS := runner gpuinfo
BENCHES := $(patsubst bench/%.c,%,$(wildcard bench/*.c))
STAGE_BINS := $(CPU_STAGES:%=$(BIN)/kb-%) $(GPU_STAGES:%=$(BIN)/kb-%) $(GPU_TOOLS:%=$(BIN)/kb-%) \
              $(BENCHES:%=$(BIN)/kb-bench-%)

# the stages' binaries by content (below): where their hashes live, and which there are
TOOLSHA := $(BUILD)/stamps/tools
tool = $(TOOLSHA)/$(1).sha
TOOL_NAMES := $(notdir $(STAGE_BINS)) libkbrunner

PROBLEM_SRC := $(sort $(wildcard $(LEVELS:%=problems/%/[0-9][0-9][0-9]_*.c)))
PROBLEM_IDS := $(patsubst problems/%.c,%,$(PROBLEM_SRC))
PROBLEM_SOS := $(PROBLEM_IDS:%=$(BUILD)/problems/%.so)

$(OBJ)/lib/%.o: lib/%.c | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(OBJ)/gpu/%.o: gpu/%.c | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(OBJ)/gpu/%.o: gpu/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

# The op library: its CUDA sources by nvcc, its host-only sources (the reference scope) by cc.
# Header dependencies come from the compilers (-MMD), so a header edit rebuilds what includes it.
$(OBJ)/ops/%.o: ops/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -fvisibility=hidden -MMD -MP -c $< -o $@

$(OBJ)/ops/%.o: ops/%.c | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fvisibility=hidden -MMD -MP -c $< -o $@

$(LIBKB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBKBGPU): $(GPU_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBKBOPS): $(OPS_OBJ)
	@mkdir -p $(@D)
	$(NVCC) $(CUDA_GENCODE) -shared -cudart shared -o $@ $^ \
	  -L$(CUDA_LIBDIR) -lcublas -lcublasLt -lcudnn -Xlinker -rpath,$(CUDA_LIBDIR)

$(LIBKBRUNNER): $(LIBKBGPU) $(LIBKB) | $(LIBKBOPS)
	@mkdir -p $(@D)
	$(CXX) -shared $(LDFLAGS) -o $@ -Wl,-u,kb_runner_main $(LIBKBGPU) $(LIBKB) -L$(LIBD) -lkbops \
	  -Wl,-rpath,'$$ORIGIN' $(GPU_LIBS) $(HOST_LIBS)

# CPU stages: no CUDA at run time, so `make report` and the CPU tests work anywhere.
$(CPU_STAGES:%=$(BIN)/kb-%): $(BIN)/kb-%: $(OBJ)/stages/%.o $(LIBKB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS)

# The op library is linked dynamically: an edit to it does not relink these (so it re-runs no cell
# by itself); what it changes for a problem is decided by that problem's reference hash.
$(GPU_STAGES:%=$(BIN)/kb-%) $(GPU_TOOLS:%=$(BIN)/kb-%): $(BIN)/kb-%: $(OBJ)/stages/%.o $(LIBKBGPU) $(LIBKB) | $(LIBKBOPS)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $(OBJ)/stages/$*.o $(LIBKBGPU) $(LIBKB) -L$(LIBD) -lkbops \
	  -Wl,-rpath,'$$ORIGIN/../lib' $(GPU_LIBS) $(HOST_LIBS)

$(BENCHES:%=$(BIN)/kb-bench-%): $(BIN)/kb-bench-%: $(OBJ)/bench/%.o $(LIBKBGPU) $(LIBKB) | $(LIBKBOPS)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $(OBJ)/bench/$*.o $(LIBKBGPU) $(LIBKB) -L$(LIBD) -lkbops \
	  -Wl,-rpath,'$$ORIGIN/../lib' $(GPU_LIBS) $(HOST_LIBS)

# the per-kernel tracer (a CUDA injection library: CUDA_INJECTION64_PATH=$(LIBD)/libkb-kerneltrace.so,
# bench/kernel-times.sh); a diagnostic, built on demand, no stage links or runs it
KERNELTRACE := $(LIBD)/libkb-kerneltrace.so
$(KERNELTRACE): bench/trace/kerneltrace.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -fPIC -shared $(WARN) $(WERROR) -D_GNU_SOURCE $(CUDA_INC) -o $@ $< \
	  -L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -lcupti -lpthread

# does writing into CUDA-IPC-imported memory cost more than into one's own (kb-runner's outputs)?
$(BIN)/kb-bench-ipc-write: bench/trace/ipc-write.cu $(LIBKB)
	@mkdir -p $(@D)
	$(NVCC) -std=c++17 -O2 $(CUDA_GENCODE) -Ilib -Iinclude -o $@ $< $(LIBKB) $(HOST_LIBS)

$(OBJ)/bench/%.o: bench/%.c | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(OBJ)/stages/%.o: stages/%.c | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# A problem: plain C (its kernels are the op library's), its own shared object exporting only
# kb_problem_descriptor; its id is its path. It links the op library dynamically, so an op-library
# edit does not rebuild it (what re-runs is decided by the reference hashes below).
$(OBJ)/problems/%.o: problems/%.c | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fvisibility=hidden -DKB_PROBLEM_ID='"$*"' -MMD -MP -c $< -o $@

$(BUILD)/problems/%.so: $(OBJ)/problems/%.o | $(LIBKBOPS)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $< -L$(LIBD) -lkbops -Wl,-rpath,'$$ORIGIN/../../lib'
# The objects are kept (never deleted as intermediates): a first build deleted them, and the next
# make, reading their .d files (which name them as targets), compiled them again and relinked every
# problem it touched, so each stage artifact made after a fresh build looked stale once (session
# 16: the GPU suite's kill/resume check found 3 stages pending). Missing, they are not remade
# while the .so is newer than the sources (they stay intermediate).
.SECONDARY: $(PROBLEM_IDS:%=$(OBJ)/problems/%.o)

.PHONY: build problems deps deps-check help
build: $(STAGE_BINS) $(LIBKBOPS) $(LIBKBRUNNER) $(PROBLEM_SOS) $(PROBLEM_IDS:%=$(REFHASH)/%.hash) \
  $(TOOL_NAMES:%=$(TOOLSHA)/%.sha) $(BUILD)/REVISION
# what `--version` of the binaries prints when KB_GIT_REV is not set; rewritten only when the
# revision changes, and nothing depends on it (a commit re-runs no stage)
$(BUILD)/REVISION: FORCE
	@mkdir -p $(@D); [ "$$(cat $@ 2>/dev/null)" = "$(KB_GIT_REV)" ] || echo "$(KB_GIT_REV)" > $@
.PHONY: FORCE
FORCE:
problems: $(PROBLEM_SOS)
# A problem's reference hash: the op-library code its reference reaches, by content
# (tools/ref-hash.sh), rewritten only when that changes. Baselines and cells depend on it, not on
# the library file, so an op-library edit re-runs exactly the problems whose reference code changed.
# (Make sees such a recipe leave its target's date alone and re-runs nothing after it; a dry run
# cannot know that: `make -n` after an edit plans the dependants as if the content had changed.)
$(REFHASH)/%.hash: $(OBJ)/problems/%.o $(OPS_OBJ) tools/ref-hash.sh | $(LIBKBOPS)
	@mkdir -p $(@D)
	@bash tools/ref-hash.sh $@ $< $(OPS_OBJ)
.SECONDARY: $(PROBLEM_IDS:%=$(REFHASH)/%.hash)

# The stages' binaries by content (tools/content-hash.sh: code and data, not debug information):
# the artifacts depend on these, so a rebuild that changes no code (a comment in a header) re-runs
# nothing.
$(TOOLSHA)/%.sha: $(BIN)/% tools/content-hash.sh
	@mkdir -p $(@D)
	@bash tools/content-hash.sh $< $@
$(TOOLSHA)/libkbrunner.sha: $(LIBKBRUNNER) tools/content-hash.sh
	@mkdir -p $(@D)
	@bash tools/content-hash.sh $< $@
.SECONDARY: $(TOOL_NAMES:%=$(TOOLSHA)/%.sha)
# STAGE_RUN: a command every stage invocation is run through (empty: none). For tests of the
# graph without a GPU (tests/cpu/make_incremental.sh records what a real run would run).
STAGE_RUN ?=
# SLURM=1: every stage command (compile, the GPU stages, the tables) runs as a Slurm job through
# tools/slurm-stage.sh (srun, blocking; REPRODUCE.md), the artifacts on a shared filesystem.
LAUNCH := $(if $(filter 1,$(SLURM)),tools/slurm-stage.sh)
# header dependencies from the compilers (-MMD): an edit to a header rebuilds exactly what includes it
-include $(OPS_OBJ:.o=.d) $(PROBLEM_IDS:%=$(OBJ)/problems/%.d) $(LIB_OBJ:.o=.d) $(GPU_OBJ:.o=.d) \
  $(wildcard $(OBJ)/stages/*.d $(OBJ)/bench/*.d)

# ==================================================================================================
# The pipeline. A cell is <model>/levelN/NNN_name/<sample>; its artifacts live under
# $(A)/<cell>/<stage>.h5, the baseline's under $(A)/baseline/levelN/NNN_name/<stage>.h5, where
# A = $(ARTIFACTS)/$(PROTOCOL): each protocol keeps a complete tree of its own.
# ==================================================================================================
TIMERS := $(call settings_of,timer)
ifeq ($(filter $(TIMER),$(TIMERS)),)
$(error TIMER=$(TIMER) is not one of: $(TIMERS))
endif

A := $(ARTIFACTS)/$(PROTOCOL)
SUBS ?= $(BUILD)/sub
# the knob stamps of the tree: build/stamps/<protocol> for the default ARTIFACTS=artifacts, one set
# per other tree (ARTIFACTS=artifacts/mutation: build/stamps/artifacts_mutation/<protocol>), so that
# a tree made with other knob values (make mutation's NO_TIMING=1 CALL_TIMEOUT=5) never makes
# another tree's artifacts look stale
STAMPS := $(BUILD)/stamps/$(if $(filter artifacts,$(ARTIFACTS:%/=%)),,$(subst /,_,$(ARTIFACTS:%/=%))/)$(PROTOCOL)
KB_GIT_REV ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
export KB_GIT_REV
# the .py kind: the interpreter with torch, the Python runner, the problems' .py specs
export KB_PYTHON := $(or $(shell command -v $(PYTHON) 2>/dev/null),$(PYTHON))
export KB_PYRUNNER := $(abspath py/kbpy/runner.py)
export KB_PROBLEMS_DIR := $(abspath problems)

ALL_MODELS := $(sort $(patsubst submissions/%/,%,$(dir $(wildcard submissions/*/level*))))
ifneq ($(MODEL),)
ifeq ($(filter $(MODEL),$(ALL_MODELS))$(filter extract,$(GOALS)),)
$(error unknown model '$(MODEL)': no submissions/$(MODEL)/levelN/ directory. Models: $(ALL_MODELS))
endif
MODELS := $(MODEL)
else
# every model but the mutants (make mutants, docs/mutation.md: thousands of generated samples),
# which run only when named: MODEL=mutants
MODELS := $(filter-out mutants,$(ALL_MODELS))
endif

# Two kinds of sample: sK.cu (the C ABI) and sK.py (KernelBench format, taken unchanged).
SUB_CU := $(sort $(foreach m,$(MODELS),$(wildcard $(LEVELS:%=submissions/$(m)/%/*/*.cu))))
SUB_PY := $(sort $(foreach m,$(MODELS),$(wildcard $(LEVELS:%=submissions/$(m)/%/*/*.py))))
SUB_SRC := $(SUB_CU) $(SUB_PY)
# A .py sample's extensions import only into the Python and torch they were built for: the stamp
# names both (tools/py-toolchain.py, torch not imported), is rewritten only when they change, and
# every .py compile record depends on it, so a new Python or torch rebuilds the .py samples
# (brought up to date below, with the knob stamps).
PY_TOOLCHAIN_STAMP := $(BUILD)/stamps/py-toolchain.stamp
CELLS := $(sort $(patsubst submissions/%.cu,%,$(SUB_CU)) $(patsubst submissions/%.py,%,$(SUB_PY)))
BOTH_KINDS := $(filter $(patsubst submissions/%.cu,%,$(SUB_CU)),$(patsubst submissions/%.py,%,$(SUB_PY)))
ifneq ($(READS_SUBMISSIONS),)
ifneq ($(BOTH_KINDS),)
$(error these samples exist as both .cu and .py: $(BOTH_KINDS:%=submissions/%.{cu,py}); a sample is one file: rename one (e.g. s5.py))
endif
endif
# Anything in submissions/ the pipeline would not read (a wrong depth, Level1/, .CU, a space in a
# name, a model with no level directory, ...) would be silently left out: refuse it, listing each
# entry and where it should go (tools/check-layout.awk). Goals that read no submission (help,
# report, the tests, deps) are not stopped by it.
ifneq ($(READS_SUBMISSIONS),)
STRAY := $(shell find submissions -mindepth 1 -printf '%y %p\n' 2>/dev/null | LC_ALL=C awk -f tools/check-layout.awk)
ifneq ($(strip $(STRAY)),)
$(error submissions/ holds what the pipeline would not read: $(STRAY)move or rename these (a sample is submissions/<model>/levelN/NNN_name/sK.cu or sK.py))
endif
endif
# models.csv: what the tables cite a model by (docs/prompts.md). Before any work (every compile,
# stage and baseline of this run waits for it) each model of MODELS is checked by the rules the
# tables apply (kb-aggregate --check-models, lib/models.c): models.csv well-formed, a row for the
# model (else the row to add is printed), its extraction.csv well-formed, no problem with more
# samples (files and failed responses) than the row's samples_per_problem. One stamp per model,
# remade when models.csv, the binary, the model's extraction.csv or its samples change.
MODELS_CSV ?= models.csv
MODELS_OK := $(MODELS:%=$(BUILD)/stamps/models/%.ok)
define models_ok_rule
$(BUILD)/stamps/models/$1.ok: $(MODELS_CSV) $(BIN)/kb-aggregate $(wildcard submissions/$1/extraction.csv submissions/$1/level*/*/) $(filter submissions/$1/%,$(SUB_SRC))
	$(Q)$(BIN)/kb-aggregate --check-models --models-csv $(MODELS_CSV) --submissions submissions --model $1
	@mkdir -p $$(@D) && touch $$@
endef
$(foreach m,$(MODELS),$(eval $(call models_ok_rule,$m)))
# the file the runner loads: the .cu's object, or the .py's snapshot beside its extensions
cell_sub = $(SUBS)/$1/$(if $(filter submissions/$1.py,$(SUB_PY)),kernel.py,kernel.so)
# levelN/NNN_name of a cell, its model, its sample
cell_problem = $(word 2,$(subst /, ,$1))/$(word 3,$(subst /, ,$1))
cell_model = $(word 1,$(subst /, ,$1))
cell_sample = $(word 4,$(subst /, ,$1))
BAD_CELLS := $(strip $(foreach c,$(CELLS),$(if $(filter $(call cell_problem,$c),$(PROBLEM_IDS)),,$c)))
# the problems closest to a misspelled levelN/NNN_name: the same level and number, or the same name
near_problems = $(sort $(filter $(word 1,$(subst /, ,$1))/$(firstword $(subst _, ,$(word 2,$(subst /, ,$1))))_% \
  %_$(subst $(firstword $(subst _, ,$(word 2,$(subst /, ,$1))))_,,$(word 2,$(subst /, ,$1))),$(PROBLEM_IDS)))
ifneq ($(READS_SUBMISSIONS),)
ifneq ($(BAD_CELLS),)
$(error these submissions name no problem in problems/: $(foreach c,$(BAD_CELLS),submissions/$c.* (closest: $(or $(call near_problems,$(call cell_problem,$c)),none; problems are $(PROBLEM_IDS))))). A submission goes in submissions/<model>/levelN/NNN_name/sK.cu or sK.py, named like problems/levelN/NNN_name.py)
endif
endif
# PROBLEM=level1/019 (or level1/019_relu, 1/19, several comma-separated): those problems only,
# every model (tools/pick-problem.awk); the cells, baselines and tables are restricted to them.
ifneq ($(strip $(PROBLEM)),)
PICKED := $(shell printf '%s\n' $(PROBLEM_IDS) | awk -v want='$(PROBLEM)' -f tools/pick-problem.awk)
ifeq ($(PICKED),)
$(error PROBLEM=$(PROBLEM) names no problem (forms: level1/019, level1/019_relu, 1/19, a comma-separated list). Problems: $(PROBLEM_IDS))
endif
CELLS := $(foreach c,$(CELLS),$(if $(filter $(call cell_problem,$c),$(PICKED)),$c))
EVAL_PROBLEMS := $(PICKED)
PROBLEM_SUFFIX := -$(subst /,_,$(subst $(comma),+,$(PROBLEM)))
else
EVAL_PROBLEMS := $(PROBLEM_IDS)
endif
# ONLY_CELLS='model/levelN/NNN_name/sK ...': those samples only (make mutation checks the mutants'
# origins this way); one that is no sample stops the run.
ifneq ($(strip $(ONLY_CELLS)),)
ifneq ($(filter-out $(CELLS),$(ONLY_CELLS)),)
$(error ONLY_CELLS names no sample of MODEL=$(or $(MODEL),every model)$(if $(PROBLEM), and PROBLEM=$(PROBLEM)): $(filter-out $(CELLS),$(ONLY_CELLS)))
endif
CELLS := $(filter $(ONLY_CELLS),$(CELLS))
endif
CELL_PROBLEMS := $(sort $(foreach c,$(CELLS),$(call cell_problem,$c)))

# ---- knobs, as stage options, and their stamps ---------------------------------------------------
# every knob of the table, as --option value (each stage reads what it needs; all are recorded)
PROTO_FLAGS := $(foreach k,$(TABLE_KNOBS),--$(KB_OPT_$k) $($k))
GPU_FLAGS := --runner $(BIN)/kb-runner --gpus $(GPUS)
# With several GPUs a problem's kernels are timed on the board its baseline is timed on: its two
# timing stages (baseline-time, sanity-check) get one GPU of GPUS, chosen by a hash of the problem
# id (stable when problems are added), so no speedup divides times from two boards; the checks
# and memory profiles take any free GPU of GPUS. (Under SLURM=1 Slurm picks the board instead.)
GPU_LIST := $(subst $(comma), ,$(GPUS))
$(foreach t,$(shell printf '%s\n' $(PROBLEM_IDS) | awk -v g='$(GPU_LIST)' 'BEGIN { for (i = 1; i < 128; i++) ord[sprintf("%c", i)] = i; n = split(g, G, " ") } \
  { h = 0; for (i = 1; i <= length($$0); i++) h = (h * 31 + ord[substr($$0, i, 1)]) % 2147483647; print $$0 "=" G[h % n + 1] }'),\
  $(eval KB_TIME_GPU_$(firstword $(subst =, ,$t)) := $(lastword $(subst =, ,$t))))
TIMED_FLAGS = --runner $(BIN)/kb-runner --gpus $(KB_TIME_GPU_$1)

# A stamp holds the knob values a stage depends on; it is rewritten only when they change, so a
# knob change re-runs exactly the stages (and cells) that use it.
# The knobs of a stage are the table's rows that list it as a reader; a row marked "robust" (the
# robust timer's power-state knobs: the paper timer has none) counts only with TIMER=robust.
stamp_value = $(if $(findstring ?,$1),$(if $(filter $(lastword $(subst ?, ,$1)),$(TIMER)),$($(firstword $(subst ?, ,$1)))),$($1))
stage_stamp = $(strip $(foreach k,$(call settings_of,stamp:$1),$(call stamp_value,$k)))
STAMP_compile := $(call stage_stamp,compile) $(CUDA_GENCODE)
STAMPED := sanity-check verify-distributions baseline-time memory-profile
$(foreach s,$(STAMPED),$(eval STAMP_$s := $(call stage_stamp,$s)))
# NO_TIMING=1 (make mutation's own tree): the standard check without the timing; in the stamp, so a
# tree is never half timed
ifeq ($(filter $(NO_TIMING),0 1),)
ifneq ($(strip $(NO_TIMING)),)
$(error NO_TIMING=$(NO_TIMING) is not 0 or 1)
endif
endif
STAMP_sanity-check += $(if $(filter 1,$(NO_TIMING)),no-timing)
# The stamps are brought up to date when the Makefile is read (not by rules), so that `make -q`
# and `make -n` see the truth.
# (compared with runs of spaces squeezed: stamps written before the table held "10  20")
update_stamp = $(shell mkdir -p $(dir $1) && { echo '$2' | cmp -s - <(tr -s ' ' 2>/dev/null < $1) || echo '$2' > $1; })
# (not by make mutation / witness alone: their knobs are for the mutation tree, which their sub-makes
# stamp, and the witness stamp below)
ifneq ($(filter-out mutation witness,$(GOALS)),)
$(foreach s,$(STAMPED),$(call update_stamp,$(STAMPS)/$(s).stamp,$(STAMP_$(s))))
endif
$(call update_stamp,$(BUILD)/stamps/compile.stamp,$(STAMP_compile))
ifneq ($(READS_SUBMISSIONS),)
ifneq ($(SUB_PY),)
$(call update_stamp,$(PY_TOOLCHAIN_STAMP),$(shell $(KB_PYTHON) tools/py-toolchain.py 2>&1 | tail -1 | tr -d "'"))
endif
endif

# ---- the GPU check ---------------------------------------------------------------------------------
# Each GPU stage checks for a device itself (exit 3, "no CUDA device: GPU stages need one; make
# report works without") only when it has work to do, so `make all` on up-to-date artifacts needs
# no GPU. `make gpu-check` asks up front.
.PHONY: gpu-check
gpu-check: $(BIN)/kb-gpuinfo
	$(Q)$(BIN)/kb-gpuinfo >/dev/null || { echo "make: GPU stages need a CUDA device; 'make compile' and 'make report' work without one." >&2; exit 3; }

# ---- rules ---------------------------------------------------------------------------------------
.SECONDEXPANSION:

# compile: once per sample, whatever the protocol; each protocol tree gets a copy of the record.
# (a submission can include only kb/submission.h: no other header's edit recompiles it)
$(SUBS)/%/compile.h5: submissions/%.cu $(call tool,kb-compile) include/kb/submission.h $(BUILD)/stamps/compile.stamp \
  | $(BUILD)/stamps/models/$$(call cell_model,$$*).ok
	$(Q)$(LAUNCH) $(BIN)/kb-compile --compile-timeout $(COMPILE_TIMEOUT) --gencode '$(CUDA_GENCODE)' --nvcc $(NVCC) --include include \
	  --src $< --out-so $(SUBS)/$*/kernel.so --out $@ \
	  --model $(call cell_model,$*) --problem $(call cell_problem,$*) --sample $(call cell_sample,$*)


# A .py: its load_inline sources read statically (never run) and built into the sample's own
# directory, sharing one content-addressed cache (py/kbpy/build.py).
KBPY := $(wildcard py/kbpy/*.py)
$(SUBS)/%/compile.h5: submissions/%.py $(call tool,kb-compile) $(KBPY) $(BUILD)/stamps/compile.stamp $(PY_TOOLCHAIN_STAMP) \
  | $(BUILD)/stamps/models/$$(call cell_model,$$*).ok
	$(Q)$(LAUNCH) $(BIN)/kb-compile --compile-timeout $(COMPILE_TIMEOUT) --py-cache $(PY_CACHE) --py-dir py \
	  --src $< --out-so $(SUBS)/$*/kernel.py --out $@ \
	  --model $(call cell_model,$*) --problem $(call cell_problem,$*) --sample $(call cell_sample,$*)

# The per-sample compile records are files Make must keep (not intermediates to delete).
.SECONDARY: $(CELLS:%=$(SUBS)/%/compile.h5)

$(A)/%/compile.h5: $(SUBS)/%/compile.h5
	@mkdir -p $(@D) && cp $< $@.tmp && mv $@.tmp $@

CELL_DEPS = $(A)/$$*/compile.h5 $(BUILD)/problems/$$(call cell_problem,$$*).so $(REFHASH)/$$(call cell_problem,$$*).hash $(call tool,kb-runner)
CELL_FLAGS = --problem $(BUILD)/problems/$(call cell_problem,$*).so --submission $(call cell_sub,$*) \
  --compile $(A)/$*/compile.h5 --model $(call cell_model,$*) --sample $(call cell_sample,$*) --out $@

$(A)/%/sanity-check.h5: $(CELL_DEPS) $(call tool,kb-sanity-check) $(STAMPS)/sanity-check.stamp
	$(Q)$(STAGE_RUN) $(LAUNCH) $(BIN)/kb-sanity-check $(PROTO_FLAGS) $(call TIMED_FLAGS,$(call cell_problem,$*)) $(CELL_FLAGS) \
	  $(if $(filter 1,$(NO_TIMING)),--no-timing)

# verify and memory read the standard check's outcome: a sample that hung or crashed there is
# recorded as such rather than run (and timed out) again.
$(A)/%/verify-distributions.h5: $(CELL_DEPS) $(A)/%/sanity-check.h5 $(call tool,kb-verify-distributions) $(STAMPS)/verify-distributions.stamp
	$(Q)$(STAGE_RUN) $(LAUNCH) $(BIN)/kb-verify-distributions $(PROTO_FLAGS) $(GPU_FLAGS) $(CELL_FLAGS) --sanity $(A)/$*/sanity-check.h5

$(A)/%/memory-profile.h5: $(CELL_DEPS) $(A)/%/sanity-check.h5 $(call tool,kb-memory-profile) $(STAMPS)/memory-profile.stamp
	$(Q)$(STAGE_RUN) $(LAUNCH) $(BIN)/kb-memory-profile $(PROTO_FLAGS) $(GPU_FLAGS) $(CELL_FLAGS) --sanity $(A)/$*/sanity-check.h5

$(A)/baseline/%/baseline-time.h5: $(BUILD)/problems/%.so $(REFHASH)/%.hash $(call tool,kb-runner) $(call tool,kb-baseline-time) $(STAMPS)/baseline-time.stamp | $(MODELS_OK)
	$(Q)$(STAGE_RUN) $(LAUNCH) $(BIN)/kb-baseline-time $(PROTO_FLAGS) $(call TIMED_FLAGS,$*) --problem $< --out $@

$(A)/baseline/%/memory-profile.h5: $(BUILD)/problems/%.so $(REFHASH)/%.hash $(call tool,kb-runner) $(call tool,kb-memory-profile) $(STAMPS)/memory-profile.stamp | $(MODELS_OK)
	$(Q)$(STAGE_RUN) $(LAUNCH) $(BIN)/kb-memory-profile $(PROTO_FLAGS) $(GPU_FLAGS) --baseline --problem $< --out $@

# PyTorch eager against the C baseline, per problem (both math modes, both timers, one process).
$(A)/baseline/%/fidelity.h5: $(BUILD)/problems/%.so $(REFHASH)/%.hash problems/%.py $(call tool,kb-runner) $(call tool,libkbrunner) $(KBPY) $(call tool,kb-fidelity) $(STAMPS)/baseline-time.stamp
	$(Q)$(STAGE_RUN) $(LAUNCH) $(BIN)/kb-fidelity $(PROTO_FLAGS) $(GPU_FLAGS) --problem $< --spec problems/$*.py --out $@

# ---- what to make ----------------------------------------------------------------------------------
GPU_CELL_STAGES := sanity-check verify-distributions memory-profile
COMPILE_ARTIFACTS := $(CELLS:%=$(A)/%/compile.h5)
CELL_ARTIFACTS := $(COMPILE_ARTIFACTS) $(foreach s,$(GPU_CELL_STAGES),$(CELLS:%=$(A)/%/$(s).h5))
BASELINE_ARTIFACTS := $(foreach s,baseline-time memory-profile,$(EVAL_PROBLEMS:%=$(A)/baseline/%/$(s).h5))
# Where the tables and figures go (make report ARTIFACTS=results/h200/artifacts
# TABLES_DIR=results/h200/tables/paper PLOTS_DIR=results/h200/plots/paper re-renders the archive).
TABLES := $(TABLES_DIR)/summary.csv

.PHONY: all compile baselines cells checks report plots-check fidelity list
# the correctness stages only (no memory profile, no baseline): what make mutation runs;
# CHECK_STAGES=sanity-check: the standard check alone (make mutation runs the distributions only
# for the samples that passed it: a sample the standard check rejects is killed in that protocol)
CHECK_STAGES := sanity-check verify-distributions
ifneq ($(filter-out sanity-check verify-distributions,$(CHECK_STAGES)),)
$(error CHECK_STAGES=$(CHECK_STAGES): sanity-check and/or verify-distributions)
endif
checks: $(foreach s,$(CHECK_STAGES),$(CELLS:%=$(A)/%/$(s).h5))
list: $(BIN)/kb-h5get
	@bash tools/list.sh $(A) '$(EVAL_PROBLEMS)' '$(MODELS)' $(BIN)/kb-h5get
FIDELITY_ARTIFACTS := $(EVAL_PROBLEMS:%=$(A)/baseline/%/fidelity.h5)
# fidelity.csv (and its figure) from the per-problem artifacts
fidelity: $(FIDELITY_ARTIFACTS) $(BIN)/kb-h5get
	@bash tools/fidelity-csv.sh $(A) $(TABLES_DIR)/fidelity.csv $(PLOTS_DIR)
all: $(TABLES)
compile: $(COMPILE_ARTIFACTS)
baselines: $(BASELINE_ARTIFACTS)
cells: $(CELL_ARTIFACTS)
ifneq ($(SUMMARY_GOAL),)
$(SUMMARY_GOAL):
	@bash tools/run-summary.sh $(KB_PROGRESS_FILE) $(A)
endif


AGGREGATE = $(LAUNCH) $(BIN)/kb-aggregate --artifacts $(A) --problems '$(EVAL_PROBLEMS)' --models-csv $(MODELS_CSV) --submissions submissions \
  --reference-csv reference/paper-tables.csv --out $(TABLES_DIR) --plots $(PLOTS_DIR) && \
  { command -v gnuplot >/dev/null || { echo "gnuplot not found: tables made, figures skipped (install gnuplot-nox)"; exit 0; }; \
    for g in plots/*.gp; do gnuplot -e "dir='$(PLOTS_DIR)'" $$g || exit 1; done; \
    echo "tables: $(TABLES_DIR)/tables.md  figures: $(PLOTS_DIR)/"; }

$(TABLES): $(CELL_ARTIFACTS) $(BASELINE_ARTIFACTS) $(BIN)/kb-aggregate $(wildcard plots/*.gp $(MODELS_CSV) reference/paper-tables.csv submissions/*/extraction.csv) \
  | $(MODELS_OK)
	@$(AGGREGATE)

# Tables and figures from whatever artifacts exist: no GPU, no stage re-runs. An ARTIFACTS that
# holds no $(PROTOCOL)/ tree (the easy slip: ARTIFACTS=.../artifacts/paper) is refused before
# anything is written, so it can never replace good tables or figures with empty ones.
report: $(BIN)/kb-aggregate
	@if [ ! -d "$(A)" ] || [ -z "$$(find "$(A)" -name '*.h5' -print -quit 2>/dev/null)" ]; then \
	  echo "make report: no artifacts under $(A) (ARTIFACTS=$(ARTIFACTS), PROTOCOL=$(PROTOCOL))." >&2; \
	  case "$(ARTIFACTS)" in */paper|*/strict|paper|strict) \
	    echo "  ARTIFACTS is the directory that holds paper/ and strict/: try ARTIFACTS=$(patsubst %/,%,$(dir $(ARTIFACTS:%/=%))) PROTOCOL=$(notdir $(ARTIFACTS:%/=%))" >&2;; \
	  *) echo "  run the pipeline first (make all), or point ARTIFACTS at a tree that has $(PROTOCOL)/" >&2;; esac; \
	  echo "  nothing was written." >&2; exit 2; fi
	@$(AGGREGATE)

# ---- prompts and extraction (docs/prompts.md; no GPU) ---------------------------------------------
# make prompts: one prompt per problem and style, $(ARTIFACTS)/prompts/<style>/levelN/NNN_name.txt,
# from the template, the problem's .py and its descriptor; rewritten only when its bytes change.
# make extract RESPONSES=dir MODEL=name: dir/levelN/NNN_name/sK.txt into submissions/MODEL/ and its
# extraction.csv. STYLE: kernelbench or abi (prompts: empty = both; extract: empty = kernelbench).
STYLE ?=
PROMPT_STYLES := kernelbench abi
ifneq ($(filter prompts extract,$(GOALS)),)
ifneq ($(filter-out $(PROMPT_STYLES),$(STYLE)),)
$(error STYLE=$(STYLE) is not one of: $(PROMPT_STYLES) (or empty))
endif
endif
PROMPTS := $(foreach s,$(or $(STYLE),$(PROMPT_STYLES)),$(EVAL_PROBLEMS:%=$(ARTIFACTS)/prompts/$(s)/%.txt))
prompt_style = $(firstword $(subst /, ,$1))
prompt_problem = $(patsubst $(call prompt_style,$1)/%,%,$1)
# (kb-prompts leaves an unchanged prompt's bytes alone; the touch tells Make it is up to date, since
# nothing depends on a prompt's date)
$(ARTIFACTS)/prompts/%.txt: problems/$$(call prompt_problem,$$*).py $(BUILD)/problems/$$(call prompt_problem,$$*).so \
  $(call tool,kb-prompts) prompts/$$(call prompt_style,$$*).txt $(wildcard prompts/example/*) \
  $$(if $$(filter abi,$$(call prompt_style,$$*)),include/kb/submission.h)
	$(Q)$(BIN)/kb-prompts --style $(call prompt_style,$*) --problem $(BUILD)/problems/$(call prompt_problem,$*).so \
	  --spec problems/$(call prompt_problem,$*).py --templates prompts --abi-header include/kb/submission.h --out $@ && touch $@
.PHONY: prompts extract
prompts: $(PROMPTS)
	@echo "prompts: $(words $(PROMPTS)) files under $(ARTIFACTS)/prompts/ ($(or $(STYLE),$(PROMPT_STYLES)))"
extract: $(BIN)/kb-extract
	@[ -n "$(RESPONSES)" ] && [ -n "$(MODEL)" ] || { echo "make extract needs RESPONSES=dir (levelN/NNN_name/sK.txt) and MODEL=name" >&2; exit 2; }
	$(Q)$(BIN)/kb-extract --responses $(RESPONSES) --model $(MODEL) --style $(or $(STYLE),kernelbench)

# ---- mutants (docs/mutation.md; no GPU) -------------------------------------------------------------
# make mutants: every sample of MUTATE_FROM, one fault per mutant, into submissions/mutants/ (its
# mutants.csv says the origin, family, rule, site and whether it compiles); then
# `make all MODEL=mutants PROTOCOL=paper|strict` evaluates them like any model's samples.
ifneq ($(filter mutants,$(GOALS)),)
MUT_BAD := $(foreach o,$(MUTATE_FROM),$(if $(filter $o,$(ALL_MODELS))$(wildcard submissions/$o),,$o))
ifneq ($(strip $(MUT_BAD)),)
$(error MUTATE_FROM names no model and no sample: $(MUT_BAD) (models: $(ALL_MODELS); a sample is <model>/levelN/NNN_name/sK.cu|py))
endif
ifneq ($(shell for v in '$(MUTATE_PER_RULE)' '$(MUTATE_PER_RULE_PY)'; do echo "$$v" | grep -qx '[0-9][0-9]*' || echo bad; done),)
$(error MUTATE_PER_RULE=$(MUTATE_PER_RULE) / MUTATE_PER_RULE_PY=$(MUTATE_PER_RULE_PY): whole numbers >= 0 are needed)
endif
ifneq ($(filter mutants,$(MUTATE_FROM)),)
$(error MUTATE_FROM may not hold mutants (a mutant of a mutant has two faults))
endif
ifeq ($(filter $(MUTATE_CHECK),0 1),)
$(error MUTATE_CHECK=$(MUTATE_CHECK) is not 0 or 1)
endif
endif
# a model of MUTATE_FROM is its samples of PROBLEM's problems (all problems without PROBLEM)
MUT_ORIGINS = $(foreach o,$(MUTATE_FROM),$(if $(filter $o,$(ALL_MODELS)),$(if $(PICKED),$(foreach p,$(PICKED),\
  $(sort $(wildcard submissions/$o/$p/s*.cu submissions/$o/$p/s*.py))),submissions/$o),submissions/$o))
.PHONY: mutants
mutants: $(BIN)/kb-mutate
	$(Q)$(BIN)/kb-mutate --origin '$(MUT_ORIGINS)' --out submissions/mutants \
	  --per-rule $(MUTATE_PER_RULE) --per-rule-py $(MUTATE_PER_RULE_PY) \
	  $(if $(filter 1,$(MUTATE_CHECK)),--compile-check) --jobs $(MUTATE_JOBS) --nvcc $(NVCC) --gencode '$(CUDA_GENCODE)' \
	  --include include --cache $(BUILD)/mutants/compile-cache.tsv --compile-timeout $(COMPILE_TIMEOUT) --limit $(MUTATE_LIMIT)

# ---- the mutation report (make mutation; docs/mutation.md) ---------------------------------------
# make mutation [PROBLEM=...] CALL_TIMEOUT=5: over the mutants of submissions/mutants/mutants.csv
# (make mutants first) of PROBLEM's problems: compile the mutants and their origins, kb-witness per
# problem (the fp64 pool), send the witnessed mutants and the origins through both protocols'
# checks (no timing) in MUT_DIR, then kb-mutation-report: MUT_DIR/report/mutation.csv, its detail
# and summary. Every step resumes (make re-runs only what changed).
MUT_DIR := $(ARTIFACTS)/mutation
MUT_MAN := submissions/mutants/mutants.csv
space := $(subst ,, )
comma := ,
ifneq ($(filter mutation witness,$(GOALS)),)
ifeq ($(wildcard $(MUT_MAN)),)
$(error $(MUT_MAN) does not exist: make mutants MUTATE_FROM=... first (docs/mutation.md))
endif
ifneq ($(MODEL),)
$(error make mutation takes no MODEL: it runs the mutants of $(MUT_MAN) and the samples they were made from)
endif
# the manifest's problems (column 2) and origins (column 3): neither is ever quoted (kb-mutate)
MUT_PROBS := $(filter $(or $(PICKED),%),$(sort $(shell awk -F, 'NR > 1 { print $$2 }' $(MUT_MAN))))
ifeq ($(MUT_PROBS),)
$(error $(MUT_MAN) has no mutant of $(or $(PROBLEM),any problem))
endif
ifeq ($(shell echo '$(WITNESS_JOBS)' | grep -qx '[1-9][0-9]*' && echo '$(WITNESS_MEMORY)' | grep -qx '[0-9]*\.\?[0-9]\+' && echo ok),)
$(error WITNESS_JOBS=$(WITNESS_JOBS) (a whole number >= 1) / WITNESS_MEMORY=$(WITNESS_MEMORY) (GiB, a number > 0))
endif
MUT_PROBLEM := $(subst $(space),$(comma),$(MUT_PROBS))
MUT_ORIG := $(sort $(shell awk -F, -v want=' $(MUT_PROBS) ' 'NR > 1 && index(want, " " $$2 " ") { print $$3 }' $(MUT_MAN)))
MUT_WIT := $(MUT_PROBS:%=$(MUT_DIR)/witness/%.h5)
# (not WITNESS_MEMORY: it sets how the pool is run, never what an artifact holds)
$(call update_stamp,$(BUILD)/stamps/witness.stamp,call-timeout $(CALL_TIMEOUT) seed $(SEED))
endif
.PHONY: mutation witness
witness: $(MUT_WIT)
# the samples of one problem for kb-witness: its origins, then its mutants (manifest order)
$(MUT_DIR)/witness/%.list: $(MUT_MAN)
	@mkdir -p $(@D)
	$(Q)awk -F, -v p='$*' 'NR > 1 && $$2 == p { if (!seen[$$3]++) o[++no] = $$3; m[++nm] = "mutants/" p "/" $$1 " " $$3 } \
	  END { for (i = 1; i <= no; i++) print o[i]; for (i = 1; i <= nm; i++) print m[i] }' $< | \
	  while read -r c o; do k=kernel.so; for f in submissions/$$c.py; do [ -f "$$f" ] && k=kernel.py; done; \
	    printf '%s\t%s\t%s\t%s\n' "$$c" "$(BUILD)/sub/$$c/$$k" "$(BUILD)/sub/$$c/compile.h5" "$$o"; done > $@.tmp && mv $@.tmp $@
.SECONDEXPANSION:
$(MUT_DIR)/witness/%.h5: $(MUT_DIR)/witness/%.list $(BUILD)/problems/%.so problems/%.py $(call tool,kb-witness) \
  $(call tool,libkbrunner) $(BUILD)/stamps/witness.stamp $$(wildcard $(BUILD)/sub/mutants/$$*/*/compile.h5)
	$(Q)$(STAGE_RUN) $(LAUNCH) $(BIN)/kb-witness $(GPU_FLAGS) --call-timeout $(CALL_TIMEOUT) --seed $(SEED) --ref-memory $(WITNESS_MEMORY) \
	  --problem $(BUILD)/problems/$*.so --spec problems/$*.py --samples $< --out $@
mutation: build
	$(Q)$(MAKE) --no-print-directory -k compile MODEL=mutants PROBLEM=$(MUT_PROBLEM) || true
	$(Q)$(MAKE) --no-print-directory -k compile ONLY_CELLS='$(MUT_ORIG)' PROBLEM=$(MUT_PROBLEM) || true
	$(Q)rc=0; $(MAKE) --no-print-directory -k -j$(WITNESS_JOBS) witness PROBLEM=$(MUT_PROBLEM) || \
	  { rc=1; echo "make mutation: a witness run failed (above); its problem's mutants are reported without one" >&2; }; \
	wit="$$(ls $(MUT_WIT) 2>/dev/null | tr '\n' ' ')"; [ -n "$$wit" ] || { echo "make mutation: no witness artifact" >&2; exit 1; }; \
	$(BIN)/kb-mutation-report --manifest $(MUT_MAN) --witness "$$wit" --list-witnessed $(MUT_DIR)/witnessed.txt || exit 1; \
	w="$$(grep '^mutants/' $(MUT_DIR)/witnessed.txt | tr '\n' ' ')"; for p in strict paper; do \
	  $(MAKE) --no-print-directory -k checks CHECK_STAGES=sanity-check PROBLEM=$(MUT_PROBLEM) ARTIFACTS=$(MUT_DIR) NO_TIMING=1 \
	    PROTOCOL=$$p ONLY_CELLS='$(MUT_ORIG)' || rc=1; \
	  [ -z "$$w" ] || $(MAKE) --no-print-directory -k checks CHECK_STAGES=sanity-check MODEL=mutants PROBLEM=$(MUT_PROBLEM) \
	    ARTIFACTS=$(MUT_DIR) NO_TIMING=1 PROTOCOL=$$p ONLY_CELLS="$$w" || rc=1; \
	  pw=""; for c in $$w; do f=$(MUT_DIR)/$$p/$$c/sanity-check.h5; \
	    [ "$$($(BIN)/kb-h5get $$f / outcome 2>/dev/null)" = ok ] && [ "$$($(BIN)/kb-h5get $$f / correct 2>/dev/null)" = 1 ] && pw="$$pw $$c"; \
	  done; \
	  $(MAKE) --no-print-directory -k checks PROBLEM=$(MUT_PROBLEM) ARTIFACTS=$(MUT_DIR) NO_TIMING=1 PROTOCOL=$$p \
	    ONLY_CELLS='$(MUT_ORIG)' || rc=1; \
	  [ -z "$$pw" ] || $(MAKE) --no-print-directory -k checks CHECK_STAGES=verify-distributions MODEL=mutants PROBLEM=$(MUT_PROBLEM) \
	    ARTIFACTS=$(MUT_DIR) NO_TIMING=1 PROTOCOL=$$p ONLY_CELLS="$$pw" || rc=1; done; \
	$(BIN)/kb-mutation-report --manifest $(MUT_MAN) --witness "$$wit" --paper $(MUT_DIR)/paper \
	  --strict $(MUT_DIR)/strict --out $(MUT_DIR)/report || exit 1; exit $$rc

deps-check:
ifneq ($(MISSING_DEPS),)
	@echo "missing build dependencies: $(MISSING_DEPS)" >&2
	@echo "install them with 'make deps' (Debian/Ubuntu; as root or through sudo), or point DEPS_PREFIX at a bundle made by tools/bundle-deps.sh" >&2
	@exit 1
endif

DEBIAN_PACKAGES := libhdf5-dev libcsv-dev libaec-dev zlib1g-dev libseccomp-dev libcmocka-dev gnuplot-nox hdf5-tools
# as root directly (a container's root shell has no sudo), else through sudo
DEPS_SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
deps:
	@if [ -n "$(DEPS_SUDO)" ] && ! command -v sudo >/dev/null 2>&1; then \
	  echo "make deps: installing Debian packages needs root, and sudo is not installed: run it as root," \
	       "or install these yourself: $(DEBIAN_PACKAGES)" >&2; exit 2; fi
	$(DEPS_SUDO) apt-get update -qq && $(DEPS_SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBIAN_PACKAGES)

# ==================================================================================================
# Tests. `make test`: the CPU suite (CI runs it on a machine with nvcc but no GPU): cmocka
# programs tests/cpu/test_*.c (linked with the host library), then the shell tests
# tests/cpu/*.sh (stages end to end: compile every problem and demo submission, aggregate on
# fixture artifacts, Make incrementality). `make test-gpu`: the GPU suite (tests/gpu/run.sh).
# ==================================================================================================
TEST_SRC := $(wildcard tests/cpu/test_*.c)
TEST_BINS := $(TEST_SRC:tests/cpu/%.c=$(BUILD)/tests/%)
TEST_SH := $(sort $(wildcard tests/cpu/*.sh))

ifneq ($(DEPS_PREFIX),)
CMOCKA := -L$(DEPS_PREFIX)/lib -Wl,-rpath,$(abspath $(DEPS_PREFIX))/lib -lcmocka
else
CMOCKA := -lcmocka
endif

$(BUILD)/tests/%: tests/cpu/%.c $(LIBKB) $(wildcard tests/cpu/*.h) | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/cpu $(LDFLAGS) -o $@ $< $(LIBKB) $(CMOCKA) $(HOST_LIBS)

GPU_TEST_SRC := $(wildcard tests/gpu/test_*.c)
GPU_TEST_BINS := $(GPU_TEST_SRC:tests/gpu/%.c=$(BUILD)/tests/gpu/%)
$(BUILD)/tests/gpu/%: tests/gpu/%.c $(LIBKBGPU) $(LIBKB) $(LIBKBOPS) | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@.o
	$(CXX) $(LDFLAGS) -o $@ $@.o $(LIBKBGPU) $(LIBKB) -L$(LIBD) -lkbops -Wl,-rpath,'$$ORIGIN/../../lib' \
	  $(GPU_LIBS) $(CMOCKA) $(HOST_LIBS)

.PHONY: test test-unit test-sh test-gpu
# `make test` from a fresh clone builds what the suites run (every binary: the shell tests call
# kb-h5get, kb-runner, ...), with one job per core, then runs them.
test:
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) build $(TEST_BINS)
	@$(MAKE) --no-print-directory test-unit test-sh
test-unit: $(TEST_BINS)
	@fail=0; for t in $(TEST_BINS); do echo "== $$t"; $$t || fail=1; done; exit $$fail
test-sh: build
	@fail=0; for t in $(TEST_SH); do echo "== $$t"; BUILD=$(BUILD) bash $$t || { echo "FAILED: $$t"; fail=1; }; done; exit $$fail
test-gpu: build $(GPU_TEST_BINS)
	@BUILD=$(BUILD) bash tests/gpu/run.sh

# The targets `make help` lists (tools/make-help.awk; the knobs come from config.mk):
#: deps                   install the Debian packages the build needs (as root, or through sudo)
#: all                    evaluate MODEL (every model if empty) in PROTOCOL, then the tables (GPU)
#: compile                build every submission (no GPU): compile.h5 per sample
#: cells                  every GPU stage of every sample (sanity-check, verify-distributions, memory-profile)
#: baselines              the C baselines' time and memory per problem (GPU)
#: report                 tables and figures from the artifacts that exist (no GPU, no stage runs)
#: fidelity               the C baselines against PyTorch eager: tables/fidelity.csv and its figure (GPU)
#: prompts                one prompt per problem and style (STYLE=kernelbench|abi; default both): artifacts/prompts/ (no GPU)
#: extract                RESPONSES=dir MODEL=name [STYLE=abi]: raw responses into submissions/MODEL/ and its extraction.csv
#: mutants                MUTATE_FROM=models: one fault per mutant into submissions/mutants/ and its mutants.csv (no GPU)
#: build                  the stages, libraries and problems (no GPU needed to build)
#: problems               the problem objects only
#: list                   every problem with its status per model (samples, compiled, passed, verified)
#: gpu-check              is there a usable CUDA device? (exit 3 if not)
#: test                   the CPU suite (what CI runs; builds what it needs)
#: test-gpu               the GPU suite (both protocols' pipelines, verdicts, faults, fidelity, kill/resume)
#: help                   this list
help:
	@awk -f tools/make-help.awk Makefile config.mk || [ $$? -eq 141 ] # a reader that stops early (grep -q) is no error

ifneq ($(filter all cells compile baselines report,$(GOALS)),)
$(info kb: PROTOCOL=$(PROTOCOL) TIMER=$(TIMER) TAU=$(TAU) MODEL=$(or $(MODEL),<all>) models=[$(MODELS)] cells=$(words $(CELLS)) problems=$(words $(EVAL_PROBLEMS)) artifacts=$(A) GPUS=$(GPUS) rev=$(KB_GIT_REV))
endif
