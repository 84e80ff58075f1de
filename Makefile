# KernelBench-Verified pipeline. One non-recursive Makefile: the dependency graph IS the pipeline.
#
#   make deps                 install the Debian packages the build needs (root)
#   make all MODEL=<name>     evaluate one model (all models if MODEL is empty), then report
#   make report               tables and plots from the artifacts that exist (no GPU needed)
#   make test                 CPU tests, fast tier;  make test-slow: slow tier;  make test-gpu: GPU suite
#   make help                 every target and knob
comma := ,
# The rules live in mk/, one file per concern, read in this order (each uses what the ones
# before it define): goals.mk (goals and knob checks, before any work), build.mk (the toolchain,
# libraries, binaries and problems), pipeline.mk (cells, stages, tables), llm.mk (prompts and
# extraction), mutation.mk (mutants and the mutation report), test.mk (the test suites).
include mk/goals.mk mk/build.mk mk/pipeline.mk mk/llm.mk mk/mutation.mk mk/test.mk

# The targets `make help` lists (tools/make-help.awk; the knobs come from config.mk):
#: deps                   install the Debian packages the build needs (as root, or through sudo)
#: all                    evaluate MODEL (every model if empty) in PROTOCOL, then the tables (GPU)
#: compile                build every submission (no GPU): compile.h5 per sample
#: cells                  every GPU stage of every sample (sanity-check, verify-distributions, memory-profile)
#: baselines              the baselines per problem (GPU): all, or with MODEL those its samples need; BASELINE=torch: eager's time
#: report                 tables and figures from the artifacts that exist (no GPU, no stage runs)
#: fidelity               the C baselines against PyTorch eager: tables/fidelity.csv and its figure (GPU)
#: prompts                one prompt per problem and style (STYLE=kernelbench|abi; default both): artifacts/prompts/ (no GPU)
#: extract                RESPONSES=dir MODEL=name [STYLE=abi]: raw responses into submissions/MODEL/ and its extraction.csv
#: import                 FROM=dir MODEL=name: KernelBench's files, in its own layouts, into submissions/MODEL/, and a models.csv row
#: mutants                MUTATE_FROM=models: one fault per mutant into submissions/mutants/ and its mutants.csv (no GPU)
#: build                  the stages, libraries and problems (no GPU needed to build)
#: problems               the problem objects only
#: list                   every problem with its status per model (samples, compiled, passed, verified)
#: gpu-check              is there a usable CUDA device? (exit 3 if not)
#: test                   the CPU suite's fast tier, in parallel (builds what it needs; tests/README.md)
#: test-slow              the CPU suite's slow tier: the real nvcc and torch builds of every sample, Slurm
#: test-gpu               the GPU suite (both protocols' pipelines, verdicts, faults, fidelity, kill/resume)
#: help                   this list
help:
	@awk -f tools/make-help.awk Makefile config.mk || [ $$? -eq 141 ] # a reader that stops early (grep -q) is no error

ifneq ($(filter all cells compile baselines report,$(GOALS)),)
$(info kb: PROTOCOL=$(PROTOCOL) TIMER=$(TIMER) TAU=$(TAU) MODEL=$(or $(MODEL),<all>) models=[$(MODELS)] cells=$(words $(CELLS)) problems=$(words $(EVAL_PROBLEMS)) baselines=$(words $(BASELINE_PROBLEMS)) BASELINE=$(BASELINE) artifacts=$(A) GPUS=$(GPUS) rev=$(KB_GIT_REV))
endif
