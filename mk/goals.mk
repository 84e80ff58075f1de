# mk/goals.mk -- what this invocation asks for, checked before anything is built: the goals, the
# knob values, a GPU for the goals that need one, the progress count and the end summary.
include config.mk
# the goals of this invocation: `make MODEL=x` or `make PROBLEM=level1/019` with no goal runs the
# main job (all), as a KernelBench user's `level=1 problem_id=19` does; a bare `make` prints help
DEFAULT_GOAL := $(if $(MODEL)$(PROBLEM),all,help)
GOALS := $(or $(MAKECMDGOALS),$(DEFAULT_GOAL))
# Knob values are checked before any goal runs (not `make help` / `make deps`): a bad one stops
# here with what it must be, before anything is built or compiled.
NO_SUBMISSION_GOALS := help deps report test test-slow test-unit test-sh test-tier-fast test-tier-slow clean prompts extract import
# non-empty when a goal reads submissions/: then its layout is checked (below)
READS_SUBMISSIONS := $(filter-out $(NO_SUBMISSION_GOALS),$(GOALS))
# The settings table (lib/core/kb_settings.def, read by awk: no binary needed) gives the knobs, their
# checks, the stage options and the stamp lists (tools/settings.awk says the token format).
SETTINGS := $(shell awk -f tools/settings.awk lib/core/kb_settings.def)
settings_of = $(patsubst $1:%,%,$(filter $1:%,$(SETTINGS)))
TABLE_KNOBS := $(call settings_of,knob)
$(foreach t,$(call settings_of,opt),$(eval KB_OPT_$(firstword $(subst =, ,$t)) := $(lastword $(subst =, ,$t))))
# each protocol's default timer (its row's): config.mk's TIMER default reads KB_PTIMER_$(PROTOCOL)
$(foreach t,$(call settings_of,ptimer),$(eval KB_PTIMER_$(firstword $(subst =, ,$t)) := $(lastword $(subst =, ,$t))))
KNOB_NAMES := $(TABLE_KNOBS) GPUS SLURM BASELINE
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

