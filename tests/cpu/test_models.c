/*
 * test_models.c -- lib/report/models.c: models.csv, submissions/<model>/extraction.csv and the check
 * the Makefile runs before any work (kb_tables.h).
 *
 * Pinned:
 *   - every models.csv row is validated, case by case (the table below is the spec): each bad
 *     field gives "file:line: column 'name': ..." with what a valid value looks like; the literal
 *     `unknown` is the only non-date accepted; columns in any order, unknown ones ignored;
 *   - a model without a row is refused with the file, the model, the header and a row to fill;
 *   - more samples of a problem than samples_per_problem is refused, naming the problem, counting
 *     sample files and failed responses together (a sample with a file and an ok row once);
 *   - extraction.csv: a bad header or an unknown outcome word is an error with file and line;
 *   - kb_models_append (kb-import's row): every byte of the file kept, the row in the header's
 *     column order (others empty), the file's line end, a newline added after a last line that
 *     lacks one, an absent file made with the header; the row passes the rules it is read by.
 */
#include "kbt.h"

#include "report/kb_tables.h"

#define HDR KB_MODELS_COLUMNS "\n"
#define GOOD_ROW "m,M,,1,OpenAI,2026-05-14,\"temperature=1.0, top_p=1.0\",5,kernelbench\n"

typedef struct row_case {
    const char *what;
    const char *csv;
    const char *error; /* NULL: valid; else a substring of the error */
} row_case;

static const row_case row_cases[] = {
    {"a good row", HDR GOOD_ROW, NULL},
    {"unknown date and sampling", HDR "m,M,,1,Google,unknown,unknown,5,kernelbench\n", NULL},
    {"hand-written, no order", HDR "m,M,,,this project,2026-11-29,-,2,hand-written\n", NULL},
    {"columns in another order, one unknown column",
     "prompt_style,samples_per_problem,sampling,date,provider,order,paper_name,display_name,model,notes\n"
     "abi,5,t=0,2024-02-29,X,,,M,m,anything\n", NULL},
    {"a blank line at the end", HDR GOOD_ROW "\n", NULL},
    {"a date with one-digit month", HDR "m,M,,1,OpenAI,2026-5-14,-,5,kernelbench\n", ":2: column 'date': '2026-5-14' is not a date: YYYY-MM-DD"},
    {"month 13", HDR "m,M,,1,OpenAI,2026-13-01,-,5,kernelbench\n", "column 'date': '2026-13-01'"},
    {"29 February of a common year", HDR "m,M,,1,OpenAI,2026-02-29,-,5,kernelbench\n", "column 'date': '2026-02-29'"},
    {"a month for a date", HDR "m,M,,1,OpenAI,May 2026,-,5,kernelbench\n", "or unknown"},
    {"Unknown in capitals", HDR "m,M,,1,OpenAI,Unknown,-,5,kernelbench\n", "column 'date': 'Unknown'"},
    {"empty date", HDR "m,M,,1,OpenAI,,-,5,kernelbench\n", "column 'date': ''"},
    {"zero samples", HDR "m,M,,1,OpenAI,unknown,-,0,kernelbench\n", ":2: column 'samples_per_problem': '0' is not an integer > 0"},
    {"a fractional count", HDR "m,M,,1,OpenAI,unknown,-,2.5,kernelbench\n", "column 'samples_per_problem': '2.5'"},
    {"a negative count", HDR "m,M,,1,OpenAI,unknown,-,-5,kernelbench\n", "column 'samples_per_problem': '-5'"},
    {"an unknown style", HDR "m,M,,1,OpenAI,unknown,-,5,chat\n", "column 'prompt_style': 'chat' is not one of kernelbench, abi, hand-written"},
    {"an empty display name", HDR "m,,,1,OpenAI,unknown,-,5,abi\n", ":2: column 'display_name' is empty"},
    {"an empty provider", HDR "m,M,,1,,unknown,-,5,abi\n", "column 'provider' is empty"},
    {"an empty sampling", HDR "m,M,,1,OpenAI,unknown,,5,abi\n", "column 'sampling' is empty"},
    {"an order that is no number", HDR "m,M,,first,OpenAI,unknown,-,5,abi\n", "column 'order': 'first' is not a number"},
    {"a model name with a space", HDR "my model,M,,1,OpenAI,unknown,-,5,abi\n", "column 'model': 'my model'"},
    {"an empty model name", HDR ",M,,1,OpenAI,unknown,-,5,abi\n", "column 'model': ''"},
    {"a duplicate model", HDR GOOD_ROW "x,X,,2,OpenAI,unknown,-,5,abi\n" GOOD_ROW, ":4: model 'm' is listed again (first at line 2)"},
    {"the old four columns", "model,display_name,paper_name,order\nm,M,,1\n",
     ":1: the header lacks the column(s) provider, date, sampling, samples_per_problem, prompt_style"},
};

static char *write_tmp(const char *dir, const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    KBT_CHECK(kbt_write_text(path, text) == 0, "cannot write %s", path);
    return path;
}

static void test_rows(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("models");
    for (size_t i = 0; i < sizeof row_cases / sizeof row_cases[0]; i++) {
        const row_case *c = &row_cases[i];
        char *path = write_tmp(dir, "models.csv", c->csv);
        kb_model_info *v = NULL;
        size_t n = 0;
        kb_err err = {0};
        int rc = kb_read_models_csv(path, &v, &n, &err);
        if (!c->error) {
            KBT_CHECK(rc == 0 && n == 1, "%s: refused: %s", c->what, err.msg);
            KBT_CHECK(v[0].samples_per_problem > 0 && v[0].display[0] && v[0].line == 2, "%s: fields not read", c->what);
        } else {
            KBT_CHECK(rc == -1, "%s: accepted", c->what);
            KBT_CHECK(strstr(err.msg, c->error) != NULL, "%s: the error lacks '%s': %s", c->what, c->error, err.msg);
            KBT_CHECK(strstr(err.msg, path) != NULL, "%s: the error does not name the file: %s", c->what, err.msg);
        }
        free(v);
    }
    kbt_rmtree(dir);
    free(dir);
}

static void test_fields_read(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("models");
    char *path = write_tmp(dir, "models.csv", HDR GOOD_ROW);
    kb_model_info *v;
    size_t n;
    kb_err err = {0};
    KBT_CHECK(kb_read_models_csv(path, &v, &n, &err) == 0, "%s", err.msg);
    assert_string_equal(v[0].model, "m");
    assert_string_equal(v[0].provider, "OpenAI");
    assert_string_equal(v[0].date, "2026-05-14");
    assert_string_equal(v[0].sampling, "temperature=1.0, top_p=1.0");
    assert_int_equal(v[0].samples_per_problem, 5);
    assert_string_equal(v[0].prompt_style, "kernelbench");
    free(v);
    /* several bad fields: every one is listed */
    path = write_tmp(dir, "models.csv", HDR "m,,,1,OpenAI,2026-5,-,0,chat\n");
    KBT_CHECK(kb_read_models_csv(path, &v, &n, &err) == -1, "accepted");
    KBT_CHECK(strstr(err.msg, "display_name") && strstr(err.msg, "'date'") && strstr(err.msg, "samples_per_problem") &&
                  strstr(err.msg, "prompt_style"), "not every bad field is listed: %s", err.msg);
    kbt_rmtree(dir);
    free(dir);
}

static void test_require(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("models");
    char *path = write_tmp(dir, "models.csv", HDR GOOD_ROW);
    kb_model_info *v;
    size_t n;
    kb_err err = {0};
    KBT_CHECK(kb_read_models_csv(path, &v, &n, &err) == 0, "%s", err.msg);
    const char *ok[] = {"m"}, *bad[] = {"m", "gpt-6", "other"};
    KBT_CHECK(kb_models_require(v, n, path, ok, 1, &err) == 0, "%s", err.msg);
    KBT_CHECK(kb_models_require(v, n, path, bad, 3, &err) == -1, "two models without rows accepted");
    KBT_CHECK(strstr(err.msg, path) && strstr(err.msg, "describes no model gpt-6, other"), "%s", err.msg);
    KBT_CHECK(strstr(err.msg, "\n  " KB_MODELS_COLUMNS "\n"), "no header in the example: %s", err.msg);
    KBT_CHECK(strstr(err.msg, "\n  gpt-6,gpt-6,,,PROVIDER,YYYY-MM-DD,") && strstr(err.msg, "\n  other,other,"),
              "no row to fill for each: %s", err.msg);
    /* the example row is itself a row of the right shape once filled in */
    KBT_CHECK(kb_model_check_samples(&v[0], path, "subs/m/level1/019_relu", 5, &err) == 0, "%s", err.msg);
    KBT_CHECK(kb_model_check_samples(&v[0], path, "subs/m/level1/019_relu", 6, &err) == -1, "6 of 5 accepted");
    KBT_CHECK(strstr(err.msg, "subs/m/level1/019_relu: 6 samples") && strstr(err.msg, "samples_per_problem 5") &&
                  strstr(err.msg, ":2"), "%s", err.msg);
    free(v);
    kbt_rmtree(dir);
    free(dir);
}

#define XHDR "problem,sample,outcome,reason,source\n"

static void test_extraction_csv(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("models");
    kb_extract_row *rows;
    size_t n;
    kb_err err = {0};
    char *path = write_tmp(dir, "extraction.csv",
                           XHDR "level1/019_relu,s0,ok,python block at lines 3-32,r/s0.txt\n"
                                "level1/019_relu,s1,truncated,\"the fence never closes, cut off\",r/s1.txt\n");
    KBT_CHECK(kb_read_extraction_csv(path, &rows, &n, &err) == 0 && n == 2, "%s", err.msg);
    assert_string_equal(rows[1].outcome, "truncated");
    assert_string_equal(rows[1].reason, "the fence never closes, cut off");
    assert_int_equal(rows[1].line, 3);
    free(rows);
    static const struct { const char *csv, *error; } bad[] = {
        {"problem,sample,outcome,reason\nlevel1/019_relu,s0,ok,x\n", ":1: the header is not problem,sample,outcome,reason,source"},
        {XHDR "level1/019_relu,s0,ok,x,y\nlevel1/019_relu,s1,cut_off,x,y\n", ":3: column 'outcome': 'cut_off' is not one of ok,"},
        {XHDR "level1/019_relu,S1,ok,x,y\n", ":2: column 'sample': 'S1'"},
        {XHDR "019_relu,s1,ok,x,y\n", ":2: column 'problem': '019_relu'"},
        {XHDR "level1/019_relu,s1,ok,x\n", ":2: 4 fields"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        path = write_tmp(dir, "extraction.csv", bad[i].csv);
        KBT_CHECK(kb_read_extraction_csv(path, &rows, &n, &err) == -1, "case %zu accepted", i);
        KBT_CHECK(strstr(err.msg, path) && strstr(err.msg, bad[i].error), "case %zu: wants '%s': %s", i, bad[i].error,
                  err.msg);
    }
    kbt_rmtree(dir);
    free(dir);
}

/* A submissions tree: m has 2 sample files of 019_relu plus failed responses in extraction.csv. */
static void test_check(void **state)
{
    (void)state;
    char *dir = kbt_tmpdir("models");
    char p[1024], models_csv[1024], subs[960];
    snprintf(subs, sizeof subs, "%.900s/subs", dir);
    snprintf(p, sizeof p, "%s/m/level1/019_relu", subs);
    kb_err err = {0};
    KBT_CHECK(kb_mkdirs(p, &err) == 0, "%s", err.msg);
    snprintf(models_csv, sizeof models_csv, "%s", write_tmp(dir, "models.csv", HDR "m,M,,1,OpenAI,unknown,unknown,3,kernelbench\n"));
    write_tmp(p, "s0.py", "class ModelNew: pass\n");
    write_tmp(p, "s1.py", "class ModelNew: pass\n");
    const char *m[] = {"m"}, *two[] = {"m", "new-model"};
    KBT_CHECK(kb_models_check(models_csv, subs, m, 1, &err) == 0, "%s", err.msg);
    KBT_CHECK(kb_models_check(models_csv, subs, two, 2, &err) == -1 && strstr(err.msg, "describes no model new-model"),
              "a model without a row: %s", err.msg);
    /* s0, s1 have files and ok rows (2 samples, not 4), s2 failed: 3 of 3 */
    char x[1024];
    snprintf(x, sizeof x, "%s/m", subs);
    write_tmp(x, "extraction.csv", XHDR "level1/019_relu,s0,ok,a,b\nlevel1/019_relu,s1,ok,a,b\n"
                                        "level1/019_relu,s2,truncated,cut off,b\n");
    KBT_CHECK(kb_models_check(models_csv, subs, m, 1, &err) == 0, "ok rows counted twice: %s", err.msg);
    write_tmp(x, "extraction.csv", XHDR "level1/019_relu,s0,ok,a,b\nlevel1/019_relu,s1,ok,a,b\n"
                                        "level1/019_relu,s2,truncated,cut off,b\nlevel1/019_relu,s3,empty,e,b\n");
    KBT_CHECK(kb_models_check(models_csv, subs, m, 1, &err) == -1, "4 samples of 3 accepted");
    KBT_CHECK(strstr(err.msg, "m/level1/019_relu: 4 samples") && strstr(err.msg, "samples_per_problem 3"), "%s", err.msg);
    write_tmp(x, "extraction.csv", XHDR "level1/019_relu,s0,bogus,a,b\n");
    KBT_CHECK(kb_models_check(models_csv, subs, m, 1, &err) == -1 && strstr(err.msg, "extraction.csv:2: column 'outcome'"),
              "a malformed extraction.csv: %s", err.msg);
    write_tmp(dir, "models.csv", HDR "m,M,,1,OpenAI,someday,unknown,3,kernelbench\n");
    KBT_CHECK(kb_models_check(models_csv, subs, m, 1, &err) == -1 && strstr(err.msg, "models.csv:2: column 'date'"),
              "a malformed models.csv: %s", err.msg);
    kbt_rmtree(dir);
    free(dir);
}

/* kb_models_append: the file before, the file after */
typedef struct append_case {
    const char *what, *before, *after;
} append_case;

static void test_append(void **state)
{
    (void)state;
    static const append_case cases[] = {
        {"the columns' order", HDR GOOD_ROW, HDR GOOD_ROW "imp,imp,,,unknown,unknown,unknown,3,kernelbench\n"},
        {"another order, a column of its own, no newline at the end",
         "notes,prompt_style,samples_per_problem,sampling,date,provider,order,paper_name,display_name,model\nx,abi,5,t,unknown,P,,,M,m",
         "notes,prompt_style,samples_per_problem,sampling,date,provider,order,paper_name,display_name,model\nx,abi,5,t,unknown,P,,,M,m\n"
         ",kernelbench,3,unknown,unknown,unknown,,,imp,imp\n"},
        {"CRLF line ends", KB_MODELS_COLUMNS "\r\n", KB_MODELS_COLUMNS "\r\nimp,imp,,,unknown,unknown,unknown,3,kernelbench\r\n"},
        {"an absent file", NULL, HDR "imp,imp,,,unknown,unknown,unknown,3,kernelbench\n"},
    };
    static const size_t lines[] = {3, 3, 2, 2};
    char *dir = kbt_tmpdir("models");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const append_case *c = &cases[i];
        char name[32], path[1024], row[512];
        snprintf(name, sizeof name, "m%zu.csv", i);
        snprintf(path, sizeof path, "%.900s/%s", dir, name);
        if (c->before)
            write_tmp(dir, name, c->before);
        kb_err err = {0};
        size_t line = 0;
        KBT_CHECK(kb_models_append(path, "imp", 3, "kernelbench", &line, row, sizeof row, &err) == 0, "%s: %s", c->what,
                  err.msg);
        char *got = kb_read_file(path, NULL, &err);
        KBT_CHECK(got && !strcmp(got, c->after), "%s: the file is\n%s\nnot\n%s", c->what, got ? got : err.msg, c->after);
        KBT_CHECK(line == lines[i], "%s: the row's line is %zu, not %zu", c->what, line, lines[i]);
        KBT_CHECK(strstr(c->after, row) && strstr(row, "imp") && !strchr(row, '\n') && !strchr(row, '\r'),
                  "%s: the row is '%s'", c->what, row);
        kb_model_info *v = NULL;
        size_t n = 0;
        KBT_CHECK(kb_read_models_csv(path, &v, &n, &err) == 0, "%s: the appended row is refused: %s", c->what, err.msg);
        const kb_model_info *mi = kb_model_find(v, n, "imp");
        KBT_CHECK(mi && mi->samples_per_problem == 3 && !strcmp(mi->provider, "unknown") && !strcmp(mi->display, "imp") &&
                      !strcmp(mi->prompt_style, "kernelbench"),
                  "%s: the row read back", c->what);
        free(v);
        free(got);
    }
    kbt_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),        cmocka_unit_test(test_fields_read),    cmocka_unit_test(test_require),
        cmocka_unit_test(test_extraction_csv), cmocka_unit_test(test_check),     cmocka_unit_test(test_append),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
