/*
 * kb/ref/elementwise.h -- elementwise ops with PyTorch's broadcasting (ops/elementwise.cu).
 *
 * Each call is one kernel, as one eager op is one TensorIterator kernel: `x / (1 + x.abs())` is
 * kb_abs, kb_adds, kb_div, three launches, like eager. Shapes broadcast as in PyTorch (trailing
 * dimensions aligned; size-1 or missing dimensions repeat); the result has the broadcast shape
 * and the dtype of the first tensor operand (all float ops compute in float, PyTorch's opmath
 * for float). Operands may be strided views (kb_expand, kb_transpose); the result must be
 * contiguous (KB_NEW allocates it so). The result may alias an operand of the same shape
 * (in place, like x.mul_(2)).
 *
 * Scalars are double, rounded to float once (as PyTorch wraps a Python scalar into the float
 * op). kb_pows follows pow_tensor_scalar: exponent 2 -> x*x, 3 -> x*x*x, 0.5 -> sqrt,
 * -0.5 -> rsqrt, -1 -> 1/x, -2 -> 1/(x*x), 0 -> fill 1, 1 -> copy, else powf.
 * kb_divs is a * (1/s), as div_true_kernel_cuda does for a CPU-scalar divisor.
 */
#ifndef KB_REF_ELEMENTWISE_H
#define KB_REF_ELEMENTWISE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* tensor (op) tensor, broadcasting */
kb_tensor kb_add(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b);
kb_tensor kb_sub(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b);
kb_tensor kb_mul(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b); /* also float * bool -> float */
kb_tensor kb_div(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b);
kb_tensor kb_pow(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b);
kb_tensor kb_maximum(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b); /* NaN propagates */
kb_tensor kb_minimum(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b);
/* out = cond ? a : b, cond a KB_BOOL tensor (torch.where) */
kb_tensor kb_where(kb_ref *r, kb_tensor out, kb_tensor cond, kb_tensor a, kb_tensor b);

/* tensor (op) scalar */
kb_tensor kb_adds(kb_ref *r, kb_tensor out, kb_tensor a, double s);  /* a + s */
kb_tensor kb_subs(kb_ref *r, kb_tensor out, kb_tensor a, double s);  /* a - s */
kb_tensor kb_rsubs(kb_ref *r, kb_tensor out, double s, kb_tensor a); /* s - a */
kb_tensor kb_muls(kb_ref *r, kb_tensor out, kb_tensor a, double s);  /* a * s */
kb_tensor kb_divs(kb_ref *r, kb_tensor out, kb_tensor a, double s);  /* a / s (true division) */
kb_tensor kb_rdivs(kb_ref *r, kb_tensor out, double s, kb_tensor a); /* s / a */
kb_tensor kb_pows(kb_ref *r, kb_tensor out, kb_tensor a, double e);  /* a ** e */
/* torch.clamp(a, lo, hi); pass NAN for a missing bound (clamp_min / clamp_max). NaN stays NaN. */
kb_tensor kb_clamp(kb_ref *r, kb_tensor out, kb_tensor a, double lo, double hi);
kb_tensor kb_clamp_min(kb_ref *r, kb_tensor out, kb_tensor a, double lo); /* torch.clamp(a, min=lo), clamp_min */
kb_tensor kb_clamp_max(kb_ref *r, kb_tensor out, kb_tensor a, double hi); /* torch.clamp(a, max=hi), clamp_max */
/* comparisons with a scalar -> KB_BOOL */
kb_tensor kb_gts(kb_ref *r, kb_tensor out, kb_tensor a, double s); /* a > s */
kb_tensor kb_eqs(kb_ref *r, kb_tensor out, kb_tensor a, double s); /* a == s */
/* masked_fill with a scalar value; mask KB_BOOL, broadcasting to x's shape. out == x (same data):
 * x.masked_fill_(mask, v), masked_fill_kernel in place (one launch); otherwise x.masked_fill(mask,
 * v) as eager runs it: result = x.clone() (kb_copy into out, or a new tensor for KB_NEW), then
 * result.masked_fill_(mask, v) -- two launches. */
kb_tensor kb_masked_fill(kb_ref *r, kb_tensor out, kb_tensor x, kb_tensor mask, double value);

/* unary, PyTorch's formulas (ATen/native/cuda/ActivationXxxKernel.cu, UnaryOpsKernel.cu) */
kb_tensor kb_relu(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_leaky_relu(kb_ref *r, kb_tensor out, kb_tensor x, double negative_slope);
kb_tensor kb_sigmoid(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_tanh(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_gelu(kb_ref *r, kb_tensor out, kb_tensor x);      /* approximate='none' (erf) */
kb_tensor kb_gelu_tanh(kb_ref *r, kb_tensor out, kb_tensor x); /* approximate='tanh' */
kb_tensor kb_selu(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_elu(kb_ref *r, kb_tensor out, kb_tensor x, double alpha);
kb_tensor kb_hardsigmoid(kb_ref *r, kb_tensor out, kb_tensor x);
/* F.hardswish: x * min(max(x + 3, 0), 6) * (1/6), ActivationHardswishKernel.cu's product with the
 * float one_sixth (not a division by 6) */
kb_tensor kb_hardswish(kb_ref *r, kb_tensor out, kb_tensor x);
/* F.mish: x * tanh(log1p(exp(x))), ActivationMishKernel.cu */
kb_tensor kb_mish(kb_ref *r, kb_tensor out, kb_tensor x);
/* nn.Dropout / F.dropout(x, p, training): training != 0 and 0 < p < 1 is at::native_dropout's
 * fused_dropout_kernel(_vec) (Dropout.cu): a Philox keep mask with probability 1 - p, kept values
 * times (float)(1 / (1 - p)), the bool mask materialised in counted scratch (allocated before the
 * result) and dropped after the launch; x must be contiguous and the result may not alias it.
 * Where it differs: the Philox seed and offset are fixed (eager's come from the CUDA generator and
 * advance per call), so the mask is reproducible, never PyTorch's. training == 0 or p == 0 is the
 * identity (out = x when out is KB_NEW, else a copy into out); p == 1 is x * zeros({}) (a 0-d
 * fill, then the broadcast mul), as _dropout_impl. A problem whose output depends on the mask
 * cannot be compared with eager's element by element: the masks differ. */
kb_tensor kb_dropout(kb_ref *r, kb_tensor out, kb_tensor x, double p, int training);
/* Live dropout's check (docs/protocols.md, "Live dropout"). kb_row_mode_mask: out (one byte per
 * element, y's shape) = 1 where an element of y differs, bit for bit, from the most frequent value
 * of its row (the last dimension, at most 32768 elements; ties: the smallest pattern): after
 * dropout and a row-wise op such as softmax the dropped elements of a row share one value. Where
 * the row's mask cannot be read, its bytes also carry KB_MASK_UNREAD, which the harness's
 * statistics skip: where that value is a zero (it underflowed, and so did every kept element as
 * small; the replay drops the zeros, which changes nothing that underflowed) or not finite, and
 * where it fills more than half of the row (a flat row, as on tiny inputs: kept and dropped
 * elements are one value; KB_MASK_OWN then keeps the reference's own draw for that row, so a
 * flat output where the true one is not flat still differs from the reference).
 * kb_replay_dropout: the following kb_dropout calls of this context keep exactly the elements
 * whose mask byte has bit 0 set, bytes with KB_MASK_OWN excepted (mask: the dropout's input's
 * shape; p: its probability), until the harness clears it. */
#define KB_MASK_UNREAD 0x80
#define KB_MASK_OWN 0x40
kb_tensor kb_row_mode_mask(kb_ref *r, kb_tensor out, kb_tensor y);
void kb_replay_dropout(kb_ref *r, kb_tensor mask, double p);
kb_tensor kb_hardtanh(kb_ref *r, kb_tensor out, kb_tensor x, double min_val, double max_val);
kb_tensor kb_softplus(kb_ref *r, kb_tensor out, kb_tensor x, double beta, double threshold);
kb_tensor kb_abs(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_neg(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_exp(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_log(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_sqrt(kb_ref *r, kb_tensor out, kb_tensor x);
kb_tensor kb_rsqrt(kb_ref *r, kb_tensor out, kb_tensor x);

/* copies and fills */
kb_tensor kb_copy(kb_ref *r, kb_tensor out, kb_tensor x);     /* strided -> contiguous (x.contiguous()), or dtype cast (x.float()) */
kb_tensor kb_fill(kb_ref *r, kb_tensor out, double v);        /* out[:] = v (out must exist) */
/* a + s on an int64 / int32 tensor, in integers (may be in place): BatchNorm's
 * num_batches_tracked.add_(1), one elementwise launch as eager's */
kb_tensor kb_add_int(kb_ref *r, kb_tensor out, kb_tensor a, int64_t s);
kb_tensor kb_zeros_like(kb_ref *r, kb_tensor x);              /* torch.zeros_like */
/* torch.triu / torch.tril of the last two dims (diagonal 0): out = x with the other triangle zeroed */
kb_tensor kb_triu(kb_ref *r, kb_tensor out, kb_tensor x, int64_t diagonal);
kb_tensor kb_tril(kb_ref *r, kb_tensor out, kb_tensor x, int64_t diagonal);
/* torch.flip(x, [dim]) */
kb_tensor kb_flip(kb_ref *r, kb_tensor out, kb_tensor x, int dim);
/* torch.cat(xs[0 .. n-1], dim): cat_out_cuda (ATen/native/cuda/Shape.cu) as eager runs it. Two or
 * more inputs of at most 4 dimensions, the result and every input 32-bit indexable: parallel_cat,
 * one CatArrayBatchedCopy launch per batch of inputs (grid.y = the batch's inputs, grid.x over the
 * largest of them), in batches of 128 when every input is contiguous, else of 64 (strided
 * kernel, per-input sizes and strides). The kernel of a batch, with eager's flags (accumulated
 * over the batches so far): CatArrayBatchedCopy_vectorized (16-byte loads and stores over the
 * dimensions from `dim` on) when the result, every input and every input's slice along `dim`
 * are 16-byte multiples; else, every input 16-byte aligned and 2 to 8-byte elements,
 * CatArrayBatchedCopy_alignedK_contig (one 16-byte load, 8-byte for 2-byte elements, then element
 * stores); else CatArrayBatchedCopy_contig / CatArrayBatchedCopy (512 threads, 2 x SMs blocks).
 * One input, more than 4 dimensions or more than 2^31 elements: each input copy_'d into its
 * narrowed slice of the result (a cudaMemcpyAsync where both are contiguous, else the strided copy
 * kernel). 1-D empty inputs are skipped as eager's cat_should_skip_tensor. Not mirrored (the op
 * fails, saying so): inputs of different dtypes (eager promotes), and inputs that all have
 * channels-last strides (eager's result would be channels-last). */
kb_tensor kb_cat(kb_ref *r, kb_tensor out, const kb_tensor *xs, int n, int dim);
/* torch.cat([a, b], dim): kb_cat of two */
kb_tensor kb_cat2(kb_ref *r, kb_tensor out, kb_tensor a, kb_tensor b, int dim);
/* torch.diag(v) of a 1-d v: the [n, n] matrix with v on its diagonal (at::diag_embed: a zero
 * fill, then a strided copy onto the diagonal: two launches, as eager) */
kb_tensor kb_diag(kb_ref *r, kb_tensor out, kb_tensor v);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
