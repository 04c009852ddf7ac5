/* reference.c: CPU correlation in double precision (see reference.h).
 * Every output is the double sum of its taps in mask order, rounded once to float: the same
 * numbers whichever path below computes it. Two paths: one output at a time, with the window
 * clipped to the data (near the ends and borders), and RUN outputs at a time where all of them
 * have their full row of taps. The run path loads each weight once for RUN independent sums, which
 * the compiler turns into vector instructions (omp simd; the Makefile builds this file with -O3,
 * which keeps the sums in registers): 2 to 3 times faster than one output at a time, whose speed
 * is bound by its chain of dependent additions (measured on this project's CI machine). The
 * reference runs on every test's data, so its speed sets the speed of the tests. The
 * single-threaded and OpenMP versions differ only in the `if` clause of the parallel loop. */
#include "reference.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum { RUN = 8 }; /* outputs summed side by side */

/* On x86-64, each entry point is compiled three times (AVX-512, AVX2, plain SSE2) and the loader
 * picks the widest the processor has: wider vectors, the same sums in the same order, so the same
 * bits (C11 mode keeps the compiler from fusing a multiply and an add). */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define WIDEST_VECTORS __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef WIDEST_VECTORS
#define WIDEST_VECTORS
#endif

/* Adds w[j] * x[j] and |w[j] * x[j]| over `count` taps, in order, to *sum and *mag. */
static inline void sum_taps(const float *w, const float *x, int count, double *sum, double *mag) {
    double s = *sum, m = *mag;
    for (int j = 0; j < count; ++j) {
        double p = (double)w[j] * x[j];
        s += p;
        m += fabs(p);
    }
    *sum = s;
    *mag = m;
}

/* The same for RUN neighbouring outputs: sum[k] gets w[j] * x[j + k]. */
static inline void sum_taps_run(const float *w, const float *x, int count, double *sum,
                                double *mag) {
    double s[RUN], m[RUN]; /* local, so they can stay in registers across the taps */
    for (int k = 0; k < RUN; ++k) {
        s[k] = sum[k];
        m[k] = mag[k];
    }
    for (int j = 0; j < count; ++j) {
        double weight = w[j];
#pragma omp simd
        for (int k = 0; k < RUN; ++k) {
            double p = weight * x[j + k];
            s[k] += p;
            m[k] += fabs(p);
        }
    }
    for (int k = 0; k < RUN; ++k) {
        sum[k] = s[k];
        mag[k] = m[k];
    }
}

static inline void store(const double *sum, const double *mag, int count, float *out,
                         float *magnitude) {
    if (count == RUN) { /* the common case, converted as vectors */
#pragma omp simd
        for (int k = 0; k < RUN; ++k) out[k] = (float)sum[k];
        if (magnitude) {
#pragma omp simd
            for (int k = 0; k < RUN; ++k) magnitude[k] = (float)mag[k];
        }
        return;
    }
    for (int k = 0; k < count; ++k) {
        out[k] = (float)sum[k];
        if (magnitude) magnitude[k] = (float)mag[k];
    }
}

/* Outputs first .. first+RUN-1 (or fewer at the end) of the 1D correlation. */
static inline void correlate_1d_run(const float *in, long n, const float *mask, int w, long first,
                                    float *out, float *magnitude) {
    double sum[RUN] = {0}, mag[RUN] = {0};
    long start = first - w / 2; /* the first output's window starts here */
    if (start >= 0 && start + w + RUN - 1 <= n) {
        sum_taps_run(mask, in + start, w, sum, mag);
        store(sum, mag, RUN, out + first, magnitude ? magnitude + first : NULL);
        return;
    }
    int count = first + RUN <= n ? RUN : (int)(n - first);
    for (int k = 0; k < count; ++k) {
        long s = start + k;
        /* The taps whose input lies inside 0 .. n-1; the others meet ghost cells (0). */
        int lo = s < 0 ? (int)-s : 0, hi = s + w > n ? (int)(n - s) : w;
        if (hi > lo) sum_taps(mask + lo, in + s + lo, hi - lo, &sum[k], &mag[k]);
    }
    store(sum, mag, count, out + first, magnitude ? magnitude + first : NULL);
}

WIDEST_VECTORS
void cpu_correlate_1d(const float *in, size_t n, const float *mask, int w, float *out,
                      float *magnitude, int parallel) {
    long count = (long)n, runs = (count + RUN - 1) / RUN;
#pragma omp parallel for schedule(static) if (parallel)
    for (long r = 0; r < runs; ++r)
        correlate_1d_run(in, count, mask, w, r * RUN, out, magnitude);
}

/* Outputs (x0 .. x0+RUN-1, y) of the 2D correlation (fewer at the row's end): the window's rows
 * are clipped to the image for all of them; its columns too, one output at a time, unless every
 * output of the run has all its columns inside. */
static inline void correlate_2d_run(const float *in, int width, int height, const float *mask,
                                    int mask_w, int mask_h, int y, int x0, float *out,
                                    float *magnitude) {
    double sum[RUN] = {0}, mag[RUN] = {0};
    int top = y - mask_h / 2, left = x0 - mask_w / 2;
    int i0 = top < 0 ? -top : 0, i1 = top + mask_h > height ? height - top : mask_h;
    int count = x0 + RUN <= width ? RUN : width - x0;
    int full_columns = count == RUN && left >= 0 && left + mask_w + RUN - 1 <= width;
    for (int i = i0; i < i1; ++i) {
        const float *row = in + (size_t)(top + i) * width;
        const float *weights = mask + (size_t)i * mask_w;
        if (full_columns) {
            sum_taps_run(weights, row + left, mask_w, sum, mag);
            continue;
        }
        for (int k = 0; k < count; ++k) {
            int l = left + k;
            int j0 = l < 0 ? -l : 0, j1 = l + mask_w > width ? width - l : mask_w;
            if (j1 > j0) sum_taps(weights + j0, row + l + j0, j1 - j0, &sum[k], &mag[k]);
        }
    }
    size_t at = (size_t)y * width + x0;
    store(sum, mag, count, out + at, magnitude ? magnitude + at : NULL);
}

WIDEST_VECTORS
void cpu_correlate_2d(const float *in, int width, int height, const float *mask, int mask_w,
                      int mask_h, float *out, float *magnitude, int parallel) {
#pragma omp parallel for schedule(static) if (parallel)
    for (int y = 0; y < height; ++y)
        for (int x0 = 0; x0 < width; x0 += RUN)
            correlate_2d_run(in, width, height, mask, mask_w, mask_h, y, x0, out, magnitude);
}

/* One output row of a volume: for each mask slice and row that falls inside, the row of inputs
 * it meets, tap by tap; the windows of x near the ends are cut to the row. */
static void correlate_3d_row(const float *in, int width, int height, int depth, const float *mask,
                             int mask_w, int mask_h, int mask_d, int z, int y, float *out,
                             float *magnitude) {
    for (int x = 0; x < width; ++x) {
        double sum = 0.0, scale = 0.0;
        for (int k = 0; k < mask_d; ++k) {
            const int zz = z + k - mask_d / 2;
            if (zz < 0 || zz >= depth) continue;
            for (int i = 0; i < mask_h; ++i) {
                const int yy = y + i - mask_h / 2;
                if (yy < 0 || yy >= height) continue;
                const float *row = in + ((size_t)zz * height + yy) * width;
                const float *weights = mask + ((size_t)k * mask_h + i) * mask_w;
                for (int j = 0; j < mask_w; ++j) {
                    const int xx = x + j - mask_w / 2;
                    if (xx < 0 || xx >= width) continue;
                    sum += (double)weights[j] * row[xx];
                    scale += fabs((double)weights[j] * row[xx]);
                }
            }
        }
        const size_t o = ((size_t)z * height + y) * width + x;
        out[o] = (float)sum;
        if (magnitude) magnitude[o] = (float)scale;
    }
}

void cpu_correlate_3d(const float *in, int width, int height, int depth, const float *mask,
                      int mask_w, int mask_h, int mask_d, float *out, float *magnitude,
                      int parallel) {
#pragma omp parallel for collapse(2) schedule(static) if (parallel)
    for (int z = 0; z < depth; ++z)
        for (int y = 0; y < height; ++y)
            correlate_3d_row(in, width, height, depth, mask, mask_w, mask_h, mask_d, z, y, out,
                             magnitude);
}

int cpu_thread_count(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
