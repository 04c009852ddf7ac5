/* unit_masks.c: tests of common/masks.c, the named masks and the mask-file reader (no GPU
 * needed).
 *
 *   usage: unit_masks [SCRATCH_DIR]   the mask files go to SCRATCH_DIR (default
 *                                     /tmp/unit_masks_scratch, made if missing)
 *
 *   masks       every name parses to its kind and back, unknown, empty and miscased names are
 *               refused; each kind against hand-worked weights at odd, even and non-square
 *               sizes; the Gaussian's sigma, symmetry and separability; random masks per seed;
 *               mask_abs_sum; sizes below 1 refused
 *   mask_files  the layouts the text reader accepts (comments, commas, tabs, signs, exponents,
 *               CRLF, 1024 values per side) and every refusal, each naming the file and the line
 *               it stopped at
 *
 * The weights are small integers or their sums wherever possible, so most comparisons are exact.
 */
#include "check.h"
#include "masks.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- masks -------------------------------------------------------------------------------- */

/* Exact comparison of a mask with hand-worked weights (all small integers or their sums). */
static int weights_are(const struct mask *m, int w, int h, const float *expected) {
    if (m->width != w || m->height != h) return 0;
    for (int k = 0; k < w * h; ++k)
        if (m->weights[k] != expected[k]) return 0;
    return 1;
}

static double weight_sum(const struct mask *m) {
    double s = 0.0;
    for (int k = 0; k < m->width * m->height; ++k)
        s += m->weights[k];
    return s;
}

static void test_masks(void) {
    /* Every name parses to its kind and back. */
    static const struct {
        const char *name;
        enum mask_kind kind;
    } names[] = {{"box", MASK_BOX},         {"gaussian", MASK_GAUSSIAN},
                 {"sharpen", MASK_SHARPEN}, {"laplacian", MASK_LAPLACIAN},
                 {"sobel", MASK_SOBEL},     {"emboss", MASK_EMBOSS},
                 {"random", MASK_RANDOM},   {"rank1", MASK_RANK1},
                 {"rank2", MASK_RANK2},     {"rank3", MASK_RANK3}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        enum mask_kind kind = MASK_KIND_COUNT;
        char err[WB_ERR_LEN] = "";
        CHECK(mask_kind_parse(names[k].name, &kind, err) == 0 && kind == names[k].kind);
        CHECK(strcmp(mask_kind_name(names[k].kind), names[k].name) == 0);
    }
    CHECK(MASK_KIND_COUNT == 10); /* a new kind needs its own checks here */
    char err[WB_ERR_LEN] = "";
    enum mask_kind kind = MASK_BOX;
    CHECK(mask_kind_parse("nosuch", &kind, err) == -1);
    CHECK(text_contains(err, "'nosuch'") && text_contains(err, "gaussian"));
    CHECK(kind == MASK_BOX); /* untouched on failure */
    err[0] = '\0';
    CHECK(mask_kind_parse("", &kind, err) == -1 && err[0]);
    CHECK(mask_kind_parse("Box", &kind, err) == -1); /* names are exact */
    CHECK(strcmp(mask_kind_name(MASK_KIND_COUNT), "?") == 0);

    struct mask m;
    /* box: 1/9 everywhere at 3x3, 1/3 at width 3; the name says what it is. */
    if (!make_mask(MASK_BOX, 3, 3, 0, &m)) {
        int ok = 1;
        for (int k = 0; k < 9; ++k)
            ok &= m.weights[k] == (float)(1.0 / 9.0);
        CHECK(ok && m.width == 3 && m.height == 3);
        CHECK(strcmp(m.name, "box 3x3") == 0);
        CHECK_NEAR(mask_abs_sum(&m), 1.0, 1e-6);
        mask_free(&m);
        CHECK(m.weights == NULL);
    }
    if (!make_mask(MASK_BOX, 3, 1, 0, &m)) {
        const float e[] = {(float)(1.0 / 3), (float)(1.0 / 3), (float)(1.0 / 3)};
        CHECK(weights_are(&m, 3, 1, e));
        CHECK(strcmp(m.name, "box 3") == 0); /* 1D masks are named by width alone */
        mask_free(&m);
    }

    /* sobel: horizontal gradient times binomial smoothing down the rows. */
    if (!make_mask(MASK_SOBEL, 3, 3, 0, &m)) {
        const float e[] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
        CHECK(weights_are(&m, 3, 3, e));
        CHECK(mask_abs_sum(&m) == 8.0);
        mask_free(&m);
    }
    if (!make_mask(MASK_SOBEL, 3, 1, 0, &m)) {
        const float e[] = {-1, 0, 1};
        CHECK(weights_are(&m, 3, 1, e));
        mask_free(&m);
    }
    if (!make_mask(MASK_SOBEL, 5, 5, 0, &m)) {
        /* rows weighted 1 4 6 4 1, columns -2 -1 0 1 2: row 2 is 6 * (-2 ... 2) */
        const float row2[] = {-12, -6, 0, 6, 12};
        CHECK(memcmp(m.weights + 10, row2, sizeof row2) == 0);
        CHECK(m.weights[0] == -2.0f && m.weights[24] == 2.0f);
        CHECK(weight_sum(&m) == 0.0);
        mask_free(&m);
    }

    /* laplacian: 1 everywhere, 1 - w*h at the anchor. */
    if (!make_mask(MASK_LAPLACIAN, 3, 3, 0, &m)) {
        const float e[] = {1, 1, 1, 1, -8, 1, 1, 1, 1};
        CHECK(weights_are(&m, 3, 3, e));
        CHECK(mask_abs_sum(&m) == 16.0);
        mask_free(&m);
    }
    if (!make_mask(MASK_LAPLACIAN, 3, 1, 0, &m)) {
        const float e[] = {1, -2, 1};
        CHECK(weights_are(&m, 3, 1, e));
        CHECK(mask_abs_sum(&m) == 4.0);
        mask_free(&m);
    }
    if (!make_mask(MASK_LAPLACIAN, 4, 2, 0, &m)) {
        /* even sizes: the anchor is (4/2, 2/2) = column 2 of row 1 */
        const float e[] = {1, 1, 1, 1, 1, 1, -7, 1};
        CHECK(weights_are(&m, 4, 2, e));
        mask_free(&m);
    }

    /* emboss: (x - cx) + (y - cy), plus 1 at the anchor. */
    if (!make_mask(MASK_EMBOSS, 3, 3, 0, &m)) {
        const float e[] = {-2, -1, 0, -1, 1, 1, 0, 1, 2};
        CHECK(weights_are(&m, 3, 3, e));
        CHECK(mask_abs_sum(&m) == 9.0);
        mask_free(&m);
    }

    /* sharpen: 2 * delta - box, so -1/9 around and 2 - 1/9 at the anchor; sums to 1. */
    if (!make_mask(MASK_SHARPEN, 3, 3, 0, &m)) {
        int ok = 1;
        for (int k = 0; k < 9; ++k)
            ok &= k == 4 ? fabsf(m.weights[k] - (2.0f - 1.0f / 9)) <= 1e-6f
                         : fabsf(m.weights[k] + 1.0f / 9) <= 1e-7f;
        CHECK(ok);
        CHECK_NEAR(weight_sum(&m), 1.0, 1e-6);
        mask_free(&m);
    }
    if (!make_mask(MASK_SHARPEN, 5, 1, 0, &m)) {
        CHECK_NEAR(m.weights[2], 2.0 - 0.2, 1e-6);
        CHECK_NEAR(m.weights[0], -0.2, 1e-7);
        CHECK_NEAR(weight_sum(&m), 1.0, 1e-6);
        mask_free(&m);
    }
    if (!make_mask(MASK_SHARPEN, 4, 2, 0, &m)) {
        CHECK_NEAR(m.weights[1 * 4 + 2], 2.0 - 0.125, 1e-6); /* anchor (2, 1) */
        CHECK_NEAR(weight_sum(&m), 1.0, 1e-6);
        mask_free(&m);
    }

    /* gaussian: sums to 1, mirror-symmetric along both axes (exactly: the distances from the
     * centre are the same numbers), largest at the centre, separable; 1x1 is the identity. */
    const int gsizes[][2] = {{3, 3}, {5, 5}, {7, 7}, {4, 2}, {2, 2},
                             {5, 1}, {6, 1}, {1, 1}, {9, 3}};
    for (size_t k = 0; k < sizeof gsizes / sizeof gsizes[0]; ++k) {
        int w = gsizes[k][0], h = gsizes[k][1];
        if (make_mask(MASK_GAUSSIAN, w, h, 0, &m)) continue;
        CHECK_NEAR(weight_sum(&m), 1.0, 1e-6);
        int symmetric = 1, positive = 1;
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j) {
                float v = m.weights[i * w + j];
                symmetric &= v == m.weights[i * w + (w - 1 - j)];
                symmetric &= v == m.weights[(h - 1 - i) * w + j];
                positive &= v > 0.0f && v <= m.weights[(h / 2) * w + w / 2];
            }
        CHECK(symmetric);
        CHECK(positive);
        mask_free(&m);
    }
    if (!make_mask(MASK_GAUSSIAN, 1, 1, 0, &m)) {
        CHECK(m.weights[0] == 1.0f);
        mask_free(&m);
    }
    /* sigma = size / 6 (at least 0.5): ratios of neighbouring weights are exp(-d^2 / 2 sigma^2)
     * differences. Size 3: sigma 0.5, edge / centre = exp(-2). Size 5: sigma 5/6, so
     * 1 / 2 sigma^2 = 18/25 and the weights at distance 1 and 2 are exp(-0.72) and exp(-2.88)
     * of the centre. */
    if (!make_mask(MASK_GAUSSIAN, 3, 1, 0, &m)) {
        CHECK_NEAR(m.weights[0] / m.weights[1], exp(-2.0), 1e-6);
        mask_free(&m);
    }
    struct mask g1, g2;
    if (!make_mask(MASK_GAUSSIAN, 5, 1, 0, &g1) && !make_mask(MASK_GAUSSIAN, 5, 5, 0, &g2)) {
        CHECK_NEAR(g1.weights[1] / g1.weights[2], exp(-0.72), 1e-6);
        CHECK_NEAR(g1.weights[0] / g1.weights[2], exp(-2.88), 1e-6);
        /* the 5x5 is the outer product of the 5-wide 1D one */
        int separable = 1;
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j)
                separable &= fabsf(g2.weights[i * 5 + j] - g1.weights[i] * g1.weights[j]) <= 1e-7f;
        CHECK(separable);
        CHECK(g1.weights[0] < g1.weights[1] && g1.weights[1] < g1.weights[2]);
        CHECK(strcmp(g2.name, "gaussian 5x5") == 0);
        mask_free(&g1);
        mask_free(&g2);
    }

    /* random: repeatable per seed, in [-1, 1), different for another seed. */
    struct mask r1, r2, r3;
    if (!make_mask(MASK_RANDOM, 31, 1, 99, &r1) && !make_mask(MASK_RANDOM, 31, 1, 99, &r2) &&
        !make_mask(MASK_RANDOM, 31, 1, 100, &r3)) {
        CHECK(memcmp(r1.weights, r2.weights, 31 * sizeof(float)) == 0);
        int inside = 1, equal = 0;
        for (int k = 0; k < 31; ++k) {
            inside &= r1.weights[k] >= -1.0f && r1.weights[k] < 1.0f;
            equal += r1.weights[k] == r3.weights[k];
        }
        CHECK(inside);
        CHECK(equal == 0);
        /* mask_abs_sum is the plain sum of |w| */
        double s = 0.0;
        for (int k = 0; k < 31; ++k)
            s += fabs(r1.weights[k]);
        CHECK_NEAR(mask_abs_sum(&r1), s, 1e-12);
        CHECK(mask_abs_sum(&r1) > 0.0);
        mask_free(&r1);
        mask_free(&r2);
        mask_free(&r3);
    }
    if (!make_mask(MASK_RANDOM, 7, 5, 3, &m)) {
        int inside = 1;
        for (int k = 0; k < 35; ++k)
            inside &= m.weights[k] >= -1.0f && m.weights[k] < 1.0f;
        CHECK(inside);
        mask_free(&m);
    }

    /* Sizes below 1 are refused with a message, for every kind. */
    const int bad[][2] = {{0, 1}, {1, 0}, {0, 0}, {-3, 3}, {3, -1}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        err[0] = '\0';
        CHECK(mask_make(MASK_BOX, bad[k][0], bad[k][1], 0, &m, err) == -1 && err[0]);
        CHECK(mask_make(MASK_GAUSSIAN, bad[k][0], bad[k][1], 0, &m, err) == -1);
    }
    CHECK(text_contains(err, "3x-1") || text_contains(err, "-1"));
    CHECK(mask_make(MASK_KIND_COUNT, 3, 3, 0, &m, err) == -1);
}

/* ---- mask_files --------------------------------------------------------------------------- */

/* Loads `text` as a mask file that must be refused; the message must name the file and, where
 * given, the line ("path:3:"). */
static void expect_mask_refused(int line, const char *name, const char *text, int bad_line,
                                const char *also) {
    char path[512], err[WB_ERR_LEN] = "", where[600];
    if (text)
        scratch_write(path, name, text);
    else
        scratch_path(path, name);
    struct mask m;
    int failed_before = check_failed;
    CHECK(mask_load_file(path, &m, err) == -1);
    CHECK(text_contains(err, path));
    if (bad_line > 0) {
        snprintf(where, sizeof where, "%s:%d:", path, bad_line);
        CHECK(text_contains(err, where));
    }
    if (also) CHECK(text_contains(err, also));
    CHECK(!strchr(err, '\n'));
    if (check_failed != failed_before)
        fprintf(stderr, "  (from line %d, file %s; message: %s)\n", line, name, err);
    mask_free(&m); /* safe: the loader leaves a zeroed mask on failure */
}

static void test_mask_files(void) {
    char path[512], err[WB_ERR_LEN] = "";
    struct mask m;

    /* A 1x5 row. */
    scratch_write(path, "row.txt", "1 2 3 4 5\n");
    if (!(mask_load_file(path, &m, err) == 0)) {
        CHECK(!"row.txt loads");
        fprintf(stderr, "  %s\n", err);
    } else {
        const float e[] = {1, 2, 3, 4, 5};
        CHECK(weights_are(&m, 5, 1, e));
        CHECK(strncmp(m.name, "file ", 5) == 0);
        mask_free(&m);
    }

    /* A 3x3 with comments, blank lines, commas, tabs, signs, exponents, no final newline. */
    scratch_write(path, "grid.txt",
               "# a 3x3 test mask\n"
               "\n"
               "1, 2,\t3   # first row\n"
               "\t-4 +5 6e-1\n"
               "   \n"
               "7,8,9.25");
    if (!(mask_load_file(path, &m, err) == 0)) {
        CHECK(!"grid.txt loads");
        fprintf(stderr, "  %s\n", err);
    } else {
        const float e[] = {1, 2, 3, -4, 5, 0.6f, 7, 8, 9.25f};
        CHECK(weights_are(&m, 3, 3, e));
        mask_free(&m);
    }

    /* Windows line endings. */
    scratch_write(path, "crlf.txt", "1 2\r\n3 4\r\n");
    if (!(mask_load_file(path, &m, err) == 0)) {
        CHECK(!"crlf.txt loads");
        fprintf(stderr, "  %s\n", err);
    } else {
        const float e[] = {1, 2, 3, 4};
        CHECK(weights_are(&m, 2, 2, e));
        mask_free(&m);
    }

    /* The reader's limit of 1024 values per side guards its fixed row buffer: a row of 1024
     * loads, 1025 values in a row or 1025 rows are refused at the line that overflows. */
    char *big = malloc(1025 * 2 + 1);
    for (int k = 0; k < 1025; ++k)
        memcpy(big + 2 * k, "1 ", 2);
    big[2 * 1024] = '\0';
    scratch_write(path, "row1024.txt", big);
    if (mask_load_file(path, &m, err) != 0) {
        CHECK(!"row1024.txt loads");
        fprintf(stderr, "  %s\n", err);
    } else {
        CHECK(m.width == 1024 && m.height == 1 && m.weights[1023] == 1.0f);
        mask_free(&m);
    }
    big[2 * 1024] = '1';
    big[2 * 1024 + 1] = '\0';
    expect_mask_refused(__LINE__, "row1025.txt", big, 1, "1024");
    for (int k = 0; k < 1025; ++k)
        memcpy(big + 2 * k, "1\n", 2);
    big[2 * 1025] = '\0';
    expect_mask_refused(__LINE__, "rows1025.txt", big, 1025, "1024");
    free(big);

    /* Refusals: each names the file and the line it stopped at. */
    expect_mask_refused(__LINE__, "abc.txt", "1 2 3\n4 abc 6\n", 2, "abc");
    expect_mask_refused(__LINE__, "suffix.txt", "# comment\n1.5x 2\n", 2, "1.5x");
    expect_mask_refused(__LINE__, "nan.txt", "1 nan\n", 1, "nan");
    expect_mask_refused(__LINE__, "inf.txt", "\n\n1 inf\n", 3, "inf");
    expect_mask_refused(__LINE__, "minus_inf.txt", "-inf\n", 1, NULL);
    expect_mask_refused(__LINE__, "big.txt", "1 2\n1e39 3\n", 2, "1e39");
    expect_mask_refused(__LINE__, "huge.txt", "1e400\n", 1, NULL); /* double overflow */
    expect_mask_refused(__LINE__, "ragged.txt", "1 2 3\n# ok so far\n4 5\n", 3, NULL);
    expect_mask_refused(__LINE__, "ragged_long.txt", "1 2\n3 4 5\n", 2, NULL);
    expect_mask_refused(__LINE__, "empty.txt", "", 0, NULL);
    expect_mask_refused(__LINE__, "comments.txt", "# nothing\n\n   # still nothing\n", 0, NULL);
    expect_mask_refused(__LINE__, "no_such_mask.txt", NULL, 0, NULL);
}

int main(int argc, char **argv) {
    int status = scratch_from_args(argc, argv, "unit_masks");
    if (status) return status;
    test_masks();
    test_mask_files();
    return check_summary("unit_masks");
}
