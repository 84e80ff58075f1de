/* pending.c -- ops declared for Level 2 whose implementations are being written: each fails the
 * scope with its name, so a problem that calls one builds, loads and matches its .py, and its
 * reference says what is missing. Each moves into its family's file when implemented. */
#include "kb/ref.h"

#define KB_PENDING(name) kb_ref_fail(r, "%s: not implemented yet", name)

kb_tensor kb_clamp_min(kb_ref *r, kb_tensor out, kb_tensor a, double lo) { (void)out, (void)a, (void)lo; KB_PENDING("kb_clamp_min"); return KB_NEW; }
kb_tensor kb_clamp_max(kb_ref *r, kb_tensor out, kb_tensor a, double hi) { (void)out, (void)a, (void)hi; KB_PENDING("kb_clamp_max"); return KB_NEW; }
kb_tensor kb_hardswish(kb_ref *r, kb_tensor out, kb_tensor x) { (void)out, (void)x; KB_PENDING("kb_hardswish"); return KB_NEW; }
kb_tensor kb_mish(kb_ref *r, kb_tensor out, kb_tensor x) { (void)out, (void)x; KB_PENDING("kb_mish"); return KB_NEW; }
kb_tensor kb_dropout(kb_ref *r, kb_tensor out, kb_tensor x, double p, int training) { (void)out, (void)x, (void)p, (void)training; KB_PENDING("kb_dropout"); return KB_NEW; }
kb_tensor kb_sum_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim) { (void)out, (void)x, (void)dims, (void)ndims, (void)keepdim; KB_PENDING("kb_sum_dims"); return KB_NEW; }
kb_tensor kb_mean_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim) { (void)out, (void)x, (void)dims, (void)ndims, (void)keepdim; KB_PENDING("kb_mean_dims"); return KB_NEW; }
kb_tensor kb_amax_dims(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim) { (void)out, (void)x, (void)dims, (void)ndims, (void)keepdim; KB_PENDING("kb_amax_dims"); return KB_NEW; }
kb_tensor kb_logsumexp(kb_ref *r, kb_tensor out, kb_tensor x, const int *dims, int ndims, int keepdim) { (void)out, (void)x, (void)dims, (void)ndims, (void)keepdim; KB_PENDING("kb_logsumexp"); return KB_NEW; }
kb_tensor kb_adaptive_avg_pool_nd(kb_ref *r, kb_tensor out, kb_tensor x, int nd, const int64_t *output_size) { (void)out, (void)x, (void)nd, (void)output_size; KB_PENDING("kb_adaptive_avg_pool_nd"); return KB_NEW; }
kb_tensor kb_linear(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor weight, kb_tensor bias) { (void)out, (void)x, (void)weight, (void)bias; KB_PENDING("kb_linear"); return KB_NEW; }
