/*
 * level2/093_convtranspose2d_add_min_gelu_multiply -- KernelBench L2/93: x = conv_transpose(x);
 * x = x + 0.5; x = torch.min(x, torch.tensor(0.0, device=x.device)); x = gelu(x); x = x * 2.0,
 * with conv_transpose = nn.ConvTranspose2d(64, 128, 4, stride=2), on x (128, 64, 64, 64) fp32
 * -> (128, 128, 130, 130).
 *
 * Eager PyTorch: cudnn_convolution_transpose, one cuDNN v8 backward-data graph (TF32 allowed by
 * cudnn.allow_tf32) with its bias added by a second kernel, the scalar add; then
 * torch.tensor(0.0, device=x.device), a 0-d CUDA tensor, and at::minimum with it, a stride-0
 * broadcast operand (TensorIterator's strided path, not the CPU-scalar one); then F.gelu (erf)
 * and the scalar multiply. Each temporary is freed when the next op has read it. Deliberate
 * difference: eager makes the 0-d tensor by a blocking 4-byte host-to-device copy (the host
 * waits for the stream before it launches the minimum); the reference fills a 0-d temporary on
 * the stream instead: one tiny operation either way, no host wait. PyTorch's
 * kaiming init of a transposed weight takes fan_in from weight.size(1) * 4 * 4 = 2048.
 * Napkin math: 2 * 128*64*128 * 256*256 = 1.4e11 FLOP, ~0.34 ms at ~400 TFLOP/s TF32 (2.1 ms at
 * 67 TFLOP/s FP32); y is 1.1 GB, written by the conv, read and written by the bias add and the
 * four elementwise kernels: ~12.3 GB of traffic, ~2.9 ms at ~4.3 TB/s. Eager: 5.73 ms on an
 * H100 (reference/kernelbench-problems.csv), 4.57 ms on the H200
 * (reference/pytorch-eager-h200.csv). .terms: each output sums at most 64 input channels x 2 x 2
 * taps.
 * Flagged nondeterministic: cuDNN backward-data engines may accumulate split partial sums in a
 * run-dependent order, and PyTorch does not filter them (deterministic=False).
 */
#include "kb/ref.h"

enum { BATCH = 128, CIN = 64, COUT = 128, H = 64, W = 64, K = 4, S = 2,
       OH = (H - 1) * S + K, OW = (W - 1) * S + K, /* 130 */
       TAPS = 2 }; /* taps reaching an output per dim; without padding every (input, tap) pair lands inside */

static void reference(kb_ref *r)
{
    kb_tensor c = kb_conv_transpose(r, KB_NEW, kb_arg(r, "x"), kb_arg(r, "conv_transpose.weight"),
                                    kb_arg(r, "conv_transpose.bias"), KB_CONV_PARAMS(.stride = {S, S}));
    kb_tensor a = kb_adds(r, KB_NEW, c, 0.5);
    kb_drop(r, c);
    kb_tensor zero = kb_empty(r, KB_F32, 0, NULL); /* torch.tensor(0.0, device=x.device) */
    kb_fill(r, zero, 0.0);
    kb_tensor m = kb_minimum(r, KB_NEW, a, zero);
    kb_drop(r, zero);
    kb_drop(r, a);
    kb_tensor g = kb_gelu(r, KB_NEW, m);
    kb_drop(r, m);
    kb_muls(r, kb_arg(r, "y"), g, 2.0);
}

KB_PROBLEM(.title = "ConvTranspose2d Add Min GELU Multiply",
           KB_INPUTS(KB_INPUT("x", KB_F32, KB_DIMS(BATCH, CIN, H, W), KB_RAND),
                     KB_PARAM("conv_transpose.weight", KB_F32, KB_DIMS(CIN, COUT, K, K), KB_KAIMING(COUT * K * K)),
                     KB_PARAM("conv_transpose.bias", KB_F32, KB_DIMS(COUT), KB_KAIMING(COUT * K * K))),
           KB_OUTPUTS(KB_OUTPUT("y", KB_F32, KB_DIMS(BATCH, COUT, OH, OW), .terms = CIN * TAPS * TAPS)),
           .flags = KB_PROB_NONDETERMINISTIC,
           /* the transposed convolution, then one per element for its bias, add, min, gelu, multiply */
           .flops = 2.0 * BATCH * CIN * COUT * H * K * W * K + 5.0 * BATCH * COUT * OH * OW)
