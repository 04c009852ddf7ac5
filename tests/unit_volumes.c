/* unit_volumes.c: the volume masks, the 3D CPU reference, the phantom and the montage
 * (masks3d.h, reference.h, volumes.h), no GPU.
 *
 *   build/tests/unit_volumes SCRATCH_DIR
 *
 * Random data is drawn fresh each run from a printed seed (UNIT_SEED=N repeats one).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "data_gen.h"
#include "masks3d.h"
#include "image_io.h"
#include "reference.h"
#include "safe_output.h"
#include "volumes.h"

static const char *scratch;

static int contains(const char *text, const char *needle) {
    return strstr(text, needle) != NULL;
}

static const char *write_file(const char *name, const char *text) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

static double sum_of(const struct mask3d *m) {
    double s = 0.0;
    for (int n = 0; n < m->width * m->height * m->depth; ++n)
        s += m->weights[n];
    return s;
}

static float weight(const struct mask3d *m, int k, int i, int j) {
    return m->weights[((size_t)k * m->height + i) * m->width + j];
}

static void test_named(void) {
    struct mask3d m;
    char err[WB_ERR_LEN];
    enum mask3d_kind kind;
    CHECK(mask3d_kind_parse("laplacian27", &kind, err) == 0 && kind == MASK3D_LAPLACIAN27);
    CHECK(mask3d_kind_parse("sobel", &kind, err) == -1 && contains(err, "laplacian7"));
    /* every size 1..7 on each axis for box, Gaussian and random; the sums and the anchor */
    for (int d = 1; d <= MASK3D_MAX_SIDE; ++d)
        for (int h = 1; h <= MASK3D_MAX_SIDE; h += 2)
            for (int w = 1; w <= MASK3D_MAX_SIDE; w += 3) {
                if (mask3d_make(MASK3D_BOX, w, h, d, 1, &m, err) == 0) {
                    CHECK_NEAR(sum_of(&m), 1.0, 1e-5);
                    mask3d_free(&m);
                } else {
                    CHECK(0);
                }
                if (mask3d_make(MASK3D_GAUSSIAN, w, h, d, 1, &m, err) == 0) {
                    CHECK_NEAR(sum_of(&m), 1.0, 1e-5);
                    /* symmetric along every axis, odd or even */
                    CHECK(weight(&m, 0, 0, 0) == weight(&m, d - 1, h - 1, w - 1));
                    mask3d_free(&m);
                } else {
                    CHECK(0);
                }
            }
    /* the 7-point stencil: -6 at the anchor of a 3x3x3, 1 on its six faces, 0 elsewhere */
    if (mask3d_make(MASK3D_LAPLACIAN7, 3, 3, 3, 1, &m, err) == 0) {
        CHECK(weight(&m, 1, 1, 1) == -6.0f && weight(&m, 0, 1, 1) == 1.0f &&
              weight(&m, 1, 1, 2) == 1.0f && weight(&m, 0, 0, 0) == 0.0f);
        CHECK_NEAR(sum_of(&m), 0.0, 1e-6);
        mask3d_free(&m);
    }
    /* an even 4x1x5 mask: the anchor is (2, 0, 2); only x and z are 3 or more long */
    if (mask3d_make(MASK3D_LAPLACIAN7, 4, 1, 5, 1, &m, err) == 0) {
        CHECK(weight(&m, 2, 0, 2) == -4.0f && weight(&m, 2, 0, 1) == 1.0f &&
              weight(&m, 2, 0, 3) == 1.0f && weight(&m, 1, 0, 2) == 1.0f && weight(&m, 3, 0, 2) == 1.0f);
        CHECK_NEAR(sum_of(&m), 0.0, 1e-6);
        mask3d_free(&m);
    }
    CHECK(mask3d_make(MASK3D_LAPLACIAN7, 2, 2, 1, 1, &m, err) == -1 &&
          contains(err, "at least 3 along one axis"));
    /* the 27-point stencil on a 5x5x5: -88/26 at the anchor, corners 2/26, zeros outside */
    if (mask3d_make(MASK3D_LAPLACIAN27, 5, 5, 5, 1, &m, err) == 0) {
        CHECK_NEAR(weight(&m, 2, 2, 2), -88.0 / 26.0, 1e-6);
        CHECK_NEAR(weight(&m, 1, 1, 1), 2.0 / 26.0, 1e-6);
        CHECK_NEAR(weight(&m, 2, 1, 1), 3.0 / 26.0, 1e-6);
        CHECK_NEAR(weight(&m, 2, 2, 3), 6.0 / 26.0, 1e-6);
        CHECK(weight(&m, 0, 2, 2) == 0.0f && weight(&m, 4, 4, 4) == 0.0f);
        CHECK_NEAR(sum_of(&m), 0.0, 1e-5);
        mask3d_free(&m);
    }
    CHECK(mask3d_make(MASK3D_LAPLACIAN27, 3, 3, 2, 1, &m, err) == -1 &&
          contains(err, "at least 3x3x3"));
    /* random: the seed decides, in [-1, 1) */
    struct mask3d again;
    if (mask3d_make(MASK3D_RANDOM, 7, 6, 5, 42, &m, err) == 0 &&
        mask3d_make(MASK3D_RANDOM, 7, 6, 5, 42, &again, err) == 0) {
        CHECK(memcmp(m.weights, again.weights, sizeof(float) * 7 * 6 * 5) == 0);
        int in_range = 1;
        for (int n = 0; n < 7 * 6 * 5; ++n)
            in_range &= m.weights[n] >= -1.0f && m.weights[n] < 1.0f;
        CHECK(in_range);
        CHECK(contains(m.name, "random 7x6x5"));
        mask3d_free(&m);
        mask3d_free(&again);
    }
    CHECK(mask3d_make(MASK3D_BOX, 8, 1, 1, 1, &m, err) == -1 && contains(err, "1 to 7 per axis"));
    CHECK(mask3d_make(MASK3D_BOX, 3, 0, 1, 1, &m, err) == -1 && contains(err, "out of range"));
}

static void test_files(void) {
    struct mask3d m;
    char err[WB_ERR_LEN];
    /* three columns, two rows, two slices; comments, commas and several blank lines */
    const char *path = write_file("mask_3x2x2.txt", "# a 3x2x2 mask\n1 2 3\n4,5,6\n\n\n"
                                                   "# the second slice\n7 8 9\n10 11 12\n\n");
    if (mask3d_load_file(path, &m, err) == 0) {
        CHECK(m.width == 3 && m.height == 2 && m.depth == 2);
        CHECK(weight(&m, 0, 0, 0) == 1.0f && weight(&m, 0, 1, 2) == 6.0f &&
              weight(&m, 1, 0, 0) == 7.0f && weight(&m, 1, 1, 2) == 12.0f);
        CHECK(contains(m.name, "mask_3x2x2.txt"));
        mask3d_free(&m);
    } else {
        CHECK(0);
        fprintf(stderr, "  (%s)\n", err);
    }
    /* a comment line between rows does not split the slice */
    path = write_file("mask_comment.txt", "1 2\n# still the first slice\n3 4\n");
    if (mask3d_load_file(path, &m, err) == 0) {
        CHECK(m.width == 2 && m.height == 2 && m.depth == 1);
        mask3d_free(&m);
    }
    struct {
        const char *name, *text, *needle;
    } bad[] = {
        {"ragged_rows.txt", "1 2 3\n4 5\n", ":2: row has 2 values but the row on line 1 has 3"},
        {"ragged_slices.txt", "1 2\n3 4\n\n5 6\n", ":4: the slice starting here has 1 rows but the "
                                                   "one on line 1 has 2 (ragged slices)"},
        {"too_wide.txt", "1 2 3 4 5 6 7 8\n", "more than 7 values in a row"},
        {"too_tall.txt", "1\n1\n1\n1\n1\n1\n1\n1\n", "a slice of more than 7 rows"},
        {"too_deep.txt", "1\n\n1\n\n1\n\n1\n\n1\n\n1\n\n1\n\n1\n", "more than 7 slices"},
        {"nan.txt", "1 nan\n", "not a finite number"},
        {"word.txt", "1 two\n", "'two' is not a number"},
        {"empty.txt", "# nothing\n\n", "holds no numbers"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        path = write_file(bad[k].name, bad[k].text);
        int status = mask3d_load_file(path, &m, err);
        CHECK(status == -1 && contains(err, bad[k].needle) && !strchr(err, '\n'));
        if (status != -1 || !contains(err, bad[k].needle))
            fprintf(stderr, "  (%s: '%s', expected '%s')\n", bad[k].name, err, bad[k].needle);
    }
    CHECK(mask3d_load_file("/nonexistent/mask.txt", &m, err) == -1 && contains(err, "cannot open"));
}

/* The reference against the formula written out with no shortcuts, on random volumes and
 * masks of odd, even and unequal sizes, and volumes thinner than the mask. */
static void test_reference(uint64_t seed) {
    static const int sizes[][3] = {{1, 1, 1}, {1, 1, 9}, {9, 1, 1}, {5, 4, 3}, {17, 6, 2}, {3, 8, 7}};
    static const int masks[][3] = {{1, 1, 1}, {3, 3, 3}, {2, 5, 4}, {7, 1, 6}, {4, 4, 7}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
        for (size_t k = 0; k < sizeof masks / sizeof *masks; ++k) {
            const int w = sizes[s][0], h = sizes[s][1], d = sizes[s][2];
            const int mw = masks[k][0], mh = masks[k][1], md = masks[k][2];
            const size_t n = (size_t)w * h * d;
            float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
            float *magnitude = malloc(n * sizeof *magnitude), *par = malloc(n * sizeof *par);
            float mask[7 * 7 * 7];
            fill_uniform(in, n, seed + s, -1.0f, 1.0f);
            fill_uniform(mask, (size_t)mw * mh * md, seed + 100 + k, -1.0f, 1.0f);
            cpu_correlate_3d(in, w, h, d, mask, mw, mh, md, out, magnitude, 0);
            cpu_correlate_3d(in, w, h, d, mask, mw, mh, md, par, NULL, 1);
            int exact = 1, bounded = 1, same = memcmp(out, par, n * sizeof *out) == 0;
            for (int z = 0; z < d; ++z)
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        double sum = 0.0;
                        for (int a = 0; a < md; ++a)
                            for (int b = 0; b < mh; ++b)
                                for (int c = 0; c < mw; ++c) {
                                    int zz = z + a - md / 2, yy = y + b - mh / 2, xx = x + c - mw / 2;
                                    if (zz < 0 || zz >= d || yy < 0 || yy >= h || xx < 0 || xx >= w)
                                        continue;
                                    sum += (double)mask[(a * mh + b) * mw + c] *
                                           in[((size_t)zz * h + yy) * w + xx];
                                }
                        const size_t o = ((size_t)z * h + y) * w + x;
                        exact &= fabs(out[o] - sum) <= 1e-6 * (1.0 + fabs(sum));
                        bounded &= fabs(out[o]) <= magnitude[o] * (1.0f + 1e-6f) + 1e-30f;
                    }
            CHECK(exact);
            CHECK(bounded);
            CHECK(same); /* OpenMP or not, the same sums in the same order */
            if (!exact)
                fprintf(stderr, "  (volume %dx%dx%d, mask %dx%dx%d)\n", w, h, d, mw, mh, md);
            free(in);
            free(out);
            free(magnitude);
            free(par);
        }
    /* a delta at the anchor copies the volume; one a voxel off shifts it, zeros coming in */
    float in[4 * 3 * 2], out[4 * 3 * 2], delta[3 * 3 * 3] = {0};
    for (int v = 0; v < 24; ++v)
        in[v] = (float)(v + 1);
    delta[13] = 1.0f; /* (1, 1, 1) */
    cpu_correlate_3d(in, 4, 3, 2, delta, 3, 3, 3, out, NULL, 0);
    CHECK(memcmp(in, out, sizeof in) == 0);
    delta[13] = 0.0f;
    delta[(2 * 3 + 1) * 3 + 1] = 1.0f; /* one slice down: out[z] = in[z + 1] */
    cpu_correlate_3d(in, 4, 3, 2, delta, 3, 3, 3, out, NULL, 0);
    CHECK(memcmp(out, in + 12, 12 * sizeof *in) == 0 && out[12] == 0.0f && out[23] == 0.0f);
}

static void test_phantom_and_montage(uint64_t seed) {
    enum { W = 64, H = 48, D = 20 };
    float *v = malloc(sizeof *v * W * H * D), *again = malloc(sizeof *v * W * H * D);
    volume_phantom(v, W, H, D, seed);
    volume_phantom(again, W, H, D, seed);
    CHECK(memcmp(v, again, sizeof *v * W * H * D) == 0); /* the seed decides */
    volume_phantom(again, W, H, D, seed + 1);
    CHECK(memcmp(v, again, sizeof *v * W * H * D) != 0);
    int in_range = 1, bright = 0, dark = 0;
    for (int n = 0; n < W * H * D; ++n) {
        in_range &= v[n] >= 0.0f && v[n] <= 1.0f;
        bright += v[n] > 0.55f;
        dark += v[n] < 0.15f;
    }
    CHECK(in_range);
    CHECK(bright > 100 && dark > 100); /* spheres bright and dark against the background */

    char path[512], err[WB_ERR_LEN];
    snprintf(path, sizeof path, "%s/montage.png", scratch);
    remove(path);
    CHECK(volume_montage(path, v, W, H, D, 9, err) == 0);
    struct image img;
    if (image_load_png(path, &img, err) == 0) {
        CHECK(img.width == 3 * (W + 1) - 1 && img.height == 3 * (H + 1) - 1 && img.channels == 1);
        float least = v[0], most = v[0];
        for (int n = 0; n < W * H * D; ++n) {
            least = v[n] < least ? v[n] : least;
            most = v[n] > most ? v[n] : most;
        }
        /* tile t shows slice t * (D - 1) / 8: tile 0 slice 0, tile 4 (the middle) slice 9 */
        const float first = (v[0] - least) / (most - least);
        const float middle = (v[((size_t)9 * H + 5) * W + 7] - least) / (most - least);
        CHECK_NEAR(img.data[0], first, 0.5 / 255 + 1e-6);
        CHECK_NEAR(img.data[(size_t)(H + 1 + 5) * img.width + (W + 1) + 7], middle, 0.5 / 255 + 1e-6);
        CHECK_NEAR(img.data[W], 128.0 / 255.0, 0.5 / 255 + 1e-6); /* the grey between tiles */
        image_free(&img);
    } else {
        CHECK(0);
    }
    CHECK(volume_montage(path, v, W, H, D, 0, err) == -1 && contains(err, "0 slices"));
    CHECK(volume_montage(path, v, W, H, D, 21, err) == -1 && contains(err, "(1 to 20)"));
    /* 16 slices of 4096 x 4096 make a 16387-pixel square: over the limit, said before any work */
    CHECK(volume_montage_check(4096, 4096, 16, err) == -1 && contains(err, "16387x16387") &&
          contains(err, "write a .npy"));
    CHECK(volume_montage_check(4096, 4096, 1, err) == 0);
    CHECK(safe_output_protect(path, err) == 0); /* an input of the run is never replaced */
    CHECK(volume_montage(path, v, W, H, D, 4, err) == -1 && contains(err, "refusing to overwrite"));
    free(v);
    free(again);
}

static void test_npy(void) {
    char path[512], err[WB_ERR_LEN];
    float v[2 * 3 * 4], *back = NULL;
    for (int n = 0; n < 24; ++n)
        v[n] = (float)n / 7.0f;
    snprintf(path, sizeof path, "%s/volume_4x3x2.npy", scratch);
    remove(path);
    CHECK(volume_save_npy(path, v, 4, 3, 2, err) == 0);
    int w = 0, h = 0, d = 0;
    if (volume_load_npy(path, &back, &w, &h, &d, err) == 0) {
        CHECK(w == 4 && h == 3 && d == 2 && memcmp(back, v, sizeof v) == 0);
        free(back);
    } else {
        CHECK(0);
    }
    /* 2-D and 4-D arrays, and a NaN, are refused with a line that says what is wrong */
    const size_t flat[2] = {6, 4}, deep[4] = {1, 2, 3, 4};
    snprintf(path, sizeof path, "%s/plane.npy", scratch);
    remove(path);
    CHECK(npy_save_f32(path, v, 2, flat, err) == 0);
    CHECK(volume_load_npy(path, &back, &w, &h, &d, err) == -1 && contains(err, "is a 2-D array") &&
          back == NULL);
    snprintf(path, sizeof path, "%s/four.npy", scratch);
    remove(path);
    CHECK(npy_save_f32(path, v, 4, deep, err) == 0);
    CHECK(volume_load_npy(path, &back, &w, &h, &d, err) == -1 && contains(err, "is a 4-D array"));
    v[5] = NAN;
    snprintf(path, sizeof path, "%s/nan.npy", scratch);
    remove(path);
    CHECK(volume_save_npy(path, v, 4, 3, 2, err) == 0);
    CHECK(volume_load_npy(path, &back, &w, &h, &d, err) == -1 &&
          contains(err, "not a finite float32 (voxel 5)"));
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: unit_volumes SCRATCH_DIR\n");
        return 2;
    }
    scratch = argv[1];
    mkdir(scratch, 0777);
    const char *given = getenv("UNIT_SEED");
    uint64_t seed = given ? strtoull(given, NULL, 10) : (uint64_t)time(NULL);
    printf("unit_volumes: seed %llu (UNIT_SEED=%llu repeats it)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    test_named();
    test_files();
    test_reference(seed);
    test_phantom_and_montage(seed);
    test_npy();
    return check_summary("unit_volumes");
}
