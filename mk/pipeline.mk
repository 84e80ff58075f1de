# mk/pipeline.mk -- the pipeline: cells and baselines, the knob stamps, the stage rules, and the
# tables (make all, cells, baselines, checks, fidelity, list, report).
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
ifeq ($(filter $(MODEL),$(ALL_MODELS))$(filter extract import,$(GOALS)),)
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
# tables apply (kb-aggregate --check-models, lib/report/models.c): models.csv well-formed, a row for the
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
# The problems whose baselines this run makes (make all, make baselines; the tables wait for them):
# those PROBLEM names; else, with MODEL, those a model of MODELS has a sample for, as kb-aggregate
# counts samples: a file, or a failed response (a row of submissions/<model>/extraction.csv whose
# outcome is not ok); else (no MODEL) every problem. A problem no model has a sample for needs no
# baseline: it is a failure in every denominator whatever its baseline (docs/metrics.md, "Problems
# without a baseline"), and its excluded flag is read from its source (EXCLUDED_PROBLEMS).
EXTRACT_FAILED_PROBLEMS = $(filter $(EVAL_PROBLEMS),$(shell awk -F, 'FNR > 1 && $$3 != "ok" { print $$1 }' \
  /dev/null $(wildcard $(MODELS:%=submissions/%/extraction.csv))))
ifneq ($(strip $(PROBLEM)),)
BASELINE_PROBLEMS := $(EVAL_PROBLEMS)
else ifneq ($(MODEL),)
BASELINE_PROBLEMS := $(filter $(sort $(CELL_PROBLEMS) $(if $(strip $(ONLY_CELLS)),,$(EXTRACT_FAILED_PROBLEMS))),$(EVAL_PROBLEMS))
else
BASELINE_PROBLEMS := $(EVAL_PROBLEMS)
endif
# the problems whose descriptor flags them excluded (KB_PROB_EXCLUDED outside a comment): what the
# tables leave out of every denominator when a problem has no baseline artifact to say so
EXCLUDED_PROBLEMS := $(patsubst problems/%.c,%,$(shell grep -lE '^[^*/]*\<KB_PROB_EXCLUDED\>' /dev/null $(PROBLEM_SRC)))

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
# BASELINE (c | torch, checked in mk/goals.mk): the speedups' denominator. Its tables have their own
# directories (config.mk: TABLES_DIR, PLOTS_DIR), and a stamp that remakes them when it changes
# (a TABLES_DIR given by hand never keeps the other baseline's tables).
BASELINE_SUFFIX := $(if $(filter torch,$(BASELINE)),-torch)
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
$(call update_stamp,$(STAMPS)/tables-baseline.stamp,$(BASELINE))
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

# PyTorch eager against the C baseline, per problem (both math modes, both timers, one process);
# on the board the problem's kernels are timed on, since BASELINE=torch divides by its eager times.
$(A)/baseline/%/fidelity.h5: $(BUILD)/problems/%.so $(REFHASH)/%.hash problems/%.py $(call tool,kb-runner) $(call tool,libkbrunner) $(KBPY) $(call tool,kb-fidelity) $(STAMPS)/baseline-time.stamp
	$(Q)$(STAGE_RUN) $(LAUNCH) $(BIN)/kb-fidelity $(PROTO_FLAGS) $(call TIMED_FLAGS,$*) --problem $< --spec problems/$*.py --out $@

# ---- what to make ----------------------------------------------------------------------------------
GPU_CELL_STAGES := sanity-check verify-distributions memory-profile
COMPILE_ARTIFACTS := $(CELLS:%=$(A)/%/compile.h5)
CELL_ARTIFACTS := $(COMPILE_ARTIFACTS) $(foreach s,$(GPU_CELL_STAGES),$(CELLS:%=$(A)/%/$(s).h5))
# the baselines of BASELINE_PROBLEMS: the C baseline's time and memory; with BASELINE=torch eager's
# time (fidelity.h5) instead of the C time, and the C baseline's memory profile (fidelity.h5 records
# no eager peak: docs/metrics.md)
BASELINE_STAGES := $(if $(BASELINE_SUFFIX),fidelity,baseline-time) memory-profile
BASELINE_ARTIFACTS := $(foreach s,$(BASELINE_STAGES),$(BASELINE_PROBLEMS:%=$(A)/baseline/%/$(s).h5))
# Where the tables and figures go (TABLES_DIR, PLOTS_DIR; `make report ARTIFACTS=<archive>
# TABLES_DIR=... PLOTS_DIR=...` re-renders an archive, from its recorded inputs: below).
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


# A table is made from the artifacts and four inputs beside them: the problem set (every share's
# denominator), models.csv, the models' extraction records (submissions/<model>/extraction.csv)
# and the paper's figures (reference/paper-tables.csv). Each time a working tree's tables are made
# those inputs are recorded in the tree, $(A)/report-inputs/ (problems.txt, excluded.txt: the
# problems flagged excluded, models.csv, paper-tables.csv, submissions/<model>/extraction.csv), so that the tree, once archived, is
# reported from what made it: `make report ARTIFACTS=<archive>` uses the archive's record (PROBLEM
# narrows its problem set) and gives the tables it gave, whatever problems, models or rows were
# added since. REPORT_INPUTS=live reports an archive from today's inputs instead (and writes no
# record into it); REPORT_INPUTS=recorded insists on a record. The working tree (the default
# ARTIFACTS) is always reported from today's inputs.
# (With PROBLEM set the tables go beside the full ones, and so does their record:
# report-inputs-<problem>/; an archive reported with PROBLEM uses that record if it has one, else
# the full record narrowed to PROBLEM.)
REPORT_REC := $(A)/report-inputs$(if $(wildcard $(A)/report-inputs$(PROBLEM_SUFFIX)/problems.txt),$(PROBLEM_SUFFIX))
REPORT_REC_OUT := $(A)/report-inputs$(PROBLEM_SUFFIX)
ifeq ($(filter $(REPORT_INPUTS),recorded live),)
ifneq ($(strip $(REPORT_INPUTS)),)
$(error REPORT_INPUTS=$(REPORT_INPUTS) is not one of: recorded live (or empty: an archive's record when it has one))
endif
endif
REPORT_FROM_RECORD := $(if $(filter report,$(GOALS)),$(if $(filter recorded,$(REPORT_INPUTS)),1,$(if \
  $(filter live,$(REPORT_INPUTS))$(filter artifacts,$(ARTIFACTS:%/=%)),,$(if $(wildcard $(REPORT_REC)/problems.txt),1))))
ifeq ($(REPORT_FROM_RECORD),1)
ifeq ($(wildcard $(REPORT_REC)/problems.txt),)
$(error REPORT_INPUTS=recorded: $(REPORT_REC)/problems.txt does not exist (no record in this tree: REPORT_INPUTS=live reports it from today's inputs))
endif
REC_PROBLEMS := $(shell cat $(REPORT_REC)/problems.txt)
REPORT_PROBLEMS := $(if $(PICKED),$(filter $(PICKED),$(REC_PROBLEMS)),$(REC_PROBLEMS))
REPORT_ARGS := --problems '$(REPORT_PROBLEMS)' --models-csv $(REPORT_REC)/models.csv --submissions $(REPORT_REC)/submissions \
  --reference-csv $(REPORT_REC)/paper-tables.csv $(if $(wildcard $(REPORT_REC)/excluded.txt),--excluded '$(shell cat $(REPORT_REC)/excluded.txt)')
REPORT_NOTE := echo "make report: the inputs recorded in $(REPORT_REC) ($(words $(REPORT_PROBLEMS)) problems; REPORT_INPUTS=live for today's)" &&
else
REPORT_ARGS := --problems '$(EVAL_PROBLEMS)' --models-csv $(MODELS_CSV) --submissions submissions \
  --reference-csv reference/paper-tables.csv --excluded '$(EXCLUDED_PROBLEMS)'
# the record, written whole or not at all (an archive reported with REPORT_INPUTS=live keeps its own)
ifneq ($(filter all,$(GOALS))$(filter artifacts,$(ARTIFACTS:%/=%)),)
RECORD_INPUTS = && r=$(REPORT_REC_OUT).tmp.$$$$ && rm -rf $$r && mkdir -p $$r/submissions && \
  printf '%s\n' $(EVAL_PROBLEMS) > $$r/problems.txt && printf '%s\n' $(EXCLUDED_PROBLEMS) > $$r/excluded.txt && \
  cp $(MODELS_CSV) $$r/models.csv && \
  cp reference/paper-tables.csv $$r/paper-tables.csv && \
  for e in $(wildcard submissions/*/extraction.csv); do mkdir -p $$r/$$(dirname $$e) && cp $$e $$r/$$e || exit 1; done && \
  rm -rf $(REPORT_REC_OUT) && mv $$r $(REPORT_REC_OUT)
endif
endif
AGGREGATE = $(REPORT_NOTE) $(LAUNCH) $(BIN)/kb-aggregate --artifacts $(A) $(REPORT_ARGS) --baseline $(BASELINE) --out $(TABLES_DIR) --plots $(PLOTS_DIR) \
  $(RECORD_INPUTS) && \
  { command -v gnuplot >/dev/null || { echo "gnuplot not found: tables made, figures skipped (install gnuplot-nox)"; exit 0; }; \
    for g in plots/*.gp; do gnuplot -e "dir='$(PLOTS_DIR)'" $$g || exit 1; done; \
    echo "tables: $(TABLES_DIR)/tables.md  figures: $(PLOTS_DIR)/"; }

$(TABLES): $(CELL_ARTIFACTS) $(BASELINE_ARTIFACTS) $(BIN)/kb-aggregate $(STAMPS)/tables-baseline.stamp $(wildcard plots/*.gp $(MODELS_CSV) reference/paper-tables.csv submissions/*/extraction.csv) \
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

