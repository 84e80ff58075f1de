/*
 * kb_scan.h -- what a submission's imported symbols say about it.
 *
 * The compile stage reads the undefined dynamic symbols of the built object (kb_elf.h) and
 * classifies each with the rule table in scan.c (first matching pattern wins; "name*" is a
 * prefix). A category has a severity:
 *   info    expected or benign, but counted (library calls, allocation, host sync)
 *   flag    allowed by the ABI only with care; reported, checked at run time (other streams,
 *           events, graphs, synchronous legacy-stream copies, exit/abort)
 *   reject  forbidden by the ABI (threads, processes, files, network, dlopen, timer reads,
 *           memory-protection or raw-syscall tampering)
 * The verdict is the worst severity found. PROTOCOL=strict fails a cell whose verdict is
 * "rejected"; PROTOCOL=paper records the scan but does not act on it (the paper had none).
 */
#ifndef KB_SCAN_H
#define KB_SCAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kb_severity { KB_SEV_NONE = 0, KB_SEV_INFO = 1, KB_SEV_FLAG = 2, KB_SEV_REJECT = 3 } kb_severity;

typedef struct kb_scan_rule {
    const char *pattern;  /* exact name, or prefix ending in '*' */
    const char *category; /* "library", "other_stream", ... */
    kb_severity severity;
    const char *why;      /* one line for humans */
} kb_scan_rule;

/* The rule matching a symbol, or NULL (uncategorised: severity none). */
const kb_scan_rule *kb_scan_match(const char *symbol);
const char *kb_severity_name(kb_severity s); /* "none", "info", "flag", "reject" */
const char *kb_scan_verdict_name(kb_severity worst); /* "clean", "clean", "flagged", "rejected" */

/* The whole table (for docs and tests). */
const kb_scan_rule *kb_scan_rules(size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* KB_SCAN_H */
