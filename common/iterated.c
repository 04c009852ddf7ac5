/* iterated.c: K passes of a mask in double, with the error bound of iterated.h. */
#include "iterated.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* out = M * in over one plane, zero ghost cells, every sum in double and in mask order. */
static void correlate_double(const double *in, int width, int height, const double *mask,
                             int mask_w, int mask_h, double *out, int parallel) {
    const int up = mask_h / 2, left = mask_w / 2;
#pragma omp parallel for schedule(static) if (parallel)
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double sum = 0.0;
            for (int i = 0; i < mask_h; ++i) {
                const int row = y + i - up;
                if (row < 0 || row >= height) continue;
                const double *source = in + (size_t)row * width;
                for (int j = 0; j < mask_w; ++j) {
                    const int col = x + j - left;
                    if (col >= 0 && col < width) sum += mask[i * mask_w + j] * source[col];
                }
            }
            out[(size_t)y * width + x] = sum;
        }
}

int iterated_reference(const float *in, int width, int height, const float *mask, int mask_w,
                       int mask_h, int iterations, float *out, float *magnitude, int parallel) {
    const size_t count = (size_t)width * height;
    const int terms = mask_w * mask_h;
    const double te = terms * (double)FLT_EPSILON;
    double *r = malloc(count * sizeof *r), *b = calloc(count, sizeof *b);
    double *scratch = malloc(count * sizeof *scratch), *next = malloc(count * sizeof *next);
    double *m = malloc((size_t)terms * sizeof *m), *abs_m = malloc((size_t)terms * sizeof *m);
    if (!r || !b || !scratch || !next || !m || !abs_m) {
        free(r), free(b), free(scratch), free(next), free(m), free(abs_m);
        return -1;
    }
    for (int k = 0; k < terms; ++k) {
        m[k] = mask[k];
        abs_m[k] = fabs((double)mask[k]);
    }
    for (size_t k = 0; k < count; ++k) r[k] = in[k];
    for (int pass = 0; pass < iterations; ++pass) {
        /* the bound first: it needs R_(k-1) */
#pragma omp parallel for schedule(static) if (parallel)
        for (size_t k = 0; k < count; ++k) scratch[k] = (1.0 + te) * b[k] + te * fabs(r[k]);
        correlate_double(scratch, width, height, abs_m, mask_w, mask_h, b, parallel);
        correlate_double(r, width, height, m, mask_w, mask_h, next, parallel);
        double *swap = r;
        r = next, next = swap;
    }
    const double scale = 1.0 / te;
    for (size_t k = 0; k < count; ++k) {
        out[k] = (float)r[k];
        magnitude[k] = (float)(b[k] * scale);
    }
    free(r), free(b), free(scratch), free(next), free(m), free(abs_m);
    return 0;
}
