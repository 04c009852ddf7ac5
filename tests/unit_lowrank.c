/* unit_lowrank.c: tests of common/lowrank.c, the factoring of a mask into separable passes
 * (no GPU needed).
 *
 *   usage: unit_lowrank   draws its random masks from a fresh seed, printed first
 *
 *   factors   for every mask: the singular values carry the whole norm, largest first, the rows
 *             are orthonormal, the factors rebuild the mask up to the remainder
 *   rank      the named masks from 1 to 31 per side, whose rank is known in closed form; random
 *             masks of known rank, the same with noise (no longer low rank), full-rank ones
 *   pays      when r separable passes cost fewer multiply-adds than the direct mask
 *   refusals  the all-zero mask has rank 0; sizes out of range, NaN and infinite weights refused
 *   bound     lowrank_bound_mask: float passes against the double sum pass verify.c's rule with
 *             the bound it gives, and one dropped product fails it
 */
#include "check.h"
#include "data_gen.h"
#include "lowrank.h"
#include "masks.h"
#include "verify.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The factors' sum against the mask: the largest difference, relative to the mask's norm. */
static double reconstruction_error(const float *mask, const struct mask_factors *f) {
    double worst = 0.0;
    for (int i = 0; i < f->mask_h; ++i)
        for (int j = 0; j < f->mask_w; ++j) {
            double sum = 0.0;
            for (int k = 0; k < f->rank; ++k)
                sum += (double)f->col[k][i] * f->row[k][j];
            worst = fmax(worst, fabs(sum - mask[i * f->mask_w + j]));
        }
    return f->norm > 0.0 ? worst / f->norm : worst;
}

/* Factors a mask and checks what holds for every mask: the singular values carry the whole
 * norm, come largest first, the rows are orthonormal, and the factors rebuild the mask up to
 * the remainder and float rounding. Returns the rank (-1 if factoring failed). */
static int factor_checked(const float *mask, int w, int h, struct mask_factors *f) {
    int status = mask_factor(mask, w, h, f);
    CHECK(status == 0);
    if (status) return -1;
    int terms = w < h ? w : h;
    double sum2 = 0.0;
    for (int k = 0; k < terms; ++k) {
        sum2 += f->sigma[k] * f->sigma[k];
        if (k) CHECK(f->sigma[k] <= f->sigma[k - 1]);
    }
    CHECK_NEAR(sqrt(sum2), f->norm, 1e-12 * f->norm + 1e-300);
    for (int k = 0; k < f->rank; ++k)
        for (int l = 0; l <= k; ++l) {
            double dot = 0.0;
            for (int j = 0; j < w; ++j)
                dot += (double)f->row[k][j] * f->row[l][j];
            CHECK_NEAR(dot, k == l ? 1.0 : 0.0, 1e-6);
        }
    CHECK(f->remainder <= LOWRANK_TOLERANCE * f->norm);
    double error = reconstruction_error(mask, f);
    double scale = f->norm > 0.0 ? f->norm : 1.0;
    CHECK(error <= f->remainder / scale + 4.0 * (f->rank + 1) * FLT_EPSILON);
    return f->rank;
}

static void test_lowrank(void) {
    static struct mask_factors f;
    /* The named masks, odd, even and non-square, 1 to 31 per side: their rank is known in
     * closed form (masks.h says how each is built). */
    const int sides[] = {1, 2, 3, 4, 5, 8, 15, 16, 31};
    const int n_sides = (int)(sizeof sides / sizeof sides[0]);
    for (int a = 0; a < n_sides; ++a)
        for (int b = 0; b < n_sides; ++b) {
            int w = sides[a], h = sides[b], small = w < h ? w : h;
            struct mask m;
            /* box, gaussian and sobel: one outer product */
            if (make_mask(MASK_BOX, w, h, 1, &m) == 0) {
                CHECK(factor_checked(m.weights, w, h, &f) == 1);
                mask_free(&m);
            }
            if (make_mask(MASK_GAUSSIAN, w, h, 1, &m) == 0) {
                CHECK(factor_checked(m.weights, w, h, &f) == 1);
                mask_free(&m);
            }
            if (make_mask(MASK_SOBEL, w, h, 1, &m) == 0) {
                int rank = factor_checked(m.weights, w, h, &f);
                CHECK(rank == (w == 1 ? 0 : 1)); /* one column: x - cx is 0 everywhere */
                mask_free(&m);
            }
            /* laplacian and sharpen: all ones (or the box) plus a multiple of the anchor */
            if (make_mask(MASK_LAPLACIAN, w, h, 1, &m) == 0) { /* 1x1: 1 - 1, all zero */
                CHECK(factor_checked(m.weights, w, h, &f) == (w * h == 1 ? 0 : small == 1 ? 1 : 2));
                mask_free(&m);
            }
            if (make_mask(MASK_SHARPEN, w, h, 1, &m) == 0) {
                CHECK(factor_checked(m.weights, w, h, &f) == (small == 1 ? 1 : 2));
                mask_free(&m);
            }
            /* rank1..3: sums of 1..3 random outer products, rank min(r, w, h) */
            for (int terms = 1; terms <= 3; ++terms)
                if (make_mask((enum mask_kind)(MASK_RANK1 + terms - 1), w, h, 7u + a * 31u + b, &m) ==
                    0) {
                    CHECK(factor_checked(m.weights, w, h, &f) == (terms < small ? terms : small));
                    mask_free(&m);
                }
            /* emboss, (x - cx) + (y - cy) + the anchor: three independent terms from 3 x 3 on */
            if (w >= 3 && h >= 3 && make_mask(MASK_EMBOSS, w, h, 1, &m) == 0) {
                CHECK(factor_checked(m.weights, w, h, &f) == 3);
                mask_free(&m);
            }
        }

    /* Random masks of known rank, drawn fresh: sums of r outer products of random vectors,
     * rounded to float; random full-rank masks; low-rank masks with noise far above the float
     * rounding, which must not pass for low rank. */
    uint64_t seed = rng_fresh_seed();
    printf("unit_lowrank: seed %llu\n", (unsigned long long)seed);
    struct rng r;
    rng_init(&r, seed);
    float mask[LOWRANK_MAX_SIDE * LOWRANK_MAX_SIDE];
    for (int trial = 0; trial < 60; ++trial) {
        int w = 4 + (int)(rng_next(&r) % 28), h = 4 + (int)(rng_next(&r) % 28);
        int rank = 1 + trial % 3, small = w < h ? w : h;
        double exact[LOWRANK_MAX_SIDE * LOWRANK_MAX_SIDE] = {0};
        for (int k = 0; k < rank; ++k) {
            double u[LOWRANK_MAX_SIDE], v[LOWRANK_MAX_SIDE];
            for (int i = 0; i < h; ++i)
                u[i] = rng_uniform(&r, -1.0f, 1.0f);
            for (int j = 0; j < w; ++j)
                v[j] = rng_uniform(&r, -1.0f, 1.0f);
            for (int i = 0; i < h; ++i)
                for (int j = 0; j < w; ++j)
                    exact[i * w + j] += u[i] * v[j];
        }
        for (int k = 0; k < w * h; ++k)
            mask[k] = (float)exact[k];
        int found = factor_checked(mask, w, h, &f);
        CHECK(found == rank);
        if (found != rank)
            fprintf(stderr, "  %dx%d of rank %d: found %d (seed %llu)\n", w, h, rank, found,
                    (unsigned long long)seed);
        /* 1e-3 of noise: no longer of rank r. (Not always full rank: the smallest singular value
         * of a nearly square random matrix falls below FLT_EPSILON of the norm now and then, one
         * run in about thirty asked for that, so only the rise is certain.) */
        for (int k = 0; k < w * h; ++k)
            mask[k] = (float)(exact[k] + 1e-3 * rng_uniform(&r, -1.0f, 1.0f));
        found = factor_checked(mask, w, h, &f);
        CHECK(found > rank && found <= small);
        if (found <= rank)
            fprintf(stderr, "  %dx%d of rank %d plus noise: found %d (seed %llu)\n", w, h, rank,
                    found, (unsigned long long)seed);
        for (int k = 0; k < w * h; ++k)
            mask[k] = rng_uniform(&r, -1.0f, 1.0f);
        CHECK(factor_checked(mask, w, h, &f) == small);
        CHECK(!lowrank_pays(&f)); /* min(w, h) (w + h) > w h: full rank never pays */
    }

    /* When r separable passes pay: r (w + h) against w h multiply-adds per output. */
    memset(&f, 0, sizeof f);
    f.mask_w = f.mask_h = 3;
    f.rank = 1;
    CHECK(lowrank_pays(&f)); /* 6 < 9 */
    f.rank = 2;
    CHECK(!lowrank_pays(&f)); /* 12 > 9 */
    f.mask_w = f.mask_h = 7;
    f.rank = 3;
    CHECK(lowrank_pays(&f)); /* 42 < 49 */
    f.rank = 4;
    CHECK(!lowrank_pays(&f)); /* 56 > 49 */
    f.rank = 0;
    CHECK(!lowrank_pays(&f));

    /* An all-zero mask has rank 0; sizes and weights out of range are refused. */
    memset(mask, 0, sizeof mask);
    CHECK(mask_factor(mask, 5, 5, &f) == 0 && f.rank == 0 && f.norm == 0.0);
    CHECK(mask_factor(mask, 0, 5, &f) == -1);
    CHECK(mask_factor(mask, 5, LOWRANK_MAX_SIDE + 1, &f) == -1);
    mask[7] = NAN;
    CHECK(mask_factor(mask, 5, 5, &f) == -1);
    mask[7] = INFINITY;
    CHECK(mask_factor(mask, 5, 5, &f) == -1);

    /* lowrank_bound_mask: r float passes (a row pass, then a column pass, per term, the terms
     * added) over one window of inputs of mixed sign, against the double sum, pass the rule with
     * the bound it gives; a rank-1 mask's bound is its |weights|, within float rounding; one
     * wrong weight in a pass fails it. */
    int decisive = 0;
    for (int trial = 0; trial < 300; ++trial) {
        int w = 1 + (int)(rng_next(&r) % 31), h = 1 + (int)(rng_next(&r) % 31);
        struct mask m;
        if (make_mask((enum mask_kind)(MASK_RANK1 + trial % 3), w, h, rng_next(&r), &m)) continue;
        float x[LOWRANK_MAX_SIDE * LOWRANK_MAX_SIDE], bound[LOWRANK_MAX_SIDE * LOWRANK_MAX_SIDE];
        for (int k = 0; k < w * h; ++k)
            x[k] = rng_uniform(&r, -1.0f, 1.0f) * (1.0f + 1000.0f * (k % 7 == 0));
        CHECK(mask_factor(m.weights, w, h, &f) == 0);
        int terms = lowrank_bound_mask(m.weights, &f, bound);
        CHECK(terms == w + h + f.rank);
        double exact = 0.0, magnitude = 0.0;
        for (int k = 0; k < w * h; ++k) {
            exact += (double)m.weights[k] * x[k];
            magnitude += (double)bound[k] * fabs(x[k]);
        }
        float passes = 0.0f, broken = 0.0f, dropped = 0.0f;
        for (int k = 0; k < f.rank; ++k) {
            float column = 0.0f, column_broken = 0.0f;
            for (int i = 0; i < h; ++i) {
                float row = 0.0f;
                for (int j = 0; j < w; ++j)
                    row += f.row[k][j] * x[i * w + j];
                column += f.col[k][i] * row;
                if (i == h / 2 && k == 0)
                    dropped = f.col[k][i] * row;
                else
                    column_broken += f.col[k][i] * row;
            }
            passes += column;
            broken += column_broken;
        }
        CHECK(verify_output_ok(passes, (float)exact, (float)magnitude, terms));
        /* Where the dropped product is clear of the tolerance, the rule must see it (most
         * trials: counted below, so the check cannot pass by never applying). */
        if (fabs(dropped) > 4.0 * verify_tolerance(magnitude, terms)) {
            ++decisive;
            CHECK(!verify_output_ok(broken, (float)exact, (float)magnitude, terms));
        }
        /* rank 1: |weights| plus the factors' rounding, a few FLT_EPSILON of the largest
         * weight spread over the rule's terms */
        float largest = 0.0f;
        for (int k = 0; k < w * h; ++k)
            largest = fmaxf(largest, fabsf(m.weights[k]));
        if (trial % 3 == 0)
            for (int k = 0; k < w * h; ++k)
                CHECK(bound[k] >= fabsf(m.weights[k]) &&
                      bound[k] <= fabsf(m.weights[k]) * 1.0001f + 8.0f * largest / terms);
        mask_free(&m);
    }
    CHECK(decisive > 200);
}

int main(int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: unit_lowrank\n");
        return 2;
    }
    test_lowrank();
    return check_summary("unit_lowrank");
}
