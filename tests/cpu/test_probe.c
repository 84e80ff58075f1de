/*
 * test_probe.c -- lib/core/kb_probe.h: the strict verdict drawn from the probes' findings, and what a
 * call adds to them.
 *
 * Pinned:
 *   - a clean result (every probe ran, nothing found, scan clean) is no rejection, and the
 *     reason and text stay empty; "not run" (-1) is no finding either;
 *   - each finding alone rejects, with its reason word (the tables' words) and its text;
 *   - nondeterminism is no finding for a problem flagged nondeterministic;
 *   - all findings together appear in one fixed order, "; "-separated, after what the reason
 *     held before (a stage appends to its own reason);
 *   - the TF32 rule's verdict (kb_probe_verdict_rule, tf32_rule = 1): a 10-bit downgrade (TF32
 *     itself) and the FP32 bound's stale finding are no findings there; the bf16 and fp16-range
 *     findings and the TF32 bound's stale finding are, with their reasons; without the rule those
 *     two are ignored;
 *   - kb_probe_note_call: escaped work (more than 0.1 ms and 5% of the event time found by the
 *     device synchronisation), thread growth except on the first draw, modified inputs, and a
 *     .py target's ext_calls note (counted with or without probes).
 */
#include "kbt.h"

#include <math.h>

#include "core/kb_probe.h"

static kb_probe_result clean(void)
{
    kb_probe_result r;
    kb_probe_result_init(&r);
    r.deterministic = 1;
    r.stale = 0;
    r.downgrade = 0;
    r.precision_ratio = 3.0;
    return r;
}

static int verdict(const kb_probe_result *r, int nondet_ok, const char *scan, char *text, char *reason)
{
    text[0] = reason[0] = '\0';
    return kb_probe_verdict(r, nondet_ok, scan, "calls system()", text, 1400, reason, 1024);
}

static void test_clean_and_not_run(void **state)
{
    (void)state;
    char text[1400], reason[1024];
    kb_probe_result r = clean();
    KBT_CHECK(verdict(&r, 0, "clean", text, reason) == 0, "clean result rejected: %s", text);
    KBT_CHECK(!text[0] && !reason[0], "clean result wrote '%s' / '%s'", text, reason);
    kb_probe_result_init(&r);
    KBT_CHECK(isnan(r.precision_ratio) && r.deterministic == -1 && r.stale == -1 && r.downgrade == -1,
              "init: %d %d %d %g", r.deterministic, r.stale, r.downgrade, r.precision_ratio);
    KBT_CHECK(verdict(&r, 0, "flagged", text, reason) == 0, "probes not run rejected: %s", text);
}

static void test_each_finding(void **state)
{
    (void)state;
    struct {
        const char *word, *text;
    } cases[] = {
        {"nondeterministic", "different bits"},
        {"stale cache", "same addresses gave the old result"},
        {"precision downgrade", "squared distance ratio 0.01"},
        {"side stream", "outside args->stream"},
        {"threads", "host threads left running"},
        {"no custom kernel called", "never called a function of its own extension"},
        {"scan: calls system()", "symbol scan rejected the object (calls system())"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_probe_result r = clean();
        const char *scan = "clean";
        switch (i) {
        case 0: r.deterministic = 0; break;
        case 1: r.stale = 1; break;
        case 2: r.downgrade = 1; r.precision_ratio = 0.01; break;
        case 3: r.escapes = 2; break;
        case 4: r.thread_growth = 1; break;
        case 5: r.py_calls = 3; r.py_ext_called = 0; break;
        case 6: scan = "rejected"; break;
        }
        char text[1400], reason[1024];
        KBT_CHECK(verdict(&r, 0, scan, text, reason) == 1, "case %zu (%s) not rejected", i, cases[i].word);
        KBT_CHECK(!strcmp(reason, cases[i].word), "case %zu: reason '%s', want '%s'", i, reason, cases[i].word);
        KBT_CHECK(strstr(text, cases[i].text) != NULL, "case %zu: text '%s' lacks '%s'", i, text, cases[i].text);
    }
}

static void test_tf32_rule(void **state)
{
    (void)state;
    char text[1400], reason[1024];
    kb_probe_result r = clean();
    r.downgrade = 1; /* TF32 math rounds 1 + U(0, 2^-12) to 1.0 too */
    r.precision_ratio = 0.002;
    r.stale = 1; /* judged by the FP32 bound, a TF32 kernel's second call fails it */
    r.stale_tf32 = 0;
    r.downgrade_bf16 = 0;
    r.precision_ratio_bf16 = 9.5;
    r.range_fail = 0;
    r.range_excess = 0.01;
    text[0] = reason[0] = '\0';
    KBT_CHECK(kb_probe_verdict_rule(&r, 1, 0, "clean", "", text, sizeof text, reason, sizeof reason) == 0,
              "a TF32 kernel rejected under the TF32 rule: %s", text);
    KBT_CHECK(kb_probe_verdict(&r, 0, "clean", "", text, sizeof text, reason, sizeof reason) == 1 &&
                  strstr(reason, "precision downgrade") && strstr(reason, "stale cache"),
              "without the rule: '%s'", reason);
    struct {
        int bf16, range, stale;
        const char *word;
    } cases[] = {{1, 0, 0, "precision downgrade (bf16)"},
                 {0, 1, 0, "precision downgrade (fp16 range)"},
                 {0, 0, 1, "stale cache"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_probe_result q = r;
        q.downgrade_bf16 = cases[i].bf16;
        q.range_fail = cases[i].range;
        q.stale_tf32 = cases[i].stale;
        text[0] = reason[0] = '\0';
        KBT_CHECK(kb_probe_verdict_rule(&q, 1, 0, "clean", "", text, sizeof text, reason, sizeof reason) == 1 &&
                      !strcmp(reason, cases[i].word),
                  "case %zu: reason '%s', want '%s'", i, reason, cases[i].word);
        q.stale = 0;
        q.downgrade = 0;
        text[0] = reason[0] = '\0';
        KBT_CHECK(kb_probe_verdict_rule(&q, 0, 0, "clean", "", text, sizeof text, reason, sizeof reason) == 0,
                  "case %zu: a TF32-rule finding counted without the rule: '%s'", i, reason);
    }
}

static void test_nondeterministic_problem(void **state)
{
    (void)state;
    char text[1400], reason[1024];
    kb_probe_result r = clean();
    r.deterministic = 0;
    KBT_CHECK(verdict(&r, 1, "clean", text, reason) == 0, "a nondeterministic problem's sample rejected: %s", text);
    r.py_calls = 1;
    r.py_ext_called = 1;
    KBT_CHECK(verdict(&r, 1, "clean", text, reason) == 0, "a .py that called its extension rejected: %s", text);
}

static void test_all_in_order(void **state)
{
    (void)state;
    kb_probe_result r = clean();
    r.deterministic = 0;
    r.stale = 1;
    r.downgrade = 1;
    r.escapes = 1;
    r.thread_growth = 1;
    r.py_calls = 1;
    char text[1400] = "", reason[1024] = "fails S3";
    KBT_CHECK(kb_probe_verdict(&r, 0, "rejected", "calls system()", text, sizeof text, reason, sizeof reason) == 1,
              "not rejected");
    const char *want = "fails S3; nondeterministic; stale cache; precision downgrade; side stream; threads; "
                       "no custom kernel called; scan: calls system()";
    KBT_CHECK(!strcmp(reason, want), "reason '%s'\n  want '%s'", reason, want);
    char small[16] = "";
    kb_append(small, sizeof small, "a long text that does not fit");
    KBT_CHECK(strlen(small) == sizeof small - 1, "kb_append overran or stopped short: '%s'", small);
}

static void test_note_call(void **state)
{
    (void)state;
    kb_probe_result r;
    kb_probe_result_init(&r);
    kb_msg_called c;
    memset(&c, 0, sizeof c);
    c.event_ms = 1.0;
    c.device_sync_ms = 0.2; /* above 0.1 ms and 5% of 1 ms: escaped */
    c.threads_before = 3;
    c.threads_after = 4;
    snprintf(c.note, sizeof c.note, "ext_calls=0 ops=aten::add:1");
    kb_probe_note_call(&r, &c, 1, 1, 1); /* the first draw: thread growth not counted */
    KBT_CHECK(r.escapes == 1 && r.thread_growth == 0 && r.inputs_changed == 1, "first: %d %d %d", r.escapes,
              r.thread_growth, r.inputs_changed);
    KBT_CHECK(r.py_calls == 1 && r.py_ext_called == 0, "py: %d %d", r.py_calls, r.py_ext_called);
    c.device_sync_ms = 0.04; /* below 0.1 ms: not escaped */
    snprintf(c.note, sizeof c.note, "ext_calls=2");
    kb_probe_note_call(&r, &c, 1, 0, 0);
    KBT_CHECK(r.escapes == 1 && r.thread_growth == 1, "second: %d %d", r.escapes, r.thread_growth);
    KBT_CHECK(r.py_calls == 2 && r.py_ext_called == 1, "py: %d %d", r.py_calls, r.py_ext_called);
    c.event_ms = 10.0;
    c.device_sync_ms = 0.3; /* above 0.1 ms but under 5% of 10 ms: the call's own tail */
    KBT_CHECK(!kb_probe_escaped(&c), "0.3 ms after a 10 ms call counted as escaped");
    kb_probe_note_call(&r, &c, 0, 0, 1); /* without probes: only the .py note counts */
    KBT_CHECK(r.inputs_changed == 1 && r.thread_growth == 1 && r.py_calls == 3, "no probes: %d %d %d",
              r.inputs_changed, r.thread_growth, r.py_calls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_and_not_run), cmocka_unit_test(test_each_finding),
        cmocka_unit_test(test_nondeterministic_problem), cmocka_unit_test(test_all_in_order),
        cmocka_unit_test(test_note_call), cmocka_unit_test(test_tf32_rule),
    };
    return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
