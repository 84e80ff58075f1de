# demo-kernelbench, level1/057_conv_transpose2d, sample s0 (KernelBench format: ModelNew + load_inline).
# conv_transpose2d 3x3, stride 1, no bias: direct convolution with the flipped kernel, exact FP32.
# PORT of submissions/demo-naive/level1/057_conv_transpose2d/s0.cu: the same __global__ kernel code (copied verbatim, with
# its helpers and constants) and the same launch configuration (grid, block, dynamic shared
# memory, kernel attributes); only the torch::Tensor launcher around it is new (it replaces
# kb_forward: TORCH_CHECKs instead of return 1, torch::empty* instead of harness outputs and
# cudaMallocAsync scratch). The same kernel is timed through both submission kinds; the two
# times must agree within 2%.
# Stream: like most real files, every launch uses <<<grid, block>>> on the legacy default stream
# (stream 0); scratch and outputs come from torch's caching allocator.
# Expected: standard pass, paper fail ('fails D2': exact FP32 against the paper's TF32 cuDNN reference,
# the paper oracle's known false rejection), strict pass (as demo-naive's manifest says for s0.cu).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <cuda_runtime.h>

#define KS 3                  /* kernel size */
#define TW 32                 /* output tile width */
#define TH 8                  /* output tile height */
#define CO_T 32               /* output channels per block */
#define CI_T 8                /* input channels staged per step */
#define PX 4                  /* adjacent output pixels per thread */
#define CPT 8                 /* output channels per thread */
#define IN_H (TH + KS - 1)    /* staged input rows: 10 */
#define HALO (KS - 1)         /* the patch starts HALO rows/columns before the tile */
#define IN_W (TW + KS - 1)    /* staged input columns: 34 */
#define SP_THREADS ((TW / PX) * TH) /* 64 threads cover the spatial tile */
#define THREADS (SP_THREADS * (CO_T / CPT)) /* 256 */

static __global__ void __launch_bounds__(THREADS)
conv_transpose2d_3x3(const float *__restrict__ x, const float *__restrict__ w, int64_t CI, int64_t H, int64_t W, int64_t CO,
           int64_t OH, int64_t OW, float *__restrict__ y)
{
    __shared__ float s_in[CI_T][IN_H][IN_W];
    __shared__ __align__(16) float s_w[CI_T][KS * KS][CO_T];

    const int64_t co_blocks = (CO + CO_T - 1) / CO_T;
    const int64_t n = blockIdx.z / co_blocks;
    const int64_t co0 = (blockIdx.z % co_blocks) * CO_T;
    const int64_t oy0 = (int64_t)blockIdx.y * TH;
    const int64_t ox0 = (int64_t)blockIdx.x * TW;

    /* A warp is 32 spatial threads of one channel group, so its weight reads are broadcasts. */
    const int tid = threadIdx.x;
    const int sp = tid % SP_THREADS, cg = tid / SP_THREADS;
    const int tx = sp % (TW / PX), ty = sp / (TW / PX);

    float acc[CPT][PX] = {};

    for (int64_t ci0 = 0; ci0 < CI; ci0 += CI_T) {
        /* Input patch rows oy0-2 .. oy0+IN_H-3, columns ox0-2 .. ox0+IN_W-3; zero outside. */
        for (int idx = tid; idx < CI_T * IN_H * IN_W; idx += THREADS) {
            const int c = idx / (IN_H * IN_W), rem = idx % (IN_H * IN_W);
            const int r = rem / IN_W, q = rem % IN_W;
            const int64_t gi = ci0 + c, iy = oy0 - HALO + r, ix = ox0 - HALO + q;
            const bool inside = gi < CI && iy >= 0 && iy < H && ix >= 0 && ix < W;
            s_in[c][r][q] = inside ? x[((n * CI + gi) * H + iy) * W + ix] : 0.0f;
        }
        /* Weights (ci, co, ky, kx) of ci0 .. ci0+CI_T-1, co0 .. co0+CO_T-1, read in memory order
         * and flipped: tap k = 3*fy+fx takes weight[ci,co,2-fy,2-fx], at offset 8-k of the 3x3. */
        for (int idx = tid; idx < CI_T * CO_T * KS * KS; idx += THREADS) {
            const int c = idx / (CO_T * KS * KS), rem = idx % (CO_T * KS * KS);
            const int col = rem / (KS * KS), k = rem % (KS * KS);
            const int64_t co = co0 + col, gi = ci0 + c;
            s_w[c][KS * KS - 1 - k][col] = (co < CO && gi < CI) ? w[(gi * CO + co) * (KS * KS) + k] : 0.0f;
        }
        __syncthreads();

        for (int c = 0; c < CI_T; c++) {
#pragma unroll
            for (int ky = 0; ky < KS; ky++) {
                float in[PX + KS - 1];
#pragma unroll
                for (int q = 0; q < PX + KS - 1; q++)
                    in[q] = s_in[c][ty + ky][tx * PX + q];
#pragma unroll
                for (int kx = 0; kx < KS; kx++) {
                    const float4 w0 = *reinterpret_cast<const float4 *>(&s_w[c][ky * KS + kx][cg * CPT]);
                    const float4 w1 = *reinterpret_cast<const float4 *>(&s_w[c][ky * KS + kx][cg * CPT + 4]);
                    const float wv[CPT] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
#pragma unroll
                    for (int o = 0; o < CPT; o++)
#pragma unroll
                        for (int p = 0; p < PX; p++)
                            acc[o][p] = fmaf(in[p + kx], wv[o], acc[o][p]);
                }
            }
        }
        __syncthreads(); /* the next step overwrites the staged patch and weights */
    }

    const int64_t oy = oy0 + ty;
#pragma unroll
    for (int o = 0; o < CPT; o++) {
        const int64_t co = co0 + cg * CPT + o;
#pragma unroll
        for (int p = 0; p < PX; p++) {
            const int64_t ox = ox0 + tx * PX + p;
            if (oy < OH && ox < OW && co < CO)
                y[((n * CO + co) * OH + oy) * OW + ox] = acc[o][p];
        }
    }
}

torch::Tensor conv_transpose2d_forward(torch::Tensor x, torch::Tensor w)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(w.is_cuda(), "w must be a CUDA tensor");
    TORCH_CHECK(w.scalar_type() == torch::kFloat32, "w must be float32");
    TORCH_CHECK(w.is_contiguous(), "w must be contiguous");
    TORCH_CHECK(x.dim() == 4 && w.dim() == 4, "x and weight must be 4-D");
    const int64_t N = x.size(0), CI = x.size(1), H = x.size(2), W = x.size(3);
    const int64_t CO = w.size(1), OH = H + KS - 1, OW = W + KS - 1;
    TORCH_CHECK(w.size(0) == CI && w.size(2) == KS && w.size(3) == KS, "weight must be (CI, CO, 3, 3)");
    TORCH_CHECK(N > 0 && CI > 0 && CO > 0 && OH > 0 && OW > 0, "bad shape");
    const int64_t gx = (OW + TW - 1) / TW, gy = (OH + TH - 1) / TH, gz = N * ((CO + CO_T - 1) / CO_T);
    TORCH_CHECK(gx <= 0x7fffffff && gy <= 65535 && gz <= 65535, "grid too large"); /* grid limits */
    auto y = torch::empty({N, CO, OH, OW}, x.options());

    dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gz);
    conv_transpose2d_3x3<<<grid, THREADS>>>(x.data_ptr<float>(), w.data_ptr<float>(), CI, H, W, CO, OH, OW,
                                            y.data_ptr<float>());
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "conv_transpose2d_3x3 launch failed: ", cudaGetErrorString(err));
    }
    return y;
}
"""

cpp_source = "torch::Tensor conv_transpose2d_forward(torch::Tensor x, torch::Tensor w);"

ext = load_inline(
    name="kb_demo_conv_transpose2d_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["conv_transpose2d_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, output_padding: int = 0, groups: int = 1, bias: bool = False):
        super().__init__()
        if kernel_size != 3 or stride != 1 or padding != 0 or output_padding != 0 or groups != 1 or bias:
            raise ValueError("this kernel is a 3x3, stride 1, unpadded, ungrouped transposed convolution without bias")
        # Same submodule as the problem's Model: the parameter is conv_transpose2d.weight, (CI, CO, 3, 3).
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride,
                                                   padding=padding, output_padding=output_padding,
                                                   groups=groups, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.conv_transpose2d_forward(x, self.conv_transpose2d.weight)
