# mk/llm.mk -- prompts for the models and the extraction of their answers (docs/prompts.md; no GPU).
# ---- prompts and extraction (docs/prompts.md; no GPU) ---------------------------------------------
# make prompts: one prompt per problem and style, $(ARTIFACTS)/prompts/<style>/levelN/NNN_name.txt,
# from the template, the problem's .py and its descriptor; rewritten only when its bytes change.
# make extract RESPONSES=dir MODEL=name: dir/levelN/NNN_name/sK.txt into submissions/MODEL/ and its
# extraction.csv. STYLE: kernelbench or abi (prompts: empty = both; extract: empty = kernelbench).
# make import FROM=dir MODEL=name: model-written KernelBench files in KernelBench's own layouts (a
# run folder, generated_kernels, level_L/problem_P/, raw answers, a submission tree) into
# submissions/MODEL/ and its extraction.csv, and a row for MODEL in MODELS_CSV if it has none.
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
.PHONY: prompts extract import
prompts: $(PROMPTS)
	@echo "prompts: $(words $(PROMPTS)) files under $(ARTIFACTS)/prompts/ ($(or $(STYLE),$(PROMPT_STYLES)))"
extract: $(BIN)/kb-extract
	@[ -n "$(RESPONSES)" ] && [ -n "$(MODEL)" ] || { echo "make extract needs RESPONSES=dir (levelN/NNN_name/sK.txt) and MODEL=name" >&2; exit 2; }
	$(Q)$(BIN)/kb-extract --responses $(RESPONSES) --model $(MODEL) --style $(or $(STYLE),kernelbench)

import: $(BIN)/kb-import
	@[ -n "$(FROM)" ] && [ -n "$(MODEL)" ] || { echo "make import needs FROM=dir (KernelBench's files: a run folder, generated_kernels, level_L/problem_P/ ...) and MODEL=name" >&2; exit 2; }
	$(Q)$(BIN)/kb-import --from $(FROM) --model $(MODEL) --models-csv $(MODELS_CSV)
