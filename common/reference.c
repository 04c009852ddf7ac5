/* reference.c: CPU correlation in double precision (see reference.h).
 * The window arithmetic is written once per dimension in an inline helper; the single-threaded
 * and OpenMP versions differ only in the `if` clause of the parallel loop. */
#include "reference.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Adds sum w[j] * x[j] and sum |w[j] * x[j]| over `count` taps to *sum and *mag, in double.
 * Two interleaved partial sums halve the chain of dependent additions that bounds the speed (the
 * reference runs on every test's data); the order changes only the double's last bits. */
static inline void sum_taps(const float *w, const float *x, int count, double *sum, double *mag) {
    double s0 = 0.0, s1 = 0.0, m0 = 0.0, m1 = 0.0;
    int j = 0;
    for (; j + 1 < count; j += 2) {
        double p0 = (double)w[j] * x[j], p1 = (double)w[j + 1] * x[j + 1];
        s0 += p0;
        s1 += p1;
        m0 += fabs(p0);
        m1 += fabs(p1);
    }
    if (j < count) {
        double p = (double)w[j] * x[j];
        s0 += p;
        m0 += fabs(p);
    }
    *sum += s0 + s1;
    *mag += m0 + m1;
}

/* One output of the 1D correlation: the sum over the mask, skipping ghost cells (they are 0). */
static inline void correlate_1d_at(const float *in, long n, const float *mask, int w, long i,
                                   float *out, float *magnitude) {
    double sum = 0.0, mag = 0.0;
    long start = i - w / 2;
    /* The taps whose input lies inside 0 .. n-1, in order; the others meet ghost cells (0). */
    int first = start < 0 ? (int)-start : 0;
    int last = start + w > n ? (int)(n - start) : w;
    sum_taps(mask + first, in + start + first, last - first, &sum, &mag);
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
    /* The window clipped to the image, in the same order; outside it are ghost cells (0). */
    int i0 = top < 0 ? -top : 0, i1 = top + mask_h > height ? height - top : mask_h;
    int j0 = left < 0 ? -left : 0, j1 = left + mask_w > width ? width - left : mask_w;
    for (int i = i0; i < i1; ++i) {
        const float *row = in + (size_t)(top + i) * width + left;
        const float *weights = mask + i * mask_w;
        sum_taps(weights + j0, row + j0, j1 - j0, &sum, &mag);
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
