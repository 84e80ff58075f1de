/*
 * test_extract.c -- lib/llm/kb_extract.h: one response into one sample, case by case.
 *
 * Pinned:
 *   - every response of the corpus (tests/fixtures/extract/expected.tsv: the data is the spec)
 *     gets its outcome and a reason that says why; an ok one yields a sample that ends with a
 *     newline and holds no CR;
 *   - the cases a file cannot carry well: a NUL byte (not_text), 1 MB of prose before the block,
 *     a 1 MB block, lone CRs;
 *   - CommonMark fences: a closing fence at least as long as the opening one, of the same
 *     character, with nothing after it; four spaces of indentation is no fence;
 *   - extraction is a function of the bytes (the same response twice, the same result);
 *   - kb_write_if_changed leaves a file with the same bytes alone (its mtime too);
 *   - a whole file as the sample (kb_extract_file, kb-import's check): its bytes unchanged (CRLF,
 *     a byte-order mark, no newline at the end), a NUL byte not_text, nothing but white space
 *     empty, no top-level ModelNew wrong_name (a nested one, one in a string do not count).
 * Run from the repository root (make test-unit does).
 */
#include "kbt.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "llm/kb_extract.h"

#define CORPUS "tests/fixtures/extract/"

static const char *const model_new = "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n";

static void extract(const char *text, size_t len, kb_prompt_style style, kb_extract_result *r)
{
    kb_err err = {0};
    KBT_CHECK(kb_extract_response(text, len, style, r, &err) == 0, "kb_extract_response: %s", err.msg);
}

static void check_ok_code(const kb_extract_result *r, const char *what)
{
    KBT_CHECK(r->code && r->code_len == strlen(r->code), "%s: no code, or a NUL in it", what);
    KBT_CHECK(r->code_len > 0 && r->code[r->code_len - 1] == '\n', "%s: the sample does not end with a newline", what);
    KBT_CHECK(!memchr(r->code, '\r', r->code_len), "%s: the sample holds a CR", what);
}

static void test_corpus(void **state)
{
    (void)state;
    kb_err err = {0};
    char *tsv = kb_read_file(CORPUS "expected.tsv", NULL, &err);
    KBT_CHECK(tsv, "%s", err.msg);
    int rows = 0;
    for (char *save = NULL, *line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char *f[5] = {0}, *p = line;
        for (int i = 0; i < 5; i++) {
            f[i] = p;
            p = p ? strchr(p, '\t') : NULL;
            if (p)
                *p++ = '\0';
        }
        KBT_CHECK(f[4], "expected.tsv: a row with fewer than 5 columns: %s", line);
        kb_prompt_style style;
        KBT_CHECK(kb_style_parse(f[0], &style) == 0, "expected.tsv: style '%s'", f[0]);
        char path[1024];
        snprintf(path, sizeof path, CORPUS "%s", f[1]);
        size_t len;
        char *text = kb_read_file(path, &len, &err);
        KBT_CHECK(text, "%s", err.msg);
        kb_extract_result r;
        extract(text, len, style, &r);
        KBT_CHECK(!strcmp(kb_extract_outcome_name(r.outcome), f[2]), "%s (%s): outcome %s (%s), want %s", f[1], f[4],
                  kb_extract_outcome_name(r.outcome), r.reason, f[2]);
        KBT_CHECK(strstr(r.reason, f[3]), "%s (%s): reason \"%s\" lacks \"%s\"", f[1], f[4], r.reason, f[3]);
        KBT_CHECK((r.outcome == KB_EX_OK) == (r.code != NULL), "%s: code iff ok", f[1]);
        if (r.outcome == KB_EX_OK)
            check_ok_code(&r, f[1]);
        /* the same bytes, the same result */
        kb_extract_result again;
        extract(text, len, style, &again);
        KBT_CHECK(again.outcome == r.outcome && !strcmp(again.reason, r.reason) && again.code_len == r.code_len &&
                      (!r.code || !memcmp(again.code, r.code, r.code_len)),
                  "%s: a second extraction differs", f[1]);
        kb_extract_result_free(&r);
        kb_extract_result_free(&again);
        free(text);
        rows++;
    }
    KBT_CHECK(rows >= 30, "expected.tsv has %d cases", rows);
    free(tsv);
}

/* ---- cases a fixture file carries badly ------------------------------------------------------ */

static void test_not_text(void **state)
{
    (void)state;
    const char text[] = "```python\nclass ModelNew:\n    x = '\0'\n```\n";
    kb_extract_result r;
    extract(text, sizeof text - 1, KB_STYLE_KERNELBENCH, &r);
    KBT_CHECK(r.outcome == KB_EX_NOT_TEXT && strstr(r.reason, "offset 35"), "NUL: %s: %s",
              kb_extract_outcome_name(r.outcome), r.reason);
    kb_extract_result_free(&r);
}

static void test_one_megabyte(void **state)
{
    (void)state;
    size_t mb = 1u << 20;
    char *text = malloc(2 * mb + 256);
    KBT_CHECK(text, "out of memory");
    /* 1 MB of prose, then the block */
    size_t n = 0;
    while (n < mb)
        n += (size_t)sprintf(text + n, "Line %zu of a long explanation, with `inline code` and ``` inside a line.\n", n);
    n += (size_t)sprintf(text + n, "```python\n%s```\n", model_new);
    kb_extract_result r;
    extract(text, n, KB_STYLE_KERNELBENCH, &r);
    KBT_CHECK(r.outcome == KB_EX_OK && !strcmp(r.code, model_new), "1 MB of prose: %s: %s",
              kb_extract_outcome_name(r.outcome), r.reason);
    kb_extract_result_free(&r);
    /* a 1 MB block: one long string in the module */
    n = (size_t)sprintf(text, "```python\n%sBLOB = \"", model_new);
    memset(text + n, 'x', mb);
    n += mb;
    n += (size_t)sprintf(text + n, "\"\n```\n");
    extract(text, n, KB_STYLE_KERNELBENCH, &r);
    KBT_CHECK(r.outcome == KB_EX_OK && r.code_len == strlen(model_new) + mb + 10, "1 MB block: %s (%zu bytes): %s",
              kb_extract_outcome_name(r.outcome), r.code_len, r.reason);
    kb_extract_result_free(&r);
    free(text);
}

typedef struct fence_case {
    const char *text;
    kb_prompt_style style;
    kb_extract_outcome outcome;
    const char *code; /* ok: the sample */
    const char *why;
} fence_case;

static const fence_case fences[] = {
    {"```python\nclass ModelNew:\n    pass\n`````\n", KB_STYLE_KERNELBENCH, KB_EX_OK, "class ModelNew:\n    pass\n",
     "a longer closing fence closes"},
    {"````python\nclass ModelNew:\n    pass\n```\n", KB_STYLE_KERNELBENCH, KB_EX_TRUNCATED, NULL,
     "a shorter closing fence does not close"},
    {"~~~python\nclass ModelNew:\n    pass\n```\n", KB_STYLE_KERNELBENCH, KB_EX_TRUNCATED, NULL,
     "``` does not close ~~~"},
    {"```python\nclass ModelNew:\n    pass\n``` x\n```\n", KB_STYLE_KERNELBENCH, KB_EX_OK, "class ModelNew:\n    pass\n``` x\n",
     "a fence line with text after it is content"},
    {"    ```python\n    class ModelNew:\n        pass\n    ```\n", KB_STYLE_KERNELBENCH, KB_EX_NO_CODE_BLOCK, NULL,
     "four spaces of indentation: an indented code block, not a fence"},
    {"   ```python\n   class ModelNew:\n       pass\n   ```\n", KB_STYLE_KERNELBENCH, KB_EX_OK, "class ModelNew:\n    pass\n",
     "three spaces: a fence, its indentation removed"},
    {"```python\rclass ModelNew:\r    pass\r```\r", KB_STYLE_KERNELBENCH, KB_EX_OK, "class ModelNew:\n    pass\n",
     "lone CR line ends"},
    {"```python\n```\n", KB_STYLE_KERNELBENCH, KB_EX_WRONG_NAME, NULL, "an empty block"},
    {"```python\nModelNew = Model\n```\n", KB_STYLE_KERNELBENCH, KB_EX_OK, "ModelNew = Model\n",
     "ModelNew bound by an assignment"},
    {"```python\nclass ModelNewer:\n    pass\n```\n", KB_STYLE_KERNELBENCH, KB_EX_WRONG_NAME, NULL,
     "a longer name is another name"},
    {"```py3 title=\"model.py\"\nclass ModelNew:\n    pass\n```\n", KB_STYLE_KERNELBENCH, KB_EX_OK,
     "class ModelNew:\n    pass\n", "an info string after the language"},
    {"```cu\nint kb_forward(const kb_args *a) { return 0; }\n```\n", KB_STYLE_ABI, KB_EX_OK,
     "int kb_forward(const kb_args *a) { return 0; }\n", "a one-line definition"},
    {"```cuda\nconst char *s = \"int kb_forward(const kb_args *a) { return 0; }\";\n```\n", KB_STYLE_ABI,
     KB_EX_WRONG_NAME, NULL, "kb_forward only in a string"},
    {"```cuda\nint kb_forward(const kb_args *a) { return 0; }\n```\n```cuda\n```\n", KB_STYLE_ABI,
     KB_EX_SEVERAL_BLOCKS, NULL, "an empty second block still counts"},
    {"<think>\n```cuda\n</think>\n```cuda\nint kb_forward(const kb_args *a) { return 0; }\n```\n", KB_STYLE_ABI,
     KB_EX_OK, "int kb_forward(const kb_args *a) { return 0; }\n", "an unclosed fence inside <think> is thinking"},
};

static void test_fences(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fences / sizeof fences[0]; i++) {
        const fence_case *c = &fences[i];
        kb_extract_result r;
        extract(c->text, strlen(c->text), c->style, &r);
        KBT_CHECK(r.outcome == c->outcome, "%s: %s (%s), want %s", c->why, kb_extract_outcome_name(r.outcome), r.reason,
                  kb_extract_outcome_name(c->outcome));
        KBT_CHECK(!c->code || (r.code && !strcmp(r.code, c->code)), "%s: sample \"%s\", want \"%s\"", c->why,
                  r.code ? r.code : "(none)", c->code);
        kb_extract_result_free(&r);
    }
}

/* ---- a whole file as the sample ----------------------------------------------------------------- */

typedef struct file_case {
    const char *what, *text;
    size_t len; /* 0: strlen(text) */
    kb_extract_outcome want;
    const char *reason; /* a substring of the reason */
} file_case;

static void test_file(void **state)
{
    (void)state;
    static const file_case cases[] = {
        {"a KernelBench file", "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n", 0, KB_EX_OK, "taken unchanged"},
        {"CRLF and a byte-order mark", "\xef\xbb\xbfimport torch\r\nclass ModelNew(torch.nn.Module):\r\n    pass\r\n", 0,
         KB_EX_OK, "taken unchanged"},
        {"lone CRs", "import torch\rclass ModelNew:\r    pass\r", 0, KB_EX_OK, ""},
        {"no newline at the end", "class ModelNew:\n    pass", 0, KB_EX_OK, ""},
        {"ModelNew assigned", "import torch\nModelNew = torch.nn.Identity\n", 0, KB_EX_OK, ""},
        {"a NUL byte", "class ModelNew:\n    x = 1\0\n", 26, KB_EX_NOT_TEXT, "a NUL byte at offset 25: not a text file"},
        {"an empty file", "", 0, KB_EX_EMPTY, "an empty file"},
        {"white space", " \n\t \n", 0, KB_EX_EMPTY, "only white space (5 bytes)"},
        {"a byte-order mark alone", "\xef\xbb\xbf", 0, KB_EX_EMPTY, "an empty file"},
        {"Model only", "class Model:\n    pass\n", 0, KB_EX_WRONG_NAME, "no top-level class ModelNew in the file (its classes: Model)"},
        {"a nested ModelNew", "class Outer:\n    class ModelNew:\n        pass\n", 0, KB_EX_WRONG_NAME, "its classes: Outer"},
        {"ModelNew in a string", "doc = '''\nclass ModelNew:\n'''\n", 0, KB_EX_WRONG_NAME, "it defines no class"},
        /* not judged here: a markdown answer saved as .py is taken as it is, and the compile stage
         * records its syntax error (tests/cpu/compile_py.sh) */
        {"a fenced answer", "```python\nclass ModelNew:\n    pass\n```\n", 0, KB_EX_OK, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const file_case *c = &cases[i];
        size_t len = c->len ? c->len : strlen(c->text);
        kb_extract_result r;
        kb_err err = {0};
        KBT_CHECK(kb_extract_file(c->text, len, KB_STYLE_KERNELBENCH, &r, &err) == 0, "%s: %s", c->what, err.msg);
        KBT_CHECK(r.outcome == c->want, "%s: %s (%s), not %s", c->what, kb_extract_outcome_name(r.outcome), r.reason,
                  kb_extract_outcome_name(c->want));
        KBT_CHECK(strstr(r.reason, c->reason), "%s: the reason \"%s\" lacks \"%s\"", c->what, r.reason, c->reason);
        if (c->want == KB_EX_OK)
            KBT_CHECK(r.code && r.code_len == len && !memcmp(r.code, c->text, len), "%s: the sample is not the file's bytes",
                      c->what);
        else
            KBT_CHECK(!r.code, "%s: a failed file has code", c->what);
        kb_extract_result_free(&r);
    }
}

/* ---- write-if-changed -------------------------------------------------------------------------- */

static void test_write_if_changed(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("extract");
    KBT_CHECK(dir, "no temporary directory");
    char path[4096];
    snprintf(path, sizeof path, "%s/a/b/s0.py", dir);
    kb_err err = {0};
    int changed = -1;
    KBT_CHECK(kb_write_if_changed(path, "x\n", 2, &changed, &err) == 0 && changed == 1, "first write: %s", err.msg);
    struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
    KBT_CHECK(utimensat(AT_FDCWD, path, old, 0) == 0, "utimensat");
    KBT_CHECK(kb_write_if_changed(path, "x\n", 2, &changed, &err) == 0 && changed == 0, "same bytes: changed %d", changed);
    struct stat st;
    KBT_CHECK(stat(path, &st) == 0 && st.st_mtim.tv_sec == 1000000000, "same bytes: the mtime moved");
    KBT_CHECK(kb_write_if_changed(path, "y\n", 2, &changed, &err) == 0 && changed == 1, "new bytes: %s", err.msg);
    KBT_CHECK(stat(path, &st) == 0 && st.st_mtim.tv_sec != 1000000000, "new bytes: the mtime stayed");
    size_t len;
    char *got = kb_read_file(path, &len, &err);
    KBT_CHECK(got && len == 2 && !strcmp(got, "y\n"), "new bytes not written");
    free(got);
    snprintf(path, sizeof path, "%s/a/b", dir);
    KBT_CHECK(kbt_count_entries(path, ".tmp.") == 0, "a temporary file was left behind");
    kbt_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_not_text),
        cmocka_unit_test(test_one_megabyte),
        cmocka_unit_test(test_fences),
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_write_if_changed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
