/*
 * demo-tuned, level1/042_maxpool2d, sample s0: MaxPool2d(kernel_size=4, stride=1, padding=1,
 * dilation=1), x (N,C,H,W) -> y (N,C,OH,OW), OH = H - 1, OW = W - 1.
 *
 * Design (W = 512, the problem's width): one WARP owns a strip of RB = 32 output rows of one plane
 * and streams down the input rows oy0-1 .. oy0+RB+1 (out-of-image rows and columns are padding,
 * -inf, never selected). A lane holds 4 float4 of the current input row (columns 4l + 128k,
 * k < 4: each load instruction is 512 contiguous bytes); the 3 neighbouring columns a window
 * needs come from the adjacent lanes by warp shuffles (lane 0 / lane 31 take them from the
 * previous / next float4 group), so the horizontal 4-max needs no shared memory and no barrier.
 * Vertically the warp keeps, in registers, the previous row's horizontal max Hp and the pair
 * maxima P(r) = max(H(r-1), H(r)) of the last two rows; output row r-2 is max(P(r-2), P(r)).
 * Outputs (OW = 511: rows are not 16-byte aligned) go through a 2 KB per-warp shared buffer so
 * that each store instruction writes 128 consecutive bytes (a lane's 4 adjacent outputs would
 * otherwise make every store touch 16 sectors). Only __syncwarp is used. NaN propagates as in
 * PyTorch's max_pool2d (NaN if the window holds a NaN, else the max). Other shapes take a
 * fallback (demo-naive's 32x32 shared-memory tile kernel). 64-bit plane offsets.
 *
 * Napkin math (32 x 64 x 512 x 512 -> 511 x 511): 2.15 GB read (+9% halo rows, from L2: the
 * neighbouring strip is processed by a neighbouring warp at about the same time) + 2.14 GB
 * written = 4.29 GB, 1.0 ms at ~4.3 TB/s; ~20 ALU ops per output (1e10 lane-ops) hide behind
 * memory. Expect ~1.1-1.3 ms (demo-naive's tile kernel: 2.35 ms; eager PyTorch, which also writes
 * int64 indices, 10.9 ms: ~9x).
 *
 * Build (the compile stage's command, hidden visibility so only kb_forward is exported):
 *   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -shared -cudart shared \
 *        -Xcompiler -fPIC,-fvisibility=hidden -I<repository>/include -o /tmp/x.so s0.cu
 *
 * Return values: 0 success; 1 the arguments are not what this kernel computes (count, dtype,
 * shape); 2 a CUDA call failed.
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include <kb/submission.h>

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

extern "C" int kb_forward(const kb_args *args)
{
    if (args == NULL || args->abi_version != KB_ABI_VERSION || args->n_inputs != 1 || args->n_outputs != 1)
        return 1;
    const kb_input *x = &args->inputs[0];
    const kb_output *y = &args->outputs[0];
    if (x->dtype != KB_F32 || y->dtype != KB_F32 || x->ndim != 4 || y->ndim != 4)
        return 1;
    const int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
    const int64_t OH = (H + 2 * PAD - DIL * (KSIZE - 1) - 1) / STRIDE + 1;
    const int64_t OW = (W + 2 * PAD - DIL * (KSIZE - 1) - 1) / STRIDE + 1;
    if (N <= 0 || C <= 0 || H <= 0 || W <= 0 || OH <= 0 || OW <= 0 || y->shape[0] != N || y->shape[1] != C ||
        y->shape[2] != OH || y->shape[3] != OW)
        return 1;

    if (W == WIDTH && (uintptr_t)x->data % 16 == 0) {
        const int64_t strips = (OH + RB - 1) / RB;
        const int64_t items = N * C * strips;
        const int64_t blocks = (items + WPB - 1) / WPB;
        if (blocks > 0x7fffffff)
            return 1;
        maxpool_rows<<<(unsigned)blocks, 32 * WPB, 0, args->stream>>>((const float *)x->data, H, OH, OW, strips,
                                                                      items, (float *)y->data);
        return cudaGetLastError() == cudaSuccess ? 0 : 2;
    }
    const int64_t gy = (OH + OUT_TY - 1) / OUT_TY;
    if (N * C > 65535 || gy > 65535 || H > 0x7fffffff || W > 0x7fffffff)
        return 1;
    dim3 grid((unsigned)((OW + TX - 1) / TX), (unsigned)gy, (unsigned)(N * C));
    maxpool_tile<<<grid, dim3(TX, TY), 0, args->stream>>>((const float *)x->data, (int)H, (int)W, (int)OH, (int)OW,
                                                          (float *)y->data);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
