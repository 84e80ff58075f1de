/*
 * tools/demo-l2/emulate/include/cuda_runtime.h -- a CPU stand-in for the CUDA subset the demo-l2
 * kit uses, so that the kit and the generated Level-2 samples can be run (slowly, on small
 * shapes) on a machine without a GPU and checked against PyTorch (tools/demo-l2/emulate/check.py).
 * Compiled by g++ in place of the toolkit's header; it also answers for cuda_runtime_api.h.
 *
 * What it models: a launch runs its blocks one after another; a block's threads are std::threads,
 * __syncthreads a barrier over the block, the warp shuffles a barrier over each warp of 32 and a
 * per-warp exchange buffer; __shared__ is `static` (one block at a time); device memory is host
 * memory; cudaMallocAsync returns 256-byte-aligned memory filled with 0xff bytes (NaN as float),
 * so that a read of unwritten scratch shows. Not modelled: concurrency between blocks, warp
 * divergence, memory ordering, timing. Launches are written `emu_launch([&] { kernel(args); },
 * grid, block, shmem, stream)`: check.py rewrites every `kernel<<<cfg>>>(args)` so.
 */
#ifndef KB_EMULATED_CUDA_RUNTIME_H
#define KB_EMULATED_CUDA_RUNTIME_H

#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <mutex>
#include <thread>
#include <vector>

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct emu_uint3 {
    unsigned x, y, z;
};
inline thread_local emu_uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
typedef void *cudaStream_t;

inline long emu_live_allocations = 0; /* allocations not yet freed */
inline long emu_launches = 0;

inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t)
{
    const size_t rounded = (n + 255) / 256 * 256;
    *p = aligned_alloc(256, rounded);
    if (!*p)
        return cudaErrorMemoryAllocation;
    memset(*p, 0xff, rounded);
    emu_live_allocations++;
    return cudaSuccess;
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t)
{
    free(p);
    emu_live_allocations--;
    return cudaSuccess;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }

struct float4 {
    float x, y, z, w;
};
inline float4 make_float4(float a, float b, float c, float d) { return float4{a, b, c, d}; }
template <class T> inline T __ldg(const T *p) { return *p; }

struct emu_barrier {
    std::mutex m;
    std::condition_variable cv;
    int n = 0, count = 0, gen = 0;
    void wait()
    {
        std::unique_lock<std::mutex> l(m);
        const int g = gen;
        if (++count == n) {
            count = 0;
            gen++;
            cv.notify_all();
        } else {
            cv.wait(l, [&] { return gen != g; });
        }
    }
};
inline emu_barrier emu_block_barrier;
inline emu_barrier emu_warp_barrier[32];
inline uint64_t emu_exchange[32][32];

inline void __syncthreads() { emu_block_barrier.wait(); }

/* A shuffle: every lane of the warp publishes its value, then reads its source lane's (its own
 * when the source is past the warp, as __shfl_down_sync does). */
template <class T> inline T emu_shuffle(T v, int delta, bool down)
{
    static_assert(sizeof(T) <= 8, "shuffles of at most 8 bytes");
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned warp = t / 32, lane = t % 32, src = down ? lane + delta : (lane ^ (unsigned)delta);
    uint64_t bits = 0;
    memcpy(&bits, &v, sizeof(T));
    emu_exchange[warp][lane] = bits;
    emu_warp_barrier[warp].wait();
    T r = v;
    if (src < 32)
        memcpy(&r, &emu_exchange[warp][src], sizeof(T));
    emu_warp_barrier[warp].wait();
    return r;
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int mask) { return emu_shuffle(v, mask, false); }
template <class T> inline T __shfl_down_sync(unsigned, T v, int delta) { return emu_shuffle(v, delta, true); }

template <class F> inline void emu_launch(F kernel, dim3 grid, dim3 block, size_t = 0, cudaStream_t = 0)
{
    emu_launches++;
    gridDim = grid;
    blockDim = block;
    const unsigned nt = block.x * block.y * block.z;
    if (nt == 0 || nt % 32 || nt > 1024) {
        fprintf(stderr, "emulated launch: a block of %u threads (whole warps, at most 1024)\n", nt);
        abort();
    }
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                emu_block_barrier.n = (int)nt;
                for (unsigned w = 0; w < nt / 32; w++)
                    emu_warp_barrier[w].n = 32;
                std::vector<std::thread> threads;
                threads.reserve(nt);
                for (unsigned t = 0; t < nt; t++)
                    threads.emplace_back([&, t, bx, by, bz] {
                        threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                        blockIdx = {bx, by, bz};
                        kernel();
                    });
                for (auto &th : threads)
                    th.join();
            }
}

#endif
