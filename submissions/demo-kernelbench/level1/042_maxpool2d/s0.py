# demo-kernelbench, level1/042_maxpool2d, sample s0 (KernelBench format: ModelNew + load_inline).
# MaxPool2d(4, stride 1, padding 1): one warp streams a 32-row strip, window maxima by shuffles.
# PORT of submissions/demo-tuned/level1/042_maxpool2d/s0.cu: the same __global__ kernel code (copied verbatim, with
# its helpers and constants) and the same launch configuration (grid, block, dynamic shared
# memory, kernel attributes); only the torch::Tensor launcher around it is new (it replaces
# kb_forward: TORCH_CHECKs instead of return 1, torch::empty* instead of harness outputs and
# cudaMallocAsync scratch). The same kernel is timed through both submission kinds; the two
# times must agree within 2%.
# Stream: like most real files, every launch uses <<<grid, block>>> on the legacy default stream
# (stream 0); scratch and outputs come from torch's caching allocator.
# Expected: correct (standard pass, paper pass, strict pass): NaN propagates as in torch's max_pool2d.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>

#define KSIZE 4
#define STRIDE 1
#define PAD 1
#define DIL 1

#define G 4           /* float4 groups per lane: W = 128 * G */
#define WIDTH (128 * G)
#define RB 32         /* output rows per warp */
#define WPB 4         /* warps per block */

static __device__ __forceinline__ float maxnan(float m, float v) { return (v > m || v != v) ? v : m; }

static __global__ void __launch_bounds__(32 * WPB)
maxpool_rows(const float *__restrict__ x, int64_t H, int64_t OH, int64_t OW, int64_t strips, int64_t items,
             float *__restrict__ y)
{
    __shared__ __align__(16) float tbuf[WPB][WIDTH];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const int64_t item = (int64_t)blockIdx.x * WPB + wib;
    if (item >= items) /* whole warp leaves; no block-wide barrier is used below */
        return;
    const int64_t plane = item / strips, strip = item % strips;
    const int64_t oy0 = strip * RB;
    const int64_t oy1 = oy0 + RB < OH ? oy0 + RB : OH;
    const float *xp = x + plane * H * WIDTH;
    float *yp = y + plane * OH * OW;
    float *tb = tbuf[wib];
    const unsigned FULL = 0xffffffffu;

    float Hp[G][4], Pp[G][4], Ppp[G][4];
#pragma unroll
    for (int k = 0; k < G; k++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            Hp[k][j] = Pp[k][j] = Ppp[k][j] = -INFINITY;

    for (int64_t r = oy0 - PAD; r <= oy1 + 1; r++) {
        float4 v[G];
        if (r >= 0 && r < H) {
            const float4 *row = reinterpret_cast<const float4 *>(xp + r * WIDTH);
#pragma unroll
            for (int k = 0; k < G; k++)
                v[k] = __ldg(row + lane + 32 * k);
        } else {
#pragma unroll
            for (int k = 0; k < G; k++)
                v[k] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
        /* Horizontal: output column c = 128k + 4*lane + j covers input columns c-1 .. c+2. */
        float h[G][4];
#pragma unroll
        for (int k = 0; k < G; k++) {
            const float lw_in = __shfl_sync(FULL, v[k].w, (lane + 31) & 31);           /* lane-1, same group */
            const float lw_prev = __shfl_sync(FULL, v[k > 0 ? k - 1 : 0].w, 31);      /* lane 31, group k-1 */
            const float rx_in = __shfl_sync(FULL, v[k].x, (lane + 1) & 31);           /* lane+1, same group */
            const float ry_in = __shfl_sync(FULL, v[k].y, (lane + 1) & 31);
            const float rx_next = __shfl_sync(FULL, v[k < G - 1 ? k + 1 : k].x, 0);   /* lane 0, group k+1 */
            const float ry_next = __shfl_sync(FULL, v[k < G - 1 ? k + 1 : k].y, 0);
            const float left = lane > 0 ? lw_in : (k > 0 ? lw_prev : -INFINITY);       /* column -1: padding */
            const float rx = lane < 31 ? rx_in : (k < G - 1 ? rx_next : -INFINITY);    /* column W: padding */
            const float ry = lane < 31 ? ry_in : (k < G - 1 ? ry_next : -INFINITY);
            const float mxy = maxnan(v[k].x, v[k].y), mzw = maxnan(v[k].z, v[k].w);
            const float myz = maxnan(v[k].y, v[k].z);
            h[k][0] = maxnan(maxnan(left, v[k].x), myz);
            h[k][1] = maxnan(mxy, mzw);
            h[k][2] = maxnan(maxnan(myz, v[k].w), rx);
            h[k][3] = maxnan(mzw, maxnan(rx, ry));
        }
        /* Vertical: P(r) = max(H(r-1), H(r)); output row r-2 = max(P(r-2), P(r)). */
        float P[G][4];
#pragma unroll
        for (int k = 0; k < G; k++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                P[k][j] = maxnan(Hp[k][j], h[k][j]);
        const int64_t oy = r - 2;
        if (oy >= oy0 && oy < oy1) { /* warp-uniform */
#pragma unroll
            for (int k = 0; k < G; k++)
                *reinterpret_cast<float4 *>(tb + 128 * k + 4 * lane) =
                    make_float4(maxnan(Ppp[k][0], P[k][0]), maxnan(Ppp[k][1], P[k][1]), maxnan(Ppp[k][2], P[k][2]),
                                maxnan(Ppp[k][3], P[k][3]));
            __syncwarp();
            float *orow = yp + oy * OW;
#pragma unroll
            for (int q = 0; q < 4 * G; q++) {
                const int ox = 32 * q + lane;
                if (ox < OW)
                    __stcs(orow + ox, tb[ox]);
            }
            __syncwarp(); /* tb is rewritten for the next row */
        }
#pragma unroll
        for (int k = 0; k < G; k++)
#pragma unroll
            for (int j = 0; j < 4; j++) {
                Ppp[k][j] = Pp[k][j];
                Pp[k][j] = P[k][j];
                Hp[k][j] = h[k][j];
            }
    }
}

/* ---- Fallback for other shapes: demo-naive's 32x32 output tile with a 35x35 input patch. ---- */
#define TX 32
#define TY 8
#define OUT_TY 32
#define IN_TX (TX + KSIZE - 1)
#define IN_TY (OUT_TY + KSIZE - 1)

static __global__ void __launch_bounds__(TX * TY)
maxpool_tile(const float *__restrict__ x, int H, int W, int OH, int OW, float *__restrict__ y)
{
    __shared__ float tile[IN_TY][IN_TX];
    __shared__ float hmax[IN_TY][TX];
    const int64_t plane = blockIdx.z;
    const float *xp = x + plane * H * W;
    const int ox0 = blockIdx.x * TX, oy0 = blockIdx.y * OUT_TY;
    const int tid = threadIdx.y * TX + threadIdx.x;
    for (int i = tid; i < IN_TY * IN_TX; i += TX * TY) {
        const int r = i / IN_TX, q = i % IN_TX;
        const int iy = oy0 - PAD + r, ix = ox0 - PAD + q;
        tile[r][q] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? xp[(int64_t)iy * W + ix] : -INFINITY;
    }
    __syncthreads();
    for (int r = threadIdx.y; r < IN_TY; r += TY) {
        float m = -INFINITY;
#pragma unroll
        for (int kx = 0; kx < KSIZE; kx++)
            m = maxnan(m, tile[r][threadIdx.x + kx]);
        hmax[r][threadIdx.x] = m;
    }
    __syncthreads();
    const int ox = ox0 + threadIdx.x;
    for (int ty = threadIdx.y; ty < OUT_TY; ty += TY) {
        const int oy = oy0 + ty;
        if (ox < OW && oy < OH) {
            float m = -INFINITY;
#pragma unroll
            for (int ky = 0; ky < KSIZE; ky++)
                m = maxnan(m, hmax[ty + ky][threadIdx.x]);
            y[plane * OH * OW + (int64_t)oy * OW + ox] = m;
        }
    }
}

torch::Tensor maxpool_forward(torch::Tensor x, int64_t kernel_size, int64_t stride, int64_t padding, int64_t dilation)
{
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(kernel_size == KSIZE && stride == STRIDE && padding == PAD && dilation == DIL,
                "this kernel is compiled for kernel_size 4, stride 1, padding 1, dilation 1");
    TORCH_CHECK(x.dim() == 4, "x must be 4-D");
    const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    const int64_t OH = (H + 2 * PAD - DIL * (KSIZE - 1) - 1) / STRIDE + 1;
    const int64_t OW = (W + 2 * PAD - DIL * (KSIZE - 1) - 1) / STRIDE + 1;
    TORCH_CHECK(N > 0 && C > 0 && H > 0 && W > 0 && OH > 0 && OW > 0, "bad shape");
    auto y = torch::empty({N, C, OH, OW}, x.options());

    if (W == WIDTH && (uintptr_t)x.data_ptr<float>() % 16 == 0) {
        const int64_t strips = (OH + RB - 1) / RB;
        const int64_t items = N * C * strips;
        const int64_t blocks = (items + WPB - 1) / WPB;
        TORCH_CHECK(blocks <= 0x7fffffff, "grid too large");
        maxpool_rows<<<(unsigned)blocks, 32 * WPB>>>(x.data_ptr<float>(), H, OH, OW, strips, items,
                                                     y.data_ptr<float>());
        {
            const cudaError_t err = cudaGetLastError();
            TORCH_CHECK(err == cudaSuccess, "maxpool_rows launch failed: ", cudaGetErrorString(err));
        }
        return y;
    }
    const int64_t gy = (OH + OUT_TY - 1) / OUT_TY;
    TORCH_CHECK(N * C <= 65535 && gy <= 65535 && H <= 0x7fffffff && W <= 0x7fffffff, "grid too large");
    dim3 grid((unsigned)((OW + TX - 1) / TX), (unsigned)gy, (unsigned)(N * C));
    maxpool_tile<<<grid, dim3(TX, TY)>>>(x.data_ptr<float>(), (int)H, (int)W, (int)OH, (int)OW, y.data_ptr<float>());
    {
        const cudaError_t err = cudaGetLastError();
        TORCH_CHECK(err == cudaSuccess, "maxpool_tile launch failed: ", cudaGetErrorString(err));
    }
    return y;
}
"""

cpp_source = "torch::Tensor maxpool_forward(torch::Tensor x, int64_t kernel_size, int64_t stride, int64_t padding, int64_t dilation);"

ext = load_inline(
    name="kb_demo_maxpool2d_s0",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["maxpool_forward"],
    verbose=False,
    extra_cflags=["-O3"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int, dilation: int):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.maxpool_forward(x, self.kernel_size, self.stride, self.padding, self.dilation)
