/*
 * kb-prompts -- the prompt of one problem in one style (docs/prompts.md). Needs no GPU: it reads
 * the problem's descriptor (dlopen of its object, no CUDA call), its PyTorch file and the
 * templates, and writes a plain-text file, rewritten only when its bytes change (so Make sees an
 * unchanged prompt as up to date).
 *
 *   kb-prompts --style kernelbench --problem build/problems/level1/019_relu.so \
 *     --spec problems/level1/019_relu.py --out artifacts/prompts/kernelbench/level1/019_relu.txt
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kb_problem_load.h"
#include "llm/kb_prompt.h"
#include "core/kb_stage.h"

int main(int argc, char **argv)
{
    const char *style = NULL, *problem = NULL, *spec = NULL, *out = NULL, *templates = "prompts",
               *header = "include/kb/submission.h", *blind = "auto";
    kb_opt opts[] = {
        {"style", &style, NULL, "* kernelbench (a KernelBench-format ModelNew, load_inline) or abi (one .cu, kb_forward)"},
        {"problem", &problem, NULL, "* the problem's object, e.g. build/problems/level1/019_relu.so (its descriptor)"},
        {"spec", &spec, NULL, "* the problem's PyTorch file, e.g. problems/level1/019_relu.py"},
        {"out", &out, NULL, "* the prompt file to write ('-': standard output)"},
        {"templates", &templates, NULL, "directory of <style>.txt and the files they include (default prompts)"},
        {"abi-header", &header, NULL, "the header the abi style shows (default include/kb/submission.h)"},
        {"input-blind", &blind, NULL, "auto (the descriptor's KB_PROB_INPUT_BLIND flag), on or off (default auto)"},
    };
    kb_config cfg;
    kb_config_defaults(&cfg, KB_PROTO_PAPER);
    kb_err err = {0};
    int pr = kb_stage_parse(
        argc, argv,
        "kb-prompts: the prompt of one problem in one style, a plain-text file (docs/prompts.md), byte for byte the same\n"
        "from the same sources; rewritten only when it changes. Input-blind problems (L1/90, L1/100) show their PyTorch\n"
        "file without get_inputs, get_init_inputs and module constants, with the shapes in prose. Needs no GPU.\n"
        "Usage: kb-prompts --style kernelbench|abi --problem P.so --spec P.py --out FILE [--templates DIR]\n"
        "Exit codes: 0 the prompt was written (or was already up to date); 1 it could not be made (a template error,\n"
        "a file that cannot be made input-blind, an I/O error; message on stderr); 2 bad command line; 4 a needed\n"
        "input does not exist.",
        opts, sizeof opts / sizeof opts[0], &cfg, &err);
    if (pr == 1)
        return 0;
    if (pr < 0)
        return kb_stage_fail("prompts", &err);

    kb_prompt_in in = {.templates = templates, .abi_header = header, .blind = -1};
    if (kb_style_parse(style, &in.style) != 0) {
        kb_errf(&err, KB_EXIT_USAGE, "--style %s: not one of kernelbench, abi", style);
        return kb_stage_fail("prompts", &err);
    }
    if (!strcmp(blind, "on") || !strcmp(blind, "off"))
        in.blind = !strcmp(blind, "on");
    else if (strcmp(blind, "auto") != 0) {
        kb_errf(&err, KB_EXIT_USAGE, "--input-blind %s: not one of auto, on, off", blind);
        return kb_stage_fail("prompts", &err);
    }
    void *handle = NULL;
    if (!kb_file_exists(problem)) {
        kb_errf(&err, KB_EXIT_MISSING, "--problem %s: no such file (make problems builds it)", problem);
        return kb_stage_fail("prompts", &err);
    }
    in.problem = kb_problem_load(problem, &handle, &err);
    if (!in.problem)
        return kb_stage_fail("prompts", &err);
    char *src = kb_read_file(spec, &in.spec_len, &err);
    if (!src)
        return kb_stage_fail("prompts", &err);
    in.spec = src;
    in.spec_path = spec;
    char *text = NULL;
    size_t len = 0;
    int rc = kb_prompt_render(&in, &text, &len, &err);
    if (rc == 0) {
        if (!strcmp(out, "-")) {
            rc = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0 ? 0
                                                                             : kb_errf(&err, KB_EXIT_FAIL, "cannot write to standard output");
        } else {
            int changed = 0;
            rc = kb_write_if_changed(out, text, len, &changed, &err);
        }
    }
    free(text);
    free(src);
    if (rc != 0)
        return kb_stage_fail("prompts", &err);
    return 0;
}
