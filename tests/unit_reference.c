/* unit_reference.c: tests of common/reference.c, the CPU correlation every kernel is checked
 * against (no GPU needed).
 *
 *   usage: unit_reference
 *
 *   1D    PMPP's worked example and other hand-worked sums (even masks, negative weights and
 *         inputs, a mask wider than the signal), with and without the magnitude; every output of
 *         a long random signal and of short ones at every width against a direct double sum, to
 *         the bit
 *   2D    a hand-worked box and an even 2x2 mask; a row or column mask against the 1D reference;
 *         random masks of odd, even and non-square sizes against an independent naive loop
 *   both  single-threaded and OpenMP agree bitwise
 *
 * Expected values are worked out by hand (see the comments beside them) or come from a loop
 * written here independently; where the code is compared with itself (single-threaded against
 * OpenMP, 2D against 1D) that agreement is the property being tested.
 */
#include "check.h"
#include "data_gen.h"
#include "masks.h"
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs the 1D reference both ways and checks out (and magnitude if given) exactly. */
static void expect_1d(int line, const float *in, size_t n, const float *mask, int w,
                      const float *expected, const float *expected_mag) {
    float out[16], mag[16];
    int failed_before = check_failed;
    for (int parallel = 0; parallel <= 1; ++parallel) {
        for (size_t i = 0; i < n; ++i)
            out[i] = mag[i] = NAN;
        cpu_correlate_1d(in, n, mask, w, out, mag, parallel);
        CHECK(memcmp(out, expected, n * sizeof *out) == 0);
        if (expected_mag) CHECK(memcmp(mag, expected_mag, n * sizeof *mag) == 0);
        cpu_correlate_1d(in, n, mask, w, out, NULL, parallel); /* magnitude is optional */
        CHECK(memcmp(out, expected, n * sizeof *out) == 0);
    }
    if (check_failed != failed_before) {
        fprintf(stderr, "  (from line %d) got", line);
        for (size_t i = 0; i < n; ++i)
            fprintf(stderr, " %g", out[i]);
        fprintf(stderr, "\n");
    }
}

/* An independent 2D correlation written straight from the workbook's formula (double, zero ghosts). */
static double naive_2d(const float *in, int width, int height, const float *mask, int mw, int mh,
                       int x, int y) {
    double sum = 0.0;
    for (int i = 0; i < mh; ++i)
        for (int j = 0; j < mw; ++j) {
            int yy = y + i - mh / 2, xx = x + j - mw / 2;
            double v = (yy >= 0 && yy < height && xx >= 0 && xx < width) ? in[yy * width + xx] : 0;
            sum += (double)mask[i * mw + j] * v;
        }
    return sum;
}

static void test_reference(void) {
    CHECK(cpu_thread_count() >= 1);

    /* PMPP's worked example, mask anchor 2:
     *   P0 = 3*0 + 4*0 + 5*1 + 4*2 + 3*3 = 22     P4 = 3*3 + 4*4 + 5*5 + 4*6 + 3*7 = 95
     *   P1 = 3*0 + 4*1 + 5*2 + 4*3 + 3*4 = 38     P5 = 3*4 + 4*5 + 5*6 + 4*7 + 3*0 = 90
     *   P2 = 3*1 + 4*2 + 5*3 + 4*4 + 3*5 = 57     P6 = 3*5 + 4*6 + 5*7 + 4*0 + 3*0 = 74
     *   P3 = 3*2 + 4*3 + 5*4 + 4*5 + 3*6 = 76
     * All weights and inputs are positive, so the magnitude equals the output. */
    const float pmpp_n[] = {1, 2, 3, 4, 5, 6, 7}, pmpp_m[] = {3, 4, 5, 4, 3};
    const float pmpp_p[] = {22, 38, 57, 76, 95, 90, 74};
    expect_1d(__LINE__, pmpp_n, 7, pmpp_m, 5, pmpp_p, pmpp_p);

    /* N = {4,1,3,2,3}, M = {2,1,4}, anchor 1: P[i] = 2 N[i-1] + 1 N[i] + 4 N[i+1]
     *   P0 = 0 + 4 + 4*1 = 8      P1 = 2*4 + 1 + 4*3 = 21     P2 = 2*1 + 3 + 4*2 = 13
     *   P3 = 2*3 + 2 + 4*3 = 20   P4 = 2*2 + 3 + 0 = 7 */
    const float n2[] = {4, 1, 3, 2, 3}, m2[] = {2, 1, 4}, p2[] = {8, 21, 13, 20, 7};
    expect_1d(__LINE__, n2, 5, m2, 3, p2, p2);

    /* Even mask M = {1, 10}: anchor 2/2 = 1, so P[i] = 1 N[i-1] + 10 N[i]:
     *   P = {0 + 10, 1 + 20, 2 + 30, 3 + 40}. (Anchor 0 would give {21, 32, 43, 40}.) */
    const float n3[] = {1, 2, 3, 4}, m3[] = {1, 10}, p3[] = {10, 21, 32, 43};
    expect_1d(__LINE__, n3, 4, m3, 2, p3, p3);

    /* Negative weights: N = {1,2,3}, M = {-1,2,-3}: P[i] = -N[i-1] + 2 N[i] - 3 N[i+1]
     *   P0 = 2 - 6 = -4 (|.| sum 8)   P1 = -1 + 4 - 9 = -6 (14)   P2 = -2 + 6 = 4 (8) */
    const float n4[] = {1, 2, 3}, m4[] = {-1, 2, -3}, p4[] = {-4, -6, 4}, mag4[] = {8, 14, 8};
    expect_1d(__LINE__, n4, 3, m4, 3, p4, mag4);
    /* Negative inputs too: N = {-1,2,-3}, M = {1,-1,1}: P[i] = N[i-1] - N[i] + N[i+1]
     *   P0 = 0 + 1 + 2 = 3 (3)   P1 = -1 - 2 - 3 = -6 (6)   P2 = 2 + 3 + 0 = 5 (5) */
    const float n5[] = {-1, 2, -3}, m5[] = {1, -1, 1}, p5[] = {3, -6, 5}, mag5[] = {3, 6, 5};
    expect_1d(__LINE__, n5, 3, m5, 3, p5, mag5);

    /* A mask wider than the signal: N = {1, 2}, five ones: every output sees both inputs. */
    const float n6[] = {1, 2}, m6[] = {1, 1, 1, 1, 1}, p6[] = {3, 3};
    expect_1d(__LINE__, n6, 2, m6, 5, p6, p6);
    /* Width 1 scales; width 4 (anchor 2): P[i] = N[i-2] + 2 N[i-1] + 3 N[i] + 4 N[i+1]
     *   on N = {1,2,3,4}: P0 = 3 + 8 = 11, P1 = 2 + 6 + 12 = 20, P2 = 1 + 4 + 9 + 16 = 30,
     *   P3 = 2 + 6 + 12 + 0 = 20 */
    const float m7[] = {-2}, p7[] = {-2, -4, -6, -8}, mag7[] = {2, 4, 6, 8};
    expect_1d(__LINE__, n3, 4, m7, 1, p7, mag7);
    const float m8[] = {1, 2, 3, 4}, p8[] = {11, 20, 30, 20};
    expect_1d(__LINE__, n3, 4, m8, 4, p8, p8);

    /* Single-threaded and OpenMP agree bitwise on a large random case (each output is one
     * thread's own sum, so there is no excuse for any difference). */
    enum { BIG = 100003 };
    float *sig = malloc(BIG * sizeof *sig), *mask31 = malloc(31 * sizeof *mask31);
    float *o1 = malloc(BIG * sizeof *o1), *o2 = malloc(BIG * sizeof *o2);
    float *g1 = malloc(BIG * sizeof *g1), *g2 = malloc(BIG * sizeof *g2);
    fill_uniform(sig, BIG, 11, -1.0f, 1.0f);
    fill_uniform(mask31, 31, 12, -1.0f, 1.0f);
    for (size_t i = 0; i < BIG; ++i)
        o1[i] = o2[i] = g1[i] = g2[i] = NAN;
    cpu_correlate_1d(sig, BIG, mask31, 31, o1, g1, 0);
    cpu_correlate_1d(sig, BIG, mask31, 31, o2, g2, 1);
    CHECK(memcmp(o1, o2, BIG * sizeof *o1) == 0);
    CHECK(memcmp(g1, g2, BIG * sizeof *g1) == 0);
    /* and both are right: every output against a direct double sum in the same order (the
     * reference sums eight outputs side by side inside the signal and one by one near its ends,
     * so both paths meet here), rounded to float: equal to the bit */
    int all_equal = 1;
    for (long i = 0; i < BIG; ++i) {
        double sum = 0.0, mag = 0.0;
        for (int j = 0; j < 31; ++j) {
            long at = i + j - 15;
            if (at < 0 || at >= BIG) continue;
            sum += (double)mask31[j] * sig[at];
            mag += fabs((double)mask31[j] * sig[at]);
        }
        all_equal &= o1[i] == (float)sum && g1[i] == (float)mag;
    }
    CHECK(all_equal);
    /* Short signals and every width, where runs of eight are cut by the ends in every way
     * (widths past the signal's length included). */
    int short_ok = 1;
    for (int n = 1; n <= 20; ++n)
        for (int w = 1; w <= 31; ++w) {
            const float *s = sig + n * 32 + w, *m = mask31 + (31 - w);
            float o[20], g[20];
            for (int i = 0; i < n; ++i)
                o[i] = g[i] = NAN;
            cpu_correlate_1d(s, (size_t)n, m, w, o, g, 0);
            for (int i = 0; i < n; ++i) {
                double sum = 0.0, mag = 0.0;
                for (int j = 0; j < w; ++j) {
                    int at = i + j - w / 2;
                    if (at < 0 || at >= n) continue;
                    sum += (double)m[j] * s[at];
                    mag += fabs((double)m[j] * s[at]);
                }
                short_ok &= o[i] == (float)sum && g[i] == (float)mag;
            }
        }
    CHECK(short_ok);
    free(g2);
    free(g1);
    free(o2);
    free(o1);
    free(mask31);
    free(sig);

    /* 2D: a 3x3 box (all ones, so the sums stay exact) on this 4x3 image:
     *      1  2  3  4
     *      5  6  7  8
     *      9 10 11 12
     * corner (0,0): 1+2+5+6 = 14               corner (3,2): 7+8+11+12 = 38
     * edge (1,0): 1+2+3+5+6+7 = 24             edge (0,1): 1+2+5+6+9+10 = 33
     * interior (1,1): 1+2+3+5+6+7+9+10+11 = 54 interior (2,1): 2+3+4+6+7+8+10+11+12 = 63 */
    const float img[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const float ones9[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    float out[12], mag[12];
    cpu_correlate_2d(img, 4, 3, ones9, 3, 3, out, mag, 0);
    CHECK(out[0] == 14 && out[2 * 4 + 3] == 38);
    CHECK(out[1] == 24 && out[1 * 4 + 0] == 33);
    CHECK(out[1 * 4 + 1] == 54 && out[1 * 4 + 2] == 63);
    CHECK(memcmp(out, mag, sizeof out) == 0);
    /* the named box is the same divided by 9 */
    struct mask box;
    if (!make_mask(MASK_BOX, 3, 3, 0, &box)) {
        cpu_correlate_2d(img, 4, 3, box.weights, 3, 3, out, NULL, 1);
        CHECK_NEAR(out[0], 14.0 / 9, 1e-6);
        CHECK_NEAR(out[1], 24.0 / 9, 1e-6);
        CHECK_NEAR(out[5], 54.0 / 9, 1e-6);
        mask_free(&box);
    }

    /* Even 2x2 M = [1 2; 3 4], anchor (1,1): P[y][x] = 1 N[y-1][x-1] + 2 N[y-1][x]
     *                                                 + 3 N[y][x-1]   + 4 N[y][x]
     *   (0,0) = 4*1 = 4        (1,0) = 3*1 + 4*2 = 11       (0,1) = 2*1 + 4*5 = 22
     *   (1,1) = 1 + 2*2 + 3*5 + 4*6 = 44                     (3,2) = 7 + 2*8 + 3*11 + 4*12 = 104
     * A flipped or wrongly anchored mask gives other numbers at every one of these. */
    const float m22[] = {1, 2, 3, 4};
    cpu_correlate_2d(img, 4, 3, m22, 2, 2, out, NULL, 0);
    CHECK(out[0] == 4 && out[1] == 11 && out[4] == 22);
    CHECK(out[5] == 44 && out[11] == 104);

    /* A 3x1 mask on an image is the 1D reference applied to each row; a 1x3 mask applies it
     * down each column. */
    enum { IW = 37, IH = 23 };
    float *image = malloc(IW * IH * sizeof *image), *res = malloc(IW * IH * sizeof *res);
    float *res_mag = malloc(IW * IH * sizeof *res_mag);
    fill_uniform(image, IW * IH, 31, -1.0f, 1.0f);
    const float m31[] = {0.25f, -1.5f, 0.75f};
    cpu_correlate_2d(image, IW, IH, m31, 3, 1, res, res_mag, 0);
    int rows_ok = 1;
    for (int y = 0; y < IH; ++y) {
        float row[IW], row_mag[IW];
        cpu_correlate_1d(image + y * IW, IW, m31, 3, row, row_mag, 0);
        rows_ok &= memcmp(row, res + y * IW, sizeof row) == 0;
        rows_ok &= memcmp(row_mag, res_mag + y * IW, sizeof row_mag) == 0;
    }
    CHECK(rows_ok);
    cpu_correlate_2d(image, IW, IH, m31, 1, 3, res, NULL, 0);
    int columns_ok = 1;
    for (int x = 0; x < IW; ++x) {
        float column[IH], column_out[IH];
        for (int y = 0; y < IH; ++y)
            column[y] = image[y * IW + x];
        cpu_correlate_1d(column, IH, m31, 3, column_out, NULL, 0);
        for (int y = 0; y < IH; ++y)
            columns_ok &= column_out[y] == res[y * IW + x];
    }
    CHECK(columns_ok);

    /* Random masks of odd, even and non-square sizes against the naive loop above. */
    const int msizes[][2] = {{2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {5, 3}, {2, 7}};
    for (size_t k = 0; k < sizeof msizes / sizeof msizes[0]; ++k) {
        int mw = msizes[k][0], mh = msizes[k][1];
        float mk[49];
        fill_uniform(mk, (size_t)(mw * mh), 40 + k, -1.0f, 1.0f);
        cpu_correlate_2d(image, IW, IH, mk, mw, mh, res, res_mag, 1);
        int ok = 1;
        for (int y = 0; y < IH; ++y)
            for (int x = 0; x < IW; ++x)
                ok &= fabs(res[y * IW + x] - naive_2d(image, IW, IH, mk, mw, mh, x, y)) <=
                      1e-6 * res_mag[y * IW + x] + 1e-30;
        CHECK(ok);
    }
    free(res_mag);
    free(res);
    free(image);

    /* 2D single-threaded and OpenMP agree bitwise. */
    enum { BW = 517, BH = 311 };
    float *big = malloc(BW * BH * sizeof *big), *a = malloc(BW * BH * sizeof *a);
    float *b = malloc(BW * BH * sizeof *b), *am = malloc(BW * BH * sizeof *am);
    float *bm = malloc(BW * BH * sizeof *bm), mk75[35];
    fill_uniform(big, BW * BH, 50, 0.0f, 1.0f);
    fill_uniform(mk75, 35, 51, -1.0f, 1.0f);
    cpu_correlate_2d(big, BW, BH, mk75, 7, 5, a, am, 0);
    cpu_correlate_2d(big, BW, BH, mk75, 7, 5, b, bm, 1);
    CHECK(memcmp(a, b, BW * BH * sizeof *a) == 0);
    CHECK(memcmp(am, bm, BW * BH * sizeof *am) == 0);
    free(bm);
    free(am);
    free(b);
    free(a);
    free(big);
}

int main(int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: unit_reference\n");
        return 2;
    }
    test_reference();
    return check_summary("unit_reference");
}
