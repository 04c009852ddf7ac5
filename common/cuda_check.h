/* cuda_check.h: CUDA errors and the device probe.
 *
 *   CUDA_CHECK(expr)      run a CUDA runtime call; on error print the expression's text, file,
 *                         line and CUDA's message, then exit with WB_EXIT_FAIL
 *   CUDA_CHECK_LAUNCH()   after every kernel launch: checks cudaGetLastError() the same way
 *   device_one_queue      before the first CUDA call: one hardware queue (a cheaper start)
 *   device_count          how many GPUs the runtime sees; none: exit 77 (CTest's "skipped")
 *   device_probe          find a usable GPU or exit 77, saying why
 *   device_fma_peak       the FP32 FMA roof: SMs x FP32 lanes per SM x peak SM clock
 *   device_malloc         cudaMalloc that turns "too big for this GPU" into a clear exit 2
 *
 * Usable from C (host code) and CUDA C (kernel files): only the runtime API header is needed.
 */
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "workbook.h"

#ifdef __cplusplus
extern "C" {
#endif

void cuda_check_failed(cudaError_t status, const char *expression, const char *file, int line)
    __attribute__((noreturn));

#define CUDA_CHECK(expr)                                                                           \
    do {                                                                                           \
        cudaError_t cuda_check_status_ = (expr);                                                   \
        if (cuda_check_status_ != cudaSuccess)                                                     \
            cuda_check_failed(cuda_check_status_, #expr, __FILE__, __LINE__);                      \
    } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

struct device_info {
    int id;
    char name[256];
    int sm_major, sm_minor;
    int multiprocessors;
    size_t global_memory; /* bytes */
    int l2_cache_bytes;
    int max_threads_per_block;
};

/* For a program whose GPU work runs on one stream at a time; call it before any CUDA call. The
 * driver gives each context 8 hardware queues by default (CUDA_DEVICE_MAX_CONNECTIONS), and
 * creating them is most of what starting a context costs; one queue changes nothing for work on
 * one stream. On an H100 a bare context takes about 0.15 s alone and 16 processes starting at
 * once about 3.6 s; with one queue 0.06 s and 1.2 s. A value the user set is kept. */
void device_one_queue(void);

/* The number of GPUs the runtime sees (CUDA_VISIBLE_DEVICES applied), creating no context; none,
 * or no driver: the message below and exit WB_EXIT_NO_DEVICE. */
int device_count(void);

/* Selects device 0 and creates its context. Any failure (no driver, no device, a device that
 * cannot start a context) prints "<program>: no usable CUDA device (<reason>): skipping" and
 * exits with WB_EXIT_NO_DEVICE. */
void device_probe(struct device_info *info);

/* FP32 results (FMA lanes) per clock per SM for a compute capability; 0 where unknown. */
int fp32_lanes_per_sm(int major, int minor);
/* The FP32 FMA roof in FMAs per second: SMs x lanes per SM x the peak SM clock
 * (cudaDevAttrClockRate, also returned in kHz when sm_clock_khz is not NULL); 0 where the lane
 * count is unknown. */
double device_fma_peak(const struct device_info *info, int *sm_clock_khz);
/* Exit 2 with a line when WB_GPU_MEMORY_LIMIT_MIB is set to no number: before any GPU work. */
void device_check_environment(void);

/* cudaMalloc of `bytes` for `what` ("input signal"). If the device cannot hold it, exits with
 * WB_EXIT_USAGE and a message giving the size asked for and the memory free. The environment
 * variable WB_GPU_MEMORY_LIMIT_MIB, if set, makes the program behave as if the GPU had only that
 * much memory for it (every allocation of the run counts, frees are not subtracted): a way to
 * see, and test, this error on a large GPU. */
void *device_malloc(size_t bytes, const char *what);

/* cudaMallocPitch of `rows` rows of `row_bytes` each, with the same checks as device_malloc;
 * *pitch receives the row stride in bytes (>= row_bytes, chosen by the driver for alignment). */
void *device_malloc_pitch(size_t row_bytes, size_t rows, size_t *pitch, const char *what);

#ifdef __cplusplus
}
#endif
#endif
