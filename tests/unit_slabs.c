/* unit_slabs.c: chapter 10's host arithmetic, no GPU: the slab plan (slabs.h) and the iterated
 * reference with its error bound (iterated.h).
 *
 *   build/tests/unit_slabs
 *
 * The plan is checked row by row against the mask's reach; the bound against a CPU model of the
 * multi-GPU filter (float sums in another order than the reference's, slabs that trade halo rows
 * every pass), which must pass, and against the model's classic bugs (a halo never exchanged,
 * one exchanged a pass late, one tap dropped), which must fail. Random data is drawn fresh each
 * run from a printed seed (UNIT_SEED=N repeats one).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "data_gen.h"
#include "iterated.h"
#include "reference.h"
#include "slabs.h"
#include "verify.h"

/* ---- the plan ------------------------------------------------------------------------------ */

/* Does row y read a row of the image that slab b neither owns nor receives as halo? Does it read
 * one it does not own (so it must wait for the halo)? */
static void reach(const struct slab *b, int y, int height, int mask_h, int *outside_buffer,
                  int *needs_neighbour) {
    *outside_buffer = *needs_neighbour = 0;
    for (int i = 0; i < mask_h; ++i) {
        const int row = y + i - mask_h / 2;
        if (row < 0 || row >= height) continue; /* a ghost row: zeros, nobody's */
        if (row < b->first || row >= b->first + b->rows) *needs_neighbour = 1;
        if (row < b->first - b->halo_above || row >= b->first + b->rows + b->halo_below)
            *outside_buffer = 1;
    }
}

static void check_plan(int height, int count, int mask_h) {
    struct slab slabs[SLABS_MAX];
    char err[256];
    const int least = slabs_min_rows(mask_h);
    const int refused = slabs_plan(height, count, mask_h, slabs, err) != 0;
    CHECK(refused == (count > 1 && height / count < least));
    if (refused) {
        CHECK(strstr(err, "use at most") != NULL);
        return;
    }
    int next = 0;
    for (int s = 0; s < count; ++s) {
        const struct slab *b = &slabs[s];
        CHECK(b->first == next);
        CHECK(b->rows >= height / count && b->rows <= height / count + 1);
        CHECK(count == 1 || b->rows >= least);
        next += b->rows;
        CHECK(b->edge_top_rows + b->interior_rows + b->edge_bottom_rows == b->rows);
        CHECK(b->interior_first == b->first + b->edge_top_rows);
        for (int y = b->first; y < b->first + b->rows; ++y) {
            int outside, needs;
            reach(b, y, height, mask_h, &outside, &needs);
            const int interior = y >= b->interior_first &&
                                 y < b->interior_first + b->interior_rows;
            CHECK(!outside);             /* the halo is enough */
            CHECK(interior == !needs);   /* and the interior is every row that needs none */
        }
    }
    CHECK(next == height);
}

static void test_plan(uint64_t seed) {
    /* every small case, then random large ones */
    for (int height = 1; height <= 40; ++height)
        for (int count = 1; count <= 9; ++count)
            for (int mask_h = 1; mask_h <= 12; ++mask_h) check_plan(height, count, mask_h);
    struct rng r;
    rng_init(&r, seed);
    for (int k = 0; k < 300; ++k)
        check_plan(1 + (int)(rng_next(&r) % 20000), 1 + (int)(rng_next(&r) % SLABS_MAX),
                   1 + (int)(rng_next(&r) % 31));
    struct slab slabs[SLABS_MAX];
    char err[256];
    CHECK(slabs_plan(100, 0, 3, slabs, err) != 0 && strstr(err, "outside 1..") != NULL);
    CHECK(slabs_plan(100, SLABS_MAX + 1, 3, slabs, err) != 0);
    CHECK(slabs_plan(0, 1, 3, slabs, err) != 0);
    CHECK(slabs_plan(10, 1, 0, slabs, err) != 0);
    /* 16 rows over 3 GPUs with a 15-row mask (7 rows each way): at most 2 GPUs */
    CHECK(slabs_plan(16, 3, 15, slabs, err) != 0 && strstr(err, "at most 2 GPUs") != NULL);
    CHECK(slabs_plan(16, 2, 15, slabs, err) == 0 && slabs[0].interior_rows == 1);
    /* one GPU: nothing to wait for, whatever the mask */
    CHECK(slabs_plan(3, 1, 31, slabs, err) == 0 && slabs[0].interior_rows == 3);
}

/* ---- the bound, against a CPU model of the multi-GPU filter ------------------------------- */

enum bug { NONE, NO_EXCHANGE, LATE_EXCHANGE, DROPPED_TAP };

/* One float pass over slab b's rows: its buffer holds image rows [first - halo_above, first +
 * rows + halo_below) taken from `halo_source` outside the owned rows and `own` inside. Taps are
 * summed in reverse order with fmaf, unlike the reference. */
static void model_pass(const struct slab *b, const float *own, const float *halo_source,
                       int width, int height, const float *mask, int mask_w, int mask_h,
                       enum bug bug, float *out) {
    for (int y = b->first; y < b->first + b->rows; ++y)
        for (int x = 0; x < width; ++x) {
            float sum = 0.0f;
            for (int i = mask_h - 1; i >= 0; --i) {
                const int row = y + i - mask_h / 2;
                if (row < 0 || row >= height) continue;
                const int owned = row >= b->first && row < b->first + b->rows;
                const float *source = owned ? own : halo_source;
                if (!source) continue; /* NO_EXCHANGE: the halo rows hold zeros */
                for (int j = mask_w - 1; j >= 0; --j) {
                    const int col = x + j - mask_w / 2;
                    if (col < 0 || col >= width) continue;
                    if (bug == DROPPED_TAP && y == height / 2 && x == width / 2 &&
                        i == mask_h / 2 && j == mask_w / 2)
                        continue; /* the centre tap of one output: always inside the image */
                    sum = fmaf(mask[i * mask_w + j], source[(size_t)row * width + col], sum);
                }
            }
            out[(size_t)y * width + x] = sum;
        }
}

/* K passes over `count` slabs; returns the iterate. */
static float *model_filter(const float *in, int width, int height, const float *mask, int mask_w,
                           int mask_h, int iterations, int count, enum bug bug) {
    const size_t n = (size_t)width * height;
    struct slab slabs[SLABS_MAX];
    char err[256];
    if (slabs_plan(height, count, mask_h, slabs, err)) return NULL;
    float *cur = malloc(n * sizeof *cur), *next = malloc(n * sizeof *next);
    float *older = malloc(n * sizeof *older);
    memcpy(cur, in, n * sizeof *cur);
    memcpy(older, in, n * sizeof *older);
    for (int pass = 0; pass < iterations; ++pass) {
        for (int s = 0; s < count; ++s) {
            const float *halo = cur;
            if (bug == NO_EXCHANGE) halo = NULL;
            if (bug == LATE_EXCHANGE) halo = older; /* the neighbour's rows of a pass before */
            model_pass(&slabs[s], cur, halo, width, height, mask, mask_w, mask_h, bug, next);
        }
        memcpy(older, cur, n * sizeof *older);
        float *swap = cur;
        cur = next, next = swap;
    }
    free(next), free(older);
    return cur;
}

static int passes(const float *got, const float *ref, const float *magnitude, int width,
                  int height, int terms) {
    const struct verify_shape shape = {(size_t)width, (size_t)height, 1};
    struct verify_summary summary;
    return verify_outputs(got, ref, magnitude, shape, terms, 0, NULL, &summary) == 0;
}

/* Every trial: a correct model passes, split or not, and equals itself to the bit. The bugs are
 * tried on positive masks and inputs (a blur, as diffusion runs), where nothing cancels and each
 * bug errs by a fair part of the value: with mixed signs a large bound can hide a small error. */
static void test_bound(uint64_t seed) {
    struct rng r;
    rng_init(&r, seed ^ 0x5eedULL);
    for (int trial = 0; trial < 60; ++trial) {
        const int positive = trial % 2;
        const int width = 1 + (int)(rng_next(&r) % 70), height = 8 + (int)(rng_next(&r) % 90);
        const int mask_w = 1 + (int)(rng_next(&r) % 7), mask_h = 2 + (int)(rng_next(&r) % 6);
        const int iterations = 1 + (int)(rng_next(&r) % 8);
        const int count = 2 + (int)(rng_next(&r) % 3), terms = mask_w * mask_h;
        const size_t n = (size_t)width * height;
        float *in = malloc(n * sizeof *in), *ref = malloc(n * sizeof *ref);
        float *mag = malloc(n * sizeof *mag), mask[64];
        fill_uniform(in, n, rng_next(&r), positive ? 0.5f : -1.0f, 1.0f);
        fill_uniform(mask, (size_t)terms, rng_next(&r), positive ? 0.1f : -0.6f, 1.0f);
        CHECK(iterated_reference(in, width, height, mask, mask_w, mask_h, iterations, ref, mag,
                                 1) == 0);
        float *one = model_filter(in, width, height, mask, mask_w, mask_h, iterations, 1, NONE);
        float *many = model_filter(in, width, height, mask, mask_w, mask_h, iterations, count,
                                   NONE);
        if (!many) /* more slabs than these rows allow (the plan says so): two always fit */
            many = model_filter(in, width, height, mask, mask_w, mask_h, iterations, 2, NONE);
        CHECK(passes(one, ref, mag, width, height, terms));
        /* the same sums in the same order per output: the slabs change nothing, to the bit */
        CHECK(many && memcmp(one, many, n * sizeof *one) == 0);
        free(one), free(many);
        if (!positive) {
            free(in), free(ref), free(mag);
            continue;
        }
        float *dropped = model_filter(in, width, height, mask, mask_w, mask_h, iterations, 1,
                                      DROPPED_TAP);
        float *alone = model_filter(in, width, height, mask, mask_w, mask_h, iterations, 2,
                                    NO_EXCHANGE);
        CHECK(!passes(dropped, ref, mag, width, height, terms));
        CHECK(!passes(alone, ref, mag, width, height, terms));
        if (iterations > 1) {
            float *late = model_filter(in, width, height, mask, mask_w, mask_h, iterations, 2,
                                       LATE_EXCHANGE);
            CHECK(!passes(late, ref, mag, width, height, terms));
            free(late);
        }
        free(in), free(ref), free(mag), free(dropped), free(alone);
    }
}

/* One pass: the bound is the workbook's one-pass rule, magnitude for magnitude. */
static void test_one_pass(uint64_t seed) {
    const int width = 53, height = 41, mask_w = 5, mask_h = 4;
    const size_t n = (size_t)width * height;
    float *in = malloc(n * sizeof *in), *ref = malloc(n * sizeof *ref);
    float *mag = malloc(n * sizeof *mag), *one = malloc(n * sizeof *one);
    float *one_mag = malloc(n * sizeof *one_mag), mask[20];
    fill_uniform(in, n, seed + 1, -2.0f, 2.0f);
    fill_uniform(mask, 20, seed + 2, -1.0f, 1.0f);
    CHECK(iterated_reference(in, width, height, mask, mask_w, mask_h, 1, ref, mag, 0) == 0);
    cpu_correlate_2d(in, width, height, mask, mask_w, mask_h, one, one_mag, 0);
    for (size_t k = 0; k < n; ++k) {
        CHECK_NEAR(ref[k], one[k], 0.0);
        CHECK_NEAR(mag[k], one_mag[k], 2e-7 * one_mag[k]);
    }
    /* zero passes: the input itself, with no slack */
    CHECK(iterated_reference(in, width, height, mask, mask_w, mask_h, 0, ref, mag, 0) == 0);
    CHECK(memcmp(ref, in, n * sizeof *in) == 0 && mag[n / 2] == 0.0f);
    free(in), free(ref), free(mag), free(one), free(one_mag);
}

int main(void) {
    const char *given = getenv("UNIT_SEED");
    const uint64_t seed = given ? strtoull(given, NULL, 10) : (uint64_t)time(NULL);
    printf("unit_slabs: seed %llu (UNIT_SEED=%llu repeats it)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    test_plan(seed);
    test_one_pass(seed);
    test_bound(seed);
    return check_summary("unit_slabs");
}
