/* gpu_limits.c: the limits table, the fit test and the running device's limits (see
 * gpu_limits.h).
 *
 * Source of the table: NVIDIA's CUDA C++ Programming Guide, appendix "Compute Capabilities",
 * the table of technical specifications per compute capability (shared memory per SM and per
 * thread block, registers per SM, per block and per thread, resident threads and blocks per
 * SM), and its sections on each architecture: devices of compute capability 8.x and 9.0 keep
 * 1 KB of each SM's shared memory per resident block for system use, which is why a block gets
 * 1 KB less than the SM has; Turing (7.5) lets one block address the SM's whole 64 KB. The
 * register allocation unit (256 registers a warp) and the resident blocks per SM agree with the
 * toolkit's occupancy calculator, cuda_occupancy.h. cp.async arrives with sm_80, TMA with sm_90
 * (the guide's feature table).
 */
#define _POSIX_C_SOURCE 200809L
#include "gpu_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

enum { KIB = 1024 };

const struct gpu_limits gpu_limits_known[] = {
    /* sm  opt-in     static    per SM     rsv   regs SM  block  thr  unit thr SM blk  blks */
    {75, 64 * KIB, 48 * KIB, 64 * KIB, 0, 65536, 65536, 255, 256, 1024, 1024, 16, 0, 0},
    {80, 163 * KIB, 48 * KIB, 164 * KIB, KIB, 65536, 65536, 255, 256, 2048, 1024, 32, 1, 0},
    {86, 99 * KIB, 48 * KIB, 100 * KIB, KIB, 65536, 65536, 255, 256, 1536, 1024, 16, 1, 0},
    {89, 99 * KIB, 48 * KIB, 100 * KIB, KIB, 65536, 65536, 255, 256, 1536, 1024, 24, 1, 0},
    {90, 227 * KIB, 48 * KIB, 228 * KIB, KIB, 65536, 65536, 255, 256, 2048, 1024, 32, 1, 1},
};
const int gpu_limits_known_count = (int)(sizeof gpu_limits_known / sizeof gpu_limits_known[0]);

const struct gpu_limits *gpu_limits_for_sm(int sm) {
    for (int i = 0; i < gpu_limits_known_count; ++i)
        if (gpu_limits_known[i].sm == sm) return &gpu_limits_known[i];
    return NULL;
}

int gpu_kernel_fits(const struct gpu_limits *lim, const struct kernel_resources *k, int threads,
                    size_t dynamic_shared, char *why, size_t size) {
    const long warps = (threads + 31) / 32;
    const long per_warp = ((long)k->regs * 32 + lim->reg_unit - 1) / lim->reg_unit * lim->reg_unit;
    const long regs = warps * per_warp, shared = k->static_shared + (long)dynamic_shared;
    if (threads > lim->threads_per_block)
        snprintf(why, size, "%d threads a block, over the %d sm_%d allows", threads,
                 lim->threads_per_block, lim->sm);
    else if (k->regs > lim->regs_per_thread)
        snprintf(why, size, "%d registers a thread, over the %d sm_%d allows", k->regs,
                 lim->regs_per_thread, lim->sm);
    else if (regs > lim->regs_per_block || regs > lim->regs_per_sm)
        snprintf(why, size, "%d registers a thread x %d threads = %ld registers a block, over the "
                 "%d sm_%d allows", k->regs, threads, regs,
                 lim->regs_per_block < lim->regs_per_sm ? lim->regs_per_block : lim->regs_per_sm,
                 lim->sm);
    else if (k->static_shared > lim->shared_per_block_static)
        snprintf(why, size, "%d bytes of static shared memory, over the %d sm_%d allows",
                 k->static_shared, lim->shared_per_block_static, lim->sm);
    else if (shared > lim->shared_per_block_optin)
        snprintf(why, size, "%ld bytes of shared memory a block (%d static + %zu dynamic), over "
                 "the %d sm_%d allows a block with opt-in", shared, k->static_shared,
                 dynamic_shared, lim->shared_per_block_optin, lim->sm);
    else if (shared + lim->shared_reserved > lim->shared_per_sm)
        snprintf(why, size, "%ld bytes of shared memory a block and %d reserved, over the %d an "
                 "SM of sm_%d holds", shared, lim->shared_reserved, lim->shared_per_sm, lim->sm);
    else
        return 1;
    return 0;
}

static int smaller(int a, int b) {
    return a < b ? a : b;
}

const struct gpu_limits *gpu_limits_of_device(void) {
    static struct gpu_limits device;
    static int known;
    if (known) return &device;
    int id, major, minor;
    CUDA_CHECK(cudaGetDevice(&id));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, id));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, id));
    const struct {
        int *field;
        enum cudaDeviceAttr attribute;
    } asked[] = {
        {&device.shared_per_block_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin},
        {&device.shared_per_block_static, cudaDevAttrMaxSharedMemoryPerBlock},
        {&device.shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor},
        {&device.shared_reserved, cudaDevAttrReservedSharedMemoryPerBlock},
        {&device.regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor},
        {&device.regs_per_block, cudaDevAttrMaxRegistersPerBlock},
        {&device.threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor},
        {&device.threads_per_block, cudaDevAttrMaxThreadsPerBlock},
        {&device.blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor},
    };
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; ++i)
        CUDA_CHECK(cudaDeviceGetAttribute(asked[i].field, asked[i].attribute, id));
    device.sm = 10 * major + minor;
    device.regs_per_thread = 255; /* every architecture the workbook builds for */
    device.reg_unit = 256;
    device.has_cp_async = device.sm >= 80;
    device.has_tma = device.sm >= 90;
    /* WB_FORCE_SM=NN: the choices of an older GPU, on this one (its limits and features no
     * larger than NN's), so that the paths meant for older GPUs run where tests run. */
    const char *forced = getenv("WB_FORCE_SM");
    if (forced && *forced) {
        char *end;
        const long sm = strtol(forced, &end, 10);
        const struct gpu_limits *f = *end ? NULL : gpu_limits_for_sm((int)sm);
        if (!f)
            wb_die(WB_EXIT_USAGE, "WB_FORCE_SM='%s' is not one of 75, 80, 86, 89, 90", forced);
        device.sm = smaller(device.sm, f->sm);
        device.shared_per_block_optin = smaller(device.shared_per_block_optin,
                                                f->shared_per_block_optin);
        device.shared_per_block_static = smaller(device.shared_per_block_static,
                                                 f->shared_per_block_static);
        device.shared_per_sm = smaller(device.shared_per_sm, f->shared_per_sm);
        device.regs_per_sm = smaller(device.regs_per_sm, f->regs_per_sm);
        device.regs_per_block = smaller(device.regs_per_block, f->regs_per_block);
        device.threads_per_sm = smaller(device.threads_per_sm, f->threads_per_sm);
        device.threads_per_block = smaller(device.threads_per_block, f->threads_per_block);
        device.blocks_per_sm = smaller(device.blocks_per_sm, f->blocks_per_sm);
        device.has_cp_async = device.has_cp_async && f->has_cp_async;
        device.has_tma = device.has_tma && f->has_tma;
    }
    known = 1;
    return &device;
}

struct kernel_resources kernel_resources_of(const void *kernel) {
    struct cudaFuncAttributes a;
    CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
    struct kernel_resources k = {.regs = a.numRegs,
                                 .static_shared = (int)a.sharedSizeBytes,
                                 .stack = 0,
                                 .local = (int)a.localSizeBytes,
                                 .binary_version = a.binaryVersion};
    return k;
}
