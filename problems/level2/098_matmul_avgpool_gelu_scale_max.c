/*
 * level2/098_matmul_avgpool_gelu_scale_max -- KernelBench L2/98: x = matmul(x);
 * x = avg_pool(x.unsqueeze(1)).squeeze(1); x = gelu(x) * 2.0; return torch.max(x, dim=1).values,
 * matmul = nn.Linear(8192, 8192), avg_pool = nn.AvgPool1d(16) (stride 16), on x (1024, 8192)
 * fp32 -> (1024,).
 *
 * Eager PyTorch: addmm (one cuBLAS(Lt) GEMM with the bias epilogue, kb_linear); F.avg_pool1d is
 * avg_pool2d on the (1024, 1, 1, 8192) view, kernel (1, 16) (avg_pool2d_out_cuda_frame, a float
 * sum of 16 in window order then the division: kb_avg_pool1d) -> (1024, 1, 512); GELU (erf) of the
 * squeezed (1024, 512) view; the mul by a Python scalar; max.dim (values and int64 indices, the
 * indices freed with the named tuple). Each temporary is freed once the next op has read it.
 * Accuracy: terms = 8192 * 16 (the pool averages 16 GEMM outputs of 8192 terms; the max is exact).
 * Napkin math: 2 * 1024 * 8192 * 8192 = 1.37e11 FLOP: ~2.7 ms of FP32 (~50 TFLOP/s), ~0.4 ms of
 * TF32; the pool reads the 33.5 MB result once, the rest works on 2 MB. A submission may pool
 * the weight instead (16x fewer FLOPs: avg_pool of a linear map is linear), which eager does not.
 * Eager: 2.71 ms on an H100 (reference/kernelbench-problems.csv); 2.76 ms FP32, 0.39 ms TF32 on
 * the H200 (reference/pytorch-eager-h200.csv).
 */
#include "kb/ref.h"

enum { BATCH = 1024, IN = 8192, OUT = 8192, POOL = 16, POOLED = OUT / POOL };

static void reference(kb_ref *r)
{
    kb_tensor l = kb_linear(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "matmul.weight"), kb_arg(r, "matmul.bias"));
    kb_tensor p = kb_avg_pool1d(r, KB_NEW, kb_unsqueeze(r, l, 1), POOL, 0 /* stride=None */, 0, 0, 1);
    kb_drop(r, l);
    kb_tensor e = kb_gelu(r, KB_NEW, kb_squeeze(r, p, 1));
    kb_drop(r, p);
    kb_tensor s = kb_muls(r, KB_NEW, e, 2.0); /* scale_factor */
    kb_drop(r, e);
    kb_tensor idx = KB_EMPTY(r, KB_I64, BATCH);
    kb_max_dim(r, kb_arg(r, "y"), idx, s, 1, 0);
    kb_drop(r, idx);
}

KB_PROBLEM(.title = "Matmul AvgPool GELU Scale Max",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, IN), KB_RAND),
                     KB_PARAM("matmul.weight", KB_F32, KB_DIMS(OUT, IN), KB_KAIMING(IN)),
                     KB_PARAM("matmul.bias", KB_F32, KB_DIMS(OUT), KB_KAIMING(IN))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH), .terms = (int64_t)IN * POOL)),
           /* GEMM; bias and the pool's add per GEMM output; gelu, mul, max per pooled value */
           .flops = 2.0 * BATCH * OUT * IN + 2.0 * BATCH * OUT + 3.0 * BATCH * POOLED)
