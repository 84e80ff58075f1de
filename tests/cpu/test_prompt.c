/*
 * test_prompt.c -- lib/llm/kb_prompt.h and lib/llm/kb_prompt_py.h: what a prompt is made of.
 *
 * Pinned:
 *   - the Python reader cuts a module into top-level statements as Python does: strings that
 *     look like code, multi-line strings and brackets with lines at column 0, backslash
 *     continuations, a comment at column 0 inside a class body, decorators, chained and tuple
 *     assignments, a comparison that is no assignment;
 *   - the spec a prompt shows: the leading comment block dropped; input-blind also without
 *     get_inputs, get_init_inputs, the module constants and the comment above them; a class that
 *     uses a removed constant is an error naming it and its line;
 *   - the constructor from __init__ and get_init_inputs, constants substituted, and its errors;
 *   - templates: every placeholder and conditional, byte for byte, and each template error
 *     naming the file and line.
 */
#include "kbt.h"

#include "llm/kb_prompt.h"
#include "llm/kb_prompt_py.h"

/* ---- the Python reader ----------------------------------------------------------------------- */

static const char tricky[] = "# header comment\n"                      /*  1 */
                             "import torch\n"                          /*  2 */
                             "from torch import nn\n"                  /*  3 */
                             "\n"                                      /*  4 */
                             "x = \"\"\"\n"                            /*  5 */
                             "class NotAClass:\n"                      /*  6 */
                             "\"\"\"\n"                                /*  7 */
                             "a = b = (1,\n"                           /*  8 */
                             "2)\n"                                    /*  9 */
                             "c = \\\n"                                /* 10 */
                             "    3\n"                                 /* 11 */
                             "@decorator\n"                            /* 12 */
                             "def f(y,\n"                              /* 13 */
                             "      z=')'):\n"                         /* 14 */
                             "    return y\n"                          /* 15 */
                             "# above the class\n"                     /* 16 */
                             "class Model(nn.Module):\n"               /* 17 */
                             "    s = \"class Inner\"\n"               /* 18 */
                             "\n"                                      /* 19 */
                             "# at column 0 inside the body\n"         /* 20 */
                             "    def forward(self, x):  # trailing\n" /* 21 */
                             "        return x\n"                      /* 22 */
                             "if __name__ == \"__main__\":\n"          /* 23 */
                             "    pass\n"                              /* 24 */
                             "t, u = 1, 2\n"                           /* 25 */
                             "d == 3\n";                               /* 26 */

static void test_py_split(void **state)
{
    (void)state;
    static const struct {
        kb_py_kind kind;
        const char *name;
        int line, last;
    } want[] = {
        {KB_PY_COMMENT, "", 1, 1}, {KB_PY_IMPORT, "", 2, 2},     {KB_PY_IMPORT, "", 3, 3}, {KB_PY_BLANK, "", 4, 4},
        {KB_PY_ASSIGN, "x", 5, 7}, {KB_PY_ASSIGN, "a", 8, 9},    {KB_PY_ASSIGN, "c", 10, 11},
        {KB_PY_OTHER, "", 12, 12}, {KB_PY_DEF, "f", 13, 15},     {KB_PY_COMMENT, "", 16, 16},
        {KB_PY_CLASS, "Model", 17, 22}, {KB_PY_OTHER, "", 23, 24}, {KB_PY_ASSIGN, "t", 25, 25},
        {KB_PY_OTHER, "", 26, 26},
    };
    kb_py_module m;
    kb_err err = {0};
    KBT_CHECK(kb_py_parse(tricky, sizeof tricky - 1, &m, &err) == 0, "%s", err.msg);
    KBT_CHECK(m.n == sizeof want / sizeof want[0], "%zu statements, want %zu", m.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < m.n; i++) {
        const kb_py_stmt *st = &m.stmts[i];
        int last = st->line;
        for (size_t k = st->begin; k + 1 < st->end; k++)
            last += tricky[k] == '\n';
        KBT_CHECK(st->kind == want[i].kind && !strcmp(st->name, want[i].name) && st->line == want[i].line &&
                      last == want[i].last,
                  "statement %zu: kind %d '%s' lines %d-%d, want kind %d '%s' lines %d-%d", i, st->kind, st->name, st->line,
                  last, want[i].kind, want[i].name, want[i].line, want[i].last);
    }
    char names[4][64];
    size_t rhs;
    int single;
    KBT_CHECK(kb_py_assign_targets(&m, 5, names, 4, &rhs, &single) == 2 && single && !strcmp(names[1], "b") &&
                  !strncmp(tricky + rhs, "(1,", 3),
              "a = b = (1, 2): targets and value");
    KBT_CHECK(kb_py_assign_targets(&m, 12, names, 4, &rhs, &single) == 2 && !single, "t, u = 1, 2: a tuple");
    char *flat = kb_py_flatten(&m, rhs, m.stmts[12].end, NULL, NULL, 0);
    KBT_CHECK(flat && !strcmp(flat, "1, 2"), "flattened value '%s'", flat ? flat : "(null)");
    free(flat);
    KBT_CHECK(kb_py_find(&m, KB_PY_CLASS, "NotAClass") < 0, "a class inside a string was found");
    kb_py_free(&m);
}

/* ---- the spec and the constructor ------------------------------------------------------------ */

/* what an input-blind prompt keeps of spec[] */
#define CLASS_PART                                                                                                    \
    "import torch\n"                                                                                                  \
    "import torch.nn as nn\n"                                                                                         \
    "\n"                                                                                                              \
    "\n"                                                                                                              \
    "class Model(nn.Module):\n"                                                                                       \
    "    def __init__(self, dim, scale: float = 2.0):\n"                                                              \
    "        super().__init__()\n"                                                                                    \
    "        self.dim = dim\n"                                                                                        \
    "        self.scale = scale\n"                                                                                    \
    "\n"                                                                                                              \
    "    def forward(self, x):\n"                                                                                     \
    "        return torch.cumsum(x, dim=self.dim) * self.scale\n"

static const char spec[] = "# KernelBench level 9, problem 1: notes of this project.\n" CLASS_PART "\n"
                           "\n"
                           "# Test code\n"
                           "batch_size = 16\n"
                           "shape = (batch_size, 32)\n"
                           "dim = 1\n"
                           "\n"
                           "\n"
                           "def get_inputs():\n"
                           "    return [torch.rand(*shape)]\n"
                           "\n"
                           "\n"
                           "def get_init_inputs():\n"
                           "    return [dim, 0.5]  # the scale\n";

static const char blind_spec[] = CLASS_PART;

/* spec with `from` replaced by `to` (once) */
static char *variant(const char *from, const char *to)
{
    const char *at = strstr(spec, from);
    if (!at)
        return NULL;
    size_t n = strlen(spec) - strlen(from) + strlen(to);
    char *v = malloc(n + 1);
    snprintf(v, n + 1, "%.*s%s%s", (int)(at - spec), spec, to, at + strlen(from));
    return v;
}

static void test_spec(void **state)
{
    (void)state;
    kb_err err = {0};
    char *out;
    size_t len;
    KBT_CHECK(kb_prompt_spec(spec, sizeof spec - 1, 0, &out, &len, &err) == 0, "%s", err.msg);
    KBT_CHECK(!strcmp(out, strchr(spec, '\n') + 1) && len == strlen(out), "not input-blind: only the header goes:\n%s", out);
    free(out);
    KBT_CHECK(kb_prompt_spec(spec, sizeof spec - 1, 1, &out, &len, &err) == 0, "%s", err.msg);
    KBT_CHECK(!strcmp(out, blind_spec), "input-blind:\n%s", out);
    free(out);
    /* a class that reads a constant the prompt would remove */
    char *v = variant("* self.scale\n", "* batch_size\n");
    KBT_CHECK(v && kb_prompt_spec(v, strlen(v), 1, &out, &len, &err) != 0, "a use of batch_size was not refused");
    KBT_MSG_HAS(err.msg, "'batch_size' (line 17)");
    KBT_MSG_HAS(err.msg, "line 13 uses");
    free(v);
    /* a local of the same name, bound by unpacking (L3/25's ChannelShuffle: `batch_size, ... = x.size()`) */
    v = variant("        return torch.cumsum(x, dim=self.dim) * self.scale\n",
                "        batch_size, n = x.size()\n        return torch.cumsum(x, dim=self.dim) * batch_size\n");
    KBT_CHECK(v && kb_prompt_spec(v, strlen(v), 1, &out, &len, &err) == 0, "an unpacked local was taken for the constant: %s",
              err.msg);
    free(out);
    free(v);
    /* a comparison is no binding */
    v = variant("* self.scale\n", "* self.scale\n        batch_size, n == 1\n");
    KBT_CHECK(v && kb_prompt_spec(v, strlen(v), 1, &out, &len, &err) != 0, "batch_size, n == 1 taken for a binding");
    free(v);
}

static void test_constructor(void **state)
{
    (void)state;
    kb_err err = {0};
    char *out = NULL;
    KBT_CHECK(kb_prompt_constructor(spec, sizeof spec - 1, &out, &err) == 0, "%s", err.msg);
    KBT_CHECK(!strcmp(out, "Model(dim=1, scale=0.5)"), "constructor %s", out);
    free(out);
    static const struct {
        const char *from, *to, *want, *error;
    } cases[] = {
        {"[dim, 0.5]", "[shape]", "Model(dim=(16, 32))", NULL},
        {"[dim, 0.5]", "[]", "Model()", NULL},
        {"[dim, 0.5]", "[dim, 0.5, 7]", "Model(1, 0.5, 7)", NULL},
        {"[dim, 0.5]", "[1e-3, -2]", "Model(dim=1e-3, scale=-2)", NULL},
        {"[dim, 0.5]", "[dim, torch.float32]", NULL, "cannot resolve 'torch'"},
        {"    return [dim, 0.5]", "    n = 3\n    return [n]", NULL, "cannot resolve 'n'"},
        {"    return [dim, 0.5]", "    return dim", NULL, "is not `return [value, ...]`"},
        {"def get_init_inputs", "def get_init", NULL, "no get_init_inputs()"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *v = variant(cases[i].from, cases[i].to);
        KBT_CHECK(v, "case %zu: '%s' not in the spec", i, cases[i].from);
        out = NULL;
        int rc = kb_prompt_constructor(v, strlen(v), &out, &err);
        if (cases[i].want)
            KBT_CHECK(rc == 0 && !strcmp(out, cases[i].want), "%s: %s, want %s", cases[i].to, rc ? err.msg : out,
                      cases[i].want);
        else {
            KBT_CHECK(rc != 0, "%s: accepted as %s", cases[i].to, out);
            KBT_MSG_HAS(err.msg, cases[i].error);
        }
        free(out);
        free(v);
    }
}

/* ---- templates --------------------------------------------------------------------------------- */

static const kb_tensor_spec ins[] = {
    {.name = "x", .dtype = KB_F32, .ndim = 2, .shape = {4, 8}, .role = KB_ROLE_INPUT},
    {.name = "s", .dtype = KB_F32, .ndim = 0, .role = KB_ROLE_INPUT},
    {.name = "w.weight", .dtype = KB_F32, .ndim = 1, .shape = {8}, .role = KB_ROLE_PARAM},
};
static const kb_tensor_spec outs[] = {{.name = "y", .dtype = KB_I64, .ndim = 0, .role = KB_ROLE_OUTPUT}};
static const kb_problem prob = {
    .id = "level9/001_t", .title = "T", .n_inputs = 3, .inputs = ins, .n_outputs = 1, .outputs = outs};

static void put(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    kb_err err = {0};
    KBT_CHECK(kb_write_file_atomic(path, text, strlen(text), &err) == 0, "%s", err.msg);
}

static int render(const char *dir, int blind, char **out, kb_err *err)
{
    char hdr[4096];
    snprintf(hdr, sizeof hdr, "%s/h.h", dir);
    kb_prompt_in in = {.style = KB_STYLE_KERNELBENCH, .problem = &prob, .spec = spec, .spec_len = sizeof spec - 1,
                       .spec_path = "t.py", .templates = dir, .abi_header = hdr, .blind = blind};
    size_t len;
    return kb_prompt_render(&in, out, &len, err);
}

static void test_templates(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("prompt");
    KBT_CHECK(dir, "no temporary directory");
    put(dir, "h.h", "int h;"); /* no newline: a block gets one */
    put(dir, "ex/a.py", "print(1)\n");
    put(dir, "kernelbench.txt", "@@# a template comment\n"
                                "head tail\n"
                                "@@file ex/a.py@@\n"
                                "@@ABI_HEADER@@\n"
                                "@@if input_blind@@\n"
                                "blind: @@CONSTRUCTOR@@.\n"
                                "@@FORWARD_ARGS@@\n"
                                "@@else@@\n"
                                "@@SPEC@@\n"
                                "@@end@@\n"
                                "@@RETURNS@@\n"
                                "@@TENSORS@@\n"
                                "end");
    char *out = NULL;
    kb_err err = {0};
    KBT_CHECK(render(dir, 1, &out, &err) == 0, "%s", err.msg);
    static const char want_blind[] = "head tail\n"
                                     "print(1)\n"
                                     "int h;\n"
                                     "blind: Model(dim=1, scale=0.5).\n"
                                     "- x: float32 tensor of shape (4, 8)\n"
                                     "- s: a Python float\n"
                                     "- an int64 tensor of shape () (0-d: one value)\n"
                                     "  args->inputs[0]   x         float32  (4, 8)  forward() argument\n"
                                     "  args->inputs[1]   s         float32  ()      forward() argument (a Python number, as a one-element tensor)\n"
                                     "  args->inputs[2]   w.weight  float32  (8,)    parameter of Model\n"
                                     "  args->outputs[0]  y         int64    ()      output\n"
                                     "end\n";
    KBT_CHECK(!strcmp(out, want_blind), "input-blind render:\n%s\n--- want:\n%s", out, want_blind);
    free(out);
    KBT_CHECK(render(dir, 0, &out, &err) == 0, "%s", err.msg);
    KBT_CHECK(strstr(out, "int h;\nimport torch\n") && strstr(out, "get_init_inputs") && !strstr(out, "blind:"),
              "not input-blind: the spec in the else branch:\n%s", out);
    free(out);

    static const struct {
        const char *tpl, *error;
        int code;
    } bad[] = {
        {"a\n@@NOPE@@\n", "kernelbench.txt:2: unknown placeholder @@NOPE@@ as a block", KB_EXIT_FAIL},
        {"x @@SPEC@@ y\n", "kernelbench.txt:1: unknown placeholder @@SPEC@@ in a line", KB_EXIT_FAIL},
        {"@@if input_blind@@\n@@if input_blind@@\n@@end@@\n", "kernelbench.txt:2: @@if@@ inside @@if@@", KB_EXIT_FAIL},
        {"@@if input_blind@@\n", "@@if@@ without @@end@@", KB_EXIT_FAIL},
        {"@@else@@\n", "kernelbench.txt:1: @@else@@ without @@if@@", KB_EXIT_FAIL},
        {"@@file ../h.h@@\n", "must stand alone on its line and name a file under", KB_EXIT_FAIL},
        {"@@file nope.txt@@\n", "kernelbench.txt:1: cannot open", KB_EXIT_MISSING},
        {"a @@SPEC\n", "kernelbench.txt:1: unclosed @@ placeholder", KB_EXIT_FAIL},
        {"@@CONSTRUCTOR@@ x\n", "is for input-blind prompts", KB_EXIT_FAIL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put(dir, "kernelbench.txt", bad[i].tpl);
        err = (kb_err){0};
        KBT_CHECK(render(dir, 0, &out, &err) != 0, "template \"%s\" accepted", bad[i].tpl);
        KBT_MSG_HAS(err.msg, bad[i].error);
        KBT_CHECK(err.code == bad[i].code, "template \"%s\": exit code %d, want %d", bad[i].tpl, err.code, bad[i].code);
    }
    kbt_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_py_split),
        cmocka_unit_test(test_spec),
        cmocka_unit_test(test_constructor),
        cmocka_unit_test(test_templates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
