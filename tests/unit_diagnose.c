/* unit_diagnose.c: does diagnose_failure name the bug? (common/diagnose.c; no GPU needed)
 *
 *   usage: unit_diagnose [SEED]       random data and masks from SEED (printed; default: time)
 *
 * Each case computes the output a buggy kernel would give, on the CPU, one output at a time,
 * the way the workbook's mutants (tests/mutants.sh) and typical student mistakes get it wrong:
 * a simulated kernel reads its inputs through `fetch` (where the bug can go: a ghost cell that is
 * not zero, a halo cell loaded from the wrong place, rows addressed by width) and its weights
 * through `weight` (a weight dropped, stale or reversed). The reference and the tolerance are
 * the workbook's own (reference.c, verify.c), so the failures are the ones the harness sees.
 */
#include "check.h"
#include "data_gen.h"
#include "diagnose.h"
#include "reference.h"
#include "verify.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum bug {
    CORRECT,
    SKIP_LAST_INPUT,   /* k < n - 1 */
    SKIP_FIRST_INPUT,  /* k > 0 */
    GHOST_NOT_ZERO,    /* ghost cells read as 1 (2D) or in[0] (1D) */
    ANCHOR,            /* the window starts (w - 1) / 2 to the left */
    DROP_LAST_WEIGHT,  /* j < w - 1 */
    STALE_LAST_WEIGHT, /* the last weight left over from an earlier mask */
    FLIPPED,           /* a convolution */
    WEIGHTS_SHIFTED,   /* weight j + 1 at tap j */
    LEFT_HALO_OFF,     /* the left halo cells of each tile loaded one place to the right */
    TILE_END_OFF,      /* the last input of each tile taken from the next one */
    ROWS_BY_WIDTH,     /* 2D: row y read at y * width in rows pitch apart */
    ONE_PLANE_SHIFTED  /* 2D: plane 1 computed from plane 0's data */
};

struct problem {
    float *input, *mask, *ref, *magnitude, *got;
    int mask_w, mask_h, block, tile;
    size_t width, height, pitch;
    int planes;
    float stale;
};

/* What the buggy kernel reads for input (row, col) of plane p, computing output (y, x). */
static double fetch(const struct problem *q, enum bug bug, int p, long row, long col, long x) {
    long w = (long)q->width, h = (long)q->height;
    const float *plane = q->input + (size_t)p * q->width * q->height;
    if (bug == ONE_PLANE_SHIFTED && p == 1) plane = q->input;
    if (bug == LEFT_HALO_OFF && q->tile && col < (x / q->tile) * q->tile)
        col += 1; /* a left halo cell of this output's tile, loaded one place off */
    if (bug == TILE_END_OFF && q->tile && col == (x / q->tile + 1) * q->tile)
        return 3.0; /* the first cell after the tile, read from the wrong place */
    int inside = row >= 0 && row < h && col >= 0 && col < w;
    if (bug == SKIP_LAST_INPUT && col == w - 1) return 0.0;
    if (bug == SKIP_FIRST_INPUT && col == 0) return 0.0;
    if (!inside) {
        if (bug == GHOST_NOT_ZERO) return h == 1 ? plane[0] : 1.0;
        return 0.0;
    }
    if (bug == ROWS_BY_WIDTH) {
        size_t linear = (size_t)row * q->width + (size_t)col;
        size_t r = linear / q->pitch, c = linear % q->pitch;
        if (c >= q->width) return 7.0; /* the padding: whatever was there */
        return q->input[((size_t)p * q->height + r) * q->width + c];
    }
    return plane[(size_t)row * q->width + (size_t)col];
}

static double weight(const struct problem *q, enum bug bug, int i, int j) {
    int mw = q->mask_w, mh = q->mask_h;
    if (bug == DROP_LAST_WEIGHT && i == mh - 1 && j == mw - 1) return 0.0;
    if (bug == STALE_LAST_WEIGHT && i == mh - 1 && j == mw - 1) return q->stale;
    if (bug == FLIPPED) return q->mask[(mh - 1 - i) * mw + (mw - 1 - j)];
    if (bug == WEIGHTS_SHIFTED) {
        int k = i * mw + j + 1;
        return k < mw * mh ? q->mask[k] : 0.0;
    }
    return q->mask[i * mw + j];
}

static void run_kernel(struct problem *q, enum bug bug) {
    int left = bug == ANCHOR ? (q->mask_w - 1) / 2 : q->mask_w / 2;
    int top = bug == ANCHOR && q->height > 1 ? (q->mask_h - 1) / 2 : q->mask_h / 2;
    for (int p = 0; p < q->planes; ++p)
        for (size_t y = 0; y < q->height; ++y)
            for (size_t x = 0; x < q->width; ++x) {
                double sum = 0.0;
                for (int i = 0; i < q->mask_h; ++i)
                    for (int j = 0; j < q->mask_w; ++j)
                        sum += weight(q, bug, i, j) *
                               fetch(q, bug, p, (long)y - top + i, (long)x - left + j, (long)x);
                q->got[((size_t)p * q->height + y) * q->width + x] = (float)sum;
            }
}

static struct problem make_problem(uint64_t seed, size_t width, size_t height, int planes,
                                   int mask_w, int mask_h, int block, int tile) {
    struct problem q = {.mask_w = mask_w,
                        .mask_h = mask_h,
                        .block = block,
                        .tile = tile,
                        .width = width,
                        .height = height,
                        .planes = planes};
    size_t count = width * height * (size_t)planes;
    q.input = malloc(count * sizeof(float));
    q.ref = malloc(count * sizeof(float));
    q.magnitude = malloc(count * sizeof(float));
    q.got = malloc(count * sizeof(float));
    q.mask = malloc(sizeof(float) * (size_t)(mask_w * mask_h));
    fill_uniform(q.input, count, seed, -1.0f, 1.0f);
    fill_uniform(q.mask, (size_t)(mask_w * mask_h), seed + 1, -1.0f, 1.0f);
    /* No weight within 0.05 of zero: a bug in a weight of 4e-6 (one seed in thousands draws
     * one) changes no output measurably, so no reading of the outputs can name it. */
    for (int k = 0; k < mask_w * mask_h; ++k)
        if (fabsf(q.mask[k]) < 0.05f) q.mask[k] = q.mask[k] < 0.0f ? -0.05f : 0.05f;
    q.stale = q.mask[mask_w * mask_h - 1] + 0.75f;
    q.pitch = (width + 63) / 64 * 64 + (width % 64 == 0 ? 64 : 0); /* wider than the row */
    size_t plane = width * height;
    for (int p = 0; p < planes; ++p)
        cpu_correlate_2d(q.input + p * plane, (int)width, (int)height, q.mask, mask_w, mask_h,
                         q.ref + p * plane, q.magnitude + p * plane, 0);
    return q;
}

static void free_problem(struct problem *q) {
    free(q->input), free(q->ref), free(q->magnitude), free(q->got), free(q->mask);
}

static struct diagnosis diagnose(const struct problem *q) {
    struct failure f = {.got = q->got,
                        .ref = q->ref,
                        .magnitude = q->magnitude,
                        .terms = q->mask_w * q->mask_h,
                        .input = q->input,
                        .mask = q->mask,
                        .mask_w = q->mask_w,
                        .mask_h = q->mask_h,
                        .width = q->width,
                        .height = q->height,
                        .planes = q->planes,
                        .block = q->block,
                        .pitch_floats = q->height > 1 ? q->pitch : 0};
    return diagnose_failure(&f);
}

/* The bug, run through the simulated kernel, must be diagnosed as `expected`. */
static void expect(struct problem *q, enum bug bug, enum hint expected, const char *what) {
    run_kernel(q, bug);
    struct diagnosis d = diagnose(q);
    ++check_count;
    if (d.hint != expected) {
        ++check_failed;
        fprintf(stderr, "unit_diagnose: %s (%zux%zu, mask %dx%d): got [%s], expected [%s]\n", what,
                q->width, q->height, q->mask_w, q->mask_h, hint_id(d.hint), hint_id(expected));
    }
}

static void set_nan(struct problem *q, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i)
        q->got[i] = NAN;
}

static void one_d(uint64_t seed) {
    for (int w = 5; w <= 8; w += 3) { /* an odd and an even width */
        struct problem q = make_problem(seed + (uint64_t)w, 4099, 1, 1, w, 1, 64, 64);
        expect(&q, CORRECT, HINT_NONE, "1D correct");
        expect(&q, SKIP_LAST_INPUT, HINT_GHOST_CELLS, "1D skips the last input");
        expect(&q, SKIP_FIRST_INPUT, HINT_GHOST_CELLS, "1D skips the first input");
        expect(&q, GHOST_NOT_ZERO, HINT_GHOST_CELLS, "1D left ghost cells are in[0]");
        expect(&q, DROP_LAST_WEIGHT, HINT_ONE_TAP, "1D drops the last weight");
        struct diagnosis d = diagnose(&q);
        CHECK(d.detail == w - 1);
        expect(&q, STALE_LAST_WEIGHT, HINT_ONE_TAP, "1D a stale last weight");
        expect(&q, FLIPPED, HINT_FLIPPED, "1D convolution instead of correlation");
        expect(&q, WEIGHTS_SHIFTED, HINT_WRONG_EVERYWHERE, "1D weights shifted by one");
        expect(&q, LEFT_HALO_OFF, HINT_TILE_SEAMS, "1D left halo off by one");
        expect(&q, TILE_END_OFF, HINT_TILE_SEAMS, "1D tile end off by one");
        if (w % 2 == 0) expect(&q, ANCHOR, HINT_SHIFTED, "1D even-width anchor");
        run_kernel(&q, CORRECT);
        set_nan(&q, 4096, 4099); /* the grid rounded down */
        d = diagnose(&q);
        CHECK(d.hint == HINT_UNWRITTEN_END);
        run_kernel(&q, CORRECT);
        set_nan(&q, 3 * 64, 4 * 64); /* block 3 returned early */
        d = diagnose(&q);
        CHECK(d.hint == HINT_UNWRITTEN);
        free_problem(&q);
    }
}

static void two_d(uint64_t seed) {
    for (int w = 5; w <= 6; ++w) {
        struct problem q =
            make_problem(seed + 10 + (uint64_t)w, 301, 203, 3, w, w, 16, 16 - (w - 1));
        expect(&q, CORRECT, HINT_NONE, "2D correct");
        expect(&q, GHOST_NOT_ZERO, HINT_GHOST_CELLS, "2D ghost cells not zero");
        expect(&q, FLIPPED, HINT_FLIPPED, "2D convolution instead of correlation");
        expect(&q, ROWS_BY_WIDTH, HINT_PITCH, "2D rows addressed by width");
        expect(&q, ONE_PLANE_SHIFTED, HINT_ONE_PLANE, "2D plane 1 from plane 0's data");
        expect(&q, LEFT_HALO_OFF, HINT_TILE_SEAMS, "2D left halo off by one");
        expect(&q, DROP_LAST_WEIGHT, HINT_ONE_TAP, "2D drops the last weight");
        if (w % 2 == 0) expect(&q, ANCHOR, HINT_SHIFTED, "2D even-width anchor");
        run_kernel(&q, CORRECT);
        size_t plane = q.width * q.height;
        for (int p = 0; p < q.planes; ++p) /* the last columns and rows never written */
            for (size_t y = 0; y < q.height; ++y)
                for (size_t x = 0; x < q.width; ++x)
                    if (x >= 288 || y >= 200) q.got[p * plane + y * q.width + x] = NAN;
        CHECK(diagnose(&q).hint == HINT_UNWRITTEN_END);
        run_kernel(&q, CORRECT);
        for (int p = 0; p < q.planes; ++p) /* one tile in the middle never written */
            for (size_t y = 32; y < 48; ++y)
                for (size_t x = 64; x < 80; ++x)
                    q.got[p * plane + y * q.width + x] = NAN;
        CHECK(diagnose(&q).hint == HINT_UNWRITTEN);
        free_problem(&q);
    }
}

/* The run's summary: only even widths failing gives the even-widths hint; a race wins. */
static void summary(void) {
    char text[4096];
    FILE *out = tmpfile();
    struct diagnosis shifted = {HINT_SHIFTED, 0}, none = {HINT_NONE, 0};
    hint_tally(none, 3, 1, 0, 1.0);
    hint_tally(shifted, 4, 1, 1, 1.0);
    hint_tally(shifted, 6, 1, 1, 1.0);
    hint_tally_print(out, 1);
    rewind(out);
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    fclose(out);
    CHECK(strstr(text, "hint [even-widths]") != NULL);
    CHECK(strstr(text, "01_basic_1d/README.md") != NULL);
    out = tmpfile();
    hint_tally((struct diagnosis){HINT_RACE, 0}, 5, 1, 1, 1.0);
    hint_tally_print(out, 2);
    rewind(out);
    n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    fclose(out);
    CHECK(strstr(text, "hint [race]") != NULL);
    CHECK(strcmp(hint_id(HINT_TILE_SEAMS), "tile-seams") == 0);
}

int main(int argc, char **argv) {
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : (uint64_t)time(NULL);
    printf("unit_diagnose: seed %llu\n", (unsigned long long)seed);
    one_d(seed);
    two_d(seed);
    summary();
    return check_summary("unit_diagnose");
}
