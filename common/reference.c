/* reference.c: CPU correlation in double precision (see reference.h).
 * The window arithmetic is written once per dimension in an inline helper; the single-threaded
 * and OpenMP versions differ only in the `if` clause of the parallel loop. */
#include "reference.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* One output of the 1D correlation: the sum over the mask, skipping ghost cells (they are 0). */
static inline void correlate_1d_at(const float *in, long n, const float *mask, int w, long i,
                                   float *out, float *magnitude) {
    double sum = 0.0, mag = 0.0;
    long start = i - w / 2;
    for (int j = 0; j < w; ++j) {
        long k = start + j;
        if (k < 0 || k >= n) continue;
        sum += (double)mask[j] * in[k];
        mag += fabs((double)mask[j] * in[k]);
    }
    out[i] = (float)sum;
    if (magnitude) magnitude[i] = (float)mag;
}

void cpu_correlate_1d(const float *in, size_t n, const float *mask, int w, float *out,
                      float *magnitude, int parallel) {
    long count = (long)n;
#pragma omp parallel for schedule(static) if (parallel)
    for (long i = 0; i < count; ++i)
        correlate_1d_at(in, count, mask, w, i, out, magnitude);
}

static inline void correlate_2d_at(const float *in, int width, int height, const float *mask,
                                   int mask_w, int mask_h, int y, int x, float *out,
                                   float *magnitude) {
    double sum = 0.0, mag = 0.0;
    int top = y - mask_h / 2, left = x - mask_w / 2;
    for (int i = 0; i < mask_h; ++i) {
        int row = top + i;
        if (row < 0 || row >= height) continue;
        for (int j = 0; j < mask_w; ++j) {
            int col = left + j;
            if (col < 0 || col >= width) continue;
            double p = (double)mask[i * mask_w + j] * in[(size_t)row * width + col];
            sum += p;
            mag += fabs(p);
        }
    }
    size_t at = (size_t)y * width + x;
    out[at] = (float)sum;
    if (magnitude) magnitude[at] = (float)mag;
}

void cpu_correlate_2d(const float *in, int width, int height, const float *mask, int mask_w,
                      int mask_h, float *out, float *magnitude, int parallel) {
#pragma omp parallel for schedule(static) if (parallel)
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            correlate_2d_at(in, width, height, mask, mask_w, mask_h, y, x, out, magnitude);
}

int cpu_thread_count(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
