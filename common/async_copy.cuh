/* async_copy.cuh: global-to-shared copies that do not pass through registers (cp.async).
 *
 *   copy_or_zero_async(dst, src, inside)   one float: *src into shared *dst, or 0.0f when
 *                                          `inside` is false (src is then never read)
 *   copy4_or_zero_async(dst, src, count)   four floats, both addresses 16-byte aligned: the first
 *                                          `count` (0 to 4) from src, zeros for the rest
 *   async_commit()                         closes the group of copies issued since the last one
 *   async_wait<N>()                        waits until at most N groups are still in flight
 *
 * On sm_80 and later a thread can issue many such copies and keep computing while they fly: a
 * tile for the next step is requested before this step's arithmetic, and no register holds it
 * on the way. The zero fill is the copy's own (source size 0), so ghost cells cost no branch
 * around a load. Older GPUs get a plain load and store in the same place, which is correct but
 * waits for each load.
 */
#ifndef ASYNC_COPY_CUH
#define ASYNC_COPY_CUH

__device__ __forceinline__ void copy_or_zero_async(float *dst, const float *src, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned shared_address = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address), "l"(src),
                 "r"(inside ? 4 : 0)
                 : "memory");
#else
    *dst = inside ? *src : 0.0f;
#endif
}

__device__ __forceinline__ void copy4_or_zero_async(float *dst, const float *src, int count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned shared_address = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address),
                 "l"(src), "r"(4 * count)
                 : "memory");
#else
    for (int k = 0; k < 4; ++k)
        dst[k] = k < count ? src[k] : 0.0f;
#endif
}

__device__ __forceinline__ void async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N> __device__ __forceinline__ void async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

#endif
