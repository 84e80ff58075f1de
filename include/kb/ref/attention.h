/*
 * kb/ref/attention.h -- the tensor-level attention ops (ops/attention.cu): see kb/ref.h for the
 * conventions.
 *
 * F.scaled_dot_product_attention on fp32 CUDA tensors: eager PyTorch 2.11 picks the
 * memory-efficient (xformers / CUTLASS) kernel -- flash and cuDNN attention take fp16/bf16 only --
 * and that kernel runs both products on tensor cores in 3xTF32 (OpMultiplyAddFastF32), whatever
 * the TF32 switches say. We cannot call it (it is not a public library); ops/attention.cu
 * computes softmax(scale Q K^T) V as cuBLAS strided-batched GEMM, softmax, cuBLAS GEMM: TF32
 * tensor cores in the timed math modes, exact FP32 when both TF32 switches are off (the strict
 * reference). See ops/attention.cu for the napkin math and the differences.
 */
#ifndef KB_REF_ATTENTION_H
#define KB_REF_ATTENTION_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* The raw op: o[b] = softmax(scale * q[b] @ k[b]^T) @ v[b] for b < batch, row-major
 * q [batch, Lq, D], k [batch, Lk, D], v [batch, Lk, Dv], o [batch, Lq, Dv]; no mask, no dropout.
 * The [batch, Lq, Lk] scores live in counted scratch for the duration of the call. */
int kb_op_sdpa(kb_ctx *ctx, const float *q, const float *k, const float *v, float *o, int64_t batch,
               int64_t Lq, int64_t Lk, int64_t D, int64_t Dv, double scale);

/* F.scaled_dot_product_attention(q, k, v) (attn_mask=None, dropout_p=0, is_causal=False,
 * scale=None -> 1/sqrt(D)): q [..., Lq, D], k [..., Lk, D], v [..., Lk, Dv] with the same leading
 * dimensions (no broadcasting); the result is [..., Lq, Dv]. */
kb_tensor kb_sdpa(kb_ref *r, kb_tensor out, kb_tensor q, kb_tensor k, kb_tensor v);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
