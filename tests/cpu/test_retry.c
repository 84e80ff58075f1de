/*
 * test_retry.c -- lib/core/kb_util.h kb_retry: how a step that can fail for a while is retried (a
 * child's device allocation while the stages beside it hold the memory, gpu/runner.c).
 *
 * Pinned:
 *   - a step that succeeds at once is called once, and on_wait is never called;
 *   - a transient failure is retried until the step succeeds; on_wait is called once, after the
 *     first failure, however many follow;
 *   - a permanent failure (-1) is never retried, even after transient ones;
 *   - a failure that stays transient stops at max_s (the last value, 1, is returned), within
 *     one sleep of it, and the first call is made even with max_s = 0.
 */
#include "kbt.h"

#include "core/kb_util.h"

typedef struct fake {
    int calls, fail_first, permanent_at, waits;
} fake;

static int step(void *c)
{
    fake *f = c;
    f->calls++;
    if (f->permanent_at && f->calls == f->permanent_at)
        return -1;
    return f->calls <= f->fail_first ? 1 : 0;
}

static void waited(void *c) { ((fake *)c)->waits++; }

static void test_at_once(void **state)
{
    (void)state;
    fake f = {0};
    int n = 0;
    KBT_CHECK(kb_retry(step, &f, 10.0, 0.001, waited, &n) == 0, "success at once");
    KBT_CHECK(n == 1 && f.calls == 1 && f.waits == 0, "calls %d tries %d waits %d", f.calls, n, f.waits);
}

static void test_transient_then_done(void **state)
{
    (void)state;
    fake f = {.fail_first = 5};
    int n = 0;
    KBT_CHECK(kb_retry(step, &f, 10.0, 0.001, waited, &n) == 0, "done after 5 transient failures");
    KBT_CHECK(n == 6 && f.waits == 1, "tries %d waits %d", n, f.waits);
}

static void test_permanent(void **state)
{
    (void)state;
    fake f = {.fail_first = 100, .permanent_at = 3};
    int n = 0;
    KBT_CHECK(kb_retry(step, &f, 10.0, 0.001, NULL, &n) == -1, "a permanent failure ends it");
    KBT_CHECK(n == 3, "tries %d (expected 3)", n);
}

static void test_deadline(void **state)
{
    (void)state;
    fake f = {.fail_first = 1000000};
    int n = 0;
    double t0 = kb_now_s();
    KBT_CHECK(kb_retry(step, &f, 0.2, 0.02, waited, &n) == 1, "still transient at the deadline");
    double dt = kb_now_s() - t0;
    KBT_CHECK(dt >= 0.15 && dt < 0.2 + 0.5, "stopped after %.3f s (max 0.2 s, sleep 0.02 s)", dt);
    KBT_CHECK(n >= 5 && n <= 12 && f.waits == 1, "tries %d waits %d", n, f.waits);
    fake g = {.fail_first = 1000000};
    KBT_CHECK(kb_retry(step, &g, 0.0, 0.5, NULL, &n) == 1 && n == 1, "max_s 0: one call (%d)", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_at_once),
        cmocka_unit_test(test_transient_then_done),
        cmocka_unit_test(test_permanent),
        cmocka_unit_test(test_deadline),
    };
    return cmocka_run_group_tests_name("retry", tests, NULL, NULL);
}
