# mk/mutation.mk -- the oracle measured by mutation analysis (docs/mutation.md): make mutants
# (no GPU), then make witness / make mutation over their manifest.
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

