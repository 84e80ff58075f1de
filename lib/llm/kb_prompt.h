/*
 * kb_prompt.h -- the prompts a model is given (docs/prompts.md): one plain-text file per problem
 * and style, made from a template (prompts/<style>.txt), the problem's PyTorch file
 * (problems/levelN/NNN_name.py) and its descriptor (shapes, dtypes, flags). Reproducible byte for
 * byte: nothing in a prompt depends on the time, the machine or the build.
 *
 * Styles:
 *   kernelbench  the paper's single-turn prompt: answer with a KernelBench-format Python file
 *                (class ModelNew, CUDA through load_inline): the sample kind sK.py
 *   abi          the same task, answered with one .cu file against include/kb/submission.h
 *                (one kb_forward): the sample kind sK.cu
 * Input-blind (the descriptor's KB_PROB_INPUT_BLIND, or forced): the PyTorch file is shown
 * without get_inputs(), get_init_inputs() and its module-level constants; the constructor's
 * arguments and the tensors' dtypes and shapes are stated in prose instead, never their values.
 *
 * Templates: text with placeholders `@@NAME@@` (a line that is only a placeholder is replaced
 * by a block, else the placeholder by one line of text), `@@file PATH@@` (a file under the
 * templates' directory), conditionals `@@if input_blind@@` / `@@else@@` / `@@end@@` on lines of
 * their own (no nesting), and `@@#` comment lines (dropped). The names are listed in
 * docs/prompts.md; an unknown one is an error naming the template's line.
 *
 * Ownership: every returned string is malloc'd and the caller's; the inputs are only read.
 */
#ifndef KB_PROMPT_H
#define KB_PROMPT_H

#include <stddef.h>

#include "kb/problem.h"
#include "core/kb_util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kb_prompt_style { KB_STYLE_KERNELBENCH = 0, KB_STYLE_ABI = 1 } kb_prompt_style;
#define KB_N_STYLES 2

const char *kb_style_name(kb_prompt_style s); /* "kernelbench", "abi" */
/* The sample kind a style's answer is: "py" (kernelbench), "cu" (abi). */
const char *kb_style_ext(kb_prompt_style s);
/* "kernelbench" / "abi" -> *s; -1 otherwise. */
int kb_style_parse(const char *name, kb_prompt_style *s);

typedef struct kb_prompt_in {
    kb_prompt_style style;
    const kb_problem *problem;  /* its tensors, title, flags */
    const char *spec;           /* the problem's .py, NUL-terminated */
    size_t spec_len;
    const char *spec_path;      /* its name, for messages */
    const char *templates;      /* directory of <style>.txt and the files they include */
    const char *abi_header;     /* include/kb/submission.h (the abi style shows it) */
    int blind;                  /* -1: the descriptor's flag decides; 0 / 1: forced */
} kb_prompt_in;

/* The prompt, in *out (*len bytes, NUL-terminated). -1 with err: KB_EXIT_MISSING for a missing
 * template or included file, KB_EXIT_FAIL for a template error or a spec that cannot be made
 * input-blind (a class that uses a constant the prompt would remove). */
int kb_prompt_render(const kb_prompt_in *in, char **out, size_t *len, kb_err *err);

/* The PyTorch file as a prompt shows it: its leading comment block (this project's notes, not
 * KernelBench's) removed; input-blind also without get_inputs, get_init_inputs, module-level
 * assignments and the comments standing right above them. Ends with one newline. */
int kb_prompt_spec(const char *spec, size_t len, int blind, char **out, size_t *out_len, kb_err *err);

/* How the harness constructs the model, from __init__'s parameters and get_init_inputs():
 * "Model()" or "Model(dim=1)" (module constants substituted). -1 with err if get_init_inputs is
 * not one `return [...]` of values it can resolve. */
int kb_prompt_constructor(const char *spec, size_t len, char **out, kb_err *err);

#ifdef __cplusplus
}
#endif

#endif /* KB_PROMPT_H */
