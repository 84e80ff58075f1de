# mk/build.mk -- the toolchain and the build: the host library, the GPU harness, the op library,
# the stages' binaries, the problems' shared objects, their reference hashes and the tools'
# content hashes (what the artifacts depend on), and the build dependencies (make deps).
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

# the host library, one folder per concern (lib/README.md)
LIB_SRC := $(wildcard lib/*/*.c)
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

# Where each binary's main lives: the pipeline's stages (stages/, and kb-runner, their child), the
# campaigns around the pipeline (campaign/: prompts and extraction, mutation analysis), small
# tools (tools/). CPU ones need no CUDA at run time; GPU ones link the GPU harness.
CPU_MAINS := stages/compile stages/aggregate tools/h5get campaign/prompts campaign/extract campaign/import campaign/mutate \
             campaign/mutation-report
GPU_MAINS := stages/sanity-check stages/baseline-time stages/verify-distributions stages/memory-profile \
             stages/fidelity stages/runner campaign/witness tools/gpuinfo
MAIN_DIRS := stages campaign tools
CPU_STAGES := $(notdir $(CPU_MAINS))
GPU_STAGES := $(notdir $(GPU_MAINS))
BENCHES := $(patsubst bench/%.c,%,$(wildcard bench/*.c))
STAGE_BINS := $(CPU_STAGES:%=$(BIN)/kb-%) $(GPU_STAGES:%=$(BIN)/kb-%) \
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

# CPU binaries: no CUDA at run time, so `make report` and the CPU tests work anywhere.
define cpu_main_rule
$(BIN)/kb-$(notdir $1): $(OBJ)/$1.o $(LIBKB)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(HOST_LIBS)
endef
$(foreach m,$(CPU_MAINS),$(eval $(call cpu_main_rule,$m)))

# The op library is linked dynamically: an edit to it does not relink these (so it re-runs no cell
# by itself); what it changes for a problem is decided by that problem's reference hash.
define gpu_main_rule
$(BIN)/kb-$(notdir $1): $(OBJ)/$1.o $(LIBKBGPU) $(LIBKB) | $(LIBKBOPS)
	@mkdir -p $$(@D)
	$$(CXX) $$(LDFLAGS) -o $$@ $(OBJ)/$1.o $$(LIBKBGPU) $$(LIBKB) -L$$(LIBD) -lkbops \
	  -Wl,-rpath,'$$$$ORIGIN/../lib' $$(GPU_LIBS) $$(HOST_LIBS)
endef
$(foreach m,$(GPU_MAINS),$(eval $(call gpu_main_rule,$m)))

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

$(CPU_MAINS:%=$(OBJ)/%.o) $(GPU_MAINS:%=$(OBJ)/%.o): $(OBJ)/%.o: %.c | deps-check
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
# problem it touched, so each stage artifact made after a fresh build looked stale once (the GPU
# suite's kill/resume check found 3 stages pending). Missing, they are not remade
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
  $(wildcard $(MAIN_DIRS:%=$(OBJ)/%/*.d) $(OBJ)/bench/*.d)


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

