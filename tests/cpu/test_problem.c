/*
 * test_problem.c -- lib/core/kb_problem_load.h: checking problem descriptors before any GPU work.
 *
 * Pinned: a well-formed descriptor (with a scalar, a bool mask, int64 targets, kaiming weights)
 * passes; each malformed variant fails with a message that names the problem and the field or
 * tensor at fault (data-driven table below); the byte counts of kb_spec_bytes and
 * kb_problem_resident_bytes (a 6 GiB tensor: no 32-bit overflow); kb_problem_load on shared
 * objects built here with gcc: missing file, no descriptor symbol, an invalid descriptor, a valid
 * one.
 */
#include "kbt.h"

#include <math.h>

#include "core/kb_problem_load.h"
#include "kb/net.h"
#include "core/kb_proc.h"

static int ref_ok(kb_ctx *ctx, const kb_args *args)
{
    (void)ctx;
    (void)args;
    return 0;
}

#define NIN 5
#define NOUT 2

typedef struct fixture {
    kb_tensor_spec in[NIN];
    kb_tensor_spec out[NOUT];
    kb_problem p;
} fixture;

/* A good descriptor: two forward() arguments, three parameters, two outputs. */
static void make_good(fixture *f)
{
    const kb_tensor_spec in[NIN] = {
        {"x", KB_F32, KB_SHAPE(4096, 393216), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0},
        {"mask", KB_BOOL, KB_SHAPE(16, 3), KB_ROLE_INPUT, {KB_GEN_BERNOULLI, 0.5, 0}, 0},
        {"weight", KB_F32, KB_SHAPE(64, 3, 3, 3), KB_ROLE_PARAM, {KB_GEN_KAIMING_UNIFORM, 27, 0}, 0},
        {"targets", KB_I64, KB_SHAPE(128), KB_ROLE_PARAM, {KB_GEN_RANDINT, 0, 10}, 0},
        {"eps", KB_F64, KB_SCALAR, KB_ROLE_PARAM, {KB_GEN_CONST, 1e-5, 0}, 0},
    };
    const kb_tensor_spec out[NOUT] = {
        {"y", KB_F32, KB_SHAPE(4096, 393216), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 0},
        {"loss", KB_BF16, KB_SCALAR, KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 128},
    };
    memcpy(f->in, in, sizeof in);
    memcpy(f->out, out, sizeof out);
    kb_problem p = {KB_ABI_VERSION, "level1/999_test", "Test", NIN, f->in, NOUT, f->out, 1.0, 2.0, 0, ref_ok, NULL, NULL};
    f->p = p;
}

typedef struct bad_case {
    const char *what;
    void (*mutate)(fixture *f);
    const char *needles[3]; /* each must appear in the message */
} bad_case;

static void m_no_id(fixture *f) { f->p.id = NULL; }
static void m_id_no_level(fixture *f) { f->p.id = "999_test"; }
static void m_no_title(fixture *f) { f->p.title = NULL; }
static void m_no_reference(fixture *f) { f->p.reference = NULL; }
static void m_abi(fixture *f) { f->p.abi_version = KB_ABI_VERSION + 1; }
static void m_bad_dtype(fixture *f) { f->in[2].dtype = (kb_dtype)42; }
static void m_bad_out_dtype(fixture *f) { f->out[1].dtype = (kb_dtype)-1; }
static void m_zero_dim(fixture *f) { f->in[0].shape[1] = 0; }
static void m_negative_dim(fixture *f) { f->out[0].shape[0] = -4096; }
static void m_ndim(fixture *f) { f->in[1].ndim = KB_MAX_DIMS + 1; }
static void m_negative_ndim(fixture *f) { f->in[1].ndim = -1; }
static void m_no_name(fixture *f) { f->in[3].name = NULL; }
static void m_empty_name(fixture *f) { f->out[0].name = ""; }
static void m_params_first(fixture *f) { f->in[1].role = KB_ROLE_PARAM; f->in[2].role = KB_ROLE_INPUT; }
static void m_input_role(fixture *f) { f->in[0].role = KB_ROLE_OUTPUT; }
static void m_state_first(fixture *f) { f->in[3].role = KB_ROLE_STATE; } /* then the parameter eps */
static void m_same_name(fixture *f) { f->in[4].name = "weight"; }
static void m_normal_neg_std(fixture *f) { f->in[2].gen = (kb_gen){KB_GEN_NORMAL, 0, -0.01}; }
static void m_normal_nan(fixture *f) { f->in[2].gen = (kb_gen){KB_GEN_NORMAL, NAN, 1}; }
static void m_kaiming_no_fan(fixture *f) { f->in[2].gen.a = 0; }
static void m_kaiming_neg_fan(fixture *f) { f->in[2].gen.a = -3; }
static void m_randint_equal(fixture *f) { f->in[3].gen.a = 10; f->in[3].gen.b = 10; }
static void m_randint_reversed(fixture *f) { f->in[3].gen.a = 10; f->in[3].gen.b = 0; }
static void m_bad_gen(fixture *f) { f->in[0].gen.kind = (kb_gen_kind)99; }
static void m_uniform_reversed(fixture *f) { f->in[0].gen = (kb_gen){KB_GEN_UNIFORM, 1, -1}; }
static void m_uniform_inf(fixture *f) { f->in[0].gen = (kb_gen){KB_GEN_UNIFORM, -INFINITY, 1}; }
static void m_loguniform_equal(fixture *f) { f->in[0].gen = (kb_gen){KB_GEN_LOGUNIFORM_SIGNED, 2, 2}; }
static void m_bernoulli_big(fixture *f) { f->in[1].gen.a = 1.5; }
static void m_bernoulli_nan(fixture *f) { f->in[1].gen.a = NAN; }
static void m_const_nan(fixture *f) { f->in[4].gen.a = NAN; }
static void m_no_outputs(fixture *f) { f->p.n_outputs = 0; }
static void m_many_outputs(fixture *f) { f->p.n_outputs = KB_MAX_OUTPUTS + 1; }
static void m_many_inputs(fixture *f) { f->p.n_inputs = KB_PROBLEM_MAX_INPUTS + 1; }
static void m_null_inputs(fixture *f) { f->p.inputs = NULL; }
static void m_null_outputs(fixture *f) { f->p.outputs = NULL; }

static const bad_case bad_cases[] = {
    {"missing id", m_no_id, {"id"}},
    {"id without level directory", m_id_no_level, {"id", "levelN/NNN_name"}},
    {"missing title", m_no_title, {"level1/999_test", "title"}},
    {"missing reference", m_no_reference, {"level1/999_test", "reference"}},
    {"other ABI", m_abi, {"ABI", "make problems"}},
    {"bad input dtype", m_bad_dtype, {"level1/999_test", "weight", "dtype"}},
    {"bad output dtype", m_bad_out_dtype, {"loss", "dtype"}},
    {"zero dimension", m_zero_dim, {"level1/999_test", "x", "dimension 1 = 0"}},
    {"negative dimension", m_negative_dim, {"y", "dimension 0 = -4096"}},
    {"too many dimensions", m_ndim, {"mask", "ndim 9"}},
    {"negative ndim", m_negative_ndim, {"mask", "ndim -1"}},
    {"unnamed input", m_no_name, {"input 3", "no name"}},
    {"empty output name", m_empty_name, {"output 0", "no name"}},
    {"parameters before inputs", m_params_first, {"forward() arguments come first", "weight"}},
    {"state before a parameter", m_state_first, {"then module state", "eps", "parameter after a piece of state"}},
    {"two tensors of one name", m_same_name, {"two tensors are named weight", "2 and 4"}},
    {"normal with std < 0", m_normal_neg_std, {"weight", "normal", "std"}},
    {"normal with a NaN mean", m_normal_nan, {"weight", "normal", "mean"}},
    {"output role among inputs", m_input_role, {"x", "role"}},
    {"kaiming without fan_in", m_kaiming_no_fan, {"weight", "fan_in"}},
    {"kaiming with negative fan_in", m_kaiming_neg_fan, {"weight", "fan_in"}},
    {"randint b == a", m_randint_equal, {"targets", "randint", "b > a"}},
    {"randint b < a", m_randint_reversed, {"targets", "randint"}},
    {"unknown generator", m_bad_gen, {"x", "generator"}},
    {"uniform b < a", m_uniform_reversed, {"x", "uniform", "a = 1, b = -1"}},
    {"uniform a = -inf", m_uniform_inf, {"x", "uniform", "finite"}},
    {"loguniform b == a", m_loguniform_equal, {"x", "loguniform", "a < b"}},
    {"bernoulli p > 1", m_bernoulli_big, {"mask", "bernoulli", "1.5"}},
    {"bernoulli p NaN", m_bernoulli_nan, {"mask", "bernoulli", "nan"}},
    {"const NaN", m_const_nan, {"eps", "const", "finite"}},
    {"no outputs", m_no_outputs, {"0 outputs"}},
    {"17 outputs", m_many_outputs, {"17 outputs", "KB_MAX_OUTPUTS"}},
    {"65537 inputs", m_many_inputs, {"65537 inputs", "KB_PROBLEM_MAX_INPUTS"}},
    {"inputs pointer NULL", m_null_inputs, {"level1/999_test", "inputs"}},
    {"outputs pointer NULL", m_null_outputs, {"level1/999_test", "outputs"}},
};

static void test_validate(void **state)
{
    (void)state;
    fixture f;
    make_good(&f);
    kb_err err = {0};
    KBT_CHECK(kb_problem_validate(&f.p, &err) == 0, "the good descriptor fails: %s", err.msg);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        make_good(&f);
        bad_cases[i].mutate(&f);
        memset(&err, 0, sizeof err);
        int rc = kb_problem_validate(&f.p, &err);
        KBT_CHECK(rc == -1, "%s: accepted", bad_cases[i].what);
        KBT_CHECK(err.code == KB_EXIT_FAIL, "%s: code %d", bad_cases[i].what, err.code);
        for (int k = 0; k < 3 && bad_cases[i].needles[k]; k++)
            KBT_CHECK(strstr(err.msg, bad_cases[i].needles[k]) != NULL, "%s: message \"%s\" does not mention \"%s\"",
                      bad_cases[i].what, err.msg, bad_cases[i].needles[k]);
        print_message("  %-30s -> %s\n", bad_cases[i].what, err.msg);
    }
    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_problem_validate(NULL, &err) == -1 && err.msg[0], "NULL descriptor accepted");
    /* edge cases that are valid */
    make_good(&f);
    f.p.n_inputs = 0;
    KBT_CHECK(kb_problem_validate(&f.p, &err) == 0, "a problem without inputs fails: %s", err.msg);
    make_good(&f);
    f.in[0].ndim = KB_MAX_DIMS;
    for (int d = 0; d < KB_MAX_DIMS; d++)
        f.in[0].shape[d] = 2;
    KBT_CHECK(kb_problem_validate(&f.p, &err) == 0, "8 dimensions fail: %s", err.msg);
    /* any number of tensors: a Level-3 model has hundreds of parameters (ResNet-101 ~300) */
    enum { MANY = 600 };
    static kb_tensor_spec many[MANY];
    static char names[MANY][16];
    for (int i = 0; i < MANY; i++) {
        snprintf(names[i], sizeof names[i], "layer%d.weight", i);
        kb_tensor_spec t = {names[i], KB_F32, KB_SHAPE(64, 64), i ? KB_ROLE_PARAM : KB_ROLE_INPUT,
                            {KB_GEN_KAIMING_UNIFORM, 64, 0}, 0};
        many[i] = t;
    }
    make_good(&f);
    f.p.n_inputs = MANY;
    f.p.inputs = many;
    KBT_CHECK(kb_problem_validate(&f.p, &err) == 0, "%d tensors fail: %s", MANY, err.msg);
    /* the structured generators: fp32, square matrices where they need them */
    make_good(&f);
    f.in[2].gen.kind = KB_GEN_RAND_TRIU; /* weight (64, 3, 3, 3): square last dims */
    KBT_CHECK(kb_problem_validate(&f.p, &err) == 0, "triu on a square matrix fails: %s", err.msg);
    f.in[0].gen.kind = KB_GEN_RAND_SYMMETRIC; /* x (4096, 393216): not square */
    KBT_CHECK(kb_problem_validate(&f.p, &err) == -1 && strstr(err.msg, "square"), "symmetric non-square: %s", err.msg);
    make_good(&f);
    f.in[3].gen.kind = KB_GEN_RAND_SOFTMAX; /* targets: int64 */
    KBT_CHECK(kb_problem_validate(&f.p, &err) == -1 && strstr(err.msg, "fp32"), "softmax on int64: %s", err.msg);
    /* bytes: the descriptor's, or every tensor once where it leaves them 0 */
    make_good(&f);
    KBT_CHECK(kb_problem_bytes(&f.p) == 2.0, "bytes %g, the descriptor says 2", kb_problem_bytes(&f.p));
    f.p.bytes = 0;
    KBT_CHECK(kb_problem_bytes(&f.p) == (double)kb_problem_resident_bytes(&f.p), "default bytes %g",
              kb_problem_bytes(&f.p));
    print_message("validate: the good descriptor passes; %zu malformed variants fail naming the field\n",
                  sizeof bad_cases / sizeof bad_cases[0]);
}

static void test_bytes(void **state)
{
    (void)state;
    fixture f;
    make_good(&f);
    const uint64_t want_in[NIN] = {4096ull * 393216 * 4, 16 * 3, 64 * 27 * 4, 128 * 8, 8};
    const uint64_t want_out[NOUT] = {4096ull * 393216 * 4, 2};
    uint64_t total = 0;
    for (int i = 0; i < NIN; i++) {
        KBT_CHECK(kb_spec_bytes(&f.in[i]) == want_in[i], "%s: %llu bytes, want %llu", f.in[i].name,
                  (unsigned long long)kb_spec_bytes(&f.in[i]), (unsigned long long)want_in[i]);
        total += want_in[i];
    }
    for (int i = 0; i < NOUT; i++) {
        KBT_CHECK(kb_spec_bytes(&f.out[i]) == want_out[i], "%s: %llu bytes", f.out[i].name,
                  (unsigned long long)kb_spec_bytes(&f.out[i]));
        total += want_out[i];
    }
    KBT_CHECK(kb_problem_resident_bytes(&f.p) == total, "resident %llu, want %llu",
              (unsigned long long)kb_problem_resident_bytes(&f.p), (unsigned long long)total);
    KBT_CHECK(total == 12884909882ull, "total %llu", (unsigned long long)total);
    print_message("bytes: 6 GiB fp32 x 2, bool 16x3, kaiming 64x3x3x3, int64 128, f64 scalar, bf16 scalar = %llu\n",
                  (unsigned long long)total);
}

/* ---- loading ---------------------------------------------------------------------------------- */

static const char *valid_src =
    "#include <kb/problem.h>\n"
    "static int reference(kb_ctx *c, const kb_args *a) { (void)c; (void)a; return 0; }\n"
    "static const kb_tensor_spec in[] = {{\"x\", KB_F32, KB_SHAPE(4, 5), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0}};\n"
    "static const kb_tensor_spec out[] = {{\"y\", KB_F32, KB_SHAPE(4, 5), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 0}};\n"
    "KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {KB_ABI_VERSION, \"level1/998_loaded\", \"Loaded\",\n"
    "    1, in, 1, out, 20, 160, 0, reference};\n";

static const char *invalid_src =
    "#include <kb/problem.h>\n"
    "static int reference(kb_ctx *c, const kb_args *a) { (void)c; (void)a; return 0; }\n"
    "static const kb_tensor_spec in[] = {{\"w\", KB_F32, KB_SHAPE(4, 5), KB_ROLE_PARAM, {KB_GEN_KAIMING_UNIFORM, 0, 0}, 0}};\n"
    "static const kb_tensor_spec out[] = {{\"y\", KB_F32, KB_SHAPE(4, 5), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 0}};\n"
    "KB_PROBLEM_EXPORT const kb_problem kb_problem_descriptor = {KB_ABI_VERSION, \"level1/997_bad\", \"Bad\",\n"
    "    1, in, 1, out, 20, 160, 0, reference};\n";

static const char *nodesc_src = "int not_a_problem(void) { return 1; }\n";

static int build_so(const char *dir, const char *name, const char *src, char *so, size_t len)
{
    char c[4300];
    snprintf(c, sizeof c, "%s/%s.c", dir, name);
    snprintf(so, len, "%s/%s.so", dir, name);
    if (kbt_write_text(c, src) != 0)
        return -1;
    char *argv[] = {"gcc", "-std=c11", "-shared", "-fPIC", "-Iinclude", "-I/usr/local/cuda/include", "-o", so, c, NULL};
    kb_cmd_result res;
    kb_err err = {0};
    if (kb_run_cmd(argv, 60, 1 << 16, &res, &err) != 0)
        return -1;
    int ok = res.exited && res.exit_status == 0;
    if (!ok)
        print_error("gcc %s:\n%s\n", name, res.output);
    kb_cmd_result_free(&res);
    return ok ? 0 : -1;
}

/* ---- a network's tensor list (kb/net.h) --------------------------------------------------------- */

/* a two-block residual net, as its __init__ creates it: conv1, bn1, layer1.{0,1}.{conv1,bn1,conv2,bn2},
 * layer1.0.downsample.{0,1}, fc; plus an RNN and a tensor attribute h0 */
static void describe_net(kb_net *n)
{
    kb_net_conv2d(n, "conv1", 3, 8, 3, 0);
    kb_net_batchnorm(n, "bn1", 8);
    for (int b = 0; b < 2; b++) {
        kb_net_push(n, "layer1.%d", b);
        kb_net_conv2d(n, "conv1", b ? 16 : 8, 16, 3, 0);
        kb_net_batchnorm(n, "bn1", 16);
        kb_net_conv2d(n, "conv2", 16, 16, 3, 0);
        kb_net_batchnorm(n, "bn2", 16);
        if (b == 0) {
            kb_net_push(n, "downsample");
            kb_net_conv2d(n, "0", 8, 16, 1, 0);
            kb_net_batchnorm(n, "1", 16);
            kb_net_pop(n);
        }
        kb_net_pop(n);
    }
    kb_net_linear(n, "fc", 16, 10, 1);
    kb_net_rnn(n, "lstm", 4, 10, 32, 2, 1, 1);
    kb_net_state(n, "h0", KB_F32, KB_NET_DIMS(4, 2, 32), {KB_GEN_NORMAL, 0, 1});
}

static void describe_open_scope(kb_net *n)
{
    kb_net_push(n, "block");
    kb_net_linear(n, "fc", 4, 4, 1);
}

static void describe_input_in_scope(kb_net *n)
{
    kb_net_push(n, "block");
    kb_net_input(n, "x", KB_F32, KB_NET_DIMS(4), {KB_GEN_RAND, 0, 0});
    kb_net_pop(n);
}

static void describe_bad_groups(kb_net *n) { kb_net_conv2d_g(n, "dw", 6, 8, 3, 4, 0); }

static const kb_tensor_spec net_x[] = {{"x", KB_F32, KB_SHAPE(2, 3, 16, 16), KB_ROLE_INPUT, {KB_GEN_RAND, 0, 0}, 0}};
static const kb_tensor_spec net_y[] = {{"y", KB_F32, KB_SHAPE(2, 10), KB_ROLE_OUTPUT, {KB_GEN_ZEROS, 0, 0}, 0}};

static void test_describe(void **state)
{
    (void)state;
    kb_problem p = {KB_ABI_VERSION, "level3/999_net", "Net", 1, net_x, 1, net_y, 1.0, 0, 0, ref_ok, NULL, describe_net};
    kb_err err = {0};
    const kb_problem *q = kb_problem_expand(&p, &err);
    KBT_CHECK(q && q != &p, "expand: %s", err.msg);
    KBT_CHECK(kb_problem_validate(q, &err) == 0, "the expanded net fails validation: %s", err.msg);
    /* x; 20 parameters of the conv net + 16 of the LSTM (2 layers x 2 directions x 4); 6 BNs x 3 buffers + h0 */
    uint32_t n_in = 0, n_par = 0, n_st = 0;
    for (uint32_t i = 0; i < q->n_inputs; i++) {
        kb_role r = q->inputs[i].role;
        n_in += r == KB_ROLE_INPUT;
        n_par += r == KB_ROLE_PARAM;
        n_st += r == KB_ROLE_STATE;
    }
    KBT_CHECK(n_in == 1 && n_par == 20 + 16 && n_st == 6 * 3 + 1, "inputs %u, parameters %u, state %u", n_in, n_par,
              n_st);
    /* named_parameters()' order: creation order, the submodules' after their parent's own */
    const char *want[] = {"x", "conv1.weight", "bn1.weight", "bn1.bias", "layer1.0.conv1.weight", "layer1.0.bn1.weight",
                          "layer1.0.bn1.bias", "layer1.0.conv2.weight", "layer1.0.bn2.weight", "layer1.0.bn2.bias",
                          "layer1.0.downsample.0.weight", "layer1.0.downsample.1.weight", "layer1.0.downsample.1.bias",
                          "layer1.1.conv1.weight"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        KBT_CHECK(!strcmp(q->inputs[i].name, want[i]), "tensor %zu is %s, want %s", i, q->inputs[i].name, want[i]);
    const kb_tensor_spec *first_state = &q->inputs[1 + n_par];
    KBT_CHECK(!strcmp(first_state->name, "bn1.running_mean") && first_state->role == KB_ROLE_STATE,
              "the first state is %s", first_state->name);
    const kb_tensor_spec *nbt = &q->inputs[1 + n_par + 2];
    KBT_CHECK(!strcmp(nbt->name, "bn1.num_batches_tracked") && nbt->dtype == KB_I64 && nbt->ndim == 0,
              "%s: dtype %d ndim %d", nbt->name, nbt->dtype, nbt->ndim);
    const kb_tensor_spec *last = &q->inputs[q->n_inputs - 1];
    KBT_CHECK(!strcmp(last->name, "h0") && last->gen.kind == KB_GEN_NORMAL, "the last tensor is %s", last->name);
    /* shapes and PyTorch's initialisers */
    const kb_tensor_spec *ds = &q->inputs[10], *w1 = &q->inputs[13], *fcb = NULL, *rev = NULL;
    for (uint32_t i = 0; i < q->n_inputs; i++) {
        if (!strcmp(q->inputs[i].name, "fc.bias"))
            fcb = &q->inputs[i];
        if (!strcmp(q->inputs[i].name, "lstm.weight_ih_l1_reverse"))
            rev = &q->inputs[i];
    }
    KBT_CHECK(ds->ndim == 4 && ds->shape[0] == 16 && ds->shape[1] == 8 && ds->shape[2] == 1 &&
                  ds->gen.kind == KB_GEN_KAIMING_UNIFORM && ds->gen.a == 8,
              "%s: (%lld, %lld, %lld), fan_in %g", ds->name, (long long)ds->shape[0], (long long)ds->shape[1],
              (long long)ds->shape[2], ds->gen.a);
    KBT_CHECK(w1->shape[1] == 16 && w1->gen.a == 16 * 9, "layer1.1.conv1: in %lld fan_in %g", (long long)w1->shape[1],
              w1->gen.a);
    KBT_CHECK(fcb && fcb->ndim == 1 && fcb->shape[0] == 10 && fcb->gen.a == 16, "fc.bias");
    /* layer 1 of a bidirectional LSTM reads both directions of layer 0: (4*32, 2*32), U(+-1/sqrt(32)) */
    KBT_CHECK(rev && rev->shape[0] == 128 && rev->shape[1] == 64 && rev->gen.kind == KB_GEN_UNIFORM &&
                  fabs(rev->gen.b - 1 / sqrt(32.0)) < 1e-15,
              "lstm.weight_ih_l1_reverse");
    print_message("describe: %u tensors (1 argument, %u parameters, %u state) in named_parameters()/named_buffers() order\n",
                  q->n_inputs, n_par, n_st);
    /* describe()'s errors refuse the problem, naming what went wrong */
    struct {
        void (*fn)(kb_net *);
        const char *needle;
    } bad[] = {{describe_open_scope, "left 1 submodule scope(s) open (block.)"},
               {describe_input_in_scope, "x: a forward() argument belongs to no submodule"},
               {describe_bad_groups, "dw: 6 and 8 channels do not split into 4 groups"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p.describe = bad[i].fn;
        memset(&err, 0, sizeof err);
        KBT_CHECK(kb_problem_expand(&p, &err) == NULL && strstr(err.msg, bad[i].needle) &&
                      strstr(err.msg, "level3/999_net"),
                  "bad describe %zu: %s", i, err.msg);
        print_message("  %s\n", err.msg);
    }
    /* a descriptor without describe() is itself */
    p.describe = NULL;
    KBT_CHECK(kb_problem_expand(&p, &err) == &p, "expand changed a static descriptor");
}

static void test_load(void **state)
{
    (void)state;
    if (!kb_file_exists("include/kb/problem.h") || !kb_file_exists("/usr/local/cuda/include/cuda_runtime_api.h")) {
        print_message("include/kb/problem.h or the CUDA headers not found (run from the repository root): skipped\n");
        skip();
    }
    char *dir = kbt_tmpdir("problem");
    assert_non_null(dir);
    char ok_so[4300], bad_so[4300], none_so[4300], missing[4300];
    assert_int_equal(build_so(dir, "valid", valid_src, ok_so, sizeof ok_so), 0);
    assert_int_equal(build_so(dir, "invalid", invalid_src, bad_so, sizeof bad_so), 0);
    assert_int_equal(build_so(dir, "nodesc", nodesc_src, none_so, sizeof none_so), 0);
    snprintf(missing, sizeof missing, "%s/missing.so", dir);

    void *h = NULL;
    kb_err err = {0};
    const kb_problem *p = kb_problem_load(ok_so, &h, &err);
    KBT_CHECK(p != NULL, "valid problem: %s", err.msg);
    KBT_CHECK(!strcmp(p->id, "level1/998_loaded") && p->n_inputs == 1 && kb_problem_resident_bytes(p) == 160,
              "loaded descriptor: id %s", p->id);

    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_problem_load(missing, &h, &err) == NULL, "loaded a missing file");
    KBT_CHECK(err.code == KB_EXIT_MISSING, "missing: code %d", err.code);
    KBT_MSG_HAS(err.msg, "make problems");
    print_message("missing: %s\n", err.msg);

    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_problem_load(none_so, &h, &err) == NULL, "loaded an object without a descriptor");
    KBT_MSG_HAS(err.msg, KB_PROBLEM_SYMBOL);
    print_message("no descriptor: %s\n", err.msg);

    memset(&err, 0, sizeof err);
    KBT_CHECK(kb_problem_load(bad_so, &h, &err) == NULL, "loaded an invalid descriptor");
    KBT_MSG_HAS(err.msg, "level1/997_bad");
    KBT_MSG_HAS(err.msg, "fan_in");
    print_message("invalid: %s\n", err.msg);
    kbt_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests_name("problem", tests, NULL, NULL);
}
