/* tensor_copy.cuh: the Tensor Memory Accelerator (TMA, sm_90 and later) fetching a box of a
 * float32 volume into shared memory, zeros outside the volume included.
 *
 *   host    tensor_map_3d(&map, d_volume, w, h, d, box_w, box_h)   describe the volume and a box
 *                                       of box_w x box_h x 1; false where TMA cannot serve it
 *   device  tensor_barrier_init(bar)    a barrier the copies report to (one thread, then a
 *                                       __syncthreads before anyone waits on it)
 *           tensor_fetch_3d(dst, &map, x, y, z, bar, bytes)   one thread: the box whose first
 *                                       cell is (x, y, z) into dst (128-byte aligned)
 *           tensor_wait(bar, parity)    every thread: the barrier's phase of that parity is done
 *
 * One instruction of one thread moves a whole box while every thread goes on; the copy engine
 * works out the addresses and fills cells outside the volume (negative coordinates too) with
 * zeros, which is the workbook's ghost cell. A barrier completes a phase when its thread has
 * arrived and the box's bytes have landed, so a ring of stages uses one barrier a stage and
 * waits on phase parity 0, 1, 0, ... as each stage comes round.
 *
 * What TMA asks of the volume: a 16-byte aligned base and rows whose bytes are a multiple of 16
 * (width a multiple of 4), box rows the same (box_w a multiple of 4), boxes up to 256 a side;
 * and of each fetch, a box that starts on a 16-byte boundary (x a multiple of 4): on an H100 a
 * box at x0 - 1 stops the kernel with an illegal instruction.
 * tensor_map_3d says false otherwise, and where the driver has no encoder; callers then fetch
 * another way. The encoder is the driver's (cuTensorMapEncodeTiled), found at run time, so no
 * program needs to link libcuda.
 */
#ifndef TENSOR_COPY_CUH
#define TENSOR_COPY_CUH

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdint.h>

static inline bool tensor_map_3d(CUtensorMap *map, const float *volume, int width, int height,
                                 int depth, int box_w, int box_h) {
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    static bool looked = false;
    if (!looked) {
        looked = true;
        void *found = NULL;
        cudaDriverEntryPointQueryResult result;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &found, 12000,
                                             cudaEnableDefault, &result) == cudaSuccess &&
            result == cudaDriverEntryPointSuccess)
            encode = (PFN_cuTensorMapEncodeTiled_v12000)found;
        else
            (void)cudaGetLastError(); /* an old driver: not an error of the program's */
    }
    if (!encode || width % 4 || box_w % 4 || (uintptr_t)volume % 16 || box_w > 256 ||
        box_h > 256)
        return false;
    const cuuint64_t dims[3] = {(cuuint64_t)width, (cuuint64_t)height, (cuuint64_t)depth};
    const cuuint64_t strides[2] = {(cuuint64_t)width * sizeof(float),
                                   (cuuint64_t)width * height * sizeof(float)};
    const cuuint32_t box[3] = {(cuuint32_t)box_w, (cuuint32_t)box_h, 1};
    const cuuint32_t steps[3] = {1, 1, 1};
    return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, (void *)volume, dims, strides, box,
                  steps, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE /* zeros */) == CUDA_SUCCESS;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TENSOR_COPY_DEVICE 1
#endif

__device__ __forceinline__ unsigned tensor_smem(const void *p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void tensor_barrier_init(uint64_t *bar) {
#ifdef TENSOR_COPY_DEVICE
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(tensor_smem(bar)) : "memory");
    // the initialized barrier visible to the copy engine, which reports to it
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
    (void)bar;
    __trap(); /* callers use TMA only where the binary runs as sm_90 or later */
#endif
}

__device__ __forceinline__ void tensor_fetch_3d(float *dst, const CUtensorMap *map, int x, int y,
                                                int z, uint64_t *bar, unsigned bytes) {
#ifdef TENSOR_COPY_DEVICE
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                     tensor_smem(bar)),
                 "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(tensor_smem(dst)),
                 "l"((uint64_t)map), "r"(x), "r"(y), "r"(z), "r"(tensor_smem(bar))
                 : "memory");
#else
    (void)dst, (void)map, (void)x, (void)y, (void)z, (void)bar, (void)bytes;
    __trap();
#endif
}

__device__ __forceinline__ void tensor_wait(uint64_t *bar, unsigned parity) {
#ifdef TENSOR_COPY_DEVICE
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "again:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra again;\n"
                 "}\n" ::"r"(tensor_smem(bar)),
                 "r"(parity)
                 : "memory");
#else
    (void)bar, (void)parity;
    __trap();
#endif
}

#endif
