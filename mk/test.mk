# mk/test.mk -- the test suites (tests/README.md).
# ==================================================================================================
# Tests, in two tiers (tests/README.md lists every test with its tier and why). CI runs both.
#   make test       the fast tier: what checks logic. The cmocka programs tests/cpu/test_*.c
#                   (linked with the host library) and every tests/cpu/*.sh not in TEST_SLOW: a new
#                   test is fast unless listed there. Make's behaviour is checked on a few problems
#                   or with a stand-in nvcc (tests/fixtures/fake-nvcc). Builds what these read (the
#                   build less the problems' reference hashes, which no fast test reads).
#   make test-slow  the tests of TEST_SLOW: minutes each (the real nvcc and torch builds of every
#                   sample, the real kill/resume and graph steps of make compile, the Slurm run).
#   make test-gpu   the GPU suite (tests/gpu/run.sh).
# A tier runs TEST_JOBS tests (and builds) at a time, each test with its log and wall time in
# $(BUILD)/test-logs/<tier>/<name>.{log,result} (tests/run-one.sh), and ends with every failure
# (its log and last lines), the slowest ten and the line "N passed, N failed" (tests/report.sh).
# TESTS='name ...' runs only those tests of the tier.
# ==================================================================================================
TEST_SRC := $(wildcard tests/cpu/test_*.c)
TEST_BINS := $(TEST_SRC:tests/cpu/%.c=$(BUILD)/tests/%)
TEST_SH := $(sort $(wildcard tests/cpu/*.sh))

# The slow tier (names of tests/cpu/*.sh): each takes minutes.
TEST_SLOW := compile_all kill_resume_compile make_incremental kbpy_build slurm
# Tests that change what the others read (throw-away entries in submissions/, an object of
# $(BUILD) moved away for a while): each runs alone, after the rest of its tier.
TEST_ALONE := make_layout make_models make_problem_objects

TEST_LOGS := $(BUILD)/test-logs
TEST_UNITS := $(TEST_SRC:tests/cpu/%.c=%)
TEST_SCRIPTS := $(TEST_SH:tests/cpu/%.sh=%)
ifneq ($(filter test test-slow test-unit test-sh test-tier-fast test-tier-slow,$(GOALS)),)
ifneq ($(filter-out $(TEST_SCRIPTS),$(TEST_SLOW) $(TEST_ALONE)),)
$(error mk/test.mk lists tests that are not in tests/cpu/: $(filter-out $(TEST_SCRIPTS),$(TEST_SLOW) $(TEST_ALONE)))
endif
endif
# a tier's tests, less those TESTS leaves out
test_pick = $(if $(strip $(TESTS)),$(filter $(TESTS),$1),$1)
TESTS_fast := $(call test_pick,$(TEST_UNITS) $(filter-out $(TEST_SLOW),$(TEST_SCRIPTS)))
TESTS_slow := $(call test_pick,$(TEST_SLOW))

# What the fast tier reads: `build` less the reference hashes, the test programs, the problem checker.
TEST_FAST_NEEDS := $(STAGE_BINS) $(LIBKBOPS) $(LIBKBRUNNER) $(PROBLEM_SOS) $(TOOL_NAMES:%=$(TOOLSHA)/%.sha) \
  $(BUILD)/REVISION $(TEST_BINS) $(BUILD)/tests/check_problems
TEST_SLOW_NEEDS := build $(TEST_BINS) $(BUILD)/tests/check_problems

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

# ---- the runs ----------------------------------------------------------------------------------
# test-run/<tier>/<name>: one test through tests/run-one.sh. A unit program waits only for its own
# binary (it runs while the rest builds), a shell test for everything its tier reads; a test of
# TEST_ALONE waits for the rest of its tier and the alone tests before it.
TEST_RUN = KB_TEST_MAKEFLAGS='$(MAKEOVERRIDES)' BUILD=$(BUILD) bash tests/run-one.sh $(TEST_LOGS)/$1 $2
FAST_UNIT_RUNS := $(patsubst %,test-run/fast/%,$(filter $(TEST_UNITS),$(TESTS_fast)))
FAST_SH_RUNS := $(patsubst %,test-run/fast/%,$(filter-out $(TEST_UNITS) $(TEST_ALONE),$(TESTS_fast)))
FAST_ALONE_RUNS := $(patsubst %,test-run/fast/%,$(filter $(TEST_ALONE),$(TESTS_fast)))
SLOW_RUNS := $(patsubst %,test-run/slow/%,$(filter-out $(TEST_ALONE),$(TESTS_slow)))
SLOW_ALONE_RUNS := $(patsubst %,test-run/slow/%,$(filter $(TEST_ALONE),$(TESTS_slow)))

ifneq ($(FAST_UNIT_RUNS),)
$(FAST_UNIT_RUNS): test-run/fast/%: $(BUILD)/tests/%
	@$(call TEST_RUN,fast,$*) $(BUILD)/tests/$*
# the unit programs that run a harness binary wait for it too (test_mutreport failed when it ran
# before kb-mutation-report was linked; test_abi would skip its kb-compile cases)
test-run/fast/test_mutreport: $(BIN)/kb-mutation-report
test-run/fast/test_abi: $(BIN)/kb-compile
endif
ifneq ($(FAST_SH_RUNS)$(FAST_ALONE_RUNS),)
$(FAST_SH_RUNS) $(FAST_ALONE_RUNS): test-run/fast/%: | $(TEST_FAST_NEEDS)
	@$(call TEST_RUN,fast,$*) bash tests/cpu/$*.sh
endif
ifneq ($(SLOW_RUNS)$(SLOW_ALONE_RUNS),)
$(SLOW_RUNS) $(SLOW_ALONE_RUNS): test-run/slow/%: | $(TEST_SLOW_NEEDS)
	@$(call TEST_RUN,slow,$*) bash tests/cpu/$*.sh
endif
# each alone test after the others of its tier and the alone tests before it
alone_after = $(eval prev :=)$(foreach r,$2,$(eval $r: | $1 $(prev))$(eval prev += $r))
$(call alone_after,$(FAST_UNIT_RUNS) $(FAST_SH_RUNS),$(FAST_ALONE_RUNS))
$(call alone_after,$(SLOW_RUNS),$(SLOW_ALONE_RUNS))

test-tier-fast: $(FAST_UNIT_RUNS) $(FAST_SH_RUNS) $(FAST_ALONE_RUNS)
test-tier-slow: $(SLOW_RUNS) $(SLOW_ALONE_RUNS)

# A tier: its logs cleared, its tests run by a make of their own (-k: every test that can run does,
# whatever the others do; -j TEST_JOBS, building included), then the report, which fails the goal
# if a test failed. (Only the middle line is a recursive make: `make -n test` runs no test and
# leaves the logs alone.)
define run_tier
	@$(if $(filter-out $(TESTS_$1),$(TESTS)),echo "TESTS names no test of the $1 tier: $(filter-out $(TESTS_$1),$(TESTS)) (tests/README.md lists them)" >&2; exit 2,:)
	@rm -rf $(TEST_LOGS)/$1 && mkdir -p $(TEST_LOGS)/$1 && date +%s.%N > $(TEST_LOGS)/$1/started
	@echo "== $1 tier: $(words $(TESTS_$1)) tests, $(TEST_JOBS) at a time; logs in $(TEST_LOGS)/$1/"
	@$(MAKE) --no-print-directory -k -j$(TEST_JOBS) test-tier-$1 || true
	@bash tests/report.sh $1 $(TEST_LOGS)/$1 $(TESTS_$1)
endef

.PHONY: test test-slow test-unit test-sh test-gpu test-tier-fast test-tier-slow \
  $(FAST_UNIT_RUNS) $(FAST_SH_RUNS) $(FAST_ALONE_RUNS) $(SLOW_RUNS) $(SLOW_ALONE_RUNS)
test:
	$(call run_tier,fast)
test-slow:
	$(call run_tier,slow)
# the fast tier's unit programs, or its shell tests, alone
test-unit:
	@$(MAKE) --no-print-directory test TESTS='$(TEST_UNITS)'
test-sh:
	@$(MAKE) --no-print-directory test TESTS='$(filter-out $(TEST_SLOW),$(TEST_SCRIPTS))'
test-gpu: build $(GPU_TEST_BINS)
	@BUILD=$(BUILD) bash tests/gpu/run.sh
