/* probe.c -- the strict probes' results and verdict (kb_probe.h). */
#include "core/kb_probe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void kb_probe_result_init(kb_probe_result *r)
{
    memset(r, 0, sizeof *r);
    r->deterministic = r->stale = r->stale_tf32 = r->downgrade = r->downgrade_bf16 = r->range_fail = -1;
    r->precision_ratio = r->precision_ratio_bf16 = r->range_excess = NAN;
}

int kb_probe_escaped(const kb_msg_called *c)
{
    double ev = isfinite(c->event_ms) ? c->event_ms : 0.0;
    return c->device_sync_ms > 0.1 && c->device_sync_ms > 0.05 * ev;
}

void kb_probe_note_call(kb_probe_result *r, const kb_msg_called *c, int probes, int first, int inputs_changed)
{
    int ec;
    if (sscanf(c->note, "ext_calls=%d", &ec) == 1) {
        r->py_calls++;
        if (ec > 0)
            r->py_ext_called = 1;
    }
    if (!probes)
        return;
    if (kb_probe_escaped(c))
        r->escapes++;
    if (!first && c->threads_after > c->threads_before)
        r->thread_growth++;
    if (inputs_changed)
        r->inputs_changed++;
}

void kb_append(char *buf, size_t len, const char *text)
{
    size_t l = strlen(buf);
    if (l < len)
        snprintf(buf + l, len - l, "%s%s", l ? "; " : "", text);
}

int kb_probe_verdict(const kb_probe_result *r, int nondeterministic_ok, const char *scan_verdict,
                     const char *scan_reasons, char *text, size_t tlen, char *reason, size_t rlen)
{
    return kb_probe_verdict_rule(r, 0, nondeterministic_ok, scan_verdict, scan_reasons, text, tlen, reason, rlen);
}

int kb_probe_verdict_rule(const kb_probe_result *r, int tf32_rule, int nondeterministic_ok, const char *scan_verdict,
                          const char *scan_reasons, char *text, size_t tlen, char *reason, size_t rlen)
{
    int found = 0;
    char t[640];
    if (r->deterministic == 0 && !nondeterministic_ok) {
        kb_append(text, tlen, "nondeterministic: the same inputs gave different bits");
        kb_append(reason, rlen, "nondeterministic");
        found = 1;
    }
    if ((tf32_rule ? r->stale_tf32 : r->stale) == 1) {
        kb_append(text, tlen, "stale cache: new values at the same addresses gave the old result");
        kb_append(reason, rlen, "stale cache");
        found = 1;
    }
    /* the precision findings: 10 bits under the FP32 verdict; below TF32 under the TF32 rule */
    const struct {
        int on;
        const char *fmt, *word;
        double x;
    } prec[] = {
        {!tf32_rule && r->downgrade == 1,
         "precision downgrade: the output matches inputs rounded to <= 10 mantissa bits (squared distance ratio %.3g)",
         "precision downgrade", r->precision_ratio},
        {tf32_rule && r->downgrade_bf16 == 1,
         "precision downgrade below TF32: the output matches inputs rounded to <= 7 mantissa bits, bf16 (squared distance ratio %.3g)",
         "precision downgrade (bf16)", r->precision_ratio_bf16},
        {tf32_rule && r->range_fail == 1,
         "precision downgrade below TF32: inputs scaled by 2^-24 fail the TF32 bound (%.3g x), fp16's range",
         "precision downgrade (fp16 range)", r->range_excess},
    };
    for (size_t i = 0; i < sizeof prec / sizeof prec[0]; i++)
        if (prec[i].on) {
            snprintf(t, sizeof t, prec[i].fmt, prec[i].x);
            kb_append(text, tlen, t);
            kb_append(reason, rlen, prec[i].word);
            found = 1;
        }
    if (r->escapes) {
        kb_append(text, tlen, "work outside args->stream (found by device synchronisation)");
        kb_append(reason, rlen, "side stream");
        found = 1;
    }
    if (r->thread_growth) {
        kb_append(text, tlen, "host threads left running after the call");
        kb_append(reason, rlen, "threads");
        found = 1;
    }
    if (r->py_calls > 0 && !r->py_ext_called) {
        kb_append(text, tlen, "no custom kernel: forward never called a function of its own extension (a PyTorch rewrite or a fallback)");
        kb_append(reason, rlen, "no custom kernel called");
        found = 1;
    }
    if (scan_verdict && !strcmp(scan_verdict, "rejected")) {
        snprintf(t, sizeof t, "symbol scan rejected the object (%s)", scan_reasons ? scan_reasons : "");
        kb_append(text, tlen, t);
        snprintf(t, sizeof t, "scan: %s", scan_reasons ? scan_reasons : "");
        kb_append(reason, rlen, t);
        found = 1;
    }
    return found;
}
