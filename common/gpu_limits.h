/* gpu_limits.h: what each GPU architecture the workbook builds for lets one block use, and the
 * test every launcher's choice of variant goes through.
 *
 *   struct gpu_limits         one architecture's limits (shared memory, registers, threads, TMA)
 *   gpu_limits_known[]        the table: sm_75, 80, 86, 89, 90 (gpu_limits.c names the source)
 *   gpu_limits_for_sm         the table's entry for an architecture, or NULL
 *   struct kernel_resources   what the compiler made of one kernel: registers, static shared
 *                             memory, stack, spills, the architecture of its code
 *   gpu_kernel_fits           can this kernel launch with these threads and this dynamic shared
 *                             memory under these limits? If not, one line naming the limit
 *   gpu_limits_of_device      the running GPU's limits, read once (WB_FORCE_SM=NN: no more than
 *                             architecture NN's, so an sm_90 machine runs an older GPU's choices)
 *   kernel_resources_of       a kernel's resources as the runtime reports them
 *
 * Pure C with no CUDA call but the last two: the choice functions (chapters 07 and 09) take a
 * struct gpu_limits and struct kernel_resources as arguments, so the launch feeds them the
 * running device's numbers and tests/arch_fit.c feeds them the table's and the compiler's, and
 * both run the same code.
 */
#ifndef GPU_LIMITS_H
#define GPU_LIMITS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_limits {
    int sm;                      /* compute capability x 10: 75, 80, 86, 89, 90 */
    int shared_per_block_optin;  /* bytes a block may use once it opts in (cudaFuncSetAttribute) */
    int shared_per_block_static; /* bytes without opting in: the limit of static __shared__ */
    int shared_per_sm;           /* bytes an SM holds for all its blocks */
    int shared_reserved;         /* bytes an SM keeps per resident block for the system */
    int regs_per_sm, regs_per_block, regs_per_thread;
    int reg_unit;                /* a warp's registers are allocated in units of this many */
    int threads_per_sm, threads_per_block, blocks_per_sm;
    int has_cp_async; /* cp.async: sm_80 and later (async_copy.cuh falls back to load and store) */
    int has_tma;      /* the Tensor Memory Accelerator: sm_90 and later (tensor_copy.cuh) */
};

extern const struct gpu_limits gpu_limits_known[];
extern const int gpu_limits_known_count;

const struct gpu_limits *gpu_limits_for_sm(int sm);

struct kernel_resources {
    int regs;           /* registers a thread */
    int static_shared;  /* bytes of __shared__ arrays */
    int stack, local;   /* bytes a thread: call stack, and local memory (spilled registers) */
    int binary_version; /* the architecture its code was compiled for, x 10 */
};

/* 1 when a block of `threads` threads of kernel k, with `dynamic_shared` bytes of dynamic shared
 * memory, can launch under lim (registers, threads, shared memory per block and per SM);
 * otherwise 0, with one line in why (`size` bytes) naming the limit and both numbers. */
int gpu_kernel_fits(const struct gpu_limits *lim, const struct kernel_resources *k, int threads,
                    size_t dynamic_shared, char *why, size_t size);

/* The current device's limits, asked once; with WB_FORCE_SM=NN (one of the table's), each limit
 * is also held to architecture NN's. A bad WB_FORCE_SM exits with 2 (bad usage). */
const struct gpu_limits *gpu_limits_of_device(void);

/* kernel: a __global__ function's address (cudaFuncGetAttributes). */
struct kernel_resources kernel_resources_of(const void *kernel);

#ifdef __cplusplus
}
#endif
#endif
