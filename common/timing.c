/* timing.c: CUDA-event timing with L2 flushes, copy bandwidth, host timing (see timing.h). */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <stdlib.h>
#include <time.h>

#include "cuda_check.h"

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct timing timing_summary(double *samples, int reps) {
    qsort(samples, (size_t)reps, sizeof *samples, compare_doubles);
    struct timing t;
    t.reps = reps;
    t.min_ms = samples[0];
    t.median_ms = reps % 2 ? samples[reps / 2] : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]);
    return t;
}

/* A scratch buffer of twice the L2 size; writing it evicts whatever the last run left there. */
static void *flush_buffer(size_t *bytes) {
    int device = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    *bytes = 2 * (size_t)(l2 > 0 ? l2 : 1 << 20);
    return device_malloc(*bytes, "L2 flush buffer");
}

struct timing gpu_time(void (*launch)(void *context), void *context, int warmup, int reps) {
    return gpu_time_prepared(launch, NULL, context, warmup, reps);
}

struct timing gpu_time_prepared(void (*launch)(void *context), void (*prepare)(void *context),
                                void *context, int warmup, int reps) {
    size_t flush_bytes;
    void *flush = flush_buffer(&flush_bytes);
    cudaEvent_t *starts = malloc(sizeof *starts * reps), *stops = malloc(sizeof *stops * reps);
    double *samples = malloc(sizeof *samples * reps);
    if (!starts || !stops || !samples) wb_die(WB_EXIT_FAIL, "out of host memory for timing");
    for (int r = 0; r < reps; ++r) {
        CUDA_CHECK(cudaEventCreate(&starts[r]));
        CUDA_CHECK(cudaEventCreate(&stops[r]));
    }
    for (int w = 0; w < warmup; ++w) {
        if (prepare) prepare(context);
        launch(context);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        if (prepare) prepare(context);
        CUDA_CHECK(cudaMemsetAsync(flush, r & 0xff, flush_bytes, 0));
        CUDA_CHECK(cudaEventRecord(starts[r], 0));
        launch(context);
        CUDA_CHECK(cudaEventRecord(stops[r], 0));
    }
    CUDA_CHECK(cudaEventSynchronize(stops[reps - 1]));
    for (int r = 0; r < reps; ++r) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, starts[r], stops[r]));
        samples[r] = ms;
        CUDA_CHECK(cudaEventDestroy(starts[r]));
        CUDA_CHECK(cudaEventDestroy(stops[r]));
    }
    struct timing t = timing_summary(samples, reps);
    free(samples);
    free(stops);
    free(starts);
    CUDA_CHECK(cudaFree(flush));
    return t;
}

struct copy_job {
    void *dst;
    const void *src;
    size_t bytes;
};

static void enqueue_copy(void *context) {
    struct copy_job *job = context;
    CUDA_CHECK(cudaMemcpyAsync(job->dst, job->src, job->bytes, cudaMemcpyDeviceToDevice, 0));
}

double copy_bandwidth_gbps(size_t bytes, int reps) {
    struct copy_job job = {device_malloc(bytes, "copy-bandwidth destination"),
                           device_malloc(bytes, "copy-bandwidth source"), bytes};
    CUDA_CHECK(cudaMemset((void *)job.src, 0x3f, bytes)); /* real bytes, not untouched pages */
    struct timing t = gpu_time(enqueue_copy, &job, 3, reps);
    CUDA_CHECK(cudaFree(job.dst));
    CUDA_CHECK(cudaFree((void *)job.src));
    return effective_gbps(2.0 * (double)bytes, t.median_ms);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

struct timing host_time(void (*fn)(void *context), void *context, int reps) {
    double *samples = malloc(sizeof *samples * reps);
    if (!samples) wb_die(WB_EXIT_FAIL, "out of host memory for timing");
    for (int r = 0; r < reps; ++r) {
        double start = now_ms();
        fn(context);
        samples[r] = now_ms() - start;
    }
    struct timing t = timing_summary(samples, reps);
    free(samples);
    return t;
}

double effective_gbps(double bytes_moved, double ms) {
    return ms > 0.0 ? bytes_moved / (ms * 1e6) : 0.0;
}
