/*
 * kb-extract -- a model's raw responses into its submission tree (docs/prompts.md). Needs no GPU.
 *
 *   kb-extract --responses responses/gpt-5.5 --model gpt-5.5 --style kernelbench
 *
 * reads RESPONSES/levelN/NNN_name/sK.txt and writes submissions/<model>/levelN/NNN_name/sK.py
 * (kernelbench) or sK.cu (abi), plus submissions/<model>/extraction.csv: one row per response,
 * the failures with their outcome and reason. Files whose bytes would not change are not touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/kb_extract.h"
#include "core/kb_stage.h"

static void print_failure(void *ctx, const char *problem, const char *sample, const kb_extract_result *r, const char *source)
{
    (void)ctx;
    (void)source;
    if (r->outcome != KB_EX_OK)
        printf("[extract]      %s %s: %s: %s\n", problem, sample, kb_extract_outcome_name(r->outcome), r->reason);
}

int main(int argc, char **argv)
{
    const char *responses = NULL, *model = NULL, *style = "kernelbench", *submissions = "submissions",
               *problems = "problems";
    int quiet = 0;
    kb_opt opts[] = {
        {"responses", &responses, NULL, "* the raw responses: DIR/levelN/NNN_name/sK.txt, one text file per sample"},
        {"model", &model, NULL, "* the model's name: the tree goes to <submissions>/<model>/"},
        {"style", &style, NULL, "the prompts' style: kernelbench (sK.py, ModelNew) or abi (sK.cu, kb_forward) (default kernelbench)"},
        {"submissions", &submissions, NULL, "the submissions root (default submissions)"},
        {"problems", &problems, NULL, "the problems root: every response must name a problem there (default problems)"},
        {"quiet", NULL, &quiet, "no line per failed response (the summary only)"},
    };
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(
        argc, argv,
        "kb-extract: a model's raw responses into submissions/<model>/ (docs/prompts.md). Each response's one fenced\n"
        "code block becomes sK.py or sK.cu; every response gets a row in submissions/<model>/extraction.csv\n"
        "(problem,sample,outcome,reason,source). Outcomes: ok, not_text, empty, truncated, no_code_block,\n"
        "wrong_language, several_blocks, wrong_name; a failed response writes no sample (it counts as incorrect).\n"
        "Unchanged files are not touched; samples of an earlier extraction that this one does not write are deleted.\n"
        "Files at the root of the responses directory are not responses and are left out.\n"
        "Usage: kb-extract --responses DIR --model NAME [--style kernelbench|abi]\n"
        "Exit codes: 0 the extraction ran (whatever the responses' outcomes: they are in extraction.csv); 1 it could\n"
        "not (an entry of DIR that is no response, a model directory not made by an extraction, an I/O error: nothing\n"
        "written before the check); 2 bad command line; 4 DIR does not exist.",
        opts, sizeof opts / sizeof opts[0], &cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("extract", &err);
    kb_extract_opts o = {.responses = responses, .submissions = submissions, .model = model, .problems = problems,
                         .on_row = quiet ? NULL : print_failure};
    if (kb_style_parse(style, &o.style) != 0) {
        kb_errf(&err, KB_EXIT_USAGE, "--style %s: not one of kernelbench, abi", style);
        return kb_stage_fail("extract", &err);
    }
    kb_extract_summary s;
    if (kb_extract_tree(&o, &s, &err) != 0)
        return kb_stage_fail("extract", &err);
    printf("[extract]      %s: %zu responses -> %zu samples (%zu written, %zu unchanged), %zu failed", model, s.responses,
           s.by_outcome[KB_EX_OK], s.written, s.unchanged, s.responses - s.by_outcome[KB_EX_OK]);
    const char *sep = " (";
    for (int k = 1; k < KB_EX_N; k++)
        if (s.by_outcome[k]) {
            printf("%s%s %zu", sep, kb_extract_outcome_name((kb_extract_outcome)k), s.by_outcome[k]);
            sep = ", ";
        }
    printf("%s; %zu stale samples deleted; %s%s\n", sep[0] == ',' ? ")" : "", s.removed, s.manifest,
           s.manifest_changed ? "" : " (unchanged)");
    if (s.ignored)
        printf("[extract]      %zu files at the root of %s are not responses (left out)\n", s.ignored, responses);
    return 0;
}
