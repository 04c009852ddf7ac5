/* timing.h: measuring, the same way in every chapter.
 *
 *   gpu_time        CUDA events around each launch: warm-up, then `reps` timed runs, each after
 *                   an L2 flush; median and min in milliseconds (gpu_time_prepared: each run
 *                   after a preparation too, untimed)
 *   copy_bandwidth  device-to-device cudaMemcpy of the same size, timed the same way: the
 *                   bandwidth bound that "% of copy" divides by
 *   host_time       wall-clock median of a CPU function, for the CPU-baseline speedups
 *   effective_gbps  (bytes read once + bytes written once) / time
 */
#ifndef TIMING_H
#define TIMING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct timing {
    double median_ms;
    double min_ms;
    int reps;
};

/* Calls launch(context) `warmup` times, then `reps` times with CUDA events recorded just before
 * and after each call on the default stream. Before every timed call a buffer twice the size of
 * the L2 cache is overwritten, so no run finds its input already cached by the previous one. The
 * launch function must only enqueue work (kernel launches, async copies) on the default stream. */
struct timing gpu_time(void (*launch)(void *context), void *context, int warmup, int reps);
/* gpu_time with prepare(context) enqueued before every call (warm-up too), outside the events:
 * the harness poisons the output there, so no timed call can find an earlier call's result and
 * skip its work. */
struct timing gpu_time_prepared(void (*launch)(void *context), void (*prepare)(void *context),
                                void *context, int warmup, int reps);

/* Median bandwidth in GB/s (1e9 bytes/s, counting bytes read plus bytes written) of
 * cudaMemcpyAsync between two device buffers of `bytes` each, timed like gpu_time. */
double copy_bandwidth_gbps(size_t bytes, int reps);

/* Median wall-clock time of `reps` calls of fn(context), in milliseconds. */
struct timing host_time(void (*fn)(void *context), void *context, int reps);

double effective_gbps(double bytes_moved, double ms);

/* Sorts reps samples (ms) in place and returns their median and least, as gpu_time does. */
struct timing timing_summary(double *samples, int reps);

#ifdef __cplusplus
}
#endif
#endif
