/* kb_hd.h -- KB_HD marks small functions compiled for both host (C11, gcc) and device (nvcc). */
#ifndef KB_HD_H
#define KB_HD_H
#ifdef __CUDACC__
#define KB_HD static __host__ __device__ __forceinline__
#else
#define KB_HD static inline
#endif
#endif /* KB_HD_H */
