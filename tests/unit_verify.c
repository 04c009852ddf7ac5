/* unit_verify.c: tests of common/verify.c, the rule every kernel's output passes or fails by
 * (no GPU needed).
 *
 *   usage: unit_verify [SCRATCH_DIR]   the error map PNG goes to SCRATCH_DIR (default
 *                                      /tmp/unit_verify_scratch, made if missing)
 *
 *   tolerance  the formula, its exact edge (at it passes, the next float beyond fails), empty
 *              windows, the FFT rule's global bound, NaN and infinity
 *   the claim  float sums of w random products in four summation orders pass, with the factor
 *              of two to spare that verify.h promises; real bugs (a neighbour read, a dropped
 *              term, just past the bound in one output) fail, and only there
 *   reporting  the relative L2 and largest errors, the mismatch listing (1D, 2D, channels, its
 *              limit), the PASS/FAIL summary, and the error map PNG (read back with image_io.c)
 */
#include "check.h"
#include "data_gen.h"
#include "image_io.h"
#include "reference.h"
#include "verify.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Float correlation in four summation orders a GPU kernel might use: forward, reversed,
 * fused multiply-add forward, and two halves added at the end. */
static void float_correlate_1d(const float *in, int n, const float *mask, int w, float *out,
                               int order) {
    for (int i = 0; i < n; ++i) {
        float sum = 0.0f, second = 0.0f;
        for (int t = 0; t < w; ++t) {
            int j = order == 1 ? w - 1 - t : t, k = i + j - w / 2;
            if (k < 0 || k >= n) continue;
            if (order == 2)
                sum = fmaf(mask[j], in[k], sum);
            else if (order == 3 && j >= w / 2)
                second += mask[j] * in[k];
            else
                sum += mask[j] * in[k];
        }
        out[i] = sum + second;
    }
}

static void test_verify(void) {
    struct verify_summary s;
    const struct verify_shape one = {1, 1, 1};

    /* The formula: atol + terms * FLT_EPSILON * magnitude. */
    CHECK(verify_tolerance(0.0, 63) == VERIFY_ATOL);
    CHECK(verify_tolerance(1.0, 1) == VERIFY_ATOL + 0x1p-23);
    CHECK(verify_tolerance(3.0, 5) == VERIFY_ATOL + 15.0 * 0x1p-23);
    CHECK(verify_tolerance(1.0, 10) > verify_tolerance(1.0, 9));
    CHECK(VERIFY_ATOL > 0.0 && VERIFY_ATOL < 1e-20);

    /* Exactly at the tolerance passes, the next float beyond fails. ref = 1, magnitude = 1,
     * 5 terms: the bound 1e-30 + 5 * 2^-23 is 5 * 2^-23 in double, and 1 +- 5 * 2^-23 are
     * floats (spacing 2^-23 above 1, 2^-24 below). */
    const float ref1 = 1.0f, mag1 = 1.0f;
    float at_edge = 1.0f + 5 * 0x1p-23f;
    CHECK(verify_outputs(&at_edge, &ref1, &mag1, one, 5, 0, NULL, &s) == 0 && s.mismatches == 0);
    CHECK(s.worst_fraction == 1.0);
    float beyond = nextafterf(at_edge, 2.0f);
    CHECK(verify_outputs(&beyond, &ref1, &mag1, one, 5, 0, NULL, &s) == 1 && s.mismatches == 1);
    CHECK(s.worst_fraction > 1.0);
    at_edge = 1.0f - 5 * 0x1p-23f;
    CHECK(verify_outputs(&at_edge, &ref1, &mag1, one, 5, 0, NULL, &s) == 0);
    beyond = nextafterf(at_edge, 0.0f);
    CHECK(verify_outputs(&beyond, &ref1, &mag1, one, 5, 0, NULL, &s) == 1);
    /* An empty window (magnitude 0) allows only the tiny atol. */
    const float zero = 0.0f, tiny = 1e-31f, small = 1e-29f, minus_zero = -0.0f;
    CHECK(verify_outputs(&minus_zero, &zero, &zero, one, 9, 0, NULL, &s) == 0);
    CHECK(verify_outputs(&tiny, &zero, &zero, one, 9, 0, NULL, &s) == 0);
    CHECK(verify_outputs(&small, &zero, &zero, one, 9, 0, NULL, &s) == 1);

    /* The FFT rule: every output gets the largest magnitude, with 4 * log2(points) terms. */
    {
        const float mags[] = {0.0f, 2.0f, 0.5f};
        float uniform[3] = {-1, -1, -1};
        CHECK(verify_fft_rule(mags, 3, 1024, 0.0f, uniform) == 40);
        CHECK(uniform[0] == 2.0f && uniform[1] == 2.0f && uniform[2] == 2.0f);
        CHECK(verify_fft_rule(mags, 3, 1000, 0.0f, uniform) == 40); /* 4 * 9.97 rounded up */
        CHECK(verify_fft_rule(mags, 3, 1, 0.0f, uniform) == 4);
        /* an empty-window output may now err by the global bound, and no more */
        const float zero_ref = 0.0f;
        float at_bound = (float)(40 * FLT_EPSILON * 2.0), past = nextafterf(at_bound, 1.0f);
        CHECK(verify_outputs(&at_bound, &zero_ref, uniform, one, 40, 0, NULL, &s) == 0);
        CHECK(verify_outputs(&past, &zero_ref, uniform, one, 40, 0, NULL, &s) == 1);
        const float input[] = {0.5f, -2.0f}, weights[] = {1.0f, -0.25f, 0.5f};
        CHECK(verify_fft_floor(input, 2, weights, 3) == 3.5f);
        /* a floor above the largest magnitude wins */
        CHECK(verify_fft_rule(mags, 3, 1024, 5.0f, uniform) == 40 && uniform[1] == 5.0f);
    }

    /* NaN in got never passes, counts as a mismatch and makes the error statistics NaN. */
    const float ref3[] = {1, 2, 3}, mag3[] = {1e3f, 1e3f, 1e3f};
    float got3[] = {1, NAN, 3};
    const struct verify_shape three = {3, 1, 1};
    CHECK(verify_outputs(got3, ref3, mag3, three, 63, 0, NULL, &s) == 1);
    CHECK(s.mismatches == 1 && s.checked == 3);
    CHECK(isnan(s.max_abs_error));
    got3[1] = INFINITY;
    CHECK(verify_outputs(got3, ref3, mag3, three, 63, 0, NULL, &s) == 1 && s.mismatches == 1);

    /* All correct: 0, no mismatches, worst fraction within 1, zero errors. */
    enum { N = 4096 };
    float *ref = malloc(N * sizeof *ref), *got = malloc(N * sizeof *got);
    float *mag = malloc(N * sizeof *mag);
    fill_uniform(ref, N, 60, -1.0f, 1.0f);
    for (int i = 0; i < N; ++i) {
        got[i] = ref[i];
        mag[i] = fabsf(ref[i]);
    }
    const struct verify_shape line = {N, 1, 1};
    CHECK(verify_outputs(got, ref, mag, line, 5, 10, NULL, &s) == 0);
    CHECK(s.mismatches == 0 && s.checked == N);
    CHECK(s.worst_fraction <= 1.0 && s.max_abs_error == 0.0 && s.rel_l2_error == 0.0);
    /* One ulp off everywhere still passes: an ulp of the result is at most FLT_EPSILON * |ref|,
     * and |ref| <= magnitude. */
    for (int i = 0; i < N; ++i)
        got[i] = nextafterf(ref[i], INFINITY);
    CHECK(verify_outputs(got, ref, mag, line, 1, 10, NULL, &s) == 0 && s.worst_fraction <= 1.0);
    CHECK(s.max_abs_error > 0.0);

    /* The claim the tolerance rests on: float sums of w random products, in any order, pass.
     * 1000 windows per width (edges included), mixed signs and all-positive products (where
     * rounding errors cannot cancel), four summation orders. */
    float *in = malloc(1000 * sizeof *in), *mk = malloc(63 * sizeof *mk);
    int claim_ok = 1;
    double worst = 0.0;
    for (int w = 1; w <= 63; ++w) {
        for (int positive = 0; positive <= 1; ++positive) {
            float lo = positive ? 0.0f : -1.0f;
            fill_uniform(in, 1000, 1000 + w, lo, 1.0f);
            fill_uniform(mk, (size_t)w, 2000 + w, lo, 1.0f);
            cpu_correlate_1d(in, 1000, mk, w, ref, mag, 0);
            for (int order = 0; order < 4; ++order) {
                float_correlate_1d(in, 1000, mk, w, got, order);
                const struct verify_shape windows = {1000, 1, 1};
                int status = verify_outputs(got, ref, mag, windows, w, 0, NULL, &s);
                if (status)
                    fprintf(stderr, "  width %d order %d: %zu mismatches\n", w, order,
                            s.mismatches);
                claim_ok &= status == 0;
                worst = fmax(worst, s.worst_fraction);
            }
        }
    }
    CHECK(claim_ok);
    CHECK(worst > 0.0 && worst <= 1.0); /* the float sums did round, and stayed inside */
    /* The "factor of two to spare": a float dot product of n terms errs by at most about
     * n * FLT_EPSILON/2 * magnitude, the reference's own rounding adds FLT_EPSILON/2 * |ref|, so
     * an error reaches at most (n + 1) / 2n <= 3/4 of the tolerance (n = 1 is exact). */
    CHECK(worst <= 0.75);

    /* The tolerance is not so loose that real bugs pass: with a 31-wide window, reading one
     * input next to the right one, dropping one term, or being off by just over the bound in a
     * single output all fail, and only there. */
    fill_uniform(in, 1000, 77, -1.0f, 1.0f);
    fill_uniform(mk, 31, 78, -1.0f, 1.0f);
    cpu_correlate_1d(in, 1000, mk, 31, ref, mag, 0);
    const struct verify_shape windows = {1000, 1, 1};
    int largest = 0;
    for (int j = 1; j < 31; ++j)
        if (fabsf(mk[j]) > fabsf(mk[largest])) largest = j;
    float_correlate_1d(in, 1000, mk, 31, got, 0);
    got[500] += mk[largest] * (in[500 + largest - 15 + 1] - in[500 + largest - 15]);
    CHECK(verify_outputs(got, ref, mag, windows, 31, 0, NULL, &s) == 1 && s.mismatches == 1);
    float_correlate_1d(in, 1000, mk, 31, got, 0);
    got[300] -= mk[largest] * in[300 + largest - 15];
    CHECK(verify_outputs(got, ref, mag, windows, 31, 0, NULL, &s) == 1 && s.mismatches == 1);
    for (int i = 0; i < 1000; ++i)
        got[i] = ref[i];
    double bound = verify_tolerance(mag[700], 31);
    float off = ref[700] + (float)bound; /* near the bound: step inside, then just beyond */
    while (fabs((double)off - ref[700]) > bound)
        off = nextafterf(off, -INFINITY);
    while (fabs((double)off - ref[700]) <= bound)
        off = nextafterf(off, INFINITY);
    got[700] = off;
    CHECK(verify_outputs(got, ref, mag, windows, 31, 0, NULL, &s) == 1 && s.mismatches == 1);
    got[700] = nextafterf(off, -INFINITY); /* one float back is inside again */
    CHECK(verify_outputs(got, ref, mag, windows, 31, 0, NULL, &s) == 0);

    /* Relative L2 error: ref = {3, 4} (norm 5), got = {3, 4.5}: 0.5 / 5 = 0.1. */
    const float ref2[] = {3, 4}, got2[] = {3, 4.5f}, mag2[] = {100, 100};
    const struct verify_shape two = {2, 1, 1};
    CHECK(verify_outputs(got2, ref2, mag2, two, 1, 0, NULL, &s) == 1 && s.mismatches == 1);
    CHECK_NEAR(s.rel_l2_error, 0.1, 1e-12);
    CHECK_NEAR(s.max_abs_error, 0.5, 1e-12);

    /* The listing: coordinates as the header promises, at most max_listed lines. */
    char text[4096];
    FILE *log = tmpfile();
    if (!log) {
        CHECK(!"tmpfile() works");
    } else {
        for (int i = 0; i < 40; ++i)
            got[i] = ref[i];
        got[17] = NAN;
        got[30] = ref[30] + 1.0f;
        const struct verify_shape forty = {40, 1, 1};
        CHECK(verify_outputs(got, ref, mag, forty, 3, 10, log, &s) == 1 && s.mismatches == 2);
        text_read_back(log, text, sizeof text);
        CHECK(text_contains(text, "i=17") && text_contains(text, "i=30"));
        CHECK(text_contains(text, "nan"));
        fclose(log);

        log = tmpfile();
        CHECK(verify_outputs(got, ref, mag, forty, 3, 1, log, &s) == 1 && s.mismatches == 2);
        text_read_back(log, text, sizeof text);
        CHECK(text_contains(text, "i=17") && !text_contains(text, "i=30")); /* listed 1, counted 2 */
        fclose(log);

        /* 2D, 4x3, one channel: index 6 is x=2 y=1. */
        log = tmpfile();
        for (int i = 0; i < 24; ++i)
            got[i] = ref[i];
        got[6] = ref[6] + 1.0f;
        const struct verify_shape plane = {4, 3, 1};
        CHECK(verify_outputs(got, ref, mag, plane, 9, 10, log, &s) == 1 && s.mismatches == 1);
        text_read_back(log, text, sizeof text);
        CHECK(text_contains(text, "x=2 y=1") && !text_contains(text, "channel") && !text_contains(text, "i="));
        fclose(log);

        /* Two channels: index 12 + 6 is x=2 y=1 of channel 1. */
        log = tmpfile();
        got[6] = ref[6];
        got[18] = ref[18] - 1.0f;
        const struct verify_shape planes = {4, 3, 2};
        CHECK(verify_outputs(got, ref, mag, planes, 9, 10, log, &s) == 1 && s.mismatches == 1);
        text_read_back(log, text, sizeof text);
        CHECK(text_contains(text, "x=2 y=1 channel=1"));
        fclose(log);

        /* The summary ends with one PASS or FAIL line under the label. */
        log = tmpfile();
        verify_print_summary(log, "unit", &s);
        text_read_back(log, text, sizeof text);
        CHECK(text_contains(text, "checked 24 outputs: 1 mismatches") && text_contains(text, "unit: FAIL"));
        fclose(log);
        log = tmpfile();
        got[18] = ref[18];
        CHECK(verify_outputs(got, ref, mag, planes, 9, 10, log, &s) == 0);
        verify_print_summary(log, "unit", &s);
        text_read_back(log, text, sizeof text);
        CHECK(text_contains(text, "unit: PASS") && !text_contains(text, "FAIL"));
        fclose(log);
    }

    /* The error map: written as an RGB PNG, the mismatching pixel in its plane's colour (plane 1:
     * green), the others gray. */
    char path[512], err[WB_ERR_LEN] = "";
    scratch_path(path, "error_map.png");
    remove(path);
    for (int i = 0; i < 24; ++i) {
        ref[i] = 0.5f;
        got[i] = 0.5f;
        mag[i] = 1.0f;
    }
    got[12 + 1 * 4 + 2] = 0.0f; /* channel 1 at x=2 y=1 */
    const struct verify_shape planes = {4, 3, 2};
    CHECK(verify_error_map_png(path, got, ref, mag, planes, 9, err) == 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    struct image map = {0};
    if (image_load_png(path, &map, err) != 0) {
        CHECK(!"the error map loads back");
        fprintf(stderr, "  %s\n", err);
    } else {
        CHECK(map.width == 4 && map.height == 3 && map.channels == 3);
        size_t p = 1 * 4 + 2, q = 0, plane = 12;
        if (map.width == 4 && map.height == 3 && map.channels == 3) {
            /* Only channel 1 fails there, and channel 1 is drawn green. */
            CHECK(map.data[p] == 0.0f && map.data[plane + p] == 1.0f &&
                  map.data[2 * plane + p] == 0.0f);
            CHECK(map.data[q] > 0.0f && map.data[q] == map.data[plane + q] &&
                  map.data[q] == map.data[2 * plane + q]);
        }
        image_free(&map);
    }

    free(mk);
    free(in);
    free(mag);
    free(got);
    free(ref);
}

int main(int argc, char **argv) {
    int status = scratch_from_args(argc, argv, "unit_verify");
    if (status) return status;
    test_verify();
    return check_summary("unit_verify");
}
