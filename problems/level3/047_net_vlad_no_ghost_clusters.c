/*
 * level3/047_net_vlad_no_ghost_clusters -- KernelBench L3/47: NetVladNoGhostClusters, NetVLAD
 * pooling of x (2048, 100, 512) fp32 (B x N x D) into (2048, 8192) (B x DK) with K = 16 clusters
 * and no ghost clusters. K = 16 is the paper's file (upstream KernelBench has 32; its H100 times
 * in the CSV were measured with 32). Training mode: BatchNorm1d(16) normalises with the batch
 * statistics and updates its running statistics (module state).
 *
 * Eager PyTorch, per op (B = 2048, N = 100, D = 512, K = 16):
 *   x.view(BN, D) @ clusters (D, K)       torch.matmul 2-D x 2-D: at::mm, one cublasSgemm (kb_matmul)
 *   self.batch_norm(assignment)           num_batches_tracked.add_(1), then native batch_norm_cuda
 *                                         (a 2-D input is not cuDNN's: it wants >= 3 dims), the
 *                                         channels-last kernels for (BN, K) (kb_batch_norm_module)
 *   F.softmax(dim=1)                      the last dim of a contiguous (BN, K): warp softmax
 *   [:, :K], view(B, N, K)                views (G = 0: the whole tensor, still contiguous)
 *   th.sum(dim=1, keepdim=True)           reduce_kernel over N (kb_sum)
 *   a_sum * clusters2                     (B, 1, K) * (1, D, K) -> (B, D, K) contiguous (kb_mul)
 *   matmul(assignment^T, x.view(B,N,D))   3-D x 3-D: reshape keeps both views, one
 *                                         cublasSgemmStridedBatched with the transposed operand
 *                                         as a transpose flag (kb_matmul)
 *   vlad.transpose(1, 2) - a              TensorIterator lays the result out as its first
 *                                         operand: (B, D, K) with strides (DK, 1, D), i.e. the
 *                                         bytes of a contiguous (B, K, D). The reference works on
 *                                         that (B, K, D) tensor, so the kernels and the bytes are
 *                                         eager's: vlad (B, K, D) - a.transpose(1, 2)
 *   F.normalize(vlad) (dim 1 = D)         x.norm(2, 1, keepdim) (a reduction over the unit-stride
 *                                         D: dim 2 of the (B, K, D) tensor), clamp_min(1e-12),
 *                                         expand_as, div
 *   reshape(-1, K * D)                    not viewable (the (B, D, K) tensor is not contiguous):
 *                                         clone into a contiguous (B, D, K) (kb_copy of the
 *                                         transposed view)
 *   F.normalize (dim 1 = DK)              norm, clamp_min, div into the output
 * Lifetimes: each reassigned name frees its old tensor once the new one exists; assignment
 * (the softmax output, through its views), a_sum and a are locals, alive until forward()
 * returns; inside F.normalize the norm dies after clamp_min, the clamped norm when it returns.
 * Napkin math: 2 * B * N * D * K * 2 = 6.7e9 FLOP (the mm and the bmm), ~0.1 ms of FP32; the
 * 419 MB input is read twice (mm, bmm) and the (B, D, K) temporaries are 67 MB each: ~0.3 ms
 * of traffic at ~4 TB/s; memory- and launch-bound. Eager: 0.87 ms FP32, 0.76 ms TF32 (warm
 * medians) on the H200 (reference/pytorch-eager-h200.csv); the CSV's H100 figure (1.64 ms,
 * reference/kernelbench-problems.csv) is upstream's K = 32.
 */
#include "kb/ref.h"

enum { B = 2048, N = 100, D = 512, K = 16 };
#define INIT_SC 0.044194173824159216 /* 1 / sqrt(feature_size) */

static kb_tensor l2_normalize(kb_ref *r, kb_tensor out, kb_tensor v, int dim)
{
    /* F.normalize(v, p=2, dim): v / v.norm(2, dim, keepdim=True).clamp_min(1e-12).expand_as(v) */
    kb_tensor n = kb_norm(r, KB_NEW, v, 2.0, dim, 1);
    kb_tensor c = kb_clamp_min(r, KB_NEW, n, 1e-12);
    kb_drop(r, n);
    kb_tensor y = kb_div(r, out, v, kb_expand(r, c, v.ndim, v.shape));
    kb_drop(r, c);
    return y;
}

static void reference(kb_ref *r)
{
    kb_tensor x = kb_arg(r, "x");
    kb_tensor a0 = kb_matmul(r, KB_NEW, KB_VIEW(r, x, B * N, D), kb_arg(r, "clusters"));
    kb_tensor a1 = kb_batch_norm_module(r, KB_NEW, a0, "batch_norm");
    kb_drop(r, a0);
    kb_tensor assignment = kb_softmax(r, KB_NEW, a1, 1);
    kb_drop(r, a1);
    kb_tensor asg = KB_VIEW(r, kb_narrow(r, assignment, 1, 0, K), B, N, K);
    kb_tensor a_sum = kb_sum(r, KB_NEW, asg, 1, 1);                 /* (B, 1, K) */
    kb_tensor a = kb_mul(r, KB_NEW, a_sum, kb_arg(r, "clusters2")); /* (B, D, K) */
    kb_tensor vlad = kb_matmul(r, KB_NEW, kb_transpose(r, asg, 1, 2), KB_VIEW(r, x, B, N, D)); /* (B, K, D) */
    /* vlad.transpose(1, 2) - a, laid out as eager lays it out: a (B, K, D) tensor */
    kb_tensor v2 = kb_sub(r, KB_NEW, vlad, kb_transpose(r, a, 1, 2));
    kb_drop(r, vlad);
    kb_tensor v3 = l2_normalize(r, KB_NEW, v2, 2); /* over D */
    kb_drop(r, v2);
    kb_tensor v4 = kb_copy(r, KB_NEW, kb_transpose(r, v3, 1, 2)); /* reshape's clone: (B, D, K) */
    kb_drop(r, v3);
    l2_normalize(r, kb_arg(r, "y"), KB_VIEW(r, v4, B, D * K), 1);
    kb_drop(r, v4);
}

KB_PROBLEM(.title = "NetVladNoGhostClusters",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(B, N, D), KB_RAND),
                     KB_PARAM("clusters", KB_F32, KB_DIMS(D, K), KB_NORMAL(0, INIT_SC)),
                     KB_PARAM("clusters2", KB_F32, KB_DIMS(1, D, K), KB_NORMAL(0, INIT_SC)),
                     KB_PARAM("batch_norm.weight", KB_F32, KB_DIMS(K), KB_ONES),
                     KB_PARAM("batch_norm.bias", KB_F32, KB_DIMS(K), KB_ZEROS),
                     KB_STATE("batch_norm.running_mean", KB_F32, KB_DIMS(K), KB_ZEROS),
                     KB_STATE("batch_norm.running_var", KB_F32, KB_DIMS(K), KB_ONES),
                     KB_STATE("batch_norm.num_batches_tracked", KB_I64, KB_SCALAR_DIMS, KB_ZEROS)),
           /* terms: the last normalisation's sum of D * K squares, the largest single reduction
            * feeding the output (the mm sums D = 512, the bmm N = 100) */
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(B, D * K), .terms = D * K)),
           /* mm and bmm; the rest (softmax, norms, BatchNorm, sub, mul) is O(B * N * K + B * D * K) */
           .flops = 2.0 * 2.0 * B * N * D * K + 10.0 * B * N * K + 8.0 * B * D * K,
           .flags = KB_PROB_CENTERED | KB_PROB_INPUT_BLIND) /* the paper's prompt hides the inputs (docs/prompts.md) */
