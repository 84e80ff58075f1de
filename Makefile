# KernelBench-Verified pipeline. One non-recursive Makefile: the dependency graph IS the pipeline.
#
#   make deps                 install the Debian packages the build needs (root)
#   make all MODEL=<name>     evaluate one model (all models if MODEL is empty), then report
#   make report               tables and plots from the artifacts that exist (no GPU needed)
#   make test                 CPU test suite (what CI runs);  make test-gpu: GPU suite
#   make help                 every target and knob
include config.mk

SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:
.DEFAULT_GOAL := help

# ---- validation of enumerated knobs ------------------------------------------------------------
PROTOCOLS := paper strict
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
HOST_LIBS := $(H5_LIBS) $(DEP_LIBDIR)/libcsv.a -ldl -lm -lpthread

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
CFLAGS := -std=c11 -O2 -g $(WARN) $(WERROR) $(SAN_FLAGS) -D_GNU_SOURCE -Iinclude -Ilib -Igpu \
          -I$(H5_INC) $(CSV_INC) $(CUDA_INC)
LDFLAGS := $(SAN_FLAGS) -Wl,--gc-sections
NVCCFLAGS := -std=c++17 -O3 $(CUDA_GENCODE) -Iinclude -Ilib -Igpu $(CUDA_INC) \
             -Xcompiler -fPIC,-Wall,-Wextra -Xptxas -warn-spills -lineinfo

# ---- the build -----------------------------------------------------------------------------------
OBJ := $(BUILD)/obj
BIN := $(BUILD)/bin
LIBD := $(BUILD)/lib

LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(OBJ)/%.o)
GPU_CSRC := $(wildcard gpu/*.c)
GPU_CUSRC := $(wildcard gpu/*.cu)
GPU_OBJ := $(GPU_CSRC:%.c=$(OBJ)/%.o) $(GPU_CUSRC:%.cu=$(OBJ)/%.o)
OPS_SRC := $(wildcard ops/*.cu)
OPS_OBJ := $(OPS_SRC:%.cu=$(OBJ)/%.o)

LIBKB := $(LIBD)/libkb.a
LIBKBGPU := $(LIBD)/libkbgpu.a
LIBKBOPS := $(LIBD)/libkbops.so

CPU_STAGES := compile aggregate
GPU_STAGES := sanity-check baseline-time verify-distributions memory-profile
GPU_TOOLS := runner gpuinfo
STAGE_BINS := $(CPU_STAGES:%=$(BIN)/kb-%) $(GPU_STAGES:%=$(BIN)/kb-%) $(GPU_TOOLS:%=$(BIN)/kb-%)

PROBLEM_SRC := $(sort $(wildcard $(LEVELS:%=problems/%/[0-9][0-9][0-9]_*.cu)))
PROBLEM_IDS := $(patsubst problems/%.cu,%,$(PROBLEM_SRC))
PROBLEM_SOS := $(PROBLEM_IDS:%=$(BUILD)/problems/%.so)

$(OBJ)/lib/%.o: lib/%.c $(wildcard lib/*.h include/kb/*.h) | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/gpu/%.o: gpu/%.c $(wildcard lib/*.h gpu/*.h include/kb/*.h) | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/gpu/%.o: gpu/%.cu $(wildcard lib/*.h gpu/*.h include/kb/*.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(OBJ)/ops/%.o: ops/%.cu $(wildcard ops/*.cuh include/kb/*.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -fvisibility=hidden -c $< -o $@

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

# CPU stages: no CUDA at run time, so `make report` and the CPU tests work anywhere.
$(BIN)/kb-compile $(BIN)/kb-aggregate: $(BIN)/kb-%: $(OBJ)/stages/%.o $(LIBKB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(HOST_LIBS)

$(GPU_STAGES:%=$(BIN)/kb-%) $(GPU_TOOLS:%=$(BIN)/kb-%): $(BIN)/kb-%: $(OBJ)/stages/%.o $(LIBKBGPU) $(LIBKB) $(LIBKBOPS)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $(OBJ)/stages/$*.o $(LIBKBGPU) $(LIBKB) -L$(LIBD) -lkbops \
	  -Wl,-rpath,'$$ORIGIN/../lib' $(GPU_LIBS) $(HOST_LIBS)

$(OBJ)/stages/%.o: stages/%.c $(wildcard lib/*.h gpu/*.h include/kb/*.h) | deps-check
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# A problem: its own shared object exporting kb_problem_descriptor, calling the op library.
$(BUILD)/problems/%.so: problems/%.cu $(LIBKBOPS) $(wildcard include/kb/*.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -shared -cudart shared -Xcompiler -fvisibility=hidden -o $@ $< \
	  -L$(LIBD) -lkbops -Xlinker -rpath,'$$ORIGIN/../../lib'

.PHONY: build problems deps deps-check help
build: $(STAGE_BINS) $(LIBKBOPS) $(PROBLEM_SOS)
problems: $(PROBLEM_SOS)

deps-check:
ifneq ($(MISSING_DEPS),)
	@echo "missing build dependencies: $(MISSING_DEPS)" >&2
	@echo "install them with 'sudo make deps' (Debian/Ubuntu), or point DEPS_PREFIX at a bundle made by tools/bundle-deps.sh" >&2
	@exit 1
endif

DEBIAN_PACKAGES := libhdf5-dev libcsv-dev libaec-dev zlib1g-dev libseccomp-dev libcmocka-dev gnuplot-nox hdf5-tools
deps:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBIAN_PACKAGES)

help:
	@sed -n '2,9p' Makefile | sed 's/^# \{0,1\}//'
