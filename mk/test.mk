# mk/test.mk -- the test suites (tests/README.md).
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
